"""What every game's ruleset shares: the error a bad ruleset raises and TOML writing. It stands below the
Bavarian ruleset (simkit.rules.ruleset) and the old German one (simkit.oldgerman.rules), so neither imports the
other's module to get them; the loader in simkit.rules.ruleset dispatches on ``game``."""

from __future__ import annotations

from typing import Any


class RulesetError(ValueError):
    """A ruleset that cannot be loaded: unknown preset, unknown key, wrong type or impossible value."""


def toml_value(v: Any) -> str:
    """``v`` (bool, number, string or list of them) as a TOML value."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(v)
