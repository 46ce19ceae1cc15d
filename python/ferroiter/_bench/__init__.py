"""`python -m ferroiter bench`: ferroiter against torch and numpy on this machine, side by side.

Every row gives each library the same work on the same memory in one process, at each thread
count asked for; the table shows GB/s (bytes read + written per second, best of several runs)
or microseconds, and ferroiter's speed as a ratio to each. Machines are noisy: read the ratios,
not the absolutes. Rows are data (`rows.ROW_GROUPS`): other row groups plug in there.
"""

from __future__ import annotations

import sys
from typing import TextIO

from . import report
from .rows import ROW_GROUPS, Case, Row, Sizes, register_group
from .runner import Line, measure, rows_for

__all__ = ["ROW_GROUPS", "Case", "Line", "Row", "Sizes", "register_group", "run"]


def run(
    quick: bool = False,
    threads: list[int] | None = None,
    rows: str | None = None,
    json_path: str | None = None,
    plot_path: str | None = None,
    out: TextIO | None = None,
    rounds: int = 1,
) -> list[Line]:
    """Measures the selected rows, printing the table line by line as rows finish; with
    `rounds` > 1 each row is measured that many times in turn and the median kept."""
    import ferroiter as fi

    stream = out if out is not None else sys.stdout
    threads = threads or [fi.get_num_threads()]
    sizes = Sizes.quick() if quick else Sizes.full()
    repeat = 3 if quick else 5
    selected = rows_for(sizes, rows)
    if not selected:
        raise ValueError(f"no benchmark row matches {rows!r}")
    meta = report.header(threads, repeat, quick, rounds)

    def emit(text: str) -> None:
        print(text, file=stream, flush=True)

    for text in report.header_lines(meta) + [""] + report.column_lines(threads):
        emit(text)
    for note in _missing_notes({row.group for row in selected}, rows):
        emit(note)
    group = None

    def on_line(line: Line) -> None:
        nonlocal group
        if line.group != group:
            group = line.group
            emit(f"-- {group}")
        emit(report.row_line(line, threads))
        for text in report.other_lines(line, threads):
            emit(text)

    lines = measure(selected, threads, repeat, 0.005 if quick else 0.02, on_line, rounds)
    if json_path:
        report.write_json(json_path, meta, lines)
        emit(f"wrote {json_path}")
    if plot_path:
        report.write_plot(plot_path, meta, lines)
        emit(f"wrote {plot_path}")
    return lines


def _missing_notes(groups: set[str], pattern: str | None) -> list[str]:
    """What the optional groups lack (they then have fewer rows, or none)."""
    from . import clients, kernels

    notes = []
    wanted = (pattern or "clients,kernels").lower()
    for name, module, extra in (("clients", clients, "bench"), ("kernels", kernels, "kernels")):
        lacking = module.missing()
        if lacking and (name in groups or name in wanted):
            notes.append(
                f"(the {name} group needs {', '.join(lacking)}: pip install 'ferroiter[{extra}]')"
            )
    return notes
