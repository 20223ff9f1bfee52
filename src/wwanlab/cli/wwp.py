"""``wwanlab wwp send FILE HOST:PORT`` and ``wwanlab wwp receive --port P -o FILE``:
move one file by the Wave & Wait Protocol over UDP."""

import asyncio
import math
import socket
import sys
from pathlib import Path
from typing import Annotated, BinaryIO

import typer

from wwanlab.aio.wwp import Outcome, WwpFailed, WwpStopped, WwpUnreachable, receive, send
from wwanlab.cli.common import (
    JsonOption,
    check_timeout,
    output_file,
    print_json,
    serve_until_signal,
)
from wwanlab.core.address import Address
from wwanlab.core.errors import UsageError
from wwanlab.core.progress import track
from wwanlab.transports.wwp import WwpConfig
from wwanlab.transports.wwp.config import BASELINE_BPS, MAX_RETRIES, PROBE_T, SETUP_RETRIES

BaselineOption = Annotated[
    float,
    typer.Option("--bt", help="Baseline throughput BT, payload octets/s (both ends alike)."),
]


def parse_address(text: str) -> Address:
    """``HOST:PORT`` with a port in 1..65535, the host resolved to an IPv4 address (the
    sender takes replies only from the address it sends to)."""
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise UsageError(f"address {text!r} is not HOST:PORT")
    if not port.isdigit() or not 0 < int(port) <= 65535:
        raise UsageError(f"address {text!r}: {port!r} is not a port number")
    try:
        infos = socket.getaddrinfo(host, int(port), socket.AF_INET, socket.SOCK_DGRAM)
    except socket.gaierror as exc:
        raise UsageError(f"address {text!r}: cannot resolve {host!r}: {exc.strerror}") from None
    ip, number = infos[0][4][:2]
    return str(ip), int(number)


def _config(bt: float, probe_t: float) -> WwpConfig:
    """The endpoint's parameters, each option checked under its own name."""
    for option, value in (("--bt", bt), ("--probe-t", probe_t)):
        if not value > 0 or math.isinf(value):
            raise UsageError(f"{option} {value} must be a positive finite number")
    return WwpConfig(baseline_bps=bt, probe_t=probe_t)


def _report(what: str, outcome: Outcome, json: bool) -> None:
    stats = outcome.stats
    if json:
        print_json(
            {
                what: outcome.size,
                "seconds": round(outcome.seconds, 6),
                "goodput_Bps": round(outcome.goodput, 1),
                "segments_sent": stats.segments_sent,
                "bytes_sent": stats.bytes_sent,
                "data_resent": stats.data_resent,
                "waves": stats.waves,
                "probe_cycles": stats.probe_cycles,
                "timeouts": stats.timeouts,
                "malformed": stats.malformed,
                "repeated": stats.repeated,
            }
        )
        return
    print(
        f"{what} {outcome.size} octets in {outcome.seconds:.3f} s "
        f"({outcome.goodput:.0f} octets/s); waves {stats.waves}, resent {stats.data_resent}, "
        f"probe cycles {stats.probe_cycles}, dropped malformed {stats.malformed}"
    )


def register(app: typer.Typer) -> None:
    wwp = typer.Typer(help="Move a file by the Wave & Wait Protocol (paper 004) over UDP.")
    app.add_typer(wwp, name="wwp")

    @wwp.command("send")
    def send_command(
        file: Annotated[Path, typer.Argument(help="The file to send.")],
        address: Annotated[str, typer.Argument(help="The receiver's HOST:PORT.")],
        bt: BaselineOption = BASELINE_BPS,
        probe_t: Annotated[float, typer.Option(help="PROBE_T, seconds.")] = PROBE_T,
        timeout: Annotated[
            float | None,
            typer.Option(
                help="Give up after this many seconds in all (default: only when "
                f"{SETUP_RETRIES} CONNs or {MAX_RETRIES} retries in a row go unanswered)."
            ),
        ] = None,
        json: JsonOption = False,
    ) -> None:
        """Send FILE to a `wwanlab wwp receive` at HOST:PORT."""
        config = _config(bt, probe_t)
        if timeout is not None:
            check_timeout(timeout)
        peer = parse_address(address)
        try:
            data = file.read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read {file}: {exc.strerror}") from None
        with track("wwp send: octets acknowledged", len(data)) as advance:
            acknowledged = 0

            def progress(done: int, total: int) -> None:
                nonlocal acknowledged
                advance(done - acknowledged)
                acknowledged = done

            try:
                outcome = asyncio.run(
                    asyncio.wait_for(send(data, peer, config, progress=progress), timeout)
                )
            except WwpUnreachable as exc:
                raise UsageError(f"no WWP receiver at {address}: {exc}") from None
            except WwpFailed as exc:
                print(f"wwanlab wwp send: gave up (retry limit): {exc}", file=sys.stderr)
                raise typer.Exit(1) from None
            except TimeoutError:
                print(
                    f"wwanlab wwp send: gave up (--timeout): {acknowledged} of {len(data)} "
                    f"octets acknowledged in {timeout:g} s",
                    file=sys.stderr,
                )
                raise typer.Exit(1) from None
            except OSError as exc:
                raise UsageError(f"cannot send to {address}: {exc.strerror or exc}") from None
        _report("sent", outcome, json)

    @wwp.command("receive")
    def receive_command(
        port: Annotated[int, typer.Option("--port", "-p", help="UDP port to listen on.")],
        output: Annotated[Path, typer.Option("-o", "--output", help="Write the data here.")],
        bind: Annotated[str, typer.Option(help="Local address to listen on.")] = "0.0.0.0",
        bt: BaselineOption = BASELINE_BPS,
        json: JsonOption = False,
    ) -> None:
        """Receive one file on PORT and write it to OUTPUT; SIGINT or SIGTERM stops the
        wait (exit code 1 if the file had not ended)."""
        if not 0 < port <= 65535:
            raise UsageError(f"--port {port} is not a port number")
        config = _config(bt, PROBE_T)
        output_file(output, "--output")
        sinks: list[BinaryIO] = []  # opened once the port is bound, so a failed bind leaves none
        outcomes: list[Outcome] = []

        def opened(_: Address) -> None:
            try:
                sinks.append(output.open("wb"))
            except OSError as exc:
                raise UsageError(f"cannot write {output}: {exc.strerror}") from None

        def write(data: bytes) -> None:
            sinks[0].write(data)

        async def until(stop: asyncio.Event) -> None:
            outcomes.append(await receive(write, (bind, port), config, ready=opened, stop=stop))

        try:
            serve_until_signal(until)
        except WwpStopped as exc:
            print(f"wwanlab wwp receive: {exc}", file=sys.stderr)
            raise typer.Exit(1) from None
        except OSError as exc:
            raise UsageError(f"cannot listen on {bind}:{port}: {exc.strerror}") from None
        finally:
            for sink in sinks:
                sink.close()
        _report("received", outcomes[0], json)
