"""Static HTML pages: one per experiment or reproduction, and an index linking them.

A page is a title and sections; a section is a list of blocks (text, tables, figures,
parameters, assumptions, claims). Pages are plain files with their figures beside
them, readable without a server and easy to diff.
"""

from __future__ import annotations

import html
import json
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

STYLE = """
body { font-family: sans-serif; max-width: 64rem; margin: 2rem auto; padding: 0 1rem;
       color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid #bbb; padding: 0.2rem 0.5rem; text-align: left; }
th { background: #eee; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.holds { color: #176617; font-weight: bold; }
.fails { color: #a31515; font-weight: bold; }
.partly { color: #8a5a00; font-weight: bold; }
td li.holds, td li.fails { font-weight: normal; }
figure { margin: 1rem 0; }
figure img { max-width: 100%; }
figcaption, caption { color: #555; font-size: 0.9rem; }
td ul { margin: 0; padding-left: 1rem; }
details { margin: 0.5rem 0; }
summary { cursor: pointer; color: #333; }
"""


class PartLike(Protocol):
    """One part of a claim: what it says, whether it held, our numbers."""

    @property
    def what(self) -> str: ...
    @property
    def holds(self) -> bool: ...
    @property
    def ours(self) -> str: ...


class ClaimLike(Protocol):
    """A paper's claim checked on our data (``wwanlab.experiments.reproduction.Claim``)."""

    @property
    def claim(self) -> str: ...
    @property
    def paper(self) -> str: ...
    @property
    def ours(self) -> str: ...
    @property
    def holds(self) -> bool: ...
    @property
    def parts(self) -> Sequence[PartLike]: ...


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f'<td class="num">{value:.6g}</td>'
    if isinstance(value, int) and not isinstance(value, bool):
        return f'<td class="num">{value}</td>'
    return f"<td>{html.escape('' if value is None else str(value))}</td>"


@dataclass(frozen=True)
class Text:
    """A paragraph of plain text (escaped)."""

    text: str

    def render(self, out_dir: Path) -> str:
        return f"<p>{html.escape(self.text)}</p>"


@dataclass(frozen=True)
class Table:
    """A table with a header row; floats are shown with 6 significant digits."""

    columns: Sequence[str]
    rows: Sequence[Sequence[object]]
    caption: str = ""

    @classmethod
    def from_rows(
        cls,
        rows: Sequence[Mapping[str, object]],
        columns: Sequence[str] | None = None,
        caption: str = "",
    ) -> Table:
        """A table of tidy rows, with ``columns`` (default: every key, first-seen order)."""
        if columns is None:
            seen: list[str] = []
            for row in rows:
                seen.extend(k for k in row if k not in seen)
            columns = seen
        return cls(columns, [[row.get(c) for c in columns] for row in rows], caption)

    def render(self, out_dir: Path) -> str:
        caption = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in self.rows)
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


@dataclass(frozen=True)
class Figure:
    """An image file shown on the page; copied beside the page if it lies elsewhere."""

    path: Path
    caption: str = ""

    def render(self, out_dir: Path) -> str:
        src = Path(self.path).resolve()
        root = out_dir.resolve()
        if not src.is_relative_to(root):
            target = root / "figures" / src.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)
            src = target
        rel = Path(os.path.relpath(src, root)).as_posix()
        caption = html.escape(self.caption)
        return (
            f'<figure><img src="{html.escape(rel)}" alt="{caption}">'
            f"<figcaption>{caption}</figcaption></figure>"
        )


@dataclass(frozen=True)
class Params:
    """Named parameter values, as a two-column table."""

    values: Mapping[str, object]
    caption: str = "Parameters"

    def render(self, out_dir: Path) -> str:
        rows = [[k, v] for k, v in self.values.items()]
        return Table(["parameter", "value"], rows, self.caption).render(out_dir)


@dataclass(frozen=True)
class Assumptions:
    """What we had to assume where the paper is silent, one sentence each."""

    items: Sequence[str]

    def render(self, out_dir: Path) -> str:
        items = "".join(f"<li>{html.escape(a)}</li>" for a in self.items)
        return f"<ul>{items}</ul>"


def verdict(claim: ClaimLike) -> str:
    """ "holds", "does not hold", or for a claim in parts "partly holds" when some do."""
    if claim.holds:
        return "holds"
    if any(p.holds for p in claim.parts):
        return "partly holds"
    return "does not hold"


def part_verdicts(claim: ClaimLike) -> list[str]:
    """Each part as "<what> holds (<ours>)" or "<what> does not (<ours>)"."""
    return [
        f"{p.what} {'holds' if p.holds else 'does not'}" + (f" ({p.ours})" if p.ours else "")
        for p in claim.parts
    ]


@dataclass(frozen=True)
class ClaimsTable:
    """Each claim with the paper's number, ours, and whether it holds (part by part for
    a claim in parts: the verdict says which held and which did not)."""

    claims: Sequence[ClaimLike]

    def render(self, out_dir: Path) -> str:
        rows = []
        for c in self.claims:
            word = verdict(c)
            css = {"holds": "holds", "partly holds": "partly"}.get(word, "fails")
            cell = f'<span class="{css}">{word}</span>'
            if c.parts:
                items = "".join(
                    f'<li class="{"holds" if p.holds else "fails"}">{html.escape(text)}</li>'
                    for p, text in zip(c.parts, part_verdicts(c), strict=True)
                )
                cell += f"<ul>{items}</ul>"
            cells = "".join(f"<td>{html.escape(s)}</td>" for s in (c.claim, c.paper, c.ours))
            rows.append(f"<tr>{cells}<td>{cell}</td></tr>")
        head = "<tr><th>claim</th><th>paper</th><th>ours</th><th>verdict</th></tr>"
        return f"<table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"


@dataclass(frozen=True)
class Links:
    """A list of links to files beside the page (e.g. its CSV files), as (href, text)."""

    items: Sequence[tuple[str, str]]
    caption: str = ""

    def render(self, out_dir: Path) -> str:
        items = "".join(
            f'<li><a href="{html.escape(href)}">{html.escape(text)}</a></li>'
            for href, text in self.items
        )
        caption = f"<p>{html.escape(self.caption)}</p>" if self.caption else ""
        return f"{caption}<ul>{items}</ul>"


@dataclass(frozen=True)
class Folded:
    """Blocks hidden under a one-line summary until the reader opens them (long tables)."""

    summary: str
    blocks: Sequence[Block]

    def render(self, out_dir: Path) -> str:
        inner = "\n".join(b.render(out_dir) for b in self.blocks)
        return f"<details><summary>{html.escape(self.summary)}</summary>\n{inner}\n</details>"


Block = Text | Table | Figure | Params | Assumptions | ClaimsTable | Links | Folded


@dataclass(frozen=True)
class Section:
    title: str
    blocks: Sequence[Block]


@dataclass
class ReportPage:
    """One page of the report; ``slug`` names its file (``<slug>.html``)."""

    title: str
    sections: Sequence[Section]
    slug: str = ""
    summary: str = ""

    def __post_init__(self) -> None:
        if not self.slug:
            self.slug = "".join(c if c.isalnum() else "-" for c in self.title.lower()).strip("-")

    @property
    def claims(self) -> list[ClaimLike]:
        """Every claim on the page, in order (the index counts how many hold)."""
        return [
            c
            for s in self.sections
            for b in s.blocks
            if isinstance(b, ClaimsTable)
            for c in b.claims
        ]

    @property
    def filename(self) -> str:
        return f"{self.slug}.html"

    def render(self, out_dir: Path) -> str:
        parts = [f"<h1>{html.escape(self.title)}</h1>"]
        if self.summary:
            parts.append(f"<p>{html.escape(self.summary)}</p>")
        for section in self.sections:
            parts.append(f"<h2>{html.escape(section.title)}</h2>")
            parts.extend(block.render(out_dir) for block in section.blocks)
        parts.append('<p><a href="index.html">All pages</a></p>')
        return _document(self.title, "\n".join(parts))

    def write(self, out_dir: Path | str) -> Path:
        """Write ``out_dir/<slug>.html`` (and copy in figures from elsewhere)."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        path = out / self.filename
        path.write_text(self.render(out), encoding="utf-8")
        return path


def _document(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n"
        f"<body>\n{body}\n</body></html>\n"
    )


MANIFEST = "pages.json"
"""The list of pages an output folder holds, so that every command writing pages
there (``probe --all``, ``reproduce``...) adds to one index instead of replacing it."""


def _read_manifest(out: Path) -> list[dict[str, Any]]:
    try:
        entries = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(entries, list):
        return []
    return [e for e in entries if isinstance(e, dict) and isinstance(e.get("file"), str)]


def write_index(
    out_dir: Path | str,
    pages: Sequence[ReportPage],
    *,
    title: str = "wwanlab report",
    intro: str = "",
    front: Sequence[Block] = (),
) -> Path:
    """Write ``pages`` and ``out_dir/index.html`` linking every page of the folder.

    ``front`` (e.g. which papers are reproduced) goes above the list of pages. The index
    lists the pages written by earlier calls too (kept in ``pages.json``,
    in the order first written; a page is replaced by a new one of the same file name
    and forgotten once its file is gone), each with its summary and claim counts.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    entries = {e["file"]: e for e in _read_manifest(out)}
    for page in pages:
        page.write(out)
        # a claim of the project's own (``extension``) is counted apart from the paper's
        extensions = [c for c in page.claims if getattr(c, "extension", False)]
        ours = [c for c in page.claims if not getattr(c, "extension", False)]
        entries[page.filename] = {
            "file": page.filename,
            "title": page.title,
            "summary": page.summary,
            "claims": len(ours),
            "held": sum(1 for c in ours if c.holds),
            "extensions": len(extensions),
            "extensions_held": sum(1 for c in extensions if c.holds),
        }
    kept = [e for e in entries.values() if (out / e["file"]).is_file()]
    (out / MANIFEST).write_text(json.dumps(kept, indent=1) + "\n", encoding="utf-8")
    rows = []
    for e in kept:
        claims = f"{e.get('held', 0)} of {e['claims']} hold" if e.get("claims") else ""
        if e.get("extensions"):
            claims += f"; extensions: {e.get('extensions_held', 0)} of {e['extensions']}"
        link = f'<a href="{html.escape(e["file"])}">{html.escape(str(e.get("title", "")))}</a>'
        rows.append(
            f"<tr><td>{link}</td><td>{html.escape(str(e.get('summary', '')))}</td>"
            f"<td>{html.escape(claims)}</td></tr>"
        )
    parts = [f"<h1>{html.escape(title)}</h1>"]
    if intro:
        parts.append(f"<p>{html.escape(intro)}</p>")
    parts.extend(block.render(out) for block in front)
    parts.append(
        "<table><thead><tr><th>page</th><th>summary</th><th>claims</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    path = out / "index.html"
    path.write_text(_document(title, "\n".join(parts)), encoding="utf-8")
    return path
