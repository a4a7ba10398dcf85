"""Where a command's time goes, hop by hop, for bench/load.py's ``command_hops_ms``.

The phones' p99 alone cannot tell a slow server from a busy load generator on the same two
cores. Each hop here is measured where it happens: the phone's round trip by the phone, the
match service's handling by its own histogram (``domino_match_rpc_seconds``, from the
interceptor's start to the reply, so gRPC's queueing before the handler is not in it), the
relay's lag by the relay, the bots' decision by the bots. What lies between the phone and the
handler (the transport, both processes' event loops) has no meter of its own: it is the
difference of the two quantiles, an estimate (quantiles do not subtract exactly), shown
beside the generator's own loop lag (the part of it this process adds) and an empty RPC's
round trip (a health check: the same way in and out, both loops, next to no handler).

The match replicas' own loop lag (``domino_event_loop_lag_seconds``: a task woken every
0.5 s, how late) is the part of that gap the server adds. Hops the services expose no metric
for (a stream's wake to its write, a bot's whole turn) are named in ``not_measured``.
"""

from __future__ import annotations

from bench.procfs import pct
from bench.prom_text import histogram_quantile, metric_sum

COMMANDS = ("PlayTile", "DrawTile")
NOT_MEASURED = (
    "gRPC queueing in the match service before the handler (outside domino_match_rpc_seconds)",
    "stored event -> stream woken and written, per replica (no metric: inside watch_delivery)",
    "a bot's whole turn, message received -> its command answered (only the decision is timed)",
)


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 2)


def _r(ms: float | None) -> float | None:
    return None if ms is None else round(ms, 2)


def server_seconds(before: list[dict], after: list[dict], methods: tuple[str, ...], q: float) -> float | None:
    """``domino_match_rpc_seconds`` of ``methods`` at quantile ``q`` over the window, every
    replica's histogram summed (one scrape per replica in ``before`` and ``after``)."""
    def pick(samples: list[dict]) -> dict:
        out: dict = {}
        for sample in samples:
            for (name, labels), value in sample.items():
                if name.startswith("domino_match_rpc_seconds") and dict(labels).get("method") in methods:
                    out[(name, labels)] = out.get((name, labels), 0.0) + value
        return out
    return histogram_quantile(pick(before), pick(after), "domino_match_rpc_seconds", q)


def match_gc(before: list[dict], after: list[dict], seconds: float) -> dict[str, float | None]:
    """The match replicas' garbage collections in the window (``domino_gc_pause_seconds``):
    a pause stops every call and stream of its replica, in a handler's timing or not. ``p99``
    of the pauses, the full (generation 2) ones counted, and the share of the window each
    replica spent stopped on average."""
    def inc(name: str, **labels: str) -> float:
        return sum(metric_sum(a, name, **labels) - metric_sum(b, name, **labels) for b, a in zip(before, after))
    if not any(name == "domino_gc_pause_seconds_count" for sample in after for name, _ in sample):
        return {"p99": None, "collections": None, "full_collections": None, "stopped_share": None}  # not exposed
    pause = histogram_quantile(_summed(before), _summed(after), "domino_gc_pause_seconds", 0.99)
    stopped = inc("domino_gc_pause_seconds_sum")
    return {"p99": _ms(pause), "collections": int(inc("domino_gc_pause_seconds_count")),
            "full_collections": int(inc("domino_gc_pause_seconds_count", generation="2")),
            "stopped_share": round(stopped / seconds / max(1, len(after)), 4) if seconds > 0 else None}


def match_loop_lag(before: list[dict], after: list[dict]) -> dict[str, float | None]:
    """The match replicas' event-loop lag in the window (``domino_event_loop_lag_seconds``,
    every replica's histogram summed): what a call waits before its handler starts."""
    return {q: _ms(histogram_quantile(_summed(before), _summed(after), "domino_event_loop_lag_seconds", v))
            for q, v in (("p50", 0.5), ("p99", 0.99))}


def _summed(samples: list[dict]) -> dict:
    out: dict = {}
    for sample in samples:
        for key, value in sample.items():
            out[key] = out.get(key, 0.0) + value
    return out


def quantiles(values_ms: list[float]) -> dict[str, float | None]:
    return {"p50": _r(pct(values_ms, 50)), "p99": _r(pct(values_ms, 99))}


def command_hops(phone_ms: list[float], before: dict, after: dict, relay_ms: list[float], delivery_ms: list[float],
                 bot_decision_ms: dict[str, float | None], loop_lag: dict[str, float | None],
                 empty_rpc_ms: dict[str, float | None] | None = None, seconds: float = 0.0) -> dict:
    """The window's hops: ``phone_ms`` the phones' command latencies, ``before``/``after`` the
    window's snapshots (their ``match`` scrapes), ``relay_ms`` the relay-lag samples,
    ``delivery_ms`` the streams' event-to-phone delays, ``bot_decision_ms`` p50/p99,
    ``loop_lag`` the generator's loop-lag figures, ``empty_rpc_ms`` the health-check probe's
    round trips (bench/rpc_probe.py), ``seconds`` the window's length."""
    phone = quantiles(phone_ms)
    server = {q: _ms(server_seconds(before["match"], after["match"], COMMANDS, v))
              for q, v in (("p50", 0.5), ("p99", 0.99))}
    by_method = {m: {q: _ms(server_seconds(before["match"], after["match"], (m,), v))
                     for q, v in (("p50", 0.5), ("p99", 0.99))} for m in COMMANDS}
    between = {q: _r(phone[q] - server[q]) if phone[q] is not None and server[q] is not None else None
               for q in ("p50", "p99")}
    return {
        "phone_round_trip": phone,
        "match_service": {**server, "by_method": by_method},
        "match_service_gc_pauses": match_gc(before["match"], after["match"], seconds),
        "transport_and_loops": {**between, "loadgen_loop_lag_p50": loop_lag.get("loadgen_loop_lag_p50_ms"),
                                "loadgen_loop_lag_p99": loop_lag.get("loadgen_loop_lag_p99_ms"),
                                "empty_rpc_round_trip": empty_rpc_ms,
                                "match_loop_lag": match_loop_lag(before["match"], after["match"])},
        "store_to_relay_published": quantiles(relay_ms),
        "event_to_phone_stream": quantiles(delivery_ms),
        "bot_decision": bot_decision_ms,
        "not_measured": list(NOT_MEASURED),
    }


def window_line(fig: dict) -> str:
    """The hops of a window's command, for the log: where the phones' p99 went."""
    hops = fig["command_hops_ms"]
    return (f"command p99 {fig['command_p99_ms']} ms at the phones, {hops['match_service']['p99']} in the match "
            f"service, {hops['transport_and_loops']['p99']} between (an empty RPC's round trip "
            f"{(hops['transport_and_loops']['empty_rpc_round_trip'] or {}).get('p99')}); load generator loop lag p50/p99/max "
            f"{fig['loadgen_loop_lag_p50_ms']}/{fig['loadgen_loop_lag_p99_ms']}/{fig['loadgen_loop_lag_max_ms']} ms, "
            f"{fig['loadgen_cpu_cores']} cores, late ticks on CPU {fig.get('loadgen_late_ticks_on_cpu_share')}, GC pause max {fig.get('loadgen_gc_pause_max_ms')} ms; relay lag p99 {hops['store_to_relay_published']['p99']}, "
            f"watch delivery p99 {hops['event_to_phone_stream']['p99']}, bot decision p99 {hops['bot_decision']['p99']}; "
            f"match service loop lag p99 {hops['transport_and_loops']['match_loop_lag']['p99']} ms, "
            f"GC pause p99 {hops['match_service_gc_pauses']['p99']} ms, "
            f"stopped {hops['match_service_gc_pauses']['stopped_share']} of the time")
