"""QUIC (RFC 9000) with aioquic: one bidirectional stream carries the request and the file.

The client opens a connection (TLS 1.3 handshake, RFC 9001; a self-signed certificate
the client does not verify: the bench measures transport, not a PKI), sends
``GET <path>`` and FIN on a stream, and reads the file to the stream's FIN. Congestion
control is aioquic's NewReno (RFC 9002 7) or CUBIC (RFC 9438), set at both ends.
"""

import asyncio
import datetime
import hashlib
import socket
import ssl
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from aioquic.asyncio.client import connect
from aioquic.asyncio.server import serve
from aioquic.quic.configuration import QuicConfiguration
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from wwanlab.bench.http import (
    MAX_BODY,
    MAX_HEAD,
    BenchProtocolError,
    Fetched,
    free_port,
    read_to_eof,
)
from wwanlab.bench.registry import Params, Serve, ServeContext, Transport, register

ALPN = "wwanlab-bench"  # RFC 9001 8.1: an application protocol must be negotiated
QUIC_CCS = ("reno", "cubic")
CERT_DAYS = 1


def _self_signed(directory: Path) -> tuple[Path, Path]:
    """A throw-away P-256 key and certificate for the server."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "wwanlab-bench")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=CERT_DAYS))
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


def _serve(cc: str) -> Serve:
    @asynccontextmanager
    async def serve_files(ctx: ServeContext) -> AsyncIterator[Params]:
        answering: set[asyncio.Task[None]] = set()

        def on_stream(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.ensure_future(_answer(reader, writer))
            answering.add(task)
            task.add_done_callback(answering.discard)

        async def _answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                request = await read_to_eof(reader, MAX_HEAD)
            except BenchProtocolError:
                request = b""
            words = request.split()
            body = ctx.files.get(words[1].decode("latin-1")) if len(words) == 2 else None
            if words[:1] == [b"GET"] and body is not None:
                writer.write(body)
            writer.write_eof()

        config = QuicConfiguration(
            is_client=False, alpn_protocols=[ALPN], congestion_control_algorithm=cc
        )
        with tempfile.TemporaryDirectory() as tmp:
            config.load_cert_chain(*_self_signed(Path(tmp)))
        port = free_port(ctx.host, socket.SOCK_DGRAM)
        server = await serve(ctx.host, port, configuration=config, stream_handler=on_stream)
        try:
            yield {"host": ctx.host, "port": port, "cc": cc}
        finally:
            server.close()

    return serve_files


async def fetch(params: Params, path: str) -> Fetched:
    config = QuicConfiguration(
        is_client=True,
        alpn_protocols=[ALPN],
        verify_mode=ssl.CERT_NONE,
        congestion_control_algorithm=params["cc"],
    )
    started = time.perf_counter()
    async with connect(params["host"], int(params["port"]), configuration=config) as client:
        handshake = time.perf_counter() - started
        reader, writer = await client.create_stream()
        writer.write(f"GET {path}".encode())
        writer.write_eof()
        body = await read_to_eof(reader, MAX_BODY)
        complete = time.perf_counter() - started
    return Fetched(handshake, complete, hashlib.sha256(body).hexdigest(), len(body))


register(
    *(
        Transport(
            f"quic-{cc}",
            "QUIC",
            f"aioquic {cc}, one stream carrying the file",
            serve=_serve(cc),
            fetch=fetch,
        )
        for cc in QUIC_CCS
    )
)
