"""The simulator's own error, in a module of its own: the hot modules may be compiled
with mypyc (scripts/compile.sh), which cannot compile a class with two built-in bases."""

from wwanlab.core.errors import WwanlabError


class SimulationError(WwanlabError, RuntimeError):
    """A misuse of the kernel: scheduling into the past, a bad time."""
