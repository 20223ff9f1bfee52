"""Tidy result rows in an embedded DuckDB file, one table per experiment, and CSV.

Column types follow the rows' Python values (bool, int, float, str; ``None`` is NULL);
a column that holds both ints and floats is DOUBLE. Writing an experiment's rows
replaces its table, so a table always holds one consistent execution.
"""

from __future__ import annotations

import csv
import functools
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import duckdb

from wwanlab.core.errors import UsageError
from wwanlab.experiments.scenario import Row

DEFAULT_DB = Path("results/wwanlab.duckdb")

FIXED_TYPES = {"seed": "UBIGINT"}
"""Columns whose type never depends on the values (seeds are 64-bit unsigned)."""

_NULL = "\\N"
"""How a NULL is spelled in the staging CSV (the convention of PostgreSQL's COPY)."""

_INT64 = range(-(2**63), 2**63)
_UINT64 = range(2**64)


def quote_identifier(name: str) -> str:
    """``name`` as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _column_type(name: str, values: Sequence[Any]) -> str:
    """The SQL type that holds every non-NULL value of a column."""
    if name in FIXED_TYPES:
        return FIXED_TYPES[name]
    present = [v for v in values if v is not None]
    kinds = {type(v) for v in present}
    if not kinds or kinds == {str}:
        return "VARCHAR"
    if kinds == {bool}:
        return "BOOLEAN"
    if kinds == {int}:
        if all(v in _INT64 for v in present):
            return "BIGINT"
        if all(v in _UINT64 for v in present):
            return "UBIGINT"
        return "HUGEINT"
    if kinds <= {int, float}:
        return "DOUBLE"
    raise ValueError(
        f"column {name!r} mixes or holds unsupported types: {sorted(map(str, kinds))}"
    )


def _csv_field(value: Any) -> str:
    """One staging-CSV field: text always quoted, so a quoted field is never NULL."""
    if value is None:
        return _NULL
    if isinstance(value, str):
        return '"' + value.replace('"', '""') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


@functools.cache
def _keywords() -> frozenset[str]:
    """DuckDB's keywords that cannot name a table unquoted (its reserved ones and the
    type or function names such as ``cross``, ``left``, ``by``)."""
    records = duckdb.execute(
        "SELECT keyword_name FROM duckdb_keywords() "
        "WHERE keyword_category IN ('reserved', 'type_function')"
    ).fetchall()
    return frozenset(r[0].lower() for r in records)


def table_name(experiment: str) -> str:
    """The table of an experiment, a name SQL takes unquoted: anything but [A-Za-z0-9_]
    becomes ``_`` (``bench-serial-9k6`` is read as a subtraction), and a name that starts
    with a digit or is a keyword gets the prefix ``t_``. ``read`` maps the experiment's
    own name to it, so old names keep working."""
    name = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in experiment)
    if not name or name[0].isdigit() or name.lower() in _keywords():
        name = "t_" + name
    return name


class ResultStore:
    """A DuckDB file of result tables (``results/wwanlab.duckdb`` by default)."""

    def __init__(self, path: Path | str = DEFAULT_DB) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = duckdb.connect(str(self.path))
        except (OSError, duckdb.Error) as exc:
            raise UsageError(f"cannot open results database {str(self.path)!r}: {exc}") from None

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def write(self, experiment: str, rows: Sequence[Row]) -> str:
        """Replace the experiment's table with ``rows``; returns the table's name."""
        table = table_name(experiment)
        columns: list[str] = []
        for row in rows:
            columns.extend(k for k in row if k not in columns)
        if not columns:
            raise ValueError(f"experiment {experiment!r} produced no rows")
        values = [[row.get(c) for row in rows] for c in columns]
        types = [_column_type(c, v) for c, v in zip(columns, values, strict=True)]
        spec = ", ".join(f"{quote_identifier(c)} {t}" for c, t in zip(columns, types, strict=True))
        self._db.execute(f"CREATE OR REPLACE TABLE {quote_identifier(table)} ({spec})")
        # DuckDB's executemany costs milliseconds a row; a bulk COPY from a temporary
        # CSV loads tens of thousands of rows in a fraction of a second.
        with tempfile.TemporaryDirectory() as tmp:
            staging = Path(tmp) / "rows.csv"
            with staging.open("w", newline="", encoding="utf-8") as f:
                for row in rows:
                    f.write(",".join(_csv_field(row.get(c)) for c in columns))
                    f.write("\n")
            self._db.execute(
                f"COPY {quote_identifier(table)} FROM '{staging}' (FORMAT csv, HEADER false, "
                f"DELIMITER ',', QUOTE '\"', ESCAPE '\"', NULLSTR '{_NULL}', AUTO_DETECT false)"
            )
        return table

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        """The records of one SQL query on this database."""
        return self._db.execute(sql).fetchall()

    def tables(self) -> list[str]:
        return [r[0] for r in self._db.execute("SHOW TABLES").fetchall()]

    def read(self, experiment: str) -> list[Row]:
        """The experiment's rows, in the order they were written."""
        table = table_name(experiment)
        if table not in self.tables():
            raise UsageError(f"no results table {table!r} in {str(self.path)!r}")
        cursor = self._db.execute(f"SELECT * FROM {quote_identifier(table)} ORDER BY rowid")
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]

    def export_csv(self, experiment: str, path: Path | str) -> Path:
        """Write the experiment's table as CSV (header row, then one line per row)."""
        rows = self.read(experiment)
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else [])
            writer.writeheader()
            writer.writerows(rows)
        return path
