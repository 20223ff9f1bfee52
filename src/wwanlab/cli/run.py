"""``wwanlab run SCENARIO.toml``: execute a scenario, store its rows, write its page."""

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from wwanlab import reproductions
from wwanlab.cli.common import (
    DbOption,
    JobsOption,
    JsonOption,
    SchedulerOption,
    check_before_work,
    output_console,
    print_json,
)
from wwanlab.experiments.runner import run_scenario
from wwanlab.experiments.scenario import MAX_RUNS, load_scenario
from wwanlab.experiments.store import DEFAULT_DB, ResultStore
from wwanlab.report.html import Links, Params, ReportPage, Section, Table, Text, write_index
from wwanlab.report.provenance import RunInfo

PAGE_ROWS = 500
"""Rows shown on a scenario's page; the CSV file beside it has them all."""


def register(app: typer.Typer) -> None:
    @app.command()
    def run(
        scenario_file: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
        out: Annotated[Path, typer.Option(help="Folder for the CSV and HTML page.")] = Path(
            "results"
        ),
        jobs: JobsOption = None,
        scheduler: SchedulerOption = None,
        db: DbOption = DEFAULT_DB,
        force: Annotated[
            bool,
            typer.Option(
                "--force", help=f"Run even over {MAX_RUNS:,} runs or a kind's work bound."
            ),
        ] = False,
        json: JsonOption = False,
    ) -> None:
        """Run a scenario's sweep and repetitions; rows go to DuckDB, CSV and HTML."""
        started = time.time()
        reproductions.load()  # importing them registers the papers' kinds
        scenario = load_scenario(scenario_file)
        scenario.check_size(force)
        check_before_work(jobs=jobs, scheduler=scheduler, out=out, db=db)
        print(f"wwanlab run: {scenario.name}: {scenario.size()}", file=sys.stderr)
        runs = scenario.runs()
        rows = run_scenario(scenario, jobs=jobs, scheduler=scheduler, progress=True)
        with ResultStore(db) as store:
            table = store.write(scenario.name, rows)
            csv_path = store.export_csv(scenario.name, out / f"{scenario.name}.csv")
        base = {"kind": scenario.kind, "seed": scenario.seed, "repetitions": scenario.repetitions}
        sweep = {f"sweep {k}": ", ".join(map(str, v)) for k, v in scenario.sweep.items()}
        page = ReportPage(
            scenario.name,
            [
                Section(
                    "Scenario",
                    [Text(scenario.description), Params({**base, **scenario.params, **sweep})],
                ),
                Section(
                    "Results",
                    [
                        Text(f"{len(rows)} rows from {len(runs)} runs; all in {csv_path.name}."),
                        Links([(csv_path.name, csv_path.name)]),
                        Table.from_rows(rows[:PAGE_ROWS]),
                    ],
                ),
                Section("This run", [RunInfo.collect(f"{len(runs)} runs", started).block()]),
            ],
            slug=scenario.name,
            summary=scenario.description,
        )
        write_index(out, [page])  # the page's "All pages" link leads to the folder's index
        page_path = out / page.filename
        summary = {
            "scenario": scenario.name,
            "kind": scenario.kind,
            "runs": len(runs),
            "rows": len(rows),
            "db": str(db),
            "table": table,
            "csv": str(csv_path),
            "page": str(page_path),
        }
        if json:
            print_json(summary)
        else:
            console = output_console()
            for key, value in summary.items():
                console.print(f"{key:>9}: {value}", highlight=False)
