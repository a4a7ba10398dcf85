"""Which client a call comes from, as far as a rate limit can tell.

Behind the public gateway every phone's TCP peer is the gateway, so a limit keyed on the
peer is one bucket for everyone: one noisy client locked every phone out of signing in.
The gateway says who it forwarded for in `x-forwarded-for` (each hop appends the address
it received the call from). That header is believed only from the hops the operator lists
(`DOMINO_TRUSTED_PROXIES`): walking it from the right, past trusted hops, the first address
no trusted hop could have written is the client. A client that writes the header itself
only adds entries to the left of what the gateway appended, so it cannot choose its key.

IPv6 clients are grouped by their /64: one home or one phone on a carrier network has a
whole /64 and can rotate through it at will, so one address each would be no limit at all.
"""

from __future__ import annotations

import ipaddress
from typing import Iterable, Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
FORWARDED_FOR = "x-forwarded-for"
MAX_FORWARDED_ENTRIES = 16  # a header longer than this is read from its right end only
IPV6_GROUP = 64


def trusted_networks(text: str) -> tuple[Network, ...]:
    """``DOMINO_TRUSTED_PROXIES``: comma-separated addresses or CIDR blocks; ValueError
    naming the entry that is neither."""
    networks = []
    for entry in (part.strip() for part in text.split(",")):
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(f"DOMINO_TRUSTED_PROXIES: {entry[:60]!r} is not an IP address or CIDR block") from None
    return tuple(networks)


def peer_address(peer: str) -> Address | None:
    """The IP of a gRPC peer string (`ipv4:1.2.3.4:5`, `ipv6:[::1]:5`); None for a Unix
    socket or anything else."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        host = rest.rsplit(":", 1)[0]
    elif kind == "ipv6":
        host = rest.rsplit(":", 1)[0].strip("[]")
    else:
        return None
    return _address(host)


def client_key(peer: str, metadata: Iterable[tuple[str, str | bytes]] | None,
               trusted: Sequence[Network]) -> str:
    """The bucket a call's client is counted in: its address (an IPv6 one as its /64), or
    the peer as given when it has no IP (a Unix socket: one local caller)."""
    address = peer_address(peer)
    if address is None:
        return f"peer:{peer[:100]}"
    if trusted and _is_trusted(address, trusted):
        for hop in reversed(_forwarded(metadata)):
            if hop is None:
                break  # garbage where an address belongs: nothing to its left can be believed
            address = hop
            if not _is_trusted(hop, trusted):
                break
    return group_of(address)


def group_of(address: Address) -> str:
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped
        if mapped is not None:
            return str(mapped)
        return str(ipaddress.IPv6Network((address, IPV6_GROUP), strict=False))
    return str(address)


def _forwarded(metadata: Iterable[tuple[str, str | bytes]] | None) -> list[Address | None]:
    """Every hop of the call's `x-forwarded-for` headers, left to right (several headers read
    as one list, as HTTP says)."""
    entries: list[str] = []
    for key, value in metadata or ():
        if key.lower() == FORWARDED_FOR:
            text = value.decode("latin-1") if isinstance(value, bytes) else value
            entries.extend(text.split(","))
    return [_address(_strip_port(entry.strip())) for entry in entries[-MAX_FORWARDED_ENTRIES:]]


def _strip_port(entry: str) -> str:
    if entry.startswith("["):  # [v6]:port
        return entry[1:].split("]", 1)[0]
    if entry.count(":") == 1:  # v4:port
        return entry.split(":", 1)[0]
    return entry


def _address(text: str) -> Address | None:
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


def _is_trusted(address: Address, trusted: Sequence[Network]) -> bool:
    return any(address.version == network.version and address in network for network in trusted)
