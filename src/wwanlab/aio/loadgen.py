"""A WAP load generator: many concurrent clients, per-transaction latency.

``run_load(gateway, url, LoadSpec(...))`` runs ``concurrency`` workers, each with its own
UDP socket, until ``transactions`` have completed (or failed) in all. What a
transaction is follows fakewap so the two generators measure the same thing:

* ``co``: a whole session per transaction, as fakewap ``-M 1`` does: Connect, Get,
  Disconnect (class 0, nothing waited for);
* ``co-session``: one session per worker, a transaction is one Get (WSP's intended use);
* ``cl``: one connectionless Get per transaction, as fakewap ``-M 0``.

Latency is measured from the first datagram of a transaction to its last reply octet.
"""

import asyncio
import math
import multiprocessing
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Literal

from wwanlab.core.address import Address

from .client import ConnectionlessClient, WapClient, WapError

Mode = Literal["co", "co-session", "cl"]


@dataclass(frozen=True)
class LoadSpec:
    mode: Mode = "co"
    concurrency: int = 8
    transactions: int = 1000
    timeout: float = 30.0  # s per transaction
    seed: int = 1


@dataclass
class LoadResult:
    spec: LoadSpec
    seconds: float
    latencies: list[float] = field(default_factory=list)  # of successful transactions
    failures: int = 0
    bad_status: int = 0
    wall_start: float = 0.0  # time.time() of the first and last transaction, so that
    wall_end: float = 0.0  # runs in several processes can be put on one clock

    @property
    def completed(self) -> int:
        return len(self.latencies)

    @property
    def transactions_per_second(self) -> float:
        return self.completed / self.seconds if self.seconds > 0 else math.inf

    def percentile(self, q: float) -> float:
        """The ``q`` quantile (0..1) of latency, nearest rank; NaN with no successes."""
        if not self.latencies:
            return math.nan
        ordered = sorted(self.latencies)
        rank = max(1, math.ceil(q * len(ordered)))
        return ordered[rank - 1]

    def to_json(self) -> dict[str, object]:
        return {
            "mode": self.spec.mode,
            "concurrency": self.spec.concurrency,
            "completed": self.completed,
            "failures": self.failures,
            "bad_status": self.bad_status,
            "seconds": round(self.seconds, 3),
            "transactions_per_second": round(self.transactions_per_second, 1),
            "p50_ms": round(self.percentile(0.5) * 1000, 2),
            "p99_ms": round(self.percentile(0.99) * 1000, 2),
        }


async def run_load(gateway: Address, url: str, spec: LoadSpec) -> LoadResult:
    """Drive ``gateway`` with ``spec``; returns when all transactions are accounted for."""
    if spec.concurrency < 1 or spec.transactions < 1:
        raise ValueError("concurrency and transactions must be at least 1")
    remaining = [spec.transactions]
    result = LoadResult(spec, 0.0)

    def take() -> bool:
        if remaining[0] <= 0:
            return False
        remaining[0] -= 1
        return True

    def record(started: float, status: int) -> None:
        result.latencies.append(time.perf_counter() - started)
        if status != 200:
            result.bad_status += 1

    async def co_worker(index: int) -> None:
        rng = random.Random(spec.seed * 1000 + index)
        while take():
            started = time.perf_counter()
            try:
                async with WapClient(gateway, rng=rng) as client:
                    response = await client.get(url, timeout=spec.timeout)
                record(started, response.status)
            except (WapError, TimeoutError):
                result.failures += 1

    async def session_worker(index: int) -> None:
        client = WapClient(gateway, rng=random.Random(spec.seed * 1000 + index))
        try:
            await client.connect(timeout=spec.timeout)
            while take():
                started = time.perf_counter()
                try:
                    response = await client.get(url, timeout=spec.timeout)
                    record(started, response.status)
                except WapError:
                    result.failures += 1
        except WapError:
            result.failures += 1
        finally:
            await client.disconnect()

    async def cl_worker(index: int) -> None:
        client = ConnectionlessClient(
            gateway,
            rng=random.Random(spec.seed * 1000 + index),
            retry_after=spec.timeout,
            tries=1,
        )
        try:
            while take():
                started = time.perf_counter()
                try:
                    response = await client.get(url)
                    record(started, response.status)
                except WapError:
                    result.failures += 1
        finally:
            client.close()

    worker = {"co": co_worker, "co-session": session_worker, "cl": cl_worker}[spec.mode]
    result.wall_start = time.time()
    started = time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(spec.concurrency)))
    result.seconds = time.perf_counter() - started
    result.wall_end = time.time()
    return result


def _load_in_process(gateway: Address, url: str, spec: LoadSpec) -> LoadResult:
    try:
        import uvloop

        return uvloop.run(run_load(gateway, url, spec))
    except ImportError:
        return asyncio.run(run_load(gateway, url, spec))


def run_load_processes(gateway: Address, url: str, spec: LoadSpec, processes: int) -> LoadResult:
    """``spec`` split over ``processes`` OS processes (each ``concurrency`` workers), so
    the generator is not limited to one core; latencies pooled, the rate over the wall
    time from the first process's start to the last one's end (start-up excluded)."""
    if processes < 1:
        raise ValueError("processes must be at least 1")
    share = [spec.transactions // processes] * processes
    share[0] += spec.transactions - sum(share)
    specs = [
        LoadSpec(spec.mode, spec.concurrency, n, spec.timeout, spec.seed * 100 + i)
        for i, n in enumerate(share)
        if n
    ]
    with ProcessPoolExecutor(len(specs), mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = list(pool.map(_load_in_process, [gateway] * len(specs), [url] * len(specs), specs))
    start, end = min(p.wall_start for p in parts), max(p.wall_end for p in parts)
    pooled = LoadResult(spec, end - start, wall_start=start, wall_end=end)
    for part in parts:
        pooled.latencies += part.latencies
        pooled.failures += part.failures
        pooled.bad_status += part.bad_status
    return pooled
