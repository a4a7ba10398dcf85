"""The reference terminal client (`domino play`), over the public gRPC API only.

Layout: a pure core that turns a server view into screen text and an input line into a
command (``tiles``, ``commands``, ``render`` with ``pips`` and ``recent``, ``rounds``,
``round_end``, ``leading``, ``lobby_screens``, ``menu``, ``talk`` for quick chat,
``history_screens`` for past matches and ratings), what each rule family lets a
player choose (``families``), the gRPC calls (``api``, ``account_api``), the player's
account as a phone holds it (``device`` for the device key, ``session`` for tokens that
renew themselves, ``names`` for display names, ``account_screen``), an inbox
that merges typed lines and server streams into one queue (``inbox``), and the loops that
put them together (``game`` for a match, ``spectate`` for watching one, ``app`` for the
menu, rooms, public tables, history and ratings).
Everything that reads or writes the terminal takes its console and input stream as
arguments, so tests drive it through a pseudo-terminal or plain streams.
"""
