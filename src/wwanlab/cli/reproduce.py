"""``wwanlab reproduce NAME|all``: a paper's results beside ours, claim by claim."""

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from wwanlab import reproductions
from wwanlab.cli.common import (
    DbOption,
    JobsOption,
    JsonOption,
    SchedulerOption,
    check_before_work,
    output_console,
    print_json,
)
from wwanlab.core.errors import UsageError
from wwanlab.experiments.reproduction import Claim, reproduce, select
from wwanlab.experiments.store import DEFAULT_DB
from wwanlab.report.html import part_verdicts, verdict


def register(app: typer.Typer) -> None:
    @app.command(name="reproduce")
    def reproduce_command(
        name: Annotated[
            str | None, typer.Argument(help="A reproduction's name, or 'all'.")
        ] = None,
        list_: Annotated[
            bool, typer.Option("--list", help="List the registered reproductions.")
        ] = False,
        quick: Annotated[
            bool, typer.Option("--quick", help="Smaller runs, for a first look.")
        ] = False,
        out: Annotated[Path, typer.Option(help="Folder for the report.")] = Path("results/report"),
        jobs: JobsOption = None,
        scheduler: SchedulerOption = None,
        db: DbOption = DEFAULT_DB,
        json: JsonOption = False,
    ) -> None:
        """Rerun a paper's experiments and say, per claim, whether it holds."""
        if list_:
            loaded = reproductions.load()
            shown = None if name in (None, "all") else {r.name for r in select(name, loaded)}
            registered = [
                {
                    "name": r.name,
                    "paper": r.paper,
                    "title": r.title,
                    "extensions": list(r.extensions),
                }
                for r in sorted(loaded.values(), key=lambda r: r.name)
                if shown is None or r.name in shown
            ]
            status = reproductions.status()
            papers = [p for p in status if shown is None or p["reproduction"] in shown]
            _print_list(papers, registered, json)
            return
        if name is None:
            raise UsageError("name a reproduction, 'all', or pass --list")
        chosen = select(name, reproductions.load())
        if not chosen:
            if json:
                print_json({"reproductions": [], "message": "no reproductions are registered"})
            else:
                print("no reproductions are registered")
            return
        check_before_work(jobs=jobs, scheduler=scheduler, out=out, db=db)
        results = reproduce(
            chosen,
            quick=quick,
            out=out,
            jobs=jobs,
            scheduler=scheduler,
            progress=True,
            db=db,
            front=reproductions.front(),
        )
        by_name = {r.name: r for r in chosen}
        summary: list[dict[str, Any]] = [
            {
                "name": res.name,
                "paper": by_name[res.name].paper,
                "title": by_name[res.name].title,
                "page": str(out / res.page.filename),
                "tables": list(res.tables),
                "numbers": dict(res.numbers),
                "held": res.held,
                "claims": [_claim_json(c) for c in res.paper_claims],
                "extensions_held": sum(1 for c in res.extensions if c.holds),
                "extensions": [_claim_json(c) for c in res.extensions],
            }
            for res in results
        ]
        if json:
            print_json({"reproductions": summary, "index": str(out / "index.html")})
            return
        by_result = {res.name: res for res in results}
        console = output_console()
        for entry in summary:
            table = Table(title=f"{entry['name']}: {entry['title']} ({entry['paper']})")
            for column in ("claim", "paper", "ours", "verdict"):
                table.add_column(column)
            res = by_result[entry["name"]]
            for claim in [*res.paper_claims, *res.extensions]:
                colour = "green" if claim.holds else "red"
                said = "\n".join([f"[{colour}]{verdict(claim)}[/]", *part_verdicts(claim)])
                mark = " (extension)" if claim.extension else ""
                table.add_row(claim.claim + mark, claim.paper, claim.ours, said)
            console.print(table)
            line = f"{entry['held']} of {len(entry['claims'])} of the paper's claims hold"
            if entry["extensions"]:
                line += (
                    f"; this project's extensions: {entry['extensions_held']} of "
                    f"{len(entry['extensions'])}"
                )
            console.print(line)
        console.print(f"report: {out / 'index.html'}")


def _claim_json(c: Claim) -> dict[str, Any]:
    return {
        "claim": c.claim,
        "paper": c.paper,
        "ours": c.ours,
        "holds": c.holds,
        "verdict": verdict(c),
        "parts": [{"what": p.what, "holds": p.holds, "ours": p.ours} for p in c.parts],
        "why": None
        if c.why is None
        else {
            "mechanism": c.why.mechanism,
            "ablation": [
                {"variant": r.variant, "ours": r.ours, "holds": r.holds} for r in c.why.ablation
            ],
        },
    }


def _print_list(
    papers: list[dict[str, str]], registered: list[dict[str, Any]], json: bool
) -> None:
    """The papers, each with its reproduction's name and whether it is reproduced yet,
    then any registered reproduction that is not one of them."""
    if json:
        print_json({"papers": papers, "reproductions": registered})
        return
    console = output_console()
    table = Table("paper", "title", "reproduction", "status")
    for p in papers:
        status = "[green]reproduced[/]" if p["status"] == "reproduced" else "not yet"
        table.add_row(p["paper"], p["title"], p["reproduction"], status)
    console.print(table)
    named = {p["reproduction"] for p in papers}
    others = [r for r in registered if r["name"] not in named]
    for r in registered:
        if r["extensions"]:
            console.print(
                f"{r['name']}: this project's extensions, counted apart from the paper's"
            )
            for e in r["extensions"]:
                console.print(f"  - {e}")
    if others:
        extra = Table("name", "paper", "title", title="Other registered reproductions")
        for r in others:
            extra.add_row(r["name"], r["paper"], r["title"])
        console.print(extra)
