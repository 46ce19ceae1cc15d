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


#: oneDNN's blocked formats (an array in one has no strides per dim: explain shows the
#: iterator the kernels build over its physical view).
_BLOCKED_FORMATS = (_fi.nChw8c, _fi.nChw16c, _fi.nCdhw8c, _fi.nCdhw16c)


def _is_blocked(x: object) -> bool:
    return isinstance(x, _fi.Array) and x.suggest_memory_format() in _BLOCKED_FORMATS


def _block_of(x: _fi.Array) -> int:
    return x.blocked_view().shape[-1]


def _split_channels(x: _fi.Array, block: int, first: int, blocks: int, lanes: int) -> _fi.Array:
    """A strided NC(D)HW array with channels [first*b, first*b + blocks*lanes) split into
    (blocks, lanes), lanes moved last: the counterpart of the blocked physical view's part."""
    st = x.stride()
    shape = (x.shape[0], blocks, *x.shape[2:], lanes)
    strides = (st[0], st[1] * block, *st[2:], st[1])
    return x.as_strided(shape, strides, x.storage_offset() + first * block * st[1])


def _conversion_iterator(dst: _fi.Array, src: _fi.Array, lines: list[str]) -> _fi.TensorIterator:
    """The copy iterator of a conversion that involves a blocked array: same-format blocked
    arrays copy their physical views; a strided <-> blocked conversion is one strided copy of
    the full channel blocks and one of the partial last block (the first one shown)."""
    if _is_blocked(dst) and _is_blocked(src) and _block_of(dst) == _block_of(src):
        lines.append("blocked -> blocked: one copy of the physical views (N, C/b, ..., b)")
        return _fi.TensorIterator.copy_op(dst.blocked_view(), src.blocked_view())
    if _is_blocked(dst) and _is_blocked(src):
        raise SpecError("explain converts between blocks through a dense copy: explain each step")
    blocked, strided = (dst, src) if _is_blocked(dst) else (src, dst)
    b, c = _block_of(blocked), blocked.shape[1]
    full, tail = divmod(c, b)
    first, blocks, lanes = (0, full, b) if full else (0, 1, tail)
    view = blocked.blocked_view()[:, first : first + blocks]
    if lanes != b:
        view = view[..., :lanes]
    split = _split_channels(strided, b, first, blocks, lanes)
    parts = f"{full} full block(s)" + (f" and a last block of {tail} lane(s)" if tail else "")
    lines.append(
        f"blocked conversion (block {b}): {parts}, one strided copy each; the "
        f"{'full blocks' if full else 'last block'}' copy is shown"
    )
    if blocked is dst:
        return _fi.TensorIterator.copy_op(view, split)
    return _fi.TensorIterator.copy_op(split, view)


def _through_blocked(built: list[_Operand], lines: list[str]) -> list[_Operand]:
    """Operands as the kernels hand them to the iterator: the physical views when every array
    is in one blocked format (0-d arrays and numbers broadcast), dense copies of the blocked
    ones in a mix."""
    arrays = [x for x in built if isinstance(x, _fi.Array)]
    blocked = [x for x in arrays if _is_blocked(x)]
    if not blocked:
        return built
    fmt, shape = blocked[0].suggest_memory_format(), blocked[0].shape
    if all(
        (_is_blocked(x) and x.suggest_memory_format() == fmt and x.shape == shape) or x.ndim == 0
        for x in arrays
    ):
        lines.append(
            f"blocked operands ({fmt!r}): the op runs over their physical views "
            "(N, C/b, ..., b), padding lanes included, which are zeroed again after"
        )
        return [
            x.blocked_view() if isinstance(x, _fi.Array) and _is_blocked(x) else x for x in built
        ]
    lines.append("mixed formats: the blocked operands are converted to dense NC(D)HW copies first")
    return [x.contiguous() if isinstance(x, _fi.Array) and _is_blocked(x) else x for x in built]


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
    blocked_note = []
    if _is_blocked(a):
        a = a.contiguous()
        blocked_note = ["blocked input: reduced as a dense NC(D)HW copy (its padding excluded)"]
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
        *blocked_note,
    ]
    if op == "prod" and str(a.dtype) in ("float16", "bfloat16"):
        lines.append(
            "torch's order: a float16/bfloat16 prod multiplies in the dtype (each product "
            "rounded), each output's chunks of up to 32768 elements in the order of torch's "
            "vector loop: a contiguous run's groups of 64 in 64 lanes, then the rest in turn; "
            "other runs one element after another; units output x chunk. The loop lines below "
            "are those of the plan's other reductions"
        )
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
            if _is_blocked(dst) or _is_blocked(src):
                return _conversion_iterator(dst, src, lines), lines
            return _fi.TensorIterator.copy_op(dst, src), lines
        dst_spec, src_spec = specs
        lines = [f"dst: {dst_spec.describe()}", f"src: {src_spec.describe()}"]
        dst, src = dst_spec.build(), src_spec.build()
        if (_is_blocked(dst) or _is_blocked(src)) and dst.shape == src.shape:
            return _conversion_iterator(dst, src, lines), lines
        return _fi.TensorIterator.copy_op(dst, src), lines
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
    if out_array is not None and _is_blocked(out_array):
        *built, physical_out = _through_blocked([*built, out_array], lines)
        if lines[-1].startswith("mixed") or not isinstance(physical_out, _fi.Array):
            raise SpecError("a blocked out= needs every array operand in its format and shape")
        out_array = physical_out
    else:
        built = _through_blocked(built, lines)
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
