"""What an HTML document embeds, and the same document with some references changed.

A browser of the paper's time fetched, for a page, the images (``<img src>``), the
scripts (``<script src>``) and the style sheets (``<link rel=stylesheet href>``) its
HTML names; those are the embedded objects here. Relative references are resolved
against the document's URL (RFC 3986 5), fragments dropped.

The scanner follows the tokenizer of the HTML Living Standard (13.2.5) as far as
finding these tags needs: tag and attribute names are case-insensitive, the first of
repeated attributes wins, a value is double-quoted, single-quoted or unquoted, comments,
end tags, doctypes and the contents of ``script``, ``style``, ``textarea`` and
``title`` are skipped, and input that ends inside a tag, a quoted value or a comment
ends the document. It reads every character once: ``html.parser`` needs minutes for
64 KB of ``<a <a <a ...``, and a page from a user must not hang the model.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from html import escape, unescape
from urllib.parse import urldefrag, urljoin

# The attribute holding the object's URL, per embedding tag.
EMBEDDING = {"img": "src", "script": "src", "link": "href"}
RAW_TEXT = ("script", "style", "textarea", "title")  # content is text, not tags
TAG_NAME = re.compile(r"[A-Za-z][^\t\n\f\r />]*")
GAP = re.compile(r"[\t\n\f\r /]*")  # between attributes
ATTRIBUTE_NAME = re.compile(r"[^\t\n\f\r />][^\t\n\f\r /=>]*")
EQUALS = re.compile(r"[\t\n\f\r ]*=[\t\n\f\r ]*")
UNQUOTED = re.compile(r"[^\t\n\f\r >]*")
RAW_TEXT_END = {tag: re.compile(rf"</{tag}[\t\n\f\r />]", re.IGNORECASE) for tag in RAW_TEXT}


@dataclass(frozen=True, slots=True)
class Embedding:
    """One tag that embeds an object: its URL and where the tag and the raw value are."""

    url: str  # absolute, without fragment
    tag: str  # "img", "script" or "link"
    start: int  # the start tag's span in the document's text
    end: int
    value_start: int  # the attribute value's span (inside its quotes)
    value_end: int


def scan(text: str, base: str) -> Iterator[Embedding]:
    """Every embedding in ``text``, in document order."""
    pos = 0
    while (lt := text.find("<", pos)) >= 0:
        if text.startswith("<!--", lt):
            close = text.find("-->", lt + 4)
            if close < 0:
                return
            pos = close + 3
            continue
        if text.startswith(("<!", "<?", "</"), lt):  # doctype, bogus comment, end tag
            close = text.find(">", lt + 2)
            if close < 0:
                return
            pos = close + 1
            continue
        name = TAG_NAME.match(text, lt + 1)
        if name is None:
            pos = lt + 1  # a "<" that starts no tag is text
            continue
        tag = name.group().lower()
        attributes: dict[str, tuple[str, int, int]] = {}
        pos = name.end()
        while True:
            pos = GAP.match(text, pos).end()  # type: ignore[union-attr]  # matches empty
            if pos >= len(text):
                return
            if text[pos] == ">":
                pos += 1
                break
            key_match = ATTRIBUTE_NAME.match(text, pos)
            assert key_match is not None  # text[pos] is none of GAP's characters nor ">"
            key, pos = key_match.group().lower(), key_match.end()
            value, start, end = "", pos, pos
            equals = EQUALS.match(text, pos)
            if equals is not None:
                pos = equals.end()
                if text.startswith(('"', "'"), pos):
                    end = text.find(text[pos], pos + 1)
                    if end < 0:
                        return
                    start, pos = pos + 1, end + 1
                else:
                    end = UNQUOTED.match(text, pos).end()  # type: ignore[union-attr]
                    start, pos = pos, end
                value = text[start:end]
            attributes.setdefault(key, (value, start, end))
        found = _embedding(tag, attributes)
        if found is not None:
            raw, start, end = found
            try:
                url = urldefrag(urljoin(base, unescape(raw).strip())).url
            except ValueError as error:  # e.g. an unbalanced IPv6 bracket
                raise ValueError(f"<{tag}> embeds {raw[:80]!r}: {error}") from None
            yield Embedding(url, tag, lt, pos, start, end)
        if tag in RAW_TEXT:
            close_tag = RAW_TEXT_END[tag].search(text, pos)
            if close_tag is None:
                return
            pos = close_tag.start()


def _embedding(
    tag: str, attributes: dict[str, tuple[str, int, int]]
) -> tuple[str, int, int] | None:
    """The URL attribute (value, start, end) of a tag that embeds an object."""
    name = EMBEDDING.get(tag)
    if name is None or name not in attributes or not attributes[name][0].strip():
        return None
    if tag == "link" and "stylesheet" not in attributes.get("rel", ("",))[0].lower().split():
        return None
    return attributes[name]


def references(document: bytes, base: str) -> list[str]:
    """The absolute URLs of the objects ``document`` embeds, in document order, each
    once."""
    text = document.decode("utf-8", errors="replace")
    return list(dict.fromkeys(e.url for e in scan(text, base)))


def rewrite(document: bytes, base: str, changes: dict[str, list[str]]) -> bytes:
    """``document`` with every embedding of a URL in ``changes`` replaced by one copy of
    its tag per new URL (one URL: a rename; two: the object embedded twice; none: the
    embedding removed, leaving a script's end tag)."""
    text = document.decode("utf-8", errors="surrogateescape")
    out: list[str] = []
    done = 0
    for e in scan(text, base):
        new = changes.get(e.url)
        if new is None:
            continue
        before, after = text[e.start : e.value_start], text[e.value_end : e.end]
        copies = [before + escape(url) + after for url in new]
        if e.tag == "script":  # a script's content is raw text: close each copy but the last
            copies[:-1] = [copy + "</script>" for copy in copies[:-1]]
        out += [text[done : e.start], *copies]
        done = e.end
    out.append(text[done:])
    return "".join(out).encode("utf-8", errors="surrogateescape")


def embedding_tag(content_type: str, url: str) -> str:
    """A tag that embeds ``url`` as a browser would fetch an object of ``content_type``
    (an image tag for any type but style sheets and scripts)."""
    target = escape(url)
    if content_type.startswith("text/css"):
        return f'<link rel="stylesheet" type="text/css" href="{target}">'
    if "javascript" in content_type or "ecmascript" in content_type:
        return f'<script type="text/javascript" src="{target}"></script>'
    return f'<img src="{target}" alt="">'
