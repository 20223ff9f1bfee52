"""The explicit dual proxy of paper 003 (section 2.1 "Explicit Proxy Mode"): a client-side
proxy on the mobile host and a server-side proxy in the operator's network, joined by a
message channel (TCP or UDP-GPRS), with CHK caching and delta encoding (4.1.3),
parse-and-push (4.2.3) and compression on the proxy link (4.1.1), each switchable.
Wire format, state tables and choices: docs/web-dualproxy.md.
"""

from wwanlab.pep.dual.client import ClientProxy
from wwanlab.pep.dual.config import DualConfig
from wwanlab.pep.dual.events import BodyRejected, DualEvent, MessageRefused
from wwanlab.pep.dual.server import ServerProxy
from wwanlab.pep.dual.store import ChkStore

ASSUMPTIONS = (
    "CHK caching: the server side fetches every embedded object over the wired side before "
    "it sends the page's CHK list (4.1.3: the client 'gets a CHK list of all the objects'), "
    "the main document goes at once",
    "delta encoding with bsdiff 4 (PyPI bsdiff4), sent only when the patch is smaller than "
    "the body the link would otherwise carry; the base is the version whose CHK the client "
    "names (or, for a push, the one this proxy last served for the URL and the client "
    "lists as held)",
    "compression on the proxy link: zlib level 9 of fixed-fidelity bodies (4.1.1) the origin "
    "sent uncoded, kept only when smaller",
    "parse-and-push sends the embedded objects in the order the origins deliver them, right "
    "after a LIST that promises them; with CHK caching, held objects and aliases go as HAVE",
    "the proxy's own origin fetches use HTTP/1.1 with 6 persistent connections per server "
    "(4.2.1's best); the wired side is never the bottleneck (2.1)",
    "each side keeps its CHK store across visits (64 MiB by default, least recently used "
    "first); one channel per client, on TCP port 8080 or UDP-GPRS",
)

__all__ = [
    "ASSUMPTIONS",
    "BodyRejected",
    "ChkStore",
    "ClientProxy",
    "DualConfig",
    "DualEvent",
    "MessageRefused",
    "ServerProxy",
]
