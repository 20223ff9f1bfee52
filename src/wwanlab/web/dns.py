"""DNS over UDP (RFC 1035): message bytes, a stub resolver and a small zone server.

Pages fetched over a slow link pay for name resolution too, so the web experiments
resolve names with real DNS messages. Only what they need: A queries (QTYPE 1, class
IN), answers with name compression on input (RFC 1035 4.1.4), NXDOMAIN.
"""

import random
import socket
import struct
from collections.abc import Mapping
from dataclasses import dataclass

from wwanlab.core.address import Address
from wwanlab.core.errors import WwanlabError
from wwanlab.core.events import Event

DNS_PORT = 53  # RFC 1035 4.2.1
MAX_UDP_MESSAGE = 512  # RFC 1035 2.3.4
TYPE_A = 1  # RFC 1035 3.2.2
CLASS_IN = 1  # RFC 1035 3.2.4
RCODE_NOERROR = 0  # RFC 1035 4.1.1
RCODE_FORMERR = 1
RCODE_NXDOMAIN = 3
FLAG_QR = 0x8000  # RFC 1035 4.1.1
FLAG_AA = 0x0400
FLAG_RD = 0x0100
FLAG_RA = 0x0080
MAX_LABEL = 63  # RFC 1035 2.3.4
MAX_NAME = 255
MAX_POINTERS = 32  # bound on compression pointers followed while reading one name
RES_TIMEOUT = 5.0  # glibc resolv.conf default "timeout:5"
RES_ATTEMPTS = 2  # glibc resolv.conf default "attempts:2"

_HEADER = struct.Struct("!HHHHHH")


class DnsError(WwanlabError):
    """A malformed DNS message; ``rcode`` is what a server answers (FORMERR)."""

    rcode = RCODE_FORMERR


@dataclass(frozen=True, slots=True)
class Question:
    name: str
    qtype: int = TYPE_A
    qclass: int = CLASS_IN


@dataclass(frozen=True, slots=True)
class Record:
    name: str
    rtype: int
    rclass: int
    ttl: int
    data: bytes


@dataclass(frozen=True, slots=True)
class Message:
    id: int
    flags: int
    questions: tuple[Question, ...] = ()
    answers: tuple[Record, ...] = ()

    @property
    def rcode(self) -> int:
        return self.flags & 0x000F

    @property
    def is_response(self) -> bool:
        return bool(self.flags & FLAG_QR)


def encode_name(name: str) -> bytes:
    out = b""
    for label in name.rstrip(".").split(".") if name.strip(".") else []:
        raw = label.encode("ascii")
        if not 0 < len(raw) <= MAX_LABEL:
            raise DnsError(f"label {label[:70]!r} is not 1..63 octets")
        out += bytes([len(raw)]) + raw
    out += b"\x00"
    if len(out) > MAX_NAME:
        raise DnsError(f"name {name[:40]!r}... over {MAX_NAME} octets")
    return out


def encode_message(message: Message) -> bytes:
    out = _HEADER.pack(
        message.id, message.flags, len(message.questions), len(message.answers), 0, 0
    )
    for q in message.questions:
        out += encode_name(q.name) + struct.pack("!HH", q.qtype, q.qclass)
    for r in message.answers:
        out += encode_name(r.name) + struct.pack("!HHIH", r.rtype, r.rclass, r.ttl, len(r.data))
        out += r.data
    return out


def _read_name(data: bytes, offset: int) -> tuple[str, int]:
    """A possibly compressed name at ``offset``; returns it and the offset after it."""
    labels: list[str] = []
    end = -1
    total = 0
    for _ in range(MAX_POINTERS + MAX_NAME):
        if offset >= len(data):
            raise DnsError("name runs past the end of the message")
        length = data[offset]
        if length & 0xC0 == 0xC0:  # RFC 1035 4.1.4 pointer
            if offset + 1 >= len(data):
                raise DnsError("truncated compression pointer")
            if end < 0:
                end = offset + 2
            target = ((length & 0x3F) << 8) | data[offset + 1]
            if target >= offset:
                raise DnsError("compression pointer does not point backwards")
            offset = target
            continue
        if length & 0xC0:
            raise DnsError(f"label type {length >> 6} is not supported")
        offset += 1
        if length == 0:
            return ".".join(labels), (end if end >= 0 else offset)
        if offset + length > len(data):
            raise DnsError("label runs past the end of the message")
        total += length + 1
        if total > MAX_NAME:
            raise DnsError(f"name over {MAX_NAME} octets")
        labels.append(data[offset : offset + length].decode("ascii", "replace"))
        offset += length
    raise DnsError("too many compression pointers")


def decode_message(data: bytes) -> Message:
    if len(data) < _HEADER.size:
        raise DnsError(f"message of {len(data)} octets is shorter than the header")
    ident, flags, qdcount, ancount, _ns, _ar = _HEADER.unpack_from(data)
    offset = _HEADER.size
    questions = []
    for _ in range(qdcount):
        name, offset = _read_name(data, offset)
        if offset + 4 > len(data):
            raise DnsError("truncated question")
        qtype, qclass = struct.unpack_from("!HH", data, offset)
        offset += 4
        questions.append(Question(name, qtype, qclass))
    answers = []
    for _ in range(ancount):
        name, offset = _read_name(data, offset)
        if offset + 10 > len(data):
            raise DnsError("truncated resource record")
        rtype, rclass, ttl, rdlength = struct.unpack_from("!HHIH", data, offset)
        offset += 10
        if offset + rdlength > len(data):
            raise DnsError("RDATA runs past the end of the message")
        answers.append(Record(name, rtype, rclass, ttl, data[offset : offset + rdlength]))
        offset += rdlength
    return Message(ident, flags, tuple(questions), tuple(answers))


# --- endpoints ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DnsEvent(Event):
    name: str


@dataclass(frozen=True, slots=True)
class Resolved(DnsEvent):
    addresses: tuple[str, ...]
    at: float


@dataclass(frozen=True, slots=True)
class ResolutionFailed(DnsEvent):
    reason: str  # "NXDOMAIN", "SERVFAIL"..., or "timeout"


@dataclass
class _Pending:
    name: str
    query: bytes
    deadline: float
    attempts: int


class StubResolver:
    """Sends A queries to one recursive server; retries after ``timeout`` (RFC 1123
    6.1.3.3), ``attempts`` times in all, as glibc's stub resolver does by default."""

    def __init__(
        self,
        server: Address,
        rng: random.Random,
        timeout: float = RES_TIMEOUT,
        attempts: int = RES_ATTEMPTS,
    ) -> None:
        self.server = server
        self._rng = rng
        self._timeout = timeout
        self._attempts = attempts
        self._pending: dict[int, _Pending] = {}
        self._out: list[tuple[bytes, Address]] = []
        self._events: list[Event] = []
        self.queries_sent = 0

    def resolve(self, name: str, now: float) -> None:
        ident = self._rng.getrandbits(16)  # RFC 5452 9.2: unpredictable IDs
        while ident in self._pending:
            ident = self._rng.getrandbits(16)
        query = encode_message(Message(ident, FLAG_RD, (Question(name),)))
        self._pending[ident] = _Pending(name, query, now + self._timeout, 1)
        self._send(query)

    def _send(self, query: bytes) -> None:
        self.queries_sent += 1
        self._out.append((query, self.server))

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        try:
            message = decode_message(data)
        except DnsError:
            return
        pending = self._pending.get(message.id)
        if pending is None or not message.is_response or addr[0] != self.server[0]:
            return  # RFC 5452 9.1: only answers that match a question we asked
        if [q.name.lower() for q in message.questions] != [pending.name.lower()]:
            return
        del self._pending[message.id]
        if message.rcode != RCODE_NOERROR:
            reason = {RCODE_NXDOMAIN: "NXDOMAIN", 2: "SERVFAIL"}.get(message.rcode, "error")
            self._events.append(ResolutionFailed(pending.name, reason))
            return
        addresses = tuple(
            socket.inet_ntoa(r.data)
            for r in message.answers
            if r.rtype == TYPE_A and r.rclass == CLASS_IN and len(r.data) == 4
        )
        self._events.append(Resolved(pending.name, addresses, now))

    def handle_timer(self, now: float) -> None:
        for ident, pending in list(self._pending.items()):
            if pending.deadline <= now:
                if pending.attempts >= self._attempts:
                    del self._pending[ident]
                    self._events.append(ResolutionFailed(pending.name, "timeout"))
                else:
                    pending.attempts += 1
                    pending.deadline = now + self._timeout
                    self._send(pending.query)

    def get_timer(self) -> float | None:
        return min((p.deadline for p in self._pending.values()), default=None)

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out = self._out[:]
        self._out.clear()
        return out

    def next_event(self) -> Event | None:
        return self._events.pop(0) if self._events else None


class ZoneServer:
    """Answers A queries from ``zone`` (name -> addresses), as a recursive resolver
    with everything cached would; the answer name is a pointer to the question. Names
    outside the zone get ``default`` when given (a DNS-boosting server answers every
    name with its proxy), else NXDOMAIN."""

    def __init__(
        self, zone: Mapping[str, list[str]], ttl: int = 300, default: list[str] | None = None
    ) -> None:
        self._zone = {k.lower().rstrip("."): v for k, v in zone.items()}
        self._ttl = ttl
        self._default = default
        self._out: list[tuple[bytes, Address]] = []

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        try:
            query = decode_message(data)
        except DnsError:
            if len(data) >= 2:  # RFC 1035 4.1.1: FORMERR echoing the ID
                ident = int.from_bytes(data[:2], "big")
                self._out.append((encode_message(Message(ident, FLAG_QR | RCODE_FORMERR)), addr))
            return
        if query.is_response or len(query.questions) != 1:
            return
        q = query.questions[0]
        addresses = self._zone.get(q.name.lower().rstrip("."), self._default)
        flags = FLAG_QR | FLAG_RA | (query.flags & FLAG_RD)
        if addresses is None:
            reply = encode_message(Message(query.id, flags | RCODE_NXDOMAIN, (q,)))
        else:
            reply = encode_message(Message(query.id, flags, (q,)))
            room = (MAX_UDP_MESSAGE - len(reply)) // 16  # RFC 1035 2.3.4: 512 octets
            addresses = addresses[:room] if q.qtype == TYPE_A else []
            pointer = b"\xc0\x0c"  # RFC 1035 4.1.4: the question name at offset 12
            records = b"".join(
                pointer
                + struct.pack("!HHIH", TYPE_A, CLASS_IN, self._ttl, 4)
                + socket.inet_aton(a)
                for a in addresses
            )
            reply = reply[:6] + len(addresses).to_bytes(2, "big") + reply[8:] + records
        self._out.append((reply, addr))

    def handle_timer(self, now: float) -> None:
        pass

    def get_timer(self) -> float | None:
        return None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out = self._out[:]
        self._out.clear()
        return out

    def next_event(self) -> Event | None:
        return None
