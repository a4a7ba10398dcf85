"""The account service: how a phone becomes a player (docs/security.md, "Accounts").

It is the only process that holds the player signing key. A device pair or an OpenID
Connect ID token gives an account, a short access token and a rotating refresh token; the
account's personal data (display name, identities, devices) lives only in its store and is
erased by DeleteAccount, while events, records, the chain and NATS carry account ids only.
"""
