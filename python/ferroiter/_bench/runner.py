"""Measuring the rows at each thread count, printing each row as it finishes."""

from __future__ import annotations

import fnmatch
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

import ferroiter as fi

from .libs import torch
from .rows import Row, Sizes, all_rows
from .timing import best_time

LIBRARIES = ("ferroiter", "torch", "numpy")


@dataclass
class Line:
    """One printed line: a row (or one side of a median/worst row) at every thread count.

    `seconds[threads][library]` per call; `ratio_*` are the other library's time over
    ferroiter's (> 1: ferroiter is faster); `share_of_copy[threads]` is ferroiter's speed over
    the copy limit's of the same run and thread count."""

    group: str
    label: str
    nbytes: int
    seconds: dict[int, dict[str, float]] = field(default_factory=dict)
    ratio_torch: dict[int, float] = field(default_factory=dict)
    ratio_numpy: dict[int, float] = field(default_factory=dict)
    share_of_copy: dict[int, float] = field(default_factory=dict)
    #: the other libraries' time over ferroiter's, for rows with more than the three columns
    #: (the kernels group's numba): `ratio_others[threads][library]`
    ratio_others: dict[int, dict[str, float]] = field(default_factory=dict)

    @property
    def unit(self) -> str:
        return "us" if self.nbytes == 0 else "GB/s"

    def speed(self, threads: int, library: str) -> float | None:
        """GB/s, or microseconds for a row of fixed costs."""
        t = self.seconds.get(threads, {}).get(library)
        if t is None:
            return None
        return t * 1e6 if self.nbytes == 0 else self.nbytes / t / 1e9


def set_threads(n: int) -> None:
    fi.set_num_threads(n)
    if torch is not None:
        torch.set_num_threads(n)
    numba = sys.modules.get("numba")
    if numba is not None:  # (its parallel target; imported only by the kernels group)
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))


def select(rows: list[Row], pattern: str | None) -> list[Row]:
    """Rows whose label or group matches `pattern` (a substring or a shell glob, any case;
    several separated by commas), with the copy limit each selected `vs_copy` row is
    compared with."""
    if not pattern:
        return rows
    patterns = [p.strip().lower() for p in pattern.split(",") if p.strip()]

    def hit(row: Row) -> bool:
        text = f"{row.group} {row.label}".lower()
        return any(p in text or fnmatch.fnmatch(row.label.lower(), p) for p in patterns)

    chosen: list[Row] = []
    reference: Row | None = None
    for row in rows:
        if row.copy_reference:
            reference = row
        if hit(row) or (row.copy_reference and row not in chosen and _needed(row, rows, hit)):
            if row.vs_copy and reference is not None and reference not in chosen:
                chosen.append(reference)
            if row not in chosen:
                chosen.append(row)
    return chosen


def _needed(reference: Row, rows: list[Row], hit: Callable[[Row], bool]) -> bool:
    """Whether a selected row compares with this copy limit (the rows after it, up to the
    next copy limit)."""
    after = rows[rows.index(reference) + 1 :]
    for row in after:
        if row.copy_reference:
            return False
        if row.vs_copy and hit(row):
            return True
    return False


def measure(
    rows: list[Row],
    threads: list[int],
    repeat: int,
    min_seconds: float,
    on_line: Callable[[Line], None],
    rounds: int = 1,
) -> list[Line]:
    """Runs every row at every thread count; numpy (single-threaded) once per row and round.

    With `rounds` > 1 each case is measured that many times in turn (every library and thread
    count in each round, so that a burst of load on a shared machine hits all of them alike)
    and each library's median time is kept: one slow round no longer moves a row."""
    lines: list[Line] = []
    copy_gbps: dict[int, float] = {}
    for row in rows:
        per_case: list[Line] = []
        for case in row.setup():
            line = Line(row.group, row.label, case.nbytes)
            samples: dict[int, dict[str, list[float]]] = {t: {} for t in threads}
            for _ in range(max(1, rounds)):
                numpy_time = None
                if "numpy" in case.thunks:
                    numpy_time = best_time(case.thunks["numpy"], repeat, min_seconds)
                for t in threads:
                    set_threads(t)
                    for lib, thunk in case.thunks.items():
                        if lib != "numpy":  # (measured once per round, above)
                            s = best_time(thunk, repeat, min_seconds)
                            samples[t].setdefault(lib, []).append(s)
                    if numpy_time is not None:
                        samples[t].setdefault("numpy", []).append(numpy_time)
            for t in threads:
                times = {lib: statistics.median(s) for lib, s in samples[t].items()}
                line.seconds[t] = times
                if "torch" in times:
                    line.ratio_torch[t] = times["torch"] / times["ferroiter"]
                if "numpy" in times:
                    line.ratio_numpy[t] = times["numpy"] / times["ferroiter"]
                others = [lib for lib in times if lib not in LIBRARIES]
                if others:
                    line.ratio_others[t] = {lib: times[lib] / times["ferroiter"] for lib in others}
            per_case.append(line)
            del case  # its arrays go before the next case's are made
        for line in _summarise(row, per_case):
            for t in threads:
                gbps = line.speed(t, "ferroiter")
                if row.copy_reference and row.fastest_reference:
                    speeds = [line.speed(t, lib) for lib in line.seconds.get(t, {})]
                    fastest = max((v for v in speeds if v is not None), default=None)
                    if fastest is not None:
                        copy_gbps[t] = fastest
                elif row.copy_reference and gbps is not None:
                    copy_gbps[t] = gbps
                elif row.vs_copy and gbps is not None and t in copy_gbps:
                    line.share_of_copy[t] = gbps / copy_gbps[t]
            lines.append(line)
            on_line(line)
    set_threads(threads[0])
    return lines


def _summarise(row: Row, per_case: list[Line]) -> list[Line]:
    """One line per row, or its median and worst case (by ferroiter's speed; the ratios are
    the median and the lowest of the per-case ratios)."""
    if row.summary == "single" or len(per_case) == 1:
        return per_case
    out = []
    for which in ("median", "worst"):
        # times are rescaled to the first case's bytes, so that one `nbytes` gives every
        # thread count's picked case its own GB/s
        line = Line(row.group, f"{row.label}: {which}", per_case[0].nbytes)
        threads = list(per_case[0].seconds)
        for t in threads:
            by_speed = sorted(per_case, key=lambda c: c.nbytes / c.seconds[t]["ferroiter"])
            case = by_speed[len(by_speed) // 2] if which == "median" else by_speed[0]
            scale = line.nbytes / case.nbytes
            line.seconds[t] = {lib: s * scale for lib, s in case.seconds[t].items()}
            agg: Callable[[list[float]], float] = statistics.median if which == "median" else min
            rt = [c.ratio_torch[t] for c in per_case if t in c.ratio_torch]
            rn = [c.ratio_numpy[t] for c in per_case if t in c.ratio_numpy]
            if rt:
                line.ratio_torch[t] = agg(rt)
            if rn:
                line.ratio_numpy[t] = agg(rn)
        out.append(line)
    return out


def rows_for(sizes: Sizes, pattern: str | None) -> list[Row]:
    return select(all_rows(sizes), pattern)
