"""Tables, plots and the static HTML report (pages per experiment and an index)."""

from wwanlab.report.html import (
    Assumptions,
    ClaimLike,
    ClaimsTable,
    Figure,
    Params,
    ReportPage,
    Section,
    Table,
    Text,
    write_index,
)
from wwanlab.report.plots import bar_plot, cdf_plot, line_plot

__all__ = [
    "Assumptions",
    "ClaimLike",
    "ClaimsTable",
    "Figure",
    "Params",
    "ReportPage",
    "Section",
    "Table",
    "Text",
    "bar_plot",
    "cdf_plot",
    "line_plot",
    "write_index",
]
