"""Whether a match matchmaking starts moves its players' ratings, decided here, where the
match is made, and stored in the match (CreateMatch ``rated``), so the history never has to
guess (docs/design.md, "Public tables and ratings").

A public table is rated: the player asked to be matched, and the bots that fill its empty
seats are the strength nearest the waiting players' ratings. Practice is not, unless
``DOMINO_PRACTICE_RATED`` says so: the player picks the bots, and an 88-0 win over the
weakest is no measure of anyone. A private room is rated when two people or more sit at it:
friends who meet there play for their ratings as at a public table. A room of one person
among bots is practice in all but name (the host picked the bots), so it follows the
practice setting; otherwise a room would be the way around it. A rematch room is rated as
the match it plays again was, however many of its people came back.
"""

from __future__ import annotations

from .rooms import Room
from .seating import humans
from .tables import Table


def rated(source: Room | Table, practice_rated: bool) -> bool:
    if isinstance(source, Table):
        return source.kind == Table.PUBLIC or practice_rated
    if source.rated is not None:
        return source.rated
    return len(humans(source.seats)) >= 2 or practice_rated
