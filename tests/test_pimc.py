"""The ``pimc`` strategy: its worlds are consistent and exactly uniform (checked against the plain-Python referee,
by brute force), it sees only its seat's information, the kernel and the record path choose alike, and the same
seed gives the same games however the deals are split."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from simkit.analyze.advice import advise, walk
from simkit.analyze.records import parse_game
from simkit.engine.batch import tables_for
from simkit.reference import Game, IllegalPlay, InvalidGame, declaration_error
from simkit.rules import load_ruleset
from simkit.rules.contracts import RUFSPIEL
from simkit.strategies import pimc, resolve, worlds
from simkit.strategies.api import I_BIDS, I_PLAYED, I_PLAYED_BY, I_RNG, I_VARIANT, bid_code
from test_analyze import _kernel_games


def _states(game):
    """(decision, seat, hand, legal, info) at every decision of a recorded game, as the seat saw it."""
    out = []

    def ask(i, seat, hand, legal, info):
        out.append((i, seat, int(hand), int(legal), info.copy()))
        return game.plays[i]

    walk(game, ask)
    return out


def _truth(game, i):
    """Every seat's hand just before decision ``i`` of the recorded game."""
    hands = [int(h) for h in game.opening.hands]
    g = Game(game.opening.rules, hands, game.opening.contract, game.opening.declarer)
    for c in game.plays[:i]:
        hands[g.to_play] &= ~(1 << c)
        g.play(c)
    return hands


def referee_consistent(game, i, info, world) -> bool:
    """Could the record's first ``i`` cards (and the bids in ``info``) have happened with these current hands?
    Decided by the referee alone: the dealt hands are replayed card by card, and each bid must be a valid
    declaration of its seat's dealt hand."""
    pos = game.opening
    dealt = [int(world[s]) | int(info[I_PLAYED_BY + s]) for s in range(4)]
    try:
        g = Game(pos.rules, dealt, pos.contract, pos.declarer)
        for c in game.plays[:i]:
            g.play(c)
    except (IllegalPlay, InvalidGame, ValueError):
        return False
    for s in range(4):
        b = int(info[I_BIDS + s])
        if b >= 0 and declaration_error(dealt[s], b, pos.rules) is not None:
            return False
    return True


class Sampler:
    def __init__(self, rules, hand, seat, info, rng=12345):
        self.t = tables_for(rules)
        self.hand, self.seat = np.int64(hand), np.int64(seat)
        self.info = info.copy()
        self.info[I_RNG] = rng
        self.work = np.zeros(worlds.W_SIZE, np.int64)
        self.counts = np.zeros(worlds.COUNT_SHAPE, np.int64)
        worlds.knowledge(self.hand, self.seat, self.info, self.t.eff_suit, self.t.suit_mask, self.t.params,
                         self.work)
        self.total = worlds.count_worlds(self.work, self.counts, worlds.BINOM)

    def draw(self):
        world = np.zeros(4, np.int64)
        assert worlds.draw_world(self.hand, self.seat, self.work, self.counts, worlds.BINOM, self.info, world) > 0
        return tuple(int(x) for x in world)

    def allows(self, hands) -> bool:
        """The sampler's knowledge admits these hands (every card where it may be, every count constraint)."""
        unseen = int(self.work[worlds.W_UNSEEN])
        for s in range(4):
            if s == self.seat:
                continue
            m = hands[s]
            if m & ~unseen:
                return False
            while m:
                c = (m & -m).bit_length() - 1
                m &= m - 1
                if not (int(self.work[worlds.W_ALLOWED + c]) >> s) & 1:
                    return False
        return bool(worlds.satisfies(self.work, np.array(hands, np.int64)))


def _with_outbid_rufspiel(game, info):
    """``info`` with a Rufspiel bid for every non-declarer seat whose dealt hand could have declared one (a seat
    outbid by the declarer): more for the sampler to respect."""
    info = info.copy()
    pos = game.opening
    if pos.contract.kind == RUFSPIEL:
        return info
    for s in range(4):
        if s == pos.declarer:
            continue
        for x in (0, 1, 3):
            code = int(bid_code(RUFSPIEL, x, False))
            if declaration_error(int(pos.hands[s]), code, pos.rules) is None:
                info[I_BIDS + s] = code
                break
    return info


def _games(preset, n, seed, **forced):
    rules, games = _kernel_games(preset, n, seed=seed, **forced)
    return rules, [parse_game(record, k + 1, rules) for k, (record, _) in enumerate(games)]


CASES = [("sauspiel", {}), ("sauspiel-short", {}), ("sauspiel", {"contract": "rufspiel", "declarer": 1}),
         ("sauspiel", {"contract": "wenz", "declarer": 3}), ("sauspiel-short", {"contract": "rufspiel", "declarer": 0})]


@pytest.mark.parametrize("preset,forced", CASES)
def test_sampled_worlds_are_consistent(preset, forced):
    """At every decision of many games: the real hands are among the worlds the sampler admits (it rules nothing
    possible out), and every sampled world passes the referee (it lets nothing impossible in)."""
    rules, games = _games(preset, 40, seed=5, **forced)
    checked = 0
    for game in games:
        for i, seat, hand, legal, info in _states(game):
            for inf in (info, _with_outbid_rufspiel(game, info)):
                smp = Sampler(rules, hand, seat, inf, rng=1000 * i + seat)
                assert smp.total > 0
                assert smp.allows(_truth(game, i)), (game.game_id, i)
                for _ in range(4):
                    assert referee_consistent(game, i, inf, smp.draw()), (game.game_id, i)
                    checked += 1
    assert checked > 500


def _enumerate(game, i, seat, hand, info):
    """Every consistent world (by brute force over all deals of the unseen cards, judged by the referee)."""
    rules = game.opening.rules
    deck = tables_for(rules).params[11]
    unseen = int(deck) & ~int(info[I_PLAYED]) & ~hand
    cards = [c for c in range(32) if unseen >> c & 1]
    others = [s for s in range(4) if s != seat]
    need = [rules.hand_size - bin(int(info[I_PLAYED_BY + s])).count("1") for s in others]
    out = []
    for a in itertools.combinations(cards, need[0]):
        rest = [c for c in cards if c not in a]
        for b in itertools.combinations(rest, need[1]):
            world = [0, 0, 0, 0]
            world[seat] = hand
            world[others[0]] = sum(1 << c for c in a)
            world[others[1]] = sum(1 << c for c in b)
            world[others[2]] = sum(1 << c for c in rest if c not in b)
            if referee_consistent(game, i, info, world):
                out.append(tuple(world))
    return out


def _uniformity_positions(per_case=2):
    """Late decisions (4 to 9 unseen cards) of a few games of each kind: small enough to list every world."""
    found = []
    for preset, forced, seed in (("sauspiel", {"contract": "rufspiel", "declarer": 2}, 7), ("sauspiel-short", {}, 8),
                                 ("sauspiel", {}, 9)):
        rules, games = _games(preset, 12, seed=seed, **forced)
        taken = 0
        for game in games:
            for i, seat, hand, legal, info in _states(game):
                unseen = 32 - bin(int(info[I_PLAYED])).count("1") - bin(hand).count("1")
                if rules.hand_size == 6:
                    unseen -= 8
                if 4 <= unseen <= 9:
                    found.append((game, i, seat, hand, info))
                    taken += 1
                    break
            if taken >= per_case:
                break
    return found


def test_sampling_is_exactly_uniform():
    """On positions small enough to list every consistent world: the sampler produces exactly those worlds, each
    about equally often (chi-square, Wilson-Hilferty z below 4.5; the draws are seeded, so this cannot flake)."""
    tested = 0
    for game, i, seat, hand, info in _uniformity_positions():
        everything = _enumerate(game, i, seat, hand, info)
        k = len(everything)
        if k < 3:
            continue
        smp = Sampler(game.opening.rules, hand, seat, info, rng=99 + i)
        n = 100 * k
        seen: dict = {}
        for _ in range(n):
            w = smp.draw()
            seen[w] = seen.get(w, 0) + 1
        assert set(seen) == set(everything), game.game_id
        expected = n / k
        chi2 = sum((seen[w] - expected) ** 2 / expected for w in everything)
        dof = k - 1
        z = ((chi2 / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
        assert z < 4.5, (game.game_id, chi2, dof)
        tested += 1
    assert tested >= 3


def test_uniform_over_the_card_split_with_constraints():
    """The count of the per-card-constrained deals matches a brute-force count (voids and the called ace), and
    the declarer's called-suit card is enforced by redrawing."""
    rules, games = _games("sauspiel", 20, seed=21, contract="rufspiel", declarer=0)
    compared = 0
    for game in games:
        for i, seat, hand, legal, info in _states(game)[8:20:4]:
            smp = Sampler(rules, hand, seat, info)
            unseen = int(smp.work[worlds.W_UNSEEN])
            cards = [c for c in range(32) if unseen >> c & 1]
            others = [s for s in range(4) if s != seat]
            need = [int(smp.work[worlds.W_NEED + s]) for s in others]
            if math.comb(len(cards), need[0]) * math.comb(len(cards) - need[0], need[1]) > 40000:
                continue
            brute = 0
            for a in itertools.combinations(cards, need[0]):
                rest = [c for c in cards if c not in a]
                for b in itertools.combinations(rest, need[1]):
                    assign = {c: others[0] for c in a} | {c: others[1] for c in b}
                    assign |= {c: others[2] for c in rest if c not in b}
                    if all(int(smp.work[worlds.W_ALLOWED + c]) >> s & 1 for c, s in assign.items()):
                        brute += 1
            assert smp.total == brute
            compared += 1
    assert compared >= 10


# ---------------------------------------------------------------------------------------- what pimc sees

def _small_pimc():
    s = resolve("pimc")
    cfg = s.config.copy()
    cfg[pimc.C_WORLDS] = 6
    # the other seats' bids are not in a record (a replay has the declarer's bid and passes), so the inference
    # must not read them for the record path to see what the kernel's seat saw
    cfg[pimc.C_INFER_BIDS] = 0
    return s.with_config(cfg)


def _kernel_records(rules, seats, seed, first, n, contract, declarer):
    """The games the kernel played (``contract`` forced on ``declarer``) as parsed records, each with its cards in
    play order; deals whose hand cannot declare the contract are left out."""
    from simkit.engine.game import play_games
    from test_analyze import record_of

    g = play_games(seed, first, n, rules, seats=seats, trace=True, contract=contract, declarer=declarer)
    for j in range(n):
        if g["kind"][j] < 0:
            continue
        row = {k: g[k][j] for k in ("deal_id", "kind", "suit", "tout", "declarer", "hands", "kontra_seat",
                                     "re_seat")}
        played = [int(c) for c in g["trace_played"][j]]
        yield parse_game(record_of(row, rules, played), int(row["deal_id"]), rules), played


@pytest.mark.parametrize("kind", ["rufspiel", ("solo", "gras")])
def test_kernel_and_record_path_choose_alike(kind):
    """Games the kernel played with pimc at every seat: asked through the record path (which gives the strategy
    only the seat's own hand and the public history), pimc names the card it played at every decision. So the
    kernel's pimc uses nothing a record does not show its seat, and its choice depends on nothing else (not on
    what the workspace solved before)."""
    rules = load_ruleset("sauspiel")
    strat = _small_pimc()
    agreed = 0
    for game, played in _kernel_records(rules, strat, 0, 1, 8, kind, 1):
        assert advise(strat, game) == played
        agreed += 1
    assert agreed >= 6


@pytest.mark.parametrize("bid_weight", [1.0, 0.25])
def test_choice_ignores_the_hidden_hands(bid_weight):
    """At a decision, every world the seat cannot tell apart from the real one (same hand, same public history,
    same bids) gives the same choice: the hidden cards are permuted among the consistent worlds, the rest of the
    game is finished with any legal cards, and pimc is asked through the record path. Also with worlds weighted by
    the bids (the record path's bids: the declarer's declaration, the others' passes)."""
    strat = _small_pimc()
    strat = strat.with_config(np.concatenate([strat.config[:pimc.C_BID_WEIGHT], [bid_weight]]))
    game, i, seat, hand, info = next(p for p in _uniformity_positions() if len(_enumerate(*p)) >= 3)
    pos = game.opening
    real = advise(strat, game)[i]
    checked = 0
    for world in _enumerate(game, i, seat, hand, info)[:6]:
        dealt = [int(world[s]) | int(info[I_PLAYED_BY + s]) for s in range(4)]
        g = Game(pos.rules, dealt, pos.contract, pos.declarer)
        plays = list(game.plays[:i])
        for c in plays:
            g.play(c)
        while not g.is_over:
            c = min(g.legal_cards())
            plays.append(c)
            g.play(c)
        record = dict(game.record)
        from simkit.cards import format_card

        record["hands"] = [[format_card(c) for c in range(32) if h >> c & 1] for h in dealt]
        record["tricks"] = [{"leader": leader, "cards": [format_card(c) for c in cards]}
                            for leader, cards, _ in g.tricks]
        record.pop("expected_payouts", None)
        other = parse_game(record, game.line, pos.rules)
        assert advise(strat, other)[i] == real
        checked += 1
    assert checked >= 3


def test_bid_weight_counts_the_seats_whose_bid_fits_their_hand():
    """A world's weight: WEIGHT_ONE for each other seat whose bid the heuristic (pimc's bidder) would have made
    with that world's hand, bid_weight x WEIGHT_ONE for each whose it would not."""
    from simkit.engine.batch import tables_for
    from simkit.engine.deal import deal_batch
    from simkit.strategies import heuristic
    from simkit.strategies.api import I_BIDS, INFO_SIZE, NOT_ASKED

    rules = load_ruleset("sauspiel")
    t = tables_for(rules)
    config = resolve("pimc[bid_weight=0.25]").config_for(rules)
    seen = set()
    for hands in deal_batch(3, 0, 200, "long"):
        info = np.zeros(INFO_SIZE, np.int64)
        info[I_BIDS:I_BIDS + 4] = NOT_ASKED
        fits = []
        for s in range(4):  # the bids as the heuristic makes them, seat 0 first; seat 2's replaced by a pass
            b = heuristic.bid(np.int64(hands[s]), s, info, t.strength, t.eff_suit, t.params, config)
            info[I_BIDS + s] = -1 if s == 2 else b
            fits.append(s != 2 or b == -1)
        me = 1
        want = 1
        for s in (0, 2, 3):
            want *= pimc.WEIGHT_ONE if fits[s] else 4  # 0.25 x 16
        got = pimc._bid_weight(hands.astype(np.int64), me, info, t.strength, t.params, config, np.int64(4))
        assert got == want
        seen.add(got)
    assert seen == {16 ** 3, 16 ** 2 * 4}  # seat 2 sometimes had a hand to bid with


# ---------------------------------------------------------------------------------------- reproducible

def test_same_seed_same_games_in_any_split():
    from simkit.engine.game import play_games

    strat = _small_pimc()
    whole = play_games(4, 10, 6, "sauspiel", seats=[strat, "heuristic", strat, "heuristic"])
    parts = [play_games(4, 10 + a, 3, "sauspiel", seats=[strat, "heuristic", strat, "heuristic"]) for a in (0, 3)]
    for key in ("payouts", "declarer_points", "kind"):
        assert np.array_equal(whole[key], np.concatenate([p[key] for p in parts]))


def test_pimc_plays_legal_complete_games_and_differs_from_the_heuristic():
    """Whole deals with pimc at every seat follow every rule (the kernel rejects an illegal card), keep the
    invariants, and pimc does not merely copy the heuristic."""
    from simkit.engine.game import play_games

    cfg = _small_pimc().config.copy()
    cfg[pimc.C_BID_EVAL] = cfg[pimc.C_DOUBLE_EVAL] = 0  # bidding as the value-table bidder (the heuristic)
    strat = _small_pimc().with_config(cfg)
    for preset in ("sauspiel", "sauspiel-short"):
        p = play_games(2, 0, 30, preset, seats=strat, trace=True)
        h = play_games(2, 0, 30, preset, seats="heuristic", trace=True)
        played = p["kind"] >= 0
        assert (p["payouts"].sum(axis=1) == 0).all()
        assert ((p["declarer_points"] + p["defender_points"])[played] == 120).all()
        assert np.array_equal(p["bids"], h["bids"])  # pimc bids as the heuristic does
        assert (p["trace_played"] != h["trace_played"]).any(axis=1).sum() >= 3  # but plays other cards


def test_run_with_pimc_is_the_same_for_any_workers_and_chunks(tmp_path):
    """`simkit run` with pimc seats: one worker and one chunk, or two workers and small chunks, give the same
    rows."""
    import pandas as pd

    from simkit.sim.runner import RunOptions, run

    seats = ("pimc[worlds=4]", "heuristic", "pimc[worlds=4]", "heuristic")
    run(RunOptions(deals=24, seed=3, seats=seats, shard_size=24), tmp_path / "one", workers=1)
    run(RunOptions(deals=24, seed=3, seats=seats, shard_size=8), tmp_path / "two", workers=2, chunk=5)
    a = pd.read_parquet(tmp_path / "one").sort_values("deal_id").reset_index(drop=True)
    b = pd.read_parquet(tmp_path / "two").sort_values("deal_id").reset_index(drop=True)
    assert len(a) == 24 and a.equals(b)


def test_config_settings_on_the_command_line(tmp_path):
    """`--seats` takes strategies with bracketed settings; a bad setting is one line and exit status 2."""
    from simkit_cli import simkit

    ok = simkit("run", "--deals", "6", "--out", tmp_path / "r", "--seats",
                "pimc[worlds=2,node_budget=5000],heuristic,pimc[worlds=3],heuristic")
    assert ok.returncode == 0, ok.stderr
    bad = simkit("run", "--deals", "6", "--out", tmp_path / "b", "--seats",
                 "pimc[wolds=2],heuristic,heuristic,heuristic")
    assert bad.returncode == 2
    msg = [line for line in bad.stderr.splitlines() if line.strip()]
    assert len(msg) == 1 and "wolds" in msg[0] and "worlds" in msg[0]
    assert not (tmp_path / "b").exists()


def test_runs_with_pimc_use_small_shards():
    """pimc plays milliseconds a deal: a run cuts its deals into small shards (progress, both cores busy)."""
    from simkit.sim.runner import RunOptions

    assert RunOptions(deals=10_000, seats=("pimc",) * 4).shard <= 500
    assert RunOptions(deals=10_000, seats=("pimc[worlds=3]", "heuristic", "heuristic", "heuristic")).shard <= 500
    assert RunOptions(deals=10_000).shard > 500


# ---------------------------------------------------------------------------------------------- Ramsch

def _ramsch_record(g, j, rules) -> dict:
    """The replay record of Ramsch deal ``j`` of ``play_games(..., trace=True)`` (no declarer: its row's
    ``declarer`` is the loser)."""
    from simkit.cards import format_card
    from simkit.rules import Contract
    from simkit.rules.contracts import RAMSCH

    hands = [int(h) for h in g["hands"][j]]
    ref = Game(rules, hands, Contract(RAMSCH), None)
    cards = [int(c) for c in g["trace_played"][j]]
    tricks = []
    for t in range(rules.hand_size):
        tricks.append({"leader": ref.to_play, "cards": [format_card(c) for c in cards[4 * t:4 * t + 4]]})
        for c in cards[4 * t:4 * t + 4]:
            ref.play(c)
    return {"id": f"deal-{int(g['deal_id'][j])}", "deck": rules.deck, "contract": "ramsch", "declarer": None,
            "suit": None, "tout": False, "hands": [[format_card(c) for c in range(32) if h >> c & 1] for h in hands],
            "tricks": tricks}


@pytest.mark.parametrize("preset,cut", [("club", 5), ("club-short", 4)])
def test_pimc_searches_a_ramsch_only_near_its_end(preset, cut):
    """In a Ramsch pimc plays the heuristic's card while it holds more than ``ramsch_cards`` cards and searches
    from then on: on the same deals its cards first differ from the heuristic's only where the mover holds at most
    ``ramsch_cards`` cards, and they do differ in some deals; with ``ramsch_cards=0`` the games are the
    heuristic's, card for card."""
    from simkit.engine.game import play_games

    rules = load_ruleset(preset)
    hs = rules.hand_size
    strat = _small_pimc()
    cfg = strat.config.copy()
    cfg[pimc.C_RAMSCH_CARDS] = cut
    p = play_games(3, 0, 40, rules, seats=strat.with_config(cfg), trace=True, contract="ramsch")
    h = play_games(3, 0, 40, rules, seats="heuristic", trace=True, contract="ramsch")
    cfg[pimc.C_RAMSCH_CARDS] = 0
    z = play_games(3, 0, 40, rules, seats=strat.with_config(cfg), trace=True, contract="ramsch")
    for key in ("trace_played", "payouts", "declarer", "durchmarsch", "jungfrauen"):
        assert np.array_equal(z[key], h[key]), key
    assert (p["payouts"].sum(axis=1) == 0).all()
    differ = (p["trace_played"] != h["trace_played"]).any(axis=1)
    first = np.argmax(p["trace_played"] != h["trace_played"], axis=1)[differ]
    assert differ.sum() >= 5, differ.sum()
    assert (hs - first // 4 <= cut).all(), hs - first // 4


def test_kernel_and_record_path_choose_alike_in_a_ramsch():
    """Ramsch games the kernel played with pimc at every seat (club, ramsch_cards 8: every decision searched, most
    of the early ones cut off by the node budget): the record path names the card played at every decision."""
    from simkit.engine.game import play_games

    rules = load_ruleset("club-short")
    strat = _small_pimc()
    cfg = strat.config.copy()
    cfg[pimc.C_RAMSCH_CARDS] = 8
    strat = strat.with_config(cfg)
    g = play_games(0, 1, 6, rules, seats=strat, trace=True, contract="ramsch")
    for j in range(6):
        game = parse_game(_ramsch_record(g, j, rules), int(g["deal_id"][j]), rules)
        assert advise(strat, game) == [int(c) for c in g["trace_played"][j]]


def test_pimc_does_not_search_a_sie():
    """A Sie cannot be lost (every card is as good): pimc's decision returns the heuristic's card without solving a
    world (the record path on the demo Sie, whose worlds the search would solve in a moment)."""
    import json

    from simkit_cli import REPO

    rec = next(r for r in map(json.loads, (REPO / "simkit" / "data" / "demo-games.jsonl").read_text().splitlines())
               if r.get("contract") == "sie")
    rules = load_ruleset("club")
    game = parse_game(rec, 1, rules)
    strat = _small_pimc()
    heur = advise(resolve("heuristic"), game)
    t = tables_for(rules)
    config = np.ascontiguousarray(strat.config_for(rules), np.float64)
    asked = []

    def ask(i, seat, hand, legal, info):
        c = strat.play(np.int64(hand), np.int64(legal), np.int64(seat), info, t.strength, t.eff_suit, t.params, config)
        if int(legal) & (int(legal) - 1):
            pw = pimc._python_context(t.strength, t.eff_suit, t.params)[1]
            asked.append(int(pw[pimc.PW_THR][16]))
        return int(c)

    assert walk(game, ask) == heur
    assert len(asked) > 10 and set(asked) == {0}


def _pimc_sums(config, t, hand, legal, seat, info):
    """pimc's decision with ``config`` on a copy of ``info`` (the same worlds for every config): the card, the
    summed gain of each card and the number of worlds solved."""
    c = pimc.play(np.int64(hand), np.int64(legal), np.int64(seat), info.copy(), t.strength, t.eff_suit, t.params,
                  config)
    pw = pimc._python_context(t.strength, t.eff_suit, t.params)[1]
    return c, pw[pimc.PW_SUMS].copy(), int(pw[pimc.PW_THR][16])


@pytest.mark.parametrize("kind", ["rufspiel", "wenz", ("solo", "herz")])
def test_points_mode_keeps_the_payout_and_breaks_its_ties_by_points(kind):
    """``points_from``: each world solved for the exact card points, the payout level derived from them (the
    Schwarz ends by a tricks search). On every decision from trick 3 of heuristic games, the payout part of each
    card's sum is the payout the level search gives, card for card; the rest is the seat's side's points, within
    0..120 a world; and the card played has the best sum. ``point_value`` weighs those same points against that
    same payout (its sums: the payout in POINT_UNITS plus the points times the point's value in them), and its
    card has the best of its sums."""
    rules = load_ruleset("sauspiel")
    t = tables_for(rules)
    base = "pimc[worlds=3,node_budget=0,inference=0,people_card=0,people_tricks=0,lead_worlds=1,late_cards=0"
    by_points = np.ascontiguousarray(resolve(base + ",points_from=1,point_value=0]").config_for(rules), np.float64)
    by_level = np.ascontiguousarray(resolve(base + ",points_from=0]").config_for(rules), np.float64)
    by_value = np.ascontiguousarray(resolve(base + ",points_from=1,point_value=0.5]").config_for(rules), np.float64)
    checked = ends = 0
    for game, _ in _kernel_records(rules, resolve("heuristic"), 3, 0, 6, kind, 2):

        def ask(i, seat, hand, legal, info):
            nonlocal checked, ends
            if i < 8 or int(legal) & (int(legal) - 1) == 0:
                return 0
            card, sums, n = _pimc_sums(by_points, t, hand, legal, seat, info)
            _, level_sums, n_level = _pimc_sums(by_level, t, hand, legal, seat, info)
            assert n == n_level == 3
            cards = [c for c in range(32) if (int(legal) >> c) & 1]
            for c in cards:
                payout, points = divmod(int(sums[c]), pimc.POINTS_SCALE)
                assert payout == level_sums[c], (i, c)
                assert 0 <= points <= 3 * 120
                ends += points in (0, 360)
            assert sums[card] == max(sums[c] for c in cards)
            v_card, v_sums, _ = _pimc_sums(by_value, t, hand, legal, seat, info)
            coef = round(0.5 * int(t.base_price[int(info[I_VARIANT])]) * pimc.POINT_UNITS)
            for c in cards:
                payout, points = divmod(int(sums[c]), pimc.POINTS_SCALE)
                assert v_sums[c] == payout * pimc.POINT_UNITS + points * coef, (i, c)
            assert v_sums[v_card] == max(v_sums[c] for c in cards)
            checked += 1
            return 0

        walk(game, ask)
    assert checked > 50, checked
    # cards whose side ends with 0 or 120 points in every world (the tricks search decides their Schwarz level):
    # these solo-type deals have them, the Rufspiele of this seed do not
    assert ends > 0 or kind == "rufspiel", ends


def test_people_card_in_the_first_trick_and_without_weights():
    """``people_tricks`` (1 by default): where the ruleset has people weights, pimc plays the people model's card
    in the first trick without a search, and searches after it (best_card=0: where the weights file has best-card
    weights, the card is theirs, tests/test_best.py); under a ruleset without weights (stargames) it is the pimc of
    the heuristic's tie-break, with no error, unless inference=1 is asked for explicitly."""
    from simkit.engine.game import play_games
    from simkit.strategies import StrategyError

    rules = load_ruleset("sauspiel")
    first = later = 0
    for game, _ in _kernel_records(rules, resolve("heuristic"), 5, 0, 6, "rufspiel", 0):
        mine, people = advise(resolve("pimc[worlds=4,best_card=0]"), game), advise(resolve("people"), game)
        assert mine[:4] == people[:4]
        first += 4
        later += sum(a != b for a, b in zip(mine[4:], people[4:]))
    assert first >= 12 and later > 0  # searched from the second trick on
    stargames = play_games(1, 0, 2, "stargames", seats=resolve("pimc[worlds=4]"), trace=True)
    assert (stargames["payouts"].sum(axis=1) == 0).all()
    with pytest.raises(StrategyError, match="inference=1"):
        play_games(1, 0, 1, "stargames", seats=resolve("pimc[worlds=4,inference=1]"))


def _worlds_solved(spec_a, spec_b, n_games, decisions):
    """(index, worlds solved by ``spec_a``, by ``spec_b``) at each decision with a choice whose index in play order
    is in ``decisions``, in heuristic Rufspiel games on the same worlds for both."""
    rules = load_ruleset("sauspiel")
    t = tables_for(rules)
    a, b = (np.ascontiguousarray(resolve(spec).config_for(rules), np.float64) for spec in (spec_a, spec_b))
    rows = []
    for game, _ in _kernel_records(rules, resolve("heuristic"), 9, 0, n_games, "rufspiel", 1):

        def ask(i, seat, hand, legal, info):
            if i in decisions and int(legal) & (int(legal) - 1) != 0:
                rows.append((i, _pimc_sums(a, t, hand, legal, seat, info)[2],
                             _pimc_sums(b, t, hand, legal, seat, info)[2]))
            return 0

        walk(game, ask)
    return rows


def test_a_searched_lead_solves_lead_worlds_times_the_worlds():
    """``lead_worlds``: a lead that is searched solves that many times ``worlds`` (no node limit here); a card that
    follows solves ``worlds``, as before."""
    base = "pimc[worlds=6,node_budget=0,inference=0,people_tricks=0,best_card=0,late_cards=0"
    rows = _worlds_solved(base + ",lead_worlds=1]", base + ",lead_worlds=2]", 3, range(8, 16))
    for i, n_one, n_two in rows:
        assert (n_one, n_two) == ((6, 12) if i % 4 == 0 else (6, 6)), i
    assert any(i % 4 == 0 for i, _, _ in rows)


def test_a_late_decision_solves_late_worlds_times_the_worlds():
    """``late_cards``: a decision where the seat holds at most that many cards (the long deck's last four tricks)
    solves ``late_worlds`` times ``worlds`` (no node limit here); the earlier ones solve ``worlds``, as with
    ``late_cards=0``."""
    base = ("pimc[worlds=6,node_budget=0,inference=0,people_tricks=0,best_card=0,lead_worlds=1,late_worlds=2,"
            "last_cards=0")
    rows = _worlds_solved(base + ",late_cards=0]", base + ",late_cards=4]", 3, range(12, 28))
    for i, n_off, n_on in rows:
        assert (n_off, n_on) == ((6, 12) if i >= 16 else (6, 6)), i
    assert any(i >= 16 for i, _, _ in rows) and any(i < 16 for i, _, _ in rows)


def test_the_last_tricks_solve_last_worlds_times_the_worlds():
    """``last_cards``: a decision where the seat holds at most that many cards (the long deck's last three tricks)
    solves ``last_worlds`` times ``worlds`` in place of ``late_worlds`` times; the other late decisions solve
    ``late_worlds`` times, the earlier ones ``worlds``."""
    base = ("pimc[worlds=6,node_budget=0,inference=0,people_tricks=0,best_card=0,lead_worlds=1,late_worlds=2,"
            "late_cards=4")
    rows = _worlds_solved(base + ",last_cards=0]", base + ",last_cards=3,last_worlds=4]", 3, range(12, 28))
    for i, n_off, n_on in rows:
        assert (n_off, n_on) == ((12, 24) if i >= 20 else (12, 12) if i >= 16 else (6, 6)), i
    assert {16 <= i < 20 for i, _, _ in rows} == {True, False} and any(i >= 20 for i, _, _ in rows)


@pytest.mark.parametrize("entry, base, trick, decisions", [
    ("points_budget", "pimc[worlds=12,node_budget=20000,inference=0,people_tricks=0,points_from=3", 2, range(4, 20)),
    ("levels_budget", "pimc[worlds=12,node_budget=8000,inference=0,people_tricks=0,points_from=3,points_budget=1",
     1, range(4, 16))])
def test_the_follows_of_one_trick_search_with_their_budget_times_the_node_budget(entry, base, trick, decisions):
    """``points_budget``: a card that follows in the first trick solved for exact card points (``points_from``, the
    third trick here), ``levels_budget``: one that follows in the trick before it (the second), the last solved for
    payout levels only, may use that many times ``node_budget``: it solves at least as many worlds, more where the
    budget ran out; that trick's lead and the other tricks' decisions solve the same worlds as before."""
    rows = _worlds_solved(f"{base},{entry}=1]", f"{base},{entry}=4]", 4, decisions)
    for i, n_one, n_four in rows:
        its_follow = i // 4 == trick and i % 4 != 0
        assert n_four >= n_one if its_follow else n_four == n_one, i
    assert any(i // 4 == trick and i % 4 != 0 and n_four > n_one for i, n_one, n_four in rows)
    assert any(i // 4 != trick and n_one > 0 for i, n_one, _ in rows)  # the other tricks were searched too


def test_a_lead_searches_with_lead_budget_times_the_budget():
    """``lead_budget``: a lead (the widest choice) may use that many times ``node_budget``: it solves at least as
    many worlds, more where the budget ran out; the other decisions solve the same worlds as before."""
    base = "pimc[worlds=12,node_budget=20000,inference=0,people_tricks=0"
    rows = _worlds_solved(base + ",lead_budget=1]", base + ",lead_budget=4]", 4, range(16))
    for i, n_one, n_four in rows:
        assert n_four >= n_one if i % 4 == 0 else n_four == n_one, i
    assert any(i % 4 == 0 and n_four > n_one for i, n_one, n_four in rows)
