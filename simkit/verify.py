"""Cross-check of the Numba kernel against the plain-Python referee, decision by decision.

The kernel plays a batch with tracing on; the referee then replays every traced card and must agree on the set
of legal cards at every decision and on every result field at the end. Used by the test suite (seeded bulk runs
and hypothesis cases) and available to anyone changing the kernel::

    from simkit.verify import check_random_games
    report = check_random_games("rufspiel", n=10_000, seed=1, deck="short")
    assert report.mismatches == []
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simkit.cards import format_card, format_hand, mask_of
from simkit.engine import play_random, random_setups
from simkit.reference import Game
from simkit.rules.contracts import BETTEL, RAMSCH, RUFSPIEL, Contract
from simkit.rules.ruleset import Ruleset, load_ruleset
from simkit.rules.tables import VARIANT_KIND, VARIANT_SUIT

#: result fields compared between kernel and referee
RESULT_FIELDS = ("declarer_points", "declarer_tricks", "partner", "laufende", "laufende_mit", "schneider",
                 "schwarz", "won", "price")


def contract_of_row(variant: int, called_suit: int, tout: bool) -> Contract:
    kind = int(VARIANT_KIND[variant])
    if kind == RUFSPIEL:
        return Contract(kind, int(called_suit), False)
    suit = int(VARIANT_SUIT[variant])
    return Contract(kind, suit if suit >= 0 else None, bool(tout))


@dataclass
class CheckReport:
    games: int = 0
    decisions: int = 0
    mismatches: list[str] = field(default_factory=list)
    # how often interesting situations occurred, so tests can show they were exercised
    seen: dict[str, int] = field(default_factory=dict)

    def saw(self, what: str) -> None:
        self.seen[what] = self.seen.get(what, 0) + 1


def check_row(rules: Ruleset, hands, variant, called_suit, tout, declarer, doublings, legal_row, played_row,
              results: dict, i: int, report: CheckReport, max_mismatches: int = 20, *, contract: Contract | None = None,
              knocks: int = 0) -> None:
    """Replay row ``i`` of a traced kernel batch in the referee and record every disagreement. ``contract`` gives
    the contract where the variant does not name it (Bettel, Sie, Ramsch: the club rules, RULES.md 4; a Ramsch has
    no declarer); ``knocks`` the row's Klopfen."""
    contract = contract or contract_of_row(variant, called_suit, tout)
    ramsch = contract.kind == RAMSCH
    if knocks:
        game = Game(rules, [int(h) for h in hands], contract, None if ramsch else int(declarer), int(doublings),
                    knocks=knocks)
    else:  # the referee's classic signature
        game = Game(rules, [int(h) for h in hands], contract, None if ramsch else int(declarer), int(doublings))
    where = f"row {i} ({contract}, declarer {declarer}, hands {' | '.join(format_hand(int(h)) for h in hands)})"
    hs = rules.hand_size
    for col in range(4 * hs):
        want = mask_of(game.legal_cards())
        got = int(legal_row[col])
        report.decisions += 1
        if want != got:
            report.mismatches.append(
                f"{where}: trick {game.trick_number}, seat {game.to_play}: referee legal "
                f"{format_hand(want)}, kernel legal {format_hand(got)}")
            return
        c = int(played_row[col])
        _note_situations(game, c, report)
        game.play(c)
    r = game.result()
    report.games += 1
    _note_result(game, r, report)
    fields = RESULT_FIELDS + (("declarer", "durchmarsch", "jungfrauen") if ramsch else ())
    for f in fields:
        ref = getattr(r, f)
        ref = -1 if ref is None else ref
        ker = results[f][i]
        if int(ref) != int(ker):
            report.mismatches.append(f"{where}: {f} referee {ref} kernel {ker}")
    if tuple(int(x) for x in results["payouts"][i]) != r.payouts:
        report.mismatches.append(f"{where}: payouts referee {r.payouts} kernel {tuple(results['payouts'][i])}")
    if int(results["declarer_points"][i]) + int(results["defender_points"][i]) != 120:
        report.mismatches.append(f"{where}: kernel points do not sum to 120")
    del report.mismatches[max_mismatches:]


def _note_situations(game: Game, c: int, report: CheckReport) -> None:
    """Count the rule situations of RULES.md 2.4 as they happen (before card ``c`` is played)."""
    if game.called_ace is None or game.searched:
        return
    seat = game.to_play
    holder = game.called_ace in game.hands[seat]
    called = game.contract.suit
    if holder and not game.current and game.eff(c) == called and c != game.called_ace:
        report.saw("running away")
    if holder and len(game.hands[seat]) == 1:
        report.saw("called ace in the last trick")
    if holder and game.current and game.eff(game.current[0]) == called:
        report.saw("called ace forced")


def _note_result(game: Game, r, report: CheckReport) -> None:
    if game.contract.kind >= BETTEL:  # the club contracts: what their scoring turns on
        if game.contract.kind == RAMSCH:
            report.saw("durchmarsch" if r.durchmarsch else "ramsch lost")
            if r.jungfrauen:
                report.saw("jungfrau")
            pts = r.seat_points
            if sorted(pts)[-2] == max(pts):
                report.saw("ramsch tie")
        else:
            report.saw(f"{game.contract.name} {'won' if r.won else 'lost'}")
        return
    if r.declarer_points == 60:
        report.saw("60-60")
    if not r.laufende_mit and r.laufende >= game.tariff.min_laufende(game.contract):
        report.saw("laufende ohne paid")
    if r.schwarz:
        report.saw("schwarz")
    # A side with no points that still took a trick (worth 0): not Schwarz (RULES.md 2.5).
    for pts, n in ((r.declarer_points, r.declarer_tricks), (120 - r.declarer_points, game.n_tricks - r.declarer_tricks)):
        if pts == 0 and n > 0:
            report.saw("0 points but a 0-point trick")
    if game.contract.tout and not r.won and r.declarer_tricks == game.n_tricks - 1 \
            and game.tricks[-1][2] not in game.team:
        report.saw("tout lost in the last trick")


def check_batch(setups: dict, rules: Ruleset, seed: int, start: int = 0, report: CheckReport | None = None
                ) -> CheckReport:
    """Play ``setups`` (the dict of ``random_setups``) in the kernel with tracing and check every row."""
    report = report or CheckReport()
    res = play_random(setups["hands"], setups["variants"], setups["called_suits"], setups["touts"],
                      setups["declarers"], setups["doublings"], rules, seed=seed, start_index=start, trace=True)
    for i in range(len(setups["hands"])):
        if setups["declarers"][i] < 0:
            continue
        check_row(rules, setups["hands"][i], setups["variants"][i], setups["called_suits"][i],
                  setups["touts"][i], setups["declarers"][i], setups["doublings"][i], res["trace_legal"][i],
                  res["trace_played"][i], res, i, report)
    return report


def check_random_games(kind: str, n: int, seed: int, deck: str = "long", rules: Ruleset | str | None = None,
                       tout_share: float = 0.25, chunk: int = 20_000) -> CheckReport:
    """Deal ``n`` random games of ``kind`` (random declarer/suit, Touts at ``tout_share``, random Kontra/Re
    levels) and check kernel against referee on every decision."""
    rules = rules if isinstance(rules, Ruleset) else load_ruleset(rules)
    rules = rules.replace(deck=deck)
    report = CheckReport()
    rng = np.random.default_rng(seed)
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        setups = random_setups(seed, start, m, kind, deck, tout_share=tout_share)
        setups["doublings"] = rng.integers(0, rules.max_doublings + 1, m).astype(np.int8)
        check_batch(setups, rules, seed, start, report)
    return report


# ------------------------------------------------------------------------------------------- whole deals

def check_deals(res: dict, rules: Ruleset, report: CheckReport | None = None, max_mismatches: int = 20
                ) -> CheckReport:
    """Check the rows of ``simkit.engine.game.play_games(..., trace=True)`` against the referee: every bid is a
    possible declaration for its hand, the game is fixed from the bids by the referee's rule (or the deal is passed),
    Kontra/Re came from seats allowed to give them and the doublings match, and then every traced card and every
    result field as :func:`check_row`. Forced-mode rows (no bids) are checked from their contract; an
    ``impossible`` row must be a Rufspiel the declarer cannot call."""
    from simkit.reference import (contract_from_row, declaration_error, describe_bid, fix_game, kontra_seats,
                                  re_seats)
    from simkit.rules.tables import variant_index
    from simkit.strategies.api import NOT_ASKED

    report = report or CheckReport()

    def bad(msg):
        report.mismatches.append(msg)
        del report.mismatches[max_mismatches:]

    for i in range(len(res["hands"])):
        hands = [int(h) for h in res["hands"][i]]
        bids = [int(b) for b in res["bids"][i]]
        kind, decl = int(res["kind"][i]), int(res["declarer"][i])
        where = f"deal {int(res['deal_id'][i])}"
        if all(b == NOT_ASKED for b in bids):  # forced mode
            if kind < 0:
                if not res["impossible"][i]:
                    bad(f"{where}: forced row not played but not marked impossible")
                report.saw("impossible")
                continue
            contract = contract_from_row(kind, int(res["suit"][i]), bool(res["tout"][i]))
        else:
            for s in range(4):
                why = declaration_error(hands[s], bids[s], rules)
                if why is not None:
                    bad(f"{where}: seat {s} bid {describe_bid(bids[s])} which the referee rejects: {why}")
            fixed = fix_game(bids)
            if fixed is None and rules.all_pass == "ramsch":  # RULES.md 4.4: an all-pass deal is a Ramsch
                fixed = (decl, Contract(RAMSCH))
                if kind != RAMSCH:
                    bad(f"{where}: all passed under all_pass = ramsch, but the kernel played kind {kind}")
                    continue
            if fixed is None:
                report.saw("passed")
                if kind != -1 or decl != -1 or int(res["price"][i]) != 0 or np.any(res["payouts"][i] != 0):
                    bad(f"{where}: all passed, but the kernel played kind {kind} declarer {decl}")
                continue
            rdecl, contract = fixed
            got = contract_from_row(kind, int(res["suit"][i]), bool(res["tout"][i])) if kind >= 0 else None
            if rdecl != decl or got != contract:
                bad(f"{where}: bids {[describe_bid(b) for b in bids]}: referee fixes {contract} by seat {rdecl}, "
                    f"kernel {got} by seat {decl}")
                continue
            report.saw("tout" if contract.tout else contract.name)
        dbl, ks, rs = int(res["doublings"][i]), int(res["kontra_seat"][i]), int(res["re_seat"][i])
        partner = int(res["partner"][i])
        partner = None if partner < 0 else partner
        if ks >= 0 and (rules.max_doublings < 1 or ks not in kontra_seats(decl, partner)):
            bad(f"{where}: seat {ks} said Kontra but may not (declarer {decl}, partner {partner})")
        if rs >= 0 and (ks < 0 or rs not in re_seats(decl, partner, rules)):
            bad(f"{where}: seat {rs} said Re but may not (declarer {decl}, partner {partner}, Kontra {ks})")
        if dbl != (ks >= 0) + (rs >= 0):
            bad(f"{where}: doublings {dbl} but Kontra seat {ks}, Re seat {rs}")
        if ks >= 0:
            report.saw("kontra")
        if rs >= 0:
            report.saw("re")
        before = len(report.mismatches)
        knocks = int(res["knocked"][i]).bit_count() if "knocked" in res else 0
        if knocks:
            report.saw("knocked")
        check_row(rules, hands, variant_index(contract), contract.suit if contract.kind == RUFSPIEL else -1,
                  contract.tout, decl, dbl, res["trace_legal"][i], res["trace_played"][i], res, i, report,
                  max_mismatches, contract=contract if contract.kind >= BETTEL else None, knocks=knocks)
        if len(report.mismatches) > before:
            report.mismatches[before:] = [f"{where}: {m}" for m in report.mismatches[before:]]
    return report


def check_whole_deals(n: int, seed: int, seats=("random",) * 4, rules: Ruleset | str | None = None,
                      chunk: int = 5_000, contract=None, declarer=None) -> CheckReport:
    """Play ``n`` complete deals with ``seats`` (traced) and check every row with :func:`check_deals`."""
    from simkit.engine.game import play_games

    rules = rules if isinstance(rules, Ruleset) else load_ruleset(rules)
    report = CheckReport()
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        res = play_games(seed, start, m, rules, seats=seats, trace=True, contract=contract, declarer=declarer)
        check_deals(res, rules, report)
    return report
