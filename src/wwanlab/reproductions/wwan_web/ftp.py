"""Tables 2 and 10: one file downloaded over one TCP connection, as an FTP client times it.

The server (the fixed host of ``experiments.bulk``'s testbed) opens the data connection
to the mobile, RFC 959's active mode, and sends the file; the mobile's link is a preset's
two directions (data down, acknowledgements up). Throughput is the file's bits over
the time from the client's first packet of the data connection (its SYN-ACK) to the
last octet's arrival. An FTP client times from its ``accept``, which returns when the
handshake's last ACK arrives; our server's ACK travels with the first data segment, so
that instant would be the first octet's arrival and a one-segment file would take no
time at all: the SYN-ACK, one round trip earlier, is the nearest well-defined start.
"""

import math
import random
from dataclasses import dataclass

from wwanlab.core.events import Event
from wwanlab.experiments.bulk import FIXED_IP, MAX_SIM_TIME, MOBILE_IP, Testbed
from wwanlab.link.presets import get_preset
from wwanlab.sim.ipv4 import PROTO_TCP
from wwanlab.tcp import TcpConfig
from wwanlab.tcp.endpoint import TcpEndpoint
from wwanlab.tcp.events import DataReceived

FTP_DATA_PORT = 20  # RFC 959 3.2: the server's data port in active mode
CLIENT_DATA_PORT = 49153  # the port the client's PORT command names (assumed)
KB = 1000  # the paper's file sizes and kbit/s are decimal (Table 2: 100 KB at 30.5 kbit/s)


@dataclass(frozen=True)
class FtpResult:
    size: int
    complete: bool
    seconds: float  # from the client's SYN-ACK to the last octet

    @property
    def kbps(self) -> float:
        return self.size * 8 / KB / self.seconds if self.complete else math.nan


def ftp_download(link: str, size: int, seed: int, tcp: TcpConfig) -> FtpResult:
    """Download ``size`` random octets over ``link`` (a preset name)."""
    preset = get_preset(link)
    bed = Testbed(seed, lambda: (preset.build("up"), preset.build("down")))
    kernel = bed.net.kernel
    data = random.Random(seed).randbytes(size)
    client = TcpEndpoint(MOBILE_IP, CLIENT_DATA_PORT, tcp, kernel.stream("tcp", "client"))
    client.listen()
    server = TcpEndpoint(FIXED_IP, FTP_DATA_PORT, tcp, kernel.stream("tcp", "server"))
    received = [0]
    times: dict[str, float] = {}

    def on_client(event: Event) -> None:
        if isinstance(event, DataReceived):
            received[0] += len(event.data)
            if received[0] >= size:
                times.setdefault("end", bed.net.now)

    bed.mobile.bind_transport(PROTO_TCP, CLIENT_DATA_PORT, client, on_event=on_client)
    binding = bed.fixed.bind_transport(PROTO_TCP, FTP_DATA_PORT, server)
    conn = server.connect((MOBILE_IP, CLIENT_DATA_PORT), 0.0)
    server.send(conn, data)
    server.close(conn)
    binding.flush()
    bed.net.run(until=MAX_SIM_TIME)
    bed.net.close()
    sent = [s.time for s in bed.radio if s.way == "tx"]  # the mobile's packets, SYN-ACK first
    complete = bool(sent) and "end" in times and received[0] == size
    return FtpResult(size, complete, times["end"] - sent[0] if complete else math.nan)
