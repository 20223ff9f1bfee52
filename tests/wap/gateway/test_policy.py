import pytest

from wwanlab.core.errors import UsageError
from wwanlab.wap.gateway.policy import OriginPolicy

REFUSED = [
    "127.0.0.1",
    "127.8.9.10",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "100.64.0.1",
    "169.254.169.254",
    "0.0.0.0",
    "224.0.0.1",
    "::1",
    "fe80::1",
    "fc00::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
]
PERMITTED = ["8.8.8.8", "93.184.216.34", "2001:4860:4860::8888", "172.32.0.1"]


@pytest.mark.parametrize("address", REFUSED)
def test_default_policy_refuses_non_global_addresses(address):
    assert not OriginPolicy().permits(address)


@pytest.mark.parametrize("address", PERMITTED)
def test_default_policy_permits_global_addresses(address):
    assert OriginPolicy().permits(address)


def test_allow_origin_opens_exactly_the_named_network():
    policy = OriginPolicy.from_strings(["127.0.0.0/8", "10.9.0.0/16"])
    assert policy.permits("127.0.0.1")
    assert policy.permits("10.9.200.1")
    assert not policy.permits("10.8.0.1")
    assert not policy.permits("192.168.0.1")
    assert policy.permits("::ffff:127.0.0.1")


def test_bad_network_is_a_usage_error():
    with pytest.raises(UsageError, match="not an IP network"):
        OriginPolicy.from_strings(["10.0.0.0/33"])
