"""What one gateway holds at most, and the WSP server settings that enforce it."""

from dataclasses import dataclass

from wwanlab.wap.wsp.session import WspServerConfig
from wwanlab.wap.wtp.timers import SAR_SEGM_SIZE


@dataclass(frozen=True, slots=True)
class GatewayLimits:
    """Bounds on sessions, methods and message sizes; the defaults suit a lab machine."""

    max_sessions: int = 20_000
    max_methods_per_session: int = 16  # the most MethodMOR we grant (WSP 8.3.2.4)
    max_message_size: int = 200 * SAR_SEGM_SIZE  # octets of one reply (under WTP's 256)
    idle_timeout: float = 300.0  # s without traffic before a quiet session is dropped
    max_connectionless_pending: int = 64  # per client address

    def __post_init__(self) -> None:
        if min(self.max_sessions, self.max_methods_per_session, self.max_message_size) < 1:
            raise ValueError("gateway limits must be at least 1")
        if self.idle_timeout <= 0:
            raise ValueError("idle_timeout must be positive")

    def wsp_server_config(self) -> WspServerConfig:
        """Connect is answered with SDU sizes no larger than ``max_message_size``."""
        return WspServerConfig(
            client_sdu_size=self.max_message_size,
            server_sdu_size=self.max_message_size,
            method_mor=self.max_methods_per_session,
            max_sessions=self.max_sessions,
            idle_timeout=self.idle_timeout,
        )
