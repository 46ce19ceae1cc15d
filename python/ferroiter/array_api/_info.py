"""``__array_namespace_info__()``: what the namespace supports (one device, "cpu")."""

from __future__ import annotations

import functools
from typing import Any

from . import _dtypes
from ._dtypes import DType


class Info:
    """The inspection object of the standard's ``__array_namespace_info__()``."""

    __module__ = "ferroiter.array_api"

    def capabilities(self) -> dict[str, Any]:
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> str:
        return "cpu"

    def devices(self) -> list[str]:
        return ["cpu"]

    def default_dtypes(self, *, device: object = None) -> dict[str, DType]:
        _check(device)
        return {
            "real floating": _dtypes.DEFAULT_FLOAT,
            "complex floating": _dtypes.DEFAULT_COMPLEX,
            "integral": _dtypes.DEFAULT_INT,
            "indexing": _dtypes.DEFAULT_INDEX,
        }

    def dtypes(
        self, *, device: object = None, kind: str | tuple[str, ...] | None = None
    ) -> dict[str, DType]:
        _check(device)
        return dict(_dtypes_of_kind(kind))


@functools.cache
def _dtypes_of_kind(kind: str | tuple[str, ...] | None) -> dict[str, DType]:
    """``dtypes(kind=kind)``, worked out once per kind (libraries ask at every call); callers
    get a copy."""
    return {str(dt): dt for dt in _dtypes.ALL if kind is None or _dtypes.isdtype(dt, kind)}


def _check(device: object) -> None:
    if device is not None and device != "cpu":
        raise ValueError(f"unsupported device {device!r}")


def __array_namespace_info__() -> Info:
    return Info()
