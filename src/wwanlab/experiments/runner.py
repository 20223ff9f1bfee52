"""Execute a scenario's runs in-process, on a local process pool or on a Dask cluster.

A run depends only on its parameters and its seed, so where it executes cannot change
its rows: the executors differ in speed only, and the rows always come back in run
order whatever order the runs finished in.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed

from wwanlab.core.errors import UsageError
from wwanlab.core.progress import Advance, track
from wwanlab.experiments.scenario import Row, Run, RunOne, Scenario, get_kind

RESERVED_COLUMNS = ("scenario", "run", "repetition", "seed")
"""Columns the runner adds to every row, before the run's parameters."""

CONNECT_TIMEOUT = "10s"
"""How long to keep trying to reach a Dask scheduler before giving up."""

MAX_PORT = 65535


def run_rows(run_one: RunOne, run: Run) -> list[Row]:
    """Execute one run and label each of its rows with the run and its parameters."""
    labels: Row = {
        "scenario": run.scenario,
        "run": run.index,
        "repetition": run.repetition,
        "seed": run.seed,
        **run.params,
    }
    rows: list[Row] = []
    for row in run_one(dict(run.params), run.seed):
        clash = labels.keys() & row.keys()
        if clash:
            raise ValueError(
                f"kind {run.kind!r} returned column {sorted(clash)[0]!r}, "
                "which names a run parameter"
            )
        rows.append({**labels, **row})
    return rows


def execute(
    runs: Sequence[Run],
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    description: str = "runs",
) -> list[Row]:
    """Every run's rows, in run order.

    ``scheduler`` (a Dask scheduler address such as ``tcp://10.0.0.5:8786``) sends the
    runs to that cluster; otherwise ``jobs`` worker processes (default: one per CPU)
    run them, and one job (or one run) runs in this process. ``progress`` reports
    finished runs on stderr (``wwanlab.core.progress``), labelled ``description``.
    """
    check_executor(jobs, scheduler)
    kinds = {run.kind: get_kind(run.kind) for run in runs}
    results: list[list[Row]] = [[] for _ in runs]
    with track(description, len(runs), enabled=progress) as advance:
        if scheduler is not None:
            _on_dask(runs, kinds, scheduler, results, advance)
        elif (jobs or os.cpu_count() or 1) == 1 or len(runs) <= 1:
            for i, run in enumerate(runs):
                results[i] = run_rows(kinds[run.kind], run)
                advance()
        else:
            _on_pool(runs, kinds, jobs or os.cpu_count() or 1, results, advance)
    return [row for rows in results for row in rows]


def run_scenario(
    scenario: Scenario,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
) -> list[Row]:
    """All rows of ``scenario`` (see ``execute``)."""
    return execute(
        scenario.runs(),
        jobs=jobs,
        scheduler=scheduler,
        progress=progress,
        description=f"{scenario.name} runs",
    )


def check_executor(jobs: int | None, scheduler: str | None) -> None:
    """Refuse a job count below one or a malformed scheduler address before any work,
    so that a typo is reported at once rather than after a connection attempt."""
    if jobs is not None and jobs < 1:
        raise UsageError(f"jobs must be at least 1, got {jobs}")
    if scheduler is not None:
        check_scheduler(scheduler)


def check_scheduler(address: str) -> None:
    """A Dask address: ``[SCHEME://]HOST:PORT`` with a scheme Dask knows (or an
    in-process ``inproc://`` address, which has no port)."""
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    try:
        scheme, location = parse_address(address)
        get_backend(scheme)
        host, port = ("inproc", 1) if scheme == "inproc" else parse_host_port(location)
    except ValueError as exc:
        raise UsageError(f"bad Dask scheduler address {address!r}: {exc}") from None
    if not host or not 0 < int(port) <= MAX_PORT:
        raise UsageError(f"bad Dask scheduler address {address!r}: want [tcp://]HOST:PORT")


def _on_pool(
    runs: Sequence[Run],
    kinds: dict[str, RunOne],
    jobs: int,
    results: list[list[Row]],
    advance: Advance,
) -> None:
    with ProcessPoolExecutor(max_workers=min(jobs, len(runs))) as pool:
        futures = {pool.submit(run_rows, kinds[run.kind], run): i for i, run in enumerate(runs)}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            advance()


def _on_dask(
    runs: Sequence[Run],
    kinds: dict[str, RunOne],
    scheduler: str,
    results: list[list[Row]],
    advance: Advance,
) -> None:
    from distributed import Client
    from distributed import as_completed as dask_completed

    try:
        client = Client(  # type: ignore[no-untyped-call]
            scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False
        )
    except (OSError, TimeoutError, ValueError) as exc:
        raise UsageError(f"cannot connect to Dask scheduler {scheduler!r}: {exc}") from None
    with client:
        futures = [client.submit(run_rows, kinds[run.kind], run, pure=False) for run in runs]
        index = {future.key: i for i, future in enumerate(futures)}
        for future in dask_completed(futures, loop=client.loop):  # type: ignore[no-untyped-call]
            results[index[future.key]] = future.result()
            advance()
