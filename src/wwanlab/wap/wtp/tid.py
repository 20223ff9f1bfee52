"""Transaction identifiers: generation at the initiator, the TID test at the responder.

A TID is 15 bits; the 16th (top) bit on the wire says which side sent the PDU: clear
from the initiator, set from the responder (WTP 7.8.1, 8.1). The initiator increments
its TID by one per transaction; a responder caches the last TID seen per initiator and
accepts a new one only inside a window, else it asks the initiator to verify the TID
with a three-way handshake (WTP 7.8.2.3, 7.9).
"""

import random
from enum import Enum

from wwanlab.core.address import Address
from wwanlab.wap.wtp.constants import MAX_TID

TID_SPACE = MAX_TID + 1  # 15-bit TID (WTP 7.8.1, 9.2.4)


class TidGenerator:
    """The initiator's TID counter: random start, +1 per transaction (WTP 7.8.1)."""

    def __init__(self, rng: random.Random) -> None:
        self.next_tid = rng.randrange(TID_SPACE)
        self._issued = False

    def new(self) -> tuple[int, bool]:
        """The next TID and whether it wrapped (then TIDnew must be set, WTP 7.8.3.2)."""
        tid = self.next_tid
        wrapped = self._issued and tid == 0
        self._issued = True
        self.next_tid = (tid + 1) % TID_SPACE
        return tid, wrapped


class TidTest(Enum):
    OK = "ok"
    VERIFY = "verify"  # Fail in WTP Table 6: start TID verification


class TidCache:
    """The responder's LastTID per initiator address and the window test (WTP 7.8.2.3)."""

    def __init__(self, window: int) -> None:
        self.window = window
        self.last: dict[Address, int] = {}

    def test(self, peer: Address, tid: int, tid_new: bool) -> TidTest:
        """TIDnew always verifies; an unknown initiator is accepted and cached (as Kannel)."""
        if tid_new:
            return TidTest.VERIFY
        last = self.last.get(peer)
        if last is None or self._in_window(tid, last):
            self.last[peer] = tid
            return TidTest.OK
        return TidTest.VERIFY

    def verified(self, peer: Address, tid: int, tid_new: bool) -> None:
        """After Ack(TIDok): reset LastTID only when TIDnew was set (WTP 7.9.3, Table 9)."""
        if tid_new or peer not in self.last:
            self.last[peer] = tid

    def _in_window(self, rcv: int, last: int) -> bool:
        if rcv == last:
            return False  # a duplicate
        if rcv > last:
            return rcv - last <= self.window
        return last - rcv >= self.window  # wrapped around
