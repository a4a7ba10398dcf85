"""The providers' TLS: the system's trust store, or a test's CA bundle (DOMINO_PUSH_CA_FILE)."""

from __future__ import annotations

import ssl


def client_context(ca_file: str = "") -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=ca_file or None)
    context.set_alpn_protocols(["h2", "http/1.1"])
    return context
