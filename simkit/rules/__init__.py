"""Rulesets (parameters), contracts and the rule tables the kernels read."""

from simkit.rules.contracts import (
    BID_ORDER,
    FARBGEIER,
    FARBWENZ,
    GEIER,
    KIND_LABELS,
    KIND_NAMES,
    RUFSPIEL,
    SOLO,
    WENZ,
    Contract,
    ContractError,
)
from simkit.rules.ruleset import (
    DEFAULT_PRESET,
    Ruleset,
    RulesetError,
    Tariff,
    load_preset,
    load_ruleset,
    preset_names,
    ruleset_from_dict,
)

__all__ = [
    "BID_ORDER", "FARBGEIER", "FARBWENZ", "GEIER", "KIND_LABELS", "KIND_NAMES", "RUFSPIEL", "SOLO", "WENZ",
    "Contract", "ContractError", "DEFAULT_PRESET", "Ruleset", "RulesetError", "Tariff", "load_preset",
    "load_ruleset", "preset_names", "ruleset_from_dict",
]
