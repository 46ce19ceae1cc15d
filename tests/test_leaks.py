"""Lifetimes and leaks (issue 13): a view keeps its storage alive when every other owner is
gone (the numpy base, the torch exporter, the parent Array), and repeating small and large
operations leaves resident memory flat (a light version of scripts/leak_check.py, with a
generous bound: the figure that matters is the script's)."""

from __future__ import annotations

import gc
import importlib.util
import pathlib
import weakref

import numpy as np
import torch

import ferroiter as fi

_SCRIPT = pathlib.Path(__file__).resolve().parent.parent / "scripts" / "leak_check.py"


def _leak_check():
    spec = importlib.util.spec_from_file_location("leak_check", _SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_view_keeps_a_numpy_base_alive():
    """The numpy array is kept (not copied) while a view of it lives, then freed."""
    base = np.arange(1000, dtype=np.float64)
    ref = weakref.ref(base)
    view = fi.from_numpy(base)[10:20][::-1]
    del base
    gc.collect()
    assert ref() is not None  # the view holds it
    np.testing.assert_array_equal(view.numpy(), np.arange(19, 9, -1, dtype=np.float64))
    del view
    gc.collect()
    assert ref() is None  # and lets it go


def test_a_view_keeps_a_torch_exporters_memory_alive():
    """A from_dlpack view of a torch tensor reads the right values after the tensor (and
    every Python reference to it) is gone, and overwriting new tensors does not change it."""
    t = torch.arange(10000, dtype=torch.float32)
    view = fi.from_dlpack(t)[::100]
    del t
    gc.collect()
    for _ in range(5):
        torch.full((10000,), -1.0)  # would reuse freed memory
    np.testing.assert_array_equal(view.numpy(), np.arange(0, 10000, 100, dtype=np.float32))


def test_a_view_keeps_its_parent_arrays_storage_alive():
    parent = fi.arange(64, dtype="int32").reshape(8, 8)
    view = parent.transpose(0, 1)[2]
    ndarray = view.numpy()  # numpy keeps the storage alive too
    del parent
    gc.collect()
    fi.full((8, 8), 7, dtype="int32")
    np.testing.assert_array_equal(view.numpy(), np.arange(2, 64, 8, dtype=np.int32))
    del view
    gc.collect()
    np.testing.assert_array_equal(ndarray, np.arange(2, 64, 8, dtype=np.int32))


def test_a_dlpack_capsule_keeps_the_array_alive():
    """A capsule from __dlpack__ that numpy consumes after the Array is gone."""
    a = fi.arange(100, dtype="float64")
    capsule_owner = a[50:]
    del a
    imported = np.from_dlpack(capsule_owner)
    del capsule_owner
    gc.collect()
    fi.full((100,), -1.0, dtype="float64")
    np.testing.assert_array_equal(imported, np.arange(50, 100, dtype=np.float64))


def test_repeated_ops_leave_resident_memory_flat():
    """20,000 small ops and 40 large ones (16 MiB operands), after a warm-up: resident memory
    grows by less than 32 MiB (a leaked small result, an Array object and its storage, is at
    least ~200 bytes: 20,000 of them alone would not show, but a leaked buffer of any size
    would) and 64 MiB (one leaked large result per op would be 40 x 16 MiB = 640 MiB)."""
    leak = _leak_check()
    before, after = leak.phase("small", leak.small_ops, 20_000)
    assert after - before < 32, f"{after - before:.1f} MiB after small ops"
    before, after = leak.phase("large", leak.large_ops, 40)
    assert after - before < 64, f"{after - before:.1f} MiB after large ops"
