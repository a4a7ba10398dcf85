"""Test doubles every tier shares: an injected clock (``clock``), the test key ring and
bearer metadata minted with it (``keys``), the recording match service that matchmaking
calls (``fakes``), and the match use cases run from sync test code (``matches``).

What only running a service needs stays with its tier (tests/service/harness.py).
"""
