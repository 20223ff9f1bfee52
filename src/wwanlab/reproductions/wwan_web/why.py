"""Why each claim of paper 003 misses on our models, in one sentence per claim: the
mechanism the ablation's runs (``ablation``) show beside it on the page."""

MECHANISMS: dict[str, str] = {
    "throughput": "to be written from the run",
    "idle": "to be written from the run",
    "compression": "to be written from the run",
    "pipelining": "to be written from the run",
    "connections": "to be written from the run",
    "dns": "to be written from the run",
    "transport": "to be written from the run",
    "dual": "to be written from the run",
    "all": "to be written from the run",
    "mismatch": "to be written from the run",
}
