"""`python -m ferroiter layout SPEC`: which logical element lives at which address.

The strides come from ferroiter itself (a memory format's strides as `empty` computes them, or
the ones given), so the picture is torch's layout rule computed live. Addresses are element
offsets from the lowest address the array reaches.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from ._operand_spec import BLOCKED, OperandSpec, SpecError

#: The largest array drawn: a picture of more elements teaches nothing.
MAX_ELEMENTS = 512


@dataclass(frozen=True)
class MemoryMap:
    """Every logical index of an array with its address, and the addresses in order."""

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    address_of: dict[tuple[int, ...], int]
    span: int  # addresses 0 .. span-1 are covered by the array's extent

    def owners(self) -> list[list[tuple[int, ...]]]:
        """For each address, the logical indices stored there (none: a gap; several: overlap)."""
        at: list[list[tuple[int, ...]]] = [[] for _ in range(self.span)]
        for index, address in self.address_of.items():
            at[address].append(index)
        return at


def _blocked_address(index: tuple[int, ...], strides: tuple[int, ...], block: int) -> int:
    """Where a blocked array keeps logical element `index`: its physical view's index is
    (n, c // b, spatial..., c % b), and `strides` are that view's."""
    n, c, *spatial = index
    physical = (n, c // block, *spatial, c % block)
    return sum(i * s for i, s in zip(physical, strides, strict=True))


def memory_map(spec: OperandSpec) -> MemoryMap:
    """The map of the array `spec` describes, with strides as ferroiter computes them (for a
    blocked format, the strides of its physical view `(N, C/b, H, W, b)`; padding lanes are
    addresses that hold no element)."""
    array = spec.build()
    block = BLOCKED.get(spec.memory_format or "", (0, 0))[1]
    shape = tuple(array.shape)
    strides = tuple(array.blocked_view().stride() if block else array.stride())
    numel = 1
    for n in shape:
        numel *= n
    if numel > MAX_ELEMENTS:
        raise SpecError(f"layout draws arrays of up to {MAX_ELEMENTS} elements, got {numel}")
    raw = {
        index: _blocked_address(index, strides, block)
        if block
        else sum(i * s for i, s in zip(index, strides, strict=True))
        for index in itertools.product(*(range(n) for n in shape))
    }
    low = min(raw.values(), default=0)
    address_of = {index: a - low for index, a in raw.items()}
    span = max(address_of.values(), default=-1) + 1
    return MemoryMap(shape, strides, address_of, span)


def _index_text(index: tuple[int, ...]) -> str:
    return "(" + ",".join(map(str, index)) + ")"


def layout_text(spec: OperandSpec, per_line: int = 8) -> str:
    """The terminal picture: the logical order with each element's address, then memory address
    by address with the logical index stored there."""
    m = memory_map(spec)
    lines = [f"shape {m.shape}, strides {m.strides} (elements): {spec.describe()}", ""]
    if spec.memory_format in BLOCKED:
        lines[0] = (
            f"shape {m.shape}, blocked: its physical view (N, C/b, ..., b) has strides "
            f"{m.strides}: {spec.describe()}"
        )
        lines[1:1] = blocked_picture(spec.memory_format, m)
    lines.append("Logical order (row-major over the shape): the address of each element")
    width = len(str(max(m.span - 1, 0)))
    if len(m.shape) == 0:
        lines.append("  () -> 0")
    elif len(m.shape) == 1:
        lines.append("  " + " ".join(f"{m.address_of[(i,)]:>{width}}" for i in range(m.shape[0])))
    else:
        *outer, rows, cols = m.shape
        for prefix in itertools.product(*(range(n) for n in outer)):
            if outer:
                label = ", ".join(map(str, prefix))
                lines.append(f"  [{label}, :, :]")
            for r in range(rows):
                cells = [f"{m.address_of[(*prefix, r, c)]:>{width}}" for c in range(cols)]
                lines.append("    " + " ".join(cells))
    lines.append("")
    lines.append("Physical order (address by address): the logical index stored there")
    owners = m.owners()
    cells = []
    for address, indices in enumerate(owners):
        held = " = ".join(_index_text(i) for i in indices) if indices else "-"
        cells.append(f"{address:>{width}}: {held}")
    cell_width = max((len(c) for c in cells), default=0)
    for start in range(0, len(cells), per_line):
        lines.append(
            "  " + "  ".join(f"{c:<{cell_width}}" for c in cells[start : start + per_line])
        )
    gaps = sum(1 for i in owners if not i)
    shared = sum(1 for i in owners if len(i) > 1)
    if gaps:
        lines.append(f"  ({gaps} address(es) marked '-' belong to no element: the array has gaps)")
    if shared:
        lines.append(f"  ({shared} address(es) hold several elements: the array overlaps itself)")
    return "\n".join(lines)


def blocked_picture(format_name: str, m: MemoryMap) -> list[str]:
    """The article's picture: the physical order of the first 2·b channels of pixel row 0
    (image 0, every W position), each cell `cC@address`; channel b starts only after the
    whole first block of the image plane."""
    block = BLOCKED[format_name][1]
    channels = min(2 * block, m.shape[1])
    row = [index for index in m.address_of if index[0] == 0 and all(i == 0 for i in index[2:-1])]
    picked = sorted((m.address_of[i], i[1], i[-1]) for i in row if i[1] < channels)
    lines = [
        f"{format_name}: offset = n*Cp*HW + (c//{block})*HW*{block} + (h*W + w)*{block}"
        f" + c%{block} (Cp: C rounded up to {block}; lanes c >= C of the last block are zero)",
        f"Physical order of channels 0..{channels - 1} of pixel row 0 (cC,wW@address):",
    ]
    cells = [f"c{c},w{w}@{a}" for a, c, w in picked]
    for start in range(0, len(cells), block):
        lines.append("  " + " ".join(cells[start : start + block]))
    return lines


def figure_size_px(spec: OperandSpec, dpi: int = 100) -> tuple[int, int]:
    """The pixel size of the PNG `layout --png` writes for `spec` (width, height)."""
    w, h = _figure_inches(memory_map(spec))
    return round(w * dpi), round(h * dpi)


def _grid(m: MemoryMap) -> tuple[int, int]:
    """Rows and columns of the logical panel: the last dim across, all others stacked."""
    if len(m.shape) == 0:
        return 1, 1
    cols = m.shape[-1]
    rows = 1
    for n in m.shape[:-1]:
        rows *= n
    return max(rows, 1), max(cols, 1)


def _memory_columns(m: MemoryMap) -> int:
    """Cells per row of the memory panel: as many as the logical panel is wide, at least 4."""
    return max(4, min(16, _grid(m)[1] * (m.shape[1] if len(m.shape) >= 3 else 1)))


def _figure_inches(m: MemoryMap) -> tuple[float, float]:
    rows, cols = _grid(m)
    mem_cols = _memory_columns(m)
    mem_rows = -(-max(m.span, 1) // mem_cols)
    cell = 0.55
    width = (cols + mem_cols) * cell + 1.5
    height = max(rows, mem_rows) * cell + 1.4
    return round(width, 2), round(height, 2)


def _color_key(m: MemoryMap, index: tuple[int, ...]) -> int:
    """Cells share a colour by channel (dim 1) when there is one, else by their first dim."""
    if len(m.shape) >= 3:
        return index[1]
    return index[0] if index else 0


def write_png(spec: OperandSpec, path: str, dpi: int = 100) -> tuple[int, int]:
    """Draws the logical and the physical order side by side into `path`; returns its pixel
    size. Needs matplotlib (`pip install ferroiter[plot]`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    m = memory_map(spec)
    rows, cols = _grid(m)
    mem_cols = _memory_columns(m)
    mem_rows = -(-max(m.span, 1) // mem_cols)
    keys = sorted({_color_key(m, i) for i in m.address_of} or {0})
    palette = plt.get_cmap("tab10")
    color = {k: palette(n % 10) for n, k in enumerate(keys)}
    width, height = _figure_inches(m)
    fig = plt.figure(figsize=(width, height), dpi=dpi)
    total = cols + mem_cols + 1
    left = fig.add_axes((0.02, 0.04, 0.96 * cols / total, 0.82))
    right = fig.add_axes((0.02 + 0.96 * (cols + 1) / total, 0.04, 0.96 * mem_cols / total, 0.82))
    for ax, c in ((left, cols), (right, mem_cols)):
        ax.set_xlim(0, c)
        ax.set_ylim(max(rows, mem_rows), 0)
        ax.set_axis_off()
    fontsize = 7 if len(m.shape) > 3 else 8
    for index, address in m.address_of.items():
        flat = 0
        for i, n in zip(index[:-1], m.shape[:-1], strict=True):
            flat = flat * n + i
        r, c = (flat, index[-1]) if index else (0, 0)
        left.add_patch(
            Rectangle(
                (c, r), 1, 1, facecolor=color[_color_key(m, index)], edgecolor="white", alpha=0.8
            )
        )
        left.text(c + 0.5, r + 0.5, f"@{address}", ha="center", va="center", fontsize=fontsize)
    for address, indices in enumerate(m.owners()):
        r, c = divmod(address, mem_cols)
        face = color[_color_key(m, indices[0])] if indices else "lightgrey"
        right.add_patch(Rectangle((c, r), 1, 1, facecolor=face, edgecolor="white", alpha=0.8))
        label = ",".join(map(str, indices[0])) if indices else "-"
        right.text(c + 0.5, r + 0.5, label, ha="center", va="center", fontsize=fontsize - 1)
    dims = "NCHW"[: len(m.shape)] if len(m.shape) == 4 else f"{len(m.shape)}-d"
    left.set_title(f"logical order ({dims}): address", fontsize=8)
    key = "channel" if len(m.shape) >= 3 else "first index"
    right.set_title(f"physical order: the index at each address (colour: {key})", fontsize=8)
    fig.suptitle(f"{spec.describe()}  strides {m.strides}", fontsize=10)
    fig.savefig(path, dpi=dpi, format="png")
    plt.close(fig)
    return round(width * dpi), round(height * dpi)
