"""Batch runs: deal ranges played in shards and streamed to a Parquet dataset (local processes or Dask)."""

from simkit.sim.runner import RunError, RunOptions, run, summarize

__all__ = ["RunError", "RunOptions", "run", "summarize"]
