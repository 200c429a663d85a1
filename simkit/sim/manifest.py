"""``_manifest.json`` of a run directory: what was asked for and which shards are complete.

The manifest is rewritten atomically (temporary file, then rename) after every completed shard, so at any moment
it lists exactly the shards whose files are complete. ``--resume`` reads it, checks that the options match, and
plays only the missing deal-id ranges.

Its name starts with ``_`` so that the common Parquet readers (pandas, pyarrow.dataset, DuckDB, Spark) skip it
when they open the run directory as a dataset. Runs written before are named ``manifest.json``: they are read as
well, and a resumed one is rewritten under the new name.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

MANIFEST = "_manifest.json"
LEGACY_MANIFEST = "manifest.json"  # runs written before 2026-12 (readers choked on it among the Parquet files)
FORMAT = "simkit-run/1"


class ManifestError(ValueError):
    """A manifest that is missing, corrupt, or does not match the options of a resumed run."""


def shard_name(index: int) -> str:
    return f"part-{index:06d}.parquet"


def temp_path(path: Path) -> Path:
    """The hidden name under which this process writes ``path`` before renaming it into place."""
    return path.with_name(f".{path.name}.tmp-{os.getpid()}")


def is_temp(name: str) -> bool:
    """``name`` is a temporary file of some (possibly killed) simkit process: see :func:`temp_path`."""
    return name.startswith(".") and ".tmp-" in name


def _write_synced(path: Path, text: str) -> Path:
    """Write ``text`` to a hidden temporary file beside ``path``, flushed to disk; return its name."""
    tmp = temp_path(path)
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    return tmp


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see either the old or the new file, never a partial one."""
    os.replace(_write_synced(path, text), path)


def _text(manifest: dict[str, Any]) -> str:
    manifest = dict(manifest)
    manifest["shards"] = sorted(manifest["shards"], key=lambda s: s["start"])
    done = sum(s["rows"] for s in manifest["shards"])
    manifest["deals_done"] = done
    manifest["complete"] = done == manifest["deals"]
    return json.dumps(manifest, indent=1) + "\n"


def save(run_dir: Path, manifest: dict[str, Any]) -> None:
    write_atomic(run_dir / MANIFEST, _text(manifest))
    (run_dir / LEGACY_MANIFEST).unlink(missing_ok=True)  # a resumed old run: one manifest, under the new name


def commit(run_dir: Path, manifest: dict[str, Any], renames: dict[str, str]) -> None:
    """Publish a finished shard: rename its files from their temporary names and replace the manifest by one
    that lists it. The slow part (writing and syncing the new manifest) happens first, so the shard's renames and
    the manifest's rename follow each other directly: a kill leaves the old state or the new one (short of landing
    between two rename calls, after which ``--resume`` drops the unlisted file and plays its range again)."""
    tmp = _write_synced(run_dir / MANIFEST, _text(manifest))
    for src, dst in renames.items():
        os.replace(run_dir / src, run_dir / dst)
    os.replace(tmp, run_dir / MANIFEST)


def path_of(run_dir: Path) -> Path:
    """The manifest file of a run directory (the legacy name for runs written before)."""
    path = run_dir / MANIFEST
    legacy = run_dir / LEGACY_MANIFEST
    return legacy if not path.is_file() and legacy.is_file() else path


def load(run_dir: Path) -> dict[str, Any]:
    path = path_of(run_dir)
    if not path.is_file():
        raise ManifestError(f"{run_dir} has no {MANIFEST}: not a simkit run directory")
    try:
        m = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ManifestError(f"{path} is corrupt: {e}") from None
    if not isinstance(m, dict) or m.get("format") != FORMAT or not isinstance(m.get("shards"), list):
        raise ManifestError(f"{path} is not a simkit run manifest (format {FORMAT})")
    return m


#: options recorded in the manifest only when they are on (``"dd": true``); absent means off
OPTIONAL_FLAGS = ("dd", "store_play", "sessions")


def mismatches(manifest: dict[str, Any], identity: dict[str, Any]) -> list[str]:
    """Names of the options in which a resumed run differs from the manifest (an optional flag that only one of
    them has counts as a difference)."""
    keys = list(identity) + [k for k in OPTIONAL_FLAGS if k in manifest and k not in identity]
    return [k for k in keys if manifest.get(k) != identity.get(k)]
