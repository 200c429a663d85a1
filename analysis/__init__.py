"""simkit analysis: results datasets (``simkit run``) in, polars DataFrames out (docs/analysis.md).

    import analysis as an
    ds = an.scan("runs/demo")
    an.win_rates(ds)
    an.laufende_frequency(ds)
    an.expected_points(ds, by="shape")
"""

# The names below load on first use, so that importing a submodule (the `simkit` command registers
# analysis.cli_report at start-up) does not pull in polars for every command.
_EXPORTS = {
    "analysis.dataset": ["AnalysisError", "Dataset", "aggregate", "aggregate_many", "as_dataset", "finish", "rollup",
                         "scan"],
    "analysis.against": ["against", "load_games"],
    "analysis.best": ["best_declaration_by_shape"],
    "analysis.exact": ["exact_laufende", "laufende_distribution"],
    "analysis.features": ["FEATURES", "hand_features"],
    "analysis.tables": ["compare", "contract_mix", "double_dummy", "double_dummy_by_shape", "expected_points",
                        "laufende_frequency", "laufende_summary", "payout_distribution", "seat_effects",
                        "seat_summary", "win_rates"],
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'analysis' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value
    return value
