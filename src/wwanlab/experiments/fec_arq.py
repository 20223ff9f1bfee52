"""The FEC vs ARQ study of paper 003 section 4.4 (Figures 6 and 7) over ``link.rlc``.

Figure 6 (4.4.1): the download latency of a large file over RLC acknowledged mode
(FEC + ARQ) against the amount of FEC, 0-40%, for six channel conditions, normalized
"with respect to the experiment with the best channel condition and no FEC".
Figure 7 (4.4.2): the loss a streaming application sees at full link utilization with
ARQ disabled (FEC only), against FEC 0-30%.

As in the paper, every amount of FEC is applied to the same channel: one run is one
synthesized slot trace (one channel condition, one seed) replayed under every FEC
level. Each figure is one scenario of the experiments machinery: sweep over the slot
error rates, ``REPETITIONS`` seeds each, tidy rows with one row per FEC level.
``normalize`` pairs each repetition with the same repetition of the best channel without
FEC, so that cell is exactly 1.0; ``optimum`` gives the measured best FEC per channel
and the latency it saves. The paper's figures did not survive extraction: its stated
numbers are ``PAPER_STATEMENTS``, each with its section.

Every parameter is the paper's or 3GPP's (cited beside it in ``link.rlc`` and here);
the rest is in ``ASSUMPTIONS``.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from wwanlab.core.errors import UsageError
from wwanlab.experiments.scenario import Parameter, Row, Scenario, experiment_kind
from wwanlab.experiments.summary import Summary, relative_gain, summarize
from wwanlab.link.rlc import (
    ARQ_ROUND_TRIP,
    BLOCK_PERIOD,
    CODING_SCHEMES,
    DEFAULT_CODING,
    MEAN_BURST_SLOTS,
    PAPER_SLOT_ERRORS,
    TIMESLOTS,
    WINDOW_SIZE,
    BlockSource,
    GilbertChannel,
    coding_scheme,
    data_blocks,
    effective_rate,
    load_slot_trace,
    redundant_slots,
    rlc_download,
    stream_loss,
)
from wwanlab.report.plots import DPI, SIZE, save

DOWNLOAD_KIND = "fec-arq-download"
STREAM_KIND = "fec-arq-stream"
SEED = 3  # paper 003

REPETITIONS = 20  # paper 003 3: "all experiments were repeated 20 or more times"
FILE_BYTES = 100_000  # 4.4.1 "a large data file": Table 2's largest file, 100 KB
LATENCY_FEC_MAX = 40  # Figure 6: FEC % axis 0..40
STREAM_FEC_MAX = 30  # Figure 7: FEC % axis 0..30
STREAM_SECONDS = 60.0  # assumed: a minute of streaming per repetition
LIMIT_FACTOR = 10  # assumed: a download that needs over 10x its error-free time stops
QUICK_FEC_STEP = 4  # --quick: every fourth FEC level (0, 4, ..., 40)

ASSUMPTIONS = [
    "Slot-error traces are synthesized, not recorded: the paper's testbed traces are not"
    " published. Each channel is a Gilbert chain (error-free good state, bad state"
    " corrupting every slot) with the legend's slot error rate and a mean burst of"
    f" {MEAN_BURST_SLOTS:g} slots, about the length of a Viterbi error event of GPRS's"
    " constraint-length 5 code (3GPP TS 45.003 5.1) at 2.68 bits per CS-2 slot. Real"
    " traces load with link.rlc.load_slot_trace.",
    "FEC is an ideal erasure code: a block with r redundant slots is recovered when at"
    " most r slots are corrupted. Block headers are never lost (the paper's footnote 1"
    " drops blocks with corrupted headers).",
    "RLC acknowledged mode: selective repeat, window 64 (3GPP TS 44.060 9), resends"
    " before new blocks, the outcome of each block known one ARQ round trip after it:"
    f" {ARQ_ROUND_TRIP * 1000:.0f} ms, the longest reserved block period of a polled"
    " Packet Downlink Ack/Nack (TS 44.060 10.4.5, RRBP = 3). A resend meets the channel"
    " of its own opportunity (the next block of the trace).",
    f"The link is CS-2 on {TIMESLOTS} downlink timeslots (paper 003 3: '3+1' phone), one"
    f" block per timeslot every {BLOCK_PERIOD * 1000:.0f} ms (3GPP TS 45.002); all slot"
    " error rates apply to CS-2 blocks (no model maps C/I to the other schemes' errors).",
    f"The large file is {FILE_BYTES // 1000} KB, the largest of the paper's Table 2;"
    " latency is the time until the receiver holds every block (no TCP above RLC).",
    f"A download needing more than {LIMIT_FACTOR} times its error-free number of blocks"
    " is stopped and counted as incomplete (the paper's Figure 6 axis ends at 2).",
    f"Figure 7's loss is the fraction of RLC blocks lost over {STREAM_SECONDS:g} s of"
    " streaming with every block carrying data ('data loss rate').",
]


@dataclass(frozen=True)
class PaperStatement:
    """A number or finding the paper states about Figures 6-7, with where it says it."""

    key: str
    where: str
    quote: str
    slot_error: float | None = None
    fec_percent: tuple[float, float] | None = None
    percent: float | None = None
    seconds: tuple[float, float] | None = None


PAPER_STATEMENTS = (
    PaperStatement(
        "optimum-0.9",
        "paper 003 4.4.1 (Figure 6)",
        "with an error rate of 0.9% on the GPRS channel, 5-6% FEC is the optimal choice"
        " to minimize download times",
        slot_error=0.009,
        fec_percent=(5, 6),
    ),
    PaperStatement(
        "reduction-0.9",
        "paper 003 4.4.1 (Figure 6)",
        "By doing so, the data latency reduces by about 21.9%",
        slot_error=0.009,
        percent=21.9,
    ),
    PaperStatement(
        "reduction-0.2",
        "paper 003 4.4.1 (Figure 6)",
        "In a better channel (say with 0.2% error rate) the corresponding benefit is about 5%",
        slot_error=0.002,
        percent=5.0,
    ),
    PaperStatement(
        "optimum-grows",
        "paper 003 4.4.1 (Figure 6)",
        "The amount of required FEC for such optimal performance increases with increase"
        " in channel error rates",
    ),
    PaperStatement(
        "summary-0.2",
        "paper 003 4.5",
        "a reasonably good wireless link, (error less than 0.2%) where dynamic FECs provide"
        " a latency improvement of upto 5%",
        slot_error=0.002,
        percent=5.0,
    ),
    PaperStatement(
        "stream-low-fec",
        "paper 003 4.4.2 (Figure 7)",
        "even a low amount of FEC is sufficient to obtain a low loss performance for"
        " streaming applications",
    ),
    PaperStatement(
        "stream-0.9",
        "paper 003 4.4.2 (Figure 7)",
        "when the channel error rate is 0.9%, 5-6% FEC is useful to eliminate most of the"
        " channel errors",
        slot_error=0.009,
        fec_percent=(5, 6),
    ),
    PaperStatement(
        "arq-jitter",
        "paper 003 4.4.2",
        "use of ARQ schemes for data recovery incurs a high jitter on traffic - it can vary"
        " between 600 ms to 3 seconds depending on the number of re-transmissions attempted",
        seconds=(0.6, 3.0),
    ),
)

_COMMON = {
    "link.slot_error": Parameter(float, minimum=0.0, maximum=0.5),
    "link.trace": Parameter(str),
    "link.mean_burst": Parameter(float, minimum=1.0),
    "link.coding": Parameter(str, choices=tuple(CODING_SCHEMES)),
    "link.timeslots": Parameter(int, minimum=1, maximum=8),
    "params.fec_step": Parameter(int, minimum=1, maximum=10),
}


def _channel(params: Mapping[str, Any], seed: int) -> BlockSource:
    """A synthesized channel of ``link.slot_error``, or the slot trace file
    ``link.trace`` read from a block drawn from ``seed`` (so repetitions differ)."""
    rng = random.Random(seed)
    if ("link.trace" in params) == ("link.slot_error" in params):
        raise UsageError("give exactly one of link.slot_error and link.trace")
    if "link.trace" in params:
        trace = load_slot_trace(str(params["link.trace"]))
        return trace.rotated(rng.randrange(len(trace)))
    return GilbertChannel(
        float(params["link.slot_error"]),
        rng,
        mean_burst=float(params.get("link.mean_burst", MEAN_BURST_SLOTS)),
        coding=str(params.get("link.coding", DEFAULT_CODING)),
    )


def _fec_levels(params: Mapping[str, Any], top: int) -> range:
    return range(0, top + 1, int(params.get("params.fec_step", 1)))


def download_rows(
    channel: BlockSource,
    *,
    coding: str | None = None,
    timeslots: int = TIMESLOTS,
    size: int = FILE_BYTES,
    fec_levels: Iterable[int] = range(LATENCY_FEC_MAX + 1),
) -> list[Row]:
    """A row per FEC level: the RLC download of ``size`` octets over ``channel`` (a
    synthesized channel or a loaded ``SlotTrace``), its latency and ARQ counters;
    ``coding`` defaults to the channel's."""
    scheme = coding_scheme(coding or channel.coding)
    opportunity = BLOCK_PERIOD / timeslots
    feedback = math.ceil(ARQ_ROUND_TRIP / opportunity - 1e-9)
    rows: list[Row] = []
    for fec in fec_levels:
        r = redundant_slots(fec, channel.slots)
        blocks = data_blocks(size, scheme, r, channel.slots)
        result = rlc_download(
            channel, blocks, r, feedback=feedback, window=WINDOW_SIZE, limit=LIMIT_FACTOR * blocks
        )
        rows.append(
            {
                "fec_percent": fec,
                "complete": result.complete,
                "latency_s": result.opportunities * opportunity if result.complete else None,
                "blocks": blocks,
                "transmissions": result.transmissions,
                "block_error": 1 - blocks / result.transmissions if result.complete else None,
                "resent_blocks": result.resent,
                "max_resend_delay_s": result.max_resend_delay * opportunity,
                "rate_bps": effective_rate(scheme, fec, timeslots=timeslots, slots=channel.slots),
            }
        )
    return rows


def stream_rows(
    channel: BlockSource,
    *,
    timeslots: int = TIMESLOTS,
    seconds: float = STREAM_SECONDS,
    fec_levels: Iterable[int] = range(STREAM_FEC_MAX + 1),
) -> list[Row]:
    """A row per FEC level: the share of blocks lost over ``channel`` without ARQ when
    every opportunity of ``seconds`` carries data."""
    blocks = max(1, round(seconds / BLOCK_PERIOD * timeslots))
    return [
        {
            "fec_percent": fec,
            "blocks": blocks,
            "loss_percent": 100
            * stream_loss(channel, blocks, redundant_slots(fec, channel.slots))
            / blocks,
        }
        for fec in fec_levels
    ]


@experiment_kind(
    DOWNLOAD_KIND,
    {**_COMMON, "workload.file_bytes": Parameter(int, minimum=1, maximum=100_000_000)},
)
def download_run(params: dict[str, Any], seed: int) -> list[Row]:
    """One channel (seeded) under every FEC level of Figure 6."""
    channel = _channel(params, seed)
    return download_rows(
        channel,
        coding=str(params.get("link.coding", channel.coding)),
        timeslots=int(params.get("link.timeslots", TIMESLOTS)),
        size=int(params.get("workload.file_bytes", FILE_BYTES)),
        fec_levels=_fec_levels(params, LATENCY_FEC_MAX),
    )


@experiment_kind(STREAM_KIND, _COMMON)
def stream_run(params: dict[str, Any], seed: int) -> list[Row]:
    """One channel (seeded) under every FEC level of Figure 7."""
    return stream_rows(
        _channel(params, seed),
        timeslots=int(params.get("link.timeslots", TIMESLOTS)),
        fec_levels=_fec_levels(params, STREAM_FEC_MAX),
    )


def _scenario(kind: str, figure: int, quick: bool) -> Scenario:
    return Scenario(
        name=f"fec_arq_figure{figure}{'_quick' if quick else ''}",
        kind=kind,
        params={"params.fec_step": QUICK_FEC_STEP if quick else 1},
        sweep={"link.slot_error": list(PAPER_SLOT_ERRORS)},
        repetitions=REPETITIONS,
        seed=SEED,
        description=f"Paper 003 Figure {figure}: FEC vs ARQ over GPRS RLC (trace-driven)",
    )


def download_scenario(quick: bool = False) -> Scenario:
    """Figure 6: every channel condition, ``REPETITIONS`` channels each."""
    return _scenario(DOWNLOAD_KIND, 6, quick)


def stream_scenario(quick: bool = False) -> Scenario:
    """Figure 7: every channel condition, ``REPETITIONS`` channels each."""
    return _scenario(STREAM_KIND, 7, quick)


def with_mean_burst(scenario: Scenario, mean_burst: float) -> Scenario:
    """``scenario`` with only its channels' mean burst of corrupted slots changed: same
    error rates, FEC levels, repetitions and scenario seed. Its name is its own, so its
    channels are fresh draws (run seeds derive from the name)."""
    return dataclasses.replace(
        scenario,
        name=f"{scenario.name}_burst{mean_burst:g}".replace(".", "_"),
        params={**scenario.params, "link.mean_burst": mean_burst},
        description=f"{scenario.description}, mean burst {mean_burst:g} slots",
    )


def normalize(rows: Sequence[Row]) -> list[Row]:
    """``rows`` with ``normalized_latency``: each latency over the same repetition's
    latency on the best channel (lowest slot error) without FEC (NaN when either did
    not complete)."""
    best = min(float(row["link.slot_error"]) for row in rows)
    reference = {
        row["repetition"]: row["latency_s"]
        for row in rows
        if row["link.slot_error"] == best and row["fec_percent"] == 0
    }
    out: list[Row] = []
    for row in rows:
        ref = reference.get(row["repetition"])
        latency = row["latency_s"]
        ratio = latency / ref if row["complete"] and ref else math.nan
        out.append({**row, "normalized_latency": ratio})
    return out


Cells = dict[tuple[float, int], Summary]
"""Per (slot error, FEC %): a summary over the repetitions."""


def _cells(groups: Mapping[tuple[object, ...], Summary]) -> Cells:
    out: Cells = {}
    for (error, fec), summary in groups.items():
        assert isinstance(error, float) and isinstance(fec, int)
        out[(error, fec)] = summary
    return out


def latency_cells(rows: Sequence[Row]) -> Cells:
    """Figure 6's points: mean normalized latency over completed downloads."""
    return _cells(
        summarize(
            normalize(rows),
            by=("link.slot_error", "fec_percent"),
            value="normalized_latency",
            complete="complete",
            means=("block_error", "max_resend_delay_s"),
        )
    )


def loss_cells(rows: Sequence[Row]) -> Cells:
    """Figure 7's points: mean loss percent."""
    return _cells(summarize(rows, by=("link.slot_error", "fec_percent"), value="loss_percent"))


@dataclass(frozen=True)
class Optimum:
    """The FEC that minimized a channel's download latency, and what it saved."""

    slot_error: float
    fec_percent: int
    normalized: float
    reduction_percent: float  # against no FEC on the same channel; NaN if that failed
    half_width: float  # of the reduction, 95%


def optimum(cells: Cells) -> dict[float, Optimum]:
    """Per slot error: the FEC level of least mean latency among those where every
    download completed, and the latency reduction against no FEC."""
    out: dict[float, Optimum] = {}
    for error in sorted({e for e, _ in cells}, reverse=True):
        row = {f: s for (e, f), s in cells.items() if e == error and s.failed == 0}
        if not row:
            continue
        fec = min(row, key=lambda f: (row[f].mean, f))
        zero = row.get(0)
        if zero is None:
            reduction, half = math.nan, math.nan
        else:
            gain = relative_gain(row[fec], zero)
            reduction, half = 0.0 - gain.percent, gain.half_width
        out[error] = Optimum(error, fec, row[fec].mean, reduction, half)
    return out


def lowest_fec(cells: Cells, slot_error: float, loss_percent: float) -> int | None:
    """The least FEC % whose mean loss on ``slot_error`` is at most ``loss_percent``."""
    levels = sorted(f for (e, f), s in cells.items() if e == slot_error and s.mean <= loss_percent)
    return levels[0] if levels else None


# One colour per channel condition, the same in both figures (worst channel darkest).
ERROR_COLOURS = dict(
    zip(
        PAPER_SLOT_ERRORS,
        ("tab:red", "tab:orange", "tab:olive", "tab:green", "tab:blue", "tab:purple"),
        strict=True,
    )
)


def _error_label(error: float) -> str:
    return f"Error = {100 * error:.3g}%"


def _plot(
    cells: Cells,
    path: Path | str,
    *,
    ylabel: str,
    title: str,
    bottom: float,
    top: float | None = None,
) -> Path:
    fig = Figure(figsize=SIZE, dpi=DPI)
    ax = fig.add_subplot()
    for error in sorted({e for e, _ in cells}, reverse=True):
        points = sorted((f, s) for (e, f), s in cells.items() if e == error and s.n > 0)
        xs = [f for f, _ in points]
        ys = [s.mean for _, s in points]
        err = [0.0 if math.isnan(s.half_width) else s.half_width for _, s in points]
        ax.errorbar(
            xs,
            ys,
            yerr=err,
            marker="o",
            markersize=3,
            capsize=2,
            color=ERROR_COLOURS.get(error),
            label=_error_label(error),
        )
    ax.set_xlabel("FEC %")
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=bottom, top=top)
    ax.grid(True, alpha=0.3)
    ax.set_title(title)
    ax.legend(fontsize=7)
    return save(fig, path)


def latency_plot(cells: Cells, path: Path | str, *, top: float | None = 2.0) -> Path:
    """Figure 6: normalized download latency against FEC %, a line per channel (points
    only where every download completed; bars are 95% intervals). The y axis ends at
    ``top``, 2 as the paper's does (None: fit every point)."""
    complete = {k: s for k, s in cells.items() if s.failed == 0}
    return _plot(
        complete,
        path,
        ylabel="normalized download latency",
        title="Dynamic link-layer FEC + ARQ: download latency (ours)",
        bottom=0.95,
        top=top,
    )


def loss_plot(cells: Cells, path: Path | str) -> Path:
    """Figure 7: loss seen by a streaming application against FEC %, a line per channel."""
    return _plot(
        cells,
        path,
        ylabel="loss %",
        title="Streaming with FEC only, full GPRS link utilization (ours)",
        bottom=0.0,
    )
