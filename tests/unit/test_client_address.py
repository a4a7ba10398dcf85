"""The client a call is counted as: the TCP peer, or behind trusted hops the address they
forwarded; IPv6 by its /64."""

from __future__ import annotations

import pytest

from services.common.client_address import client_key, trusted_networks

EDGE = trusted_networks("10.0.0.0/8, 2001:db8:ffff::/48")


def xff(value: str) -> list[tuple[str, str]]:
    return [("x-forwarded-for", value)]


def test_without_trusted_hops_the_peer_is_the_client_whatever_the_header_says():
    assert client_key("ipv4:203.0.113.9:5555", xff("198.51.100.1"), ()) == "203.0.113.9"


def test_behind_a_trusted_hop_the_forwarded_address_is_the_client():
    assert client_key("ipv4:10.1.2.3:40000", xff("198.51.100.7"), EDGE) == "198.51.100.7"


def test_a_client_written_entry_left_of_the_gateways_is_not_believed():
    assert client_key("ipv4:10.1.2.3:40000", xff("192.0.2.200, 198.51.100.7"), EDGE) == "198.51.100.7"


def test_hops_are_walked_from_the_right_past_every_trusted_one():
    assert client_key("ipv4:10.1.2.3:1", xff("198.51.100.7, 10.9.9.9"), EDGE) == "198.51.100.7"


def test_an_untrusted_peer_is_the_client_even_with_a_header():
    assert client_key("ipv4:192.0.2.4:1", xff("198.51.100.7"), EDGE) == "192.0.2.4"


def test_ipv6_clients_are_counted_by_their_64():
    one = client_key("ipv6:[2001:db8:1:2:aaaa::1]:443", None, ())
    other = client_key("ipv6:[2001:db8:1:2:ffff:1:2:3]:443", None, ())
    elsewhere = client_key("ipv6:[2001:db8:1:3::1]:443", None, ())
    assert one == other == "2001:db8:1:2::/64" and elsewhere != one


def test_a_forwarded_ipv6_address_with_a_port_is_grouped_too():
    assert client_key("ipv6:[2001:db8:ffff::5]:1", xff("[2001:db8:7:7::9]:51000"), EDGE) == "2001:db8:7:7::/64"


def test_an_ipv4_mapped_peer_is_its_ipv4_address():
    assert client_key("ipv6:[::ffff:198.51.100.3]:1", None, ()) == "198.51.100.3"


def test_garbage_where_the_gateway_writes_leaves_the_gateway_as_the_client():
    assert client_key("ipv4:10.1.2.3:1", xff("not an address"), EDGE) == "10.1.2.3"


def test_a_unix_socket_peer_is_one_local_caller():
    assert client_key("unix:/tmp/s", xff("198.51.100.7"), EDGE) == "peer:unix:/tmp/s"


def test_an_entry_that_is_no_address_is_refused_in_the_setting():
    with pytest.raises(ValueError, match="not an IP address"):
        trusted_networks("10.0.0.0/8, gateway")
