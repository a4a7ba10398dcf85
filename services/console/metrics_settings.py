"""Where the Now page reads its figures (`DOMINO_CONSOLE_METRICS_TARGETS`,
`DOMINO_CONSOLE_PROMETHEUS_URL`, `DOMINO_CONSOLE_SCRAPE_DEADLINE_SECONDS`).

Targets are named endpoints: ``name=url`` pairs, comma-separated, the name's part before
any ``-`` being the service (``match-2`` is a second match replica). In Kubernetes a
Service's address reaches one pod at a time: list each pod's endpoint, or set the Prometheus
URL, whose alerts then come from Prometheus itself. Unset, the targets are those of a local
run on its default ports (`domino up`).
"""

from __future__ import annotations

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from .metrics_scrape import Target

# `domino up`'s default metrics ports (services/common/supervisor.py Ports)
LOCAL_TARGETS = ("match=http://127.0.0.1:9101/metrics,matchmaking=http://127.0.0.1:9102/metrics,"
                 "bots=http://127.0.0.1:9103/metrics,relay=http://127.0.0.1:9104/metrics,"
                 "account=http://127.0.0.1:9105/metrics,edge=http://127.0.0.1:9106/metrics,"
                 "social=http://127.0.0.1:9107/metrics,notifier=http://127.0.0.1:9108/metrics")


class NowSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DOMINO_CONSOLE_", extra="ignore")

    metrics_targets: str = Field(LOCAL_TARGETS, description="name=url pairs, comma-separated, of the services' "
                                                            "metrics endpoints the Now page scrapes")
    prometheus_url: str = Field("", description="a Prometheus whose /api/v1/alerts gives the alerts firing; "
                                                "empty: the console evaluates the thresholds it can itself")
    scrape_deadline_seconds: float = Field(2.0, gt=0, le=10, description="a target slower than this shows as down")
    scrape_every_seconds: float = Field(5.0, gt=0, description="pages asking more often share one scrape")

    @field_validator("metrics_targets")
    @classmethod
    def _pairs(cls, value: str) -> str:
        parse_targets(value)
        return value

    @property
    def targets(self) -> list[Target]:
        return parse_targets(self.metrics_targets)


def parse_targets(value: str) -> list[Target]:
    targets = []
    for pair in filter(None, (p.strip() for p in value.split(","))):
        name, sep, url = pair.partition("=")
        if not sep or not name.strip() or not url.strip().startswith(("http://", "https://")):
            raise ValueError(f"{pair!r}: each target is name=http(s)://host:port/metrics")
        name = name.strip()
        targets.append(Target(name=name, service=name.split("-")[0], url=url.strip()))
    if len({t.name for t in targets}) != len(targets):
        raise ValueError("two targets have the same name")
    return targets


def local_targets(ports, second_match_metrics: int | None = None) -> str:
    """``metrics_targets`` for a local run on ``ports`` (supervisor.Ports)."""
    pairs = [("match", ports.match_metrics), ("matchmaking", ports.matchmaking_metrics), ("bots", ports.bots_metrics),
             ("relay", ports.relay_metrics), ("account", ports.account_metrics), ("edge", ports.web_metrics),
             ("social", ports.social_metrics), ("notifier", ports.notifier_metrics)]
    if second_match_metrics:
        pairs.insert(1, ("match-2", second_match_metrics))
    return ",".join(f"{name}=http://127.0.0.1:{port}/metrics" for name, port in pairs)
