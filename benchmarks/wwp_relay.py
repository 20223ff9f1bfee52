"""WWP's two commands moving a file across the lossy relay on loopback.

Plain script:  python benchmarks/wwp_relay.py [--size 5242880] [--preset vdeldrop]

Starts ``wwanlab wwp receive`` and ``wwanlab wwp send`` as processes, with the
project's ``LossyRelay`` between them applying the link preset to every datagram in
both directions (until ``wwanlab emulate`` can carry them), and checks the copy byte
for byte. Prints both commands' JSON and the relay's counters. Real time: a 5 MB file
over ``vdeldrop`` takes minutes.
"""

import argparse
import asyncio
import json
import random
import sys
import tempfile
from pathlib import Path

from wwanlab.aio.relay import LossyRelay
from wwanlab.link.presets import get_preset

WWANLAB = str(Path(sys.executable).parent / "wwanlab")


async def main(size: int, preset_name: str, bt: float, seed: int) -> int:
    preset = get_preset(preset_name)
    with tempfile.TemporaryDirectory() as folder:
        source, copy = Path(folder) / "in.bin", Path(folder) / "out.bin"
        source.write_bytes(random.Random(seed).randbytes(size))
        port = 47_000 + seed % 1000
        receiver = await asyncio.create_subprocess_exec(
            *[WWANLAB, "wwp", "receive", "--port", str(port), "--bind", "127.0.0.1"],
            *["-o", str(copy), "--bt", str(bt), "--json"],
            stdout=asyncio.subprocess.PIPE,
        )
        await asyncio.sleep(1.0)
        relay = await LossyRelay.start(
            ("127.0.0.1", port),
            lambda: (preset.build("up"), preset.build("down")),
            random.Random(seed),
        )
        host, relay_port = relay.address
        try:
            sender = await asyncio.create_subprocess_exec(
                *[WWANLAB, "wwp", "send", str(source), f"{host}:{relay_port}"],
                *["--bt", str(bt), "--json"],
                stdout=asyncio.subprocess.PIPE,
            )
            sent, _ = await sender.communicate()
            received, _ = await receiver.communicate()
        finally:
            relay.close()
        same = copy.read_bytes() == source.read_bytes()
    print(json.dumps({"sender": json.loads(sent), "receiver": json.loads(received)}, indent=2))
    print(f"relay {dict(relay.stats)}; copy byte-exact: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=5_242_880)
    parser.add_argument("--preset", default="vdeldrop")
    parser.add_argument("--bt", type=float, default=121_540.0, help="WWP's BT, octets/s")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.size, args.preset, args.bt, args.seed)))
