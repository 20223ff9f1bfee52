"""The retransmission timeout estimator of RFC 6298."""

from wwanlab.tcp.config import RTT_ALPHA, RTT_BETA, RTT_K, TcpConfig


class RtoEstimator:
    """SRTT, RTTVAR and RTO (RFC 6298 2), with exponential backoff (RFC 6298 5.5)."""

    __slots__ = ("_config", "rto", "rttvar", "samples", "srtt")

    def __init__(self, config: TcpConfig) -> None:
        self._config = config
        self.srtt: float | None = None
        self.rttvar = 0.0
        self.rto = config.rto_initial  # RFC 6298 2.1
        self.samples = 0

    def sample(self, rtt: float) -> None:
        """Take a measurement R (Karn's rule is the caller's: never a retransmitted one)."""
        if self.srtt is None:  # RFC 6298 2.2
            self.srtt = rtt
            self.rttvar = rtt / 2
        else:  # RFC 6298 2.3: RTTVAR first, with the old SRTT
            self.rttvar = (1 - RTT_BETA) * self.rttvar + RTT_BETA * abs(self.srtt - rtt)
            self.srtt = (1 - RTT_ALPHA) * self.srtt + RTT_ALPHA * rtt
        self.samples += 1
        cfg = self._config
        variance = max(cfg.clock_granularity, RTT_K * self.rttvar)
        if cfg.rto_min_floors_variance:  # Linux: the minimum bounds the variance term
            rto = self.srtt + max(variance, cfg.rto_min)
        else:  # RFC 6298 2.4: the minimum bounds the RTO itself
            rto = max(self.srtt + variance, cfg.rto_min)
        self.rto = min(rto, cfg.rto_max)  # RFC 6298 2.5

    def backoff(self) -> None:
        """RFC 6298 5.5: RTO <- RTO * 2, capped at the maximum (2.5)."""
        self.rto = min(self.rto * 2, self._config.rto_max)
