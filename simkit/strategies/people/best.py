"""The "best card" weights: the people model's play features refitted to the double-dummy best card.

The people model (simkit.strategies.people.train) is fitted to the card people played. These weights use the same
features and contexts but are fitted to what the card was worth: every recorded decision with a choice is graded
by the solver with all hands open (the card points each legal card keeps for the seat's side, as
``simkit analyze`` grades), and the weights minimise the expected double-dummy loss of a card drawn from the
model's softmax, starting from the people weights and held near them by an L2 penalty on the difference.

Why it works without a search: the recorded deals are draws from the hidden hands real players hold given what a
seat sees, so the mean loss of a card in a context is the expected loss under the real posterior; no world
sampling and no model of the other seats is needed. A linear model over the people features is coarse, so pimc
uses it only where its search is weakest (the first trick, and the leads of the next ones: docs/strategies.md),
and ``pimc`` reads the weights from the people weights file (``best_w``), where ``simkit train best`` puts them.

A teacher (``teacher_worlds`` > 0, simkit.strategies.teacher) adds a second, less noisy target where pimc plays
these weights: a big pimc search's mean loss of each card over many worlds drawn from the people model's posterior,
mixed with the double-dummy loss (``teacher_mix``). Its values can be kept in a cache file, so that a refit with
other settings does not search again.

Deterministic: the same records, weights and settings give the same weights, with any number of workers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from simkit.strategies.people import features as F
from simkit.strategies.people.train import (
    _seg_lse, decision_features, file_sha256, is_validation, lbfgs, read_training_deals,
)


@dataclass
class GradedPlay:
    x: np.ndarray       # float64[C, N_PLAY]: features of every legal card of every decision with a choice
    start: np.ndarray   # int64[N+1]: decision i's rows are start[i]..start[i+1]-1
    ctx: np.ndarray     # int64[N]
    loss: np.ndarray    # float64[C]: each legal card's double-dummy loss (card points) against the best card
    trick: np.ndarray   # int64[N]: 1-based
    lead: np.ndarray    # bool[N]: the first card of its trick
    val: np.ndarray     # bool[N]: a validation deal's decision (never fitted)
    teach: np.ndarray   # float64[C]: each legal card's loss by the teacher (NaN: the decision was not taught)


@dataclass(frozen=True)
class BestSettings:
    seed: int = 0  # the split into fitting and validation deals (that of the people weights: is_validation)
    val_fraction: float = 0.2
    l2_shared: float = 3e-6  # L2 penalty of the change from the people weights every context shares
    l2_context: float = 3e-5  # of each context's own change (chosen by validation loss: docs/strategies.md)
    max_iter: int = 400
    teacher_worlds: int = 0  # > 0: a pimc search of this many worlds teaches (simkit.strategies.teacher)
    teacher_mix: float = 0.5  # a taught card's loss: this times its double-dummy loss, the rest the teacher's
    teacher_games: int = 0  # teach the first this many fitting games only (0: all)
    teacher_lead_cards: int = 6  # teach the first trick and the leads with at least this many cards in hand
    mlp_hidden: int = 0  # > 0: a best-card network of this many hidden units on top of the weights (fit_best_mlp)
    mlp_l2: float = 1e-4  # its L2 penalty on the weights
    mlp_epochs: int = 600  # its full-batch Adam steps
    mlp_rate: float = 0.003  # its Adam step size

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def extract_graded(deals, rules, seed: int = 0, val_fraction: float = 0.2, progress=None, teacher=None,
                   taught=frozenset(), cache=None) -> GradedPlay:
    """Features and double-dummy losses of every decision with a choice in the played ``deals`` (DealRecords);
    in the deals whose id is in ``taught``, the teacher's losses (``teacher(hand, legal, seat, info)``, where
    ``teacher.teaches(trick, lead, hand, info)``), looked up first in ``cache`` (a dict (deal id, decision) ->
    float64[32]) and added to it."""
    from simkit.analyze.advice import walk
    from simkit.analyze.grade import graded_objective
    from simkit.engine.batch import tables_for
    from simkit.solver import Workspace
    from simkit.solver.api import solve_line

    t = tables_for(rules)
    fp = np.zeros((F.MAX_LEGAL, F.N_PLAY))
    ws = Workspace()
    xs, start, ctxs, losses, tricks, leads, vals, teach = [], [0], [], [], [], [], [], []
    for d in deals:
        if d.game is None:
            if progress is not None:
                progress(1)
            continue
        game = d.game
        ws.clear()
        sols = solve_line(game.opening, game.plays, graded_objective(game.opening.contract, "points"), workspace=ws)
        val = is_validation(d.deal_id, seed, val_fraction)
        teach_deal = teacher is not None and d.deal_id in taught

        def ask(i, seat, hand, legal, info):
            if legal & (legal - 1) == 0:
                return -1
            sol = sols[i]
            ctx, cards, _ = decision_features(t, hand, legal, seat, info, fp)
            xs.append(fp[:len(cards)].copy())
            start.append(start[-1] + len(cards))
            ctxs.append(ctx)
            losses.append([abs(sol.value - sol.values[c]) for c in cards])  # the best is the mover's optimum
            tricks.append(i // 4 + 1)
            leads.append(i % 4 == 0)
            vals.append(val)
            taught_loss = None
            if teach_deal and teacher.teaches(i // 4 + 1, i % 4 == 0, hand, info):
                key = (d.deal_id, i)
                if cache is not None and key in cache:
                    taught_loss = cache[key]
                else:
                    taught_loss = teacher(hand, legal, seat, info)
                    if cache is not None and taught_loss is not None:
                        cache[key] = taught_loss
            teach.append(np.full(len(cards), np.nan) if taught_loss is None else taught_loss[cards])
            return -1

        walk(game, ask)
        if progress is not None:
            progress(1)
    return GradedPlay(np.concatenate(xs) if xs else np.zeros((0, F.N_PLAY)), np.array(start, np.int64),
                      np.array(ctxs, np.int64), np.concatenate([np.asarray(v, np.float64) for v in losses])
                      if losses else np.zeros(0), np.array(tricks, np.int64), np.array(leads, bool),
                      np.array(vals, bool), np.concatenate(teach) if teach else np.zeros(0))


def _concat(parts: list[GradedPlay]) -> GradedPlay:
    """The graded decisions of consecutive chunks of deals, as one."""
    offsets = np.cumsum([0] + [len(p.x) for p in parts[:-1]])
    return GradedPlay(np.concatenate([p.x for p in parts]),
                      np.concatenate([[0]] + [p.start[1:] + o for p, o in zip(parts, offsets)]).astype(np.int64),
                      *(np.concatenate([getattr(p, f) for p in parts])
                        for f in ("ctx", "loss", "trick", "lead", "val", "teach")))


def _extract_chunk(deals, rules, seed, val_fraction, make_teacher, taught, cache):
    """One worker's share of :func:`extract_graded` (its teacher made there): the graded chunk and the cache
    entries it added."""
    chunk_cache = dict(cache) if cache is not None else None
    g = extract_graded(deals, rules, seed, val_fraction, teacher=make_teacher() if make_teacher else None,
                       taught=taught, cache=chunk_cache)
    added = {k: v for k, v in chunk_cache.items() if k not in cache} if cache is not None else {}
    return g, added


def extract_graded_parallel(deals, rules, seed: int = 0, val_fraction: float = 0.2, advance=None,
                            make_teacher=None, taught=frozenset(), cache=None, workers: int = 1,
                            chunk: int = 25) -> GradedPlay:
    """:func:`extract_graded` over chunks of ``chunk`` deals on ``workers`` processes (the same result with any
    number); ``make_teacher()`` makes each process's teacher; ``cache`` gets every value the teacher computed."""
    from simkit.parallel import map_jobs

    chunks = [deals[i:i + chunk] for i in range(0, len(deals), chunk)]
    jobs = []
    for c in chunks:
        ids = {d.deal_id for d in c}
        sub = ({k: v for k, v in cache.items() if k[0] in ids} if cache is not None else None)
        jobs.append((c, rules, seed, val_fraction, make_teacher, taught & ids, sub))
    parts = []
    for c, (g, added) in zip(chunks, map_jobs(_extract_chunk, jobs, workers)):
        parts.append(g)
        if cache is not None:
            cache.update(added)
        if advance is not None:
            advance(len(c))
    return _concat(parts) if parts else extract_graded([], rules, seed, val_fraction)


def _rows(g: GradedPlay, dec: np.ndarray):
    counts = g.start[dec + 1] - g.start[dec]
    rows = np.concatenate([np.arange(g.start[i], g.start[i + 1]) for i in dec]) if len(dec) else np.zeros(0, int)
    return rows, counts, np.concatenate([[0], np.cumsum(counts)])


def taught_loss(g: GradedPlay, teacher_mix: float) -> np.ndarray:
    """Each card's loss fitted: its double-dummy loss, mixed with the teacher's where the decision was taught."""
    taught = ~np.isnan(g.teach)
    out = g.loss.copy()
    out[taught] = teacher_mix * g.loss[taught] + (1.0 - teacher_mix) * g.teach[taught]
    return out


def _softmax_loss(s: np.ndarray, loss: np.ndarray, start: np.ndarray, counts: np.ndarray, n: float):
    """For the cards' scores ``s`` (decision i's rows start[i]..start[i+1]-1): the mean over the ``n`` decisions of
    the softmax card's expected ``loss``, and its gradient in each score."""
    pr = np.exp(s - np.repeat(_seg_lse(s, start), counts))
    expected = np.add.reduceat(pr * loss, start[:-1])
    return expected.sum() / n, pr * (loss - np.repeat(expected, counts)) / n


def _objective(g: GradedPlay, dec: np.ndarray, base_w: np.ndarray, l2_shared: float, l2_context: float,
               teacher_mix: float = 1.0):
    """Mean expected loss of the softmax policy (weights ``base_w`` + shared + per-context change) and its
    gradient in the change."""
    rows, counts, start = _rows(g, dec)
    x = g.x[rows]
    loss = taught_loss(g, teacher_mix)[rows]
    ctx_r = np.repeat(g.ctx[dec], counts)
    base = np.einsum("ij,ij->i", x, base_w[ctx_r])
    by_ctx = [np.flatnonzero(ctx_r == k) for k in range(F.N_CONTEXTS)]
    n = float(len(dec))
    nf = F.N_PLAY

    def fun(w):
        w0 = w[:nf]
        dm = w[nf:].reshape(F.N_CONTEXTS, nf)
        s = base + np.einsum("ij,ij->i", x, w0[None, :] + dm[ctx_r])
        f, r = _softmax_loss(s, loss, start, counts, n)
        g0 = x.T @ r
        gd = np.zeros_like(dm)
        for k, idx in enumerate(by_ctx):
            if len(idx):
                gd[k] = x[idx].T @ r[idx]
        f += l2_shared * (w0 @ w0) + l2_context * (dm.ravel() @ dm.ravel())
        return f, np.concatenate([g0 + 2 * l2_shared * w0, (gd + 2 * l2_context * dm).ravel()])

    return fun


def fit_best(g: GradedPlay, play_w: np.ndarray, settings: BestSettings = BestSettings()) -> tuple[np.ndarray, dict]:
    """Best-card weights [N_CONTEXTS, N_PLAY] fitted on the non-validation decisions, from ``play_w``."""
    dec = np.flatnonzero(~g.val)
    if not len(dec):
        raise ValueError("no fitting decision with a choice in the training data")
    fun = _objective(g, dec, play_w, settings.l2_shared, settings.l2_context, settings.teacher_mix)
    w, f, iters = lbfgs(fun, np.zeros(F.N_PLAY * (1 + F.N_CONTEXTS)), max_iter=settings.max_iter)
    best_w = play_w + w[:F.N_PLAY][None, :] + w[F.N_PLAY:].reshape(F.N_CONTEXTS, F.N_PLAY)
    return best_w, {"iterations": iters, "fit_expected_loss": round(float(f), 6)}


def unsearched(g: GradedPlay, hand_size: int, lead_cards: int) -> np.ndarray:
    """Whether each decision is one pimc plays by these weights unsearched: the first trick, and a lead with at
    least ``lead_cards`` cards in hand (pimc's ``best_lead_cards``, the teacher's ``lead_cards``)."""
    return (g.trick == 1) | (g.lead & (hand_size - g.trick + 1 >= lead_cards))


def mlp_scores(x: np.ndarray, ctx: np.ndarray, best_w: np.ndarray, mlp: np.ndarray | None) -> np.ndarray:
    """Each row's score: its features ``x`` times the best-card weights of its context ``ctx``, plus the best-card
    network's output where ``mlp`` (float64[units, MLP_ROW], simkit.strategies.people.weights) is given: the sum over
    hidden units of output weight x max(0, input weights . x + the unit's weight of the context + bias). The
    reference of pimc's ``_mlp_scores``."""
    s = np.einsum("ij,ij->i", x, best_w[ctx])
    if mlp is not None:
        nf, nc = F.N_PLAY, F.N_CONTEXTS
        h = np.maximum(x @ mlp[:, :nf].T + mlp[:, nf:nf + nc].T[ctx] + mlp[:, nf + nc], 0.0)
        s = s + h @ mlp[:, nf + nc + 1]
    return s


def fit_best_mlp(g: GradedPlay, best_w: np.ndarray, dec: np.ndarray, settings: BestSettings = BestSettings()
                 ) -> tuple[np.ndarray, dict]:
    """A best-card network on top of ``best_w``, fitted on the decisions ``dec`` (pimc's unsearched ones of the
    fitting games: :func:`unsearched`): a card's score is its weights' score plus a one-hidden-layer ReLU network's
    output over its standardised play features and its context, and the network minimises the expected loss of
    the softmax card (the teacher's mix where taught, as :func:`fit_best`) plus ``mlp_l2`` x its squared weights
    by ``mlp_epochs`` full-batch Adam steps from a seeded start. Why a network: the weights are linear in the
    features, and the teacher's lesson where pimc plays them unsearched is not (docs/strategies.md). Returns
    float64[mlp_hidden, MLP_ROW], the standardisation folded into the input weights, and its fit metrics."""
    from simkit.strategies.people.weights import MLP_ROW

    units, l2, rate = settings.mlp_hidden, settings.mlp_l2, settings.mlp_rate
    rows, counts, start = _rows(g, dec)
    x = g.x[rows]
    ctx_r = np.repeat(g.ctx[dec], counts)
    loss = taught_loss(g, settings.teacher_mix)[rows]
    base = np.einsum("ij,ij->i", x, best_w[ctx_r])
    mu, sd = x.mean(0), x.std(0) + 1e-6
    xin = np.hstack([(x - mu) / sd, np.eye(F.N_CONTEXTS)[ctx_r]])
    rng = np.random.default_rng(settings.seed)
    p = {"w1": rng.normal(0.0, 1.0 / np.sqrt(xin.shape[1]), (xin.shape[1], units)), "b1": np.zeros(units),
         "w2": rng.normal(0.0, 0.01, units)}
    m1 = {k: np.zeros_like(v) for k, v in p.items()}
    m2 = {k: np.zeros_like(v) for k, v in p.items()}
    n = float(len(dec))
    f = np.nan
    for step in range(1, settings.mlp_epochs + 1):
        h = np.maximum(xin @ p["w1"] + p["b1"], 0.0)
        f, r = _softmax_loss(base + h @ p["w2"], loss, start, counts, n)
        dh = np.outer(r, p["w2"]) * (h > 0)
        grad = {"w2": h.T @ r + 2 * l2 * p["w2"], "w1": xin.T @ dh + 2 * l2 * p["w1"], "b1": dh.sum(0)}
        for k in p:
            m1[k] = 0.9 * m1[k] + 0.1 * grad[k]
            m2[k] = 0.999 * m2[k] + 0.001 * grad[k] ** 2
            p[k] -= rate * (m1[k] / (1 - 0.9 ** step)) / (np.sqrt(m2[k] / (1 - 0.999 ** step)) + 1e-8)
    nf = F.N_PLAY
    mlp = np.zeros((units, MLP_ROW))
    mlp[:, :nf] = (p["w1"][:nf] / sd[:, None]).T
    mlp[:, nf:nf + F.N_CONTEXTS] = p["w1"][nf:].T
    mlp[:, nf + F.N_CONTEXTS] = p["b1"] - (mu / sd) @ p["w1"][:nf]
    mlp[:, nf + F.N_CONTEXTS + 1] = p["w2"]
    return mlp, {"steps": settings.mlp_epochs, "fit_expected_loss": round(float(f), 6), "decisions": len(dec)}


def argmax_loss(g: GradedPlay, w: np.ndarray, dec: np.ndarray, mlp: np.ndarray | None = None) -> np.ndarray:
    """The double-dummy loss of the card the weights score highest (the first on a tie), per decision of ``dec``;
    with ``mlp``, scored with the best-card network too (:func:`mlp_scores`)."""
    rows, counts, start = _rows(g, dec)
    s = mlp_scores(g.x[rows], np.repeat(g.ctx[dec], counts), w, mlp)
    out = np.empty(len(dec))
    for i in range(len(dec)):
        a, b = start[i], start[i + 1]
        out[i] = g.loss[rows[a + int(np.argmax(s[a:b]))]]
    return out


def loss_table(g: GradedPlay, weights: dict, dec: np.ndarray) -> dict:
    """Mean loss per decision of each weights' likeliest card (a value of ``weights``: an array, or (best-card
    weights, network)): overall, and by trick for leads and follows."""
    out = {}
    for name, w in weights.items():
        lo = argmax_loss(g, w[0], dec, w[1]) if isinstance(w, tuple) else argmax_loss(g, w, dec)
        tr, ld = g.trick[dec], g.lead[dec]
        out[name] = {"all": round(float(lo.mean()), 4) if len(lo) else None,
                     "lead_by_trick": [round(float(lo[(tr == k) & ld].mean()), 3) if ((tr == k) & ld).any()
                                       else None for k in range(1, 9)],
                     "follow_by_trick": [round(float(lo[(tr == k) & ~ld].mean()), 3) if ((tr == k) & ~ld).any()
                                         else None for k in range(1, 9)]}
    return out


def teacher_key(rules, bid_w: np.ndarray, play_w: np.ndarray, settings: BestSettings) -> dict:
    """What a teacher's values depend on: a cache made under another key is not used."""
    import hashlib

    from simkit.strategies.people.weights import ruleset_key

    h = hashlib.sha256(np.ascontiguousarray(bid_w, np.float64).tobytes())
    h.update(np.ascontiguousarray(play_w, np.float64).tobytes())
    return {"ruleset": ruleset_key(rules), "people_weights_sha256": h.hexdigest(),
            "worlds": settings.teacher_worlds, "lead_cards": settings.teacher_lead_cards}


def load_teacher_cache(path: Path, key: dict) -> dict:
    """The teacher's values kept in ``path`` ({} where it does not exist); a ValueError (one line) where it is no
    such file or was made for another key."""
    import json
    import zipfile

    path = Path(path)
    if not path.exists():
        return {}
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            ids, dec, values = z["deal_id"], z["decision"], z["values"]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as e:
        raise ValueError(f"teacher cache {path} is not a teacher cache file: {e}") from None
    if meta != json.loads(json.dumps(key)):
        raise ValueError(f"teacher cache {path} was made with another teacher or other people weights "
                         f"({meta} against {key}); remove it or name another")
    return {(str(i), int(k)): v for i, k, v in zip(ids, dec, values)}


def save_teacher_cache(path: Path, key: dict, cache: dict) -> None:
    """Write the teacher's values to ``path`` at once (a temporary file renamed: never left half-written)."""
    import json
    import os

    path = Path(path)
    keys = sorted(cache)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, deal_id=np.array([k[0] for k in keys], dtype=str),
                        decision=np.array([k[1] for k in keys], np.int64),
                        values=np.array([cache[k] for k in keys], np.float64).reshape(len(keys), 32),
                        meta=np.array(json.dumps(key, sort_keys=True)))
    os.replace(tmp, path)


def _played_deals(games, rules, warn=None) -> tuple[list, list]:
    """The played deals of the ruleset's deck in ``games`` and the bad records; a ValueError where none is played."""
    deals, bad, other, _ = read_training_deals(games, rules, warn)
    played = [d for d in deals if d.game is not None]
    if not played:
        raise ValueError(f"no played {rules.deck}-deck game in the training data ({len(bad)} bad records, "
                         f"{other} of the other deck)")
    return played, bad


def _data_meta(games, bad: list) -> dict:
    """What the weights' metadata says of the training data: its file's name and hash, the bad records skipped."""
    named = isinstance(games, (str, Path))
    return {"file": Path(games).name if named else None, "sha256": file_sha256(games) if named else None,
            "bad_records": len(bad)}


def train_best(games, rules, play_w: np.ndarray, settings: BestSettings = BestSettings(), progress=None,
               warn=None, log=None, make_teacher=None, bid_w: np.ndarray | None = None,
               teacher_cache: Path | None = None, workers: int = 1) -> tuple[np.ndarray, np.ndarray | None, dict]:
    """Grade the played deals of the ruleset's deck in ``games``, fit the best-card weights from the people
    weights ``play_w``; returns them and their metadata (data, settings, validation losses). ``progress(total)``,
    where given, is a context manager giving a function that advances a bar by games graded. With
    ``settings.teacher_worlds`` > 0, ``make_teacher()`` makes the teacher (simkit.strategies.teacher, for the
    people weights ``bid_w`` and ``play_w``) of the fitting games, its values kept in ``teacher_cache`` where
    given; ``workers`` processes grade. With ``settings.mlp_hidden`` > 0 a best-card network (:func:`fit_best_mlp`)
    is fitted on top of the weights, else it is None."""
    from contextlib import nullcontext

    say = log or (lambda m: None)
    t0 = time.time()
    played, bad = _played_deals(games, rules, warn)
    taught: frozenset = frozenset()
    cache, key = None, None
    if settings.teacher_worlds > 0:
        if make_teacher is None or bid_w is None:
            raise ValueError("teacher_worlds > 0 needs a teacher and the people bidding weights")
        fitting = [d.deal_id for d in played if not is_validation(d.deal_id, settings.seed, settings.val_fraction)]
        taught = frozenset(fitting[:settings.teacher_games] if settings.teacher_games > 0 else fitting)
        if teacher_cache is not None:
            key = teacher_key(rules, bid_w, play_w, settings)
            cache = load_teacher_cache(teacher_cache, key)
            say(f"{rules.name}: {len(cache):,} taught decisions found in {teacher_cache}")
    with (progress(len(played)) if progress is not None else nullcontext()) as advance:
        g = extract_graded_parallel(played, rules, settings.seed, settings.val_fraction, advance,
                                    make_teacher if taught else None, taught, cache, workers)
    if cache is not None:
        save_teacher_cache(teacher_cache, key, cache)
    say(f"{rules.name}: {len(played):,} games graded, {len(g.ctx):,} decisions with a choice, in "
        f"{time.time() - t0:.0f} s")
    t1 = time.time()
    best_w, fit_m = fit_best(g, play_w, settings)
    say(f"{rules.name}: best-card weights fitted in {time.time() - t1:.0f} s")
    val = np.flatnonzero(g.val)
    fit = np.flatnonzero(~g.val)
    meta = {"data": _data_meta(games, bad),
            "games": len(played), "decisions": int(len(g.ctx)), "validation_decisions": int(len(val)),
            "taught_games": len(taught), "taught_decisions": int(np.add.reduceat(~np.isnan(g.teach), g.start[:-1])
                                                                 .astype(bool).sum()) if len(g.ctx) else 0,
            "settings": settings.as_dict(), "fit": fit_m,
            "validation": loss_table(g, {"best": best_w, "people": play_w}, val),
            "fitting": loss_table(g, {"best": best_w, "people": play_w}, fit)}
    mlp = None
    if settings.mlp_hidden > 0:
        t2 = time.time()
        plain = unsearched(g, rules.hand_size, settings.teacher_lead_cards)
        plain_fit, plain_val = np.flatnonzero(plain & ~g.val), np.flatnonzero(plain & g.val)
        mlp, meta["mlp_fit"] = fit_best_mlp(g, best_w, plain_fit, settings)
        say(f"{rules.name}: best-card network fitted in {time.time() - t2:.0f} s")
        # the network plays only pimc's unsearched decisions: compared there
        for part, dec in (("validation", plain_val), ("fitting", plain_fit)):
            meta[f"{part}_unsearched"] = loss_table(g, {"best_mlp": (best_w, mlp), "best": best_w, "people": play_w},
                                                    dec)
    return best_w, mlp, meta


def train_tie(games, rules, best_w: np.ndarray, units: int, settings: BestSettings = BestSettings(), progress=None,
              warn=None, log=None, workers: int = 1, best_mlp: np.ndarray | None = None
              ) -> tuple[np.ndarray, dict]:
    """A tie network of ``units`` hidden units on top of the best-card weights ``best_w``: :func:`fit_best_mlp`
    fitted on the decisions pimc searches (all but :func:`unsearched`) of the fitting deals of ``games``, graded
    by the solver (the double-dummy loss; no teacher). pimc scores the tie-break and the fallback of its searched
    decisions with it (``tie_mlp``): the best-card network is fitted on the unsearched decisions and ranks the
    searched ones worse than the weights alone (docs/strategies.md, "A tie network"). Returns it
    (float64[units, MLP_ROW]) and its metadata (data, settings, validation losses of the likeliest card, beside
    those of the weights alone and, where ``best_mlp`` is given, of the best-card network)."""
    from contextlib import nullcontext

    say = log or (lambda m: None)
    t0 = time.time()
    played, bad = _played_deals(games, rules, warn)
    with (progress(len(played)) if progress is not None else nullcontext()) as advance:
        g = extract_graded_parallel(played, rules, settings.seed, settings.val_fraction, advance, workers=workers)
    say(f"{rules.name}: {len(played):,} games graded, {len(g.ctx):,} decisions with a choice, in "
        f"{time.time() - t0:.0f} s")
    searched = ~unsearched(g, rules.hand_size, settings.teacher_lead_cards)
    fit, val = np.flatnonzero(searched & ~g.val), np.flatnonzero(searched & g.val)
    if not len(fit):
        raise ValueError("no searched fitting decision with a choice in the training data")
    t1 = time.time()
    tie, fit_m = fit_best_mlp(g, best_w, fit, replace(settings, mlp_hidden=units))
    say(f"{rules.name}: tie network fitted in {time.time() - t1:.0f} s")
    meta = {"data": _data_meta(games, bad),
            "games": len(played), "settings": {**settings.as_dict(), "units": units}, "fit": fit_m,
            "validation_searched": loss_table(g, {"tie": (best_w, tie), "best": best_w,
                                                  **({"best_mlp": (best_w, best_mlp)} if best_mlp is not None
                                                     else {})}, val)}
    return tie, meta


def average_networks(nets: list[np.ndarray]) -> np.ndarray:
    """One network whose output is the mean of the outputs of ``nets`` (each float64[units, MLP_ROW]): their units
    side by side, each output weight divided by their number. Exact, since a network's output is a sum over its
    units (:func:`mlp_scores`)."""
    out = np.vstack([np.asarray(n, np.float64) for n in nets])
    out[:, -1] /= len(nets)
    return out


def train_net(games, rules, best_w: np.ndarray, settings: BestSettings, extra_games=None,
              keep: np.ndarray | None = None, progress=None, warn=None, log=None, workers: int = 1
              ) -> tuple[np.ndarray, dict]:
    """A best-card network of ``settings.mlp_hidden`` units on top of the best-card weights ``best_w``:
    :func:`fit_best_mlp` on pimc's unsearched decisions (:func:`unsearched`) of the fitting deals of ``games`` and
    of every played deal of ``extra_games`` (records that are never validation: self-play of people, say, made with
    ``simkit run --store-play`` and ``simkit export``), graded by the solver (the double-dummy loss; no teacher).
    Where ``keep`` (a network) is given, the result is the average of the two (:func:`average_networks`). Returns it
    and its metadata: data, settings, fit, and the validation loss of the likeliest card (of the fitted network,
    the result, ``keep`` and the weights alone; the paired difference of the result and ``keep``)."""
    from contextlib import nullcontext

    say = log or (lambda m: None)
    t0 = time.time()
    played, bad = _played_deals(games, rules, warn)
    extra, extra_bad = _played_deals(extra_games, rules, warn) if extra_games is not None else ([], [])
    with (progress(len(played) + len(extra)) if progress is not None else nullcontext()) as advance:
        g = extract_graded_parallel(played, rules, settings.seed, settings.val_fraction, advance, workers=workers)
        parts = [g]
        if extra:  # every extra deal fits: a validation fraction of 0
            parts.append(extract_graded_parallel(extra, rules, settings.seed, 0.0, advance, workers=workers))
    both = _concat(parts)
    say(f"{rules.name}: {len(played) + len(extra):,} games graded ({len(extra):,} extra), {len(both.ctx):,} "
        f"decisions with a choice, in {time.time() - t0:.0f} s")
    plain = unsearched(both, rules.hand_size, settings.teacher_lead_cards)
    fit = np.flatnonzero(plain & ~both.val)
    val = np.flatnonzero(plain[:len(g.ctx)] & g.val)
    if not len(fit):
        raise ValueError("no unsearched fitting decision with a choice in the training data")
    t1 = time.time()
    fitted, fit_m = fit_best_mlp(both, best_w, fit, settings)
    say(f"{rules.name}: best-card network fitted in {time.time() - t1:.0f} s")
    net = average_networks([keep, fitted]) if keep is not None else fitted
    nets = {"net": (best_w, net), "fitted": (best_w, fitted), "weights": best_w,
            **({"kept": (best_w, keep)} if keep is not None else {})}
    meta = {"data": _data_meta(games, bad), "games": len(played),
            "extra_data": _data_meta(extra_games, extra_bad) if extra_games is not None else None,
            "extra_games": len(extra), "settings": settings.as_dict(), "fit": fit_m,
            "averaged_with_kept": keep is not None, "units": int(len(net)),
            "validation_unsearched": loss_table(g, nets, val)}
    if keep is not None and len(val):
        d = argmax_loss(g, best_w, val, net) - argmax_loss(g, best_w, val, keep)
        meta["validation_paired_vs_kept"] = {"mean": round(float(d.mean()), 4),
                                             "se": round(float(d.std() / np.sqrt(len(d))), 4)}
    return net, meta
