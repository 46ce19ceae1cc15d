"""Arrays described on the command line: `SHAPE[:FORMAT | @STRIDES][:DTYPE]`.

Examples: `2,3,4,5` (contiguous float32), `2,3,4,5:channels_last`, `1,16,2,2:nChw8c` (a
blocked format), `2,3,4,5@60,1,15,3`
(explicit strides, in elements), `3,4,5:float16`, `2,3,4,5:channels_last:bfloat16`, `()` (0-d).
A Python number is written `scalar=5.5` (it takes part as torch's wrapped scalar).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _ferroiter as _fi

FORMATS = {
    "contiguous": _fi.contiguous_format,
    "contiguous_format": _fi.contiguous_format,
    "channels_last": _fi.channels_last,
    "channels_last_3d": _fi.channels_last_3d,
    "nChw8c": _fi.nChw8c,
    "nChw16c": _fi.nChw16c,
    "nCdhw8c": _fi.nCdhw8c,
    "nCdhw16c": _fi.nCdhw16c,
}

#: The blocked formats (oneDNN's): their rank and block.
BLOCKED = {"nChw8c": (4, 8), "nChw16c": (4, 16), "nCdhw8c": (5, 8), "nCdhw16c": (5, 16)}


class SpecError(ValueError):
    """A malformed operand description (the command line reports it and exits with 2)."""


@dataclass(frozen=True)
class OperandSpec:
    """One parsed operand: its shape, then a memory format or explicit strides, and a dtype."""

    shape: tuple[int, ...]
    memory_format: str | None = None
    strides: tuple[int, ...] | None = None
    dtype: str = "float32"

    def describe(self) -> str:
        layout = self.memory_format or "contiguous"
        if self.strides is not None:
            layout = f"strides {self.strides}"
        return f"{self.shape} {layout} {self.dtype}"

    def build(self) -> _fi.Array:
        """A fresh array with this layout (values uninitialised: only the layout matters)."""
        if self.strides is None:
            fmt = FORMATS[self.memory_format or "contiguous"]
            return _fi.empty(self.shape, dtype=self.dtype, memory_format=fmt)
        # the smallest storage the strides reach, with an offset making negative strides valid
        low = sum((n - 1) * s for n, s in zip(self.shape, self.strides, strict=True) if s < 0)
        high = sum((n - 1) * s for n, s in zip(self.shape, self.strides, strict=True) if s > 0)
        size = 0 if 0 in self.shape else high - low + 1
        base = _fi.empty((size,), dtype=self.dtype)
        return base.as_strided(self.shape, self.strides, -low)


def _ints(text: str, what: str) -> tuple[int, ...]:
    text = text.strip()
    if text in ("", "()"):
        return ()
    try:
        return tuple(int(part) for part in text.strip("()").split(","))
    except ValueError:
        raise SpecError(f"{what} must be integers separated by commas, got {text!r}") from None


def _is_dtype(name: str) -> bool:
    try:
        _fi.empty((0,), dtype=name)
    except (TypeError, ValueError):
        return False
    return True


def parse_operand(text: str) -> OperandSpec:
    """Parses `SHAPE[:FORMAT | @STRIDES][:DTYPE]`; raises SpecError with the reason."""
    head, *tags = text.split(":")
    strides: tuple[int, ...] | None = None
    if "@" in head:
        head, stride_text = head.split("@", 1)
        strides = _ints(stride_text, "strides")
    shape = _ints(head, "a shape")
    if any(n < 0 for n in shape):
        raise SpecError(f"a shape has no negative sizes, got {shape}")
    if strides is not None and len(strides) != len(shape):
        raise SpecError(f"{len(shape)} sizes but {len(strides)} strides in {text!r}")
    memory_format: str | None = None
    dtype = "float32"
    if len(tags) > 2:
        raise SpecError(f"too many ':' parts in {text!r}: SHAPE[:FORMAT][:DTYPE]")
    for tag in tags:
        if tag in FORMATS and memory_format is None and strides is None:
            memory_format = tag
        elif _is_dtype(tag) and dtype == "float32":
            dtype = tag
        else:
            raise SpecError(
                f"{tag!r} in {text!r} is neither a memory format "
                f"({', '.join(sorted(FORMATS))}) nor a dtype"
            )
    if memory_format == "channels_last" and len(shape) != 4:
        raise SpecError(f"channels_last needs 4 dims, got {len(shape)}")
    if memory_format == "channels_last_3d" and len(shape) != 5:
        raise SpecError(f"channels_last_3d needs 5 dims, got {len(shape)}")
    if memory_format in BLOCKED and len(shape) != BLOCKED[memory_format][0]:
        raise SpecError(f"{memory_format} needs {BLOCKED[memory_format][0]} dims, got {len(shape)}")
    return OperandSpec(shape, memory_format, strides, dtype)


def parse_operand_or_scalar(text: str) -> OperandSpec | float | int | bool | complex:
    """An operand, or a Python number written `scalar=VALUE`."""
    if text.startswith("scalar="):
        value = text.removeprefix("scalar=")
        for kind in (int, float, complex):
            try:
                return kind(value)
            except ValueError:
                continue
        if value in ("True", "False"):
            return value == "True"
        raise SpecError(f"scalar= needs a Python number, got {value!r}")
    return parse_operand(text)
