"""Page models for paper 003: its measured sites as data, synthetic pages with their
statistics, and the user's own pages from a HAR file or a folder."""

from pathlib import Path

from wwanlab.core.errors import UsageError
from wwanlab.web.page import Page
from wwanlab.web.pages import generator, loader, tables
from wwanlab.web.pages.generator import HOSTS, generate
from wwanlab.web.pages.loader import MAX_OBJECTS, load
from wwanlab.web.pages.markup import references, rewrite
from wwanlab.web.pages.tables import KB, SITES, TABLE3, Compressibility, Site

ASSUMPTIONS = [*tables.ASSUMPTIONS, *generator.ASSUMPTIONS, *loader.ASSUMPTIONS]


def page_for(spec: str, seed: int = 0) -> Page:
    """A Table 1 site's page for ``seed``, or the page saved at the path ``spec``."""
    if spec in SITES:
        return generate(spec, seed)
    if not Path(spec).exists():
        raise UsageError(f"{spec!r} is neither a site ({', '.join(SITES)}) nor a file or folder")
    return load(spec)


__all__ = [
    "ASSUMPTIONS",
    "HOSTS",
    "KB",
    "MAX_OBJECTS",
    "SITES",
    "TABLE3",
    "Compressibility",
    "Site",
    "generate",
    "load",
    "page_for",
    "references",
    "rewrite",
]
