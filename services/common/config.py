"""Every setting of every process, read from the environment in one documented place.

Each field is an environment variable: the field name upper-cased with the `DOMINO_`
prefix (`DOMINO_KEYS_DIR`, `DOMINO_MATCH_ADDRESS`, ...). The event store's are
eventsourcing's own variables (`PERSISTENCE_MODULE`, `SQLITE_DBNAME`, `POSTGRES_*`), typed in
services/common/store_settings.py and handed to the library from here (`persistence_env`).
A process reads them through `from_environment`, which turns a bad value into one line
naming the variable and what it may be (services/common/bad_settings.py).
"""

from __future__ import annotations

import os
from typing import Literal, get_args

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from .bad_settings import BadSetting, one_line
from .client_address import trusted_networks
from .private_files import private_directory
from .store_settings import EMBEDDED_SQLITE, POSTGRES_MODULE, SQLITE_MODULE, StoreSettings

__all__ = ["BadSetting", "EMBEDDED_SQLITE", "POSTGRES_MODULE", "SQLITE_MODULE", "Settings", "StoreSettings",
           "client_keys_dir", "from_environment", "persistence_env"]

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DOMINO_", extra="ignore")

    keys_dir: str = Field("", description="directory of the Ed25519 token keys (<role>.key private, <role>.pub "
                                          "public; services/common/auth.py); no default: `domino up` makes "
                                          "development keys under var/keys and points its services there")
    var_dir: str = Field("var", description="where the local run keeps its SQLite file and NATS data")
    family_modules: str = Field("", description="comma-separated modules, each defining FAMILY, whose families "
                                                "every process registers besides the built-in five "
                                                "(services/common/family_plugins.py; docs/design.md, \"Adding a "
                                                "family\"); a module that does not import or holds no family "
                                                "stops the process")
    store: StoreSettings = Field(default_factory=StoreSettings, description="the event store: eventsourcing's "
                                                                            "own variables (the table's "
                                                                            "unprefixed rows)")

    match_address: str = Field("127.0.0.1:50051", description="host:port the match service listens on")
    match_metrics_port: int = Field(9101, description="Prometheus metrics HTTP port of the match service "
                                                      "(worker i of several serves on this port + i)")
    match_workers: int = Field(1, description="match service processes sharing its port (SO_REUSEPORT): one "
                                              "Python process uses one core; in Kubernetes scale pods instead")
    match_blocks_call_seconds: float = Field(1.0, gt=0, le=10, description="deadline of the match service's "
                                                                         "CheckRelations call when a WatchMatch "
                                                                         "stream opens (blocks at the table; "
                                                                         "unanswered: the stream opens unchecked, "
                                                                         "docs/social.md)")
    match_blocks_cache_seconds: float = Field(10.0, ge=0, le=300, description="how long the match service keeps "
                                                                              "a CheckRelations answer for streams "
                                                                              "opened again (a block made since "
                                                                              "applies at most this much later)")
    watch_poll_seconds: float = Field(30.0, description="the longest a matchmaking WatchRoom or WatchTicket "
                                                        "stream goes without re-reading the store: a safety net, "
                                                        "as changes wake it, those of other replicas through "
                                                        "the store's notifications (WatchMatch streams: "
                                                        "DOMINO_WATCH_SAFETY_SECONDS)")
    watch_safety_seconds: float = Field(30.0, gt=0, description="the match service's and matchmaking's safety "
                                                                "net: with no "
                                                                "notification from PostgreSQL for this long, "
                                                                "each process reads once what changed since the "
                                                                "last one it saw (a lost notification); "
                                                                "WatchMatch streams otherwise wake only when "
                                                                "their match changes")
    timer_poll_seconds: float = Field(0.5, description="the turn timer follows the store at most this often while "
                                                    "moves are stored; while none are, it sleeps until the next "
                                                    "deadline")
    abandon_after_seconds: float = Field(1800.0, gt=0, description="a match in which nothing happens for this long "
                                                                    "is ended as abandoned (no winner)")
    seed_wait_seconds: float = Field(10.0, ge=0, le=60, description="how long the first deal of a match made by "
                                                                     "matchmaking waits for its players' own seeds")
    round_pause_seconds: float = Field(8.0, ge=0, le=30, description="after a round ends, the next round's clocks "
                                                                     "start this much later, while every client "
                                                                     "shows how the round ended (moves are accepted "
                                                                     "meanwhile); matches of bots alone have none")

    relay_metrics_port: int = Field(9104, description="Prometheus metrics HTTP port of the relay")

    matchmaking_address: str = Field("127.0.0.1:50052", description="host:port matchmaking listens on")
    matchmaking_metrics_port: int = Field(9102, description="Prometheus metrics HTTP port of matchmaking")
    table_wait_seconds: float = Field(20.0, description="how long the first player at a public table waits "
                                                        "before empty seats are filled (with the other waiting "
                                                        "players first, then bots)")
    table_bot_strength: str = Field("greedy", description="strength of the bots that fill public tables when the waiting "
                                    "players' ratings are unknown (otherwise the offered strength whose ladder "
                                    "rating is nearest their mean, docs/bots.md)")
    table_rating_spread: float = Field(10.0, ge=0, description="public tables: a player whose rating "
                                                               "(OpenSkill ordinal) differs from every forming "
                                                               "table's mean by more than this opens another "
                                                               "table, unless one has waited half of "
                                                               "DOMINO_TABLE_WAIT_SECONDS (docs/design.md)")
    practice_rated: bool = Field(False, description="practice matches (and rooms of one person among bots) move "
                                                     "the player's rating; public tables and rooms of two people "
                                                     "or more always do (services/matchmaking/rated_matches.py)")
    matchmaking_poll_seconds: float = Field(1.0, description="how often the bot fill and the re-start of "
                                                             "interrupted match starts run")
    invite_ttl_seconds: float = Field(600.0, gt=0, description="an invite to a room (InviteToRoom, RequestRematch) "
                                                               "expires this long after it was sent, if its room "
                                                               "has not started or closed before (docs/invites.md)")
    bots_metrics_port: int = Field(9103, description="Prometheus metrics HTTP port of the bot service")
    bot_think_min_seconds: float = Field(0.6, ge=0, description="a bot at a table with people waits at least this "
                                                                "long before it moves, so they can follow the play")
    bot_think_max_seconds: float = Field(1.5, ge=0, description="... and at most this long (chosen at random in "
                                                                "between); bot-only matches never wait")
    bot_ack_wait_seconds: float = Field(30.0, ge=1, description="how long a turn a bots process took (and died with) "
                                                                 "waits before another bots process gets it")

    account_address: str = Field("127.0.0.1:50053", description="host:port the account service listens on (and "
                                                                "where matchmaking asks whether an account may play, "
                                                                "and the match service and matchmaking read the "
                                                                "revocation list)")
    revocation_poll_seconds: float = Field(1.0, gt=0, le=4, description="each match service, matchmaking "
                                                                         "and social process holds one read of the "
                                                                         "sessions the account service revoked, "
                                                                         "answered when one is (within 0.5 s), and "
                                                                         "reads at most this often (an account "
                                                                         "service away, or one that answers at once: "
                                                                         "a signed-out token is refused, and its "
                                                                         "streams end, within this; at most 4, so "
                                                                         "within 5 s)")
    revocations_max: int = Field(100_000, ge=1, description="revoked sessions one process keeps refusing at most "
                                                            "(each until its tokens expire, 15 minutes); beyond, "
                                                            "those expiring soonest are forgotten and counted "
                                                            "(domino_revocations_dropped_total)")
    account_metrics_port: int = Field(9105, description="Prometheus metrics HTTP port of the account service")
    access_token_seconds: int = Field(900, ge=1, le=900, description="lifetime of the player access tokens the "
                                                                     "account service issues (15 minutes at most)")
    refresh_token_days: float = Field(30.0, gt=0, le=90, description="a refresh token is valid this long after "
                                                                     "its session was last used")
    oidc_providers: str = Field("", description="JSON list of the OpenID Connect issuers players may sign in "
                                                "with: [{\"name\", \"issuer\", \"jwks_uri\", \"client_ids\": [...], "
                                                "\"nonce\": \"sha256\"|\"plain\"|\"none\", \"max_age_seconds\"}] "
                                                "(docs/security.md, \"Accounts\"; apple and google need only name "
                                                "and client_ids); empty: device sign-in only")
    oidc_ca_file: str = Field("", description="PEM bundle trusted for the issuers' JWKS over HTTPS besides the "
                                              "system's (a private issuer's CA)")
    display_name_changes_per_day: int = Field(3, ge=1, description="how often a player may change their display "
                                                                   "name in 24 hours")
    sign_ins_per_minute: float = Field(30.0, gt=0, description="sign-ins, refreshes and identity links one client "
                                                               "address (an IPv6 one by its /64), one device id and "
                                                               "one identity may make a minute, in bursts of as many; "
                                                               "malformed ones are refused without counting")
    trusted_proxies: str = Field("", description="comma-separated addresses or CIDR blocks of the hops in front of "
                                                 "the services (the public gateway's pods): from them, the client "
                                                 "address a limit counts is read from `x-forwarded-for` "
                                                 "(services/common/client_address.py); empty: the TCP peer is the "
                                                 "client")

    # The social service (services/social/, docs/social.md): friends and blocks.
    social_address: str = Field("127.0.0.1:50054", description="host:port the social service (friends and blocks) "
                                                               "listens on, and the account service asks to export "
                                                               "and erase a player's friends and blocks, and the "
                                                               "match service asks who blocks whom at a table "
                                                               "(empty: the account service has no social "
                                                               "service and the match service checks no block)")
    social_metrics_port: int = Field(9107, description="Prometheus metrics HTTP port of the social service")
    social_friends_max: int = Field(200, ge=1, description="friends one player may have (TOO_MANY_FRIENDS)")
    social_pending_requests_max: int = Field(50, ge=1, description="friend requests one player may have sent and "
                                                                   "waiting for an answer "
                                                                   "(TOO_MANY_PENDING_REQUESTS)")
    social_requests_per_hour: int = Field(20, ge=1, description="friend requests one player may send in an hour, "
                                                                "found or not (FRIEND_REQUESTS_EXHAUSTED, with "
                                                                "RetryInfo): friend codes cannot be guessed")
    social_blocks_max: int = Field(1000, ge=1, description="players one player may block (TOO_MANY_BLOCKS)")
    social_incoming_requests_max: int = Field(100, ge=1, description="friend requests one player may have waiting "
                                                                     "for their answer; past it a new one is "
                                                                     "refused (TOO_MANY_PENDING_REQUESTS)")
    social_notices_per_sender_max: int = Field(3, ge=1, description="live unread notifications of one kind (friend "
                                                                    "request, invite, rematch, invite answered) "
                                                                    "one player's inbox holds from one other "
                                                                    "player; more are dropped, unstored and "
                                                                    "unpushed")
    social_export_notifications_max: int = Field(1000, ge=1, description="notifications a player's data export "
                                                                         "holds: the newest this many")
    social_notification_days: float = Field(30.0, gt=0, le=365, description="a notification without an expiry of "
                                                                            "its own leaves the inbox this long "
                                                                            "after it was stored (your turn, "
                                                                            "invites and rematches: a day)")
    social_inbox_streams_per_player: int = Field(5, ge=1, description="WatchNotifications streams one player may "
                                                                      "hold open on one social process "
                                                                      "(RESOURCE_EXHAUSTED beyond)")
    social_inbox_streams_max: int = Field(10000, ge=1, description="WatchNotifications streams one social process "
                                                                   "serves at most (RESOURCE_EXHAUSTED beyond)")
    social_outbox_poll_seconds: float = Field(5.0, gt=0, description="the social service's outbox publisher is "
                                                                     "woken by each notification this process "
                                                                     "stores; it looks for those others stored "
                                                                     "(or it failed to publish) this often")
    push_installations_max: int = Field(10, ge=1, description="phones (app installations) one player may register "
                                                              "for pushes (TOO_MANY_PUSH_TOKENS)")
    push_per_minute: int = Field(6, ge=1, description="pushes one player's phones may get in any 60 seconds, "
                                                      "\"your turn\" included; past it a notification reaches the "
                                                      "inbox alone (services/social/push_tokens.py)")

    # The notifier (services/notifier/, docs/notifier.md): "your turn", results and the
    # inbox's notices pushed to phones through APNs and FCM.
    notifier_metrics_port: int = Field(9108, description="Prometheus metrics HTTP port of the notifier")
    notifier_concurrency: int = Field(64, ge=1, le=256, description="messages one notifier process handles at "
                                                                    "once, per consumer")
    notifier_turn_grace_seconds: float = Field(3.0, ge=0, le=60, description="a \"your turn\" is first looked at "
                                                                             "this long after the turn began (its "
                                                                             "message is put back with this delay, "
                                                                             "holding no slot): a player who opens "
                                                                             "the app within it gets no push")
    notifier_send_attempts: int = Field(4, ge=1, le=10, description="tries of one push to a provider that "
                                                                    "answers 429 or 5xx (backoff with jitter, "
                                                                    "Retry-After honoured)")
    notifier_send_seconds: float = Field(20.0, gt=0, le=25, description="the most one push may take, its "
                                                                        "retries included (under the notices "
                                                                        "consumer's 30 s acknowledgement wait)")
    notifier_call_seconds: float = Field(3.0, gt=0, le=30, description="deadline of each call to the social and "
                                                                       "match services and of each provider "
                                                                       "request")
    apns_key_file: str = Field("", description="the APNs token-signing key (.p8, PEM ES256) the notifier signs "
                                               "its provider tokens with; empty: APNs is off (pushes to iPhones "
                                               "are counted provider_off)")
    apns_key_id: str = Field("", description="the .p8 key's id (the provider token's kid)")
    apns_team_id: str = Field("", description="the Apple developer team id (the provider token's iss)")
    apns_topic: str = Field("", description="the app's bundle id (apns-topic)")
    apns_production_url: str = Field("https://api.push.apple.com", description="APNs's production base URL")
    apns_sandbox_url: str = Field("https://api.sandbox.push.apple.com", description="APNs's sandbox base URL "
                                                                                    "(development builds)")
    fcm_service_account_file: str = Field("", description="the Firebase service account JSON (project_id, "
                                                          "client_email, private_key, token_uri); empty: FCM is "
                                                          "off (pushes to Android phones are counted "
                                                          "provider_off)")
    fcm_url: str = Field("https://fcm.googleapis.com", description="FCM HTTP v1's base URL")
    push_ca_file: str = Field("", description="PEM bundle trusted for the providers' TLS instead of the system's "
                                              "(tests' fake providers); empty: the system's")

    # The browsers' edge (services/edge/): gRPC-Web and Connect, forwarded to the services at
    # the addresses above.
    web_address: str = Field("127.0.0.1:8080", description="host:port the edge (gRPC-Web and Connect for browsers, "
                                                           "services/edge/) listens on, over HTTP/1.1")
    web_metrics_port: int = Field(9106, description="Prometheus metrics HTTP port of the edge")
    web_origins: str = Field("", description="comma-separated origins (scheme://host:port) whose pages may call "
                                             "the APIs through the edge (CORS); `*`: any; empty: the edge's own "
                                             "origin (the page it serves) and http://localhost:<its port>")
    web_static_dir: str = Field("", description="a directory of static files the edge serves at / (the local "
                                                "run's test page); empty: none")
    web_calls_per_process: int = Field(5000, ge=1, description="calls (streams included) one edge process "
                                                               "forwards at once; more are RESOURCE_EXHAUSTED")
    web_calls_per_client: int = Field(64, ge=1, description="calls one client address (as DOMINO_TRUSTED_PROXIES "
                                                            "reads it; an IPv6 one by its /64) may have open "
                                                            "through one edge process; more are RESOURCE_EXHAUSTED")
    web_unary_deadline_seconds: float = Field(30.0, gt=0, description="the deadline of a unary call forwarded by "
                                                                      "the edge, and the longest a client may ask "
                                                                      "for (streams: the token's life)")
    web_idle_seconds: float = Field(30.0, ge=1, description="the edge closes a browser's keep-alive connection "
                                                            "idle this long")

    nats_url: str = Field("nats://127.0.0.1:4222", description="NATS server with JetStream")
    nats_user: str = Field("", description="this service's NATS user (relay, matchmaking, bots; admin for `domino "
                                           "nats setup`); empty: connect without credentials")
    nats_password: str = Field("", repr=False, description="that user's password (from a Secret); never logged")
    nats_stream_replicas: int = Field(1, description="replicas of the DOMINO stream (3 on a 3-node cluster)")
    log_format: Literal["json", "console"] = Field("json", description="'json' for machines, 'console' for "
                                                                       "people")
    log_level: LogLevel = Field("INFO", description="the logging level, in any case (`debug`)")
    shutdown_grace_seconds: float = Field(10.0, description="how long SIGTERM waits for in-flight commands")
    command_rate: float = Field(20.0, gt=0, description="requests a second one player (or bot) may make to a "
                                                         "service, on average; beyond: RESOURCE_EXHAUSTED")
    command_burst: float = Field(40.0, ge=1, description="... and in a burst")
    streams_per_caller: int = Field(16, ge=1, description="open streams one caller may hold on one process")
    streams_per_process: int = Field(10000, ge=1, description="open streams one process serves at most (a "
                                                              "WatchMatch stream waiting for a move costs about 45 "
                                                              "KB and next to no CPU: bench/idle_streams.py)")
    spectator_streams_per_process: int | None = Field(
        None, ge=0, description="of those, the WatchMatch streams of spectators (watchers without a seat) one match "
                                "service process serves at most, so seated players always keep the rest; unset: a "
                                "quarter of DOMINO_STREAMS_PER_PROCESS (2500 of 10000); must be below it")
    spectator_streams_per_match: int = Field(200, ge=0, description="spectators' WatchMatch streams one match may "
                                                                     "have open on one match service process")

    # The gRPC servers' connections (services/common/grpc_server.py). Phones sit behind NATs
    # and carrier proxies that forget an idle connection within minutes, so both ends ping;
    # the client's pings (services/client/api.py keepalive_options, every 60 s) must stay
    # within grpc_min_ping_interval_seconds, or the server sends it away.
    grpc_keepalive_seconds: float = Field(
        60.0, gt=0, description="the server pings each client connection this often, with or without calls, to "
                                "find dead ones (grpc.keepalive_time_ms)")
    grpc_keepalive_timeout_seconds: float = Field(
        20.0, gt=0, description="... and closes it when a ping is not answered this fast (grpc.keepalive_timeout_ms)")
    grpc_min_ping_interval_seconds: float = Field(
        30.0, gt=0, description="clients may ping this often at most, with or without calls; a client that pings "
                                "more often gets GOAWAY ENHANCE_YOUR_CALM "
                                "(grpc.http2.min_ping_interval_without_data_ms)")
    grpc_max_connection_age_seconds: float = Field(
        1800.0, gt=0, description="a connection older than this (+-10%) is asked to go away (GOAWAY): its client "
                                  "reconnects, so replicas added since get connections too "
                                  "(grpc.max_connection_age_ms)")
    grpc_max_connection_age_grace_seconds: float = Field(
        7200.0, ge=0, description="calls still open on such a connection may go on this long, then are cut with "
                                  "UNAVAILABLE; a client reopens a watch from the version it had "
                                  "(grpc.max_connection_age_grace_ms)")
    # What one connection, and one process, may hold open (services/common/grpc_server.py):
    # a client that opens calls and never sends their request (HTTP/2 HEADERS without
    # DATA) must not grow the process's memory without bound (docs/security.md, "Limits").
    grpc_max_concurrent_streams: int = Field(
        100, ge=0, description="calls one client connection may have open at once, advertised in the server's "
                               "HTTP/2 SETTINGS; more are refused (RST_STREAM REFUSED_STREAM) "
                               "(grpc.max_concurrent_streams). 0: no bound, grpc's default (only to measure "
                               "without it: bench/h2_flood.py)")
    grpc_max_concurrent_calls: int = Field(
        10500, ge=0, description="calls one process serves at once, open streams included; more are answered "
                                "RESOURCE_EXHAUSTED (grpc maximum_concurrent_rpcs). Must leave room above "
                                "DOMINO_STREAMS_PER_PROCESS for the unary calls. 0: no bound")
    grpc_request_wait_seconds: float = Field(
        10.0, ge=0, description="a call whose request message has not arrived this long after it opened is "
                                "ended (DEADLINE_EXCEEDED), freeing its place; our requests are a few hundred "
                                "bytes and sent with the call. 0: wait as long as the connection lives")
    grpc_handshake_timeout_seconds: float = Field(
        20.0, gt=0, description="a new connection that has not finished its handshake (TLS, HTTP/2 preface and "
                                "SETTINGS) this fast is closed (grpc.server_handshake_timeout_ms)")
    memory_release_seconds: float = Field(
        10.0, ge=0, description="while a gRPC server serves, it hands the memory that ended calls freed back to "
                                "the operating system this often (glibc malloc_trim, services/common/"
                                "free_memory.py), so a burst does not leave the process at its peak; 0: never")
    grpc_reflection: bool = Field(True, description="serve gRPC server reflection (grpcurl, grpcui): on for local "
                                                    "use, off in production (deploy/k8s/overlays/prod)")
    tls_cert_file: str = Field("", description="PEM certificate chain: with tls_key_file the gRPC server speaks TLS "
                                               "only. For a server reached directly: in Kubernetes the Gateway "
                                               "terminates TLS (and the kubelet's gRPC probes speak plaintext)")
    tls_key_file: str = Field("", description="the PEM private key of tls_cert_file")

    @field_validator("log_level", mode="before")
    @classmethod
    def _level_in_any_case(cls, value: object) -> object:
        if isinstance(value, str) and value.upper() in get_args(LogLevel):
            return value.upper()  # `debug` has always worked (logs.py upper-cases it for logging)
        return value  # refused as the operator wrote it

    @model_validator(mode="after")
    def _calls_fit_streams(self) -> "Settings":
        if self.grpc_max_concurrent_calls and self.grpc_max_concurrent_calls <= self.streams_per_process:
            raise ValueError(f"DOMINO_GRPC_MAX_CONCURRENT_CALLS ({self.grpc_max_concurrent_calls}) must be above "
                             f"DOMINO_STREAMS_PER_PROCESS ({self.streams_per_process}): the open streams would "
                             "leave no place for the other calls")
        return self

    @model_validator(mode="after")
    def _spectators_share(self) -> "Settings":
        share = self.spectator_streams_per_process
        if share is not None and share >= self.streams_per_process:
            raise ValueError(f"DOMINO_SPECTATOR_STREAMS_PER_PROCESS ({share}) must be below "
                             f"DOMINO_STREAMS_PER_PROCESS ({self.streams_per_process}): seated players need room")
        return self

    @model_validator(mode="after")
    def _proxies_parse(self) -> "Settings":
        trusted_networks(self.trusted_proxies)  # ValueError naming the entry that is not an address
        return self

    @model_validator(mode="after")
    def _tls_pair(self) -> "Settings":
        if bool(self.tls_cert_file) != bool(self.tls_key_file):
            raise ValueError("DOMINO_TLS_CERT_FILE and DOMINO_TLS_KEY_FILE go together: set both or neither")
        return self


def from_environment() -> Settings:
    """The settings of this process; a bad value raises BadSetting, whose message is one
    line naming the variable and what it may be (no traceback for an operator to read)."""
    try:
        return Settings()
    except ValidationError as e:
        raise BadSetting(one_line(e, (Settings, StoreSettings))) from None


def persistence_env(settings: Settings) -> dict[str, str]:
    """What eventsourcing is given: the store settings, defaulting to the SQLite file of
    the local run."""
    env = settings.store.eventsourcing_env()
    if "PERSISTENCE_MODULE" not in env:
        private_directory(settings.var_dir)
        env["PERSISTENCE_MODULE"] = SQLITE_MODULE
        env.setdefault("SQLITE_DBNAME", os.path.join(settings.var_dir, "match.sqlite"))
    return env


def client_keys_dir(settings: Settings) -> str:
    """Where a command-line tool finds keys to mint its own tokens: DOMINO_KEYS_DIR, else the
    development keys of the local run (`var/keys`)."""
    return settings.keys_dir or os.path.join(settings.var_dir, "keys")
