"""asyncio drivers: bind sans-IO endpoints to real UDP sockets."""
