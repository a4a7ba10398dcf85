"""What a push says: ids, the localisation key, its arguments and display names, in the
shapes APNs and FCM take; "your turn" urgent, collapsed per match and living to its deadline."""

from __future__ import annotations

import json

from domino.social.v1 import social_service_pb2 as pb
from services.notifier.payloads import Push, apns_headers, apns_payload, fcm_message, from_claim

MATCH = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"
TURN = Push("0b6f5d0e-3c8e-4d59-9a51-7a4c1f0e2b11", "your_turn", "notice.your_turn",
            {"seconds_left": "40", "rules": "egyptian", "deadline": "2027-01-15T08:00:40Z"}, {"match_id": MATCH},
            expires_at=1_800_000_040.0)
INVITE = Push("1c7e6f1f-4d9f-4e6a-8b62-8b5d2f1f3c22", "invite", "notice.invite", {"rules": "egyptian"},
              {"room_id": "ROOM1234", "invite_id": "inv-1", "player_id": "p-ann"}, 1_800_086_400.0, "Ann")


def test_the_apns_payload_holds_only_ids_the_key_its_args_and_display_names():
    payload = apns_payload(INVITE)
    assert set(payload) == {"aps", "domino"}
    assert payload["aps"] == {"alert": {"loc-key": "notice.invite", "loc-args": ["Ann", "egyptian"]},
                              "sound": "default", "thread-id": "invite"}
    assert payload["domino"] == {"notification_id": INVITE.notification_id, "kind": "invite", "room_id": "ROOM1234",
                                 "invite_id": "inv-1", "player_id": "p-ann", "args": {"rules": "egyptian"}}


def test_loc_args_put_the_player_first_then_the_keys_own_order_then_the_rest_by_name():
    push = Push("id", "match_result", "notice.match_won",
                {"rules": "egyptian", "outcome": "won", "opponent_points": "64", "points": "101"}, {}, None, "Bob")
    assert push.loc_args() == ["Bob", "101", "64", "egyptian", "won"]


def test_your_turn_goes_at_once_collapsed_per_match_until_its_deadline():
    headers = apns_headers(TURN, "jwt", "com.example.domino")
    assert headers["apns-priority"] == "10" and headers["apns-collapse-id"] == f"turn-{MATCH}"
    assert headers["apns-expiration"] == "1800000040" and headers["apns-push-type"] == "alert"
    assert headers["authorization"] == "bearer jwt" and headers["apns-id"] == TURN.notification_id


def test_other_notices_go_at_normal_priority_without_a_collapse_id():
    headers = apns_headers(INVITE, "jwt", "com.example.domino")
    assert headers["apns-priority"] == "5" and "apns-collapse-id" not in headers


def test_a_your_turn_thread_is_its_match():
    assert apns_payload(TURN)["aps"]["thread-id"] == f"match-{MATCH}"


def test_the_fcm_message_for_your_turn_is_high_priority_collapsed_and_lives_the_seconds_left():
    message = fcm_message(TURN, "reg-token", now=1_800_000_010.5)["message"]
    assert message["token"] == "reg-token"
    assert message["android"] == {"priority": "HIGH", "ttl": "29s", "collapse_key": f"turn-{MATCH}",
                                  "notification": {"body_loc_key": "notice.your_turn",
                                                   "body_loc_args": ["40", "egyptian", "2027-01-15T08:00:40Z"]}}


def test_the_fcm_data_map_is_strings_only_with_the_args_as_json():
    data = fcm_message(INVITE, "reg-token", now=1_800_000_000.0)["message"]["data"]
    assert all(isinstance(v, str) for v in data.values())
    assert json.loads(data["args"]) == {"rules": "egyptian"}
    assert set(data) == {"notification_id", "kind", "text_key", "room_id", "invite_id", "player_id", "args"}


def test_an_fcm_notice_that_is_not_your_turn_goes_at_normal_priority_without_a_collapse_key():
    android = fcm_message(INVITE, "reg-token", now=1_800_000_000.0)["message"]["android"]
    assert android["priority"] == "NORMAL" and "collapse_key" not in android


def test_a_push_is_read_from_the_claim_with_the_display_name_of_the_player_it_is_about():
    reply = pb.ClaimPushResponse(decision=pb.PUSH_DECISION_SEND, recipient_player_id="p-bob",
                                 display_names={"p-ann": "Ann", "p-bob": "Bob"})
    reply.notification.notification_id = INVITE.notification_id
    reply.notification.kind = pb.NOTIFICATION_KIND_INVITE
    reply.notification.text_key = "notice.invite"
    reply.notification.player_id = "p-ann"
    reply.notification.room_id = "ROOM1234"
    reply.notification.expires_at.FromSeconds(1_800_086_400)
    push = from_claim(reply)
    assert (push.kind, push.player_name, push.about, push.expires_at) == (
        "invite", "Ann", {"room_id": "ROOM1234", "player_id": "p-ann"}, 1_800_086_400.0)


def test_an_fcm_time_to_live_past_four_weeks_is_cut_to_fcms_maximum():
    result = Push("id", "match_result", "notice.match_won", {}, {}, expires_at=1_800_000_000.0 + 30 * 86400)
    assert fcm_message(result, "reg-token", now=1_800_000_000.0)["message"]["android"]["ttl"] == "2419200s"
