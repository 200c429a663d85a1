"""Rulesets: every **(param)** of RULES.md as one frozen dataclass, loaded from TOML presets or user files.

A preset is a TOML file in ``simkit/rules/presets/``. A user file has the same keys; it may start from a preset
with ``extends = "sauspiel"`` and then override only what differs. Unknown keys and wrong types are errors that
list the valid keys, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any

from simkit.rules.base import RulesetError, toml_value
from simkit.rules.contracts import GEIER, KIND_NAMES, RUFSPIEL, WENZ, Contract

PRESET_DIR = "presets"
DEFAULT_PRESET = "stargames"


@dataclass(frozen=True)
class Tariff:
    """Price of a deal (RULES.md 2.6), in the preset's unit (points for stargames, cents for sauspiel)."""

    base_rufspiel: int = 1
    base_solo: int = 5  # every solo-type contract: Farbsolo, Wenz, Geier, Farbwenz, Farbgeier
    schneider: int = 1
    schwarz: int = 1  # added on top of the Schneider bonus
    laufende: int = 1  # per Laufender, once the minimum is reached
    laufende_min: int = 3
    laufende_min_wenz_geier: int = 2  # plain Wenz and Geier have only four trumps
    tout_multiplier: int = 2
    tout_multiplies_laufende: bool = True  # Tout price = multiplier x (base + Laufende) when true

    def base(self, contract: Contract) -> int:
        return self.base_rufspiel if contract.kind == RUFSPIEL else self.base_solo

    def min_laufende(self, contract: Contract) -> int:
        return self.laufende_min_wenz_geier if contract.kind in (WENZ, GEIER) else self.laufende_min


@dataclass(frozen=True)
class Ruleset:
    """Everything that varies between houses. ``Ruleset()`` is the default ``stargames`` long-deck ruleset."""

    name: str = DEFAULT_PRESET
    description: str = ""
    deck: str = "long"  # "long" (32 cards, 8 each) or "short" (24 cards, 6 each)
    contracts: tuple[str, ...] = ("rufspiel", "solo", "wenz", "geier")  # Farbwenz, Farbgeier off by default
    tout: bool = True  # solo-type contracts may be played Tout
    run_away_min: int = 4  # cards of the called suit, ace included, needed to run away
    max_doublings: int = 2  # 0 none, 1 Kontra only, 2 Kontra and Re
    re_by_partner: bool = True  # the Rufspiel partner may say Re, not only the declarer
    tariff: Tariff = field(default_factory=Tariff)

    def __post_init__(self):
        _validate(self)

    @property
    def hand_size(self) -> int:
        return 8 if self.deck == "long" else 6

    def allows(self, contract: Contract) -> bool:
        return contract.name in self.contracts and (not contract.tout or self.tout)

    def replace(self, **changes: Any) -> Ruleset:
        """A copy with some parameters changed; tariff keys may be given flat (``schneider=10``)."""
        tariff_keys = {f.name for f in fields(Tariff)}
        tariff_changes = {k: changes.pop(k) for k in list(changes) if k in tariff_keys}
        if tariff_changes:
            changes["tariff"] = dataclasses.replace(self.tariff, **tariff_changes)
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["contracts"] = list(self.contracts)
        return d

    def to_toml(self) -> str:
        lines = []
        d = self.to_dict()
        tariff = d.pop("tariff")
        for k, v in d.items():
            lines.append(f"{k} = {toml_value(v)}")
        lines.append("")
        lines.append("[tariff]")
        for k, v in tariff.items():
            lines.append(f"{k} = {toml_value(v)}")
        return "\n".join(lines) + "\n"


def _validate(r: Ruleset) -> None:
    if r.deck not in ("long", "short"):
        raise RulesetError(f"deck must be \"long\" or \"short\", not {r.deck!r}")
    unknown = [c for c in r.contracts if c not in KIND_NAMES]
    if unknown:
        raise RulesetError(f"unknown contract {unknown[0]!r} in contracts; valid: {', '.join(KIND_NAMES)}")
    if r.run_away_min < 2:
        raise RulesetError("run_away_min must be at least 2 (the ace and one card to run away with)")
    if not 0 <= r.max_doublings <= 2:
        raise RulesetError("max_doublings must be 0, 1 (Kontra) or 2 (Kontra and Re)")
    t = r.tariff
    for f in fields(Tariff):
        v = getattr(t, f.name)
        if f.type in ("int", int) and v < 0:
            raise RulesetError(f"tariff.{f.name} must not be negative (got {v})")
    if t.tout_multiplier < 1:
        raise RulesetError("tariff.tout_multiplier must be at least 1")


# --------------------------------------------------------------------------------------------- loading

def _expected_type(f: dataclasses.Field) -> type:
    return {"int": int, "bool": bool, "str": str, "tuple[str, ...]": list, "Tariff": dict}.get(str(f.type), object)


def _check_table(table: dict, cls: type, where: str) -> dict:
    """Check keys and value types of one TOML table against a dataclass; return constructor kwargs."""
    valid = {f.name: f for f in fields(cls)}
    out = {}
    for key, value in table.items():
        if key not in valid:
            raise RulesetError(f"unknown key {where}{key!r}; valid keys: {', '.join(valid)}")
        want = _expected_type(valid[key])
        ok = isinstance(value, want) and not (want is int and isinstance(value, bool))
        if not ok:
            raise RulesetError(
                f"{where}{key} must be {want.__name__ if want is not dict else 'a table'}, "
                f"got {type(value).__name__} {value!r}; valid keys: {', '.join(valid)}"
            )
        if want is list:
            if not all(isinstance(x, str) for x in value):
                raise RulesetError(f"{where}{key} must be a list of strings")
            value = tuple(value)
        out[key] = value
    return out


def ruleset_from_dict(data: dict[str, Any], *, base: Ruleset | None = None) -> Ruleset:
    """Build a ruleset from a TOML-shaped dict, on top of ``base`` (or of its ``extends`` preset)."""
    data = dict(data)
    extends = data.pop("extends", None)
    if extends is not None:
        if not isinstance(extends, str):
            raise RulesetError("extends must be a preset name")
        base = load_preset(extends)
    # The old German game (RULES.md 3) has its own ruleset class (simkit.oldgerman.rules).
    game = data.pop("game", getattr(base, "game", "bavarian"))
    if game == "old-german":
        from simkit.oldgerman.rules import OldGermanRuleset, old_german_from_dict
        return old_german_from_dict(data, base if isinstance(base, OldGermanRuleset) else None)
    if game != "bavarian":
        raise RulesetError(f"game must be \"bavarian\" or \"old-german\", not {game!r}")
    base = base or Ruleset()
    tariff_table = data.pop("tariff", {})
    if not isinstance(tariff_table, dict):
        raise RulesetError("tariff must be a table ([tariff])")
    top = _check_table(data, Ruleset, "")
    tariff = dataclasses.replace(base.tariff, **_check_table(tariff_table, Tariff, "tariff."))
    return dataclasses.replace(base, tariff=tariff, **top)


def preset_names() -> list[str]:
    files = resources.files("simkit.rules").joinpath(PRESET_DIR).iterdir()
    return sorted(p.name[:-5] for p in files if p.name.endswith(".toml"))


def load_preset(name: str) -> Ruleset:
    res = resources.files("simkit.rules").joinpath(PRESET_DIR, f"{name}.toml")
    if not res.is_file():
        raise RulesetError(f"unknown ruleset preset {name!r}; presets: {', '.join(preset_names())}")
    data = tomllib.loads(res.read_text(encoding="utf-8"))
    if "extends" in data:
        raise RulesetError(f"preset {name} must not extend another preset")
    return ruleset_from_dict(data, base=Ruleset())


def load_ruleset(spec: str | Path | Ruleset | None = None, **overrides: Any) -> Ruleset:
    """Resolve a preset name, a TOML file path or a Ruleset (None: the default preset), then apply overrides."""
    if isinstance(spec, Ruleset):
        rules = spec
    elif spec is None:
        rules = load_preset(DEFAULT_PRESET)
    else:
        text = str(spec)
        path = Path(text)
        if text.endswith(".toml") or path.exists():
            if not path.is_file():
                raise RulesetError(f"ruleset file {text} does not exist")
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except tomllib.TOMLDecodeError as e:
                raise RulesetError(f"ruleset file {text} is not valid TOML: {e}") from None
            data.setdefault("name", path.stem)
            rules = ruleset_from_dict(data)
        else:
            rules = load_preset(text)
    return rules.replace(**overrides) if overrides else rules
