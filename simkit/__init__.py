"""simkit: a high-throughput simulator and analytics tool for Schafkopf.

The Python API that notebooks use; the ``simkit`` command is a thin layer over it.
"""

__version__ = "0.1.0"

from simkit.cards import CardError, format_card, format_hand, parse_card, parse_hand
from simkit.reference import Game, GameResult, IllegalPlay
from simkit.replay import ReplayError, replay, replay_file
from simkit.rules import Contract, Ruleset, RulesetError, load_ruleset, preset_names

__all__ = [
    "CardError", "Contract", "Game", "GameResult", "IllegalPlay", "ReplayError", "Ruleset", "RulesetError",
    "__version__", "format_card", "format_hand", "load_ruleset", "parse_card", "parse_hand", "preset_names",
    "replay", "replay_file",
]
