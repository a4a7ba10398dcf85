"""deploy/monitoring and docs/operations.md against the code: the alerting rules and the
Grafana dashboard use only metrics, labels and label values the services define, every
alert has what an operator needs and a runbook that exists (the settings table:
tests/unit/test_settings.py); and the checker (scripts/check_monitoring.py) really catches
what it claims to.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


cm = _load("check_monitoring")

RULES = yaml.safe_load(cm.ALERTS.read_text())
DASHBOARD = json.loads(cm.DASHBOARD.read_text())
OPERATIONS = cm.OPERATIONS.read_text()
ANCHORS = cm.runbook_anchors(OPERATIONS)


@pytest.fixture(scope="module")
def catalog():
    return cm.build_catalog()


def alerts():
    return [rule for group in RULES["groups"] for rule in group["rules"] if "alert" in rule]


# ---- the files as they are ---------------------------------------------------------------------

def test_the_rules_and_the_dashboard_match_the_code():
    assert cm.check_all() == []


def test_the_catalog_reads_every_kind_of_definition(catalog):
    metrics = catalog.metrics
    # f-string names, one per RpcMetrics("...") call, each a counter and a histogram
    for service in ("match", "matchmaking"):
        assert metrics[f"domino_{service}_rpcs_total"].labels == {"method", "code"}
        assert metrics[f"domino_{service}_rpc_seconds_bucket"].labels == {"method", "le"}
        assert f"domino_{service}_rpc_seconds_count" in metrics
    assert {"PlayTile", "Check", "Watch"} <= catalog.methods["match"]  # the health service's RPCs are counted too
    assert "RequestTable" in catalog.methods["matchmaking"] and "PlayTile" not in catalog.methods["matchmaking"]
    assert "domino_match_rpc_seconds" not in metrics  # a histogram has no series of its own name
    assert metrics["domino_relay_lag_seconds"].kind == "Gauge"
    assert metrics["domino_bus_dropped_total"].labels == {"consumer", "reason"}  # defined twice, alike
    assert metrics["domino_matchmaking_queue_wait_seconds_bucket"].labels == {"le"}
    assert {"match", "relay", "matchmaking", "bots"} <= catalog.k8s_services
    assert {"answered", "settled", "retried", "gave_up", "malformed"} <= catalog.literals


def test_the_alerts_cover_what_an_operator_must_be_woken_for():
    used = " ".join(rule["expr"] for rule in alerts())
    for metric in ("up", "domino_relay_lag_events", "domino_relay_lag_seconds", "domino_relay_published_total",
                   "domino_match_rpcs_total", "domino_matchmaking_rpcs_total", "domino_match_rpc_seconds_bucket",
                   "domino_matchmaking_rpc_seconds_bucket", "domino_bots_turns_total", "domino_bots_errors_total",
                   "domino_bus_dropped_total", "domino_matchmaking_match_ends_total"):
        assert re.search(rf"\b{metric}\b", used), f"no alert uses {metric}"
    pages = {rule["alert"] for rule in alerts() if rule["labels"]["severity"] == "page"}
    assert {"DominoServiceDown", "DominoRpcServerErrors", "DominoRpcLatencyHigh", "DominoRelayLagging",
            "DominoRelayStalled", "DominoBotTurnsFailing"} <= pages
    # The caller's own mistakes never page.
    assert {rule["labels"]["severity"] for rule in alerts() if rule["alert"] == "DominoRpcCallerErrors"} == {"ticket"}


def test_server_errors_exclude_exactly_ok_cancelled_and_the_callers_mistakes():
    callers = {"INVALID_ARGUMENT", "FAILED_PRECONDITION", "NOT_FOUND", "PERMISSION_DENIED", "UNAUTHENTICATED",
               "RESOURCE_EXHAUSTED", "ALREADY_EXISTS", "OUT_OF_RANGE"}
    for rule in alerts():
        if rule["alert"] == "DominoRpcServerErrors":
            excluded = set(re.search(r'code!~"([^"]+)"', rule["expr"]).group(1).split("|"))
            assert excluded == callers | {"OK", "CANCELLED"}
        if rule["alert"] == "DominoRpcCallerErrors":
            assert set(re.search(r'code=~"([^"]+)"', rule["expr"]).group(1).split("|")) == callers


def test_account_latency_leaves_out_the_held_revocation_read():
    account = [rule for rule in alerts() if "domino_account_rpc_seconds" in rule["expr"]]
    assert account and all('method!~"Watch.*|ListRevokedSessions"' in rule["expr"] for rule in account)


def test_latency_leaves_out_the_streams(catalog):
    streams = {m for methods in catalog.methods.values() for m in methods if m.startswith("Watch")}
    assert {"WatchMatch", "WatchRoom", "WatchTicket", "Watch"} <= streams
    for rule in alerts():
        if "_rpc_seconds_bucket" in rule["expr"]:
            assert re.search(r'method!~"Watch\.\*(\|[A-Za-z|]+)?"', rule["expr"])


def test_every_alert_has_a_runbook_section_and_every_section_an_alert():
    names = {rule["alert"] for rule in alerts()}
    for name in names:
        assert name.lower() in ANCHORS
    runbooks = OPERATIONS.split("### Runbooks", 1)[1].split("\n## ", 1)[0]
    sections = set(re.findall(r"^#### (\w+)", runbooks, re.M))
    assert sections == names


def test_every_runbook_links_the_console_page_that_shows_the_problem():
    from services.console.pages import log, matches, now, players, tables

    paths = {route.path.split("/{")[0] for module in (now, tables, players, matches, log) for route in module.routes}
    runbooks = OPERATIONS.split("### Runbooks", 1)[1].split("\n## ", 1)[0]
    for section in re.split(r"^#### ", runbooks, flags=re.M)[1:]:
        name, _, body = section.partition("\n")
        console = next((line for line in body.splitlines() if line.startswith("**Console**: ")), None)
        assert console is not None, f"{name} names no console page"
        named = {p.split("?")[0].split("/<")[0] for p in re.findall(r"`(/[^`]*)`", console)}
        assert named and named <= paths, f"{name}: {named - paths} are not console pages"


def test_every_metric_is_documented(catalog):
    metrics_section = OPERATIONS.split("\n## Metrics", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `(\w+)`", metrics_section, re.M))
    assert documented == set(catalog.families) - {"up"}


def test_the_dashboard_covers_the_metrics_that_matter():
    exprs = " ".join(expr for _, expr in cm.dashboard_queries(DASHBOARD))
    for metric in ("domino_match_rpcs_total", "domino_matchmaking_rpcs_total", "domino_match_rpc_seconds_bucket",
                   "domino_relay_lag_events", "domino_relay_lag_seconds", "domino_bots_decision_seconds_bucket",
                   "domino_bots_turns_total", "domino_matchmaking_queue_wait_seconds_bucket",
                   "domino_matchmaking_tables_started_total", "domino_match_active_matches", "domino_bus_dropped_total"):
        assert metric in exprs, f"no panel shows {metric}"
    ids = [p["id"] for p in DASHBOARD["panels"]]
    assert len(ids) == len(set(ids))


# ---- the checker catches what it claims to -------------------------------------------------------

GOOD = {
    "alert": "DominoRelayLagging",
    "expr": "max by (namespace) (domino_relay_lag_seconds) > 10",
    "for": "3m",
    "labels": {"severity": "page"},
    "annotations": {"summary": "s {{ $labels.namespace }}", "description": "d",
                    "runbook_url": "docs/operations.md#dominorelaylagging"},
}


def _with(**changes):
    rule = copy.deepcopy(GOOD)
    for key, value in changes.items():
        if "." in key:
            outer, inner = key.split(".")
            if value is None:
                del rule[outer][inner]
            else:
                rule[outer][inner] = value
        elif value is None:
            del rule[key]
        else:
            rule[key] = value
    return rule


def _problems(rule, catalog):
    return cm.check_rules({"groups": [{"name": "g", "rules": [rule]}]}, catalog, ANCHORS)


def test_a_good_rule_passes(catalog):
    assert _problems(GOOD, catalog) == []


@pytest.mark.parametrize("rule, complaint", [
    (_with(expr=None), "needs an `expr`"),
    (_with(expr="max by (namespace) (domino_relay_lag_seconds > 10"), "does not parse"),
    (_with(expr="domino_relay_lag_secs > 10"), "domino_relay_lag_secs is defined nowhere"),
    (_with(expr="domino_match_rpc_seconds > 1"), "domino_match_rpc_seconds is defined nowhere"),
    (_with(expr='rate(domino_match_rpcs_total{status="OK"}[5m]) > 1'), "has no label status"),
    (_with(expr='rate(domino_match_rpcs_total{code="CANCELED"}[5m]) > 1'), "never takes the value 'CANCELED'"),
    (_with(expr='rate(domino_match_rpcs_total{code!~"OK|CANCELED"}[5m]) > 1'), "never takes the value 'CANCELED'"),
    (_with(expr='rate(domino_match_rpcs_total{method="CreateRoom"}[5m]) > 1'), "never takes the value 'CreateRoom'"),
    (_with(expr='rate(domino_match_rpc_seconds_count{method=~"Wacth.*"}[5m]) > 1'), "matches none of its values"),
    (_with(expr='rate(domino_bots_turns_total{outcome="anwsered"}[5m]) > 1'), "never takes the value 'anwsered'"),
    (_with(expr='up{service="matches"} == 0'), "never takes the value 'matches'"),
    (_with(expr="sum by (namespace, reason) (rate(domino_bots_errors_total[5m])) > 1"), "by/without (reason)"),
    (_with(expr="sum by (le) (rate(domino_match_rpc_seconds_count[5m])) > 1"), "by/without (le)"),
    (_with(expr="sum(domino_relay_lag_events) / on(method) sum(domino_relay_lag_seconds) > 1"), "on/ignoring (method)"),
    (_with(expr="sum(domino_relay_lag_seconds) > 10"), "uses $labels.namespace"),
    (_with(**{"for": "5 minutes"}), "`for` must be a duration"),
    (_with(**{"for": None}), "`for` must be a duration"),
    (_with(**{"labels.severity": "critical"}), "labels.severity must be one of"),
    (_with(**{"annotations.summary": None}), "needs annotations.summary"),
    (_with(**{"annotations.description": ""}), "needs annotations.description"),
    (_with(**{"annotations.runbook_url": None}), "needs annotations.runbook_url"),
    (_with(**{"annotations.runbook_url": "docs/operations.md#no-such-section"}), "has no such heading"),
    (_with(**{"annotations.runbook_url": "https://wiki.example/relay"}), "must point into"),
    (_with(alert="Domino Relay"), "needs `alert:`"),
    (_with(severity="page"), "unknown keys ['severity']"),
])
def test_the_checker_catches_a_bad_rule(rule, complaint, catalog):
    problems = _problems(rule, catalog)
    assert any(complaint in p for p in problems), problems


def test_the_checker_catches_a_bad_rule_file(catalog):
    assert "no `groups:`" in cm.check_rules({"rules": [GOOD]}, catalog, ANCHORS)[0]
    problems = cm.check_rules({"groups": [{"name": "g", "rules": [GOOD]}, {"name": "g", "rules": []}]},
                              catalog, ANCHORS)
    assert any("appears twice" in p for p in problems)


def test_the_checker_catches_a_bad_dashboard_query(catalog):
    bad = copy.deepcopy(DASHBOARD)
    row = next(p for p in bad["panels"] if p["type"] == "row")
    row["panels"] = [{"title": "nested", "targets": [{"refId": "A",
                                                      "expr": 'sum(rate(domino_relay_published_totl[$__rate_interval]))'}]}]
    bad["panels"][1]["targets"][0]["expr"] = 'max(domino_match_active_matches{namespace=~"$cluster"})'
    problems = cm.check_dashboard(bad, catalog)
    assert any("domino_relay_published_totl is defined nowhere" in p for p in problems), problems
    assert any("Grafana variable this checker does not know" in p for p in problems), problems


def test_grafana_variables_become_parseable_promql(catalog):
    expr = 'sum(rate(domino_match_rpcs_total{namespace=~"$namespace"}[$__rate_interval]))'
    assert cm.check_expr(cm.substitute_grafana_variables(expr), catalog, "x")[0] == []


def test_a_metric_defined_twice_differently_is_refused(tmp_path):
    (tmp_path / "a.py").write_text('from prometheus_client import Counter\nCounter("x_total", "h", ["a"])\n')
    (tmp_path / "b.py").write_text('from prometheus_client import Counter\nCounter("x_total", "h", ["b"])\n')
    with pytest.raises(ValueError, match="defined twice"):
        cm.build_catalog(tmp_path)


def test_runbook_anchors_follow_githubs_slugs():
    assert cm.runbook_anchors("## Load figures (bench/load.py)\n#### DominoServiceDown\n") == \
        {"load-figures-benchloadpy", "dominoservicedown"}


def test_the_account_service_is_watched_like_the_others_and_for_its_own_risks(catalog):
    """The account service (Service `account`) in the availability and RPC alerts, its RPCs
    known to the checker, and its own alerts: refresh token reuse and unfinished erasures."""
    assert {"SignInWithDevice", "RefreshSession", "GetStanding", "Check"} <= catalog.methods["account"]
    assert "account" in catalog.k8s_services
    by_name: dict[str, list[dict]] = {}
    for rule in alerts():
        by_name.setdefault(rule["alert"], []).append(rule)
    assert "account" in re.search(r'service=~"([^"]+)"', by_name["DominoServiceDown"][0]["expr"]).group(1).split("|")
    assert 'absent(up{service="account"})' in by_name["DominoServiceAbsent"][0]["expr"]
    for name in ("DominoRpcServerErrors", "DominoRpcCallerErrors", "DominoRpcLatencyHigh"):
        assert any(r["labels"].get("service") == "account" and "domino_account_rpc" in r["expr"]
                   for r in by_name[name]), name
    (reuse,) = by_name["DominoRefreshTokenReuseBurst"]
    assert re.fullmatch(r"sum by \(namespace\) \(increase\(domino_account_refresh_reuse_total\[10m\]\)\) > 5",
                        reuse["expr"])
    assert reuse["for"] == "5m" and reuse["labels"]["severity"] == "ticket"
    (erasures,) = by_name["DominoAccountErasurePending"]
    assert erasures["expr"] == "max by (namespace) (domino_account_erasures_pending) > 0"
    assert erasures["for"] == "30m" and erasures["labels"]["severity"] == "ticket"
    # the runbooks also answer to the anchors people link to
    assert '<a id="refresh-token-reuse"></a>' in OPERATIONS and '<a id="account-erasure-pending"></a>' in OPERATIONS
    exprs = " ".join(expr for _, expr in cm.dashboard_queries(DASHBOARD))
    for metric in ("domino_account_sign_ins_total", "domino_account_refreshes_total",
                   "domino_account_refresh_reuse_total", "domino_account_erasures_pending",
                   "domino_account_rpcs_total", "domino_account_rpc_seconds_bucket"):
        assert metric in exprs, f"no panel shows {metric}"
