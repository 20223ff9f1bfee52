"""A simulated IPv4 network: build the topology, compute routes, capture, run.

Routes are static and computed whenever the topology changes: for every host, a
breadth-first search from it over links (only routers relay; hosts are leaves) gives
each node its hop count; a node's route is its first-created link toward a node one hop
closer, so routes are a pure function of the order the topology was built in.
"""

from collections import deque
from pathlib import Path
from typing import BinaryIO, Literal

from wwanlab.link.base import Direction
from wwanlab.sim.host import Host
from wwanlab.sim.kernel import Kernel
from wwanlab.sim.link import DEFAULT_MTU, Channel, Link, Node
from wwanlab.sim.pcap import LINKTYPE_RAW, PcapWriter
from wwanlab.sim.router import Hook, Router

CapturePoint = Literal["tx", "rx"]


class Network:
    """Owns the kernel, the nodes, the links and any open captures."""

    def __init__(self, seed: int = 0) -> None:
        self.kernel = Kernel(seed)
        self.nodes: dict[str, Node] = {}
        self.links: list[Link] = []
        self.captures: list[PcapWriter] = []
        self._by_address: dict[str, Host] = {}

    @property
    def now(self) -> float:
        return self.kernel.now

    def add_host(self, name: str, address: str) -> Host:
        if address in self._by_address:
            raise ValueError(f"address {address} is already {self._by_address[address].name}")
        host = Host(self.kernel, name, address)
        self._add(host)
        self._by_address[address] = host
        self.compute_routes()
        return host

    def add_router(self, name: str, hook: Hook | None = None) -> Router:
        router = Router(self.kernel, name, hook)
        self._add(router)
        return router

    def _add(self, node: Node) -> None:
        if node.name in self.nodes:
            raise ValueError(f"a node named {node.name!r} already exists")
        self.nodes[node.name] = node

    def connect(
        self,
        a: Node,
        b: Node,
        ab: Direction,
        ba: Direction,
        *,
        mtu: int = DEFAULT_MTU,
        name: str | None = None,
    ) -> Link:
        """Join ``a`` and ``b``: ``ab`` carries a->b, ``ba`` carries b->a.

        Each channel draws from its own random stream, ``("link", name, "a>b")``.
        """
        if a is b:
            raise ValueError("a link joins two different nodes")
        for node in (a, b):
            if self.nodes.get(node.name) is not node:
                raise ValueError(f"{node!r} does not belong to this network")
        name = name or f"{a.name}-{b.name}"
        if any(link.name == name for link in self.links):
            raise ValueError(f"a link named {name!r} already exists")
        if ab is ba:
            raise ValueError("each direction needs its own Direction (they keep state)")
        forward = self._channel(name, a, b, ab, mtu)
        backward = self._channel(name, b, a, ba, mtu)
        link = Link(name, forward, backward)
        self.links.append(link)
        a.channels.append(forward)
        b.channels.append(backward)
        self.compute_routes()
        return link

    def _channel(self, name: str, src: Node, dst: Node, direction: Direction, mtu: int) -> Channel:
        rng = self.kernel.stream("link", name, f"{src.name}>{dst.name}")
        return Channel(
            self.kernel,
            f"{name}:{src.name}>{dst.name}",
            src,
            dst,
            direction,
            rng,
            mtu=mtu,
        )

    def compute_routes(self) -> None:
        """Fill every node's route table with fewest-hop routes to every host.

        Hop counts come from a breadth-first search out of each host in which only
        routers relay; each node then takes, among its links toward a node one hop
        closer, the one created first.
        """
        for node in self.nodes.values():
            node.routes.clear()
        for host in self._by_address.values():
            distance: dict[str, int] = {host.name: 0}
            queue: deque[Node] = deque([host])
            while queue:
                node = queue.popleft()
                for out in node.channels:
                    neighbour = out.dst
                    if neighbour.name not in distance:
                        distance[neighbour.name] = distance[node.name] + 1
                        if neighbour.forwards:
                            queue.append(neighbour)
            for name, hops in distance.items():
                node = self.nodes[name]
                if node is host:
                    continue
                node.routes[host.address_bytes] = next(
                    out
                    for out in node.channels
                    if distance.get(out.dst.name) == hops - 1
                    and (out.dst is host or out.dst.forwards)
                )

    def capture(
        self,
        target: Node | Link | Channel,
        file: str | Path | BinaryIO,
        *,
        point: CapturePoint = "tx",
        linktype: int = LINKTYPE_RAW,
    ) -> PcapWriter:
        """Write the packets seen at ``target`` to a pcap, stamped with virtual time.

        A host's capture holds what it sends and what reaches it; a router's, what
        reaches it (before its hook) and what its proxy injects. A channel's or a
        link's (both directions) holds packets as offered (``point="tx"``, drops
        included) or as delivered (``"rx"``). ``close()`` closes every capture.
        """
        writer = PcapWriter(file, linktype=linktype)
        if isinstance(target, Node):
            target.taps.append(writer.write)
        else:
            channels = target.channels if isinstance(target, Link) else (target,)
            for channel in channels:
                taps = channel.tx_taps if point == "tx" else channel.rx_taps
                taps.append(writer.write)
        self.captures.append(writer)
        return writer

    def host(self, address: str) -> Host:
        """The host that owns ``address``."""
        return self._by_address[address]

    def run(self, until: float | None = None) -> int:
        """Run the kernel (see ``Kernel.run``); return how many callbacks ran."""
        return self.kernel.run(until)

    def close(self) -> None:
        """Close every capture (flushing file-backed ones)."""
        for writer in self.captures:
            writer.close()
        self.captures.clear()

    def stats(self) -> dict[str, dict[str, object]]:
        """Counters of every node and channel, by name."""
        out: dict[str, dict[str, object]] = {}
        for node in self.nodes.values():
            out[node.name] = node.stats.as_dict()
        for link in self.links:
            for channel in link.channels:
                out[channel.name] = channel.stats.as_dict()
        return out
