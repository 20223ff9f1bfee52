"""The discrete-event simulator: kernel, IPv4/UDP bytes, hosts, routers, links, pcap."""

from wwanlab.sim.host import Binding, Host
from wwanlab.sim.kernel import Handle, Kernel, SimulationError
from wwanlab.sim.link import Channel, Link
from wwanlab.sim.network import Network
from wwanlab.sim.pcap import PcapWriter, read_pcap
from wwanlab.sim.router import FORWARD, HOLD, HookAction, Replace, Router

__all__ = [
    "FORWARD",
    "HOLD",
    "Binding",
    "Channel",
    "Handle",
    "HookAction",
    "Host",
    "Kernel",
    "Link",
    "Network",
    "PcapWriter",
    "Replace",
    "Router",
    "SimulationError",
    "read_pcap",
]
