"""Duplicate matches between strategies (``simkit match``): two strategies, or every pair of three or more on the
same deals, with 95% intervals, a breakdown by contract and by role, and a ranking.

    from simkit.match import match
    r = match(["heuristic", "random"], deals=100_000, rules="sauspiel", seed=1)
    r.pairs[0].mean, r.pairs[0].ci_low, r.pairs[0].ci_high, r.pairs[0].by_contract

Deals are regenerated from (seed, deal index) and played in chunks on worker processes; the figures depend only on
the seed, the deals and the strategies, never on the number of workers or the chunk size.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import numpy as np

from simkit.match.duplicate import ROLES, contract_labels, play_both_seatings
from simkit.parallel import map_jobs
from simkit.stats import json_safe, mean_interval

CHUNK = 20_000  # deals a task: every pair plays them in both seatings


class MatchError(ValueError):
    """Bad match options (one line for the user)."""


class _Moments:
    """Count, sum and sum of squares, mergeable across chunks; the normal 95% interval of the mean."""

    def __init__(self):
        self.n, self.s, self.q = 0, 0.0, 0.0

    def add(self, x: np.ndarray) -> None:
        x = np.asarray(x, np.float64)
        self.n += x.size
        self.s += float(x.sum())
        self.q += float((x * x).sum())

    @property
    def mean(self) -> float:
        return self.s / self.n if self.n else float("nan")

    def interval(self) -> tuple[float, float]:
        if self.n < 2:
            return float("nan"), float("nan")
        _, low, high = mean_interval(self.n, self.s, self.q)
        return float(low), float(high)


@dataclass
class PairResult:
    """A against B: ``mean`` is A's seat pair's payout per deal and play (= B's loss), with its 95% interval."""

    a: str
    b: str
    deals: int = 0
    score: _Moments = field(default_factory=_Moments)
    contracts: dict[str, _Moments] = field(default_factory=dict)
    roles: dict[str, _Moments] = field(default_factory=dict)
    knocks: dict[str, _Moments] = field(default_factory=dict)  # Klopfen: by the number of knocks of a play
    differ: int = 0  # deals whose score is not exactly 0

    @property
    def mean(self) -> float:
        return self.score.mean

    @property
    def ci_low(self) -> float:
        return self.score.interval()[0]

    @property
    def ci_high(self) -> float:
        return self.score.interval()[1]

    def _breakdown(self, groups: dict[str, _Moments], key: str) -> list[dict]:
        """Per group: plays, A's mean payout per play there (95% interval), and its contribution to ``mean`` (the
        contributions add up to ``mean``)."""
        rows = []
        for name, m in sorted(groups.items(), key=lambda kv: -kv[1].n):
            lo, hi = m.interval()
            rows.append({key: name, "plays": m.n, "share": m.n / (2 * self.deals), "mean": m.mean, "ci_low": lo,
                         "ci_high": hi, "contribution": m.s / (2 * self.deals)})
        return rows

    @property
    def by_contract(self) -> list[dict]:
        return self._breakdown(self.contracts, "contract")

    @property
    def by_role(self) -> list[dict]:
        """By the role of A's seat pair in a play: declaring, defending, split (a Rufspiel where one of A's seats
        is the declarer and B holds the called ace, or the other way round), passed."""
        return self._breakdown(self.roles, "role")

    @property
    def by_knocks(self) -> list[dict]:
        """By the number of seats that knocked in a play (Klopfen, RULES.md 4.1: each knock doubles the stakes),
        fewest first; empty without Klopfen. Knocks are decisions too: the two seatings of a deal may differ."""
        if set(self.knocks) <= {"0"}:
            return []
        rows = self._breakdown(self.knocks, "knocks")
        for r in rows:
            r["knocks"] = int(r["knocks"])
        return sorted(rows, key=lambda r: r["knocks"])

    def to_json(self) -> dict:
        """Exactly the keys of ``simkit match --json``."""
        return {"a": self.a, "b": self.b, "deals": self.deals, "mean": self.mean, "ci_low": self.ci_low,
                "ci_high": self.ci_high, "by_contract": self.by_contract}

    def _add(self, part: dict) -> None:
        score = part["score"]
        self.deals += score.size
        self.score.add(score)
        self.differ += int(np.count_nonzero(score))
        labels = contract_labels(part["kind"].ravel(), part["tout"].ravel())
        pay = part["a_payout"].ravel()
        roles = part["role"].ravel()
        knocks = part["knocks"].ravel().astype(str)
        for groups, keys in ((self.contracts, labels), (self.roles, np.array(ROLES, dtype=object)[roles]),
                             (self.knocks, knocks)):
            for name in np.unique(keys):
                groups.setdefault(str(name), _Moments()).add(pay[keys == name])


@dataclass
class MatchResult:
    strategies: list[str]
    deals: int
    seed: int
    ruleset: str
    pairs: list[PairResult]
    ranking: list[dict]  # three or more strategies: mean score against all the others, best first
    seconds: float = 0.0

    def to_json(self) -> dict:
        if len(self.pairs) == 1:
            return self.pairs[0].to_json()
        return {"strategies": self.strategies, "deals": self.deals, "ranking": self.ranking,
                "pairs": [p.to_json() for p in self.pairs]}


def _chunk(names, seed, start, n, rules):
    """Every pair on deals start .. start+n-1: the pairs' parts and each strategy's per-deal mean score."""
    from simkit.strategies import resolve

    strategies = [resolve(s) for s in names]
    parts = []
    vs_all = np.zeros((len(names), n))
    for i, j in combinations(range(len(names)), 2):
        part = play_both_seatings(strategies[i], strategies[j], seed, start, n, rules)
        parts.append(part)
        vs_all[i] += part["score"]
        vs_all[j] -= part["score"]
    if len(names) > 1:
        vs_all /= len(names) - 1
    return start, parts, vs_all


def match(strategies, deals: int, rules=None, seed: int = 0, *, workers: int | None = None, chunk: int = CHUNK,
          progress=None, out: str | Path | None = None) -> MatchResult:
    """Duplicate match of two strategies, or of every pair of three or more on the same deals. ``progress(k)`` is
    called with the deals of each finished chunk; ``out`` writes ``deals.parquet`` (one row per pair, deal and
    seating) and ``summary.json`` there."""
    import time

    from simkit.rules.ruleset import Ruleset, load_ruleset
    from simkit.strategies import resolve

    rules = rules if isinstance(rules, Ruleset) else load_ruleset(rules)
    if getattr(rules, "game", "bavarian") != "bavarian":
        raise MatchError(f"ruleset {rules.name} is the {rules.game} game; matches are played in the Bavarian game")
    if rules.all_pass == "stock":  # its deals are not independent: the stock carries from deal to deal
        raise MatchError(f'ruleset {rules.name} has all_pass = "stock": a match plays independent deals, but the '
                         f'stock carries from deal to deal (play it in sessions: simkit run --sessions N '
                         f'--session-deals M)')
    names = list(strategies)
    if len(names) < 2:
        raise MatchError("a match needs at least two strategies")
    if len(set(names)) < len(names):
        raise MatchError("a strategy appears twice; name each once")
    from simkit.strategies import value_table

    value_table.prepare([resolve(s) for s in names], rules)  # an unknown strategy is a clear error before any work
    if deals < 1:
        raise MatchError("--deals must be at least 1")
    workers = max(1, workers or os.cpu_count() or 1)
    pairs = [PairResult(names[i], names[j]) for i, j in combinations(range(len(names)), 2)]
    totals = [_Moments() for _ in names]
    writer = _DealWriter(Path(out), names) if out is not None else None
    starts = list(range(0, deals, chunk))
    jobs = [(names, seed, a, min(chunk, deals - a), rules) for a in starts]
    t0 = time.perf_counter()

    import simkit.engine.game as game

    game.prepare(names)  # the kernels loaded before forking: workers inherit them

    try:
        for start, parts, vs_all in map_jobs(_chunk, jobs, workers):
            for p, part in zip(pairs, parts):
                p._add(part)
            for m, x in zip(totals, vs_all):
                m.add(x)
            if writer:
                writer.add(start, parts)
            if progress:
                progress(len(vs_all[0]))
    except BaseException:
        if writer:
            writer.abort()
        raise
    ranking = []
    if len(names) > 2:
        for name, m in sorted(zip(names, totals), key=lambda nm: -nm[1].mean):
            lo, hi = m.interval()
            ranking.append({"strategy": name, "mean": m.mean, "ci_low": lo, "ci_high": hi})
    result = MatchResult(names, deals, seed, rules.name, pairs, ranking, time.perf_counter() - t0)
    if writer:
        writer.finish(result)
    return result


class _DealWriter:
    """``deals.parquet`` and ``summary.json`` of a match, written under temporary names and renamed at the end."""

    def __init__(self, out: Path, names):
        import pyarrow as pa
        import pyarrow.parquet as pq

        if out.exists() and not out.is_dir():
            raise MatchError(f"--out {out} exists and is not a directory")
        if (out / "deals.parquet").exists():
            raise MatchError(f"--out {out} already holds a match; choose another directory")
        out.mkdir(parents=True, exist_ok=True)
        self.out, self.names = out, names
        self.tmp = out / ".deals.parquet.tmp"
        self.schema = pa.schema([("a", pa.string()), ("b", pa.string()), ("deal_id", pa.int64()),
                                 ("seating", pa.int8()), ("contract", pa.string()), ("declarer", pa.int8()),
                                 ("role", pa.string()), ("knocks", pa.int8()), ("a_payout", pa.int32()),
                                 ("score", pa.float64())])
        self.writer = pq.ParquetWriter(self.tmp, self.schema)

    def add(self, start: int, parts) -> None:
        import pyarrow as pa

        for (i, j), part in zip(combinations(range(len(self.names)), 2), parts):
            n = part["score"].size
            ids = np.repeat(np.arange(start, start + n, dtype=np.int64), 2)
            cols = {"a": [self.names[i]] * (2 * n), "b": [self.names[j]] * (2 * n), "deal_id": ids,
                    "seating": np.tile(np.array([0, 1], np.int8), n),
                    "contract": contract_labels(part["kind"].ravel(), part["tout"].ravel()).tolist(),
                    "declarer": part["declarer"].ravel().astype(np.int8),
                    "role": np.array(ROLES, dtype=object)[part["role"].ravel()].tolist(),
                    "knocks": part["knocks"].ravel().astype(np.int8),
                    "a_payout": part["a_payout"].ravel().astype(np.int32),
                    "score": np.repeat(part["score"], 2)}
            self.writer.write_table(pa.table(cols, schema=self.schema))

    def abort(self) -> None:
        self.writer.close()
        self.tmp.unlink(missing_ok=True)

    def finish(self, result: MatchResult) -> None:
        import json

        self.writer.close()
        os.replace(self.tmp, self.out / "deals.parquet")
        summary = {**result.to_json(), "seed": result.seed, "ruleset": result.ruleset,
                   "seconds": round(result.seconds, 3),
                   "by_role": {f"{p.a} vs {p.b}": p.by_role for p in result.pairs},
                   "by_knocks": {f"{p.a} vs {p.b}": p.by_knocks for p in result.pairs}}
        (self.out / "summary.json").write_text(json.dumps(json_safe(summary), indent=2, allow_nan=False) + "\n",
                                               encoding="utf-8")
