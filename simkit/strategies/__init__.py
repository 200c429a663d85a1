"""Strategies: the registry of what can sit at a seat (built-ins and plug-ins).

* :func:`available` -> ``{name: one-line description}``: the built-ins (``heuristic``, ``random``, ``pimc``,
  ``people``) and every
  plug-in registered under the entry-point group ``simkit.strategies``.
* :func:`resolve` (name) -> :class:`Strategy`: a built-in name, an entry-point name, or ``package.module:Name``
  where ``Name`` (an object, class or module attribute, dots allowed) has ``bid``, ``double`` and ``play`` functions
  of the signatures of :mod:`simkit.strategies.api`, and optionally ``description`` (str) and ``config`` (floats).
* :class:`StrategyError`: a strategy that cannot be loaded, or that made an impossible choice during a run.

The interface itself is documented in :mod:`simkit.strategies.api` and ``docs/strategies.md``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from simkit.strategies.plugins import ENTRY_POINT_GROUP
from simkit.strategies.strategy import Strategy, StrategyError

DEFAULT_STRATEGY = "heuristic"
BUILTIN_NAMES = ("heuristic", "random", "pimc", "selective", "people")
#: built-in names that are another built-in with settings: (base, settings, description)
ALIASES = {
    "selective": ("heuristic", "bid_margin=0.55,bid_margin_short=0.35",
                  "the heuristic bidding as selectively as people in online rooms (about a quarter of the deals "
                  "thrown in): it declares only what is expected to win more than half its stake"),
}


def _builtin(name: str) -> Strategy:
    from simkit.strategies import dispatch, heuristic, people, pimc, random_play, values
    from simkit.strategies.people import weights as people_weights

    mod = {"random": random_play, "heuristic": heuristic, "pimc": pimc, "people": people}[name]
    bind = {heuristic: values.bind, pimc: pimc.bind, people: people_weights.bind}.get(mod)
    # what the kernel calls by address for it (simkit.strategies.natives): (entries, workspace, work space words)
    natives = {pimc: (pimc.natives, pimc.workspace, 0),
               people: (people.natives, None, people.NATIVE_WORK)}.get(mod, (None, None, 0))
    sid = {random_play: dispatch.S_RANDOM, heuristic: dispatch.S_HEURISTIC}.get(mod, dispatch.S_NATIVE)
    desc = getattr(mod, "DESCRIPTION", "") or (mod.__doc__ or "").strip().splitlines()[0]
    return Strategy(name, desc, mod.bid, mod.double, mod.play,
                    np.array(getattr(mod, "DEFAULT_CONFIG", np.zeros(0)), np.float64), sid,
                    tuple(getattr(mod, "CONFIG_NAMES", ())), bool(getattr(mod, "USES_SCRATCH", True)),
                    bool(getattr(mod, "SLOW", False)), bind, *natives,
                    klopfen=getattr(mod, "klopfen", None) or heuristic.klopfen,  # a native seat: the heuristic's
                    config_choices=dict(getattr(mod, "CONFIG_CHOICES", {})))


def available() -> dict[str, str]:
    """Every strategy name that :func:`resolve` accepts by name, with a one-line description."""
    from simkit.strategies import plugins

    out = {name: resolve(name).description for name in BUILTIN_NAMES}
    for name, ep in sorted(plugins.entry_points().items()):
        if name in out:
            continue
        try:
            obj = ep.load()
            out[name] = plugins.describe(obj)
        except Exception as e:  # a broken plug-in must not hide the others
            out[name] = f"(cannot be loaded: {type(e).__name__}: {e})"
    return out


def _with_settings(base: str, settings: str) -> Strategy:
    """``base`` with named config entries set: ``pimc[worlds=24,node_budget=1e5]``."""
    s = resolve(base)
    config = np.array(s.config, np.float64, copy=True)
    for item in filter(None, (x.strip() for x in settings.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq:
            raise StrategyError(f"config setting {item!r} of strategy {base!r}: write name=value")
        if key not in s.config_names:
            known = ", ".join(s.config_names) or "none"
            raise StrategyError(f"strategy {base!r} has no config entry {key!r} (write name=value; entries: {known})")
        choices = s.config_choices.get(key)
        if choices is not None:  # an entry written by name: pimc[model=people]
            if value.strip() not in choices:
                raise StrategyError(f"config entry {key!r} of strategy {base!r} is one of: {', '.join(choices)}; "
                                    f"not {value.strip()!r}")
            config[s.config_names.index(key)] = choices[value.strip()]
            continue
        try:
            config[s.config_names.index(key)] = float(value)
        except ValueError:
            raise StrategyError(f"config entry {key!r} of strategy {base!r} needs a number, not {value.strip()!r}")
    return replace(s, config=config, name=f"{base.strip()}[{settings.replace(' ', '')}]")


def split_seats(spec: str) -> list[str]:
    """A comma-separated list of strategies, commas inside ``[...]`` settings kept."""
    out, depth, cur = [], 0, ""
    for ch in spec:
        depth += (ch == "[") - (ch == "]")
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def resolve(name: str | Strategy, config=None) -> Strategy:
    """A strategy by name: built-in, entry point, or ``package.module:Name``, optionally with named config entries
    set (``pimc[worlds=24]``); ``config`` overrides its config."""
    from simkit.strategies import plugins

    if isinstance(name, Strategy):
        s = name
    else:
        key = str(name).strip()
        if key.endswith("]") and "[" in key:
            base, _, settings = key[:-1].partition("[")
            s = _with_settings(base.strip(), settings)
            return s.with_config(config) if config is not None else s
        if key.lower() in ALIASES:
            base, settings, description = ALIASES[key.lower()]
            s = replace(_with_settings(base, settings), name=key.lower(), description=description)
        elif key.lower() in BUILTIN_NAMES:
            s = _builtin(key.lower())
        elif ":" in key:
            s = plugins.load_spec(key)
        else:
            eps = plugins.entry_points()
            if key not in eps:
                names = list(BUILTIN_NAMES) + sorted(n for n in eps if n not in BUILTIN_NAMES)
                raise StrategyError(f"unknown strategy {key!r}; available: {', '.join(names)} "
                                    f"(or a plug-in given as package.module:Name)")
            s = plugins.load_entry_point(key, eps[key])
    return s.with_config(config) if config is not None else s


def seat_strategies(seats) -> list[Strategy]:
    """Four strategies from one name/Strategy (all seats), a comma-separated string, or a sequence of four."""
    if isinstance(seats, Strategy):
        seats = [seats] * 4
    elif isinstance(seats, str):
        parts = split_seats(seats)
        seats = parts if len(parts) > 1 else [seats] * 4
    seats = list(seats)
    if len(seats) != 4:
        raise StrategyError(f"give one strategy or four (one per seat), not {len(seats)}")
    cache: dict[str, Strategy] = {}
    out = []
    for s in seats:
        if isinstance(s, Strategy):
            out.append(s)
        else:
            key = str(s).strip()
            if key not in cache:
                cache[key] = resolve(key)
            out.append(cache[key])
    return out


__all__ = ["DEFAULT_STRATEGY", "ENTRY_POINT_GROUP", "Strategy", "StrategyError", "available", "resolve",
           "seat_strategies"]
