"""An experiment kind for the pipeline's tests: seeded draws, nothing simulated."""

import random
from typing import Any

from wwanlab.experiments.scenario import Row, experiment_kind


@experiment_kind("test-draws")
def draws(params: dict[str, Any], seed: int) -> list[Row]:
    """``params.n`` rows, each a uniform draw scaled by ``params.scale``."""
    rng = random.Random(seed)
    scale = float(params.get("params.scale", 1.0))
    return [{"i": i, "x": rng.random() * scale} for i in range(int(params.get("params.n", 2)))]


@experiment_kind("test-clash")
def clash(params: dict[str, Any], seed: int) -> list[Row]:
    """A faulty kind whose row reuses a column the runner adds."""
    return [{"seed": seed}]
