"""Page models for paper 003: its measured sites as data, synthetic pages with their
statistics, and the user's own pages from a HAR file or a folder."""

from wwanlab.web.pages.generator import HOSTS, generate
from wwanlab.web.pages.loader import MAX_OBJECTS, load
from wwanlab.web.pages.markup import references, rewrite
from wwanlab.web.pages.tables import KB, SITES, TABLE3, Compressibility, Site

__all__ = [
    "HOSTS",
    "KB",
    "MAX_OBJECTS",
    "SITES",
    "TABLE3",
    "Compressibility",
    "Site",
    "generate",
    "load",
    "references",
    "rewrite",
]
