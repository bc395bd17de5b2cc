"""The base of every settings model: a frozen pydantic model whose unknown fields are errors.

Each part defines its settings on this base, in a light module of its own folder (each setting's
name, type, default, bounds and description, once); ``spadework.config.RunConfig`` composes
those models as the sections of a run's TOML file, and the parts take them as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from spadework.errors import ConfigError
from spadework.tomltext import SURROGATE

S = TypeVar("S", bound="Section")


class Section(BaseModel):
    """A settings model (a config section): frozen, and unknown fields are errors (a typo must
    not be silently ignored)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="after")
    @classmethod
    def _utf8_only(cls, value: Any) -> Any:
        """Text must be writable to the run's UTF-8 ``config.toml`` (no lone surrogates, which
        is how Python carries command-line bytes that are not UTF-8)."""
        texts = value if isinstance(value, tuple) else (value,)
        if any(isinstance(t, str) and SURROGATE.search(t) for t in texts):
            raise ValueError("holds bytes that are not UTF-8 text; give UTF-8 text (rename the file "
                             "if it is a path)")
        return value

    @model_validator(mode="before")
    @classmethod
    def _sub_section_defaults(cls, data: Any) -> Any:
        """A sub-section given in part keeps the defaults this section gives it (the designer's
        ``sampling`` is cooler than the agent's), not those of the sub-section's class."""
        if not isinstance(data, dict):
            return data
        merged = dict(data)
        for name, value in data.items():
            field = cls.model_fields.get(name)
            if field is not None and isinstance(field.default, Section) and isinstance(value, dict):
                merged[name] = {**field.default.model_dump(), **value}
        return merged

    def into(self, kind: type[S], **extra: Any) -> S:
        """A ``kind`` holding this section's values of the fields both have, and ``extra``: a
        part's settings made from the section that shares their definitions.

        >>> class Limits(Section):
        ...     timeout_s: float = 5.0
        >>> class WorkerLimits(Limits):
        ...     retries: int = 0
        >>> Limits(timeout_s=2.0).into(WorkerLimits, retries=1)
        WorkerLimits(timeout_s=2.0, retries=1)
        """
        shared = {name: getattr(self, name) for name in kind.model_fields if name in type(self).model_fields}
        return kind.model_validate({**shared, **extra})

    def to_json(self) -> dict[str, Any]:
        """The settings as JSON (kinds by their names)."""
        return self.model_dump(mode="json")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """Settings from ``to_json`` output. Raises ConfigError naming the first bad field."""
        try:
            return cls.model_validate(dict(data))
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(p) for p in error["loc"]) or "(top level)"
            raise ConfigError(f"{cls.__name__} field '{field}': {error['msg']}") from None
