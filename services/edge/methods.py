"""The methods the edge forwards, read from the public services' descriptors.

Nothing here names an RPC: a method added to one of the public protos (match, matchmaking,
account, social) is forwarded as soon as the generated code is regenerated; a method only
services may call (with a service token, as GetStanding) is forwarded too, and the service
refuses a player's token. Client and bidirectional streams are left
out: a browser's fetch cannot stream a request body over HTTP/1.1, and no public API has one.
The staff's APIs (domino.admin.v1) are in none of these modules, so the edge never forwards
them: only the console calls them, inside the cluster.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from domino.account.v1 import account_service_pb2
from domino.match.v1 import match_service_pb2
from domino.matchmaking.v1 import matchmaking_service_pb2
from domino.social.v1 import social_service_pb2

PUBLIC_MODULES: tuple[ModuleType, ...] = (match_service_pb2, matchmaking_service_pb2, account_service_pb2,
                                          social_service_pb2)
# Methods of the public services that only the cluster calls: the public host does not route
# them (deploy/k8s components/public-edge), so the edge does not forward them either. Only a
# method that needs no token belongs here; one that needs a service token is refused by its
# service (as GetStanding is) and stays forwarded.
CLUSTER_ONLY = frozenset({"/domino.account.v1.AccountService/ListRevokedSessions"})


@dataclass(frozen=True)
class ForwardedMethod:
    service: str  # full name: domino.match.v1.MatchService
    name: str  # DescribeRules
    server_streaming: bool

    @property
    def path(self) -> str:
        """The HTTP path gRPC, gRPC-Web and Connect all give the method."""
        return f"/{self.service}/{self.name}"


def public_services(modules: tuple[ModuleType, ...] = PUBLIC_MODULES) -> tuple[str, ...]:
    return tuple(service.full_name for module in modules for service in module.DESCRIPTOR.services_by_name.values())


def forwarded_methods(modules: tuple[ModuleType, ...] = PUBLIC_MODULES) -> tuple[ForwardedMethod, ...]:
    methods = []
    for module in modules:
        for service in module.DESCRIPTOR.services_by_name.values():
            for method in service.methods:
                forwarded = ForwardedMethod(service.full_name, method.name, method.server_streaming)
                if not method.client_streaming and forwarded.path not in CLUSTER_ONLY:
                    methods.append(forwarded)
    return tuple(methods)
