"""pimc's inference (simkit.strategies.inference): a world's likelihood is the people model's probability of every
card the other seats played (and of their bids), computed the independent way training computes the model; off
it changes nothing, on it is reproducible, and a ruleset without people weights says so in one line."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from simkit.analyze.advice import advise, walk
from simkit.analyze.records import parse_game
from simkit.engine.batch import tables_for
from simkit.reference import Game
from simkit.rules import load_ruleset
from simkit.strategies import heuristic, inference, pimc, resolve
from simkit.strategies.api import I_BIDS, I_SUIT, I_VARIANT, PASS, bid_code
from simkit.strategies.people import features as F
from simkit.strategies.people import model as M
from simkit.strategies.people import weights as W
from simkit.strategies.strategy import StrategyError
from test_analyze import _kernel_games


PEOPLE = inference.MODEL_PEOPLE  # the likelihood under the people model


def _decisions(game):
    """(i, seat, hand, legal, info, every seat's hand) at every decision of a recorded game."""
    pos = game.opening
    g = Game(pos.rules, [int(h) for h in pos.hands], pos.contract, pos.declarer)
    hands = [int(h) for h in pos.hands]
    out = []

    def ask(i, seat, hand, legal, info):
        out.append((i, seat, int(hand), int(legal), info.copy(), list(hands)))
        c = game.plays[i]
        hands[seat] &= ~(1 << c)
        g.play(c)
        return c

    walk(game, ask)
    return out


def _card_log_prob(rules, t, config, play_w, seat, hand, legal, info, card):
    """log P(card) under the people model, the way training sees it: the stored features times the weights."""
    hc = int(heuristic.play(np.int64(hand), np.int64(legal), seat, info, t.strength, t.eff_suit, t.params, config))
    f = np.zeros((F.MAX_LEGAL, F.N_PLAY))
    ctx = F.play_features(np.int64(hand), np.int64(legal), seat, info, t.strength, t.eff_suit, t.params[11], hc, f)
    n = bin(legal).count("1")
    s = f[:n] @ play_w[ctx]
    j = [c for c in range(32) if legal >> c & 1].index(card)
    return s[j] - s.max() - np.log(np.exp(s - s.max()).sum())


def _games(preset, n, seed):
    """Parsed records of kernel games with the people model at every seat."""
    rules, recs = _kernel_games(preset, n, seed=seed, seats="people")
    return rules, [parse_game(r, i, rules) for i, (r, _) in enumerate(recs)]


def _bound(spec, rules):
    return resolve(spec).config_for(rules)


@pytest.mark.parametrize("preset", ["sauspiel", "sauspiel-short"])
def test_likelihood_is_the_models_probability_of_every_card_played(preset):
    """For the real world at a late decision, the log-likelihood (no floor, no bids) is the sum over the other
    seats' earlier unforced cards of the people model's log-probability, as training computes it (the recorded
    state at that card, the stored features); the seat's own cards and forced cards add nothing."""
    rules, games = _games(preset, 12, 11)
    t = tables_for(rules)
    config = _bound("pimc[inference=1]", rules)
    _, _, play_w, _ = W.find(rules)
    checked = 0
    for game in games[:4]:
        ds = _decisions(game)
        i, seat, hand, legal, info, hands = ds[len(ds) - 3]
        want = 0.0
        n_terms = 0
        for j, s, h, lg, inf, _ in ds[:i]:
            if s != seat and lg & (lg - 1):
                want += _card_log_prob(rules, t, config, play_w, s, h, lg, inf, game.plays[j])
                n_terms += 1
        rw = np.zeros(inference.R_SIZE, np.int64)
        fw = np.zeros(inference.F_SIZE)
        got = inference.world_log_likelihood(np.array(hands, np.int64), seat, info, t.strength, t.eff_suit,
                                             t.params, config, t.suit_mask, t.points, 0.0, 1.0, False, PEOPLE,
                                             rw, fw)
        assert n_terms >= 5
        assert got == pytest.approx(want, abs=1e-9)
        # the floor: every probability at least 1 makes every world alike
        assert inference.world_log_likelihood(np.array(hands, np.int64), seat, info, t.strength, t.eff_suit,
                                              t.params, config, t.suit_mask, t.points, 1.0, 1.0, False, PEOPLE,
                                              rw, fw) == 0.0
        checked += 1
    assert checked == 4


def test_bid_likelihood_is_the_softmax_of_the_bidding_model():
    """A bid's log-probability: the softmax over passing (score 0) and every declaration the hand may make, each
    scored with the stored bidding features and the weights; a Tout, which the model never bids, is impossible."""
    from simkit.engine.deal import deal_batch

    rules = load_ruleset("sauspiel")
    t = tables_for(rules)
    config = _bound("pimc[inference=1]", rules)
    _, bid_w, _, _ = W.find(rules)
    work = np.zeros(inference.F_SIZE)
    seen_bid = 0
    for hands in deal_batch(5, 0, 40, "long"):
        hand = np.int64(hands[1])
        cand = np.zeros(2 * M.MAX_CANDIDATES)
        n = M.candidates(hand, t.params, cand)
        scores = [0.0]
        codes = [PASS]
        for k in range(n):
            kind, suit = int(cand[2 * k]), int(cand[2 * k + 1])
            f = np.zeros(F.N_BID)
            F.bid_features(hand, 1, kind, suit, t.params[11], 8, t.strength, f)
            scores.append(float(f @ bid_w[kind]))
            codes.append(int(bid_code(kind, suit, False)))
        s = np.array(scores)
        logp = s - s.max() - np.log(np.exp(s - s.max()).sum())
        for code, want in zip(codes, logp):
            got = inference.bid_log_prob(hand, 1, np.int64(code), t.params, t.strength, config, 1.0, work)
            assert got == pytest.approx(want, abs=1e-9)
        seen_bid += n > 0
        tout = int(bid_code(1, 0, True))
        assert inference.bid_log_prob(hand, 1, np.int64(tout), t.params, t.strength, config, 1.0, work) == -np.inf
    assert seen_bid >= 10


def test_a_world_against_the_models_preference_weighs_less():
    """The people seats played the model's most likely card (play_temperature 0) at every decision. Moving one
    unplayed card between two other seats (same effective suit: no void is broken; never the called suit) gives a
    world in which some of their cards were no longer the model's first choice: it is less likely than the real
    world at least twice as often as it is more likely."""
    rules, games = _games("sauspiel", 10, 4)
    t = tables_for(rules)
    config = _bound("pimc[inference=1]", rules)
    rw = np.zeros(inference.R_SIZE, np.int64)
    fw = np.zeros(inference.F_SIZE)

    def ll(world, seat, info):
        return inference.world_log_likelihood(np.array(world, np.int64), seat, info, t.strength, t.eff_suit,
                                              t.params, config, t.suit_mask, t.points, 0.0, 1.0, False, PEOPLE,
                                              rw, fw)

    less = more = 0
    for game in games:
        ds = _decisions(game)
        _, me, _, _, info, hands = ds[21]  # trick 6: five tricks of history
        v, kind, called = info[12], info[8], info[9]
        real = ll(hands, me, info)
        others = [s for s in range(4) if s != me]
        for x, y in ((others[0], others[1]), (others[0], others[2]), (others[1], others[2])):
            for a in range(32):
                for b in range(32):
                    if not (hands[x] >> a & 1 and hands[y] >> b & 1) or t.eff_suit[v, a] != t.eff_suit[v, b]:
                        continue
                    if kind == 0 and called in (a >> 3, b >> 3):
                        continue
                    w = list(hands)
                    w[x] = w[x] & ~(1 << a) | (1 << b)
                    w[y] = w[y] & ~(1 << b) | (1 << a)
                    d = ll(w, me, info) - real
                    less += d < -1e-9
                    more += d > 1e-9
    assert less >= 20 and less > 2 * more, (less, more)  # measured: 23 against 8


def test_each_candidate_world_is_weighed_by_its_likelihood():
    """pimc sums a candidate world's log-likelihood from its seats' parts, each computed once per hand (a memo:
    late in a deal few hands are left). Every candidate's weight after resampling is exp(its log-likelihood minus
    the likeliest's), the log-likelihoods computed afresh by world_log_likelihood with pimc's floor, temperature
    and bids, and the parts of a world add up to its log-likelihood."""
    rules, games = _games("sauspiel", 6, 3)
    t = tables_for(rules)
    spec = "pimc[worlds=4,infer_candidates=8,best_card=0,people_tricks=0,lead_worlds=1,late_cards=0]"
    config = np.ascontiguousarray(_bound(spec, rules), np.float64)
    floor, temperature = config[pimc.C_INFER_FLOOR], config[pimc.C_INFER_TEMPERATURE]
    rw = np.zeros(inference.R_SIZE, np.int64)
    fw = np.zeros(inference.F_SIZE)
    checked = repeated = 0
    for game in games:
        for i, seat, hand, legal, info, _ in _decisions(game)[4::3]:
            if legal & (legal - 1) == 0:
                continue
            pimc.play(np.int64(hand), np.int64(legal), np.int64(seat), info.copy(), t.strength, t.eff_suit,
                      t.params, config)
            pw = pimc._python_context(t.strength, t.eff_suit, t.params)[1]
            iw, got = pw[pimc.PW_IWORK], pw[pimc.PW_FWORK][pimc.FW_LOGW:pimc.FW_LOGW + 32]
            worlds = [iw[pimc.IW_CAND + 4 * k:pimc.IW_CAND + 4 * k + 4].copy() for k in range(32)]
            ll = np.array([inference.world_log_likelihood(w, seat, info, t.strength, t.eff_suit, t.params, config,
                                                          t.suit_mask, t.points, floor, temperature, True, PEOPLE,
                                                          rw, fw)
                           for w in worlds])
            np.testing.assert_allclose(got, np.exp(ll - ll.max()), rtol=1e-9, atol=1e-12)
            n = inference.public_steps(seat, info, t.eff_suit, t.strength, t.points, rw)
            parts = sum(inference.seat_log_likelihood(worlds[0][s], s, info, n, t.strength, t.eff_suit, t.params,
                                                      config, t.suit_mask, floor, temperature, True, PEOPLE, rw,
                                                      fw)
                        for s in range(4) if s != seat)
            assert parts == pytest.approx(ll[0], abs=1e-9)
            hands_seen = {(s, int(w[s])) for w in worlds for s in range(4) if s != seat}
            repeated += len(hands_seen) < 3 * 32
            checked += 1
    assert checked >= 15 and repeated >= 5, (checked, repeated)  # measured: 19 and 12


def test_resampled_worlds_are_solved_likeliest_first():
    """``solve_order``: where the node budget runs out, the worlds solved are those drawn most often (each
    decision's draws solved, ``pw[PW_THR][17]``, are the sum of its ``solved`` largest multiplicities); in the order
    drawn (``solve_order=0``) they stand for fewer draws at some of those decisions. With no node limit every world
    is solved either way, and the summed gains are the same."""
    rules, games = _games("sauspiel", 6, 3)
    t = tables_for(rules)
    spec = "pimc[worlds=8,infer_candidates=8,best_card=0,people_tricks=0,lead_worlds=1,late_cards=0,points_from=0"
    config = {(order, budget): np.ascontiguousarray(_bound(f"{spec},solve_order={order},node_budget={budget}]",
                                                           rules), np.float64)
              for order in (0, 1) for budget in (3000, 0)}
    bound = fewer = 0
    for game in games:
        for i, seat, hand, legal, info, _ in _decisions(game)[4:20]:
            if legal & (legal - 1) == 0:
                continue
            got = {}
            for key, cfg in config.items():
                pimc.play(np.int64(hand), np.int64(legal), np.int64(seat), info.copy(), t.strength, t.eff_suit,
                          t.params, cfg)
                pw = pimc._python_context(t.strength, t.eff_suit, t.params)[1]
                mult = np.sort(pw[pimc.PW_IWORK][pimc.IW_MULT:pimc.IW_MULT + 64])[::-1]
                got[key] = (int(pw[pimc.PW_THR][16]), int(pw[pimc.PW_THR][17]), mult,
                            pw[pimc.PW_FWORK][pimc.FW_SUMS:pimc.FW_SUMS + 32].copy())
            solved, draws, mult, _ = got[1, 3000]
            assert draws == mult[:solved].sum(), i
            if solved < (mult > 0).sum():  # the budget ran out
                bound += 1
                fewer += got[0, 3000][1] < draws
            assert got[0, 0][:2] == got[1, 0][:2] == ((mult > 0).sum(), 8)
            np.testing.assert_allclose(got[0, 0][3], got[1, 0][3], rtol=1e-12, atol=1e-12)
    assert bound >= 10 and fewer >= 2, (bound, fewer)  # measured: 17 and 4


def _rows(strat, n=8, preset="sauspiel", seed=7):
    from simkit.engine.game import play_games

    return play_games(seed, 0, n, preset, seats=strat, trace=True)


def _digest(g) -> str:
    h = hashlib.sha256()
    for k in ("payouts", "trace_played", "bids", "kind", "declarer"):
        h.update(np.ascontiguousarray(g[k]).tobytes())
    return h.hexdigest()[:16]


def test_inference_off_plays_the_rows_of_before():
    """inference=0 is the pimc of before inference was built: the same rows for the same seed (the digest of these
    rows before the change), once the later switches are off too."""
    # the bidding of before (bid_eval, double_eval: simkit.strategies.pimc_bid), payout levels only, the
    # heuristic's card as tie-break, one budget for every decision (points_from, people_card, people_tricks,
    # lead_budget, lead_worlds, late_cards), and the budget of before (node_budget)
    old = ("pimc[worlds=6,node_budget=40000,bid_eval=0,double_eval=0,points_from=0,people_card=0,people_tricks=0,"
           "lead_budget=1,inference=0,lead_worlds=1,late_cards=0]")
    assert _digest(_rows(resolve(old))) == "bce57bda384f745d"  # before inference was built (8a0e33d)


@pytest.mark.parametrize("spec", ["pimc[worlds=6,inference=1]", "pimc[worlds=6,inference=1,infer_candidates=1]",
                                  "pimc[worlds=6,model=heuristic]"])
def test_inference_is_reproducible_and_plays_other_cards(spec):
    """The same seed gives the same rows however the deals are split, legal complete games, and other cards than
    without inference."""
    from simkit.engine.game import play_games

    strat = resolve(spec)
    whole = _rows(strat, 16)
    parts = [play_games(7, a, 8, "sauspiel", seats=strat, trace=True) for a in (0, 8)]
    for key in ("payouts", "trace_played"):
        assert np.array_equal(whole[key], np.concatenate([p[key] for p in parts]))
    assert (whole["payouts"].sum(axis=1) == 0).all()
    off = _rows(resolve("pimc[worlds=6,inference=0]"), 16)
    assert (whole["trace_played"] != off["trace_played"]).any()


@pytest.mark.parametrize("model", ["people", "heuristic"])
@pytest.mark.parametrize("kind", ["rufspiel", ("solo", "gras")])
def test_kernel_and_record_path_choose_alike_with_inference(kind, model):
    """The record path (simkit analyze --strategy) binds the weights too and rebuilds the same states: it names
    the card the kernel played at every decision. Forced games, without the bids: the record path gives the
    others a pass where the kernel's forced games have no bids."""
    from simkit.engine.game import play_games
    from test_analyze import record_of

    rules = load_ruleset("sauspiel")
    strat = resolve(f"pimc[worlds=6,inference=1,infer_candidates=3,infer_bids=0,model={model}]")
    g = play_games(0, 1, 6, rules, seats=strat, trace=True, contract=kind, declarer=1)
    for j in range(6):
        row = {k: g[k][j] for k in ("deal_id", "kind", "suit", "tout", "declarer", "hands", "kontra_seat",
                                     "re_seat")}
        played = [int(c) for c in g["trace_played"][j]]
        game = parse_game(record_of(row, rules, played), int(row["deal_id"]), rules)
        assert advise(strat, game) == played


def test_a_ruleset_without_people_weights_is_one_line():
    rules = load_ruleset("stargames")
    with pytest.raises(StrategyError) as e:
        _bound("pimc[inference=1]", rules)
    assert "inference" in str(e.value) and "\n" not in str(e.value)
    assert len(_bound("pimc", rules)) < M.CONFIG_LEN  # off: no weights wanted, none bound


def test_the_play_model_is_named():
    """``pimc[model=people,inference=1]`` (the issue's form) is ``pimc[inference=1]``; ``model=heuristic`` is the
    other model pimc's decision has compiled in, and needs no people weights (inference on a ruleset without
    them). Any other name, or another number in a config given whole, is a one-line StrategyError naming the
    entry."""
    rules = load_ruleset("sauspiel")
    assert np.array_equal(_bound("pimc[model=people,inference=1]", rules), _bound("pimc[inference=1]", rules))
    plain = load_ruleset("stargames")
    assert _bound("pimc[model=heuristic,inference=1]", plain)[pimc.C_INFERENCE] == 1
    assert _bound("pimc[model=heuristic]", plain)[pimc.C_INFERENCE] == 2
    for spec in ("pimc[model=random]", "pimc[model=1]", "pimc[model=]"):
        with pytest.raises(StrategyError) as e:
            resolve(spec)
        assert "'model'" in str(e.value) and "people" in str(e.value) and "\n" not in str(e.value)
    config = resolve("pimc").config.copy()
    config[pimc.C_MODEL] = 3.0
    with pytest.raises(StrategyError) as e:
        resolve("pimc", config=config).config_for(rules)
    assert "'model'" in str(e.value) and "\n" not in str(e.value)


def test_under_the_heuristic_model_heuristic_players_leave_the_real_world_certain():
    """``model=heuristic``: a player that always plays the heuristic's card and bids its bid. Where the other seats
    are heuristic players, the real world has log-likelihood 0 (every card and bid was the heuristic's) at every
    decision, bids included (the kernel's own bids put back into the replayed state). A card moved between two
    other seats often leaves the heuristic's choices as they were, but not always: then the world loses the floor
    once per card or bid that is no longer the heuristic's."""
    from simkit.engine.game import play_games
    from test_analyze import record_of

    rules = load_ruleset("sauspiel")
    t = tables_for(rules)
    config = np.ascontiguousarray(_bound("pimc[model=heuristic,inference=1]", rules), np.float64)
    rw = np.zeros(inference.R_SIZE, np.int64)
    fw = np.zeros(inference.F_SIZE)
    g = play_games(5, 0, 12, rules, seats="heuristic", trace=True)
    log_floor = np.log(config[pimc.C_INFER_FLOOR])
    checked = moved_less = 0
    for j in range(12):
        if g["kind"][j] < 0:
            continue
        row = {k: g[k][j] for k in ("deal_id", "kind", "suit", "tout", "declarer", "hands", "kontra_seat", "re_seat")}
        game = parse_game(record_of(row, rules, [int(c) for c in g["trace_played"][j]]), j, rules)
        for i, seat, hand, legal, info, hands in _decisions(game)[8::5]:
            info[I_BIDS:I_BIDS + 4] = g["bids"][j]

            def ll(world):
                return inference.world_log_likelihood(np.array(world, np.int64), seat, info, t.strength, t.eff_suit,
                                                       t.params, config, t.suit_mask, t.points,
                                                       config[pimc.C_INFER_FLOOR], 1.0, True,
                                                       inference.MODEL_HEURISTIC, rw, fw)

            assert ll(hands) == 0.0
            a, b = [s for s in range(4) if s != seat][:2]
            v = info[I_VARIANT]
            # a card of seat a and one of seat b of the same effective suit, neither of the called suit, swapped
            swaps = [(x, y) for x in range(32) for y in range(32) if hands[a] >> x & 1 and hands[b] >> y & 1
                     and t.eff_suit[v, x] == t.eff_suit[v, y] and info[I_SUIT] not in (x // 8, y // 8)]
            if swaps:
                x, y = swaps[0]
                w = list(hands)
                w[a] = w[a] & ~(1 << x) | (1 << y)
                w[b] = w[b] & ~(1 << y) | (1 << x)
                got = ll(w)
                assert got <= 0.0 and got / log_floor == pytest.approx(round(got / log_floor))
                moved_less += got < 0
            checked += 1
    assert checked >= 20 and moved_less >= 6, (checked, moved_less)  # measured: 60 and 12
