"""A busy GPRS cell that emerges from its users: traffic sources and a block scheduler.

Paper 002 (section III) gives its busy cell's radio only as outcomes (section IV: PER
2.3%, IP-packet delays of 800-2000 ms) of a cell it simulated elsewhere: 15 users on 4
PDCHs with coding scheme CS-2 at C/I 24 dB, 50% e-mail (a Funet-style model), 30% WWW
and 20% FTP (the ETSI models), with Table 1's rates. This module builds that cell:

- **sources** draw each user's downlink traffic as (arrival time, octets) at the BSS;
- **the scheduler** shares the PDCHs: time runs in radio blocks of ``BLOCK_PERIOD``,
  each PDCH carries ``RLC_PAYLOAD`` octets of one user's queue per block, the PDCHs of
  a block go round-robin over the users with data (one user alone gets all four, as
  paper 002 V.1's "12 Kbits/s x 4 PDCHs" for one user), and a block lost to radio
  errors (``bler``) is sent again at that user's next turn (RLC acknowledged mode);
- **the measure** is every FTP packet's service time (from reaching the head of its
  user's queue to the end of the block that carried its last octet) and its sojourn
  (from arrival). The service time is what the gprs-proxies network's radio stage
  draws per packet (``ServiceTime``), so ``histogram_of`` turns it into a
  ``HistogramDelay`` for the ``busy-emergent`` cell.

Load makes loss and access delay too: a bounded per-user **BSS buffer** discards what
does not fit (the FTP files then run under a Reno window that halves on a discard), and
**uplink access** puts every ACK burst through slotted-ALOHA random access with Table 1's
grant time-outs (``random_access``).

Everything the paper leaves open is a constant below marked "assumed" and listed in
``ASSUMPTIONS``; nothing here is tuned toward the paper's 800-2000 ms.
"""

import functools
import heapq
import math
import random
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from wwanlab.core.errors import UsageError
from wwanlab.link import checks
from wwanlab.link.delay import HistogramDelay

# --- the radio (paper 002 III, V.1; 3GPP TS 44.060) ------------------------------------
PDCHS = 4  # paper 002 III: "a GPRS radio link with 4 PDCHs"
BLOCK_PERIOD = 0.020  # s: 12 radio blocks per 240 ms 52-multiframe (3GPP TS 45.002)
CS2_RATE_BPS = 12_000  # paper 002 V.1: "12 Kbits/s x 4 PDCHs" (LLC rate per PDCH, CS-2)
RLC_PAYLOAD = CS2_RATE_BPS * BLOCK_PERIOD / 8  # 30 octets: CS-2's RLC data block (TS 44.060)
BLER = 0.01  # assumed: CS-2 block error ratio at C/I 24 dB (see ASSUMPTIONS)
LLC_OVERHEAD = 10  # octets per IP packet: LLC address 1 + control 2 + FCS 3 (3GPP TS 44.064),
# SNDCP SN-UNITDATA header 4 (3GPP TS 44.065), one frame per IP packet
IP_TCP_HEADERS = 40  # IPv4 + TCP without options
GB_BPS = 64_000  # paper 002 III: the SGSN-BSS link, 64 Kbps, over which data reaches the BSS

# --- the users (paper 002 III and Table 1) ----------------------------------------------
USERS = 15  # paper 002 III: "a busy radio interface with 15 users present in it"
EMAIL_USERS, WWW_USERS, FTP_USERS = 8, 4, 3  # 50/30/20% of 15: see ASSUMPTIONS
HOUR = 3600.0
EMAIL_PER_HOUR = 5.0  # Table 1: "E-Mail generation frequency 5 messag./hour"
EMAIL_MEAN_OCTETS = 10_000  # assumed: the paper names the Funet model, gives no size
WWW_SESSIONS_PER_HOUR = 3.0  # Table 1: "WWW pages generation frequency 3 bursts/hour"
WWW_PAGES_PER_SESSION = 5.0  # Table 1: "Number of WWW pages per burst 5 pages/burst"
WWW_READING_TIME = 412.0  # s, Table 1: "Time between WWW pages 412 sec"
WWW_DATAGRAMS_PER_PAGE = 25.0  # Table 1: "Number of frames per WWW page 25 frames/page"
WWW_DATAGRAM_GAP = 0.125  # s, Table 1: "Time between WWW frames 0.125 sec"
WWW_PARETO_ALPHA = 1.1  # UMTS 30.03 Annex B: datagram size, Pareto with cut-off
WWW_PARETO_K = 81.5  # octets, UMTS 30.03 Annex B
WWW_PARETO_M = 66_666  # octets, UMTS 30.03 Annex B (the cut-off)
FTP_PER_HOUR = 6.0  # Table 1: "FTP burst generation frequency 6 bursts/hour"
FTP_FILE = 512 * 1024  # octets: paper 002 III's own FTP file, "512 Kbytes" (see ASSUMPTIONS)
FTP_MSS = 430  # Table 1: TCP MSS 430 bytes
MTU_PAYLOAD = 1500 - IP_TCP_HEADERS  # e-mail and WWW data in IP packets of 1500 octets

# --- load: bounded BSS buffers and TCP's answer to them ------------------------------------
# Per-user BSS buffer (octets of LLC frames), a band: the paper gives none and we found no
# published value of the era; from about 1.4 s of a lone user's 48 kbit/s to the 64 KB a
# TCP receive window lets one connection put in flight (assumed ends).
BSS_BUFFER_BAND = (8 * 1024, 64 * 1024)
RECEIVE_WINDOW = 65535  # octets: the FTP receiver's window without scaling (RFC 7323)
ACK_RETURN = 0.2  # s: a delivered packet's ACK reaches the FTP server two Internet
# delays later (Table 1: mean 100 ms each way); the uplink's own time is not counted
INITIAL_WINDOW = 2  # packets: RFC 2581 3.1's upper bound, the era's initial window

# Every uplink burst (here: a TCP ACK, one per two frames delivered, RFC 1122 4.2.3.2) needs
# an uplink TBF, which the mobile asks for by a channel request on the (P)RACH: slotted
# ALOHA (3GPP TS 44.018 3.3.1.1, TS 44.060 7.1.2.1). Table 1: "PRACH blocks 0; 6" read as
# BS_PRACH_BLKS (TS 44.060 12.24): 6 PRACH blocks per 52-multiframe on the PCCCH, 4 access
# bursts each (TS 45.002 6.3.2.2); with 0 the mobile uses the CCCH's RACH, one access
# burst per TDMA frame of the 51-multiframe (TS 45.002 7, non-combined CCCH).
TDMA_FRAME = 0.120 / 26  # s, TS 45.002 4.3.3
PRACH_BLOCKS = (0, 6)  # Table 1
ACCESS_SLOTS = {0: (51, 51 * TDMA_FRAME), 6: (6 * 4, 52 * TDMA_FRAME)}  # per multiframe
TX_INTEGER = 10  # assumed: slots over which a (re)try is spread (TS 44.018 10.5.2.29, 3-50)
AGN_WAIT = 0.1  # s, Table 1: "Max. time waiting for an AGN (access grant notification)"
ACCESS_BUDGET = 0.3  # s, Table 1: "Max. time waiting for random access attempts per frame"
GRANT_DELAY = BLOCK_PERIOD  # assumed: a request that got through is granted in the next block

CELL_HOURS = 2.0  # h of cell time simulated per seed (assumed: ~100 FTP files, ~10^5 packets)
WARM_UP = 600.0  # s before packets count: the cell starts empty

ASSUMPTIONS = [
    f"Users: 15 (paper) as {EMAIL_USERS} e-mail, {WWW_USERS} WWW, {FTP_USERS} FTP: 50/30/20% "
    "of 15 is 7.5/4.5/3, rounded by largest remainder with the tie going to the type the "
    "paper lists first (e-mail).",
    f"Radio: {PDCHS} PDCHs (paper), radio blocks of {BLOCK_PERIOD * 1000:.0f} ms (3GPP TS "
    f"45.002: 12 blocks per 240 ms multiframe), {RLC_PAYLOAD:.0f} octets of LLC data per "
    "CS-2 block (paper V.1's 12 kbit/s per PDCH; 3GPP TS 44.060's CS-2 RLC data block). "
    "Every mobile may use all 4 PDCHs (paper V.1: one user gets 12 kbit/s x 4).",
    f"Block errors: independent per block with BLER {BLER:.0%} at C/I 24 dB, chosen once: "
    "3GPP TR 05.50 Annex P publishes CS-2's BLER against C/I, which we could not read "
    "here; a lost block is resent at the user's next turn (RLC acknowledged mode, paper "
    "V.1: 'retransmissions of RLC data blocks'), with no wait for the RLC acknowledgement. "
    "So the radio itself loses no IP packet: the busy-emergent cell keeps the paper's PER.",
    "Scheduler: round-robin over the users with queued data, PDCH by PDCH in every block; "
    "a block carries one user's octets, across LLC frame boundaries; data that arrives "
    "during a block waits for the next one. Only downlink traffic is modelled.",
    f"LLC frames: one per IP packet, {LLC_OVERHEAD} octets of LLC and SNDCP overhead "
    "(TS 44.064, TS 44.065); no header compression.",
    f"E-mail (Funet-style): Poisson arrivals, {EMAIL_PER_HOUR:g} messages/h (Table 1); the "
    f"message size, which the paper does not give, exponential with mean "
    f"{EMAIL_MEAN_OCTETS} octets (assumed), sent as 1500-octet IP packets.",
    f"WWW (ETSI UMTS 30.03): Poisson session arrivals, {WWW_SESSIONS_PER_HOUR:g}/h; "
    f"geometric pages per session (mean {WWW_PAGES_PER_SESSION:g}) and datagrams per page "
    f"(mean {WWW_DATAGRAMS_PER_PAGE:g}); exponential reading time (mean "
    f"{WWW_READING_TIME:g} s) and datagram gap (mean {WWW_DATAGRAM_GAP} s), all Table 1; "
    f"datagram size Pareto (alpha {WWW_PARETO_ALPHA}, k {WWW_PARETO_K} octets, cut at "
    f"{WWW_PARETO_M}) as UMTS 30.03 gives it, one datagram arriving at once.",
    f"FTP (ETSI): Poisson file arrivals, {FTP_PER_HOUR:g}/h (Table 1); the file size, which "
    f"the paper does not give for the cell, is its own end-to-end file ({FTP_FILE} octets, "
    f"section III), in {FTP_MSS}-octet segments arriving at the BSS at the SGSN-BSS link's "
    f"{GB_BPS // 1000} kbit/s (section III); no TCP feedback inside the cell.",
    f"BSS buffer per user: a band of {BSS_BUFFER_BAND[0] // 1024} to "
    f"{BSS_BUFFER_BAND[1] // 1024} KB of LLC frames (no value of the era found; see the "
    "constant). With a buffer, each FTP file goes under a Reno window (initial "
    f"{INITIAL_WINDOW} packets, receive window {RECEIVE_WINDOW} octets) that sees a "
    f"delivered packet's ACK {ACK_RETURN} s later and halves once per window when the "
    "buffer discards; e-mail and WWW stay open-loop. The PER is the FTP packets' "
    "discards over their arrivals at the BSS (resends included).",
    "Uplink access: every second delivered frame of a user makes an ACK burst that asks "
    "for an uplink TBF on the (P)RACH (slotted ALOHA, no capture), each try spread over "
    f"{TX_INTEGER} access slots (assumed), a collided try repeated after Table 1's "
    f"{AGN_WAIT} s AGN wait, the burst lost once {ACCESS_BUDGET} s of tries have passed "
    f"(Table 1); a request that got through is granted {GRANT_DELAY * 1000:.0f} ms later "
    "(assumed). Table 1's PRACH blocks 0 and 6 are both run.",
    f"Measure: {CELL_HOURS:g} h of cell time per seed after a {WARM_UP:.0f} s warm-up; an FTP "
    "packet's service time runs from the later of its arrival and its predecessor's "
    "completion to the end of the block carrying its last octet.",
]


# --- traffic sources ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Arrival:
    """``octets`` of LLC frames for ``user`` reach the BSS at ``t``; ``measured`` marks an
    FTP packet whose delay the cell records."""

    t: float
    user: int
    octets: int
    measured: bool = False
    file: bool = False  # the start of an FTP file sent under TCP's window (``octets``)


def poisson_times(rate_per_hour: float, horizon: float, rng: random.Random) -> Iterator[float]:
    t = rng.expovariate(rate_per_hour / HOUR)
    while t < horizon:
        yield t
        t += rng.expovariate(rate_per_hour / HOUR)


def geometric(mean: float, rng: random.Random) -> int:
    """A count on 1, 2, ... with the given mean (success probability 1/mean)."""
    p = 1.0 / mean
    if p >= 1.0:
        return 1
    return 1 + int(math.log(1.0 - rng.random()) / math.log(1.0 - p))


def frames(payload: int) -> int:
    """Octets on the radio for ``payload`` octets of application data in 1500-octet IP packets."""
    packets = max(1, -(-payload // MTU_PAYLOAD))
    return payload + packets * (IP_TCP_HEADERS + LLC_OVERHEAD)


def pareto_datagram(rng: random.Random) -> int:
    """A WWW datagram size: Pareto(alpha, k) with the sizes above ``m`` set to ``m``."""
    size = WWW_PARETO_K / (1.0 - rng.random()) ** (1.0 / WWW_PARETO_ALPHA)
    return int(min(size, WWW_PARETO_M))


def pareto_datagram_mean() -> float:
    """The cut-off Pareto's mean: the integral of its survival function up to ``m``."""
    a, k, m = WWW_PARETO_ALPHA, WWW_PARETO_K, WWW_PARETO_M
    return k + math.pow(k, a) * (math.pow(m, 1 - a) - math.pow(k, 1 - a)) / (1 - a)


def email_source(user: int, horizon: float, rng: random.Random) -> Iterator[Arrival]:
    for t in poisson_times(EMAIL_PER_HOUR, horizon, rng):
        size = max(1, round(rng.expovariate(1.0 / EMAIL_MEAN_OCTETS)))
        yield Arrival(t, user, frames(size))


def www_source(user: int, horizon: float, rng: random.Random) -> Iterator[Arrival]:
    for start in poisson_times(WWW_SESSIONS_PER_HOUR, horizon, rng):
        yield from _www_session(user, start, horizon, rng)


def _www_session(user: int, t: float, horizon: float, rng: random.Random) -> Iterator[Arrival]:
    """One session's pages, cut at the horizon where the cell's run ends."""
    for _ in range(geometric(WWW_PAGES_PER_SESSION, rng)):
        for _ in range(geometric(WWW_DATAGRAMS_PER_PAGE, rng)):
            if t >= horizon:
                return
            yield Arrival(t, user, frames(pareto_datagram(rng)))
            t += rng.expovariate(1.0 / WWW_DATAGRAM_GAP)
        t += rng.expovariate(1.0 / WWW_READING_TIME)


def ftp_packets(size: int = FTP_FILE) -> list[int]:
    """The file's IP packets (octets), MSS-sized but the last."""
    full, rest = divmod(size, FTP_MSS)
    return [FTP_MSS + IP_TCP_HEADERS] * full + ([rest + IP_TCP_HEADERS] if rest else [])


def ftp_source(user: int, horizon: float, rng: random.Random) -> Iterator[Arrival]:
    packets = ftp_packets()
    for start in poisson_times(FTP_PER_HOUR, horizon, rng):
        t = start
        for size in packets:
            t += size * 8 / GB_BPS  # the packet has crossed the SGSN-BSS link
            yield Arrival(t, user, size + LLC_OVERHEAD, measured=True)


def ftp_files(user: int, horizon: float, rng: random.Random) -> Iterator[Arrival]:
    """The FTP files' starts, for a scheduler that sends them under TCP's window."""
    for start in poisson_times(FTP_PER_HOUR, horizon, rng):
        yield Arrival(start, user, FTP_FILE, measured=True, file=True)


def busy_cell_arrivals(
    horizon: float, rng: random.Random, *, closed_loop: bool = False
) -> list[Arrival]:
    """Every user's arrivals up to ``horizon``, in time order; users 0.. are e-mail, then
    WWW, then FTP, each drawing from its own stream of ``rng``. ``closed_loop`` gives
    the FTP users' file starts (``ftp_files``) instead of their packets."""
    ftp = ftp_files if closed_loop else ftp_source
    kinds = [email_source] * EMAIL_USERS + [www_source] * WWW_USERS + [ftp] * FTP_USERS
    out: list[Arrival] = []
    for user, source in enumerate(kinds):
        out.extend(source(user, horizon, random.Random(rng.getrandbits(64))))
    out.sort(key=lambda a: (a.t, a.user))
    return out


# --- the block scheduler ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PacketDelay:
    """One measured packet: when it arrived, its service time and its sojourn (seconds)."""

    arrival: float
    service: float
    sojourn: float


@dataclass
class CellStats:
    """What a run of the cell measured."""

    delays: list[PacketDelay] = field(default_factory=list)
    blocks: int = 0  # blocks carrying data (lost ones included)
    lost_blocks: int = 0
    periods: int = 0  # block periods with at least one user backlogged
    end: float = 0.0  # s: when the last block ended
    blocks_per_second: float = PDCHS / BLOCK_PERIOD  # the cell's capacity in blocks
    offered: int = 0  # measured packets that reached the BSS (resends included)
    discarded: int = 0  # of them, discarded by a full BSS buffer
    deliveries: list[tuple[float, int]] = field(default_factory=list)  # (time, user), frames

    @property
    def per(self) -> float:
        """The share of measured IP packets the BSS discarded."""
        return self.discarded / self.offered if self.offered else 0.0

    @property
    def utilisation(self) -> float:
        """The share of all PDCH blocks up to ``end`` that carried data."""
        return self.blocks / (self.end * self.blocks_per_second) if self.end else 0.0

    def services(self) -> list[float]:
        return [d.service for d in self.delays]


@dataclass
class _Frame:
    arrival: float
    left: int  # octets not yet carried by a delivered block
    measured: bool


class _Sender:
    """An FTP server's Reno window over one user's BSS buffer (packets, not octets):
    slow start then one packet per window, halved once per window of a discard."""

    def __init__(self) -> None:
        self.pending: deque[int] = deque()  # octets of the packets not yet sent
        self.cwnd = float(INITIAL_WINDOW)
        self.ssthresh = RECEIVE_WINDOW / (FTP_MSS + IP_TCP_HEADERS)
        self.inflight = 0
        self.sent = 0
        self.recover = 0  # no second cut until the packets sent before a cut are out
        self.gb_free = 0.0  # when the SGSN-BSS link can carry the next packet

    def start(self, size: int) -> None:
        self.pending.extend(ftp_packets(size))

    def release(self, now: float, user: int) -> Iterator[Arrival]:
        window = min(self.cwnd, RECEIVE_WINDOW / (FTP_MSS + IP_TCP_HEADERS))
        while self.pending and self.inflight < int(window):
            size = self.pending.popleft()
            self.gb_free = max(now, self.gb_free) + size * 8 / GB_BPS
            self.inflight += 1
            self.sent += 1
            yield Arrival(self.gb_free, user, size + LLC_OVERHEAD, measured=True)

    def acked(self) -> None:
        self.inflight -= 1
        self.cwnd += 1.0 if self.cwnd < self.ssthresh else 1.0 / self.cwnd

    def discarded(self, octets: int) -> None:
        self.inflight -= 1
        self.pending.appendleft(octets - LLC_OVERHEAD)  # sent again (after fast retransmit)
        if self.sent > self.recover:
            self.ssthresh = max(self.cwnd / 2, 2.0)
            self.cwnd = self.ssthresh
            self.recover = self.sent


class BlockScheduler:
    """Round-robin of the PDCHs' radio blocks over the users with queued LLC frames.

    ``buffer`` bounds each user's queue at the BSS (octets): a frame that does not fit is
    discarded. File starts (``Arrival.file``) are sent by a ``_Sender`` that sees its
    delivered packets ``ACK_RETURN`` later and its discards at once (as three duplicate
    ACKs would tell it, a little later)."""

    def __init__(
        self,
        *,
        pdchs: int = PDCHS,
        period: float = BLOCK_PERIOD,
        payload: float = RLC_PAYLOAD,
        bler: float = BLER,
        count_after: float = 0.0,
        buffer: int | None = None,
    ) -> None:
        self.pdchs = checks.count("pdchs", pdchs, minimum=1)
        self.period = checks.positive("period", period)
        self.payload = int(checks.positive("payload", payload))
        self.bler = checks.probability("bler", bler)
        if self.bler == 1.0:
            raise UsageError("bler must be below 1: no block would ever get through")
        self.count_after = count_after
        self.buffer = None if buffer is None else checks.count("buffer", buffer, minimum=1)

    def run(self, arrivals: Sequence[Arrival], rng: random.Random) -> CellStats:
        """Serve ``arrivals`` (in time order) until every queue is empty."""
        stats = CellStats(blocks_per_second=self.pdchs / self.period)
        queues: dict[int, deque[_Frame]] = {}
        queued: dict[int, int] = {}  # user -> octets in its queue
        free_since: dict[int, float] = {}  # user -> completion time of its last frame
        senders: dict[int, _Sender] = {}
        turn: deque[int] = deque()  # backlogged users, next to be served first
        heap = [(a.t, n, a) for n, a in enumerate(arrivals)]
        heapq.heapify(heap)
        serial = len(heap)
        returns: list[tuple[float, int]] = []  # (time, user) an ACK reaches the server
        k = 0  # index of the current block period

        def push(new: Iterator[Arrival]) -> None:
            nonlocal serial
            for a in new:
                heapq.heappush(heap, (a.t, serial, a))
                serial += 1

        while heap or turn or returns:
            if not turn:  # idle: jump to the block after the next arrival or ACK
                nxt = min(heap[0][0] if heap else math.inf, returns[0][0] if returns else math.inf)
                k = max(k, math.ceil(nxt / self.period - 1e-9))
            start = k * self.period
            while returns and returns[0][0] <= start + 1e-9:
                t, user = heapq.heappop(returns)
                senders[user].acked()
                push(senders[user].release(t, user))
            while heap and heap[0][0] <= start + 1e-9:
                a = heapq.heappop(heap)[2]
                if a.file:
                    sender = senders.setdefault(a.user, _Sender())
                    sender.start(a.octets)
                    push(sender.release(a.t, a.user))
                    continue
                if a.measured:
                    stats.offered += 1
                held = queued.get(a.user, 0)
                if self.buffer is not None and held + a.octets > self.buffer:
                    if a.measured:
                        stats.discarded += 1
                    if a.user in senders:
                        senders[a.user].discarded(a.octets)
                    continue
                queue = queues.setdefault(a.user, deque())
                if not queue:
                    turn.append(a.user)
                queue.append(_Frame(a.t, a.octets, a.measured))
                queued[a.user] = held + a.octets
            if not turn:
                continue
            stats.periods += 1
            end = start + self.period
            for _ in range(self.pdchs):
                if not turn:
                    break
                user = turn.popleft()
                stats.blocks += 1
                if rng.random() < self.bler:
                    stats.lost_blocks += 1
                else:
                    done = self._deliver(queues[user], user, free_since, end, stats)
                    queued[user] -= done[0]
                    for _ in range(done[1] if user in senders else 0):
                        heapq.heappush(returns, (end + ACK_RETURN, user))
                if queues[user]:
                    turn.append(user)
            k += 1
        stats.end = k * self.period
        return stats

    def _deliver(
        self,
        queue: deque[_Frame],
        user: int,
        free_since: dict[int, float],
        end: float,
        stats: CellStats,
    ) -> tuple[int, int]:
        """Carry one block of ``user``'s queue; return its octets and the measured frames
        it completed."""
        room = self.payload
        completed = 0
        while queue and room > 0:
            frame = queue[0]
            used = min(room, frame.left)
            frame.left -= used
            room -= used
            if frame.left:
                break
            queue.popleft()
            began = max(frame.arrival, free_since.get(user, -math.inf))
            # The next frame heads the queue from this block on if the block has room left
            # for its first octets, else from the next block.
            free_since[user] = end if room == 0 else end - self.period
            stats.deliveries.append((end, user))
            if frame.measured:
                completed += 1
                if frame.arrival >= self.count_after:
                    stats.delays.append(
                        PacketDelay(frame.arrival, end - began, end - frame.arrival)
                    )
        return self.payload - room, completed


def run_busy_cell(seed: int, hours: float = CELL_HOURS, buffer: int | None = None) -> CellStats:
    """Paper 002's busy cell for ``hours`` after the warm-up, drawn from ``seed``. With a
    ``buffer`` (octets per user at the BSS) the FTP files go under TCP's window, which the
    buffer's discards halve; without, they pour in at the Gb rate and nothing is lost."""
    rng = random.Random(seed)
    horizon = WARM_UP + hours * HOUR
    sources = random.Random(rng.getrandbits(64))
    arrivals = busy_cell_arrivals(horizon, sources, closed_loop=buffer is not None)
    return BlockScheduler(count_after=WARM_UP, buffer=buffer).run(arrivals, rng)


# --- uplink access (constants above) -----------------------------------------------------------


@dataclass
class AccessStats:
    """What uplink access cost the bursts: the delay until a grant, and the failures."""

    delays: list[float] = field(default_factory=list)
    failed: int = 0
    attempts: int = 0
    collisions: int = 0

    @property
    def failure_ratio(self) -> float:
        total = len(self.delays) + self.failed
        return self.failed / total if total else 0.0


def uplink_bursts(deliveries: Sequence[tuple[float, int]]) -> list[tuple[float, int]]:
    """One ACK burst per two frames delivered to a user (delayed ACKs), at the second."""
    count: dict[int, int] = {}
    out = []
    for t, user in sorted(deliveries):
        count[user] = count.get(user, 0) + 1
        if count[user] % 2 == 0:
            out.append((t, user))
    return out


def random_access(
    bursts: Sequence[tuple[float, int]], rng: random.Random, prach_blocks: int
) -> AccessStats:
    """Slotted ALOHA of ``bursts`` (time, user) over the access slots of ``prach_blocks``:
    each try picks one of the next ``TX_INTEGER`` slots; two tries in one slot both fail
    (no capture); a failed try is repeated ``AGN_WAIT`` later, unless that passes
    ``ACCESS_BUDGET`` from the first, when the burst is lost."""
    if prach_blocks not in ACCESS_SLOTS:
        raise UsageError(f"prach_blocks must be one of {sorted(ACCESS_SLOTS)}")
    per, span = ACCESS_SLOTS[prach_blocks]
    slot = span / per
    stats = AccessStats()
    tries: list[tuple[int, int, float]] = []  # (slot index, burst, first try's time)

    def schedule(t: float, burst: int, first: float) -> None:
        stats.attempts += 1
        heapq.heappush(tries, (math.ceil(t / slot) + rng.randrange(TX_INTEGER), burst, first))

    for n, (t, _) in enumerate(bursts):
        schedule(t, n, t)
    while tries:
        index = tries[0][0]
        same = []
        while tries and tries[0][0] == index:
            same.append(heapq.heappop(tries))
        at = index * slot
        if len(same) == 1:
            stats.delays.append(at + GRANT_DELAY - same[0][2])
            continue
        stats.collisions += len(same)
        for _, burst, first in same:
            if at + AGN_WAIT - first > ACCESS_BUDGET:
                stats.failed += 1
            else:
                schedule(at + AGN_WAIT, burst, first)
    return stats


# --- the empirical delay ------------------------------------------------------------------------


def histogram_of(samples: Sequence[float], width: float = BLOCK_PERIOD) -> HistogramDelay:
    """An empirical ``HistogramDelay`` of ``samples`` in bins ``width`` wide centred on its
    multiples: the cell's delays end on block boundaries, so most sit on a multiple of
    the block period and a bin centred there keeps the samples' mean."""
    if not samples:
        raise ValueError("an empirical delay needs samples")
    lo = round(min(samples) / width)
    hi = round(max(samples) / width)
    counts = [0] * (hi - lo + 1)
    for x in samples:
        counts[round(x / width) - lo] += 1
    edges = [max(0.0, (j - 0.5) * width) for j in range(lo, hi + 2)]
    return HistogramDelay(edges, counts)


@functools.lru_cache(maxsize=8)
def emergent_cell(seed: int, buffer: int | None = None) -> CellStats:
    """The busy cell's run for ``seed`` (and ``buffer``), computed once per process."""
    return run_busy_cell(seed, buffer=buffer)
