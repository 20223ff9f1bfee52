"""Radio energy models: joules, time per radio state and joules per megabyte from a
mobile host's packet trace."""

from wwanlab.energy.model import (
    MODELS,
    EnergyReport,
    RadioModel,
    TailStage,
    account,
    get_model,
)

__all__ = ["MODELS", "EnergyReport", "RadioModel", "TailStage", "account", "get_model"]
