"""Sealed datagrams: every datagram of ``wwanlab tunnel`` authenticated and encrypted.

The tunnel crosses the public Internet to a server anyone can send to, so nothing it
receives is trusted before it authenticates, and nothing it sends answers a datagram
that did not. Keys come from a pre-shared key (32 random octets in a key file), not a
handshake: on a GPRS link whose first packet after idle waits 0.6-3 s for a TBF, a
Noise handshake costs a round trip before the first byte of every association, while a
pre-shared key lets the first datagram carry data (paper 003 4.3.2: UDP-GPRS has no
handshake for the same reason). What this gives up is forward secrecy: a stolen key
file opens recorded traffic (docs/tunnel.md, threat model).

Wire format (all integers big-endian)::

    version      1 octet   VERSION
    key id       8 octets  names the pre-shared key (HKDF of it, never the key)
    association  8 octets  the client's start: Unix seconds (4) and 4 random octets
    counter      8 octets  the sender's datagram number in this direction, from 0
    sealed       n+16      ChaCha20-Poly1305 (RFC 8439) of the payload, tag last

The header is the AEAD's associated data; the nonce is four zero octets and the
counter. Each association and direction has its own key (``Keys.for_association``), so
a counter never repeats under a key, even when a client restarts from counter 0, and a
datagram cannot be reflected back to its sender. The server takes a new association
only when its time is within ``MAX_SKEW`` of its own clock and it is newer than the one
it replaces (``Association`` orders by time), so a recorded association cannot be
replayed later. The receiver drops, without a word, any datagram that is too short or
too long, of another version, key or association, replayed or older than its window, or
whose tag does not verify; it moves its replay window only after the tag verifies, so
forged datagrams cannot push genuine ones out of it.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from wwanlab.core.errors import UsageError, WwanlabError

VERSION = 1
KEY_LEN = 32  # octets of the pre-shared key and of each direction's key
KEY_ID_LEN = 8
COUNTER_LEN = 8
ASSOCIATION_LEN = 8
HEADER_LEN = 1 + KEY_ID_LEN + ASSOCIATION_LEN + COUNTER_LEN
TAG_LEN = 16  # Poly1305 tag (RFC 8439 section 2.8)
MAX_DATAGRAM = 1472  # UDP payload of a 1500-octet IPv4 packet: never fragmented
MAX_PAYLOAD = MAX_DATAGRAM - HEADER_LEN - TAG_LEN
COUNTER_LIMIT = 2**64 - 1  # a sender stops before a nonce could repeat
REPLAY_WINDOW = 1024  # counters accepted behind the newest (reordering on a GPRS path)
SALT = b"wwanlab tunnel v1"
MAX_SKEW = 120.0  # s: how far an association's clock may be from the server's


class Rejected(WwanlabError):
    """A datagram that did not authenticate, or was replayed; ``reason`` says which.

    Receivers count these by reason and never answer them.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _hkdf(psk: bytes, info: bytes, length: int) -> bytes:
    """HKDF-SHA256 (RFC 5869) of ``psk``: extract with ``SALT``, expand with ``info``."""
    prk = hmac.new(SALT, psk, hashlib.sha256).digest()
    out, block, i = b"", b"", 0
    while len(out) < length:
        i += 1
        block = hmac.new(prk, block + info + bytes([i]), hashlib.sha256).digest()
        out += block
    return out[:length]


@dataclass(frozen=True)
class Keys:
    """A pre-shared key and its public name."""

    key_id: bytes
    psk: bytes

    @classmethod
    def from_psk(cls, psk: bytes) -> Keys:
        if len(psk) != KEY_LEN:
            raise UsageError(f"a tunnel key is {KEY_LEN} octets, this one is {len(psk)}")
        return cls(_hkdf(psk, b"key id", KEY_ID_LEN), psk)

    def for_association(self, association: bytes) -> tuple[bytes, bytes]:
        """The keys (client to server, server to client) of one association."""
        return (
            _hkdf(self.psk, b"client to server" + association, KEY_LEN),
            _hkdf(self.psk, b"server to client" + association, KEY_LEN),
        )


@dataclass(frozen=True, order=True)
class Association:
    """A client's run: when it started (Unix seconds) and a random tie-breaker."""

    started: int
    nonce: int

    @classmethod
    def new(cls, wall: float, rng_bits: int) -> Association:
        return cls(int(wall) & 0xFFFFFFFF, rng_bits & 0xFFFFFFFF)

    @classmethod
    def of(cls, datagram: bytes) -> Association:
        at = 1 + KEY_ID_LEN
        return cls(
            int.from_bytes(datagram[at : at + 4], "big"),
            int.from_bytes(datagram[at + 4 : at + 8], "big"),
        )

    def encode(self) -> bytes:
        return self.started.to_bytes(4, "big") + self.nonce.to_bytes(4, "big")

    def timely(self, wall: float) -> bool:
        """Whether a server whose clock reads ``wall`` may take this association."""
        return abs(self.started - wall) <= MAX_SKEW


class ReplayWindow:
    """The counters seen in the last ``REPLAY_WINDOW`` (RFC 4303 section 3.4.3's
    sliding window): a counter is fresh when newer than every one seen, or inside the
    window and not yet seen."""

    def __init__(self) -> None:
        self.newest = -1
        self._seen = 0  # bit i: counter newest - i was accepted

    def fresh(self, counter: int) -> bool:
        if counter > self.newest:
            return True
        behind = self.newest - counter
        return behind < REPLAY_WINDOW and not (self._seen >> behind) & 1

    def accept(self, counter: int) -> None:
        """Mark ``counter`` seen (call only after its datagram authenticated)."""
        if counter > self.newest:
            shift = counter - self.newest
            self._seen = ((self._seen << shift) | 1) & ((1 << REPLAY_WINDOW) - 1)
            self.newest = counter
        else:
            self._seen |= 1 << (self.newest - counter)


class Sealer:
    """Seals one direction's payloads with its key, counting datagrams from 0."""

    def __init__(self, key_id: bytes, association: bytes, key: bytes) -> None:
        self._prefix = bytes([VERSION]) + key_id + association
        self._aead = ChaCha20Poly1305(key)
        self.counter = 0

    def seal(self, payload: bytes) -> bytes:
        if len(payload) > MAX_PAYLOAD:
            raise ValueError(f"payload of {len(payload)} octets exceeds {MAX_PAYLOAD}")
        if self.counter >= COUNTER_LIMIT:
            raise WwanlabError("tunnel key exhausted: make a new key")
        header = self._prefix + self.counter.to_bytes(COUNTER_LEN, "big")
        nonce = bytes(4) + self.counter.to_bytes(COUNTER_LEN, "big")
        self.counter += 1
        return header + self._aead.encrypt(nonce, payload, header)


def key_id_of(datagram: bytes) -> bytes:
    """The key id a datagram names (checked for length and version only: not trusted)."""
    if not HEADER_LEN + TAG_LEN <= len(datagram) <= MAX_DATAGRAM:
        raise Rejected("length")
    if datagram[0] != VERSION:
        raise Rejected("version")
    return datagram[1 : 1 + KEY_ID_LEN]


class Opener:
    """Opens one direction's datagrams: authenticates, then checks for replay."""

    def __init__(self, key_id: bytes, association: bytes, key: bytes) -> None:
        self._prefix = bytes([VERSION]) + key_id + association
        self._aead = ChaCha20Poly1305(key)
        self.window = ReplayWindow()

    def open(self, datagram: bytes, *, accept: bool = True) -> bytes:
        """The payload of ``datagram``, or ``Rejected`` naming why it was refused;
        without ``accept`` the replay window stays as it was (a look, not a delivery)."""
        if key_id_of(datagram) != self._prefix[1 : 1 + KEY_ID_LEN]:
            raise Rejected("key")
        if datagram[: len(self._prefix)] != self._prefix:
            raise Rejected("association")
        counter = int.from_bytes(datagram[len(self._prefix) : HEADER_LEN], "big")
        if not self.window.fresh(counter):
            raise Rejected("replay")
        nonce = bytes(4) + datagram[len(self._prefix) : HEADER_LEN]
        try:
            payload = self._aead.decrypt(nonce, datagram[HEADER_LEN:], datagram[:HEADER_LEN])
        except InvalidTag:
            raise Rejected("tag") from None
        if accept:
            self.window.accept(counter)
        return payload


def client_pair(keys: Keys, association: Association) -> tuple[Sealer, Opener]:
    """The client's sealer (client to server) and opener (server to client)."""
    a = association.encode()
    up, down = keys.for_association(a)
    return Sealer(keys.key_id, a, up), Opener(keys.key_id, a, down)


def server_pair(keys: Keys, association: Association) -> tuple[Sealer, Opener]:
    """The server's sealer (server to client) and opener (client to server)."""
    a = association.encode()
    up, down = keys.for_association(a)
    return Sealer(keys.key_id, a, down), Opener(keys.key_id, a, up)


def new_key_file(path: Path) -> None:
    """Write a new random pre-shared key to ``path`` (hex, one line, mode 0600)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(os.urandom(KEY_LEN).hex() + "\n")


def read_key_file(path: Path) -> bytes:
    """The pre-shared key in ``path``; a ``UsageError`` naming what is wrong otherwise."""
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else "not ASCII text"
        raise UsageError(f"cannot read the key file {path}: {reason}") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise UsageError(f"the key file {path} is readable by others: chmod 600 {path}")
    try:
        psk = bytes.fromhex(text)
    except ValueError:
        raise UsageError(f"the key file {path} is not hexadecimal") from None
    if len(psk) != KEY_LEN:
        raise UsageError(f"the key file {path} holds {len(psk)} octets, not {KEY_LEN}")
    return psk
