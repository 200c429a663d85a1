"""Intervals and tests used by the reports, matches and evaluations (numpy only; no scipy).

* :func:`wilson` - 95% Wilson score interval of a proportion (good coverage even for small n or p near 0/1).
* :func:`mean_interval` - normal interval of a mean from count, sum and sum of squares (so that partial sums from
  batches can be merged before the interval is taken); :func:`mean_interval_of` the same from the values.
* :func:`sd_interval` - a standard deviation and its standard error (delta method) from sums of per-observation
  first and second moments, so that a pooled spread (several seats of one deal) gets an honest interval.
* :func:`diff_proportions` - Newcombe's hybrid score interval for p1 - p2 (built from the two Wilson intervals).
* :func:`chi2_sf` - upper tail of the chi-square distribution (regularized incomplete gamma).
* :func:`chi_square_gof` - Pearson goodness of fit of observed counts to exact probabilities, pooling rare cells.
* :func:`json_safe` - a result with its undefined figures (NaN: an interval of one observation) as None, for JSON.
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson(wins, n, z: float = Z95):
    """(low, high) of the Wilson score interval, arrays (floats for scalars); exactly 0 at no wins, 1 at all wins;
    NaN where n == 0."""
    wins = np.asarray(wins, np.float64)
    n = np.asarray(n, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = wins / n
        z2 = z * z
        den = 1.0 + z2 / n
        centre = (p + z2 / (2 * n)) / den
        half = z * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / den
        low = np.where(wins == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
        high = np.where(wins == n, 1.0, np.clip(centre + half, 0.0, 1.0))
    low, high = np.where(n == 0, np.nan, low), np.where(n == 0, np.nan, high)
    if low.ndim == 0:  # scalars in, floats out
        return float(low), float(high)
    return low, high


def mean_sd(n, s, sq):
    """(mean, sample standard deviation) from count, sum and sum of squares; NaN where undefined."""
    n = np.asarray(n, np.float64)
    s = np.asarray(s, np.float64)
    sq = np.asarray(sq, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s / n
        var = np.maximum(sq - n * mean * mean, 0.0) / (n - 1)
    return mean, np.sqrt(var)


def mean_interval(n, s, sq, z: float = Z95):
    """(mean, low, high): the mean +- z standard errors (normal approximation, sample variance)."""
    mean, sd = mean_sd(n, s, sq)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = z * sd / np.sqrt(np.asarray(n, np.float64))
    return mean, mean - half, mean + half


def mean_interval_of(x, z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high) of the values ``x``: the mean +- z standard errors (sample variance; NaN below 2 values)."""
    x = np.asarray(x, np.float64)
    mean = float(x.mean()) if x.size else float("nan")
    if x.size < 2:
        return mean, float("nan"), float("nan")
    half = z * float(x.std(ddof=1)) / math.sqrt(x.size)
    return mean, mean - half, mean + half


def sd_interval(n, s1, s11, s2, s22, s12, z: float = Z95):
    """(sd, low, high, se) of the spread of a quantity observed through independent units (deals), from sums over
    the units of ``y1`` (the unit's mean value), ``y1**2``, ``y2`` (the unit's mean squared value), ``y2**2`` and
    ``y1 * y2``. For one value per unit ``y1 = x`` and ``y2 = x**2``; for several dependent values per unit (the four
    seats of a deal) their means, so that the dependence does not shrink the interval.

    sd^2 = E[y2] - E[y1]^2; its variance by the delta method, Var(y2 - 2 mu y1) / n, and se(sd) = se(sd^2) / (2 sd)
    (normal approximation; needs many units)."""
    n = np.asarray(n, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = np.asarray(s1, np.float64) / n
        m2 = np.asarray(s2, np.float64) / n
        var = np.maximum(m2 - mu * mu, 0.0) * n / (n - 1)
        sd = np.sqrt(var)
        v1 = np.asarray(s11, np.float64) / n - mu * mu
        v2 = np.asarray(s22, np.float64) / n - m2 * m2
        c12 = np.asarray(s12, np.float64) / n - mu * m2
        var_var = np.maximum(v2 - 4 * mu * c12 + 4 * mu * mu * v1, 0.0) / n
        se = np.sqrt(var_var) / (2 * sd)
    return sd, sd - z * se, sd + z * se, se


def diff_proportions(w1, n1, w2, n2, z: float = Z95):
    """(d, low, high) for d = p1 - p2, Newcombe (1998) method 10: hybrid score interval."""
    w1, n1, w2, n2 = (np.asarray(x, np.float64) for x in (w1, n1, w2, n2))
    with np.errstate(invalid="ignore", divide="ignore"):
        p1, p2 = w1 / n1, w2 / n2
    l1, u1 = wilson(w1, n1, z)
    l2, u2 = wilson(w2, n2, z)
    d = p1 - p2
    return d, d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def diff_means(n1, s1, q1, n2, s2, q2, z: float = Z95):
    """(d, low, high) for the difference of two means (independent samples, unequal variances)."""
    m1, sd1 = mean_sd(n1, s1, q1)
    m2, sd2 = mean_sd(n2, s2, q2)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(sd1 ** 2 / np.asarray(n1, np.float64) + sd2 ** 2 / np.asarray(n2, np.float64))
    d = m1 - m2
    return d, d - z * se, d + z * se


def _gammq(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) (series below a + 1, continued fraction above)."""
    if x <= 0:
        return 1.0
    gln = math.lgamma(a)
    if x < a + 1:
        ap, total, delta = a, 1.0 / a, 1.0 / a
        for _ in range(10_000):
            ap += 1
            delta *= x / ap
            total += delta
            if abs(delta) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - gln))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - gln) * h


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom."""
    if df <= 0:
        return float("nan")
    return _gammq(df / 2.0, x / 2.0)


def chi_square_gof(observed, probs, min_expected: float = 5.0) -> dict:
    """Pearson's chi-square of ``observed`` counts against exact cell probabilities ``probs``.

    Cells with expected count below ``min_expected`` are pooled (smallest first) into one cell until it reaches the
    minimum (or nothing is left to pool). Returns ``{"chi2", "df", "p_value", "cells", "n"}``; df = cells - 1 (the
    probabilities are exact, nothing is estimated).
    """
    obs = np.asarray(observed, np.float64)
    p = np.asarray(probs, np.float64)
    n = obs.sum()
    if n <= 0 or len(obs) < 2:
        return {"chi2": float("nan"), "df": 0, "p_value": float("nan"), "cells": len(obs), "n": int(n)}
    exp = p * n
    small = exp < min_expected
    cells_o, cells_e = list(obs[~small]), list(exp[~small])
    pool_o, pool_e = float(obs[small].sum()), float(exp[small].sum())
    if small.any():
        if pool_e < min_expected and cells_e:  # too small even pooled: add it to the smallest other cell
            i = int(np.argmin(cells_e))
            cells_o[i] += pool_o
            cells_e[i] += pool_e
        else:
            cells_o.append(pool_o)
            cells_e.append(pool_e)
    o, e = np.array(cells_o), np.array(cells_e)
    if np.any((e == 0) & (o > 0)):
        return {"chi2": float("inf"), "df": len(o) - 1, "p_value": 0.0, "cells": len(o), "n": int(n)}
    keep = e > 0
    stat = float(((o[keep] - e[keep]) ** 2 / e[keep]).sum())
    df = int(keep.sum()) - 1
    return {"chi2": stat, "df": df, "p_value": chi2_sf(stat, df), "cells": int(keep.sum()), "n": int(n)}


def json_safe(obj):
    """``obj`` with every non-finite float (the interval of a group played once, the mean of none) as None: JSON
    has no NaN, and what simkit writes as JSON must load anywhere. Dicts, lists and tuples are walked (tuples
    become lists, as JSON has them)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj
