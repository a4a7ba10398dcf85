"""Kept for the account service's modules still importing it here: the code is services/common/oidc.py."""

from services.common.oidc import IdTokenRefused, IdTokenVerifier, KeysUnavailable, UnknownProvider

__all__ = ["IdTokenRefused", "IdTokenVerifier", "KeysUnavailable", "UnknownProvider"]
