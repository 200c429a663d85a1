"""simkit: a high-throughput simulator and analytics tool for Schafkopf.

The Python API that notebooks use; the ``simkit`` command is a thin layer over it.
"""

__version__ = "0.1.0"

from simkit.cards import CardError, format_card, format_hand, parse_card, parse_hand
from simkit.reference import Game, GameResult, IllegalPlay
from simkit.replay import ReplayError, replay, replay_file
from simkit.rules import Contract, Ruleset, RulesetError, load_ruleset, preset_names


def evaluate(hand, **kwargs):
    """What ``hand`` is worth: every declaration and passing over the same sampled deals (a pandas DataFrame);
    see :func:`simkit.evaluate.api.evaluate` (imported on first use: it loads the numba kernels)."""
    from simkit.evaluate.api import evaluate as _evaluate

    return _evaluate(hand, **kwargs)


__all__ = [
    "CardError", "Contract", "Game", "GameResult", "IllegalPlay", "ReplayError", "Ruleset", "RulesetError",
    "__version__", "evaluate", "format_card", "format_hand", "load_ruleset", "parse_card", "parse_hand", "preset_names",
    "replay", "replay_file",
]
