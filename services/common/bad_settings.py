"""A bad setting, said in one line: an operator whose pod will not start reads the first
line of its log, which must name the variable and what it may be, not a traceback that
names a field of a Python class. A secret's value is never repeated."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, SecretStr, ValidationError


class BadSetting(Exception):
    pass


def variable(model: type[BaseModel], field: str) -> str:
    """The environment variable that sets ``field`` of ``model``."""
    return f"{model.model_config.get('env_prefix', '')}{field.upper()}"


def _secret(model: type[BaseModel], field: str) -> bool:
    info = model.model_fields.get(field)
    return info is not None and (info.repr is False or info.annotation is SecretStr)


def _said(model: type[BaseModel], loc: tuple[Any, ...], message: str, value: Any) -> str:
    if not loc:  # a check across settings: its message names them
        return message
    field = str(loc[0])
    info = model.model_fields.get(field)
    nested = info.annotation if info is not None else None
    if len(loc) > 1 and isinstance(nested, type) and issubclass(nested, BaseModel):
        return _said(nested, loc[1:], message, value)
    shown = "(hidden)" if _secret(model, field) else repr(value)
    return f"{variable(model, field)}={shown}: {message}"


def complaints(error: ValidationError, models: tuple[type[BaseModel], ...]) -> list[str]:
    """Each of ``error``'s complaints as `VARIABLE='value': what it should be`."""
    model = next((m for m in models if m.__name__ == error.title), models[0])
    said = []
    for complaint in error.errors():
        message = str(complaint["msg"]).removeprefix("Value error, ").replace("Input should", "should")
        said.append(_said(model, tuple(complaint["loc"]), message, complaint.get("input")))
    return said


def one_line(error: ValidationError, models: tuple[type[BaseModel], ...]) -> str:
    return "bad setting: " + "; ".join(complaints(error, models))
