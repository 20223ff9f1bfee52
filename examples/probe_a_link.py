"""Probe two link presets in the simulator: what each measures beside what it configures.

Run: .venv/bin/python examples/probe_a_link.py   (the same as `wwanlab probe --link NAME`)

A probe sends a back-to-back train (for the rate) and a paced train (for loss and
one-way delay) in both directions at once. Everything is simulated, so the same seed
gives the same numbers on any machine.
"""

from wwanlab.experiments.probe import probe

for name in ("dialup-56k", "gprs-busy"):
    result = probe(name, seed=1, count=300)
    print(f"{name} (seed {result.seed}, {result.count} paced probes per direction)")
    for direction, r in result.directions.items():
        m = r.measured()
        print(
            f"  {direction:>4}: rate {m['rate_bps'] / 1000:7.2f} kbit/s "
            f"(expected {r.expected_rate_bps / 1000:7.2f}), "
            f"received {m['received']} of {m['sent']}, "
            f"delay p50 {m['delay_ms']['p50']:7.1f} ms (expected {r.expected_delay_ms['p50']:.1f})"
        )
