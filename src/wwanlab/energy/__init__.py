"""Radio energy models: joules, time per radio state and joules per megabyte from a
mobile host's packet trace (the simulator's ``RadioLog``, or the emulator's log)."""

from wwanlab.energy.model import (
    MODELS,
    Airtime,
    EnergyReport,
    RadioModel,
    TailStage,
    account,
    at_rates,
    get_model,
    on_line,
)
from wwanlab.energy.radio_log import RadioLog, energy_columns

__all__ = [
    "MODELS",
    "Airtime",
    "EnergyReport",
    "RadioLog",
    "RadioModel",
    "TailStage",
    "account",
    "at_rates",
    "energy_columns",
    "get_model",
    "on_line",
]
