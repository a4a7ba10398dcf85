"""deploy/k8s: the staff's console. It runs like the other services, holds the operator key and
its sign-in secrets alone, is reached only through the internal route (never the players'
Gateway) and reaches only what it reads; and scripts/validate_k8s.py catches each of these
going wrong.
"""

from __future__ import annotations

import base64
import copy
import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "validate_k8s.py"


def _load_validator():
    spec = importlib.util.spec_from_file_location("validate_k8s_console", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


vk = _load_validator()


@pytest.fixture(scope="module")
def rendered():
    return {name: vk.render(name) for name in ("dev", "prod")}


def find(resources, kind, name):
    return next(r for r in resources if r["kind"] == kind and r["metadata"]["name"] == name)


def pod(res):
    return res["spec"]["template"]["spec"]


def console(resources):
    return find(resources, "Deployment", "console")


def main_container(resources):
    return next(c for c in pod(console(resources))["containers"] if c["name"] == "console")


def env_value(resources, name):
    return next(e for e in main_container(resources)["env"] if e["name"] == name).get("value")


def config_map(resources, prefix):
    return next(r for r in resources if r["kind"] == "ConfigMap" and re.fullmatch(rf"{prefix}(-\w+)?",
                                                                                    r["metadata"]["name"]))["data"]


def workloads(resources):
    return [r for r in resources if r["kind"] in ("Deployment", "StatefulSet", "Job")]


def problems(resources, change, overlay="dev"):
    resources = copy.deepcopy(resources)
    change(resources)
    return vk.check_invariants(resources, overlay)


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_the_console_runs_like_the_edge(rendered, overlay):
    """`python -m services.console`: one replica, HTTP :8090 probed on /healthz, metrics on
    9110, non-root with a read-only root, the account and match services by their Services."""
    resources = rendered[overlay]
    deployment = console(resources)
    main = main_container(resources)
    assert main["command"] == ["python", "-m", "services.console"]
    assert deployment["spec"]["replicas"] == 1
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert main[probe]["httpGet"] == {"path": "/healthz", "port": "http"}, probe
    assert {p["name"]: p["containerPort"] for p in main["ports"]} == {"http": 8090, "metrics": 9110}
    assert main["securityContext"]["readOnlyRootFilesystem"] is True
    assert main["securityContext"]["capabilities"]["drop"] == ["ALL"]
    assert pod(deployment)["securityContext"]["runAsNonRoot"] is True
    assert pod(deployment)["automountServiceAccountToken"] is False
    assert env_value(resources, "DOMINO_CONSOLE_ADDRESS") == "0.0.0.0:8090"
    assert env_value(resources, "DOMINO_ACCOUNT_ADDRESS") == "account:50053"
    assert env_value(resources, "DOMINO_MATCH_ADDRESS") == "match:50051"
    assert config_map(resources, "domino-config")["DOMINO_CONSOLE_METRICS_PORT"] == "9110"
    service = find(resources, "Service", "console")
    assert [(p["name"], p["port"]) for p in service["spec"]["ports"]] == [("http", 8090), ("metrics", 9110)]
    assert service["spec"]["type"] == "ClusterIP"
    assert not [h for h in resources if h["kind"] == "HorizontalPodAutoscaler"
                and h["spec"]["scaleTargetRef"]["name"] == "console"]


def test_the_console_scrapes_every_pod_of_every_service_through_a_headless_service(rendered):
    """A Service address picks one pod a connection: a rate over two scrapes would compare two
    pods' counters. A headless Service names each pod, and the console scrapes each."""
    resources = rendered["prod"]
    targets = dict(pair.split("=", 1) for pair in env_value(resources, "DOMINO_CONSOLE_METRICS_TARGETS").split(","))
    ports = {"match": 9101, "matchmaking": 9102, "bots": 9103, "relay": 9104, "account": 9105, "web": 9106,
             "social": 9107, "notifier": 9108}
    assert set(targets) == {"match", "matchmaking", "bots", "relay", "account", "edge", "social", "notifier"}
    for name, port in ports.items():
        service = find(resources, "Service", f"{name}-pods")
        assert service["spec"]["clusterIP"] == "None"
        assert service["spec"]["selector"] == find(resources, "Service", name)["spec"]["selector"]
        assert f"http://{name}-pods:{port}/metrics" in targets.values()


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_only_the_console_holds_the_operator_key_and_its_sign_in_secrets(rendered, overlay):
    """operator.key mints every member of staff's token: the console alone mounts it, and the
    account and match services hold its public half, as they hold the other kinds'."""
    resources = rendered[overlay]
    main = main_container(resources)
    assert vk.mounted_key_files(pod(console(resources)), main, "/keys") == {"operator.key"}
    for other in workloads(resources):
        if other["metadata"]["name"] != "console":
            assert not vk.secret_keys_held(other, "domino-operator-token-key", {"operator.key"}), ref(other)
            assert not vk.secret_keys_held(other, "domino-console", {"oidc-client-secret", "session-secret"}), \
                ref(other)
    for name in ("accounts", "match"):
        deployment = find(resources, "Deployment", name)
        files = vk.mounted_key_files(pod(deployment), next(c for c in pod(deployment)["containers"]
                                                          if c["name"] == name), "/keys")
        assert "operator.pub" in files and "operator.key" not in files, name
    assert env_value(resources, "DOMINO_CONSOLE_OIDC_CLIENT_SECRET_FILE") == "/secrets/console/oidc-client-secret"
    assert env_value(resources, "DOMINO_CONSOLE_SESSION_SECRET_FILE") == "/secrets/console/session-secret"
    assert vk.secret_mount_path(pod(console(resources)), main, "domino-console") == "/secrets/console"
    assert "operator.pub" in vk.EXTERNAL_CONFIGMAPS["domino-token-public-keys"]


def ref(res):
    return f"{res['kind']}/{res['metadata']['name']}"


def test_the_dev_operator_key_signs_tokens_the_services_accept(rendered, tmp_path):
    from services.common.auth import KeyRing, mint_token, verify_token

    dev = rendered["dev"]
    (tmp_path / "operator.key").write_bytes(
        base64.b64decode(find(dev, "Secret", "domino-operator-token-key")["data"]["operator.key"]))
    (tmp_path / "operator.pub").write_text(find(dev, "ConfigMap", "domino-token-public-keys")["data"]["operator.pub"])
    token = mint_token("staff-1", KeyRing.load(tmp_path, issues=("operator",)), "operator",
                       staff_roles=("viewer",), staff_name="Dev")
    assert verify_token(token, KeyRing.load(tmp_path, accepts=("operator",))).is_staff


def test_the_console_reads_the_witness_as_the_auditor(rendered):
    for overlay, resources in rendered.items():
        assert env_value(resources, "DOMINO_CONSOLE_NATS_USER") == "auditor", overlay
        assert env_value(resources, "DOMINO_CONSOLE_NATS_PASSWORD_FILE") == "/secrets/nats/auditor-password"
        assert vk.secret_keys_held(console(resources), "domino-nats", vk.EXTERNAL_SECRETS["domino-nats"]) == {
            "auditor-password"}


def test_who_reaches_the_console_and_what_it_reaches(rendered):
    """Only the staff ingress controller reaches its HTTP port (the scrapers its metrics); it
    reaches accounts' and match's gRPC, every service's metrics, NATS, DNS and HTTPS outside
    the private ranges (the identity provider)."""
    for overlay, resources in rendered.items():
        reach: dict = {}
        namespace = {"kubernetes.io/metadata.name": resources[0]["metadata"]["name"]}
        policies = [r for r in resources if r["kind"] == "NetworkPolicy"]
        assert vk.network_policy_problems(policies, workloads(resources), namespace, reach=reach) == [], overlay
        assert reach[("console", "http")] == {"the staff ingress controller"}
        assert reach[("console", "metrics")] == reach[("bots", "metrics")]
        assert "console" in reach[("nats", "client")]
        assert "console" not in reach[("postgres", "postgres")] if ("postgres", "postgres") in reach else True
    assert vk.EGRESS["console"] >= {("accounts", "grpc"), ("match", "grpc"), ("nats", "client"),
                                    ("match", "metrics"), ("relay", "metrics")}
    assert ("matchmaking", "grpc") not in vk.EGRESS["console"] and ("social", "grpc") not in vk.EGRESS["console"]
    internet = next(rule for rule in find(rendered["prod"], "NetworkPolicy", "console-egress")["spec"]["egress"]
                    if any("ipBlock" in peer for peer in rule.get("to", [])))
    assert vk.internet_rule_problem(internet["to"], {("TCP", 443, None)}, {443}) is None


def test_prod_routes_staff_through_the_internal_ingress_and_dev_does_not(rendered):
    prod = rendered["prod"]
    ingress = find(prod, "Ingress", "console")
    assert ingress["spec"]["ingressClassName"] == "internal"
    assert ingress["spec"]["rules"][0]["host"] == "console.ops.example.com"
    assert ingress["spec"]["tls"] == [{"hosts": ["console.ops.example.com"], "secretName": "domino-console-tls"}]
    assert config_map(prod, "domino-console")["DOMINO_CONSOLE_PUBLIC_URL"] == "https://console.ops.example.com"
    assert not [r for r in rendered["dev"] if r["kind"] == "Ingress"]
    for route in (r for r in prod if r["kind"] in ("GRPCRoute", "HTTPRoute")):
        backends = {b["name"] for rule in route["spec"]["rules"] for b in rule.get("backendRefs", [])}
        assert "console" not in backends, ref(route)


def test_dev_signs_in_with_the_local_link_and_prod_with_the_identity_provider(rendered):
    dev = config_map(rendered["dev"], "domino-console")
    assert dev["DOMINO_CONSOLE_LOCAL_LINK"] == "true"
    assert dev["DOMINO_CONSOLE_PUBLIC_URL"] == "http://127.0.0.1:8090"
    prod = config_map(rendered["prod"], "domino-console")
    assert "DOMINO_CONSOLE_LOCAL_LINK" not in prod
    assert prod["DOMINO_CONSOLE_OIDC_ISSUER"].startswith("https://") and prod["DOMINO_CONSOLE_OIDC_CLIENT_ID"]
    assert set(__import__("json").loads(prod["DOMINO_CONSOLE_ROLE_MAP"]).values()) == {
        "viewer", "support", "operator", "auditor"}


def _env(resources, name):
    return next(e for e in main_container(resources)["env"] if e["name"] == name)


def _volume(resources, name):
    return next(v for v in pod(console(resources))["volumes"] if v["name"] == name)


def _egress(resources):
    return find(resources, "NetworkPolicy", "console-egress")["spec"]["egress"]


@pytest.mark.parametrize("change, message", [
    (lambda r: r.remove(console(r)), "Deployment/console: missing"),
    (lambda r: console(r)["spec"].__setitem__("replicas", 2), "Deployment/console: replicas must be 1"),
    (lambda r: main_container(r).__setitem__("command", ["domino", "serve", "console"]),
     "must be ['python', '-m', 'services.console']"),
    (lambda r: main_container(r)["readinessProbe"]["httpGet"].__setitem__("path", "/"),
     "readinessProbe must be an httpGet of /healthz on port 8090"),
    (lambda r: main_container(r)["resources"].pop("limits"),
     "Deployment/console container console: resources.limits lacks cpu, memory"),
    (lambda r: pod(console(r))["securityContext"].pop("runAsNonRoot"),
     "Deployment/console: the pod must set securityContext.runAsNonRoot"),
    (lambda r: _env(r, "DOMINO_CONSOLE_ADDRESS").__setitem__("value", "127.0.0.1:8090"),
     "DOMINO_CONSOLE_ADDRESS must be 0.0.0.0:8090"),
    (lambda r: _env(r, "DOMINO_MATCH_ADDRESS").__setitem__("value", "social:50054"),
     "Deployment/console: DOMINO_MATCH_ADDRESS 'social:50054' must be the `grpc` port of a Service of "
     "Deployment/match"),
    (lambda r: next(x for x in r if x["metadata"]["name"].startswith("domino-config"))["data"].pop(
        "DOMINO_CONSOLE_METRICS_PORT"), "container port `metrics` (9110) != DOMINO_CONSOLE_METRICS_PORT (unset)"),
    (lambda r: main_container(r)["envFrom"].pop(1), "Deployment/console: must load ConfigMap domino-console"),
    (lambda r: config_map(r, "domino-console").__setitem__("DOMINO_CONSOLE_ROLE_MAP", '{"ops": "admin"}'),
     "DOMINO_CONSOLE_ROLE_MAP"),
    # its keys and secrets
    (lambda r: _volume(r, "token-keys")["projected"]["sources"].append(
        {"secret": {"name": "domino-service-token-key", "items": [{"key": "service.key", "path": "service.key"}]}}),
     "Deployment/console: holds the private token key service.key"),
    (lambda r: pod(find(r, "Deployment", "bots"))["volumes"].append(
        {"name": "op", "secret": {"secretName": "domino-operator-token-key"}}),
     "Deployment/bots: holds the private token key operator.key (Secret domino-operator-token-key): only "
     "Deployment/console may issue operator tokens"),
    (lambda r: pod(find(r, "Deployment", "edge"))["volumes"].append(
        {"name": "c", "secret": {"secretName": "domino-console"}}),
     "Deployment/edge: holds the console's secrets (Secret domino-console)"),
    (lambda r: _env(r, "DOMINO_CONSOLE_SESSION_SECRET_FILE").__setitem__("value", "/tmp/session"),
     "DOMINO_CONSOLE_SESSION_SECRET_FILE must be the file of key session-secret of Secret domino-console"),
    (lambda r: next(m for m in main_container(r)["volumeMounts"] if m["name"] == "console-secrets").pop("readOnly"),
     "Secret domino-console must be mounted readOnly"),
    (lambda r: find(r, "ConfigMap", "domino-token-public-keys")["data"].pop("operator.pub") and next(
        v for v in pod(find(r, "Deployment", "accounts"))["volumes"] if v["name"] == "token-keys")["projected"][
        "sources"][1]["configMap"]["items"].pop(),
     "Deployment/accounts: the keys mounted at /keys must be exactly"),
    # NATS: the read-only auditor, its own password only
    (lambda r: _env(r, "DOMINO_CONSOLE_NATS_USER").__setitem__("value", "relay"),
     "DOMINO_CONSOLE_NATS_USER must be 'auditor'"),
    (lambda r: _volume(r, "nats-password")["secret"]["items"].append({"key": "admin-password", "path": "admin"}),
     "Deployment/console: holds the NATS admin password"),
    (lambda r: find(r, "NetworkPolicy", "nats")["spec"]["ingress"][0]["from"][0]["podSelector"][
        "matchExpressions"][0]["values"].remove("console"), "StatefulSet/nats: port client (4222) is closed to console"),
    # who reaches it
    (lambda r: find(r, "NetworkPolicy", "console")["spec"]["ingress"][0].pop("from"),
     "Deployment/console: port http (8090) is open to"),
    (lambda r: r.remove(find(r, "NetworkPolicy", "console")),
     "Deployment/console: port http (8090) is closed to the staff ingress controller"),
    (lambda r: find(r, "NetworkPolicy", "console")["spec"]["ingress"][0]["from"].append(
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "gateway-system"}}}),
     "Deployment/console: port http (8090) is open to the gateway's proxies in their controller's namespace, the "
     "players' gateway"),
    (lambda r: find(r, "NetworkPolicy", "console")["spec"]["ingress"][0]["from"][0]["namespaceSelector"][
        "matchLabels"].__setitem__("kubernetes.io/metadata.name", "ingress"),
     "Deployment/console: port http (8090) is closed to the staff ingress controller"),
    # what it reaches
    (lambda r: r.remove(find(r, "NetworkPolicy", "console-egress")), "Deployment/console: its egress is not restricted"),
    (lambda r: _egress(r)[0]["to"][0]["podSelector"]["matchExpressions"][0]["values"].append("social"),
     "Deployment/console: egress reaches social:grpc, which it has no use for"),
    (lambda r: _egress(r)[1]["to"][0]["podSelector"]["matchExpressions"][0]["values"].remove("relay"),
     "Deployment/console: egress cannot reach relay:metrics"),
    (lambda r: _egress(r)[3]["to"][0]["ipBlock"]["except"].remove("10.0.0.0/8"),
     "Deployment/console: an egress rule to the internet reaches 10.0.0.1"),
    (lambda r: _egress(r).pop(3), "Deployment/console: egress cannot reach port 443 on the internet"),
    (lambda r: _egress(r).append({"ports": [{"port": 5432, "protocol": "TCP"}]}),
     "Deployment/console: an egress rule reaches everything"),
])
def test_validator_catches_for_the_console(rendered, change, message):
    errors = problems(rendered["dev"], change)
    assert any(message in e for e in errors), errors


@pytest.mark.parametrize("change, message", [
    (lambda r: config_map(r, "domino-console").__setitem__("DOMINO_CONSOLE_LOCAL_LINK", "true"),
     "DOMINO_CONSOLE_LOCAL_LINK: production signs staff in with the identity provider"),
    (lambda r: config_map(r, "domino-console").__setitem__("DOMINO_CONSOLE_OIDC_ISSUER", ""),
     "DOMINO_CONSOLE_OIDC_ISSUER must be an https:// URL in production"),
    (lambda r: config_map(r, "domino-console").pop("DOMINO_CONSOLE_OIDC_CLIENT_ID"),
     "DOMINO_CONSOLE_OIDC_CLIENT_ID is empty"),
    (lambda r: config_map(r, "domino-console").__setitem__("DOMINO_CONSOLE_ROLE_MAP", "{}"),
     "DOMINO_CONSOLE_ROLE_MAP is empty"),
    (lambda r: config_map(r, "domino-console").__setitem__("DOMINO_CONSOLE_PUBLIC_URL", "https://staff.example.com"),
     "DOMINO_CONSOLE_PUBLIC_URL 'https://staff.example.com' is not the host of the console's Ingress"),
    (lambda r: r.remove(find(r, "Ingress", "console")), "Ingress: missing: production routes staff to the console"),
    (lambda r: find(r, "Ingress", "console")["spec"].pop("ingressClassName"), "Ingress/console: needs an "
                                                                              "ingressClassName"),
    (lambda r: find(r, "Ingress", "console")["spec"].pop("tls"), "host 'console.ops.example.com' has no tls entry"),
    (lambda r: find(r, "Ingress", "console")["spec"]["tls"][0].__setitem__("secretName", "domino-public-tls-x"),
     "certificate Secret 'domino-public-tls-x' (tls.crt, tls.key) is neither defined nor one ops create"),
    (lambda r: find(r, "Ingress", "console")["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
     .__setitem__("name", "web"), "must go to Service/console port http"),
    (lambda r: find(r, "Ingress", "console")["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
     .__setitem__("port", {"number": 9110}), "must go to Service/console port http"),
    (lambda r: find(r, "Ingress", "console")["spec"].__setitem__(
        "defaultBackend", {"service": {"name": "console", "port": {"name": "http"}}}), "has a defaultBackend"),
    (lambda r: find(r, "HTTPRoute", "domino-web")["spec"]["rules"][0]["backendRefs"][0].update(
        {"name": "console", "port": 8090}), "must be the edge's Service/web"),
])
def test_validator_catches_for_the_console_in_prod(rendered, change, message):
    errors = problems(rendered["prod"], change, "prod")
    assert any(message in e for e in errors), errors


def test_the_staff_route_needs_the_overlays_values(tmp_path):
    """components/staff-console without the overlay's `staff-console` values does not build."""
    import os
    import subprocess

    root = os.path.relpath(vk.K8S, tmp_path)
    (tmp_path / "kustomization.yaml").write_text(
        f"resources: [{root}/base]\ncomponents: [{root}/components/staff-console]\n")
    result = subprocess.run([vk.kubectl(), "kustomize", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert result.returncode != 0 and "staff-console" in result.stderr
