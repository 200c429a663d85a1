"""What is this hand worth? Every declaration a hand may make, and passing, played out over sampled deals.

    import simkit
    df = simkit.evaluate("EO GO HU HA HZ H9 SA S7", seat=0, deals=10_000)
    df.attrs["recommendation"], df.attrs["difference_low"], df.attrs["difference_high"]

See :func:`simkit.evaluate.api.evaluate` and docs/evaluate.md.

``simkit.evaluate`` is both this package and the function: importing the package (``simkit evaluate`` imports its
cli module) replaces the attribute ``simkit.evaluate`` (the function of simkit/__init__.py) by the package, so the
package is callable, and calling it is :func:`simkit.evaluate.api.evaluate`. The names below are loaded on first
use, so that importing the package (every ``simkit`` command does, to register ``evaluate``) does not load numba.
"""

import sys as _sys
import types as _types

__all__ = ["EvaluateError", "Evaluation", "declarations", "evaluate", "evaluate_hand", "sample_deals"]


def __getattr__(name):
    if name in __all__:
        from simkit.evaluate import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _CallablePackage(_types.ModuleType):
    def __call__(self, hand, **kwargs):
        """:func:`simkit.evaluate.api.evaluate`."""
        from simkit.evaluate.api import evaluate

        return evaluate(hand, **kwargs)


_sys.modules[__name__].__class__ = _CallablePackage
