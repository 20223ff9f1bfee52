"""Connection states and the transition table of RFC 9293 3.3.2 (Figure 5).

RFC 9293 Figure 5, abridged (events in parentheses, ``snd`` what is sent)::

    CLOSED      --(active open) snd SYN-->              SYN-SENT
    LISTEN      --(rcv SYN) snd SYN,ACK-->              SYN-RECEIVED
    SYN-SENT    --(rcv SYN,ACK) snd ACK-->              ESTABLISHED
    SYN-SENT    --(rcv SYN) snd SYN,ACK-->              SYN-RECEIVED
    SYN-RECEIVED--(rcv ACK of SYN)-->                   ESTABLISHED
    SYN-RECEIVED--(CLOSE) snd FIN-->                    FIN-WAIT-1
    ESTABLISHED --(CLOSE) snd FIN-->                    FIN-WAIT-1
    ESTABLISHED --(rcv FIN) snd ACK-->                  CLOSE-WAIT
    FIN-WAIT-1  --(rcv ACK of FIN)-->                   FIN-WAIT-2
    FIN-WAIT-1  --(rcv FIN) snd ACK-->                  CLOSING
    FIN-WAIT-2  --(rcv FIN) snd ACK-->                  TIME-WAIT
    CLOSING     --(rcv ACK of FIN)-->                   TIME-WAIT
    CLOSE-WAIT  --(CLOSE) snd FIN-->                    LAST-ACK
    LAST-ACK    --(rcv ACK of FIN)-->                   CLOSED
    TIME-WAIT   --(timeout = 2 MSL)-->                  CLOSED

A reset or an abort leads from any state to CLOSED and is handled outside the table.
"""

from enum import Enum

from wwanlab.tcp.errors import InvalidTransition


class State(Enum):
    LISTEN = "LISTEN"
    SYN_SENT = "SYN-SENT"
    SYN_RECEIVED = "SYN-RECEIVED"
    ESTABLISHED = "ESTABLISHED"
    FIN_WAIT_1 = "FIN-WAIT-1"
    FIN_WAIT_2 = "FIN-WAIT-2"
    CLOSE_WAIT = "CLOSE-WAIT"
    CLOSING = "CLOSING"
    LAST_ACK = "LAST-ACK"
    TIME_WAIT = "TIME-WAIT"
    CLOSED = "CLOSED"


class Input(Enum):
    RCV_SYN = "rcv SYN"
    RCV_SYN_ACK = "rcv SYN,ACK"
    RCV_ACK_OF_SYN = "rcv ACK of SYN"
    CLOSE = "CLOSE"
    RCV_FIN = "rcv FIN"
    RCV_ACK_OF_FIN = "rcv ACK of FIN"
    TIMEOUT_2MSL = "timeout 2MSL"


S = State
TRANSITIONS: dict[tuple[State, Input], State] = {
    (S.LISTEN, Input.RCV_SYN): S.SYN_RECEIVED,
    (S.SYN_SENT, Input.RCV_SYN_ACK): S.ESTABLISHED,
    (S.SYN_SENT, Input.RCV_SYN): S.SYN_RECEIVED,
    (S.SYN_SENT, Input.CLOSE): S.CLOSED,
    (S.SYN_RECEIVED, Input.RCV_ACK_OF_SYN): S.ESTABLISHED,
    (S.SYN_RECEIVED, Input.CLOSE): S.FIN_WAIT_1,
    (S.ESTABLISHED, Input.CLOSE): S.FIN_WAIT_1,
    (S.ESTABLISHED, Input.RCV_FIN): S.CLOSE_WAIT,
    (S.FIN_WAIT_1, Input.RCV_ACK_OF_FIN): S.FIN_WAIT_2,
    (S.FIN_WAIT_1, Input.RCV_FIN): S.CLOSING,
    (S.FIN_WAIT_2, Input.RCV_FIN): S.TIME_WAIT,
    (S.CLOSING, Input.RCV_ACK_OF_FIN): S.TIME_WAIT,
    (S.CLOSE_WAIT, Input.CLOSE): S.LAST_ACK,
    (S.LAST_ACK, Input.RCV_ACK_OF_FIN): S.CLOSED,
    (S.TIME_WAIT, Input.TIMEOUT_2MSL): S.CLOSED,
}

SYNCHRONIZED = frozenset(
    {
        S.ESTABLISHED,
        S.FIN_WAIT_1,
        S.FIN_WAIT_2,
        S.CLOSE_WAIT,
        S.CLOSING,
        S.LAST_ACK,
        S.TIME_WAIT,
    }
)
"""RFC 9293 3.5.2: states in which both sequence spaces are known."""

RECEIVES_DATA = frozenset({S.ESTABLISHED, S.FIN_WAIT_1, S.FIN_WAIT_2})
"""RFC 9293 3.10.7.4 "seventh, process the segment text"."""


def next_state(state: State, event: Input) -> State:
    """The table's answer; an unlisted pair raises ``InvalidTransition``."""
    try:
        return TRANSITIONS[(state, event)]
    except KeyError:
        raise InvalidTransition(f"{event.value} in state {state.value}") from None
