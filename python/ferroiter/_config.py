"""`ferroiter.show_config()`: what this build is and what it chose on this machine."""

from __future__ import annotations

import os
import platform

from . import _ferroiter


def thread_count_source() -> str:
    """Where the thread count of ferroiter's pool came from: set_num_threads, an environment
    variable (FERROITER_NUM_THREADS, OMP_NUM_THREADS) or the cores available to the process."""
    return _ferroiter._num_threads_source()


def _capability_text(build: dict[str, object]) -> str:
    """The vector level the kernels run, and why when it is below the CPU's."""
    used, cpu = build["cpu_capability"], build["cpu_capability_detected"]
    if used != cpu:
        return f"{used} (FERROITER_CPU_CAPABILITY; the CPU runs {cpu})"
    if used == "default":
        return "default (no AVX2 with FMA and F16C on this CPU)"
    return str(used)


def config() -> dict[str, object]:
    """The facts `show_config` prints, as a dict (for programs and tests)."""
    build = _ferroiter._build_info()
    return {
        "version": _ferroiter.__version__,
        "build profile": build["profile"],
        "target": f"{build['target_arch']}-{build['target_os']}",
        "SIMD level detected": build["simd_level"],
        "CPU capability used": _capability_text(build),
        "threads": _ferroiter.get_num_threads(),
        "threads from": thread_count_source(),
        "CPU cores": os.cpu_count(),
        "grain size": _ferroiter.get_grain_size(),
        "large-buffer cache": (
            "on (FERROITER_CACHE=0 turns it off)"
            if build["cache_enabled"]
            else "off (FERROITER_CACHE)"
        ),
        "cache holds bytes": build["cache_held_bytes"],
        "python": platform.python_version(),
    }


def config_text() -> str:
    """The configuration as the lines `show_config` prints."""
    facts = config()
    width = max(len(k) for k in facts)
    lines = ["ferroiter configuration:"]
    lines += [f"  {k:<{width}}  {v}" for k, v in facts.items()]
    return "\n".join(lines)


def show_config() -> None:
    """Prints the build and run-time configuration (as ``numpy.show_config()`` does)."""
    print(config_text())
