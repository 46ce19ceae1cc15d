"""Users' own kernels: ``loop_kernel`` wraps a compiled loop in torch's 2-D convention (a numba
``cfunc``, a ctypes or cffi function pointer, or an address), ``kernel`` compiles one from a
scalar Python function with numba, ``register`` puts kernels for several dtypes under one
name. ``ferroiter.map`` (the extension's) runs them over any operands.

The loop convention is TensorIterator's ``loop2d``::

    void loop(char **data, const int64_t *strides, int64_t size0, int64_t size1)

``data[k]`` points at operand ``k``'s element ``(0, 0)`` (outputs first, then inputs),
``strides[k]`` is its byte stride along dim 0 (the inner loop) and ``strides[n + k]`` along
dim 1, for ``n`` operands.
"""

from __future__ import annotations

import ctypes
import types
from collections.abc import Callable, Mapping
from typing import Any

from . import _ferroiter as _core
from ._ferroiter import Kernel, UserOp

__all__ = ["kernel", "loop_kernel", "register", "user_ops"]

#: The ctypes prototype of a loop kernel, for ``ctypes.CFUNCTYPE`` users.
LOOP2D = ctypes.CFUNCTYPE(
    None,
    ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_int64),
    ctypes.c_int64,
    ctypes.c_int64,
)

_LOOP_TEXT = "void(char **data, const int64_t *strides, int64_t size0, int64_t size1)"


def loop_kernel(loop: object, signature: str, *, name: str | None = None) -> Kernel:
    """A Kernel from a compiled loop of torch's 2-D signature and the dtypes it was written for.

    ``loop`` is a numba ``cfunc``, a ctypes function pointer, a cffi function pointer, or the
    loop's address as an int. ``signature`` names the dtypes: ``"float32(float32, float32)"``,
    or ``"(float32, int64)(float32)"`` for two outputs. The loop must read and write only the
    elements of its block, as those dtypes (ferroiter cannot check compiled code): the plan
    guarantees that every one of those elements lies inside its operand.
    """
    address, owner = _address_of(loop)
    label = name if name is not None else _name_of(loop)
    return _core._kernel_from_address(address, signature, label, owner)


def _name_of(loop: object) -> str:
    for attr in ("__name__", "__qualname__"):
        value = getattr(loop, attr, None)
        if isinstance(value, str):
            return value
    return "kernel"


def _address_of(loop: object) -> tuple[int, object]:
    """The machine address of a loop object, checked to be a loop of the 2-D signature where the
    object says what its signature is; and the object that keeps the code alive."""
    if isinstance(loop, Kernel):
        return loop.address, loop.owner
    if isinstance(loop, bool):
        raise TypeError("loop_kernel takes a compiled loop or an address, got a bool")
    if isinstance(loop, int):
        if loop <= 0:
            raise ValueError(f"loop_kernel: the address {loop} is not a function's")
        return loop, None
    if type(loop).__name__ == "CFunc" and hasattr(loop, "address"):
        _check_numba_signature(loop)
        return int(loop.address), loop
    if isinstance(loop, ctypes._CFuncPtr):  # type: ignore[attr-defined]
        _check_ctypes_signature(loop)
        address = ctypes.cast(loop, ctypes.c_void_p).value
        if not address:
            raise ValueError("loop_kernel: the ctypes function pointer is null")
        return address, loop
    if type(loop).__module__ == "_cffi_backend":
        return _cffi_address(loop), loop
    if callable(loop):
        raise TypeError(
            f"loop_kernel takes a compiled loop ({_LOOP_TEXT}), got the Python callable "
            f"{_name_of(loop)!r}: compile a scalar function with @ferroiter.kernel(signature)"
        )
    raise TypeError(
        "loop_kernel takes a numba cfunc, a ctypes or cffi function pointer or an address, "
        f"got {type(loop).__name__}"
    )


def _check_numba_signature(cfunc: Any) -> None:
    from numba import types as nt

    sig = cfunc._sig
    args = sig.args
    ints = (nt.int64, nt.uint64, nt.intp)
    fits = (
        len(args) == 4
        and isinstance(args[0], nt.CPointer)
        and isinstance(args[0].dtype, (nt.CPointer, nt.Integer))
        and isinstance(args[1], nt.CPointer)
        and args[1].dtype in ints
        and args[2] in ints
        and args[3] in ints
        and sig.return_type == nt.void
    )
    if not fits:
        raise TypeError(
            f"loop_kernel: the numba cfunc's signature is {sig}; a loop kernel is "
            f"{_LOOP_TEXT} (in numba: void(CPointer(CPointer(uint8)), CPointer(int64), "
            "int64, int64))"
        )


def _check_ctypes_signature(fn: Any) -> None:
    argtypes = getattr(fn, "argtypes", None)
    if argtypes is None:
        return  # a library function without declared types: its caller vouches for it
    words = {ctypes.c_int64, ctypes.c_uint64, ctypes.c_ssize_t, ctypes.c_size_t}
    pointers = all(
        issubclass(t, (ctypes._Pointer, ctypes.c_void_p, ctypes.c_char_p)) for t in argtypes[:2]
    )
    fits = len(argtypes) == 4 and pointers and argtypes[2] in words and argtypes[3] in words
    if not fits or getattr(fn, "restype", None) is not None:
        names = ", ".join(t.__name__ for t in argtypes)
        raise TypeError(
            f"loop_kernel: the ctypes function takes ({names}); a loop kernel is {_LOOP_TEXT}"
        )


def _cffi_address(fn: Any) -> int:
    import cffi

    ffi = cffi.FFI()
    kind = ffi.typeof(fn)
    if kind.kind != "function" or len(kind.args) != 4 or kind.result.cname != "void":
        raise TypeError(
            f"loop_kernel: the cffi object is {kind.cname}; a loop kernel is {_LOOP_TEXT}"
        )
    address = int(ffi.cast("uintptr_t", fn))
    if address == 0:
        raise ValueError("loop_kernel: the cffi function pointer is null")
    return address


def kernel(*signatures: str) -> Callable[[Callable[..., Any]], Any]:
    """Compiles a scalar Python function into a loop kernel for each signature (numba).

    ``@ferroiter.kernel("float32(float32, float32, float32)")`` over ``def fma(a, b, c):
    return a * b + c`` gives a Kernel; several signatures give a UserOp that dispatches on the
    operands' dtypes. A function of several outputs returns a tuple and is declared
    ``"(float32, float32)(float32)"``. Needs numba (``pip install numba``).
    """
    if not signatures or not all(isinstance(s, str) for s in signatures):
        raise TypeError("kernel takes one or more signatures, such as 'float32(float32)'")

    def decorate(function: Callable[..., Any]) -> Any:
        from ._numba_loops import compile_loop

        name = _name_of(function)
        for s in signatures:
            _core._parse_signature(s)  # a bad signature fails before any compiling
        kernels = []
        for s in signatures:
            address, owner = compile_loop(function, s)
            kernels.append(_core._kernel_from_address(address, s, name, owner))
        if len(kernels) == 1:
            return kernels[0]
        return _core._user_op(name, kernels)

    return decorate


#: The registered ops by name: ``ferroiter.user_ops.fma(a, b, c)`` once ``fma`` is registered.
user_ops = types.SimpleNamespace()


def register(
    name: str, kernels: Mapping[str, object] | Kernel | UserOp, *, replace: bool = False
) -> UserOp:
    """Registers kernels under a name, as ``ferroiter.user_ops.<name>``, and returns the op.

    ``kernels`` maps signatures to compiled loops (anything ``loop_kernel`` takes, or a Kernel
    of that signature), or is a Kernel or UserOp itself. A call picks the first kernel whose
    inputs are the operands' dtypes (a Python number fits the dtypes its kind casts to), else
    the first whose inputs are all the operands' promoted dtype (torch's ``result_type``), the
    operands converted to it; ``dtype=`` asks for a kernel of that input dtype. Registering a
    name twice needs ``replace=True``.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"register: the name {name!r} is not a Python identifier")
    if hasattr(user_ops, name) and not replace:
        raise ValueError(f"register: {name!r} is already registered (pass replace=True)")
    if isinstance(kernels, UserOp):
        found = list(kernels.kernels)
    elif isinstance(kernels, Kernel):
        found = [kernels]
    elif isinstance(kernels, Mapping):
        found = []
        for signature, loop in kernels.items():
            if isinstance(loop, Kernel) and loop.signature != _canonical(signature):
                raise ValueError(
                    f"register: the kernel {loop.signature} is registered as {signature!r}"
                )
            found.append(loop_kernel(loop, signature, name=name))
    else:
        raise TypeError(
            "register takes a mapping of signatures to loops, a Kernel or a UserOp, "
            f"got {type(kernels).__name__}"
        )
    op = _core._user_op(name, found)
    setattr(user_ops, name, op)
    return op


def _canonical(signature: str) -> str:
    outputs, inputs = _core._parse_signature(signature)
    outs = outputs[0] if len(outputs) == 1 else f"({', '.join(outputs)})"
    return f"{outs}({', '.join(inputs)})"
