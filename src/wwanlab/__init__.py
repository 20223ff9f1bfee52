"""wwanlab: a lab and toolkit for moving data fast over slow, lossy, high-latency links."""

__version__ = "0.1.0"
