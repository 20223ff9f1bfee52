"""The nftables table that lets the inner namespace reach beyond the host.

One table per instance, ``ip wwanlab_N``, in the caller's namespace, holding one rule:
packets from the inner address that leave by any device but the instance's own are
masqueraded to that device's address (traffic to ``WWANLAB_HOST`` itself is local and
untouched). A table is removed whole, so removal cannot leave a stray rule, and a
table whose slot is free belongs to an instance that died with its guardian: the sweep
at every start removes those.
"""

from __future__ import annotations

import json
import subprocess

from wwanlab.emu import instances
from wwanlab.emu.netns import EmulatorUnavailable


def _nft(args: list[str], *, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["nft", *args], input=stdin, capture_output=True, text=True, check=False)


def add_masquerade(table: str, inner_address: str, host_device: str) -> None:
    ruleset = (
        f"table ip {table} {{\n"
        "  chain postrouting {\n"
        "    type nat hook postrouting priority srcnat; policy accept;\n"
        f'    ip saddr {inner_address} oifname != "{host_device}" masquerade\n'
        "  }\n"
        "}\n"
    )
    done = _nft(["-f", "-"], stdin=ruleset)
    if done.returncode != 0:
        raise EmulatorUnavailable(f"nftables refused the NAT table: {done.stderr.strip()}")


def delete_table(table: str) -> bool:
    """Remove ``table`` if it exists; whether it did."""
    return _nft(["delete", "table", "ip", table]).returncode == 0


def tables() -> list[str]:
    """Names of the emulator's tables in the caller's namespace."""
    done = _nft(["-j", "list", "tables", "ip"])
    if done.returncode != 0:
        return []
    entries = json.loads(done.stdout).get("nftables", [])
    names = [e["table"]["name"] for e in entries if "table" in e]
    return [n for n in names if n.startswith(instances.TABLE_PREFIX)]


def sweep() -> list[str]:
    """Remove tables whose instance is gone; their names. Call with the registry lock."""
    live = instances.live_slots()
    removed = []
    for table in tables():
        suffix = table.removeprefix(instances.TABLE_PREFIX)
        if suffix.isdigit() and int(suffix) not in live and delete_table(table):
            removed.append(table)
    return removed
