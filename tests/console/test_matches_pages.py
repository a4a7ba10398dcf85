"""The Matches pages over the console's ASGI app, against a real match service (SQLite, its
history view) and a real account service on loopback: any staff find matches; auditors alone
replay a finished one beside its evidence and download its record and evidence bundle, each
download in the operator log; a viewer is refused every replay and never sees a hand; an
edit made in the match store shows at the step it changed."""

from __future__ import annotations

import asyncio
import io
import json
import zipfile
from pathlib import Path

import grpc
import pytest
from click.testing import CliRunner

from domino.admin.v1 import player_admin_service_pb2 as admin
from domino.admin.v1 import player_admin_service_pb2_grpc as admin_grpc
from services.cli.main import cli
from services.console.match_evidence import EvidenceSettings
from tests.console.console_harness import console
from tests.console.matches_system import matches_system
from tests.service.staff_harness import staff
from tests.support.keys import KEYS
from tests.support.oidc_issuer import OidcIssuer

AUDITOR, VIEWER = ("dominoes-audit",), ("dominoes-view",)


@pytest.fixture(scope="module")
def system(tmp_path_factory):
    with matches_system(tmp_path_factory.mktemp("matches-pages")) as running:
        yield running


def run(system, scenario, groups=AUDITOR):
    """``scenario(c)`` against a console signed in with ``groups``."""
    async def go():
        with OidcIssuer(system.root / "issuer") as issuer:
            async with console(issuer, account=f"127.0.0.1:{system.accounts.port}",
                               match=f"127.0.0.1:{system.svc.port}") as c:
                c.app.state.clients.keys = KEYS.only(issues=("operator",))  # the services' test keys
                c.app.state.match_evidence = EvidenceSettings(nats_url="nats://127.0.0.1:9", witness_seconds=0.5,
                                                              var_dir=str(system.var_dir))
                signed = await c.sign_in("ada", "Ada", groups)
                assert signed.status_code in (200, 303), signed.text
                return await scenario(c)

    return asyncio.run(go())


def operator_log(system, target: str) -> list[admin.OperatorLogEntry]:
    with grpc.insecure_channel(f"127.0.0.1:{system.accounts.port}") as channel:
        return list(admin_grpc.PlayerAdminServiceStub(channel).ListOperatorLog(
            admin.ListOperatorLogRequest(target=target), metadata=staff("auditor")).entries)


# ---- finding ---------------------------------------------------------------------------------

@pytest.mark.parametrize("groups", [VIEWER, AUDITOR], ids=["viewer", "auditor"])
def test_any_staff_finds_a_match_by_its_id(system, groups):
    done = system.ids["done"]
    page = run(system, lambda c: c.http.get("/matches", params={"match_id": done}), groups)
    assert page.status_code == 200 and done in page.text and "ann, bob" in page.text
    assert (f'href="/matches/{done}"' in page.text) == (groups == AUDITOR)


def test_a_search_by_player_and_state_lists_only_their_matches(system):
    page = run(system, lambda c: c.http.get("/matches", params={"player_id": "cat", "state": "finished"}))
    assert system.ids["edited"] in page.text
    assert system.ids["done"] not in page.text and system.ids["live"] not in page.text


@pytest.mark.parametrize("field, value", [("from", "07/12/2026"), ("match_id", "not-an-id"), ("rules", "chess"),
                                          ("state", "lost")])
def test_a_malformed_search_is_refused_with_its_reason(system, field, value):
    page = run(system, lambda c: c.http.get("/matches", params={field: value}))
    assert page.status_code == 400 and 'role="alert"' in page.text


# ---- replaying -------------------------------------------------------------------------------

def test_an_auditor_replays_a_finished_match_and_sees_every_check_pass(system):
    done = system.ids["done"]
    page = run(system, lambda c: c.http.get(f"/matches/{done}"))
    assert page.status_code == 200, page.text
    assert "Every check passed" in page.text and "VALID (complete)" in page.text
    assert "signed head: ok" in page.text and "player&#39;s heads: ok" in page.text
    assert "Witness stream: not checked" in page.text
    assert "Step 0 of" in page.text and "Every hand after this step" in page.text


def test_a_step_is_fetched_alone_for_htmx_and_shows_every_hand(system):
    done = system.ids["done"]
    step = run(system, lambda c: c.http.get(f"/matches/{done}/step", params={"move": "2"}))
    assert step.status_code == 200 and "<html" not in step.text
    assert "Step 2 of" in step.text and "round 1, action 0" in step.text
    assert '<svg' in step.text and "Every hand after this step" in step.text


def test_a_move_number_past_the_end_shows_the_last_step(system):
    done = system.ids["done"]
    page = run(system, lambda c: c.http.get(f"/matches/{done}", params={"move": "99999"}))
    assert "the match&#39;s end" in page.text.split('id="step-title"')[1].split("</h2>")[0]


def test_a_match_still_in_play_is_not_replayed(system):
    page = run(system, lambda c: c.http.get(f"/matches/{system.ids['live']}"))
    assert page.status_code == 409 and "once the match has ended" in page.text and "Every hand" not in page.text


def test_a_malformed_match_id_is_no_match(system):
    page = run(system, lambda c: c.http.get("/matches/not-a-match-id"))
    assert page.status_code == 404


def test_a_viewer_is_refused_every_replay_and_download_and_sees_no_hand(system):
    done = system.ids["done"]

    async def scenario(c):
        token = await c.csrf_token()
        return [await c.http.get(f"/matches/{done}"), await c.http.get(f"/matches/{done}/step?move=3"),
                await c.http.post(f"/matches/{done}/record", data={"csrf_token": token, "why": "curious"}),
                await c.http.post(f"/matches/{done}/evidence", data={"csrf_token": token, "why": "curious"})]

    for answer in run(system, scenario, VIEWER):
        assert answer.status_code == 403
        assert "Every hand" not in answer.text and '"hands"' not in answer.text


def test_an_edit_in_the_match_store_shows_at_the_step_it_changed(system):
    edited = system.ids["edited"]
    system.tamper(edited)
    page = run(system, lambda c: c.http.get(f"/matches/{edited}"))
    assert page.status_code == 200, page.text
    assert "The record fails a check" in page.text and "Where it was changed (step 0)" in page.text
    assert 'class="step suspect"' in page.text and "INVALID" in page.text


def test_heads_a_player_kept_pasted_by_the_auditor_are_checked(system, tmp_path):
    done = system.ids["done"]
    kept = (system.var_dir / "heads" / "ann-0badc0de" / f"{done}.json").read_text()

    async def scenario(c):
        c.app.state.match_evidence = EvidenceSettings(nats_url="nats://127.0.0.1:9", witness_seconds=0.5,
                                                      var_dir=str(tmp_path))  # no kept heads to read here
        before = await c.http.get(f"/matches/{done}")
        pasted = await c.http.post(f"/matches/{done}/heads", data={"csrf_token": await c.csrf_token(), "heads": kept})
        return before, pasted, await c.http.get(f"/matches/{done}")

    before, pasted, after = run(system, scenario)
    assert "Players' kept heads: not checked" in before.text
    assert pasted.status_code == 303
    assert "player&#39;s heads: ok" in after.text and "Players' kept heads: 1 read" in after.text


def test_a_pasted_head_the_match_service_did_not_sign_is_refused(system):
    done = system.ids["done"]
    kept = json.loads((system.var_dir / "heads" / "ann-0badc0de" / f"{done}.json").read_text())
    head = kept["heads"][0]
    head["hash"] = "0" * 64  # a head a player made up: its signature no longer holds

    async def scenario(c):
        return await c.http.post(f"/matches/{done}/heads",
                                 data={"csrf_token": await c.csrf_token(), "heads": json.dumps(kept)})

    refused = run(system, scenario)
    assert refused.status_code == 400 and "was not signed by the match service" in refused.text


@pytest.mark.parametrize("heads", ["not json", '{"format": "domino-heads/1", "match": "x", "heads": []}'])
def test_pasted_text_that_is_not_heads_of_the_match_is_refused(system, heads):
    done = system.ids["done"]

    async def scenario(c):
        return await c.http.post(f"/matches/{done}/heads", data={"csrf_token": await c.csrf_token(), "heads": heads})

    refused = run(system, scenario)
    assert refused.status_code == 400 and "Not checked" in refused.text


# ---- downloads -------------------------------------------------------------------------------

def download(system, what: str, why: str = "dispute 42"):
    done = system.ids["done"]

    async def scenario(c):
        return await c.http.post(f"/matches/{done}/{what}", data={"csrf_token": await c.csrf_token(), "why": why})

    return run(system, scenario)


def test_the_record_download_is_the_export_and_is_in_the_operator_log(system):
    answer = download(system, "record")
    assert answer.status_code == 200, answer.text
    assert "attachment" in answer.headers["content-disposition"]
    assert json.loads(answer.content) == system.export
    entry = operator_log(system, system.ids["done"])[0]
    assert entry.action == "match.export" and "dispute 42" in entry.why


def test_the_evidence_bundle_verifies_offline(system, tmp_path, monkeypatch):
    answer = download(system, "evidence")
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(answer.content)) as zf:
        zf.extractall(tmp_path)
        folder = tmp_path / zf.namelist()[0].split("/")[0]
    readme = (folder / "README.txt").read_text()
    command = next(line.split()[1:] for line in readme.splitlines() if line.strip().startswith("domino audit"))
    assert "--key" in command and "--heads" in command
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 0, result.output
    assert any(e.action == "match.export" and "evidence" in e.why for e in operator_log(system, system.ids["done"]))


def test_a_download_without_a_reason_is_refused_and_not_logged(system):
    before = len(operator_log(system, system.ids["done"]))
    answer = download(system, "record", why=" ")
    assert answer.status_code == 400
    assert len(operator_log(system, system.ids["done"])) == before


def test_kept_heads_are_read_only_from_heads_files(tmp_path):
    from services.console.match_evidence import kept_heads

    match_id = "01f4eaae-dc9c-5e11-b9e7-c0ae68a8fc51"
    (tmp_path / "ann-1").mkdir()
    (tmp_path / "ann-1" / f"{match_id}.json").write_text("not json")
    assert kept_heads(tmp_path, match_id) is None
    assert kept_heads(tmp_path, "../etc") is None
    assert kept_heads(Path("/nonexistent"), match_id) is None
