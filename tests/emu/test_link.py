"""``EmulatedLink``: real sockets inside the namespace reach the host side, through NAT
beyond it, and nothing of an instance is left after it ends (pass-through forwarder)."""

import asyncio
import errno
import hashlib
import os
import random
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from tests.emu.leftovers import (
    can_emulate,
    gone,
    leftovers,
    slot_of,
    stale_tables,
    wait_clean,
)

from wwanlab.core.errors import UsageError
from wwanlab.emu import instances, nat
from wwanlab.emu.link import EmulatedLink
from wwanlab.emu.netns import Namespace, ip, namespace_id

pytestmark = can_emulate


def udp_in_namespace() -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(5)
    return s


def test_udp_echo_from_inside_to_the_host_address():
    async def main():
        async with EmulatedLink("serial-9k6") as link:
            server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            server.bind((link.host_address, 0))
            server.settimeout(5)
            client = await link.run_in_namespace(udp_in_namespace)
            payloads = [bytes([i]) * (10 + 100 * i) for i in range(5)]
            seen = []

            def exchange():
                for p in payloads:
                    client.sendto(p, server.getsockname())
                    data, peer = server.recvfrom(2000)
                    seen.append(peer[0])
                    server.sendto(data[::-1], peer)
                return [client.recvfrom(2000)[0] for _ in payloads]

            echoes = await asyncio.to_thread(exchange)
            server.close()
            client.close()
            routes = await link.run_in_namespace(lambda: ip(["-4", "route"]))
            ns = namespace_id(link.netns)
            return link.host_address, link.inner_address, seen, echoes, payloads, routes, link, ns

    host, inner, seen, echoes, payloads, routes, link, ns = asyncio.run(main())
    assert echoes == [p[::-1] for p in payloads]
    assert seen == [inner] * len(payloads)  # traffic to WWANLAB_HOST is not masqueraded
    assert f"default via {host} dev wwl{slot_of(host)}i" in routes
    counters = link.summary()["forwarder"]
    ip_udp = 28
    assert counters["up"]["packets"] == len(payloads)
    assert counters["up"]["bytes"] == sum(len(p) + ip_udp for p in payloads)
    assert counters["down"]["bytes"] == counters["up"]["bytes"]
    assert leftovers(host, ns) == []


def test_tcp_transfer_from_a_process_inside_to_a_server_on_the_host():
    blob = random.Random(11).randbytes(24_000)  # about 5 s at gprs-one-user's 37.6 kbit/s
    client_code = (
        "import hashlib, os, socket, sys\n"
        "s = socket.create_connection((os.environ['WWANLAB_HOST'], int(sys.argv[1])), 10)\n"
        "h = hashlib.sha256()\n"
        "while data := s.recv(65536):\n"
        "    h.update(data)\n"
        "print(h.hexdigest())\n"
    )

    async def main():
        async with EmulatedLink("gprs-one-user") as link:

            async def serve(reader, writer):
                writer.write(blob)
                await writer.drain()
                writer.close()

            server = await asyncio.start_server(serve, link.host_address, 0)
            port = server.sockets[0].getsockname()[1]
            proc = await link.spawn(
                [sys.executable, "-c", client_code, str(port)], stdout=subprocess.PIPE
            )
            out, _ = await proc.communicate()
            server.close()
            await server.wait_closed()
            return proc.returncode, out.decode().strip(), link, namespace_id(link.netns)

    returncode, digest, link, ns = asyncio.run(main())
    assert returncode == 0
    assert digest == hashlib.sha256(blob).hexdigest()
    counters = link.summary()["forwarder"]
    assert counters["down"]["bytes"] > len(blob)  # the payload plus IP and TCP headers
    assert counters["up"]["packets"] > 0
    assert leftovers(link.summary()["host_address"], ns) == []


def test_routing_and_masquerade_to_a_server_beyond_the_host(tmp_path):
    """A third namespace behind a veth pair stands for 'the internet': the inner
    program reaches it only through the caller's forwarding and the instance's NAT."""

    async def main():
        far = Namespace()
        veth = f"wwt{os.getpid() % 100000}"
        try:
            ip(["link", "add", veth, "type", "veth", "peer", "name", "far0", "netns", far.path])
            ip(["addr", "add", "198.18.0.1/30", "dev", veth])
            ip(["link", "set", veth, "up"])
            ip(
                netns=far.path,
                batch="link set lo up\naddr add 198.18.0.2/30 dev far0\nlink set far0 up\n",
            )

            def listen():
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.bind(("198.18.0.2", 0))
                s.settimeout(5)
                return s

            server = far.call(listen)
            async with EmulatedLink("serial-9k6") as link:
                table = subprocess.run(
                    [
                        "nft",
                        "list",
                        "table",
                        "ip",
                        instances.table_name(slot_of(link.host_address)),
                    ],
                    capture_output=True,
                    text=True,
                ).stdout
                forwarding = Path("/proc/sys/net/ipv4/ip_forward").read_text().strip()
                client = await link.run_in_namespace(udp_in_namespace)

                def exchange():
                    client.sendto(b"beyond", server.getsockname())
                    data, peer = server.recvfrom(100)
                    server.sendto(data.upper(), peer)
                    return peer[0], client.recvfrom(100)

                peer, (reply, source) = await asyncio.to_thread(exchange)
                client.close()
                host = link.host_address
                inner = link.inner_address
                ns = namespace_id(link.netns)
            server.close()
            return table, forwarding, peer, reply, source, host, inner, ns
        finally:
            subprocess.run(["ip", "link", "del", veth], capture_output=True)
            far.close()

    table, forwarding, peer, reply, source, host, inner, ns = asyncio.run(main())
    assert f"ip saddr {inner} oifname != " in table and "masquerade" in table
    assert forwarding == "1"
    assert peer == "198.18.0.1"  # masqueraded to the caller's address on that network
    assert reply == b"BEYOND"
    assert source == ("198.18.0.2", source[1])
    assert leftovers(host, ns) == []


def test_two_links_at_once_get_their_own_addresses_and_both_carry_traffic():
    async def main():
        async with EmulatedLink("serial-9k6") as a, EmulatedLink("gprs-one-user") as b:
            got = []
            for link in (a, b):
                server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                server.bind((link.host_address, 0))
                server.settimeout(5)
                client = await link.run_in_namespace(udp_in_namespace)
                client.sendto(b"x", server.getsockname())
                got.append(await asyncio.to_thread(server.recvfrom, 10))
                client.close()
                server.close()
            ns = {a.host_address: namespace_id(a.netns), b.host_address: namespace_id(b.netns)}
            return a.host_address, b.host_address, a.inner_address, b.inner_address, got, ns

    host_a, host_b, inner_a, inner_b, got, ns = asyncio.run(main())
    assert len({host_a, host_b, inner_a, inner_b}) == 4
    assert [peer[0] for _, peer in got] == [inner_a, inner_b]
    assert leftovers(host_a, ns[host_a]) == leftovers(host_b, ns[host_b]) == []


def test_everything_goes_when_the_body_raises_and_processes_inside_are_killed():
    async def main():
        link = EmulatedLink("serial-9k6")
        with pytest.raises(RuntimeError, match="boom"):
            async with link:
                # A daemon the body leaves behind, in a session of its own.
                proc = await link.spawn(["sleep", "60"], start_new_session=True)
                ns = os.stat(link.netns)
                pid = proc.pid
                raise RuntimeError("boom")
        return link.summary()["host_address"], (ns.st_dev, ns.st_ino), pid

    host, ns, pid = asyncio.run(main())
    wait_clean(host, ns)
    assert gone(pid)


def test_spawn_sets_wwanlab_host_and_a_missing_program_exits_127():
    async def main():
        async with EmulatedLink("serial-9k6") as link:
            proc = await link.spawn(
                ["sh", "-c", "echo $WWANLAB_HOST; ip -4 -o addr show scope global"],
                stdout=subprocess.PIPE,
            )
            out, _ = await proc.communicate()
            missing = await link.spawn(["/no/such/program"], stderr=subprocess.DEVNULL)
            return link.host_address, link.inner_address, out.decode(), await missing.wait()

    host, inner, out, missing = asyncio.run(main())
    lines = out.splitlines()
    assert lines[0] == host
    assert f"inet {inner}/30" in lines[1]
    assert len(lines) == 2  # the namespace has no other global address
    assert missing == 127


def test_a_stale_table_is_swept_and_a_live_ones_is_kept():
    with instances.registry_lock():
        live = instances.allocate()  # stands for a live instance: its slot is locked
    stale = max(instances.live_slots(), default=0) + 500
    for n in (live.number, stale):
        nat.add_masquerade(instances.table_name(n), "100.127.255.254", "lo")
    try:

        async def main():
            async with EmulatedLink("serial-9k6"):
                return nat.tables()

        present = asyncio.run(main())
        assert instances.table_name(stale) not in present
        assert instances.table_name(live.number) in present
    finally:
        nat.delete_table(instances.table_name(live.number))
        nat.delete_table(instances.table_name(stale))
        live.release()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"preset": "no-such-link"}, "unknown link preset 'no-such-link'"),
        ({"uplink": "no-such-link"}, "unknown link preset 'no-such-link'"),
        ({"loss": 1.5}, "loss must be a probability in [0, 1]"),
        ({"pcap_prefix": "/no/such/folder/p"}, "--pcap: folder '/no/such/folder' does not exist"),
        ({"log": "/proc/sys/x.log"}, "--log: cannot write in '/proc/sys'"),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_made(kwargs, message):
    with pytest.raises(UsageError) as info:
        EmulatedLink(**kwargs)
    assert message in str(info.value)
    assert stale_tables() == []


def test_guard_raises_when_the_link_breaks_under_a_running_command():
    async def main():
        async with EmulatedLink("serial-9k6") as link:
            proc = await link.spawn(["sleep", "30"])
            ip(["link", "del", f"wwl{slot_of(link.host_address)}h"])  # pulled from under it
            with pytest.raises(OSError) as info:
                await asyncio.wait_for(link.guard(proc.wait()), 10)
            ns = namespace_id(link.netns)
            return link.summary()["host_address"], info.value.errno, proc.returncode, ns

    host, code, returncode, ns = asyncio.run(main())
    assert code == errno.EBADFD
    assert returncode is None or returncode < 0  # still running when guard raised
    wait_clean(host, ns)


def test_slots_are_taken_in_turn_not_the_lowest_free_one_again():
    with instances.registry_lock():
        first = instances.allocate()
    first.release()
    with instances.registry_lock():
        second = instances.allocate()
    try:
        # The slot just freed is not handed out again at once: a host socket of the
        # instance that held it may still resend to its inner address.
        assert second.number != first.number
        assert instances.NEXT_SLOT.read_text() == str((second.number + 1) % instances.MAX_SLOTS)
    finally:
        second.release()
