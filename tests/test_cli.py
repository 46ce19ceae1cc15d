"""The command line (`python -m ferroiter ...`), show_config, empty_cache and __version__.

Commands run in-process through `main(argv)` (fast); a few run as real subprocesses to check
the exit codes a shell sees. Layout facts are checked against torch's strides.
"""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import torch

import ferroiter as fi
from ferroiter import _ferroiter
from ferroiter.__main__ import main

ROOT = Path(__file__).resolve().parent.parent


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `python -m ferroiter argv...`, in-process."""
    try:
        code = main(list(argv))
    except SystemExit as done:  # argparse's own exits (--help, --version, usage errors)
        code = int(done.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk; asserts the PNG signature."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


# ---- every command, with --help ----


@pytest.mark.parametrize("command", ["tour", "explain", "layout", "bench", "config"])
def test_every_command_has_help(capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, out, _ = run_cli(capsys, command, "--help")
    assert code == 0
    assert out.startswith(f"usage: python -m ferroiter {command}")


def test_top_level_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0
    for command in ("tour", "explain", "layout", "bench", "config"):
        assert command in out


def test_version_is_the_crate_version(capsys: pytest.CaptureFixture[str]) -> None:
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())["package"]["version"]
    assert fi.__version__ == cargo
    code, out, _ = run_cli(capsys, "--version")
    assert (code, out.strip()) == (0, f"ferroiter {cargo}")


def test_tour_runs_and_shows_torchs_strides(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "tour")
    assert code == 0
    cl = torch.empty((2, 3, 4, 5), memory_format=torch.channels_last).stride()
    assert "empty((2,3,4,5), channels_last)" in out and f"stride={cl}" in out
    assert "TensorIterator" in out


def test_no_command_is_the_tour(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(capsys)[1] == run_cli(capsys, "tour")[1]


# ---- explain ----

EXPLAIN_CASES = [
    # (op, operands, torch thunk on tensors of the same layouts)
    (
        "add",
        ["2,3,4,5:channels_last", "3,4,5"],
        lambda: torch.empty(2, 3, 4, 5, memory_format=torch.channels_last) + torch.empty(3, 4, 5),
    ),
    ("mul", ["2,3@1,2", "scalar=2.5"], lambda: torch.empty(3, 2).t() * 2.5),
    ("exp", ["4,5@1,4:float16"], lambda: torch.exp(torch.empty(5, 4, dtype=torch.float16).t())),
    (
        "div",
        ["3,4:int32", "4:int64"],
        lambda: torch.empty(3, 4, dtype=torch.int32) / torch.empty(4, dtype=torch.int64),
    ),
    (
        "eq",
        ["2,3,4,5@60,1,15,3", "2,3,4,5"],
        lambda: (
            torch.empty(2, 3, 4, 5, memory_format=torch.channels_last) == torch.empty(2, 3, 4, 5)
        ),
    ),
]


@pytest.mark.parametrize(("op", "operands", "reference"), EXPLAIN_CASES)
def test_explain_reports_torchs_result(
    capsys: pytest.CaptureFixture[str], op: str, operands: list[str], reference: object
) -> None:
    code, out, err = run_cli(capsys, "explain", op, *operands, "--threads", "2")
    assert code == 0, err
    expected = reference()  # type: ignore[operator]
    line = next(text for text in out.splitlines() if text.strip().startswith("result:"))
    dtype = str(expected.dtype).removeprefix("torch.")
    assert line.strip() == (
        f"result: shape {tuple(expected.shape)}, stride {expected.stride()}, dtype {dtype}"
    )
    assert "stride" in out.split("\n\n", 1)[1]  # the iterator's own trace follows


def test_explain_copies(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "explain", "contiguous", "2,3,4,5", "--format", "channels_last")
    assert code == 0
    cl = torch.empty(2, 3, 4, 5).contiguous(memory_format=torch.channels_last).stride()
    assert f"stride {cl}" in out
    code, out, _ = run_cli(capsys, "explain", "copy", "2,3,4,5:channels_last", "2,3,4,5")
    assert code == 0 and "dst: (2, 3, 4, 5) channels_last float32" in out


def test_explain_says_how_far_ahead_far_rows_are_prefetched(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A permutation that keeps a last dim of 128 float32 (rows of 512 bytes, far apart) is
    copied row by row with each input row asked for 4 rows (2 KiB) ahead, and an add of such a
    view prefetches that input only; a contiguous copy (adjacent rows) and rows longer than
    2 KiB are not prefetched. (The copy is 1 MiB, short of every machine's streaming size:
    streamed, runs of whole lines go through the permuting copy's tiles.)"""
    walk = {}
    for spec in ("2,64,16,128@131072,128,8192,1", "64,1024", "64,1024@1024,1", "8,8,2048@0,0,1"):
        code, out, _ = run_cli(capsys, "explain", "contiguous", spec, "--threads", "1")
        assert code == 0
        walk[spec] = next(line for line in out.splitlines() if line.startswith("walk:"))
    assert (
        "operand 1's rows of 512 bytes lie 32768 bytes apart: the typed loops (copies, casts, "
        "ops of one or two inputs; not the vector math kernels nor float16's F16C rows) "
        "prefetch each 4 rows ahead (about 2048 bytes)" in walk["2,64,16,128@131072,128,8192,1"]
    )
    code, out, _ = run_cli(
        capsys, "explain", "add", "8,16,512,128", "8,16,512,128@1048576,128,2048,1"
    )
    assert code == 0
    assert "operand 2's rows of 512 bytes lie 8192 bytes apart" in out
    assert "operand 1's rows" not in out
    for spec in ("64,1024", "64,1024@1024,1", "8,8,2048@0,0,1"):
        assert "prefetch" not in walk[spec], walk[spec]


def test_explain_reductions(capsys: pytest.CaptureFixture[str]) -> None:
    """A reduction's iterator: the output keeps the reduced dims at stride 0, and the stride
    sort puts them first (torch's reduce_op preset); the result shape is torch's keepdim one."""
    code, out, _ = run_cli(capsys, "explain", "sum", "2,3,4,5:channels_last", "--dim", "2,3")
    assert code == 0
    kept = torch.sum(torch.empty(2, 3, 4, 5), (2, 3), keepdim=True)
    assert f"result: shape {tuple(kept.shape)}, stride {kept.stride()}" in out
    assert "fast_set_up: no (a reduction)" in out
    # the inner-loop line describes the reduction's own loop, with its numbers
    inner = next(t for t in out.splitlines() if t.startswith("inner loop:"))
    assert inner.startswith("inner loop: reduction, inner path: 6 output(s)")
    code, out, _ = run_cli(capsys, "explain", "sum", "2,16,4,5:channels_last", "--dim", "2,3")
    assert code == 0
    inner = next(t for t in out.splitlines() if t.startswith("inner loop:"))
    assert inner.startswith("inner loop: reduction, outer-dim path: input rows of contiguous")
    walk = next(t for t in out.splitlines() if t.startswith("walk:"))
    assert walk.startswith("walk: 2 x 20 input rows of 16 contiguous outputs")
    assert "reduced dim first" in out
    code, out, _ = run_cli(capsys, "explain", "amax", "3,4")
    assert code == 0 and "result: shape (1, 1)" in out
    # the walk and parallel lines are the reduction executor's: its units, tasks and tiles
    # (64 rows of 2048 outputs at 2 threads: one unit would leave a thread idle, so the row is
    # cut into 2 tiles of 1024)
    code, out, _ = run_cli(capsys, "explain", "sum", "64,2048", "--dim", "0", "--threads", "2")
    assert code == 0
    lines = out.splitlines()
    walk = next(t for t in lines if t.startswith("walk:"))
    assert walk.startswith("walk: 1 x 64 input rows of 2048 contiguous outputs (row stride 8192")
    assert "a unit is a tile of 1024 outputs (2 per row; 92 KiB of accumulators" in walk
    parallel = next(t for t in lines if t.startswith("parallel:"))
    assert parallel.startswith(
        "parallel: 2 unit(s) (rows x tile x chunk x group), 131072 elements, grain 32768, "
        "2 thread(s) -> 2 task(s) claiming 2 piece(s) of consecutive units in turn [0, 1) [1, 2); "
        "each unit writes its outputs' results"
    )
    code, out, _ = run_cli(capsys, "explain", "sum", "100000", "--threads", "2")
    assert code == 0
    lines = out.splitlines()
    walk = next(t for t in lines if t.startswith("walk:"))
    assert walk.startswith("walk: reduction units in order, each one output's chunk of up to 32768")
    parallel = next(t for t in lines if t.startswith("parallel:"))
    assert parallel.startswith("parallel: 4 unit(s) (output x chunk), 100000 elements")
    assert (
        "-> 2 task(s) claiming 4 piece(s) of consecutive units in turn [0, 1) [1, 2) [2, 3) "
        "[3, 4); each unit writes a partial" in parallel
    )
    assert not any("torch's 2-D order" in t or "chunk(s) [" in t for t in lines)
    # a float16 prod multiplies in torch's order (its own loop), which the header says
    code, out, _ = run_cli(capsys, "explain", "prod", "3,40:float16", "--dim", "1")
    assert code == 0 and "torch's order: a float16/bfloat16 prod multiplies" in out
    code, out, _ = run_cli(capsys, "explain", "sum", "3,40:float16", "--dim", "1")
    assert code == 0 and "torch's order:" not in out
    code, _, err = run_cli(capsys, "explain", "argmax", "3,4", "--dim", "9")
    assert code == 2 and "--dim 9: out of range for 2 dims" in err


def test_explain_with_out(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "explain", "add", "2,3", "2,3", "--out", "2,3@1,2")
    assert code == 0
    assert "result: shape (2, 3), stride (1, 2), dtype float32" in out


def test_explain_names_the_pieces_of_large_chunks(capsys: pytest.CaptureFixture[str]) -> None:
    """An elementwise loop of 2 chunks of 1M elements cuts each into 8 pieces (one per grain,
    at most 8); a transposing copy of the same size runs its chunks whole; small chunks too."""
    code, out, _ = run_cli(capsys, "explain", "add", "2048,1024", "2048,1024", "--threads", "2")
    assert code == 0
    parallel = next(line for line in out.splitlines() if line.startswith("parallel:"))
    assert parallel.endswith(
        "2 chunk(s) [0, 1048576) [1048576, 2097152), each in 8 pieces (one per 1 grain(s), "
        "at most 8): a thread done with its chunk takes the pieces not yet started of the others"
    )
    for argv in (["copy", "2048,1024", "2048,1024@1,2048"], ["add", "2048,16", "2048,16"]):
        code, out, _ = run_cli(capsys, "explain", *argv, "--threads", "2")
        assert code == 0
        parallel = next(line for line in out.splitlines() if line.startswith("parallel:"))
        assert "chunk(s) [" in parallel and "pieces" not in parallel


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["explain", "frobnicate", "2,3"], "unknown op 'frobnicate'; explain knows: "),
        (["explain", "add", "2,3"], "add takes 2 operand(s), got 1"),
        (["explain", "where", "2:bool", "2", "2"], "explain does not build where's iterator yet"),
        (["explain", "add", "2,x", "3"], "a shape must be integers separated by commas, got '2,x'"),
        (["explain", "add", "2,3:channels_last", "3"], "channels_last needs 4 dims, got 2"),
        (["explain", "add", "2,3:nosuch", "3"], "'nosuch' in '2,3:nosuch' is neither a memory"),
        (["explain", "add", "2,3@1", "3"], "2 sizes but 1 strides in '2,3@1'"),
        (
            ["explain", "add", "2,3", "4"],
            "ValueError: The size of tensor a (3) must match the size of tensor b (4) at "
            "non-singleton dimension 1",
        ),
        (["layout", "40,40"], "layout draws arrays of up to 512 elements, got 1600"),
        (["bench", "--threads", "0"], "argument --threads: expected positive integers"),
        (["bench", "--threads", "a,b"], "argument --threads: expected positive integers"),
        (["bench", "--rows", "no-such-row", "--quick"], "no benchmark row matches 'no-such-row'"),
        (["bench", "--repeat", "0"], "argument --repeat: expected positive integers"),
        (["bench", "--repeat", "2,3"], "argument --repeat: expected one positive integer"),
        (["nosuch"], "invalid choice: 'nosuch'"),
        (["layout"], "the following arguments are required: SPEC"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert "usage: python -m ferroiter" in err
    assert message in err


def test_a_shell_sees_exit_code_2() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ferroiter", "explain", "add", "2,3"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "add takes 2 operand(s), got 1" in done.stderr


# ---- layout ----


@pytest.mark.parametrize(
    ("spec", "make"),
    [
        (
            "1,3,2,2:channels_last",
            lambda: torch.empty(1, 3, 2, 2, memory_format=torch.channels_last),
        ),
        (
            "1,2,2,2,2:channels_last_3d",
            lambda: torch.empty(1, 2, 2, 2, 2, memory_format=torch.channels_last_3d),
        ),
        ("2,3@1,2", lambda: torch.empty(3, 2).t()),
        ("3,4", lambda: torch.empty(3, 4)),
    ],
)
def test_layout_puts_each_element_at_torchs_address(
    capsys: pytest.CaptureFixture[str], spec: str, make: object
) -> None:
    code, out, _ = run_cli(capsys, "layout", spec)
    assert code == 0
    t = make()  # type: ignore[operator]
    assert f"strides {t.stride()}" in out
    physical = out.split("Physical order", 1)[1]
    for index in torch.cartesian_prod(*[torch.arange(n) for n in t.shape]).reshape(-1, t.dim()):
        idx = tuple(int(i) for i in index)
        address = sum(i * s for i, s in zip(idx, t.stride(), strict=True))
        assert f"{address}: ({','.join(map(str, idx))})" in physical


def test_layout_marks_gaps_and_overlap(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(capsys, "layout", "2,3@6,2")  # a sliced view: every other element
    assert "belong to no element" in out
    _, out, _ = run_cli(capsys, "layout", "2,3@0,1")  # an expanded view
    assert "0: (0,0) = (1,0)" in out and "hold several elements" in out


def test_layout_png(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from ferroiter._layout_cli import figure_size_px
    from ferroiter._operand_spec import parse_operand

    target = tmp_path / "cl.png"
    code, out, _ = run_cli(capsys, "layout", "1,3,4,4:channels_last", "--png", str(target))
    assert code == 0
    size = png_size(target)
    assert size == figure_size_px(parse_operand("1,3,4,4:channels_last"))
    assert f"wrote {target} ({size[0]} x {size[1]} pixels)" in out
    assert size[0] > size[1] > 100  # two panels side by side


# ---- bench ----


def test_bench_quick_rows_json_and_plot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report = tmp_path / "bench.json"
    argv = [
        "bench",
        "--quick",
        "--rows",
        "NCHW ->,NHWC ->",
        "--threads",
        "1,2",
        "--json",
        str(report),
    ]
    plot = tmp_path / "bench.png"
    has_plot = True
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        has_plot = False
    if has_plot:
        argv += ["--plot", str(plot)]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert re.search(r"CPU: .+; Python .+; ferroiter .+, numpy .+, torch ", out)
    assert "threads: 1,2 (ferroiter and torch; numpy's ufuncs run on 1 thread)" in out
    assert "NCHW -> NHWC (4, 64, 56, 56)" in out  # --quick's real sizes in the label
    data = json.loads(report.read_text())
    assert data["meta"]["threads"] == [1, 2] and data["meta"]["quick"] is True
    assert data["meta"]["ferroiter"] == fi.__version__
    labels = [row["label"] for row in data["rows"]]
    # the copy limit the selected rows compare with comes along, first
    assert labels[0].startswith("copy ") and "(copy limit)" in labels[0]
    assert [label.split(" (")[0] for label in labels[1:]] == ["NCHW -> NHWC", "NHWC -> NCHW"]
    for row in data["rows"]:
        assert row["unit"] == "GB/s" and row["bytes"] > 0
        assert set(row["results"]) == {"1", "2"}
        for result in row["results"].values():
            assert set(result["seconds"]) == {"ferroiter", "torch", "numpy"}
            assert all(s > 0 for s in result["seconds"].values())
            assert result["vs_torch"] == pytest.approx(
                result["seconds"]["torch"] / result["seconds"]["ferroiter"]
            )
            if row is not data["rows"][0]:
                # a fraction (not a percentage); --quick's tiny copies on a loaded machine can
                # measure a low copy limit, so only its order is checked
                assert 0 < result["share_of_copy"] < 100
    if has_plot:
        assert png_size(plot)[0] > 0


def test_bench_repeat_keeps_the_median_of_rounds(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """--repeat N measures each row N times in turn; the seconds kept are each library's
    median, the ratios those medians' ratios."""
    report = tmp_path / "bench.json"
    argv = ["bench", "--quick", "--rows", "sum(dim=1)", "--threads", "1", "--repeat", "3"]
    code, out, err = run_cli(capsys, *argv, "--json", str(report))
    assert code == 0, err
    assert "best of 3, median of 3 rounds" in out
    data = json.loads(report.read_text())
    assert data["meta"]["rounds"] == 3
    labels = [row["label"] for row in data["rows"]]
    assert labels[0].startswith("read limit: max") and labels[1].startswith("sum(dim=1)")
    for row in data["rows"]:
        result = row["results"]["1"]
        assert result["vs_torch"] == pytest.approx(
            result["seconds"]["torch"] / result["seconds"]["ferroiter"]
        )


def test_bench_rows_are_data_with_an_extension_point() -> None:
    from ferroiter import _bench
    from ferroiter._bench import rows

    sizes = rows.Sizes.quick()
    groups = [name for name, _ in _bench.ROW_GROUPS]
    assert groups[:5] == ["memory", "layout", "math", "reduce", "mixed"]
    labels = [row.label for row in rows.all_rows(sizes)]
    for wanted in (
        "add 64K into out",
        "add 256K into out",
        "add 1M into out",
        "add 4M into out",
        "add 4M allocating",
        "copy 4M (copy limit)",
        "exp float32 1M",
        "log float64 1M",
        "tanh float32 1M",
        "sigmoid float64 1M",
        "sum(dim=0) 1024x1024",
        "cumsum 4M",
    ):
        assert wanted in labels
    full = [row.label for row in rows.all_rows(rows.Sizes.full())]
    assert "add 64M into out" in full and "copy 64M (copy limit)" in full
    for shape, perm in rows.random_permutations(1 << 20, 12):
        assert 3 <= len(shape) <= 6 and sorted(perm) == list(range(len(shape)))
        assert perm != tuple(range(len(shape)))


# ---- configuration ----


def test_show_config(capsys: pytest.CaptureFixture[str]) -> None:
    fi.show_config()
    out = capsys.readouterr().out
    assert out.startswith("ferroiter configuration:")
    assert re.search(rf"version\s+{re.escape(fi.__version__)}\n", out)
    assert re.search(rf"threads\s+{fi.get_num_threads()}\n", out)
    assert "threads from" in out and "large-buffer cache" in out
    code, cli_out, _ = run_cli(capsys, "config")
    assert code == 0 and cli_out == out


def test_simd_level_is_the_cpus() -> None:
    level = _ferroiter._simd_level()
    assert level in {"avx512f", "avx2", "sse2", "neon", "scalar"}
    try:
        flags = Path("/proc/cpuinfo").read_text().split()
    except OSError:
        pytest.skip("no /proc/cpuinfo")
    if "flags" in flags or "flags\t" in flags:
        expected = "avx512f" if "avx512f" in flags else "avx2" if "avx2" in flags else "sse2"
        assert level == expected


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the cache is Linux's")
def test_empty_cache_releases_the_kept_buffers() -> None:
    a = fi.empty((4 << 20,))  # 16 MiB: a mapping, kept for reuse when freed
    del a
    info = _ferroiter._build_info()
    assert info["cache_held_bytes"] > 0 or not info["cache_enabled"]
    assert fi.empty_cache() is None
    assert _ferroiter._build_info()["cache_held_bytes"] == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the cache is Linux's")
def test_cache_switch_in_the_environment() -> None:
    probe = (
        "import ferroiter as fi; a = fi.empty((4 << 20,)); del a; "
        "info = fi._ferroiter._build_info(); print(info['cache_enabled'], info['cache_held_bytes'])"
    )
    for value, expected in (("0", "False 0"), ("1", "True")):
        env = dict(os.environ, FERROITER_CACHE=value)
        done = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=True,
        )
        assert done.stdout.startswith(expected)
        if value == "1":
            assert int(done.stdout.split()[1]) > 0
