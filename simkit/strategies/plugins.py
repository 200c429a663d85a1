"""Loading user strategies: ``package.module:Name`` and entry points of the group ``simkit.strategies``.

``Name`` may be an object, a class or a module (dotted attribute paths allowed: ``pkg.mod:Holder.Inner``). It must
have ``bid``, ``double`` and ``play``: Numba ``@njit`` functions (or plain Python functions, which are compiled with
``njit``) of the signatures :data:`~simkit.strategies.api.BID_SIG`, ``DOUBLE_SIG`` and ``PLAY_SIG``. A function
given as plain ``@njit`` is compiled for exactly that signature here. Optional: ``description`` (one line) and
``config`` (a float array passed to every call as ``config``), and ``klopfen`` (of the signature
:data:`~simkit.strategies.api.KLOPFEN_SIG`: whether to knock before the bidding; without it the strategy never
knocks).

Registering by entry point (in the plug-in's ``pyproject.toml``)::

    [project.entry-points."simkit.strategies"]
    greedy = "my_package.greedy:Greedy"
"""

from __future__ import annotations

import importlib
import importlib.metadata
import warnings

import numpy as np

from simkit.strategies.strategy import Strategy, StrategyError

#: the entry-point group plug-ins register under
ENTRY_POINT_GROUP = "simkit.strategies"

_DECISIONS = ("bid", "double", "play")


def entry_points() -> dict:
    """``{name: EntryPoint}`` of the group ``simkit.strategies`` (the first one wins on duplicate names)."""
    out = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        out.setdefault(ep.name, ep)
    return out


def describe(obj) -> str:
    d = getattr(obj, "description", None) or getattr(obj, "DESCRIPTION", None) or (getattr(obj, "__doc__", None) or "")
    lines = str(d).strip().splitlines()
    return lines[0] if lines else "(no description)"


def load_spec(spec: str) -> Strategy:
    """The strategy ``package.module:Name``."""
    mod_name, _, attr = spec.partition(":")
    if not mod_name or not attr:
        raise StrategyError(f"a plug-in strategy is given as package.module:Name, not {spec!r}")
    try:
        obj = importlib.import_module(mod_name)
    except ImportError as e:
        raise StrategyError(f"strategy {spec!r}: cannot import module {mod_name!r} ({e})") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise StrategyError(f"strategy {spec!r}: module {mod_name!r} has no attribute {attr!r}") from None
    return from_object(spec, obj)


def load_entry_point(name: str, ep) -> Strategy:
    try:
        obj = ep.load()
    except Exception as e:
        raise StrategyError(f"strategy {name!r} (entry point {ep.value}) cannot be loaded: "
                            f"{type(e).__name__}: {e}") from None
    return from_object(name, obj)


def from_object(name: str, obj) -> Strategy:
    """A plug-in Strategy from anything with ``bid``/``double``/``play`` (compiled with the api signatures)."""
    from simkit.strategies.api import BID_SIG, DOUBLE_SIG, PLAY_SIG

    fns = []
    for what, sig in zip(_DECISIONS, (BID_SIG, DOUBLE_SIG, PLAY_SIG)):
        f = getattr(obj, what, None)
        if f is None:
            raise StrategyError(f"strategy {name!r} has no {what}() function (it needs bid, double and play)")
        fns.append(_compile(name, what, f, sig))
    k = getattr(obj, "klopfen", None)
    klopfen = None if k is None else _compile(name, "klopfen", k, BID_SIG)  # KLOPFEN_SIG is BID_SIG
    config = _declared(obj, "config")
    try:
        config = np.zeros(0) if config is None else np.asarray(config, np.float64).ravel()
    except (TypeError, ValueError):
        raise StrategyError(f"strategy {name!r}: config must be an array of numbers") from None
    names = tuple(_declared(obj, "config_names") or ())
    return Strategy(name, describe(obj), *fns, config=config, builtin_id=-1, config_names=names,
                    config_choices=_config_choices(name, obj, names), klopfen=klopfen)


def _declared(obj, attr: str):
    """A plug-in's ``attr`` (``config``, ``config_names``, ...), or its upper-case spelling (a module's constant),
    or None."""
    value = getattr(obj, attr, None)
    return getattr(obj, attr.upper(), None) if value is None else value


def _config_choices(name: str, obj, names: tuple) -> dict:
    """The plug-in's entries written by name (``config_choices`` or ``CONFIG_CHOICES``: {entry: {name: number}},
    so ``name[entry=word]``), checked: each entry one of ``names``, each word's value a number."""
    raw = _declared(obj, "config_choices") or {}
    try:
        out = {str(entry): {str(word): float(v) for word, v in words.items()} for entry, words in raw.items()}
    except (AttributeError, TypeError, ValueError):
        raise StrategyError(f"strategy {name!r}: config_choices must map config entries to {{name: number}} "
                            "dicts") from None
    unknown = [entry for entry in out if entry not in names]
    if unknown:
        raise StrategyError(f"strategy {name!r}: config_choices names {unknown[0]!r}, which is not one of its "
                            f"config_names ({', '.join(names) or 'none'})")
    return out


def _compile(name: str, what: str, f, sig):
    """An njit dispatcher of ``f`` that has the overload ``sig`` (compiling it if needed)."""
    from numba import njit
    from numba.core.dispatcher import Dispatcher

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if isinstance(f, Dispatcher):
                if sig.args not in f.overloads:
                    if not f._can_compile:
                        raise TypeError(f"it was compiled for other signatures: {list(f.overloads)}")
                    f.compile(sig)
                return f
            if not callable(f):
                raise TypeError("it is not a function")
            try:
                return njit(sig, cache=True)(f)
            except RuntimeError:  # no cache locator (e.g. defined interactively)
                return njit(sig)(f)
    except Exception as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise StrategyError(f"strategy {name!r}: {what}() does not compile with the signature of "
                            f"simkit.strategies.api ({sig}): {first}") from None
