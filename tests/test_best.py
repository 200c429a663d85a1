"""The best-card weights (simkit.strategies.people.best) and where pimc plays them: the solver values a subset of
the cards as it values them all, the training grades as ``simkit analyze`` does and lowers the loss it fits, the
weights file keeps them, pimc plays their card where it should, and ``simkit train best`` writes them."""

from __future__ import annotations

import gzip
import json
import os
import random

import numpy as np
import pytest

from simkit.analyze.advice import advise, walk
from simkit.analyze.grade import grade_game
from simkit.analyze.records import read_file
from simkit.engine.batch import tables_for
from simkit.rules import load_ruleset
from simkit.solver import Position, Workspace
from simkit.strategies import resolve
from simkit.strategies.people import best as B
from simkit.strategies.people import features as F
from simkit.strategies.people import weights as W
from simkit.strategies.people.train import decision_features
from simkit_cli import simkit as run_cli
from test_solver_api import _cut, _game_records

from conftest import SHARED  # noqa: E402  (../shared, or SIMKIT_SHARED)

REAL = SHARED / "real-games" / "sauspiel-20k.jsonl.gz"


def _real_long_games(tmp_path, n: int):
    """The first ``n`` played long-deck games of the real games, as a .jsonl file."""
    if not REAL.is_file():
        pytest.skip(f"{REAL} not present")
    lines = []
    with gzip.open(REAL, "rt") as f:
        for line in f:
            rec = json.loads(line)
            if rec["deck"] == "long" and rec["contract"] is not None:
                lines.append(line)
                if len(lines) == n:
                    break
    path = tmp_path / "games.jsonl"
    path.write_text("".join(lines))
    return path


# ------------------------------------------------------------------------------------------------- solver

@pytest.mark.parametrize("objective", ["points", "payout"])
def test_card_values_among_values_a_subset_as_all_are_valued(objective):
    """At random positions of real and demo games: each card of a random subset of the legal cards gets the value
    the search of every card gives it (reduced equivalent cards included), and the others are left untouched."""
    from simkit.solver.api import _kernel_position, _position_chain, position_guess
    from simkit.solver.values import card_values, card_values_among

    rng = random.Random(5)
    checked = 0
    for rec in _game_records()[:40]:
        total = sum(len(t["cards"]) for t in rec["tricks"])
        for n_cards in sorted(rng.sample(range(0, total - 4), 3)):
            pos = Position.from_record(_cut(rec, n_cards))
            ws = Workspace()
            kobj, thr_m, thr_v, n_thr = _position_chain(pos, objective)
            guess = position_guess(pos) if kobj == 0 else 0
            ws.start(None)
            s, ctx, tabs, masks, _ = _kernel_position(pos, ws)
            full = np.full(32, -999, np.int64)
            legal = card_values(s.copy(), ctx, tabs, masks, kobj, thr_m, thr_v, n_thr, guess, ws.arrays, full,
                                ws.scratch)
            ids = [i for i in range(32) if (legal >> i) & 1]
            for size in (1, max(1, len(ids) // 2)):
                among = 0
                for i in rng.sample(ids, size):
                    among |= 1 << i
                ws.start(None)
                part = np.full(32, -999, np.int64)
                got = card_values_among(s.copy(), ctx, tabs, masks, kobj, thr_m, thr_v, n_thr, guess, ws.arrays,
                                        part, ws.scratch, np.int64(among))
                assert got == legal
                for i in ids:
                    if (among >> i) & 1:
                        assert part[i] == full[i], (rec.get("id"), n_cards, i)
                checked += 1
                # only the subset and the weaker equivalent cards it stands for are written
                assert all(part[i] == -999 for i in range(32) if not (legal >> i) & 1)
    assert checked >= 100


# ------------------------------------------------------------------------------------------------ training

def test_graded_losses_are_those_simkit_analyze_gives(tmp_path):
    """Every decision with a choice of real games: the losses training fits are the grading's, card for card."""
    games = _real_long_games(tmp_path, 25)
    rules = load_ruleset("sauspiel")
    deals = [g for _, g, err in read_file(games, rules) if g is not None]
    from simkit.strategies.people.train import read_training_deals

    records, _, _, _ = read_training_deals(games, rules)
    g = B.extract_graded(records, rules)
    k = 0
    for game in deals:
        for row in grade_game(game).decisions:
            if row["forced"]:
                continue
            want = sorted(abs(row["best_value"] - v) for v in row["values"].values())
            assert sorted(g.loss[g.start[k]:g.start[k + 1]]) == want
            assert g.trick[k] == row["trick"] and g.lead[k] == (row["position"] == 0)
            k += 1
    assert k == len(g.ctx) > 300


def test_the_fit_lowers_the_loss_it_fits_and_is_deterministic(tmp_path):
    games = _real_long_games(tmp_path, 120)
    rules = load_ruleset("sauspiel")
    _, _, play_w, _ = W.find(rules)
    settings = B.BestSettings(max_iter=60)
    a, _, meta = B.train_best(games, rules, play_w, settings)
    b, _, _ = B.train_best(games, rules, play_w, settings)
    assert np.array_equal(a, b)
    fit = meta["fitting"]
    assert fit["best"]["all"] < fit["people"]["all"]  # the likeliest card's loss on the decisions fitted
    assert meta["games"] == 120 and meta["validation_decisions"] > 0
    c, _, _ = B.train_best(games, rules, play_w, B.BestSettings(max_iter=60, seed=1))
    assert not np.array_equal(a, c)  # another split


def test_the_weights_file_keeps_the_best_card_weights(tmp_path):
    rules = load_ruleset("sauspiel")
    path, bid_w, play_w, meta = W.find(rules)
    best_w = np.arange(F.N_CONTEXTS * F.N_PLAY, dtype=np.float64).reshape(F.N_CONTEXTS, F.N_PLAY)
    out = W.save(tmp_path / "w.npz", bid_w, play_w, meta, best_w)
    assert np.array_equal(W.load_best(out), best_w)
    plain = W.save(tmp_path / "plain.npz", bid_w, play_w, meta)
    assert W.load_best(plain) is None
    with open(tmp_path / "bad.npz", "wb") as f:
        np.savez(f, bid_w=bid_w, play_w=play_w, best_w=best_w[:3], meta=np.load(path)["meta"])
    with pytest.raises(Exception) as e:
        W.load_best(tmp_path / "bad.npz")
    assert "best-card weights of the wrong shape" in str(e.value)
    mlp = np.random.default_rng(1).normal(size=(5, W.MLP_ROW))
    out = W.save(tmp_path / "mlp.npz", bid_w, play_w, meta, best_w, mlp)
    assert np.array_equal(W.load_best_mlp(out), mlp) and W.load_best_mlp(plain) is None
    assert W.load_tie_mlp(out) is None
    out = W.save(tmp_path / "tie.npz", bid_w, play_w, meta, best_w, mlp, mlp[:3] * 2)
    assert np.array_equal(W.load_tie_mlp(out), mlp[:3] * 2) and np.array_equal(W.load_best_mlp(out), mlp)
    with open(tmp_path / "badtie.npz", "wb") as f:
        np.savez(f, bid_w=bid_w, play_w=play_w, best_w=best_w, tie_mlp=mlp[:, :9], meta=np.load(path)["meta"])
    with pytest.raises(Exception) as e:
        W.load_tie_mlp(tmp_path / "badtie.npz")
    assert "tie network of the wrong shape" in str(e.value)
    with open(tmp_path / "badmlp.npz", "wb") as f:
        np.savez(f, bid_w=bid_w, play_w=play_w, best_w=best_w, best_mlp=mlp[:, :9], meta=np.load(path)["meta"])
    with pytest.raises(Exception) as e:
        W.load_best_mlp(tmp_path / "badmlp.npz")
    assert "best-card network of the wrong shape" in str(e.value)


def test_the_network_fit_lowers_the_loss_it_fits_and_is_deterministic(tmp_path):
    """fit_best_mlp on pimc's unsearched decisions of 120 real games: its expected loss falls below the weights'
    alone, the same settings give the same network, and train_best returns it with its tables."""
    games = _real_long_games(tmp_path, 120)
    rules = load_ruleset("sauspiel")
    _, _, play_w, _ = W.find(rules)
    from simkit.strategies.people.train import read_training_deals

    records, _, _, _ = read_training_deals(games, rules)
    g = B.extract_graded(records, rules)
    best_w = play_w
    dec = np.flatnonzero(B.unsearched(g, rules.hand_size, 6))
    assert set(g.trick[dec]) == {1, 2, 3} and g.lead[dec][g.trick[dec] > 1].all()
    settings = B.BestSettings(mlp_hidden=8, mlp_epochs=150)
    mlp, m = B.fit_best_mlp(g, best_w, dec, settings)
    assert mlp.shape == (8, W.MLP_ROW) and m["decisions"] == len(dec)
    rows, counts, start = B._rows(g, dec)
    ctx = np.repeat(g.ctx[dec], counts)

    def expected(net):
        s = B.mlp_scores(g.x[rows], ctx, best_w, net)
        pr = np.exp(s - np.repeat(np.logaddexp.reduceat(s, start[:-1]), counts))
        return float(np.add.reduceat(pr * g.loss[rows], start[:-1]).mean())

    assert expected(mlp) < expected(None) - 0.05
    assert np.array_equal(mlp, B.fit_best_mlp(g, best_w, dec, settings)[0])
    _, net, meta = B.train_best(games, rules, play_w, B.BestSettings(max_iter=30, mlp_hidden=4, mlp_epochs=40))
    assert net.shape == (4, W.MLP_ROW)
    for part in ("validation_unsearched", "fitting_unsearched"):
        assert set(meta[part]) == {"best_mlp", "best", "people"}


# ------------------------------------------------------------------------------------------------- pimc

def _best_cards(game, rules, best_w, decisions):
    """The best-card weights' likeliest card at each of ``decisions`` (play indices) of a recorded game."""
    t = tables_for(rules)
    fp = np.zeros((F.MAX_LEGAL, F.N_PLAY))
    out = {}

    def ask(i, seat, hand, legal, info):
        if i in decisions and legal & (legal - 1):
            ctx, cards, _ = decision_features(t, hand, legal, seat, info, fp)
            scores = fp[:len(cards)] @ best_w[ctx]
            out[i] = cards[int(np.argmax(scores))]
        return -1

    walk(game, ask)
    return out


def test_pimc_plays_the_best_card_weights_where_it_should(tmp_path, monkeypatch):
    """With best-card weights in the file (random ones here, so that their card differs from the people model's),
    pimc plays their likeliest card in the first trick and on the leads with at least ``best_lead_cards`` cards in hand, and
    searches the rest; without them (or best_card=0) it plays as before."""
    rules = load_ruleset("sauspiel")
    _, bid_w, play_w, meta = W.find(rules)
    best_w = np.random.default_rng(3).normal(size=(F.N_CONTEXTS, F.N_PLAY))
    W.save(tmp_path / "sauspiel.npz", bid_w, play_w, meta, best_w)
    games = _real_long_games(tmp_path, 6)
    deals = [g for _, g, err in read_file(games, rules) if g is not None]
    monkeypatch.setenv(W.ENV, str(tmp_path / "sauspiel.npz"))
    spec = "pimc[worlds=4,node_budget=4000,best_lead_cards=7]"
    same = differ = 0
    for game in deals:
        cards = advise(resolve(spec), game)
        unsearched = [i for i in range(32) if i < 4 or (i % 4 == 0 and i < 8)]
        want = _best_cards(game, rules, best_w, set(unsearched))
        for i, c in want.items():
            assert cards[i] == c, (game.game_id, i)
        off = advise(resolve(spec.replace("]", ",best_card=0]")), game)
        same += sum(off[i] == c for i, c in want.items())
        differ += sum(off[i] != c for i, c in want.items())
    assert differ > 0 and same + differ >= 20
    monkeypatch.delenv(W.ENV)  # the packaged file: pimc binds what it has and plays legal games
    for game in deals[:2]:
        assert len(advise(resolve(spec), game)) == 32


def _random_network_games(tmp_path, monkeypatch, seed: int, n: int, tie: np.ndarray | None = None):
    """(rules, ``n`` parsed real long-deck games, best-card weights, network): a weights file with the shipped
    people weights and random best-card weights and network (so that their card differs from the weights'
    alone), and the tie network ``tie`` where given, made the one pimc binds."""
    rules = load_ruleset("sauspiel")
    _, bid_w, play_w, meta = W.find(rules)
    rng = np.random.default_rng(seed)
    best_w = rng.normal(size=(F.N_CONTEXTS, F.N_PLAY))
    mlp = rng.normal(size=(6, W.MLP_ROW))
    W.save(tmp_path / "sauspiel.npz", bid_w, play_w, meta, best_w, mlp, tie)
    games = _real_long_games(tmp_path, n)
    deals = [g for _, g, err in read_file(games, rules) if g is not None]
    monkeypatch.setenv(W.ENV, str(tmp_path / "sauspiel.npz"))
    return rules, deals, best_w, mlp


def test_pimc_plays_the_best_card_network_where_it_should(tmp_path, monkeypatch):
    """With a best-card network in the file (random, so that its card differs from the weights' alone), pimc's
    unsearched cards are the likeliest by the weights plus the network (the reference: best.mlp_scores); with
    ``best_mlp=0`` by the weights alone."""
    rules, deals, best_w, mlp = _random_network_games(tmp_path, monkeypatch, 4, 6)
    spec = "pimc[worlds=4,node_budget=4000]"
    t = tables_for(rules)
    fp = np.zeros((F.MAX_LEGAL, F.N_PLAY))
    differ = checked = 0
    for game in deals:
        unsearched = {i for i in range(32) if i < 4 or (i % 4 == 0 and i < 12)}
        want = {}

        def ask(i, seat, hand, legal, info):
            if i in unsearched and legal & (legal - 1):
                ctx, cards, _ = decision_features(t, hand, legal, seat, info, fp)
                x = fp[:len(cards)]
                want[i] = (cards[int(np.argmax(B.mlp_scores(x, np.full(len(cards), ctx), best_w, mlp)))],
                           cards[int(np.argmax(x @ best_w[ctx]))])
            return -1

        walk(game, ask)
        cards = advise(resolve(spec), game)
        linear = advise(resolve(spec.replace("]", ",best_mlp=0]")), game)
        for i, (with_net, alone) in want.items():
            assert cards[i] == with_net and linear[i] == alone, (game.game_id, i)
            differ += with_net != alone
            checked += 1
    assert differ > 0 and checked >= 20


def test_train_best_command(tmp_path):
    games = _real_long_games(tmp_path, 60)
    out = tmp_path / "w"
    r = run_cli("train", "best", str(games), "--rules", "sauspiel", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "double-dummy loss of the likeliest card" in r.stdout
    path = out / "sauspiel.npz"
    assert W.load_best(path).shape == (F.N_CONTEXTS, F.N_PLAY) and W.load_best_mlp(path) is None
    bid_w, play_w, meta = W.load(path)
    _, bid0, play0, _ = W.find(load_ruleset("sauspiel"))
    assert np.array_equal(play_w, play0) and meta["best"]["games"] == 60
    # the shipped file's tie network sat on its old best-card weights: neither it nor its metadata is kept
    assert W.load_tie_mlp(path) is None and "tie" not in meta and "tie network" in r.stderr
    env = dict(os.environ, SIMKIT_PEOPLE_WEIGHTS=str(out))
    r = run_cli("run", "--deals", "20", "--strategy", "pimc[worlds=4]", "--rules", "sauspiel", "--out",
                str(tmp_path / "r"), "--workers", "1", "--json", env=env)
    assert r.returncode == 0, r.stderr
    r = run_cli("train", "best", str(games), "--rules", "sauspiel", "--out", str(tmp_path / "net"),
                "--mlp-hidden", "4")
    assert r.returncode == 0, r.stderr
    assert W.load_best_mlp(tmp_path / "net" / "sauspiel.npz").shape == (4, W.MLP_ROW)
    assert "pimc plays unsearched, with the network" in r.stdout
    r = run_cli("train", "best", str(games), "--mlp-hidden", "-1", "--out", str(out))
    assert r.returncode == 2 and "--mlp-hidden must be at least 0" in r.stderr
    r = run_cli("train", "best", str(tmp_path / "missing.jsonl"), "--out", str(out))
    assert r.returncode == 2 and r.stderr.startswith("simkit: error: training data")
    r = run_cli("train", "best", str(games), "--weights", str(path), "--out", str(out))
    assert r.returncode == 2 and "--weights takes one ruleset" in r.stderr
    r = run_cli("train", "best", str(games), "--rules", "sauspiel-short", "--weights", str(path), "--out",
                str(out))
    assert r.returncode == 2 and "not trained for ruleset 'sauspiel-short'" in r.stderr


def test_train_tie_command(tmp_path):
    """``simkit train tie`` adds a tie network to a file with best-card weights, keeping everything else; pimc
    binds it; a file without best-card weights and bad options are one-line errors."""
    games = _real_long_games(tmp_path, 60)
    r = run_cli("train", "best", str(games), "--rules", "sauspiel", "--out", str(tmp_path / "b"), "--mlp-hidden",
                "3")
    assert r.returncode == 0, r.stderr
    src = tmp_path / "b" / "sauspiel.npz"
    out = tmp_path / "t"
    r = run_cli("train", "tie", str(games), "--rules", "sauspiel", "--weights", str(src), "--out", str(out),
                "--hidden", "5")
    assert r.returncode == 0, r.stderr
    assert "the likeliest card of the tie network loses" in r.stdout
    path = out / "sauspiel.npz"
    assert W.load_tie_mlp(path).shape == (5, W.MLP_ROW)
    assert np.array_equal(W.load_best(path), W.load_best(src))
    assert np.array_equal(W.load_best_mlp(path), W.load_best_mlp(src))
    meta = W.load(path)[2]
    assert meta["best"] == W.load(src)[2]["best"] and meta["tie"]["settings"]["units"] == 5
    again = tmp_path / "t2"
    assert run_cli("train", "tie", str(games), "--weights", str(src), "--out", str(again), "--hidden", "5",
                   "--workers", "2").returncode == 0
    assert np.array_equal(W.load_tie_mlp(again / "sauspiel.npz"), W.load_tie_mlp(path))  # deterministic
    env = dict(os.environ, SIMKIT_PEOPLE_WEIGHTS=str(out))
    r = run_cli("run", "--deals", "10", "--strategy", "pimc[worlds=4]", "--rules", "sauspiel", "--out",
                str(tmp_path / "r"), "--workers", "1", "--json", env=env)
    assert r.returncode == 0, r.stderr
    rules = load_ruleset("sauspiel")
    _, bid_w, play_w, meta = W.find(rules)
    W.save(tmp_path / "plain.npz", bid_w, play_w, meta)
    r = run_cli("train", "tie", str(games), "--weights", str(tmp_path / "plain.npz"), "--out", str(out))
    assert r.returncode == 2 and "no best-card weights" in r.stderr
    r = run_cli("train", "tie", str(games), "--hidden", "0", "--out", str(out))
    assert r.returncode == 2 and "--hidden and --workers must be at least 1" in r.stderr
    r = run_cli("train", "tie", str(tmp_path / "missing.jsonl"), "--out", str(out))
    assert r.returncode == 2 and r.stderr.startswith("simkit: error: training data")


def test_averaged_networks_score_the_mean_of_their_scores():
    """average_networks: one network whose scores are the mean of its members' (exactly, up to rounding)."""
    rng = np.random.default_rng(5)
    best_w = rng.normal(size=(F.N_CONTEXTS, F.N_PLAY))
    nets = [rng.normal(size=(u, W.MLP_ROW)) for u in (3, 5)]
    x = rng.normal(size=(40, F.N_PLAY))
    ctx = rng.integers(0, F.N_CONTEXTS, 40)
    avg = B.average_networks(nets)
    assert avg.shape == (8, W.MLP_ROW)
    base = B.mlp_scores(x, ctx, best_w, None)
    want = base + np.mean([B.mlp_scores(x, ctx, best_w, n) - base for n in nets], axis=0)
    assert np.allclose(B.mlp_scores(x, ctx, best_w, avg), want, rtol=0, atol=1e-9)
    assert not np.allclose(B.mlp_scores(x, ctx, best_w, nets[0]), want)


def test_train_net_command(tmp_path):
    """``simkit train net`` replaces a file's best-card network with one fitted on the real games' fitting deals
    plus self-play exported by ``simkit run --store-play`` / ``simkit export``; ``--average`` keeps the old one
    beside it; the best-card weights and the tie network are kept; pimc binds it; bad options are one-line
    errors."""
    games = _real_long_games(tmp_path, 40)
    rules = load_ruleset("sauspiel")
    src, _, _, src_meta = W.find(rules)
    r = run_cli("run", "--deals", "60", "--strategy", "people", "--rules", "sauspiel", "--seed", "9",
                "--store-play", "--out", str(tmp_path / "self"), "--workers", "1")
    assert r.returncode == 0, r.stderr
    extra = tmp_path / "self.jsonl"
    assert run_cli("export", str(tmp_path / "self"), "--out", str(extra)).returncode == 0
    n_extra = len(extra.read_text().splitlines())
    out = tmp_path / "n"
    r = run_cli("train", "net", str(games), "--extra-games", str(extra), "--hidden", "3", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "the likeliest card of the new network (3 units) loses" in r.stdout
    path = out / "sauspiel.npz"
    net = W.load_best_mlp(path)
    assert net.shape == (3, W.MLP_ROW)
    assert np.array_equal(W.load_best(path), W.load_best(src))
    assert np.array_equal(W.load_tie_mlp(path), W.load_tie_mlp(src))
    meta = W.load(path)[2]
    assert meta["best"]["net"]["extra_games"] == n_extra and meta["best"]["net"]["games"] == 40
    assert meta["best"]["net"]["fit"]["decisions"] > 0 and "kept" not in meta["best"]["net"]
    assert ({k: v for k, v in meta["best"].items() if k != "net"}
            == {k: v for k, v in src_meta["best"].items() if k != "net"})
    # the extra games only add fitting decisions: without them the fit is another
    r = run_cli("train", "net", str(games), "--hidden", "3", "--out", str(tmp_path / "plain"), "--workers", "2")
    assert r.returncode == 0, r.stderr
    alone = W.load(tmp_path / "plain" / "sauspiel.npz")[2]["best"]["net"]
    assert alone["fit"]["decisions"] < meta["best"]["net"]["fit"]["decisions"]
    assert alone["validation_unsearched"]["weights"] == meta["best"]["net"]["validation_unsearched"]["weights"]
    r = run_cli("train", "net", str(games), "--extra-games", str(extra), "--hidden", "3", "--average",
                "--workers", "2", "--out", str(tmp_path / "avg"))
    assert r.returncode == 0, r.stderr
    avg = W.load_best_mlp(tmp_path / "avg" / "sauspiel.npz")
    kept = W.load_best_mlp(src)
    assert np.array_equal(avg, B.average_networks([kept, net]))  # deterministic with any number of workers
    avg_meta = W.load(tmp_path / "avg" / "sauspiel.npz")[2]["best"]["net"]
    assert avg_meta["kept"] == src_meta["best"].get("net", "best") and "kept" in avg_meta["validation_unsearched"]
    env = dict(os.environ, SIMKIT_PEOPLE_WEIGHTS=str(tmp_path / "avg"))
    r = run_cli("run", "--deals", "10", "--strategy", "pimc[worlds=4]", "--rules", "sauspiel", "--out",
                str(tmp_path / "r"), "--workers", "1", "--json", env=env)
    assert r.returncode == 0, r.stderr
    bid_w, play_w, plain_meta = W.load(src)
    W.save(tmp_path / "nonet.npz", bid_w, play_w, plain_meta, W.load_best(src))
    r = run_cli("train", "net", str(games), "--weights", str(tmp_path / "nonet.npz"), "--average", "--out",
                str(out))
    assert r.returncode == 2 and "no best-card network to average with" in r.stderr
    r = run_cli("train", "net", str(games), "--extra-games", str(tmp_path / "missing.jsonl"), "--out", str(out))
    assert r.returncode == 2 and "--extra-games" in r.stderr and "does not exist" in r.stderr
    r = run_cli("train", "net", str(games), "--hidden", "0", "--out", str(out))
    assert r.returncode == 2 and "--hidden and --workers must be at least 1" in r.stderr
    assert np.array_equal(W.load_best_mlp(path), net)  # a failed command leaves the file as it was


@pytest.mark.parametrize("preset, bound, worlds, budget", [
    ("sauspiel", True, 16, 35_000), ("sauspiel-short", True, 16, 35_000), ("stargames", False, 12, 25_000)])
def test_the_default_budget_follows_the_best_card_weights(preset, bound, worlds, budget):
    """``worlds`` and ``node_budget`` of -1 (the defaults) become 16 and 35,000 where the shipped best-card
    weights are bound (their unsearched leads free the time) and 12 and 25,000 elsewhere; set values are kept."""
    from simkit.strategies import pimc

    rules = load_ruleset(preset)
    cfg = resolve("pimc").config_for(rules)
    assert (len(cfg) >= pimc._BEST_CONFIG_LEN) == bound
    assert (cfg[pimc.C_WORLDS], cfg[pimc.C_NODE_BUDGET]) == (worlds, budget)
    cfg = resolve("pimc[worlds=5,node_budget=7000]").config_for(rules)
    assert (cfg[pimc.C_WORLDS], cfg[pimc.C_NODE_BUDGET]) == (5, 7000)
    off = resolve("pimc[best_card=0]").config_for(rules)
    assert len(off) < pimc._BEST_CONFIG_LEN and (off[pimc.C_WORLDS], off[pimc.C_NODE_BUDGET]) == (12, 25_000)


@pytest.mark.parametrize("preset, units, has_tie", [("sauspiel", 128, True), ("sauspiel-short", 64, False)])
def test_the_shipped_weights_bind_their_network(preset, units, has_tie):
    """The shipped weights files have a best-card network (the long deck's 128 units: two of 64 averaged, `simkit
    train net --average`; the short deck's 64), the long deck's a 64-unit tie network too; pimc binds the best-card
    network behind the best-card weights (its unit count first), then the tie network (the same), and not with
    best_mlp=0 (its unit count 0) / tie_mlp=0 or without the best-card weights."""
    from simkit.strategies import pimc

    rules = load_ruleset(preset)
    path, _, _, _ = W.find(rules)
    mlp, tie = W.load_best_mlp(path), W.load_tie_mlp(path)
    assert mlp.shape == (units, W.MLP_ROW) and (tie is not None) == has_tie
    tail = [] if tie is None else [np.array([64.0]), tie.ravel()]
    cfg = resolve("pimc").config_for(rules)
    assert cfg[pimc.BEST_MLP_AT] == units
    assert np.array_equal(cfg[pimc.BEST_MLP_AT + 1:], np.concatenate([mlp.ravel(), *tail]))
    assert np.array_equal(resolve("pimc[tie_mlp=0]").config_for(rules)[pimc.BEST_MLP_AT + 1:], mlp.ravel())
    cfg = resolve("pimc[best_mlp=0]").config_for(rules)
    assert np.array_equal(cfg[pimc._BEST_CONFIG_LEN:], np.concatenate([np.zeros(1), *tail]) if tail else [])
    assert len(resolve("pimc[best_card=0]").config_for(rules)) < pimc._BEST_CONFIG_LEN


@pytest.mark.parametrize("tie_people, tie_net, tie_mlp", [(0.0, False, 1), (2.0, False, 1), (2.0, True, 1),
                                                           (2.0, True, 0)])
def test_pimc_breaks_a_tie_by_the_best_card_score_among_the_tied_cards(tmp_path, monkeypatch, tie_people, tie_net,
                                                                     tie_mlp):
    """Cards tied at the best summed gain go to the tied card with the highest tie-break score, not to the cheapest:
    the best-card weights' score plus the network's (the reference: best.mlp_scores, with random networks so that
    scores differ; the tie network where the file has one and ``tie_mlp`` is on, else the best-card network) plus
    ``tie_people`` x the people model's (its play features times its play weights), at every searched decision
    with a tie, whether or not the likeliest card overall is among the tied."""
    from simkit.strategies import pimc

    tie = np.random.default_rng(9).normal(size=(7, W.MLP_ROW)) if tie_net else None
    rules, deals, best_w, mlp = _random_network_games(tmp_path, monkeypatch, 5, 8, tie)
    if tie_net and tie_mlp:
        mlp = tie
    _, _, play_w, _ = W.find(rules)
    config = np.ascontiguousarray(resolve(f"pimc[worlds=6,node_budget=20000,tie_people={tie_people},"
                                          f"tie_mlp={tie_mlp}]").config_for(rules), np.float64)
    t = tables_for(rules)
    fp = np.zeros((F.MAX_LEGAL, F.N_PLAY))
    ties = pref_out = 0
    for game in deals:
        def ask(i, seat, hand, legal, info):
            nonlocal ties, pref_out
            if legal & (legal - 1) == 0:
                return game.plays[i]
            card = pimc.play(np.int64(hand), np.int64(legal), np.int64(seat), info, t.strength, t.eff_suit,
                             t.params, config)
            pw = pimc._python_context(t.strength, t.eff_suit, t.params)[1]
            if pw[pimc.PW_THR][16] == 0:  # unsearched, or no world solved
                return game.plays[i]
            sums = pw[pimc.PW_FWORK][pimc.FW_SUMS:pimc.FW_SUMS + 32]
            ctx, cards, _ = decision_features(t, hand, legal, seat, info, fp)
            x = fp[:len(cards)]
            score = dict(zip(cards, B.mlp_scores(x, np.full(len(cards), ctx), best_w, mlp)
                             + tie_people * (x @ play_w[ctx])))
            top = max(sums[c] for c in cards)
            tied = [c for c in cards if sums[c] == top]
            if len(tied) > 1:
                want = max(tied, key=score.get)
                if sum(abs(score[c] - score[want]) < 1e-9 for c in tied) == 1:  # else the cheapest decides
                    assert card == want, (game.game_id, i)
                    ties += 1
                    pref_out += max(cards, key=score.get) not in tied
            return game.plays[i]

        walk(game, ask)
    assert ties >= 20 and pref_out >= 3, (ties, pref_out)
