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
from simkit.rules.contracts import (
    BETTEL,
    DECLARABLE_NAMES,
    GEIER,
    KIND_NAMES,
    RAMSCH,
    RUFSPIEL,
    SIE,
    WENZ,
    Contract,
)

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
        """Base price of a trick contract with trumps (Rufspiel, the solo types, Sie); Bettel and Ramsch have a
        price of their own (:meth:`Ruleset.bettel_price`, :meth:`Ruleset.ramsch_price`)."""
        return self.base_rufspiel if contract.kind == RUFSPIEL else self.base_solo

    def min_laufende(self, contract: Contract) -> int:
        return self.laufende_min_wenz_geier if contract.kind in (WENZ, GEIER) else self.laufende_min


ALL_PASS = ("throw-in", "ramsch", "stock")
RAMSCH_TIES = ("highest-trump", "more-tricks")
JUNGFRAU = ("none", "double-all", "double-each", "double-each-multiple")
STOCK_DOUBLING = ("games-and-stock", "games")


@dataclass(frozen=True)
class RamschRules:
    """``[ramsch]`` (RULES.md 4.4): what an all-pass deal pays when ``all_pass = "ramsch"``."""

    price: int | None = None  # paid by the loser to each other player; None: the Rufspiel base
    tie: str = "highest-trump"  # equal most points: "highest-trump" or "more-tricks" (then highest-trump)
    durchmarsch: int | str = "all"  # "all" (every trick), "none", or N in 61..120 card points
    jungfrau: str = "none"  # a player without a trick: "none", "double-all", "double-each", "double-each-multiple"


@dataclass(frozen=True)
class BettelRules:
    """``[bettel]`` (RULES.md 4.2), used when ``contracts`` lists "bettel"."""

    price: int | None = None  # None: the Rufspiel base
    stichzwang: bool = False  # a player following suit must beat the best card of the trick if he can


@dataclass(frozen=True)
class StockRules:
    """``[stock]`` (RULES.md 4.4), used when ``all_pass = "stock"``."""

    price: int | None = None  # each player pays it into the stock after a throw-in; None: the Rufspiel base
    doubling: str = "games-and-stock"  # "games-and-stock": knocks double the stock payment too; "games": not


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
    klopfen: bool = False  # each seat may knock once before the bidding, each knock doubles the price (RULES.md 4.1)
    klopfen_cards: int = 0  # cards seen before knocking; 0: half the hand (4 long, 3 short)
    sie: bool = False  # a hand of the top trumps of the solo order may declare Sie (RULES.md 4.3)
    all_pass: str = "throw-in"  # when every seat passes: "throw-in", "ramsch" or "stock" (RULES.md 4.4)
    tariff: Tariff = field(default_factory=Tariff)
    ramsch: RamschRules = field(default_factory=RamschRules)
    bettel: BettelRules = field(default_factory=BettelRules)
    stock: StockRules = field(default_factory=StockRules)

    def __post_init__(self):
        _validate(self)

    @property
    def hand_size(self) -> int:
        return 8 if self.deck == "long" else 6

    @property
    def knock_cards(self) -> int:
        """Cards of his hand a player has seen when he decides to knock (``klopfen_cards``, 0: half the hand)."""
        return self.klopfen_cards or self.hand_size // 2

    @property
    def ramsch_price(self) -> int:
        return self.tariff.base_rufspiel if self.ramsch.price is None else self.ramsch.price

    @property
    def bettel_price(self) -> int:
        return self.tariff.base_rufspiel if self.bettel.price is None else self.bettel.price

    @property
    def stock_price(self) -> int:
        return self.tariff.base_rufspiel if self.stock.price is None else self.stock.price

    def base_price(self, contract: Contract) -> int:
        """The price before Schneider, Schwarz, Laufende and doublings: the tariff's base, Bettel's and Ramsch's
        own prices."""
        if contract.kind == BETTEL:
            return self.bettel_price
        if contract.kind == RAMSCH:
            return self.ramsch_price
        return self.tariff.base(contract)

    def allows(self, contract: Contract) -> bool:
        if contract.kind == SIE:
            return self.sie
        if contract.kind == RAMSCH:
            return self.all_pass == "ramsch"
        return contract.name in self.contracts and (not contract.tout or self.tout)

    def replace(self, **changes: Any) -> Ruleset:
        """A copy with some parameters changed; tariff keys may be given flat (``schneider=10``), the club rules'
        tables as dicts (``ramsch={"price": 10}``: only the keys given change)."""
        for name in _SUB_TABLES:
            if isinstance(changes.get(name), dict):
                changes[name] = dataclasses.replace(getattr(self, name), **changes[name])
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
        """The ruleset as TOML that loads back to it (a price left to the Rufspiel base is written as a comment)."""
        lines = []
        d = self.to_dict()
        tables = {name: d.pop(name) for name in ("tariff", *_SUB_TABLES)}
        for k, v in d.items():
            note = f"  # 0: half the hand ({self.knock_cards})" if k == "klopfen_cards" and v == 0 else ""
            lines.append(f"{k} = {toml_value(v)}{note}")
        for name, table in tables.items():
            lines.append("")
            lines.append(f"[{name}]")
            for k, v in table.items():
                if v is None:
                    lines.append(f"# {k}: the Rufspiel base ({self.tariff.base_rufspiel})")
                else:
                    lines.append(f"{k} = {toml_value(v)}")
        return "\n".join(lines) + "\n"


def _validate(r: Ruleset) -> None:
    if r.deck not in ("long", "short"):
        raise RulesetError(f"deck must be \"long\" or \"short\", not {r.deck!r}")
    unknown = [c for c in r.contracts if c not in DECLARABLE_NAMES]
    if unknown:
        hint = {"sie": " (Sie is enabled by sie = true)",
                "ramsch": " (Ramsch is played when everybody passes: all_pass = \"ramsch\")"}.get(unknown[0], "")
        raise RulesetError(f"unknown contract {unknown[0]!r} in contracts{hint}; valid: {', '.join(DECLARABLE_NAMES)}")
    if len(set(r.contracts)) != len(r.contracts):
        raise RulesetError("a contract is listed twice in contracts")
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
    _validate_club(r)


def _one_of(value: str, valid: tuple[str, ...], key: str) -> None:
    if value not in valid:
        raise RulesetError(f"{key} must be one of {', '.join(repr(v) for v in valid)}, not {value!r}")


def _validate_club(r: Ruleset) -> None:
    """The club rules of RULES.md 4 and the combinations that cannot be played."""
    if not 0 <= r.klopfen_cards <= r.hand_size:
        raise RulesetError(f"klopfen_cards must be 0 (half the hand) .. {r.hand_size} (the whole {r.deck}-deck hand), "
                           f"not {r.klopfen_cards}")
    _one_of(r.all_pass, ALL_PASS, "all_pass")
    if r.all_pass == "stock" and "rufspiel" not in r.contracts:
        raise RulesetError("all_pass = \"stock\" needs the Rufspiel in contracts (only a Rufspiel wins or doubles "
                           "the stock)")
    m = r.ramsch
    _one_of(m.tie, RAMSCH_TIES, "ramsch.tie")
    _one_of(m.jungfrau, JUNGFRAU, "ramsch.jungfrau")
    d = m.durchmarsch
    if isinstance(d, bool) or not isinstance(d, (int, str)):
        raise RulesetError(f"ramsch.durchmarsch must be \"all\", \"none\" or card points 61..120, not {d!r}")
    if isinstance(d, str):
        _one_of(d, ("all", "none"), "ramsch.durchmarsch")
    elif not 61 <= d <= 120:
        raise RulesetError(f"ramsch.durchmarsch must be card points in 61..120 (or \"all\", \"none\"), not {d}")
    _one_of(r.stock.doubling, STOCK_DOUBLING, "stock.doubling")
    for name in _SUB_TABLES:
        price = getattr(r, name).price
        if price is not None and (isinstance(price, bool) or not isinstance(price, int) or price < 0):
            raise RulesetError(f"{name}.price must be a non-negative integer, not {price!r}")
    if not isinstance(r.bettel.stichzwang, bool):
        raise RulesetError(f"bettel.stichzwang must be true or false, not {r.bettel.stichzwang!r}")


# --------------------------------------------------------------------------------------------- loading

_SUB_TABLES = {"ramsch": RamschRules, "bettel": BettelRules, "stock": StockRules}


def _expected_type(f: dataclasses.Field) -> type | tuple[type, ...]:
    return {"int": int, "bool": bool, "str": str, "tuple[str, ...]": list, "Tariff": dict, "RamschRules": dict,
            "BettelRules": dict, "StockRules": dict, "int | None": int, "int | str": (int, str)
            }.get(str(f.type), object)


def _type_name(want) -> str:
    if want is dict:
        return "a table"
    if isinstance(want, tuple):
        return " or ".join(w.__name__ for w in want)
    return want.__name__


def _check_table(table: dict, cls: type, where: str) -> dict:
    """Check keys and value types of one TOML table against a dataclass; return constructor kwargs."""
    valid = {f.name: f for f in fields(cls)}
    out = {}
    for key, value in table.items():
        if key not in valid:
            raise RulesetError(f"unknown key {where}{key!r}; valid keys: {', '.join(valid)}")
        want = _expected_type(valid[key])
        if value is None and str(valid[key].type).endswith("| None"):  # JSON (a run's manifest) writes null
            out[key] = None
            continue
        wants_int = want is int or (isinstance(want, tuple) and int in want)
        ok = isinstance(value, want) and not (wants_int and isinstance(value, bool))
        if not ok:
            raise RulesetError(
                f"{where}{key} must be {_type_name(want)}, "
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
    tables = {}
    for name, cls in {"tariff": Tariff, **_SUB_TABLES}.items():
        table = data.pop(name, {})
        if not isinstance(table, dict):
            raise RulesetError(f"{name} must be a table ([{name}])")
        tables[name] = dataclasses.replace(getattr(base, name), **_check_table(table, cls, f"{name}."))
    top = _check_table(data, Ruleset, "")
    return dataclasses.replace(base, **tables, **top)


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
        if text.endswith(".toml") or path.is_file():  # a folder named like a preset (a run dir) is not a ruleset
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
