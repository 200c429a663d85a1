"""Replay records of the games of a run made with ``simkit run --store-play`` (``simkit export``).

Each played deal of the run becomes one record in the format ``simkit replay`` reads (README.md, "Replay
records"): ``id`` ``"<seed>:<deal_id>"``, ``deck``, ``contract``, ``suit``, ``tout``, ``declarer``, the four
``hands`` as dealt (sorted as players sort them for the contract), ``klopfen`` (with the club rules: the seats that
knocked), ``kontra`` (the seats that said Kontra and Re),
every trick (``leader`` and its four cards, the leader's first) and the row's payouts as ``expected_payouts``.
Passed deals (and forced deals where the contract was impossible) have no play and are skipped.

The hands come from the run's ``hand_*`` columns, else they are dealt again from (seed, deal_id); the leader of
each trick is the seat holding its first card. Both are checked against the stored play, so a run whose deals
cannot be regenerated (another simkit version dealing differently) is an error, not a wrong record.

Rules: ``simkit replay`` takes ``--rules R``. :attr:`ExportPlan.replay_rules` is the preset that replays the
records: the run's own preset, or, for a run made with a TOML file, a preset with the same rules of play
(``run_away_min``, ``max_doublings``, ``re_by_partner``) and the same Tout pricing; where the run's tariff numbers
differ from it, every record carries them in its ``tariff`` field. When no preset fits, ``replay_rules`` is None
and the records replay with the run's own ruleset: :func:`ruleset_toml` (``simkit export --rules-toml FILE``)
writes it as a TOML file from the manifest, which records it in full.

Python API::

    from simkit.sim.export import export_records, write_records
    for record in export_records("runs/mine", deals=(0, 1000)):   # dicts; errors are raised at the call
        ...
    summary = write_records("runs/mine", "games.jsonl")            # atomically: a temporary file, then renamed
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit import __version__
from simkit.cards import SUIT_NAMES, format_card
from simkit.rules.contracts import GEIER, KIND_NAMES, KINDS_WITH_SUIT, RAMSCH, RUFSPIEL, WENZ
from simkit.rules.ruleset import Ruleset, RulesetError, load_preset, preset_names, ruleset_from_dict
from simkit.sim import manifest as mf

CARD_NAMES = tuple(format_card(c) for c in range(32))
#: rules a replay takes from ``--rules`` that a record cannot carry
PLAY_RULES = ("run_away_min", "max_doublings", "re_by_partner", "klopfen", "sie", "all_pass", "ramsch", "bettel", "stock")
TOUT_TARIFF = ("tout_multiplier", "tout_multiplies_laufende")
BATCH = 16_384  # rows per read; the seat check holds a [rows, 4, 32] int64 array


class ExportError(ValueError):
    """A run that cannot be exported (not a run, no play stored, a bad deal range); nothing was written."""


# ------------------------------------------------------------------------------------------ rules

def replay_preset(rules: Ruleset) -> tuple[str | None, bool]:
    """(the preset that replays this ruleset's games, whether records must carry the tariff numbers).

    An exact match (every rule of play and the whole tariff) is preferred, the ruleset's own name first, then the
    presets of its deck (a record names its deck, so any deck replays); else a preset with the same rules of play and
    Tout pricing, the tariff numbers then travel in the records.
    (None, False) when no preset fits: replay with the run's own ruleset (:func:`ruleset_toml`).
    """
    presets = [p for p in map(load_preset, preset_names()) if getattr(p, "game", "bavarian") == "bavarian"]
    presets.sort(key=lambda p: (p.name != rules.name, p.deck != rules.deck))  # its own, then its deck's (stable)
    fits = [p for p in presets if all(getattr(p, k) == getattr(rules, k) for k in PLAY_RULES)
            and all(getattr(p.tariff, k) == getattr(rules.tariff, k) for k in TOUT_TARIFF)]
    for p in fits:
        if p.tariff == rules.tariff:
            return p.name, False
    return (fits[0].name, True) if fits else (None, False)


def _run_ruleset(manifest: dict) -> Ruleset:
    try:
        return ruleset_from_dict(dict(manifest["ruleset"]), base=Ruleset())
    except (KeyError, TypeError, RulesetError) as e:
        raise ExportError(f"the manifest's ruleset cannot be read: {e}") from None


def ruleset_toml(run_dir: str | Path) -> str:
    """The run's resolved ruleset as a TOML file (what ``simkit replay --rules FILE`` takes)."""
    return _run_ruleset(_load_manifest(Path(run_dir))).to_toml()


# ------------------------------------------------------------------------------------------ the run

def _load_manifest(run_dir: Path) -> dict:
    if not run_dir.is_dir():
        raise ExportError(f"{run_dir} is not a run directory" + ("" if run_dir.exists() else " (it does not exist)"))
    try:
        m = mf.load(run_dir)
    except mf.ManifestError as e:
        raise ExportError(str(e)) from None
    if m.get("game", "bavarian") != "bavarian":
        raise ExportError(f"{run_dir} is a run of the {m['game']} game; simkit export writes replay records of the "
                          f"Bavarian game")
    return m


def parse_deal_range(text: str) -> tuple[int | None, int | None]:
    """``A:B`` (deal ids A .. B-1), ``A:`` (from A), ``:B`` (before B) or ``A`` (deal A alone)."""
    def bound(t: str) -> int | None:
        t = t.strip().replace("_", "")
        if not t:
            return None
        scale = {"k": 10**3, "m": 10**6}.get(t[-1:].lower(), 1)
        t = t[:-1] if scale != 1 else t
        try:
            v = float(t) * scale if any(ch in t.lower() for ch in ".e") else int(t) * scale
        except ValueError:
            raise ExportError(f"--deals must be a range of deal ids A:B, not {text!r}") from None
        if v != int(v) or v < 0:
            raise ExportError(f"--deals must be a range of deal ids A:B (whole numbers from 0), not {text!r}")
        return int(v)

    if ":" not in text:
        a = bound(text)
        if a is None:
            raise ExportError(f"--deals must be a range of deal ids A:B, not {text!r}")
        return a, a + 1
    if text.count(":") != 1:
        raise ExportError(f"--deals must be a range of deal ids A:B, not {text!r}")
    a, b = text.split(":")
    return bound(a), bound(b)


@dataclass
class ExportPlan:
    """A checked run and deal range; :meth:`records` yields the replay records."""

    run_dir: Path
    manifest: dict
    rules: Ruleset
    start: int
    stop: int
    files: list[tuple[Path, int, int]]  # shard files overlapping [start, stop): path, shard start, shard stop
    replay_rules: str | None  # the preset that replays the records (None: the run's own ruleset, ruleset_toml)
    carry_tariff: bool  # every record carries the run's tariff numbers
    stats: dict[str, int] = field(default_factory=lambda: {"records": 0, "skipped": 0})

    @property
    def seed(self) -> int:
        return int(self.manifest["seed"])

    def records(self) -> Iterator[dict[str, Any]]:
        """One record per played deal of the range, in deal order; ``stats`` counts records and skipped deals."""
        import pyarrow.parquet as pq

        with_hands = bool(self.manifest.get("store_hands"))
        columns = ["deal_id", "contract", "suit", "tout", "declarer", "kontra_seat", "re_seat", "doubling",
                   *[f"payout_{s}" for s in range(4)], "play", *([f"hand_{s}" for s in range(4)] if with_hands else []),
                   *(["knocked"] if self.rules.klopfen else [])]  # the club rules' knocks (a bit per seat)
        for path, a, b in self.files:
            if a >= self.stop or b <= self.start:
                continue
            pf = pq.ParquetFile(path)
            for batch in pf.iter_batches(batch_size=BATCH, columns=columns):
                yield from self._batch(batch, with_hands)

    def _batch(self, batch, with_hands: bool) -> Iterator[dict[str, Any]]:
        ids = batch.column("deal_id").to_numpy()
        if len(ids) == 0 or ids[-1] < self.start or ids[0] >= self.stop:
            return
        keep = (ids >= self.start) & (ids < self.stop)
        play_col = batch.column("play")
        played = ~play_col.is_null().to_numpy(zero_copy_only=False) & keep
        self.stats["skipped"] += int((keep & ~played).sum())
        rows = np.flatnonzero(played)
        if len(rows) == 0:
            return
        size = play_col.type.list_size
        hs = self.rules.hand_size
        if size != 4 * hs:
            raise ExportError(f"{self.run_dir}: a play column of {size} cards in a {self.rules.deck}-deck run")
        values = play_col.values.to_numpy(zero_copy_only=False)
        play = values.reshape(-1, size)[play_col.offset:play_col.offset + len(play_col)][rows].astype(np.int64)
        if with_hands:
            hands = np.stack([batch.column(f"hand_{s}").to_numpy()[rows] for s in range(4)], axis=1)
        else:
            from simkit.engine.deal import deal_batch

            first = int(ids[rows[0]])
            hands = deal_batch(self.seed, first, int(ids[rows[-1]]) - first + 1, self.rules.deck)[ids[rows] - first]
        hands = hands.astype(np.int64)
        # seat of every card played, from the hands; a trick's leader holds its first card
        held = (hands[:, :, None] >> play[:, None, :]) & 1  # [deal, seat, card in play order]
        seat_of = np.argmax(held, axis=1)
        leaders = seat_of[:, 0::4]
        expected = (leaders[:, :, None] + np.arange(4)) % 4
        ok = (held.sum(axis=1) == 1).all(axis=1) & (seat_of.reshape(len(rows), hs, 4) == expected).all(axis=(1, 2))
        ok &= leaders[:, 0] == 0
        if not ok.all():
            bad = int(ids[rows[np.flatnonzero(~ok)[0]]])
            source = "its hand_* columns" if with_hands else f"the deal of (seed {self.seed}, deal_id {bad})"
            raise ExportError(f"deal {bad}: the stored play does not fit {source} (the run was written by simkit "
                              f"{self.manifest.get('simkit_version', '?')}, this is {__version__})")
        cols = {k: batch.column(k).to_pylist() for k in ("contract", "suit", "tout", "declarer", "kontra_seat",
                                                        "re_seat", "doubling")}
        kinds = [KIND_NAMES.index(cols["contract"][r]) for r in rows.tolist()]
        suits = [-1 if cols["suit"][r] is None else SUIT_NAMES.index(cols["suit"][r]) for r in rows.tolist()]
        # each seat's hand: the cards it played, sorted as players sort them for the contract
        position = _sort_table(self.rules.deck)[np.array(kinds) * 5 + np.array(suits) + 1]  # [deal, card]
        key = seat_of * 64 + np.take_along_axis(position, play, axis=1)
        names = _NAMES[np.take_along_axis(play, np.argsort(key, axis=1), axis=1)].reshape(len(rows), 4, hs).tolist()
        tricks = _NAMES[play].reshape(len(rows), hs, 4).tolist()
        pays = np.stack([batch.column(f"payout_{s}").to_numpy() for s in range(4)], axis=1)[rows].tolist()
        leaders_l = leaders.tolist()
        knocked = batch.column("knocked").to_pylist() if "knocked" in batch.schema.names else None
        deck = self.rules.deck
        tariff = self.rules.tariff
        for j, r in enumerate(rows.tolist()):
            kind = kinds[j]
            kontra = [s for s in (cols["kontra_seat"][r], cols["re_seat"][r]) if s >= 0]
            if len(kontra) != cols["doubling"][r]:
                raise ExportError(f"deal {int(ids[r])}: doubling {cols['doubling'][r]} but Kontra/Re seats {kontra}")
            lead = leaders_l[j]
            rec: dict[str, Any] = {
                "id": f"{self.seed}:{int(ids[r])}",
                "deck": deck,
                "contract": KIND_NAMES[kind],
                "suit": cols["suit"][r],
                "tout": bool(cols["tout"][r]),
                "declarer": None if kind == RAMSCH else cols["declarer"][r],  # a Ramsch: everyone for himself
                "hands": names[j],
                **({"klopfen": [s for s in range(4) if knocked[r] >> s & 1]} if knocked is not None else {}),
                "kontra": kontra,
                "tricks": [{"leader": lead[t], "cards": cards} for t, cards in enumerate(tricks[j])],
            }
            if self.carry_tariff:
                rec["tariff"] = {"base": tariff.base_rufspiel if kind == RUFSPIEL else tariff.base_solo,
                                 "schneider": tariff.schneider, "schwarz": tariff.schwarz,
                                 "laufende": tariff.laufende,
                                 "laufende_min": tariff.laufende_min_wenz_geier if kind in (WENZ, GEIER)
                                 else tariff.laufende_min}
            rec["expected_payouts"] = pays[j]
            self.stats["records"] += 1
            yield rec


_NAMES = np.array(CARD_NAMES)


@functools.cache
def _sort_table(deck: str) -> np.ndarray:
    """int64[6 * 5, 32]: row ``kind * 5 + suit + 1`` (suit -1: none) holds each card's place in a hand sorted as
    players sort it for that contract (trumps first, high to low; simkit.reference.player_sort_order)."""
    from simkit.reference import contract_from_row, player_sort_order

    table = np.zeros((len(KIND_NAMES) * 5, 32), np.int64)
    for kind in range(len(KIND_NAMES)):
        for suit in (range(4) if kind in KINDS_WITH_SUIT else (-1,)):
            if kind == RUFSPIEL and suit == 2:  # no Rufspiel calls Herz
                continue
            c = contract_from_row(kind, suit, False)
            for i, card in enumerate(player_sort_order(c, deck)):
                table[kind * 5 + suit + 1, card] = i
    return table


def plan_export(run_dir: str | Path, deals: tuple[int | None, int | None] | range | str | None = None) -> ExportPlan:
    """Check a run and a deal range (``(A, B)`` for deal ids A .. B-1, either may be None; a ``range``; a string
    ``"A:B"``; None: every deal the run holds) and return the plan of the export. Raises :class:`ExportError`."""
    run_dir = Path(run_dir)
    m = _load_manifest(run_dir)
    if not m.get("store_play"):
        raise ExportError(f"{run_dir} has no play column: it was run without --store-play (the same options with "
                          f"--store-play play the same deals again and store them)")
    rules = _run_ruleset(m)
    total = int(m["deals"])
    if isinstance(deals, str):
        deals = parse_deal_range(deals)
    elif isinstance(deals, range):
        if deals.step != 1:
            raise ExportError("deals must be a range with step 1")
        deals = (deals.start, deals.stop)
    shards = sorted((int(s["start"]), int(s["stop"]), s["file"]) for s in m["shards"])
    if deals is None:
        start, stop, explicit = 0, total, False
    else:
        a, b = deals
        start, stop, explicit = 0 if a is None else int(a), total if b is None else int(b), True
        if not 0 <= start < stop:
            raise ExportError(f"--deals {_show(deals)} is empty or reversed: give A:B with A < B")
        if stop > total:
            raise ExportError(f"--deals {_show(deals)} reaches past the run's {total:,} deals (ids 0..{total - 1})")
        covered = 0
        for a_, b_, _ in shards:
            covered += max(0, min(b_, stop) - max(a_, start))
        if covered < stop - start:
            raise ExportError(f"--deals {_show(deals)}: {stop - start - covered:,} of these deals are not in the run "
                              f"yet (it is incomplete; finish it with simkit run --resume --out {run_dir})")
    files = []
    for a_, b_, name in shards:
        if a_ < stop and b_ > start:
            path = run_dir / name
            if not path.is_file():
                raise ExportError(f"{path} is listed in the manifest but missing")
            files.append((path, a_, b_))
    if not files and not explicit:
        raise ExportError(f"{run_dir} holds no complete shard yet")
    preset, carry = replay_preset(rules)
    return ExportPlan(run_dir, m, rules, start, stop, files, preset, carry)


def _show(deals) -> str:
    a, b = deals
    return f"{'' if a is None else a}:{'' if b is None else b}"


def export_records(run_dir: str | Path, deals=None) -> Iterator[dict[str, Any]]:
    """The replay records of the played deals of ``run_dir`` (see :func:`plan_export` for ``deals``), in deal
    order. The run and the range are checked at the call: a bad one raises :class:`ExportError` at once."""
    return plan_export(run_dir, deals).records()


def write_records(run_dir: str | Path | ExportPlan, out: str | Path | None = None, deals=None) -> dict[str, Any]:
    """Write the records as JSON lines to ``out`` (None: stdout) and return a summary: ``records``, ``skipped``
    (passed or impossible deals), ``replay_rules`` (the ``--rules`` for ``simkit replay``; None: the run's own
    ruleset, :func:`ruleset_toml`) and ``tariff_in_records``. ``run_dir`` may be a plan of :func:`plan_export`.
    ``out`` is written under a temporary name and renamed when complete: on any error it is not created (an
    existing file stays as it was)."""
    plan = run_dir if isinstance(run_dir, ExportPlan) else plan_export(run_dir, deals)
    if out is None:
        write = sys.stdout.write
        for rec in plan.records():
            write(json.dumps(rec) + "\n")
        sys.stdout.flush()
    else:
        out = Path(out)
        if out.is_dir():
            raise ExportError(f"--out {out} is a directory")
        if not out.parent.is_dir():
            raise ExportError(f"--out {out}: the directory {out.parent} does not exist")
        tmp = mf.temp_path(out)
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                for rec in plan.records():
                    f.write(json.dumps(rec) + "\n")
            os.replace(tmp, out)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    return {"records": plan.stats["records"], "skipped": plan.stats["skipped"], "deals": [plan.start, plan.stop],
            "replay_rules": plan.replay_rules, "tariff_in_records": plan.carry_tariff, "ruleset": plan.rules.name}


__all__ = ["ExportError", "ExportPlan", "export_records", "parse_deal_range", "plan_export", "replay_preset",
           "ruleset_toml", "write_records"]
