"""Tables, plots and the static HTML report (pages per experiment and an index).

Pages and blocks are here; the plots live in ``wwanlab.report.plots``, imported only
by code that draws, since matplotlib takes most of a second to import.
"""

from wwanlab.report.html import (
    Assumptions,
    ClaimLike,
    ClaimsTable,
    Figure,
    Folded,
    Links,
    Params,
    ReportPage,
    Section,
    Table,
    Text,
    write_index,
)

__all__ = [
    "Assumptions",
    "ClaimLike",
    "ClaimsTable",
    "Figure",
    "Folded",
    "Links",
    "Params",
    "ReportPage",
    "Section",
    "Table",
    "Text",
    "write_index",
]
