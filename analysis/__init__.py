"""simkit analysis: results datasets (``simkit run``) in, polars DataFrames out (docs/analysis.md).

    import analysis as an
    ds = an.scan("runs/demo")
    an.win_rates(ds)
    an.laufende_frequency(ds)
    an.expected_points(ds, by="shape")
"""

from analysis.dataset import AnalysisError, Dataset, aggregate, aggregate_many, as_dataset, finish, rollup, scan
from analysis.exact import exact_laufende, laufende_distribution
from analysis.features import FEATURES, hand_features
from analysis.tables import (
    compare,
    contract_mix,
    expected_points,
    laufende_frequency,
    laufende_summary,
    payout_distribution,
    seat_effects,
    seat_summary,
    win_rates,
)

__all__ = ["AnalysisError", "Dataset", "scan", "as_dataset", "aggregate", "aggregate_many", "finish", "rollup",
           "exact_laufende", "laufende_distribution", "FEATURES", "hand_features", "win_rates", "expected_points",
           "contract_mix", "seat_effects", "seat_summary", "payout_distribution", "laufende_frequency",
           "laufende_summary", "compare"]
