"""The console's settings, read from the environment (`DOMINO_CONSOLE_*`, and the shared
`DOMINO_ACCOUNT_ADDRESS`, `DOMINO_MATCH_ADDRESS`, `DOMINO_KEYS_DIR`, `DOMINO_VAR_DIR`)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlparse

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.common.auth import STAFF_ROLES


class ConsoleSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DOMINO_CONSOLE_", extra="ignore", populate_by_name=True)

    address: str = Field("127.0.0.1:8090", description="host:port the console's HTTP server listens on")
    metrics_port: int = Field(9110, description="Prometheus metrics HTTP port of the console")
    public_url: str = Field("http://127.0.0.1:8090", description="the console's URL as browsers reach it: the "
                                                                 "OIDC redirect URI is this plus /sign-in/callback; "
                                                                 "https:// makes its cookie Secure and __Host-")
    oidc_issuer: str = Field("", description="the staff identity provider's issuer URL (its discovery document "
                                             "is read from <issuer>/.well-known/openid-configuration); empty: "
                                             "only the local one-time link signs in")
    oidc_client_id: str = Field("", description="the console's client id at the identity provider")
    oidc_client_secret_file: str = Field("", description="file holding the console's client secret (the k8s "
                                                         "Secret mounted as a file); empty: a public client "
                                                         "(PKCE only)")
    oidc_ca_file: str = Field("", description="a CA bundle to trust the identity provider's certificate by, "
                                              "besides the system's (a private CA)")
    roles_claim: str = Field("roles", description="the ID token claim (a string or list of strings) naming the "
                                                  "staff member's groups")
    role_map: dict[str, str] = Field(default_factory=dict,
                                     description='JSON: claim value -> staff role, e.g. {"dominoes-ops": '
                                                 '"operator"}; staff with no mapped value are refused')
    session_secret_file: str = Field("", description="file holding the key that signs session cookies; empty: "
                                                     "a random key per process (sessions end at a restart)")
    idle_timeout_seconds: float = Field(1800.0, gt=0, description="a session unused this long is ended")
    absolute_timeout_seconds: float = Field(43200.0, gt=0, description="a session this old is ended, used or not")
    call_deadline_seconds: float = Field(5.0, gt=0, le=60, description="deadline of every gRPC call the console makes")
    actions_per_minute: float = Field(60.0, gt=0, description="requests a minute one member of staff, or one "
                                                              "client address, may make (bursts of twice this)")
    local_link: bool = Field(False, description="write a one-time sign-in link for a local operator with all "
                                                "four roles to <var_dir>/console-sign-in (`domino up`)")
    trusted_proxies: str = Field("", description="comma-separated networks whose X-Forwarded-For is believed "
                                                 "for rate limits by client address")

    account_address: str = Field("127.0.0.1:50053", validation_alias=AliasChoices("DOMINO_ACCOUNT_ADDRESS"))
    match_address: str = Field("127.0.0.1:50051", validation_alias=AliasChoices("DOMINO_MATCH_ADDRESS"))
    keys_dir: str = Field("", validation_alias=AliasChoices("DOMINO_KEYS_DIR"),
                          description="directory holding operator.key, the key the console mints staff tokens with")
    var_dir: str = Field("var", validation_alias=AliasChoices("DOMINO_VAR_DIR"))
    log_format: str = Field("json", validation_alias=AliasChoices("DOMINO_LOG_FORMAT"))
    log_level: str = Field("INFO", validation_alias=AliasChoices("DOMINO_LOG_LEVEL"))

    @field_validator("role_map", mode="before")
    @classmethod
    def _role_map_json(cls, value: object) -> object:
        if isinstance(value, str):
            value = json.loads(value) if value.strip() else {}
        if not isinstance(value, dict) or not all(isinstance(k, str) and v in STAFF_ROLES for k, v in value.items()):
            raise ValueError(f"must be a JSON object of claim value -> one of {', '.join(STAFF_ROLES)}")
        return value

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str) -> str:
        parsed = urlparse(value)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError("must be an http:// or https:// URL")
        if parsed.scheme == "http" and parsed.hostname not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError("must be https:// unless the console runs on this machine (127.0.0.1)")
        return value.rstrip("/")

    @property
    def https(self) -> bool:
        return self.public_url.startswith("https://")

    @property
    def redirect_uri(self) -> str:
        return self.public_url + "/sign-in/callback"

    @property
    def local_link_path(self) -> Path:
        return Path(self.var_dir) / "console-sign-in"
