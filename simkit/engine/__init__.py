"""Numba bitmask engine: counter-based dealing, legal moves, tricks, scoring, whole-deal play.

Main API (numpy in, dicts of numpy arrays out; see simkit.engine.batch for the result fields and trace layout):

* :func:`deal`, :func:`deal_batch`: counter-based hands from (seed, index);
* :func:`random_setups`: hands + a random contract per deal (tests, benchmarks);
* :func:`play_random`: play and score given deals (policy 0: uniform random legal play), optionally traced;
* :func:`simulate_random`: deal + setup + play + score in one fused pass;
* :func:`ceiling_play`: the minimal random-playout yardstick kernel.
"""

from simkit.engine.batch import play_random, simulate_random, tables_for
from simkit.engine.ceiling import ceiling_play
from simkit.engine.deal import deal, deal_batch, random_setups
from simkit.engine.kernel import POLICY_LOWEST, POLICY_RANDOM
from simkit.rules.tables import RuleTables, build_tables, variant_index, variant_of

__all__ = [
    "POLICY_LOWEST", "POLICY_RANDOM", "RuleTables", "build_tables", "ceiling_play", "deal", "deal_batch",
    "play_random", "random_setups", "simulate_random", "tables_for", "variant_index", "variant_of",
]
