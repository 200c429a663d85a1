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
from simkit.rules.contracts import RUFSPIEL, Contract
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
              results: dict, i: int, report: CheckReport, max_mismatches: int = 20) -> None:
    """Replay row ``i`` of a traced kernel batch in the referee and record every disagreement."""
    contract = contract_of_row(variant, called_suit, tout)
    game = Game(rules, [int(h) for h in hands], contract, int(declarer), int(doublings))
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
    for f in RESULT_FIELDS:
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
