"""What is this hand worth? Every declaration a hand may make, and passing, played out over sampled deals.

    import simkit
    df = simkit.evaluate("EO GO HU HA HZ H9 SA S7", seat=0, deals=10_000)
    df.attrs["recommendation"], df.attrs["difference_low"], df.attrs["difference_high"]

See :func:`simkit.evaluate.api.evaluate` and docs/evaluate.md.

``simkit.evaluate`` is both this package and the function: importing the package replaces the attribute
``simkit.evaluate`` (the function of simkit/__init__.py) by the package, so the package is callable and calling it
is :func:`simkit.evaluate.api.evaluate`.
"""

import sys as _sys
import types as _types

from simkit.evaluate.api import EvaluateError, declarations, evaluate, sample_deals

__all__ = ["EvaluateError", "declarations", "evaluate", "sample_deals"]


class _CallablePackage(_types.ModuleType):
    def __call__(self, hand, **kwargs):
        """:func:`simkit.evaluate.api.evaluate`."""
        return evaluate(hand, **kwargs)


_sys.modules[__name__].__class__ = _CallablePackage
