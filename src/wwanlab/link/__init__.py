"""Channel and link models shared by the simulator and the real-time emulator."""

from wwanlab.link.base import Direction, Drop, Stage, Verdict

__all__ = ["Direction", "Drop", "Stage", "Verdict"]
