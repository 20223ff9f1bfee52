"""Your own experiment: a new experiment kind, a scenario of it, its rows summarized.

Run: .venv/bin/python examples/own_experiment.py

The kind below fetches one file by WSP/WTP or by HTTP/TCP over paper 000's serial line
and returns one row per run. Declaring its parameters lets a scenario be checked when
it is built: a size of "10k" or a protocol of "ftp" is refused before anything runs.
The scenario sweeps protocol and loss; summarize() groups the rows (in DuckDB) and
gives each group's mean goodput with a 95% t interval.
"""

from typing import Any

from wwanlab.core.errors import UsageError
from wwanlab.experiments.runner import run_scenario
from wwanlab.experiments.scenario import Parameter, Row, Scenario, experiment_kind
from wwanlab.experiments.summary import summarize
from wwanlab.experiments.transfers import http_transfer, wap_transfer

PARAMETERS = {
    "stack.protocol": Parameter(str, required=True, choices=("wap", "tcp")),
    "workload.size": Parameter(int, required=True, minimum=1),
    "link.overrides.loss": Parameter(float, minimum=0.0, maximum=1.0),
}


@experiment_kind("my-fetch", PARAMETERS)
def fetch(params: dict[str, Any], seed: int) -> list[Row]:
    """One fetch; all randomness comes from ``seed``, so a run can be repeated exactly."""
    size, loss = params["workload.size"], params.get("link.overrides.loss", 0.0)
    if params["stack.protocol"] == "wap":
        transfer = wap_transfer(size, loss, seed)
    else:
        transfer = http_transfer(size, loss, seed, variant="newreno")
    return [{"complete": transfer.complete, "goodput_bps": transfer.goodput_bps}]


scenario = Scenario(
    name="my-fetch-sweep",
    kind="my-fetch",
    params={"workload.size": 5000},
    sweep={"stack.protocol": ["wap", "tcp"], "link.overrides.loss": [0.0, 0.05, 0.1]},
    repetitions=4,
    seed=7,
)
rows = run_scenario(scenario, jobs=1)  # a kind defined in a script runs in this process
print(f"{len(rows)} rows; the first: {rows[0]}")
by = ["stack.protocol", "link.overrides.loss"]
for (protocol, loss), s in summarize(rows, by, "goodput_bps", complete="complete").items():
    print(f"  {protocol:>3} at {loss:4.0%} loss: {s.mean:6.0f} ± {s.half_width:4.0f} bit/s")

try:
    Scenario(
        name="typo", kind="my-fetch", params={"workload.size": "10k", "stack.protocol": "wap"}
    )
except UsageError as error:  # on the command line: this one line, and exit code 2
    print(f"refused: {error}")
