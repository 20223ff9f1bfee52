"""``python -m wwanlab.bench.client NAME PARAMS PATH``: one fetch, one JSON line out.

Run by the bench inside the emulator's namespace; prints the transport's ``Fetched``
as JSON on stdout, or one line on stderr and exit status 1 when the fetch failed.
"""

import asyncio
import json
import sys

from wwanlab.bench import registry


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python -m wwanlab.bench.client NAME PARAMS_JSON PATH", file=sys.stderr)
        return 2
    name, params, path = argv
    transport = registry.load().get(name)
    if transport is None or transport.fetch is None:
        print(f"no client for transport {name!r}", file=sys.stderr)
        return 2
    try:
        fetched = asyncio.run(transport.fetch(json.loads(params), path))
    except Exception as exc:  # the bench records the failure as a row, not a crash
        print(f"{name}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(fetched.to_json()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
