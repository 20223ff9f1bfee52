"""Abort reasons by name: WTP's provider reasons and WSP's Table 35 in one octet."""

import pytest

from wwanlab.wap.wsp.constants import AbortReason, abort_reason_name
from wwanlab.wap.wtp.constants import AbortReason as WtpAbortReason
from wwanlab.wap.wtp.constants import AbortType


@pytest.mark.parametrize(
    ("reason", "abort_type", "name"),
    [
        (0x08, None, "NORESPONSE"),
        (0x08, AbortType.PROVIDER, "NORESPONSE"),
        (0x08, AbortType.USER, "0x08"),  # no WSP reason has that number
        (0xE8, None, "PEERREQ"),
        (0xE8, AbortType.USER, "PEERREQ"),
        (0xE8, AbortType.PROVIDER, "0xe8"),
        (0x0B, None, "0x0b"),
        (0xEF, None, "0xef"),
    ],
)
def test_abort_reason_name(reason, abort_type, name):
    assert abort_reason_name(reason, abort_type) == name


def test_every_reason_of_both_tables_has_its_name():
    for table in (WtpAbortReason, AbortReason):
        for reason in table:
            assert abort_reason_name(reason) == reason.name
