"""A family's host options on the wire, for the services and the client alike.

Any family's options travel as ``repeated OptionSetting rule_options`` (name and typed
value, the messages DescribeRules describes them with), so a family registered as one module
is created, shown and played over the API without a message of its own. Goat's older
``GoatOptions goat_options`` stays for the clients that send and read it: it means the same as
the rule_options of its fields' names, and a view carries it only where every option played
is such a field (docs/design.md, "A family is one module"). Whether a name or value is
allowed is the family's to say (``Family.build``), not this module's.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from domino.match.v1 import match_service_pb2 as pb

GOAT_FIELDS = tuple(f.name for f in pb.GoatOptions.DESCRIPTOR.fields)  # in their declared order


class UnreadableOptions(ValueError):
    """rule_options a family cannot even be asked about: a name twice, a setting without a
    name or value, or goat_options saying otherwise. Its message is safe to show the caller."""


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


def goat_of(message: Any) -> dict[str, Any]:
    """The options a GoatOptions message (either package's) sets, by name."""
    return {name: getattr(message, name) for name in GOAT_FIELDS if message.HasField(name)}


def given(request: Any) -> dict[str, Any] | None:
    """The host options a request names, from its rule_options and its goat_options (None:
    neither, the variant's preset). A name both give must have the same value in each."""
    chosen = settings_of(request.rule_options)
    if not request.HasField("goat_options"):
        return chosen or None
    for name, value in goat_of(request.goat_options).items():
        if name in chosen and (type(chosen[name]), chosen[name]) != (type(value), value):
            raise UnreadableOptions(f"goat_options.{name} is {value!r} but rule_options {name!r} is "
                                    f"{chosen[name]!r}: give it once, or the same in both")
        chosen.setdefault(name, value)
    return chosen


def goat_fields(options: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The options as GoatOptions fields, for the older clients: None unless every one is
    such a field (another family's options travel only as rule_options)."""
    if not options or not set(options) <= set(GOAT_FIELDS):
        return None
    return dict(options)
