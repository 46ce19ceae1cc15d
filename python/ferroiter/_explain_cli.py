"""`python -m ferroiter explain OP OPERAND...`: the build trace of an op on given layouts."""

from __future__ import annotations

from collections.abc import Callable

from . import _ferroiter as _fi
from ._operand_spec import OperandSpec, SpecError, parse_operand, parse_operand_or_scalar

_Operand = _fi.Array | float | int | bool | complex

#: How each preset of the op table builds its iterator (torch's TensorIterator presets).
_PRESETS: dict[tuple[int, str], Callable[..., _fi.TensorIterator]] = {
    (1, "unary"): _fi.TensorIterator.unary_op,
    (1, "unary_float"): _fi.TensorIterator.unary_float_op,
    (2, "binary"): _fi.TensorIterator.binary_op,
    (2, "unary_float"): _fi.TensorIterator.binary_float_op,
    (2, "comparison"): _fi.TensorIterator.comparison_op,
}

#: The copies: `copy` (dst.copy_(src), two operands) and `contiguous` (src into a new array of
#: the format given with --format, as Array.contiguous does).
COPY_OPS = ("copy", "contiguous")

#: The reductions: one operand, reduced over --dim (default: every dim) through torch's
#: reduce_op preset, whose output keeps the reduced dims as size 1 (stride 0 in the iterator).
REDUCTION_OPS = ("sum", "prod", "mean", "amax", "amin", "all", "any", "argmax", "argmin")


def explainable_ops() -> list[str]:
    """The op names `explain` accepts: every elementwise function with a preset, and copies."""
    names = [row["name"] for row in _fi._op_table() if (row["arity"], row["preset"]) in _PRESETS]
    return sorted(set(names)) + list(COPY_OPS) + list(REDUCTION_OPS)


def _arity_and_preset(op: str) -> tuple[int, str]:
    for row in _fi._op_table():
        if row["name"] == op and (row["arity"], row["preset"]) in _PRESETS:
            return row["arity"], row["preset"]
    if any(row["name"] == op for row in _fi._op_table()):
        raise SpecError(
            f"explain does not build {op}'s iterator yet (it takes steps before the build that "
            f"no preset covers); explain knows: {', '.join(explainable_ops())}"
        )
    raise SpecError(f"unknown op {op!r}; explain knows: {', '.join(explainable_ops())}")


def _reduction_iterator(
    op: str, operands: list[str], dims: str | None
) -> tuple[_fi.TensorIterator, list[str]]:
    """The reduce_op iterator of `op` over `dims` ("2,3"; None: every dim) of one operand."""
    if len(operands) != 1:
        raise SpecError(f"{op} takes 1 operand: {op} SRC [--dim D,...]")
    spec = parse_operand(operands[0])
    a = spec.build()
    try:
        picked = range(a.ndim) if dims is None else [int(d) for d in dims.split(",") if d]
        wrapped = {d + a.ndim if d < 0 else d for d in picked}
    except ValueError:
        raise SpecError(f"--dim takes dims like 2,3 or -1, not {dims!r}") from None
    if any(not 0 <= d < max(a.ndim, 1) for d in wrapped):
        raise SpecError(f"--dim {dims}: out of range for {a.ndim} dims")
    kept = tuple(1 if d in wrapped else n for d, n in enumerate(a.shape))
    out = _fi.empty(kept, dtype=a.dtype)
    lines = [
        f"input: {spec.describe()}",
        f"out: new contiguous {kept} (the reduced dims {sorted(wrapped)} kept as size 1)",
    ]
    return _fi.TensorIterator.reduce_op(out, a), lines


def build_iterator(
    op: str,
    operands: list[str],
    out: str | None,
    memory_format: str,
    dims: str | None = None,
) -> tuple[_fi.TensorIterator, list[str]]:
    """The iterator `op` builds on the described operands, and a line per operand."""
    if op in REDUCTION_OPS:
        return _reduction_iterator(op, operands, dims)
    if op in COPY_OPS:
        want = 1 if op == "contiguous" else 2
        if len(operands) != want:
            shape = "SRC" if op == "contiguous" else "DST SRC"
            raise SpecError(f"{op} takes {want} operand(s): {op} {shape}")
        specs = [parse_operand(text) for text in operands]
        if op == "contiguous":
            src_spec = specs[0]
            src = src_spec.build()
            fmt = _fmt(memory_format)
            dst = _fi.empty(src.shape, dtype=src.dtype, memory_format=fmt)
            lines = [f"src: {src_spec.describe()}", f"dst: new array, {memory_format}"]
            return _fi.TensorIterator.copy_op(dst, src), lines
        dst_spec, src_spec = specs
        lines = [f"dst: {dst_spec.describe()}", f"src: {src_spec.describe()}"]
        return _fi.TensorIterator.copy_op(dst_spec.build(), src_spec.build()), lines
    arity, preset = _arity_and_preset(op)
    if len(operands) != arity:
        raise SpecError(f"{op} takes {arity} operand(s), got {len(operands)}")
    parsed = [parse_operand_or_scalar(text) for text in operands]
    if arity == 1 and not isinstance(parsed[0], OperandSpec):
        raise SpecError(f"{op} needs an array operand, not a number")
    built: list[_Operand] = [p.build() if isinstance(p, OperandSpec) else p for p in parsed]
    lines = [
        f"input {i + 1}: {p.describe() if isinstance(p, OperandSpec) else f'Python number {p!r}'}"
        for i, p in enumerate(parsed)
    ]
    out_array = None
    if out is not None:
        out_spec = parse_operand(out)
        out_array = out_spec.build()
        lines.insert(0, f"out: {out_spec.describe()}")
    else:
        lines.insert(0, "out: allocated by the build")
    return _PRESETS[(arity, preset)](out_array, *built), lines


def _fmt(name: str) -> _fi.MemoryFormat:
    from ._operand_spec import FORMATS

    if name not in FORMATS:
        raise SpecError(f"unknown memory format {name!r}; known: {', '.join(sorted(FORMATS))}")
    return FORMATS[name]


def explain(
    op: str,
    operands: list[str],
    out: str | None = None,
    memory_format: str = "contiguous",
    num_threads: int | None = None,
    dims: str | None = None,
) -> str:
    """The text `explain` prints: the operands, then the iterator's build trace."""
    it, lines = build_iterator(op, operands, out, memory_format, dims)
    result = it.output(0)
    header = [f"{op}:"] + [f"  {line}" for line in lines]
    header.append(f"  result: shape {result.shape}, stride {result.stride()}, dtype {result.dtype}")
    return "\n".join(header) + "\n\n" + it.explain(num_threads=num_threads)
