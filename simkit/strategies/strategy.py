"""What sits at a seat (:class:`Strategy`) and the error a strategy raises (:class:`StrategyError`).

Below the registry (simkit.strategies: names to strategies) and the whole-deal kernel (simkit.engine.game), which
plays a deal through these objects: a strategy's decisions (built-in id or plug-in functions), its configuration and
how a run binds it to a ruleset, and what a built-in that the kernel calls by address brings along (the addresses
of its native entries, the workspace it needs).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np


class StrategyError(Exception):
    """A strategy that cannot be loaded or that made an impossible choice (``str(e)`` is one line)."""

    def __init__(self, message: str, *, strategy: str | None = None, seat: int | None = None,
                 deal: int | None = None, decision: str | None = None, value: int | None = None):
        super().__init__(message)
        self.strategy, self.seat, self.deal, self.decision, self.value = strategy, seat, deal, decision, value

    @classmethod
    def from_kernel(cls, err, strategies, rules, row: dict) -> StrategyError:
        """The error the whole-deal kernel reported in ``err`` (see simkit.engine.game), as a one-line message."""
        from simkit.cards import format_card
        from simkit.reference import contract_from_row, declaration_error, describe_bid, player_sort_order

        deal, seat, decision, value, trick, legal, hand = (int(x) for x in err)
        name = strategies[seat].name
        who = f"strategy '{name}' (seat {seat})"
        if decision == 0:
            why = declaration_error(hand, value, rules) or "not a valid declaration"
            msg = f"{who} declared {describe_bid(value)} in deal {deal}: {why}"
            kind = "bid"
        elif decision == 3:
            msg = (f"{who} answered {value} when asked whether to knock (Klopfen) in deal {deal}: klopfen() must "
                   f"return 0 or 1")
            kind = "klopfen"
        elif decision == 1:
            q = "Re" if trick == 1 else "Kontra"
            msg = f"{who} answered {value} when asked for {q} in deal {deal}: double() must return 0 or 1"
            kind = "double"
        else:
            from simkit.cards import cards_of

            contract = contract_from_row(int(row["kind"]), int(row["suit"]), bool(row["tout"]))
            order = player_sort_order(contract, rules.deck)
            legal_s = " ".join(format_card(c) for c in sorted(cards_of(legal), key=order.index))
            card_s = format_card(value) if 0 <= value < 32 else f"card {value}"
            what = "not a legal card" if 0 <= value < 32 and hand >> value & 1 else "a card it does not hold"
            msg = f"{who} played {card_s} in deal {deal}, trick {trick + 1}, {what} (legal: {legal_s})"
            kind = "play"
        return cls(msg, strategy=name, seat=seat, deal=deal, decision=kind, value=value)


@dataclass(frozen=True, eq=False)
class Strategy:
    """What sits at a seat. ``builtin_id`` >= 0 for a built-in (integer dispatch in the kernel), -1 for a plug-in
    whose ``bid``/``double``/``play`` are njit functions compiled with the api signatures."""

    name: str
    description: str
    bid: Any
    double: Any
    play: Any
    config: np.ndarray = field(default_factory=lambda: np.zeros(0))
    builtin_id: int = -1
    config_names: tuple[str, ...] = ()
    uses_scratch: bool = True  # the kernel keeps info[I_SCRATCH:] per seat (False only for built-ins saying so)
    slow: bool = False  # milliseconds a deal (pimc): runs cut the deals into small shards
    bind: Any = None  # bind(config, ruleset) -> the config a run passes (the heuristic's value table)
    #: () -> {slot: address}: the native entries the whole-deal kernel calls by address for this strategy (slots of
    #: simkit.strategies.natives; pimc's decision, the people model's bid and play), compiled when first asked for;
    #: its seats have ``builtin_id`` simkit.strategies.dispatch.S_NATIVE
    native_entries: Any = None
    #: (rule tables) -> the workspace the kernel passes to this strategy's decision entry
    #: (simkit.strategies.natives.WORKSPACE_TYPE; pimc: the solver's table and the sampler's arrays)
    make_workspace: Any = None
    #: float64 words of work space its native bid and play entries need (the kernel's ``work_f``)
    native_work: int = 0
    #: the fourth decision (Klopfen, simkit.strategies.api.KLOPFEN_SIG); None: it never knocks (a native seat
    #: knocks as the heuristic in the kernel)
    klopfen: Any = None
    #: entries written by name (``pimc[model=people]``): entry -> {name: the number the config keeps}
    config_choices: dict = field(default_factory=dict)

    def fn(self, j: int):
        """Decision ``j`` (0 bid, 1 double, 2 play, 3 klopfen) as passed to the kernel's plug-in tuples."""
        if self.builtin_id >= 0:
            from simkit.strategies.dispatch import FILLER

            return FILLER[j]
        if j == 3 and self.klopfen is None:
            from simkit.strategies.api import never_knock

            return never_knock
        return (self.bid, self.double, self.play, self.klopfen)[j]

    def natives(self) -> dict[int, int]:
        """``{slot: address}`` of the kernels the whole-deal kernel calls by address for this strategy (empty for
        most): compiles (or loads) them when first asked for."""
        return dict(self.native_entries()) if self.native_entries is not None else {}

    def workspace(self, rule_tables):
        """The workspace this strategy's decision entry needs under these rule tables, None if it needs none."""
        return self.make_workspace(rule_tables) if self.make_workspace is not None else None

    def config_for(self, rules) -> np.ndarray:
        """The config as a run under ``rules`` passes it to the kernel (with what it learned for the ruleset)."""
        return self.bind(self.config, rules) if self.bind is not None else self.config

    def with_config(self, config) -> Strategy:
        """A copy with another configuration (float array; missing trailing values keep their defaults)."""
        new = np.array(self.config, np.float64, copy=True)
        c = np.asarray(config, np.float64).ravel()
        if len(c) > len(new):
            new = np.concatenate([new, np.zeros(len(c) - len(new))])
        new[: len(c)] = c
        return replace(self, config=new)
