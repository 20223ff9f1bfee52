"""Transports built for lossy wireless links, each a sans-IO sub-package (DESIGN.md)."""
