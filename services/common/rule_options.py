"""A family's host options on the wire, for the services and the client alike.

Any family's options travel as ``repeated OptionSetting rule_options`` (name and typed
value, the messages DescribeRules describes them with), so a family registered as one module
is created, shown and played over the API without a message of its own (docs/design.md, "A
family is one module"). Whether a name or value is allowed is the family's to say
(``Family.build``), not this module's.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from domino.match.v1 import match_service_pb2 as pb


class UnreadableOptions(ValueError):
    """rule_options a family cannot even be asked about: a name twice, a setting without a
    name or value. Its message is safe to show the caller."""


def value_pb(value: Any) -> pb.OptionValue:
    """A host option's value as the oneof of its type (bool before int: a bool is an int)."""
    if isinstance(value, bool):
        return pb.OptionValue(bool_value=value)
    if isinstance(value, int):
        return pb.OptionValue(int_value=value)
    return pb.OptionValue(string_value=str(value))


def value_of(message: pb.OptionValue) -> Any:
    """The Python value of a typed value; None when none of the oneof is set."""
    kind = message.WhichOneof("value")
    return getattr(message, kind) if kind else None


def settings_pb(options: Mapping[str, Any] | None) -> list[pb.OptionSetting]:
    """Options by name as OptionSettings, in the mapping's order (a family's played options
    come in the order of its HostOptions)."""
    return [pb.OptionSetting(name=name, value=value_pb(value)) for name, value in (options or {}).items()]


def settings_of(settings: Iterable[pb.OptionSetting]) -> dict[str, Any]:
    """OptionSettings (either package's view of the message) by name; UnreadableOptions for a
    setting the family cannot be asked about."""
    chosen: dict[str, Any] = {}
    for setting in settings:
        name = setting.name
        if not name:
            raise UnreadableOptions("rule_options: a setting without a name")
        shown = repr(name[:40])
        if name in chosen:
            raise UnreadableOptions(f"rule_options names {shown} twice")
        value = value_of(setting.value)
        if value is None:
            raise UnreadableOptions(f"rule_options {shown} has no value (int_value, bool_value or string_value)")
        chosen[name] = value
    return chosen


def given(message: Any) -> dict[str, Any] | None:
    """The host options a request or view names in its rule_options (None: none, the
    variant's preset)."""
    return settings_of(message.rule_options) or None
