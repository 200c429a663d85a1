"""Grading recorded games card by card with the double-dummy solver (``simkit analyze``; docs/analyze.md).

    from simkit.analyze import analyze_file
    result = analyze_file("games.jsonl", out="analysis/mine", objective="points")

The pieces: :mod:`records` (reading and checking games), :mod:`grade` (one game), :mod:`advice` (what a strategy
would have played, seeing what the seat saw), :mod:`batch` (many games in parallel, streamed to Parquet).
"""
