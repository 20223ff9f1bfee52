"""The sans-IO contract and the small types every protocol shares."""

from wwanlab.core.address import Address
from wwanlab.core.contract import Endpoint
from wwanlab.core.errors import UsageError, WwanlabError
from wwanlab.core.events import Event
from wwanlab.core.rng import RngStreams, derive_seed

__all__ = [
    "Address",
    "Endpoint",
    "Event",
    "RngStreams",
    "UsageError",
    "WwanlabError",
    "derive_seed",
]
