"""The real-time emulator: real packets driven through the simulator's link models."""
