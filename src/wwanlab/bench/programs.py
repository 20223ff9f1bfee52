"""Start a helper program (a gateway, a tunnel end) and wait until it says it is ready.

The program's stderr is read line by line until a line contains the ready marker
(the program then serves); reading goes on in a task so the pipe never fills, and the
last lines are kept for the error message when the program dies or never gets ready.
"""

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

READY_TIMEOUT = 10.0  # s for a helper to start listening
KEEP_LINES = 20


class ProgramFailed(RuntimeError):
    """A helper exited or never printed its ready line."""


Spawner = Callable[..., Awaitable[asyncio.subprocess.Process]]
"""Starts ``argv`` (a list) with keyword arguments as ``create_subprocess_exec``'s:
``spawn`` below, or ``EmulatedLink.spawn`` to start it inside an emulated link."""


def spawn(argv: Sequence[str], **kwargs: Any) -> Awaitable[asyncio.subprocess.Process]:
    """``asyncio.create_subprocess_exec`` taking ``argv`` as one list."""
    return asyncio.create_subprocess_exec(*argv, **kwargs)


@contextlib.asynccontextmanager
async def running(
    argv: Sequence[str],
    ready: str,
    *,
    spawner: Spawner = spawn,
) -> AsyncIterator[str]:
    """Run ``argv`` (with ``spawner``: inside an emulated link, say); yields its ready
    line; terminates the program on exit."""
    proc = await spawner(
        argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    tail: deque[str] = deque(maxlen=KEEP_LINES)
    found: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def read() -> None:
        assert proc.stderr is not None
        while line := await proc.stderr.readline():
            text = line.decode(errors="replace").rstrip()
            tail.append(text)
            if ready in text and not found.done():
                found.set_result(text)
        if not found.done():
            found.set_exception(ProgramFailed(f"{argv[0]} exited: {' | '.join(tail)}"))

    reader = asyncio.create_task(read())
    try:
        try:
            line = await asyncio.wait_for(asyncio.shield(found), READY_TIMEOUT)
        except TimeoutError:
            raise ProgramFailed(f"{argv[0]} not ready in {READY_TIMEOUT} s") from None
        yield line
    finally:
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 5.0)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
        if not found.done():
            found.cancel()
