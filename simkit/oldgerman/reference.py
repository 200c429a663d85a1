"""The referee of the old German Schafkopf (RULES.md section 3) in plain Python, written to be read.

It is the oracle the Numba kernel (:mod:`simkit.oldgerman.kernel`) is tested against. It shares no code with the
kernel or its tables: the shuffle, the trump orders, the trump choice and the stroke table are written out again
here from the rule book.

One deal::

    hands = deal_hands(seed, index, forehand=0)          # 3-2-3 from the shuffled deck
    choice = choose_trump(hands, forehand=0)              # who chooses, which suit, forced or not
    d = Deal(hands, choice.suit, leader=0)
    while not d.is_over:
        d.play(d.legal_cards()[0])
    s = score_deal(d.team_points(choice.team), d.team_tricks(choice.team), choice.team, choice.forced)

A partie: :class:`Partie` takes one scored deal after another and knows who deals next, whether the next deal is
a follow-up deal, and when a team has drawn a whole head.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simkit.cards import ASS, CARD_POINTS, KOENIG, OBER, R7, R8, R9, SUIT_NAMES, UNTER, ZEHN, cards_of, format_card

EU = 8 * 0 + UNTER  # Eichel-Unter: its holder must choose when nobody reaches 5
UNTER_ORDER = tuple(8 * s + UNTER for s in range(4))  # EU GU HU SU
RANKS_HIGH_FIRST = (ASS, KOENIG, OBER, ZEHN, R9, R8, R7)  # every suit: the Zehn ranks below the Ober
TRUMP = "trump"
OBLIGATION = 5  # a count of 5 or more must be announced

# ------------------------------------------------------------------------------------- the shuffle
# splitmix64 exactly as simkit.engine.rng (counter-based: every deal is a pure function of (seed, index)).
_M64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_STREAM_KEY = 0xD1B54A32D192ED03
STREAM_DEAL = 0
STREAM_STRATEGY = 3  # + seat


def _mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


class Stream:
    """One random stream (seed, index, stream id)."""

    def __init__(self, seed: int, index: int, stream: int):
        k = _mix64((seed + _GOLDEN * (stream + 1)) & _M64)
        self.state = _mix64(k ^ ((index * _STREAM_KEY) & _M64))

    def below(self, n: int) -> int:
        self.state = (self.state + _GOLDEN) & _M64
        return (_mix64(self.state) >> 32) % n


def shuffled_deck(seed: int, index: int) -> list[int]:
    """The 32 cards in the order they come off the shuffled deck (Fisher-Yates on cards 0..31)."""
    cards = list(range(32))
    rng = Stream(seed, index, STREAM_DEAL)
    for i in range(31, 0, -1):
        j = rng.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def deal_323(deck: list[int], forehand: int) -> list[int]:
    """Hands (masks by seat) dealt 3, then 2, then 3 cards to each player in turn, starting at forehand."""
    hands = [0, 0, 0, 0]
    pos = 0
    for packet in (3, 2, 3):
        for k in range(4):
            seat = (forehand + k) % 4
            for _ in range(packet):
                hands[seat] |= 1 << deck[pos]
                pos += 1
    return hands


def deal_hands(seed: int, index: int, forehand: int = 0) -> list[int]:
    return deal_323(shuffled_deck(seed, index), forehand)


# ------------------------------------------------------------------------------------ choosing trumps

def suit_cards(hand: int, suit: int) -> list[int]:
    """A hand's cards of ``suit`` other than its Unter (the Unter are trumps whatever the suit)."""
    return [c for c in cards_of(hand) if c >> 3 == suit and c & 7 != UNTER]


def longest_suit(hand: int) -> int:
    """The suit a player would choose: most cards (Unter not counted), then more card points, then E G H S."""
    def key(s):
        cs = suit_cards(hand, s)
        return (-len(cs), -sum(CARD_POINTS[c] for c in cs), s)
    return min(range(4), key=key)


@dataclass(frozen=True)
class PlayerCount:
    seat: int
    count: int  # Unter + cards of his longest other suit
    suit: int  # that suit
    points: int  # card points of those cards, Unter included


def player_count(hand: int, seat: int) -> PlayerCount:
    unters = [c for c in cards_of(hand) if c & 7 == UNTER]
    s = longest_suit(hand)
    cs = suit_cards(hand, s)
    return PlayerCount(seat, len(unters) + len(cs), s, sum(CARD_POINTS[c] for c in unters + cs))


@dataclass(frozen=True)
class TrumpChoice:
    chooser: int
    suit: int
    count: int  # the chooser's count
    forced: bool  # nobody reached 5: the EU holder had to choose
    counts: tuple[PlayerCount, ...]  # every seat's count, seat 0 first

    @property
    def team(self) -> int:
        return self.chooser % 2


def choose_trump(hands: list[int], forehand: int = 0) -> TrumpChoice:
    """RULES.md 3: the highest count of 5 or more chooses; equal counts: more card points in those cards, then the
    earlier seat from forehand. Nobody at 5: the holder of EU chooses (forced)."""
    counts = tuple(player_count(hands[s], s) for s in range(4))
    in_turn = [counts[(forehand + k) % 4] for k in range(4)]  # forehand first
    announced = [pc for pc in in_turn if pc.count >= OBLIGATION]
    if announced:
        best = announced[0]
        for pc in announced[1:]:  # a later seat needs strictly more: ties go to the earlier seat
            if (pc.count, pc.points) > (best.count, best.points):
                best = pc
        return TrumpChoice(best.seat, best.suit, best.count, False, counts)
    holder = next(s for s in range(4) if hands[s] >> EU & 1)
    pc = counts[holder]
    return TrumpChoice(holder, pc.suit, pc.count, True, counts)


# ------------------------------------------------------------------------------------------- play

def trump_order(trump: int) -> list[int]:
    return list(UNTER_ORDER) + [8 * trump + r for r in RANKS_HIGH_FIRST]


def side_order(suit: int) -> list[int]:
    return [8 * suit + r for r in RANKS_HIGH_FIRST]


class IllegalCard(ValueError):
    pass


class Deal:
    """One deal being played with trump suit ``trump``; ``leader`` (forehand) leads the first trick."""

    def __init__(self, hands: list[int], trump: int, leader: int = 0):
        self.trump = trump
        self.trumps = trump_order(trump)
        self.hands = [set(cards_of(h)) for h in hands]
        self.leader = leader
        self.current: list[int] = []
        self.tricks: list[tuple[int, tuple[int, ...], int]] = []  # (leader, cards in play order, winner)

    def eff(self, c: int):
        """Effective suit: ``TRUMP`` for an Unter or a card of the trump suit, else the printed suit."""
        return TRUMP if c in self.trumps else c >> 3

    @property
    def is_over(self) -> bool:
        return len(self.tricks) == 8

    @property
    def to_play(self) -> int:
        return (self.leader + len(self.current)) % 4

    def legal_cards(self) -> list[int]:
        """Follow the led suit (trump counts as one suit, Unter included) if you can; else play anything."""
        hand = sorted(self.hands[self.to_play])
        if not self.current:
            return hand
        led = self.eff(self.current[0])
        follow = [c for c in hand if self.eff(c) == led]
        return follow or hand

    def beats(self, new: int, best: int) -> bool:
        if new in self.trumps:
            return best not in self.trumps or self.trumps.index(new) < self.trumps.index(best)
        if best in self.trumps or new >> 3 != best >> 3:
            return False
        order = side_order(new >> 3)
        return order.index(new) < order.index(best)

    def play(self, c: int) -> None:
        seat = self.to_play
        if c not in self.legal_cards():
            raise IllegalCard(f"trick {len(self.tricks) + 1}, seat {seat}: {format_card(c)} is not legal "
                              f"(legal: {' '.join(format_card(x) for x in self.legal_cards())})")
        self.hands[seat].remove(c)
        self.current.append(c)
        if len(self.current) == 4:
            best = 0
            for i in range(1, 4):
                if self.beats(self.current[i], self.current[best]):
                    best = i
            winner = (self.leader + best) % 4
            self.tricks.append((self.leader, tuple(self.current), winner))
            self.current = []
            self.leader = winner

    def team_points(self, team: int) -> int:
        return sum(CARD_POINTS[c] for _, cs, w in self.tricks if w % 2 == team for c in cs)

    def team_tricks(self, team: int) -> int:
        return sum(1 for _, _, w in self.tricks if w % 2 == team)


# ------------------------------------------------------------------------------------------- scoring

@dataclass(frozen=True)
class DealScore:
    won: bool  # the declaring team took 61 or more
    tie: bool  # 60-60: nobody scores, the next deal is a follow-up deal
    double: bool  # the winning team took 90 or more (the same threshold for either team)
    schwarz: bool  # one team took every trick: it wins a whole head at once
    schwarz_team: int  # that team, or -1
    strokes: tuple[int, int]  # strokes awarded to team 0 (seats 0+2) and team 1 (seats 1+3) in this deal


def strokes_for(declaring_won: bool, double: bool, forced: bool, follow_up_of: int | None,
                declaring_team: int) -> tuple[int, int]:
    """(team that scores, strokes) per the RULES.md 3 table, for a deal that was not a 60-60 tie.

    ``follow_up_of``: None for an ordinary deal, else the team that declared in the tied deal before it."""
    other = 1 - declaring_team
    if follow_up_of is None:
        if declaring_won:
            return declaring_team, 2 if double else 1
        if forced:  # the forced EU holder's team loses: reduced
            return other, 2 if double else 1
        return other, 4 if double else 2
    if follow_up_of == declaring_team:  # the team that declared in the tie declares again
        return (declaring_team, 3 if double else 2) if declaring_won else (other, 6 if double else 4)
    # the other team declares this time
    return (declaring_team, 3 if double else 2) if declaring_won else (other, 5 if double else 3)


def score_deal(declarer_points: int, declarer_tricks: int, declaring_team: int, forced: bool,
               follow_up_of: int | None = None) -> DealScore:
    """Score one played deal (RULES.md 3). A Schwarz deal awards no strokes (the partie is won outright and its
    strokes stay as they were)."""
    if declarer_tricks in (0, 8):
        team = declaring_team if declarer_tricks == 8 else 1 - declaring_team
        won = declarer_tricks == 8
        return DealScore(won, False, True, True, team, (0, 0))
    if declarer_points == 60:
        return DealScore(False, True, False, False, -1, (0, 0))
    won = declarer_points >= 61
    double = declarer_points >= 90 if won else 120 - declarer_points >= 90
    team, n = strokes_for(won, double, forced, follow_up_of, declaring_team)
    strokes = (n, 0) if team == 0 else (0, n)
    return DealScore(won, False, double, False, -1, strokes)


# ------------------------------------------------------------------------------------------- partie

@dataclass
class Partie:
    """Strokes of the two teams over a partie. Deal ``k`` (0-based) is dealt by seat ``(3 + k) % 4``, so its
    forehand, who leads and is asked first, is seat ``k % 4`` (the first dealer is seat 3)."""

    head_strokes: int = 9
    strokes: list[int] = field(default_factory=lambda: [0, 0])
    deals: int = 0
    follow_up_of: int | None = None  # the team that declared in the last 60-60 deal, while a follow-up is due
    winner: int | None = None
    won_by_schwarz: bool = False
    history: list[tuple[int, int]] = field(default_factory=list)  # strokes awarded per deal

    @property
    def forehand(self) -> int:
        return self.deals % 4

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def record(self, declaring_team: int, score: DealScore) -> None:
        if self.is_over:
            raise ValueError("the partie is over")
        self.deals += 1
        self.history.append(score.strokes)
        if score.schwarz:
            self.winner, self.won_by_schwarz = score.schwarz_team, True
            return
        self.strokes[0] += score.strokes[0]
        self.strokes[1] += score.strokes[1]
        self.follow_up_of = declaring_team if score.tie else None  # no stacking: the latest tie decides
        for t in (0, 1):
            if self.strokes[t] >= self.head_strokes:
                self.winner = t


# ------------------------------------------------------------------------------------ a whole deal

@dataclass(frozen=True)
class DealRecord:
    hands: tuple[int, int, int, int]
    forehand: int
    choice: TrumpChoice
    follow_up_of: int | None
    tricks: tuple
    declarer_points: int
    declarer_tricks: int
    score: DealScore
    legal: tuple = ()  # the legal cards (mask) at every decision, in play order


def play_deal(seed: int, index: int, forehand: int = 0, follow_up_of: int | None = None,
              cards: list[int] | None = None) -> DealRecord:
    """Deal, choose trumps, play and score deal ``index`` of run ``seed``. Cards come from ``cards`` (a recorded
    sequence, checked card by card) or, if None, from the random policy: seat ``s`` draws uniformly among its legal
    cards (lowest card first) from stream (seed, index, STREAM_STRATEGY + s), no draw when one card is legal."""
    hands = deal_hands(seed, index, forehand)
    choice = choose_trump(hands, forehand)
    d = Deal(hands, choice.suit, leader=forehand)
    streams = [Stream(seed, index, STREAM_STRATEGY + s) for s in range(4)]
    legal_log = []
    k = 0
    while not d.is_over:
        legal = d.legal_cards()
        legal_log.append(sum(1 << c for c in legal))
        if cards is not None:
            c = cards[k]
        else:
            c = legal[0] if len(legal) == 1 else legal[streams[d.to_play].below(len(legal))]
        d.play(c)
        k += 1
    team = choice.team
    dp, dt = d.team_points(team), d.team_tricks(team)
    s = score_deal(dp, dt, team, choice.forced, follow_up_of)
    return DealRecord(tuple(hands), forehand, choice, follow_up_of, tuple(d.tricks), dp, dt, s, tuple(legal_log))


def describe_choice(choice: TrumpChoice) -> str:
    how = "forced (EU holder)" if choice.forced else f"count {choice.count}"
    return f"seat {choice.chooser} chooses {SUIT_NAMES[choice.suit]} ({how})"
