"""``wwanlab emulate``: run one command inside an ``EmulatedLink`` and pass its status on.

Signals, as a shell user expects them:

* Ctrl-C reaches the command directly (the terminal sends it to the whole foreground
  job); wwanlab ignores it and tears the link down when the command ends. A shell
  inside ignores Ctrl-C, so the link stays up under an interactive shell.
* SIGTERM or SIGHUP to wwanlab is passed on to the command, which gets ``GRACE``
  seconds to end before it is killed; then the link is torn down.
* ``kill -9`` of wwanlab leaves the guardian to kill the command and clean up.

The exit status is the command's, ``128 + N`` if signal N ended it, 127 if it does
not exist.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Sequence
from typing import Any

from wwanlab.emu.link import EmulatedLink

GRACE = 2.0  # seconds a command has to end after SIGTERM before SIGKILL
DEFAULT_SHELL = "/bin/sh"
FORWARDED = (signal.SIGTERM, signal.SIGHUP)


def default_command() -> list[str]:
    """Without a command, the user's ``$SHELL``, as Mahimahi does."""
    return [os.environ.get("SHELL") or DEFAULT_SHELL]


def exit_status(returncode: int) -> int:
    """A subprocess return code as a shell's exit status."""
    return 128 - returncode if returncode < 0 else returncode


async def run(link: EmulatedLink, argv: Sequence[str]) -> tuple[int, dict[str, Any]]:
    """Run ``argv`` inside ``link``; its exit status and the link's summary."""
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, lambda: None)
    try:
        async with link:
            proc = await link.spawn(argv)

            def stop(sig: signal.Signals) -> None:
                if proc.returncode is None:
                    proc.send_signal(sig)
                    loop.call_later(GRACE, _kill, proc)

            for sig in FORWARDED:
                loop.add_signal_handler(sig, stop, sig)
            try:
                returncode = await link.guard(proc.wait())
            finally:
                for sig in FORWARDED:
                    loop.remove_signal_handler(sig)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    return exit_status(returncode), link.summary()


def _kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        proc.kill()
