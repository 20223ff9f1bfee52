"""Compare two protocol stacks on one link: WSP/WTP against HTTP over TCP SACK.

Run: .venv/bin/python examples/compare_stacks.py

The testbed is paper 000's (preset serial-9k6: a 9.6 kbit/s serial line behind a box
that drops packets): fetch the same file by each stack, without loss and at 10% loss in
both directions, three seeds each, and print the goodput of the whole exchange
(connection set-up, request, reply, teardown), as the paper measured it.

Without loss TCP does worse than at 10% loss: RFC 6298's 1 s minimum retransmission
timeout is shorter than the 1.57 s one 1500-octet packet takes on this line, so TCP
resends packets that were not lost (docs/reproductions/wap-vs-tcp.md).
`wwanlab reproduce wap-vs-tcp` runs the full sweep and compares it with the paper.
"""

import statistics

from wwanlab.experiments.transfers import Transfer, http_transfer, wap_transfer

SIZE = 10_000  # octets
SEEDS = (1, 2, 3)


def fetch(stack: str, loss: float, seed: int) -> Transfer:
    if stack == "WSP/WTP":
        return wap_transfer(SIZE, loss, seed)
    return http_transfer(SIZE, loss, seed, variant="sack")


print(f"goodput of a {SIZE}-octet fetch over serial-9k6, mean of seeds {SEEDS}")
for loss in (0.0, 0.10):
    for stack in ("WSP/WTP", "HTTP/TCP SACK"):
        runs = [fetch(stack, loss, seed) for seed in SEEDS]
        goodput = statistics.mean(r.goodput_bps for r in runs)
        resent = sum(r.retransmissions for r in runs)
        print(
            f"  loss {loss:4.0%}  {stack:<14} {goodput:7.0f} bit/s  "
            f"({resent} packets sent again in {len(runs)} runs)"
        )
