"""Checks deploy/monitoring against the code: the alerting rules and the Grafana dashboard
query only metrics the services define, with labels (and label values) they really have.

    .venv/bin/python scripts/check_monitoring.py      # prints every problem; exit 1 if any

Run by `make test` (tests/unit/test_monitoring.py). What it checks:

* alerts.yaml: a Prometheus rule file (`groups:` of named groups of rules); every alert has
  `expr`, a duration `for`, `labels.severity` in SEVERITIES, and `summary`, `description`
  and `runbook_url` annotations, the runbook pointing to a heading of docs/operations.md;
  every `{{ $labels.x }}` in an annotation is a label the expression's result has.
* every PromQL expression (rules and dashboard panels) parses (promql-parser, the Rust
  parser of Prometheus's grammar), and every selector names a metric that the code under
  services/ creates (prometheus_client's Counter/Gauge/Histogram/Summary, read with `ast`;
  a histogram gives `_bucket` (with `le`), `_sum` and `_count`), or `up`;
* every label in a selector, a `by`/`without`, an `on`/`ignoring` exists on that metric
  (its declared labels, plus the labels Prometheus adds to every target: TARGET_LABELS);
* label values: `code` must be a gRPC status name, `method` an RPC of that service (or the
  health service's), `service` a Kubernetes Service of deploy/k8s/base, and any other label
  value must appear as a string literal in services/ (a typo guard: `outcome="anwsered"`
  matches nothing and the alert never fires). Regular expressions must match at least one
  known value, and each plain alternative (`a|b`) must be known.
* dashboard.json: every panel target's `expr`, with Grafana's variables substituted.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import promql_parser as promql
import yaml

REPO = Path(__file__).resolve().parents[1]
SERVICES = REPO / "services"
MONITORING = REPO / "deploy" / "monitoring"
ALERTS = MONITORING / "alerts.yaml"
DASHBOARD = MONITORING / "dashboard.json"
OPERATIONS = REPO / "docs" / "operations.md"
K8S_BASE = REPO / "deploy" / "k8s" / "base"

SEVERITIES = {"page", "ticket"}
REQUIRED_ANNOTATIONS = ("summary", "description", "runbook_url")
# What Prometheus's Kubernetes discovery puts on every target, with the relabelling of the
# usual scrape jobs (the prometheus.io/* annotation job, and ServiceMonitors).
TARGET_LABELS = {"job", "instance", "namespace", "service", "pod", "container", "endpoint", "node"}
# Labels whose values nothing can enumerate.
FREE_LABELS = TARGET_LABELS - {"service"} | {"le", "quantile"}
METRIC_CLASSES = {"Counter", "Gauge", "Histogram", "Summary"}
# A custom collector's families (prometheus_client.core), read as the metric they expose.
FAMILY_CLASSES = {"GaugeMetricFamily": "Gauge", "CounterMetricFamily": "Counter"}
RUNBOOK_PREFIX = "docs/operations.md#"
# Grafana variables in the dashboard's queries, and what stands in for them when parsing.
GRAFANA_VARIABLES = {"$__rate_interval": "5m", "$__interval": "1m", "$__range": "1h", "${namespace}": ".*",
                     "$namespace": ".*"}


@dataclass
class Metric:
    name: str  # as exposed
    kind: str  # Counter, Gauge, Histogram, Summary
    labels: set[str]
    help: str
    defined_in: str
    family: str = ""  # the name in the code (a histogram's family)


@dataclass
class Catalog:
    """What the code exposes: every series name, its labels, and the values labels can take."""
    metrics: dict[str, Metric] = field(default_factory=dict)  # every exposed series name
    families: dict[str, Metric] = field(default_factory=dict)  # one per metric the code creates
    literals: set[str] = field(default_factory=set)
    grpc_codes: set[str] = field(default_factory=set)
    methods: dict[str, set[str]] = field(default_factory=dict)  # RpcMetrics service name -> RPC names
    k8s_services: set[str] = field(default_factory=set)

    def known_values(self, metric: str, label: str) -> set[str] | None:
        """The values ``label`` of ``metric`` can take; None when they cannot be known here."""
        if label in FREE_LABELS:
            return None
        if label == "service":
            return self.k8s_services
        if label == "code":
            return self.grpc_codes
        if label == "method":
            for service, methods in self.methods.items():
                if metric.startswith(f"domino_{service}_rpc"):
                    return methods
            return None
        return self.literals | {"true", "false"}  # str(bool).lower(): domino_relay_published_total{duplicate}


# ---- what the code defines -------------------------------------------------------------------

def _string_list(node: ast.expr) -> list[str] | None:
    if isinstance(node, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                                                       for e in node.elts):
        return [e.value for e in node.elts]  # type: ignore[attr-defined]
    return None


def _name_templates(node: ast.expr) -> str | None:
    """A metric name: a string, or an f-string whose holes are written `{name}`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name):
                parts.append("{" + value.value.id + "}")
            else:
                return None
        return "".join(parts)
    return None


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def build_catalog(services: Path = SERVICES) -> Catalog:
    import grpc

    catalog = Catalog(grpc_codes={code.name for code in grpc.StatusCode})
    definitions: list[tuple[str, str, list[str], str, str]] = []  # (kind, name template, labels, help, where)
    rpc_services: set[str] = set()
    for path in sorted(services.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        where = str(path.relative_to(services.parent))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                catalog.literals.add(node.value)
            if not isinstance(node, ast.Call):
                continue
            callee = _callee(node)
            if callee == "RpcMetrics" and node.args and isinstance(node.args[0], ast.Constant):
                rpc_services.add(str(node.args[0].value))
            if callee in FAMILY_CLASSES:
                callee = FAMILY_CLASSES[callee]
            elif callee not in METRIC_CLASSES:
                continue
            if len(node.args) < 2:
                continue
            name = _name_templates(node.args[0])
            if name is None:
                raise ValueError(f"{where}:{node.lineno}: a {callee} whose name this checker cannot read")
            labels = _string_list(node.args[2]) if len(node.args) > 2 else None
            for keyword in node.keywords:
                if keyword.arg in ("labelnames", "labels"):
                    labels = _string_list(keyword.value)
            help_text = node.args[1].value if isinstance(node.args[1], ast.Constant) else ""
            definitions.append((callee, name, labels or [], str(help_text), where))
    for kind, template, labels, help_text, where in definitions:
        names = [template.replace("{service}", s) for s in sorted(rpc_services)] if "{service}" in template \
            else [template]
        for name in names:
            if "{" in name:
                raise ValueError(f"{where}: metric name {template!r} has a hole this checker cannot fill")
            _add_family(catalog, Metric(name, kind, set(labels), help_text, where, family=name))
    catalog.metrics["up"] = Metric("up", "Gauge", set(), "1 if Prometheus scraped the target", "Prometheus",
                                   family="up")
    catalog.methods = _rpc_methods(rpc_services)
    catalog.k8s_services = _k8s_services()
    return catalog


def _add_family(catalog: Catalog, metric: Metric) -> None:
    """The series prometheus_client exposes for one metric (the `_created` ones left out)."""
    known = catalog.families.get(metric.name)
    if known is not None:  # defined in two places (domino_bus_dropped_total): must agree
        if known.kind != metric.kind or known.labels != metric.labels:
            raise ValueError(f"{metric.name} is defined twice, differently: {known.defined_in}, {metric.defined_in}")
        return
    catalog.families[metric.name] = metric
    name = metric.name
    if metric.kind == "Counter":
        name = name.removesuffix("_total")
        catalog.metrics[name + "_total"] = metric
    elif metric.kind in ("Histogram", "Summary"):
        catalog.metrics[name + "_sum"] = metric
        catalog.metrics[name + "_count"] = metric
        if metric.kind == "Histogram":
            catalog.metrics[name + "_bucket"] = Metric(name + "_bucket", metric.kind, metric.labels | {"le"},
                                                       metric.help, metric.defined_in, family=name)
        else:
            catalog.metrics[name] = Metric(name, metric.kind, metric.labels | {"quantile"}, metric.help,
                                           metric.defined_in, family=name)
    else:
        catalog.metrics[name] = metric


def _rpc_methods(rpc_services: Iterable[str]) -> dict[str, set[str]]:
    """The method label's values: the RPCs of each service, and the health service's (its
    Check and Watch pass the same interceptor)."""
    sys.path.insert(0, str(REPO))
    from domino.account.v1 import account_service_pb2
    from domino.match.v1 import match_service_pb2
    from domino.matchmaking.v1 import matchmaking_service_pb2
    from domino.social.v1 import social_service_pb2
    from grpc_health.v1 import health_pb2

    health = {m.name for m in health_pb2.DESCRIPTOR.services_by_name["Health"].methods}
    descriptors = {"match": match_service_pb2.DESCRIPTOR.services_by_name["MatchService"],
                   "matchmaking": matchmaking_service_pb2.DESCRIPTOR.services_by_name["MatchmakingService"],
                   "account": account_service_pb2.DESCRIPTOR.services_by_name["AccountService"],
                   "social": social_service_pb2.DESCRIPTOR.services_by_name["SocialService"]}
    methods = {}
    for service in rpc_services:
        if service not in descriptors:
            raise ValueError(f"RpcMetrics({service!r}): this checker does not know that service's RPCs")
        methods[service] = {m.name for m in descriptors[service].methods} | health
    return methods


def _k8s_services() -> set[str]:
    names = set()
    for path in K8S_BASE.rglob("*.yaml"):
        for doc in yaml.safe_load_all(path.read_text()):
            if isinstance(doc, dict) and doc.get("kind") == "Service":
                names.add(doc["metadata"]["name"])
    return names


# ---- PromQL ------------------------------------------------------------------------------------

def _children(node: Any) -> list[Any]:
    kind = type(node).__name__
    if kind == "BinaryExpr":
        return [node.lhs, node.rhs]
    if kind in ("AggregateExpr", "ParenExpr", "UnaryExpr", "SubqueryExpr"):
        return [node.expr] + ([node.param] if kind == "AggregateExpr" and isinstance(node.param, promql.Expr)
                              else [])
    if kind == "Call":
        return [a for a in node.args if isinstance(a, promql.Expr)]
    if kind == "MatrixSelector":
        return [node.vector_selector]
    return []


def _selector_name(node: Any) -> str | None:
    if node.name:
        return node.name
    for m in node.matchers.matchers:
        if m.name == "__name__" and m.op == promql.MatchOp.Equal:
            return m.value
    return None


AGGREGATIONS_KEEPING_LABELS = {"topk", "bottomk", "limitk", "limit_ratio"}


def output_labels(node: Any, catalog: Catalog) -> set[str]:
    """The labels the result of ``node`` can carry (an upper bound)."""
    kind = type(node).__name__
    if kind == "VectorSelector":
        metric = catalog.metrics.get(_selector_name(node) or "")
        return (metric.labels if metric else set()) | TARGET_LABELS
    if kind == "MatrixSelector":
        return output_labels(node.vector_selector, catalog)
    if kind in ("ParenExpr", "UnaryExpr", "SubqueryExpr"):
        return output_labels(node.expr, catalog)
    if kind == "AggregateExpr":
        inner = output_labels(node.expr, catalog)
        if str(node.op) in AGGREGATIONS_KEEPING_LABELS:
            return inner
        if node.modifier is None:
            return set()
        if node.modifier.type == promql.AggModifierType.By:
            return set(node.modifier.labels)
        return inner - set(node.modifier.labels)
    if kind == "Call":
        name = node.func.name
        args = [output_labels(a, catalog) for a in node.args if isinstance(a, promql.Expr)]
        if name == "histogram_quantile":
            return args[1] - {"le"}
        if name in ("absent", "absent_over_time"):
            selector = node.args[0] if name == "absent" else node.args[0].vector_selector
            return {m.name for m in selector.matchers.matchers
                    if m.op == promql.MatchOp.Equal and m.name != "__name__"}
        if name in ("label_replace",):
            return (args[0] if args else set()) | {node.args[1].val}
        return set().union(*args) if args else set()
    if kind == "BinaryExpr":
        lhs, rhs = output_labels(node.lhs, catalog), output_labels(node.rhs, catalog)
        if str(node.op) == "or":
            return lhs | rhs
        if type(node.lhs).__name__ == "NumberLiteral":
            return rhs
        return lhs
    return set()


def check_expr(expr: str, catalog: Catalog, where: str) -> tuple[list[str], set[str]]:
    """(problems, the labels of the result) of one PromQL expression."""
    try:
        tree = promql.parse(expr)
    except Exception as e:  # the parser raises ValueError with its message
        return [f"{where}: does not parse: {e}"], set()
    problems: list[str] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        stack.extend(_children(node))
        kind = type(node).__name__
        if kind == "VectorSelector":
            problems += _check_selector(node, catalog, where)
        elif kind == "AggregateExpr" and node.modifier is not None:
            have = output_labels(node.expr, catalog)
            for label in node.modifier.labels:
                if label not in have:
                    problems.append(f"{where}: {node.op} by/without ({label}): no such label on {node.expr}")
        elif kind == "BinaryExpr" and node.modifier is not None and node.modifier.matching is not None:
            have = output_labels(node.lhs, catalog) & output_labels(node.rhs, catalog)
            for label in node.modifier.matching.labels:
                if label not in have:
                    problems.append(f"{where}: on/ignoring ({label}): not a label of both sides of {node.op}")
    return problems, output_labels(tree, catalog)


def _check_selector(node: Any, catalog: Catalog, where: str) -> list[str]:
    name = _selector_name(node)
    if name is None:
        return [f"{where}: selector {node} names no metric"]
    metric = catalog.metrics.get(name)
    if metric is None:
        return [f"{where}: metric {name} is defined nowhere in services/"]
    problems = []
    for m in node.matchers.matchers:
        if m.name == "__name__":
            continue
        if m.name not in metric.labels | TARGET_LABELS:
            problems.append(f"{where}: {name} has no label {m.name} (it has: {', '.join(sorted(metric.labels))})")
            continue
        known = catalog.known_values(name, m.name)
        if known is None or m.value == "":
            continue
        if m.op in (promql.MatchOp.Equal, promql.MatchOp.NotEqual):
            if m.value not in known:
                problems.append(f"{where}: {name}{{{m.name}}} never takes the value {m.value!r}")
            continue
        try:
            pattern = re.compile(m.value)
        except re.error as e:
            problems.append(f"{where}: {name}{{{m.name}=~{m.value!r}}} is not a regular expression: {e}")
            continue
        for alternative in m.value.split("|"):
            if re.fullmatch(r"\w+", alternative) and alternative not in known:
                problems.append(f"{where}: {name}{{{m.name}}} never takes the value {alternative!r}")
        if not any(pattern.fullmatch(value) for value in known):
            problems.append(f"{where}: {name}{{{m.name}=~{m.value!r}}} matches none of its values")
    return problems


# ---- the files ------------------------------------------------------------------------------

def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def runbook_anchors(markdown: str) -> set[str]:
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*$", markdown, re.M)}


def _is_duration(value: Any) -> bool:
    if not isinstance(value, str) or not re.fullmatch(r"(\d+(ms|s|m|h|d|w|y))+", value):
        return False
    try:
        promql.parse_duration(value)
    except ValueError:
        return False
    return True


def check_rules(doc: Any, catalog: Catalog, anchors: set[str], where: str = "alerts.yaml") -> list[str]:
    if not isinstance(doc, dict) or not isinstance(doc.get("groups"), list) or not doc["groups"]:
        return [f"{where}: not a rule file: no `groups:` list"]
    problems: list[str] = []
    group_names = set()
    for g, group in enumerate(doc["groups"]):
        if not isinstance(group, dict) or not group.get("name") or not isinstance(group.get("rules"), list):
            problems.append(f"{where}: group {g} needs a `name` and a `rules` list")
            continue
        if group["name"] in group_names:
            problems.append(f"{where}: group {group['name']} appears twice")
        group_names.add(group["name"])
        for r, rule in enumerate(group["rules"]):
            problems += check_rule(rule, catalog, anchors, f"{where}: {group['name']}[{r}]")
    return problems


def check_rule(rule: Any, catalog: Catalog, anchors: set[str], where: str) -> list[str]:
    if not isinstance(rule, dict):
        return [f"{where}: not a mapping"]
    if "record" in rule:
        unknown = set(rule) - {"record", "expr", "labels"}
        problems = [f"{where}: unknown keys {sorted(unknown)}"] if unknown else []
        return problems + check_expr(str(rule.get("expr", "")), catalog, f"{where} {rule['record']}")[0]
    name = rule.get("alert")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return [f"{where}: needs `alert:` with a valid name"]
    where = f"{where} {name}"
    problems = []
    unknown = set(rule) - {"alert", "expr", "for", "keep_firing_for", "labels", "annotations"}
    if unknown:
        problems.append(f"{where}: unknown keys {sorted(unknown)}")
    if not isinstance(rule.get("expr"), str) or not rule["expr"].strip():
        return problems + [f"{where}: needs an `expr`"]
    if not _is_duration(rule.get("for")):
        problems.append(f"{where}: `for` must be a duration such as 5m, not {rule.get('for')!r}")
    labels = rule.get("labels") or {}
    if labels.get("severity") not in SEVERITIES:
        problems.append(f"{where}: labels.severity must be one of {sorted(SEVERITIES)}, not {labels.get('severity')!r}")
    annotations = rule.get("annotations") or {}
    for key in REQUIRED_ANNOTATIONS:
        if not isinstance(annotations.get(key), str) or not annotations[key].strip():
            problems.append(f"{where}: needs annotations.{key}")
    runbook = annotations.get("runbook_url", "")
    if isinstance(runbook, str) and runbook:
        if not runbook.startswith(RUNBOOK_PREFIX):
            problems.append(f"{where}: runbook_url must point into {RUNBOOK_PREFIX}...")
        elif runbook.removeprefix(RUNBOOK_PREFIX) not in anchors:
            problems.append(f"{where}: runbook_url {runbook}: docs/operations.md has no such heading")
    expr_problems, result_labels = check_expr(rule["expr"], catalog, where)
    problems += expr_problems
    available = result_labels | set(labels)
    for key, text in annotations.items():
        for label in re.findall(r"\$labels\.(\w+)", str(text)):
            if label not in available:
                problems.append(f"{where}: annotations.{key} uses $labels.{label}, which the alert does not carry")
    return problems


def dashboard_queries(doc: Any) -> list[tuple[str, str]]:
    """(where, expr) of every panel target, rows' nested panels included."""
    queries = []
    panels = list(doc.get("panels", []))
    while panels:
        panel = panels.pop(0)
        panels.extend(panel.get("panels", []))
        for target in panel.get("targets", []):
            if target.get("expr"):
                queries.append((f"dashboard.json: panel {panel.get('title')!r} {target.get('refId', '')}",
                                target["expr"]))
    return queries


def substitute_grafana_variables(expr: str) -> str:
    for variable, value in GRAFANA_VARIABLES.items():
        expr = expr.replace(variable, value)
    return expr


def check_dashboard(doc: Any, catalog: Catalog) -> list[str]:
    problems = []
    if not isinstance(doc, dict) or not doc.get("panels") or not doc.get("title") or not doc.get("uid"):
        return ["dashboard.json: needs a title, a uid and panels"]
    queries = dashboard_queries(doc)
    if not queries:
        problems.append("dashboard.json: no panel has a query")
    for where, expr in queries:
        if "$" in substitute_grafana_variables(expr):
            problems.append(f"{where}: a Grafana variable this checker does not know: {expr}")
            continue
        problems += check_expr(substitute_grafana_variables(expr), catalog, where)[0]
    return problems


def check_all() -> list[str]:
    catalog = build_catalog()
    anchors = runbook_anchors(OPERATIONS.read_text()) if OPERATIONS.exists() else set()
    problems = check_rules(yaml.safe_load(ALERTS.read_text()), catalog, anchors)
    problems += check_dashboard(json.loads(DASHBOARD.read_text()), catalog)
    return problems


def main() -> int:
    problems = check_all()
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problems" if problems else "deploy/monitoring: rules and dashboard match the code")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
