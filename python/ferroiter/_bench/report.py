"""The bench's header, table lines, JSON and plot."""

from __future__ import annotations

import datetime
import json
import os
import platform
from typing import Any

import numpy as np

import ferroiter as fi
from ferroiter import _ferroiter

from .libs import torch
from .runner import Line

LABEL_WIDTH = 44
CELL = 8


def cpu_model() -> str:
    """The CPU's model name (Linux's /proc/cpuinfo, else what platform knows)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for text in f:
                if text.startswith(("model name", "Model", "Hardware")):
                    return text.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def header(threads: list[int], repeat: int, quick: bool, rounds: int = 1) -> dict[str, Any]:
    """Everything needed to read or reproduce the table."""
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "threads": threads,
        "numpy_threads": 1,
        "repeat": repeat,
        "rounds": rounds,
        "quick": quick,
        "python": platform.python_version(),
        "ferroiter": fi.__version__,
        "numpy": np.__version__,
        "torch": torch.__version__ if torch is not None else None,
        "simd": _ferroiter._simd_level(),
        "load_average": _load_average(),
    }


def _load_average() -> float | None:
    """The machine's 1-minute load average when the run starts (None where unknown): a load
    above the core count means other work shares the cores and the figures are noisy."""
    try:
        return round(os.getloadavg()[0], 1)
    except (AttributeError, OSError):
        return None


def _rounds_text(meta: dict[str, Any]) -> str:
    rounds = meta.get("rounds", 1)
    return f", median of {rounds} rounds" if rounds > 1 else ""


def header_lines(meta: dict[str, Any]) -> list[str]:
    versions = f"ferroiter {meta['ferroiter']}, numpy {meta['numpy']}"
    versions += f", torch {meta['torch']}" if meta["torch"] else " (torch not installed)"
    threads = ",".join(map(str, meta["threads"]))
    load = meta["load_average"]
    busy = load is not None and meta["cpu_count"] and load > 0.5 * meta["cpu_count"]
    load_text = f"; load average {load}" if load is not None else ""
    if busy:
        load_text += " (a busy machine: expect noisy figures)"
    return [
        f"ferroiter bench{' --quick' if meta['quick'] else ''}, {meta['date']}",
        f"CPU: {meta['cpu']} ({meta['cpu_count']} logical cores, SIMD {meta['simd']}); "
        f"Python {meta['python']}; {versions}",
        f"threads: {threads} (ferroiter and torch; numpy's ufuncs run on 1 thread);"
        f" best of {meta['repeat']}{_rounds_text(meta)}{load_text}",
        "GB/s = bytes read + written per second; 'x torch', 'x np' = their time / ferroiter's"
        " (> 1: ferroiter is faster); '%copy' = share of the copy limit of this run"
        " (in the reduce rows: of the read limit, the fastest library's max of the same size)",
    ]


def column_lines(threads: list[int]) -> list[str]:
    cols = ("ferro", "torch", "x torch", "x np", "%copy")
    group = CELL * len(cols)
    top = f"{'':<{LABEL_WIDTH}}{'':>{CELL}}" + "".join(
        f"{'  | ' + str(t) + ' thread' + ('s' if t > 1 else ''):<{group}}" for t in threads
    )
    sub = f"{'work':<{LABEL_WIDTH}}{'numpy':>{CELL}}" + "".join(
        "".join(f"{c:>{CELL}}" for c in cols) for _ in threads
    )
    return [top, sub]


def _num(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "us":
        if value >= 10_000:  # the client rows' whole calls: milliseconds fit the column
            return f"{value / 1000:.1f}ms"
        return f"{value:.2f}us" if value < 100 else f"{value:.0f}us"
    return f"{value:.1f}" if value < 100 else f"{value:.0f}"


def row_line(line: Line, threads: list[int]) -> str:
    label = (
        line.label if len(line.label) <= LABEL_WIDTH - 1 else line.label[: LABEL_WIDTH - 2] + "~"
    )
    cells = [f"{_num(line.speed(threads[0], 'numpy'), line.unit):>{CELL}}"]
    for t in threads:
        ratio_t, ratio_n = line.ratio_torch.get(t), line.ratio_numpy.get(t)
        share = line.share_of_copy.get(t)
        cells += [
            f"{_num(line.speed(t, 'ferroiter'), line.unit):>{CELL}}",
            f"{_num(line.speed(t, 'torch'), line.unit):>{CELL}}",
            f"{f'{ratio_t:.2f}x' if ratio_t is not None else '-':>{CELL}}",
            f"{f'{ratio_n:.2f}x' if ratio_n is not None else '-':>{CELL}}",
            f"{f'{share:.0%}' if share is not None else '':>{CELL}}",
        ]
    return f"{label:<{LABEL_WIDTH}}" + "".join(cells)


def other_lines(line: Line, threads: list[int]) -> list[str]:
    """A line per library beyond ferroiter, torch and numpy (the kernels group's numba): its
    speed and ferroiter's ratio to it at each thread count, under the row."""
    names = sorted({lib for t in threads for lib in line.ratio_others.get(t, {})})
    out = []
    for lib in names:
        cells = []
        for t in threads:
            ratio = line.ratio_others.get(t, {}).get(lib)
            speed = _num(line.speed(t, lib), line.unit)
            shown = f"{ratio:.2f}x" if ratio is not None else "-"
            cells.append(f"{t}t: {speed} {line.unit}, ferroiter {shown}")
        out.append(f"    vs {lib}: " + "; ".join(cells))
    return out


def to_json(meta: dict[str, Any], lines: list[Line]) -> dict[str, Any]:
    """The run as plain data: the header, then per line the unit and per thread count the
    seconds per call of each library, the ratios and the share of the copy limit."""
    return {
        "meta": meta,
        "rows": [
            {
                "group": line.group,
                "label": line.label,
                "unit": line.unit,
                "bytes": line.nbytes,
                "results": {
                    str(t): {
                        "seconds": line.seconds[t],
                        "speed": {lib: line.speed(t, lib) for lib in line.seconds[t]},
                        "vs_torch": line.ratio_torch.get(t),
                        "vs_numpy": line.ratio_numpy.get(t),
                        "vs_others": line.ratio_others.get(t, {}),
                        "share_of_copy": line.share_of_copy.get(t),
                    }
                    for t in line.seconds
                },
            }
            for line in lines
        ],
    }


def write_json(path: str, meta: dict[str, Any], lines: list[Line]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(to_json(meta, lines), f, indent=1)
        f.write("\n")


def write_plot(path: str, meta: dict[str, Any], lines: list[Line]) -> None:
    """Horizontal bars of ferroiter's speed ratio vs torch (and numpy), one bar per thread
    count, a line at 1.0. Needs matplotlib (`pip install ferroiter[plot]`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    threads = meta["threads"]
    versus = [("torch", "ratio_torch")] if meta["torch"] else []
    versus.append(("numpy", "ratio_numpy"))
    height = 1.0 + 0.28 * len(lines) * max(1, len(threads)) / 2
    fig, axes = plt.subplots(
        1, len(versus), figsize=(6 * len(versus), height), sharey=True, squeeze=False
    )
    ys = np.arange(len(lines))
    bar = 0.8 / len(threads)
    for ax, (name, attr) in zip(axes[0], versus, strict=True):
        for k, t in enumerate(threads):
            values = [getattr(line, attr).get(t, np.nan) for line in lines]
            ax.barh(ys + k * bar, values, height=bar, label=f"{t} thread{'s' if t > 1 else ''}")
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_title(f"ferroiter speed / {name}'s (> 1: ferroiter faster)", fontsize=9)
        ax.legend(fontsize=7)
    axes[0][0].set_yticks(ys + bar * (len(threads) - 1) / 2)
    axes[0][0].set_yticklabels([line.label for line in lines], fontsize=7)
    axes[0][0].invert_yaxis()
    fig.suptitle(f"ferroiter bench, {meta['date']}, {meta['cpu']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
