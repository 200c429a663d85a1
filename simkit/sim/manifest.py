"""``manifest.json`` of a run directory: what was asked for and which shards are complete.

The manifest is rewritten atomically (temporary file, then rename) after every completed shard, so at any moment
it lists exactly the shards whose files are complete. ``--resume`` reads it, checks that the options match, and
plays only the missing deal-id ranges.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

MANIFEST = "manifest.json"
FORMAT = "simkit-run/1"


class ManifestError(ValueError):
    """A manifest that is missing, corrupt, or does not match the options of a resumed run."""


def shard_name(index: int) -> str:
    return f"part-{index:06d}.parquet"


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see either the old or the new file, never a partial one."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def save(run_dir: Path, manifest: dict[str, Any]) -> None:
    manifest = dict(manifest)
    manifest["shards"] = sorted(manifest["shards"], key=lambda s: s["start"])
    done = sum(s["rows"] for s in manifest["shards"])
    manifest["deals_done"] = done
    manifest["complete"] = done == manifest["deals"]
    write_atomic(run_dir / MANIFEST, json.dumps(manifest, indent=1) + "\n")


def load(run_dir: Path) -> dict[str, Any]:
    path = run_dir / MANIFEST
    if not path.is_file():
        raise ManifestError(f"{run_dir} has no {MANIFEST}: not a simkit run directory")
    try:
        m = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ManifestError(f"{path} is corrupt: {e}") from None
    if not isinstance(m, dict) or m.get("format") != FORMAT or not isinstance(m.get("shards"), list):
        raise ManifestError(f"{path} is not a simkit run manifest (format {FORMAT})")
    return m


def mismatches(manifest: dict[str, Any], identity: dict[str, Any]) -> list[str]:
    """Names of the options in which a resumed run differs from the manifest."""
    return [k for k, v in identity.items() if manifest.get(k) != v]
