"""Duplicate matches between strategies (``simkit match``; docs/match.md): the same deals played twice with the
seats swapped, so the cards cancel out and the difference is play."""

from simkit.match.api import MatchError, MatchResult, PairResult, match

__all__ = ["MatchError", "MatchResult", "PairResult", "match"]
