"""The Now page's arithmetic over two scrapes: counters' rates (and their resets),
histograms' p99 as Prometheus interpolates it, gauges, a target down, the alerts evaluated
without a Prometheus, and the small charts."""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET

import httpx
import pytest

from services.console import metrics_arithmetic as m
from services.console.metrics_alerts import evaluate, from_prometheus
from services.console.metrics_chart import sparkline
from services.console.metrics_figures import FigureRing, figures
from services.console.metrics_scrape import Scrape, Target, label_is, parse, scrape

MATCH = Target("match", "match", "http://match/metrics")
MATCH_2 = Target("match-2", "match", "http://match-2/metrics")
BOTS = Target("bots", "bots", "http://bots/metrics")


def scraped(target: Target, at: float, text: str) -> Scrape:
    return Scrape(target, at, up=True, samples=parse(text))


def down(target: Target, at: float) -> Scrape:
    return Scrape(target, at, up=False)


def rpcs(ok: int, internal: int = 0, method: str = "PlayTile") -> str:
    return (f'domino_match_rpcs_total{{method="{method}",code="OK"}} {ok}\n'
            f'domino_match_rpcs_total{{method="{method}",code="INTERNAL"}} {internal}\n')


def histogram(name: str, counts: dict[str, int], labels: str = "") -> str:
    """Cumulative buckets {le: count}."""
    sep = "," if labels else ""
    lines = [f'{name}_bucket{{{labels}{sep}le="{le}"}} {n}' for le, n in counts.items()]
    lines.append(f"{name}_count{{{labels}}} {counts['+Inf']}")
    return "\n".join(lines) + "\n"


def test_a_counters_rate_is_its_increase_over_the_seconds_between_scrapes():
    before = {"match": scraped(MATCH, 100.0, rpcs(10))}
    after = {"match": scraped(MATCH, 105.0, rpcs(60))}
    assert m.rate(before, after, "domino_match_rpcs_total") == pytest.approx(10.0)


def test_rates_add_up_over_replicas():
    before = {"match": scraped(MATCH, 100.0, rpcs(0)), "match-2": scraped(MATCH_2, 100.0, rpcs(0))}
    after = {"match": scraped(MATCH, 110.0, rpcs(20)), "match-2": scraped(MATCH_2, 110.0, rpcs(30))}
    assert m.rate(before, after, "domino_match_rpcs_total") == pytest.approx(5.0)


def test_a_counter_that_went_down_was_reset_and_its_later_value_is_the_increase():
    before = {"match": scraped(MATCH, 100.0, rpcs(500))}
    after = {"match": scraped(MATCH, 110.0, rpcs(40))}  # the process restarted
    assert m.increase(before, after, "domino_match_rpcs_total") == 40


def test_a_series_new_since_the_earlier_scrape_counts_from_zero():
    before = {"match": scraped(MATCH, 100.0, 'domino_match_rpcs_total{method="PlayTile",code="OK"} 5\n')}
    after = {"match": scraped(MATCH, 110.0, rpcs(5, internal=3))}
    assert m.increase(before, after, "domino_match_rpcs_total", label_is(code="INTERNAL")) == 3


def test_a_target_down_in_either_scrape_is_left_out_and_alone_it_makes_the_figure_unknown():
    before = {"match": down(MATCH, 100.0)}
    after = {"match": scraped(MATCH, 105.0, rpcs(60))}
    assert m.rate(before, after, "domino_match_rpcs_total") is None
    assert m.gauge({"match": down(MATCH, 105.0)}, "domino_match_active_matches") is None


def test_p99_interpolates_within_the_bucket_the_rank_falls_in():
    # 100 observations: 90 under 10 ms, 8 more under 100 ms, 2 more under 1 s.
    assert m.bucket_quantile(0.99, {0.01: 90, 0.1: 98, 1.0: 100, float("inf"): 100}) == pytest.approx(0.55)
    assert m.bucket_quantile(0.5, {0.01: 90, 0.1: 98, 1.0: 100, float("inf"): 100}) == pytest.approx(0.01 * 50 / 90)


def test_p99_in_the_last_bucket_is_the_highest_finite_bound():
    assert m.bucket_quantile(0.99, {0.1: 10, 1.0: 10, float("inf"): 100}) == 1.0


def test_p99_of_nothing_observed_is_unknown():
    assert m.bucket_quantile(0.99, {0.1: 0, float("inf"): 0}) is None


def test_p99_between_scrapes_counts_only_what_was_observed_between_them():
    name = "domino_bots_decision_seconds"
    before = {"bots": scraped(BOTS, 100.0, histogram(name, {"0.01": 1000, "0.1": 1000, "1.0": 1000, "+Inf": 1000},
                                                     'strength="easy"'))}
    after = {"bots": scraped(BOTS, 105.0, histogram(name, {"0.01": 1000, "0.1": 1090, "1.0": 1100, "+Inf": 1100},
                                                    'strength="easy"'))}
    # the 100 new observations: 90 in (0.01, 0.1], 10 in (0.1, 1]: rank 99 is 9/10 into the last
    assert m.quantile(0.99, before, after, name) == pytest.approx(0.1 + 0.9 * 0.9)


def test_tables_in_play_is_the_replicas_max_not_their_sum():
    after = {"match": scraped(MATCH, 1.0, "domino_match_active_matches 7\n"),
             "match-2": scraped(MATCH_2, 1.0, "domino_match_active_matches 7\n")}
    assert figures({}, after, 1.0).tables_in_play == 7


def test_errors_count_only_the_services_own_statuses():
    before = {"match": scraped(MATCH, 100.0, rpcs(0, 0) + 'domino_match_rpcs_total{method="PlayTile",code="NOT_FOUND"} 0\n')}
    after = {"match": scraped(MATCH, 110.0, rpcs(100, 5) + 'domino_match_rpcs_total{method="PlayTile",code="NOT_FOUND"} 50\n')}
    assert figures(before, after, 110.0).errors_per_second["match"] == pytest.approx(0.5)


def test_a_service_down_shows_in_the_figures_up_map():
    after = {"match": scraped(MATCH, 1.0, ""), "bots": down(BOTS, 1.0)}
    assert figures({}, after, 1.0).up == {"bots": False, "match": True}


def test_a_scrape_past_its_deadline_is_down_not_an_error():
    async def slow(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(5)
        return httpx.Response(200, text="")

    async def run():
        async with httpx.AsyncClient(transport=httpx.MockTransport(slow)) as client:
            return await scrape(client, MATCH, deadline=0.05)

    assert asyncio.run(run()).up is False


def test_a_scrape_of_something_that_is_not_metrics_is_down():
    async def run():
        transport = httpx.MockTransport(lambda request: httpx.Response(200, text="<html>{not metrics"))
        async with httpx.AsyncClient(transport=transport) as client:
            return await scrape(client, MATCH, deadline=1)

    assert asyncio.run(run()).up is False


def test_a_scrape_that_answers_an_error_status_is_down():
    async def run():
        async with httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(503))) as client:
            return await scrape(client, MATCH, deadline=1)

    assert asyncio.run(run()).up is False


def test_a_service_with_every_target_down_fires_service_down():
    ring = FigureRing()
    ring.add({"match": down(MATCH, 1.0), "match-2": down(MATCH_2, 1.0), "bots": scraped(BOTS, 1.0, "")}, 1.0)
    assert [(a.name, a.summary) for a in evaluate(ring)] == [("DominoServiceDown", "match: every target is down")]


def test_one_replica_down_of_two_is_not_service_down():
    ring = FigureRing()
    ring.add({"match": down(MATCH, 1.0), "match-2": scraped(MATCH_2, 1.0, "")}, 1.0)
    assert evaluate(ring) == []


def test_a_gauge_past_its_rules_threshold_fires():
    ring = FigureRing()
    ring.add({"match": scraped(MATCH, 1.0, "domino_match_frozen_matches 1\ndomino_match_timer_overdue_seconds 3\n")}, 1.0)
    assert [a.name for a in evaluate(ring)] == ["DominoMatchLogCorrupt"]


def test_server_errors_past_two_percent_at_enough_traffic_fire():
    ring = FigureRing()
    ring.add({"match": scraped(MATCH, 0.0, rpcs(0, 0))}, 0.0)
    ring.add({"match": scraped(MATCH, 60.0, rpcs(970, 30))}, 60.0)  # 3% of 1000 in a minute
    assert "DominoRpcServerErrors" in [a.name for a in evaluate(ring)]


def test_server_errors_at_too_little_traffic_do_not_fire():
    ring = FigureRing()
    ring.add({"match": scraped(MATCH, 0.0, rpcs(0, 0))}, 0.0)
    ring.add({"match": scraped(MATCH, 60.0, rpcs(5, 5))}, 60.0)  # 0.17 RPC/s
    assert evaluate(ring) == []


def account_reads(count: int, held: int) -> str:
    """``count`` calls: ``held`` of them ListRevokedSessions reads held 10 s, the rest 5 ms GetAccounts."""
    quick = count - held
    return (f'domino_account_rpcs_total{{method="ListRevokedSessions",code="OK"}} {held}\n'
            f'domino_account_rpcs_total{{method="GetAccount",code="OK"}} {quick}\n'
            + histogram("domino_account_rpc_seconds", {"0.005": 0, "10.0": held, "+Inf": held},
                        'method="ListRevokedSessions"')
            + histogram("domino_account_rpc_seconds", {"0.005": quick, "10.0": quick, "+Inf": quick}, 'method="GetAccount"'))


def test_the_revocation_lists_held_reads_do_not_make_the_account_service_slow():
    account = Target("accounts", "account", "http://accounts/metrics")
    ring = FigureRing()
    ring.add({"accounts": scraped(account, 0.0, account_reads(0, 0))}, 0.0)
    ring.add({"accounts": scraped(account, 60.0, account_reads(60, 30))}, 60.0)
    assert "DominoRpcLatencyHigh" not in [a.name for a in evaluate(ring)]


def test_prometheus_alerts_are_read_from_its_api():
    body = {"status": "success", "data": {"alerts": [
        {"labels": {"alertname": "DominoRelayLagging", "severity": "page"}, "annotations": {"summary": "late"},
         "state": "firing"},
        {"labels": {"alertname": "Old"}, "annotations": {}, "state": "inactive"}]}}

    async def run():
        transport = httpx.MockTransport(lambda request: httpx.Response(200, json=body))
        async with httpx.AsyncClient(transport=transport) as client:
            return await from_prometheus(client, "http://prometheus:9090/", 1)

    alerts = asyncio.run(run())
    assert [(a.name, a.severity, a.summary) for a in alerts] == [("DominoRelayLagging", "page", "late")]


def test_a_prometheus_that_does_not_answer_gives_none():
    async def run():
        async with httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(502))) as client:
            return await from_prometheus(client, "http://prometheus:9090", 1)

    assert asyncio.run(run()) is None


def test_a_sparkline_breaks_where_a_value_is_unknown():
    svg = ET.fromstring(sparkline([(0, 1.0), (5, 2.0), (10, None), (15, 3.0), (20, 1.0)], "moves per second"))
    lines = svg.findall("{http://www.w3.org/2000/svg}polyline")
    assert [len(line.get("points").split()) for line in lines] == [2, 2]
    assert "style=" not in ET.tostring(svg, encoding="unicode")


def test_a_sparkline_without_data_says_so():
    assert "no data yet" in sparkline([], "relay lag")


def test_targets_are_named_endpoints_and_a_names_first_part_is_its_service():
    from services.console.metrics_settings import parse_targets

    assert parse_targets("match=http://a:9101/metrics, match-2=http://b:9101/metrics") == [
        Target("match", "match", "http://a:9101/metrics"), Target("match-2", "match", "http://b:9101/metrics")]


@pytest.mark.parametrize("value", ["match", "match=ftp://a/metrics", "=http://a/metrics",
                                   "a=http://x/metrics,a=http://y/metrics"])
def test_a_malformed_target_list_is_refused(value):
    from services.console.metrics_settings import NowSettings

    with pytest.raises(ValueError):
        NowSettings(metrics_targets=value)


def test_a_local_runs_targets_follow_its_ports():
    from services.common.supervisor import Ports
    from services.console.metrics_settings import local_targets, parse_targets

    targets = parse_targets(local_targets(Ports(), second_match_metrics=9201))
    assert [t.name for t in targets][:2] == ["match", "match-2"]
    assert "edge=http://127.0.0.1:9106/metrics" in local_targets(Ports())


def test_a_host_naming_several_addresses_is_scraped_at_each_as_its_own_target(monkeypatch):
    """A Kubernetes headless Service names every pod: each is scraped, so rates compare a pod
    with itself, never with whichever pod a Service address picked last time."""
    from prometheus_client import CollectorRegistry, Counter

    from services.console.metrics_scrape import scrape_all
    from tests.console.pages_harness import metrics_endpoint

    registry = CollectorRegistry()
    Counter("domino_match_rpcs", "", registry=registry).inc(3)

    async def two_pods(self, host, port, **kwargs):
        return [(2, 1, 6, "", ("127.0.0.1", port)), (2, 1, 6, "", ("127.0.0.2", port))]

    monkeypatch.setattr(asyncio.BaseEventLoop, "getaddrinfo", two_pods)
    with metrics_endpoint(registry) as url:
        target = Target("match", "match", url.replace("127.0.0.1", "match-pods.example"))

        async def scrapes():
            async with httpx.AsyncClient() as client:
                return await scrape_all(client, [target], 1.0)

        got = asyncio.run(scrapes())
    assert set(got) == {"match@127.0.0.1", "match@127.0.0.2"}
    assert got["match@127.0.0.1"].up and not got["match@127.0.0.2"].up  # only the first "pod" listens
    assert {s.target.service for s in got.values()} == {"match"}
