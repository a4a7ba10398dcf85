"""The menu's "Your matches" (pages of the player's matches, each exportable and verified
with the keys the server publishes: export_check.py) and "Ratings" (a family's rating and
leaderboard); history_screens.py draws them."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb

from . import export_check, families, history_screens, names, questions
from .api import ApiError
from .refusals import plain
from .screen_host import Host
from .store import Exports


@dataclass
class HistoryMenu:
    app: Host

    def my_matches(self) -> bool:
        """"Your matches": pages of ListMyMatches, newest first; a number exports that match
        (ExportMatch with the player's own token: what their seat saw) to a file under var/.
        True when the player left it with Enter (nothing more to read); False when it ended
        by itself (no history here, or none yet) and its message waits for a pause."""
        app = self.app
        tokens = [""]  # the page token of each page seen so far; the last is on screen
        page: pb.ListMyMatchesResponse | None = None
        while True:
            if page is None:
                try:
                    page = app.match.my_matches(history_screens.PAGE, tokens[-1])
                except ApiError as e:
                    app.out.say(Text(f"Your matches are not available: {plain(e)}", style="bold red"))
                    return False
                names.learn(p for m in page.matches for p in m.player_ids)
                app.out.say(history_screens.history_screen(page.matches, len(tokens) - 1,
                                                           bool(page.next_page_token)))
                if not page.matches and len(tokens) == 1:
                    return False
            first = (len(tokens) - 1) * history_screens.PAGE + 1
            app.out.ask("Your matches>")
            command = history_screens.parse_history(questions.line(app.inbox), first, len(page.matches),
                                                    bool(page.next_page_token), len(tokens) - 1)
            if command.action == "back":
                return True
            if command.action == "next":
                tokens.append(page.next_page_token)
                page = None
            elif command.action == "previous":
                tokens.pop()
                page = None
            elif command.action == "export":
                self._export(page.matches[command.number - first])
            else:
                app.out.say(command.message, style="yellow")

    def _export(self, summary: pb.MatchSummary) -> None:
        app = self.app
        try:
            record = app.match.export(summary.match_id)
        except ApiError as e:
            app.out.say(Text(f"Could not export match {summary.match_id}: {plain(e)}", style="bold red"))
            return
        exports = app.exports or Exports("var", app.player)
        try:
            path = exports.save(summary.match_id, record)
        except OSError as e:
            app.out.say(Text(f"Could not write the record: {e}", style="bold red"))
            return
        app.out.say(Text.assemble("Exported match ", (summary.match_id, "bold"), " (as your seat saw it) to ",
                                  (str(path), "bold green")), soft_wrap=True)
        kept = app.heads.path(summary.match_id) if app.heads is not None else None
        checked = export_check.check(app.match, record, path, kept,
                                     ended=summary.result != pb.MATCH_RESULT_IN_PLAY, run=app.verify)
        app.out.say(Text(checked.text, style="green" if checked.ok else "bold red"), soft_wrap=True)

    def ratings(self) -> None:
        """"Ratings": the player's rating in a family and team setting (asked; by default
        those of the match they last played) and that leaderboard's top with their rank."""
        app = self.app
        described = app.rules()
        last = self._last_played()
        rules = questions.ask_choice(app.out, app.inbox, "Family", described.names,
                                     last.rules if last is not None and last.rules in described.names
                                     else described.default)
        family = families.family(rules)
        if family.teams_choice:
            default = "teams" if last is not None and last.rules == rules and last.teams else "solo"
            teams = questions.ask_choice(app.out, app.inbox, "Ratings for", ("solo", "teams"), default) == "teams"
        else:
            teams = family.always_teams
        try:
            mine = app.match.rating(rules, teams)
            board = app.match.leaderboard(rules, teams, history_screens.TOP)
        except ApiError as e:
            app.out.say(Text(f"Ratings are not available: {plain(e)}", style="bold red"))
            return
        names.learn([app.player, *(r.player_id for r in board.top)])
        app.out.say(history_screens.ratings_screen(rules, teams, mine, board, app.player))

    def _last_played(self) -> pb.MatchSummary | None:
        """The player's newest match (None: none, or no history on this server)."""
        try:
            page = self.app.match.my_matches(1)
        except ApiError:
            return None
        return page.matches[0] if page.matches else None
