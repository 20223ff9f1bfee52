"""Channel and link models shared by the simulator and the real-time emulator.

A ``Direction`` is a pipeline of ``Stage`` objects: servers (``Rate``, ``ServiceTime``,
``TraceRate``, optionally inside a ``DropTailQueue``), delays, losses and link-layer ARQ,
or a whole GPRS radio direction (``GprsRadioStage``).
Named links from the papers are in ``wwanlab.link.presets``.
"""

from wwanlab.link.arq import LinkArq
from wwanlab.link.base import Direction, Drop, Stage, Verdict
from wwanlab.link.delay import (
    ConstantDelay,
    DelayDistribution,
    DelaySum,
    ExponentialDelay,
    HistogramDelay,
    TruncatedNormalDelay,
    UniformDelay,
)
from wwanlab.link.fec import BlockFec
from wwanlab.link.gprs_radio import GprsRadioStage, Outages, RadioModel
from wwanlab.link.loss import BernoulliLoss, GilbertElliott, OnOffLoss, TraceLoss
from wwanlab.link.queue import DropTailQueue
from wwanlab.link.rate import Rate, ServiceTime, TraceRate

__all__ = [
    "BernoulliLoss",
    "BlockFec",
    "ConstantDelay",
    "DelayDistribution",
    "DelaySum",
    "Direction",
    "Drop",
    "DropTailQueue",
    "ExponentialDelay",
    "GilbertElliott",
    "GprsRadioStage",
    "HistogramDelay",
    "LinkArq",
    "OnOffLoss",
    "Outages",
    "RadioModel",
    "Rate",
    "ServiceTime",
    "Stage",
    "TraceLoss",
    "TraceRate",
    "TruncatedNormalDelay",
    "UniformDelay",
    "Verdict",
]
