"""Loop kernels from scalar Python functions, compiled by numba (``@ferroiter.kernel``).

For a signature ``out(in0, in1, ...)`` the scalar function is compiled with numba's ``njit``,
then a loop of torch's 2-D convention is generated around it and compiled as a ``cfunc``: per
row of the block, a typed pointer per operand, and an inner loop that indexes them by element
(unit strides get a loop of plain ``p[i]``, which LLVM vectorizes; any other stride, 0 for a
broadcast operand or negative for a flipped one, an ``p[i * s]`` loop).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy

from . import _ferroiter as _core


def _numba() -> Any:
    try:
        import numba
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "@ferroiter.kernel compiles with numba, which is not installed: pip install numba "
            "(or hand ferroiter.loop_kernel a compiled loop)"
        ) from e
    return numba


def _element_type(name: str) -> Any:
    nt = _numba().types
    known = {
        "bool": nt.boolean,
        "uint8": nt.uint8,
        "uint16": nt.uint16,
        "uint32": nt.uint32,
        "uint64": nt.uint64,
        "int8": nt.int8,
        "int16": nt.int16,
        "int32": nt.int32,
        "int64": nt.int64,
        "float32": nt.float32,
        "float64": nt.float64,
        "complex64": nt.complex64,
        "complex128": nt.complex128,
    }
    if name not in known:
        raise TypeError(
            f"@ferroiter.kernel: numba has no {name} scalars; write the loop yourself and wrap "
            "it with ferroiter.loop_kernel"
        )
    return known[name]


@functools.cache
def _pointer_to(element: Any) -> Any:
    """A numba intrinsic: an integer address as a typed pointer (``CPointer(element)``)."""
    numba = _numba()
    from numba.extending import intrinsic

    pointer = numba.types.CPointer(element)

    def typer(typingctx: Any, address: Any) -> Any:
        if not isinstance(address, numba.types.Integer):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.inttoptr(args[0], context.get_value_type(pointer))

        return pointer(address), codegen

    typer.__name__ = f"pointer_to_{element}"
    return intrinsic(typer)


#: Elements per piece of a row in the loop for broadcast inputs (a splat buffer's length).
CHUNK = 256


def _loop_source(nout: int, nin: int, itemsizes: list[int], booleans: list[bool]) -> str:
    """The text of the 2-D loop around ``f`` for ``nout`` outputs and ``nin`` inputs.

    Three inner loops: every operand at unit stride (plain ``p[i]``, which LLVM vectorizes);
    outputs at unit stride and inputs at unit stride or 0 (a Python number, a broadcast row):
    the row in pieces of CHUNK elements, each input read from its piece or from a buffer filled
    with its one value (once per block when the value is the block's), so the loop is the
    vectorized one again; any other strides
    (``p[i * s]``). Bool operands are read and written through byte pointers (numba keeps its
    booleans as bits)."""
    n = nout + nin
    ops, inputs = range(n), range(nout, n)

    def load(k: int, index: str, name: str = "p") -> str:
        return f"({name}{k}[{index}] != 0)" if booleans[k] else f"{name}{k}[{index}]"

    def store(k: int, index: str, value: str, name: str = "p") -> str:
        return f"{name}{k}[{index}] = " + (f"uint8({value})" if booleans[k] else value)

    def body(index: Callable[[int], str], indent: str, name: str = "p") -> list[str]:
        args = ", ".join(load(k, index(k), name) for k in inputs)
        if nout == 1:
            return [indent + store(0, index(0), f"f({args})", name)]
        out = [f"{indent}r = f({args})"]
        out += [indent + store(k, index(k), f"r[{k}]", name) for k in range(nout)]
        return out

    lines = ["def loop(data, strides, n0, n1):"]
    lines += [f"    s{k} = strides[{k}] // {itemsizes[k]}" for k in ops]
    lines += [f"    t{k} = strides[{n + k}]" for k in ops]
    lines.append("    unit = " + " and ".join(f"s{k} == 1" for k in ops))
    splat = [f"s{k} == 1" for k in range(nout)] + [f"s{k} <= 1 and s{k} >= 0" for k in inputs]
    lines.append("    pieces = not unit and " + " and ".join(f"({c})" for c in splat))
    lines.append("    filled = min(n0, CHUNK)")
    for k in inputs:
        lines.append(f"    b{k} = empty(CHUNK if pieces else 1, B{k})")
        lines.append(f"    a{k} = int64(b{k}.ctypes.data)")
        # a value the whole block shares is put in its buffer once
        lines.append(f"    if pieces and s{k} == 0 and t{k} == 0:")
        lines.append(f"        b{k}[:filled] = P{k}(data[{k}])[0]")
    lines.append("    for j in range(n1):")
    lines += [f"        p{k} = P{k}(data[{k}] + j * t{k})" for k in ops]
    lines.append("        if unit:")
    lines.append("            for i in range(n0):")
    lines += body(lambda k: "i", " " * 16)
    lines.append("        elif pieces:")
    for k in inputs:
        lines.append(f"            if s{k} == 0 and t{k} != 0:")
        lines.append(f"                b{k}[:filled] = p{k}[0]")
    # each operand's piece starts at its row (stride 1) or at its buffer (stride 0)
    lines += [f"            r{k} = data[{k}] + j * t{k}" for k in range(nout)]
    lines += [f"            r{k} = data[{k}] + j * t{k} if s{k} == 1 else a{k}" for k in inputs]
    lines.append("            for start in range(0, n0, CHUNK):")
    lines.append("                m = min(CHUNK, n0 - start)")
    lines += [f"                q{k} = P{k}(r{k} + start * {itemsizes[k]} * s{k})" for k in ops]
    lines.append("                for i in range(m):")
    lines += body(lambda k: "i", " " * 20, "q")
    lines.append("        else:")
    lines.append("            for i in range(n0):")
    lines += body(lambda k: f"i * s{k}", " " * 16)
    return "\n".join(lines) + "\n"


def compile_loop(function: Callable[..., Any], signature: str) -> tuple[int, Any]:
    """Compiles ``function`` (a scalar function) for ``signature`` and the 2-D loop around it;
    returns the loop's address and the numba cfunc that owns its code."""
    numba = _numba()
    nt = numba.types
    outputs, inputs = _core._parse_signature(signature)
    outs = [_element_type(d) for d in outputs]
    ins = [_element_type(d) for d in inputs]
    returns = outs[0] if len(outs) == 1 else nt.Tuple(outs)
    scalar = numba.njit(returns(*ins), error_model="numpy")(function)
    elements = outs + ins
    itemsizes = [1 if e == nt.boolean else e.bitwidth // 8 for e in elements]
    booleans = [e == nt.boolean for e in elements]
    namespace: dict[str, Any] = {
        "f": scalar,
        "uint8": numpy.uint8,
        "int64": numpy.int64,
        "empty": numpy.empty,
        "CHUNK": CHUNK,
    }
    for k, element in enumerate(elements):
        stored = nt.uint8 if booleans[k] else element
        namespace[f"P{k}"] = _pointer_to(stored)
        namespace[f"B{k}"] = numpy.dtype(str(stored))
    source = _loop_source(len(outs), len(ins), itemsizes, booleans)
    exec(compile(source, f"<ferroiter.kernel {signature}>", "exec"), namespace)
    loop_type = nt.void(nt.CPointer(nt.intp), nt.CPointer(nt.int64), nt.int64, nt.int64)
    compiled = numba.cfunc(loop_type, error_model="numpy")(namespace["loop"])
    return int(compiled.address), compiled
