"""``wwanlab wbxml encode|decode``: XML <-> WBXML files; ``-`` is stdin or stdout."""

import sys
from pathlib import Path
from typing import Annotated, cast

import typer

from wwanlab.cli.common import print_json
from wwanlab.core.errors import UsageError
from wwanlab.wap.wbxml import TokenTable, WbxmlError, decode, encode, table_by_name, to_xml
from wwanlab.wap.wbxml.decoder import DEFAULT_MAX_ELEMENTS, DEFAULT_MAX_OUTPUT
from wwanlab.wap.wbxml.xmlio import Whitespace

STDIO = Path("-")
WHITESPACE = ("auto", "collapse", "preserve", "ignorable", "trim")


def _read(path: Path) -> bytes:
    try:
        return sys.stdin.buffer.read() if path == STDIO else path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


def _write(path: Path, data: bytes) -> None:
    try:
        if path == STDIO:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            path.write_bytes(data)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None


def _report(output: Path, json: bool, fields: dict[str, object], line: str) -> None:
    """The summary: JSON or a line on stdout, or a line on stderr when stdout holds the
    document itself."""
    if json:
        print_json(fields)
    else:
        print(line, file=sys.stderr if output == STDIO else sys.stdout)


def _check_stdout(output: Path, json: bool) -> None:
    if output == STDIO and json:
        raise UsageError("--json and -o - both want stdout; write the document to a file")


def _document_type(text: str | None) -> tuple[int | str | None, TokenTable | None]:
    """(public id, table) from a number (``10``, ``0x0A``), an FPI or a table name."""
    if text is None:
        return None, None
    try:
        return int(text, 0), None
    except ValueError:
        pass
    if text.startswith("-//"):
        return text, None
    try:
        return None, table_by_name(text)
    except WbxmlError as exc:
        raise UsageError(str(exc)) from None


def register(app: typer.Typer) -> None:
    wbxml_app = typer.Typer(help="Encode XML as WBXML and decode WBXML to XML.")
    app.add_typer(wbxml_app, name="wbxml")

    @wbxml_app.command("encode")
    def encode_command(
        source: Annotated[Path, typer.Argument(help="XML file to encode; - reads stdin.")],
        output: Annotated[
            Path, typer.Option("-o", "--output", help="WBXML file to write; - is stdout.")
        ],
        version: Annotated[str, typer.Option(help="WBXML version: 1.0 to 1.3.")] = "1.3",
        publicid: Annotated[
            str | None,
            typer.Option(
                "--publicid",
                help="Public id: number (0x0A), table name (wml13) or FPI; "
                "default from the DOCTYPE or root element.",
            ),
        ] = None,
        no_string_table: Annotated[
            bool, typer.Option("--no-string-table", help="Write every string inline.")
        ] = False,
        whitespace: Annotated[
            str,
            typer.Option(
                help="auto (by document type: collapse for WML, SI, SL, CO, provisioning; "
                "else ignorable), collapse, preserve, ignorable (drop blank text) or trim."
            ),
        ] = "auto",
        json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    ) -> None:
        """Encode an XML document as WBXML."""
        if whitespace not in WHITESPACE:
            raise UsageError(
                f"--whitespace must be one of {', '.join(WHITESPACE)}, not {whitespace}"
            )
        _check_stdout(output, json)
        xml = _read(source)
        public_id, table = _document_type(publicid)
        try:
            data = encode(
                xml,
                version=version,
                public_id=public_id,
                table=table,
                string_table=not no_string_table,
                whitespace=None if whitespace == "auto" else cast(Whitespace, whitespace),
            )
        except WbxmlError as exc:
            raise UsageError(f"{source}: {exc}") from None
        _write(output, data)
        line = f"{source}: {len(xml)} bytes XML -> {len(data)} bytes WBXML {version}"
        _report(output, json, {"input": str(source), "output": str(output),
                               "xml_bytes": len(xml), "wbxml_bytes": len(data)}, line)  # fmt: skip

    @wbxml_app.command("decode")
    def decode_command(
        source: Annotated[Path, typer.Argument(help="WBXML file to decode; - reads stdin.")],
        output: Annotated[
            Path, typer.Option("-o", "--output", help="XML file to write; - is stdout.")
        ],
        publicid: Annotated[
            str | None,
            typer.Option("--publicid", help="Token table to use if the header's is unknown."),
        ] = None,
        indent: Annotated[bool, typer.Option(help="Indent element-only content.")] = True,
        max_elements: Annotated[
            int, typer.Option("--max-elements", min=1, help="Refuse documents with more.")
        ] = DEFAULT_MAX_ELEMENTS,
        max_output: Annotated[
            int,
            typer.Option("--max-output", min=1, help="Refuse documents holding more characters."),
        ] = DEFAULT_MAX_OUTPUT,
        json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    ) -> None:
        """Decode a WBXML document to XML."""
        _check_stdout(output, json)
        data = _read(source)
        try:
            table = table_by_name(publicid) if publicid else None
        except WbxmlError as exc:
            raise UsageError(str(exc)) from None
        try:
            doc = decode(data, table=table, max_elements=max_elements, max_output=max_output)
            xml = to_xml(doc, indent=indent)
        except WbxmlError as exc:
            raise UsageError(f"{source}: {exc}") from None
        _write(output, xml)
        line = f"{source}: {len(data)} bytes WBXML -> {len(xml)} bytes XML"
        _report(output, json, {"input": str(source), "output": str(output),
                               "public_id": doc.public_id, "wbxml_bytes": len(data),
                               "xml_bytes": len(xml)}, line)  # fmt: skip
