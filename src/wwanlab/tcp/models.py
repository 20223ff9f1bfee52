"""Analytic steady-state TCP throughput models, to check the implementation against.

Both give bytes per second for a bulk transfer with segment size ``mss``, round-trip
time ``rtt`` and independent segment loss probability ``p``.
"""

import math

MATHIS_C_PER_ACK = math.sqrt(3 / 2)  # Mathis et al. 1997, eq. (3): one ACK per segment


def mathis(mss: int, rtt: float, p: float, b: int = 1) -> float:
    """Mathis, Semke, Mahdavi, Ott 1997: MSS/RTT * C/sqrt(p), C = sqrt(3/(2b))."""
    return mss / rtt * math.sqrt(3 / (2 * b)) / math.sqrt(p)


def pftk(mss: int, rtt: float, p: float, rto: float, wmax: float, b: int = 1) -> float:
    """Padhye, Firoiu, Towsley, Kurose 1998, eq. (32): with timeouts and a window cap.

    ``wmax`` is the receiver window in segments, ``b`` segments acknowledged per ACK.
    """
    denominator = rtt * math.sqrt(2 * b * p / 3) + rto * min(
        1.0, 3 * math.sqrt(3 * b * p / 8)
    ) * p * (1 + 32 * p * p)
    return mss * min(wmax / rtt, 1 / denominator)
