"""Load a scenario file, run its sweep, and summarize the rows by sweep point.

Run: .venv/bin/python examples/run_a_scenario.py

`examples/probe-loss.toml` sweeps the loss knob of the preset gprs-one-user (its radio
packet error rate; `wwanlab links -v` says what each preset's knob is) over three
values, three repetitions each: nine runs, two rows each (one per direction). The IP
loss measured is not the knob alone: the preset's other stages drop packets too.
Every run's seed derives from the scenario's seed and the run's parameters, so the rows
are the same whether the runs execute here, on a process pool (`jobs=N`) or on a Dask
cluster (`scheduler=`).
`wwanlab run examples/probe-loss.toml` does the same and also writes the rows to
DuckDB, a CSV file and an HTML page.
"""

from pathlib import Path

from wwanlab.experiments.runner import run_scenario
from wwanlab.experiments.scenario import load_scenario
from wwanlab.experiments.summary import summarize

scenario = load_scenario(Path(__file__).with_name("probe-loss.toml"))
rows = run_scenario(scenario, jobs=1)
print(f"{scenario.name}: {len(scenario.runs())} runs, {len(rows)} rows")

by = ["link.overrides.loss", "direction"]
for (loss, direction), s in summarize(rows, by, "loss").items():
    print(
        f"  radio PER {loss:4.0%} {direction:>4}: IP loss {s.mean:.3f} "
        f"± {s.half_width:.3f} (95% t interval, {s.n} runs)"
    )
