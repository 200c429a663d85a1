"""An exhaustive double-dummy oracle for Schafkopf positions, and a generator of small random positions.

The oracle is deliberately plain: a recursive minimax over :class:`simkit.reference.Game` states that visits every
legal line of play to the end of the deal, with no pruning, no move ordering and no transposition table. Every rule
comes from the referee (``legal_cards()``, ``play()``, ``result()``); nothing here re-implements a rule of play or
of scoring. It exists to check a fast solver against, so it must be obviously right rather than quick: keep the
positions small (3 cards a hand is a few thousand leaves; 4 cards a hand can reach ~331k leaves and takes seconds).

All hands are open. The declaring side (``game.team``: the declarer, plus the holder of the called ace in a
Rufspiel) maximises the objective, the other seats minimise it. Objectives, all read from ``game.result()`` of the
finished deal:

* ``"points"``: ``declarer_points``, the declaring side's card points (points already taken included), 0..120;
* ``"win"``: 1 if ``won`` else 0 (a Tout is won only by taking every trick, ``result.won`` already says so);
* ``"payout"``: ``payouts[game.declarer]``, the declarer seat's own payout (tariff and doublings of the Game);
* ``"tricks"``: ``declarer_tricks``, the tricks the declaring side took in the whole deal.

The club contracts: a Bettel's declarer is its declaring side, so ``"win"`` (``result.won``: he took no trick) and
``"payout"`` need nothing new. A Ramsch has no declaring side; :func:`ramsch_values` is the same minimax for one
seat's own final card points (``result.seat_points[view]``), which that seat minimises and the other three
maximise.

Positions are built from replay records (``../shared/fixtures/README.md``) whose ``tricks`` may stop after any
card; :func:`game_from_record` builds the referee's Game exactly as :func:`simkit.replay.replay` does (same tariff
override, doublings = len(kontra), knocks = len(klopfen)), so payouts agree with ``simkit replay``.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable

from simkit.cards import ASS, DECK_MASKS, HAND_SIZE, SUIT_NAMES, card, cards_of, format_card, parse_card, parse_hands
from simkit.reference import Game, GameResult, suit_order, trump_order
from simkit.replay import _knocks, _kontra, _tariff_for
from simkit.rules import Contract, Ruleset, load_ruleset
from simkit.rules.contracts import RAMSCH, RUFSPIEL

OBJECTIVES = ("points", "win", "payout", "tricks")
KINDS = ("rufspiel", "solo", "wenz", "geier", "farbwenz", "farbgeier")
KINDS_WITH_SUIT = ("rufspiel", "solo", "farbwenz", "farbgeier")
CALLABLE_SUITS = ("eichel", "gras", "schellen")  # never Herz (RULES.md 2.2)
CLUB_KINDS = ("bettel", "ramsch")  # the generator's club contracts (never chosen when ``kind`` is None)


# ------------------------------------------------------------------------------------------------ oracle

def objective_of(result: GameResult, game: Game, objective: str) -> int:
    """The number an objective takes on the result of a finished deal."""
    if objective == "points":
        return result.declarer_points
    if objective == "win":
        return 1 if result.won else 0
    if objective == "payout":
        return result.payouts[game.declarer]
    if objective == "tricks":
        return result.declarer_tricks
    raise ValueError(f"unknown objective {objective!r}; valid: {', '.join(OBJECTIVES)}")


def after(game: Game, c: int) -> Game:
    """A new Game: ``game`` with card ``c`` played by the seat to move. ``game`` itself is not changed.

    ``Game.play`` changes only ``hands`` (a list of sets), ``current``, ``tricks``, ``leader`` and ``searched``;
    the first three are copied here, the last two are plain values rebound on the copy. Everything else (rules,
    contract, dealt hands, team, sort order) is read-only during play and may be shared.
    """
    child = copy.copy(game)
    child.hands = [set(h) for h in game.hands]
    child.current = list(game.current)
    child.tricks = list(game.tricks)
    child.play(c)
    return child


def maximises(game: Game) -> bool:
    """Is the seat to move on the declaring side?"""
    return game.to_play in game.team


def exhaustive_values(game: Game, objective: str) -> dict[int, int]:
    """The minimax value of every legal card of the seat to move (card index -> value)."""
    if game.is_over:
        raise ValueError("the game is over: no card to play")
    return {c: exhaustive_value(after(game, c), objective) for c in game.legal_cards()}


def exhaustive_value(game: Game, objective: str) -> int:
    """The minimax value of the position; for a finished deal, the objective of its result."""
    if game.is_over:
        return objective_of(game.result(), game, objective)
    values = exhaustive_values(game, objective).values()
    return max(values) if maximises(game) else min(values)


def best_cards(game: Game, values: dict[int, int]) -> set[int]:
    """The cards whose value is optimal for the side of the seat to move."""
    target = max(values.values()) if maximises(game) else min(values.values())
    return {c for c, v in values.items() if v == target}


def ramsch_values(game: Game, view: int) -> dict[int, int]:
    """Ramsch: the minimax value of every legal card of the seat to move, the value being seat ``view``'s own final
    card points; ``view`` minimises them, the three others maximise them."""
    if game.is_over:
        raise ValueError("the game is over: no card to play")
    return {c: ramsch_value(after(game, c), view) for c in game.legal_cards()}


def ramsch_value(game: Game, view: int) -> int:
    if game.is_over:
        return game.result().seat_points[view]
    values = ramsch_values(game, view).values()
    return min(values) if game.to_play == view else max(values)


def count_leaves(game: Game) -> int:
    """Number of complete lines of play below the position (a measure of the oracle's work)."""
    if game.is_over:
        return 1
    return sum(count_leaves(after(game, c)) for c in game.legal_cards())


# ------------------------------------------------------------------------------------- records and games

def resolve_rules(rules: Ruleset | str | None, deck: str) -> Ruleset:
    rules = rules if isinstance(rules, Ruleset) else load_ruleset(rules)
    return rules if rules.deck == deck else rules.replace(deck=deck)


def game_from_record(record: dict, rules: Ruleset | str | None = None) -> Game:
    """The referee's Game after the record's cards, built as :func:`simkit.replay.replay` builds it; ``tricks``
    may stop after any card (complete tricks, then optionally one trick with 1-3 cards) or be empty."""
    rules = resolve_rules(rules, record.get("deck", "long"))
    contract = Contract.parse(record["contract"], record.get("suit"), bool(record.get("tout", False)))
    hands = parse_hands(record["hands"], rules.deck)
    declarer = record["declarer"]
    game = Game(rules, hands, contract, declarer, tariff=_tariff_for(record, rules, contract))
    game.knocks = _knocks(record)  # Klopfen apart from Kontra/Re, as simkit.replay.start_game does
    game.doublings = _kontra(record, rules, contract, declarer, game.partner)
    tricks = record["tricks"]
    for i, trick in enumerate(tricks):
        if trick["leader"] != game.leader:
            raise ValueError(f"trick {i + 1} is led by seat {trick['leader']}, expected seat {game.leader}")
        if len(trick["cards"]) != 4 and i != len(tricks) - 1:
            raise ValueError(f"trick {i + 1} has {len(trick['cards'])} cards but is not the last one")
        if not 1 <= len(trick["cards"]) <= 4:
            raise ValueError(f"trick {i + 1} has {len(trick['cards'])} cards")
        for token in trick["cards"]:
            game.play(parse_card(token))
    return game


def record_of(game: Game, *, record_id: str, klopfen=(), kontra=(), tariff: dict | None = None) -> dict:
    """The replay record of a Game in progress: hands as dealt, every card played so far, in order."""
    c = game.contract
    tricks = [{"leader": leader, "cards": [format_card(x) for x in cs]} for leader, cs, _ in game.tricks]
    if game.current:
        tricks.append({"leader": game.leader, "cards": [format_card(x) for x in game.current]})
    record = {
        "id": record_id,
        "deck": game.deck,
        "contract": c.name,
        "tout": c.tout,
        "declarer": game.declarer,
        "suit": SUIT_NAMES[c.suit] if c.suit is not None else None,
        "hands": [[format_card(x) for x in cards_of(h)] for h in game.dealt],
        "klopfen": list(klopfen),
        "kontra": list(kontra),
        "tricks": tricks,
    }
    if tariff is not None:
        record["tariff"] = dict(tariff)
    return record


# ------------------------------------------------------------------------------------------- generator

def strength(game: Game, c: int) -> int:
    """A rough order of card strength for the generator's greedy play (higher is stronger): any trump above any
    side card. Only steers the generator; it never decides a value."""
    trumps = game.trumps
    if c in trumps:
        return 100 - trumps.index(c)
    order = suit_order(game.contract, c >> 3, game.deck)
    return 50 - order.index(c)


def strongest_cards(contract: Contract, deck: str) -> list[int]:
    """The deck from the generator's point of view, strongest first: the trumps high to low, then the side cards
    rank by rank (every side ace, then every ten, ...)."""
    sides = [suit_order(contract, s, deck) for s in range(4)]
    by_rank = [o[i] for i in range(max(map(len, sides))) for o in sides if i < len(o)]
    return list(trump_order(contract, deck)) + by_rank


def called_suit_cards(contract: Contract, deck: str) -> list[int]:
    """The non-trump cards of the called suit (a Rufspiel), ace first."""
    return list(suit_order(contract, contract.suit, deck))


def holds_unsearched_ace(game: Game, seat: int | None = None) -> bool:
    """Rufspiel, called suit not yet searched, and the holder (or ``seat``) still holds the called ace."""
    if game.called_ace is None or game.searched:
        return False
    seat = game.partner if seat is None else seat
    return game.called_ace in game.hands[seat]


def _deal(rng: random.Random, deck: str, fixed: dict[int, list[int]]) -> list[int]:
    hs = HAND_SIZE[deck]
    taken = {c for cs in fixed.values() for c in cs}
    rest = [c for c in cards_of(DECK_MASKS[deck]) if c not in taken]
    rng.shuffle(rest)
    hands = []
    for seat in range(4):
        own = list(fixed.get(seat, []))
        need = hs - len(own)
        own += rest[:need]
        rest = rest[need:]
        hands.append(sum(1 << c for c in own))
    return hands


def _setup(rng, deck, kind, suit, tout, declarer, holder_called, strong_declarer):
    """A random (hands, Contract, declarer) that the referee accepts, steered by the knobs."""
    for _ in range(10_000):
        k = kind or rng.choice(KINDS)
        if k in CLUB_KINDS:  # no trumps to steer (Bettel) or no declarer (Ramsch): a plain random deal
            d = None if k == "ramsch" else (rng.randrange(4) if declarer is None else declarer)
            return _deal(rng, deck, {}), Contract.parse(k, None, False), d
        if k == "rufspiel":
            s = suit or rng.choice(CALLABLE_SUITS)
            t = False
        else:
            s = (suit or rng.choice(SUIT_NAMES)) if k in KINDS_WITH_SUIT else None
            t = rng.random() < 0.25 if tout is None else tout
        contract = Contract.parse(k, s, t)
        d = rng.randrange(4) if declarer is None else declarer
        fixed: dict[int, list[int]] = {}
        if contract.kind == RUFSPIEL and holder_called:
            # The holder gets the ace and holder_called - 1 more cards of the called suit, the declarer one.
            partner = rng.choice([x for x in range(4) if x != d])
            low = called_suit_cards(contract, deck)[1:]
            rng.shuffle(low)
            n = holder_called - 1
            if n + 1 > len(low):
                raise ValueError(f"the {deck} deck has only {len(low) + 1} cards of the called suit")
            fixed = {partner: [card(contract.suit, ASS)] + low[:n], d: [low[n]]}
        elif strong_declarer:
            fixed = {d: strongest_cards(contract, deck)[:strong_declarer]}
        hands = _deal(rng, deck, fixed)
        if contract.kind == RUFSPIEL:
            ace = card(contract.suit, ASS)
            own = [c for c in cards_of(hands[d]) if c in called_suit_cards(contract, deck)]
            if hands[d] >> ace & 1 or not own:
                continue  # the declarer could not have called this ace
        return hands, contract, d
    raise RuntimeError("no deal found for these knobs")


def random_position(rng: random.Random, *, deck: str = "long", kind: str | None = None, suit: str | None = None,
                    tout: bool | None = None, declarer: int | None = None, cards_left: int = 2,
                    mid_trick: int | None = None, rules: Ruleset | str | None = None, tariff: dict | None = None,
                    klopfen: list[int] | None = None, kontra: list[int] | str | None = None,
                    greedy: float = 0.0, unsearched: bool = False, lead_called: bool = False,
                    holder_called: int = 0, strong_declarer: int = 0, record_id: str | None = None,
                    ) -> tuple[dict, Game]:
    """A random position and its replay record: a deal, a contract, and random legal plays.

    * ``deck``, ``kind`` (a contract name, None: any of the six), ``suit`` (None: random; for a Rufspiel a suit
      the declarer may call), ``tout`` (None: a quarter of the solo-type deals), ``declarer`` (None: random);
    * ``cards_left``: cards in every hand at the start of the current trick (1..hand size);
    * ``mid_trick``: cards of the current trick already played, 0..3 (None: random);
    * ``rules``: a Ruleset or preset name (its deck is replaced by ``deck``), e.g. one with ``run_away_min=2``;
    * ``tariff``: the record's tariff override; ``klopfen``: seats; ``kontra``: seats, or ``"random"`` for a
      random legal Kontra (and maybe Re); klopfen None means none;
    * ``greedy``: probability that a card of the prefix is chosen greedily (the declaring side plays its
      strongest legal card, the defenders their weakest) instead of uniformly;
    * ``unsearched`` (Rufspiel): in the prefix nobody leads the called suit when he has another legal lead, and
      the holder of the called ace keeps his called-suit cards where he can;
    * ``lead_called`` (Rufspiel): the current trick (``mid_trick`` >= 1) is led with a called-suit card if the
      leader may lead one;
    * ``holder_called`` (Rufspiel): deal the holder the called ace and holder_called - 1 more of its suit;
    * ``strong_declarer``: deal the declarer the first ``strong_declarer`` cards of :func:`strongest_cards`
      (the top trumps, then side aces, ...).

    Returns ``(record, game)``; ``game`` (with ``game.rules``) is the referee's state after exactly the record's
    cards, and ``game_from_record(record, game.rules)`` rebuilds it.
    """
    rules = resolve_rules(rules, deck)
    hs = HAND_SIZE[deck]
    if not 1 <= cards_left <= hs:
        raise ValueError(f"cards_left must be 1..{hs}")
    mid = rng.randrange(4) if mid_trick is None else mid_trick
    if not 0 <= mid <= 3:
        raise ValueError("mid_trick must be 0..3")
    hands, contract, d = _setup(rng, deck, kind, suit, tout, declarer, holder_called, strong_declarer)
    record = {"contract": contract.name, "tout": contract.tout, "suit": SUIT_NAMES[contract.suit]
              if contract.suit is not None else None, "tariff": tariff}
    game = Game(rules, hands, contract, d, tariff=_tariff_for(record, rules, contract))
    klopfen = list(klopfen or [])
    if kontra == "random" and contract.kind != RAMSCH:  # (no Kontra in a Ramsch)
        defenders = [s for s in range(4) if s not in game.team]
        kontra = []
        if rng.random() < 0.6:
            kontra.append(rng.choice(defenders))
            if rules.max_doublings >= 2 and rng.random() < 0.5:
                kontra.append(rng.choice(sorted(game.team)) if rules.re_by_partner else d)
    kontra = list(kontra or []) if contract.kind != RAMSCH else []
    game.knocks = len(klopfen)
    game.doublings = _kontra({"kontra": kontra}, rules, contract, d, game.partner)

    n_prefix = 4 * (hs - cards_left) + mid
    for i in range(n_prefix):
        current_trick = i >= 4 * (hs - cards_left)
        game.play(_pick(game, rng, greedy=greedy, unsearched=unsearched,
                        lead_called=lead_called and current_trick))
    rid = record_id or f"random-{rng.randrange(10 ** 9)}"
    return record_of(game, record_id=rid, klopfen=klopfen, kontra=kontra, tariff=tariff), game


def _pick(game: Game, rng: random.Random, *, greedy: float, unsearched: bool, lead_called: bool) -> int:
    legal = game.legal_cards()
    seat = game.to_play
    if game.called_ace is not None and not game.searched:
        called = game.contract.suit

        def prefer(keep: Callable[[int], bool]) -> list[int]:
            return [c for c in legal if keep(c)] or legal

        if not game.current and lead_called:
            legal = prefer(lambda c: game.eff(c) == called)
        elif unsearched and not game.current:
            legal = prefer(lambda c: game.eff(c) != called)
        elif unsearched and seat == game.partner:
            legal = prefer(lambda c: game.eff(c) != called)
    if greedy and rng.random() < greedy:
        key = lambda c: strength(game, c)  # noqa: E731
        return max(legal, key=key) if seat in game.team else min(legal, key=key)
    return rng.choice(legal)


def sample_positions(rng: random.Random, n: int, predicate: Callable[[Game], bool] | None = None, *,
                     max_tries: int = 20_000, **knobs) -> list[tuple[dict, Game]]:
    """``n`` positions from :func:`random_position` (with ``knobs``) for which ``predicate(game)`` holds."""
    out = []
    for _ in range(max_tries):
        record, game = random_position(rng, **knobs)
        if predicate is None or predicate(game):
            out.append((record, game))
            if len(out) == n:
                return out
    raise RuntimeError(f"only {len(out)} of {n} positions found in {max_tries} tries: the generator drifted")


# ------------------------------------------------------------------------------------- describing a case

def describe(record: dict, game: Game | None = None) -> str:
    """A compact text of a position for assertion messages: the record, and the hands left and legal cards."""
    lines = [json.dumps(record)]
    if game is not None and not game.is_over:
        hands = " | ".join(" ".join(format_card(c) for c in sorted(h)) for h in game.hands)
        legal = " ".join(format_card(c) for c in game.legal_cards())
        lines.append(f"hands left: {hands}; seat {game.to_play} to play; legal: {legal}; team {sorted(game.team)}")
    return "\n".join(lines)


def named(values: dict[int, int]) -> dict[str, int]:
    return {format_card(c): v for c, v in sorted(values.items())}
