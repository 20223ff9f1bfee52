"""What a WTP endpoint tells its user (WSP): the TR-* indications and confirmations.

Every event names its transaction by ``handle``, the number ``WtpEndpoint.invoke``
returned (initiator) or the one in ``InvokeIndication`` (responder); commands take it
back. Primitive names follow WTP 5.3 (TR-Invoke, TR-Result, TR-Abort).
"""

from dataclasses import dataclass

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.wap.wtp.constants import AbortType, TransactionClass


@dataclass(frozen=True, slots=True)
class WtpEvent(Event):
    handle: int


@dataclass(frozen=True, slots=True)
class InvokeIndication(WtpEvent):
    """TR-Invoke.ind at the responder: a whole (reassembled) invoke message."""

    peer: Address
    tid: int
    data: bytes
    tcl: TransactionClass
    user_ack: bool


@dataclass(frozen=True, slots=True)
class InvokeConfirm(WtpEvent):
    """TR-Invoke.cnf at the initiator: the responder acknowledged the invoke."""


@dataclass(frozen=True, slots=True)
class ResultIndication(WtpEvent):
    """TR-Result.ind at the initiator: a whole (reassembled) result message."""

    data: bytes


@dataclass(frozen=True, slots=True)
class ResultConfirm(WtpEvent):
    """TR-Result.cnf at the responder: the initiator acknowledged the result."""


@dataclass(frozen=True, slots=True)
class AbortIndication(WtpEvent):
    """TR-Abort.ind: the transaction ended without completing.

    ``abort_type`` says who aborted (PROVIDER: a WTP entity, USER: the peer's WSP);
    ``reason`` is an ``AbortReason`` for PROVIDER and the peer user's code for USER.
    ``local`` is True when this endpoint decided it (timeouts, bad PDUs, size).
    """

    abort_type: AbortType
    reason: int
    local: bool
