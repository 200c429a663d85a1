"""``simkit export``: the command-line face of :mod:`simkit.sim.export` (registered on the app in simkit.cli)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from simkit.cli_shared import UserError


def register(app: typer.Typer) -> None:
    @app.command("export")
    def export(
        run_dir: Path = typer.Argument(..., metavar="RUN", help="A run directory made with simkit run --store-play."),
        deals: Optional[str] = typer.Option(None, "--deals",
                                            help="Deal ids A:B (A .. B-1; A: and :B leave an end open; A alone: "
                                                 "one deal). Default: every deal of the run."),
        out: Optional[Path] = typer.Option(None, "--out", help="Output file (default: stdout)."),
        rules_toml: Optional[Path] = typer.Option(None, "--rules-toml",
                                                  help="Also write the run's ruleset as a TOML file, for "
                                                       "simkit replay --rules FILE."),
    ):
        """Write the played deals of a run as replay records (JSON lines, the format of simkit replay).

        One record per played deal: id "<seed>:<deal_id>", hands, contract, suit, declarer, Kontra/Re, every
        trick and the row's payouts as expected_payouts. Passed deals are skipped. A note on stderr says which
        --rules replays the records.
        """
        from simkit.sim.export import ExportError, plan_export, write_records
        from simkit.sim.manifest import write_atomic

        try:
            plan = plan_export(run_dir, deals)  # every check before anything is written
            if rules_toml is not None:
                if rules_toml.is_dir() or not rules_toml.parent.is_dir():
                    raise ExportError(f"--rules-toml {rules_toml}: not a file in an existing directory")
            summary = write_records(plan, out)
            if rules_toml is not None:
                write_atomic(rules_toml, plan.rules.to_toml())
        except ExportError as e:
            raise UserError(str(e)) from None
        where = str(out) if out is not None else "stdout"
        rules = summary["replay_rules"]
        if rules_toml is not None:
            rules = str(rules_toml)
        how = (f"replay: simkit replay {out if out is not None else 'FILE'} --rules {rules}" if rules else
               f"the run's ruleset {summary['ruleset']!r} is no preset: replay with --rules FILE where FILE is the "
               f"run's ruleset (write it with --rules-toml FILE)")
        print(f"{summary['records']:,} games written to {where} ({summary['skipped']:,} passed deals skipped); {how}",
              file=sys.stderr)
