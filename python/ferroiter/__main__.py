"""`python -m ferroiter`: the command line (tour, explain, layout, bench, config).

Each command has `--help`; bad arguments exit with code 2 and a message on stderr.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import ferroiter as fi

from ._operand_spec import SpecError, parse_operand

SPEC_HELP = (
    "an array as SHAPE[:FORMAT | @STRIDES][:DTYPE], e.g. 2,3,4,5  2,3,4,5:channels_last  "
    "2,3,4,5@60,1,15,3  3,4,5:float16  () for 0-d; strides in elements"
)


def _positive_ints(text: str) -> list[int]:
    """`1,2,4` -> [1, 2, 4] for --threads; argparse turns the error into exit code 2."""
    bad = argparse.ArgumentTypeError(f"expected positive integers like 1,2,4, got {text!r}")
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise bad from None
    if not values or any(v < 1 for v in values):
        raise bad
    return values


def _positive_int(text: str) -> int:
    """`5` -> 5 for --repeat; argparse turns the error into exit code 2."""
    values = _positive_ints(text)
    if len(values) != 1:
        raise argparse.ArgumentTypeError(f"expected one positive integer, got {text!r}")
    return values[0]


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command."""
    return _build()[0]


def _build() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The parser, and each command's own (for errors found after parsing)."""
    parser = argparse.ArgumentParser(
        prog="python -m ferroiter",
        description="ferroiter: PyTorch's CPU TensorIterator rebuilt in Rust, on the command line.",
    )
    parser.add_argument("--version", action="version", version=f"ferroiter {fi.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    tour = commands.add_parser(
        "tour",
        help="torch's layout rules, computed live (the default command)",
        description="The seed examples of torch's layout rules, computed live by ferroiter.",
    )

    explain = commands.add_parser(
        "explain",
        help="the build trace of an op on layouts given here",
        description="Builds the TensorIterator an op would use on arrays of the given layouts "
        "and prints its explain() trace: broadcasting, the fast-setup decision, the stride "
        "sort, the output strides, coalescing, the inner loop and the split among threads.",
        epilog="examples:\n"
        "  python -m ferroiter explain add 2,3,4,5:channels_last 3,4,5\n"
        "  python -m ferroiter explain mul 2,3@1,2 scalar=2.5\n"
        "  python -m ferroiter explain exp 4,5@1,4:float16\n"
        "  python -m ferroiter explain contiguous 2,3,4,5 --format channels_last\n"
        "  python -m ferroiter explain copy 2,3,4,5:channels_last 2,3,4,5\n"
        "  python -m ferroiter explain sum 2,3,4,5:channels_last --dim 2,3\n"
        "ops: " + ", ".join(_explainable_ops()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    explain.add_argument(
        "op",
        help="an elementwise function (add, mul, exp, ...), copy "
        "(DST SRC), contiguous (SRC, with --format) or a reduction (SRC, with --dim)",
    )
    explain.add_argument(
        "operands",
        nargs="+",
        metavar="OPERAND",
        help=SPEC_HELP + "; a Python number as scalar=VALUE",
    )
    explain.add_argument("--out", metavar="SPEC", help="an explicit output array (out=)")
    explain.add_argument(
        "--dim", metavar="D,...", help="a reduction's dims, e.g. 2,3 or -1 (default: every dim)"
    )
    explain.add_argument(
        "--format",
        default="contiguous",
        metavar="FORMAT",
        help="contiguous's target format (default contiguous)",
    )
    explain.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="the thread count the split is shown for (default: the pool's)",
    )

    layout = commands.add_parser(
        "layout",
        help="which logical element lives at which address",
        description="Draws a small array's memory: the logical order with each element's "
        "address, and memory address by address with the logical index stored there.",
        epilog="examples:\n"
        "  python -m ferroiter layout 1,3,2,2:channels_last\n"
        "  python -m ferroiter layout 2,3@1,2          (a transposed view)\n"
        "  python -m ferroiter layout 2,3@0,1          (an expanded view: overlap)\n"
        "  python -m ferroiter layout 1,3,4,4:channels_last --png cl.png",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    layout.add_argument("spec", metavar="SPEC", help=SPEC_HELP)
    layout.add_argument(
        "--png",
        metavar="FILE",
        help="also draw the logical and physical order side by side into a PNG "
        "(needs matplotlib: pip install 'ferroiter[plot]')",
    )
    layout.add_argument("--dpi", type=int, default=100, help="the PNG's resolution (default 100)")

    bench = commands.add_parser(
        "bench",
        help="this machine's figures against torch and numpy, side by side",
        description="Runs the same work with ferroiter, torch and numpy on the same memory and "
        "prints a row as soon as it is measured.",
    )
    bench.add_argument(
        "--quick",
        action="store_true",
        help="smaller sizes and fewer repeats (the labels show the sizes used)",
    )
    bench.add_argument(
        "--threads",
        type=_positive_ints,
        metavar="N[,N...]",
        help="thread counts, one column group each (default: the pool's)",
    )
    bench.add_argument(
        "--rows",
        metavar="PATTERN",
        help="only rows whose group or label contains PATTERN (or matches it "
        "as a glob; several: comma-separated); copy limits that selected rows compare with "
        "come along",
    )
    bench.add_argument(
        "--repeat",
        type=_positive_int,
        default=1,
        metavar="N",
        help="measure each row N times in turn and keep each library's median time "
        "(quieter figures on a shared machine; default 1)",
    )
    bench.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    bench.add_argument(
        "--plot", metavar="FILE", help="also draw the ratios as a bar chart (needs matplotlib)"
    )

    config = commands.add_parser(
        "config",
        help="this build and what it chose on this machine (show_config)",
        description="Prints ferroiter.show_config(): version, build, SIMD level, threads, cache.",
    )
    by_name = {"tour": tour, "explain": explain, "layout": layout, "bench": bench, "config": config}
    return parser, by_name


def _explainable_ops() -> list[str]:
    from ._explain_cli import explainable_ops

    return explainable_ops()


def _fail(target: argparse.ArgumentParser, message: str) -> int:
    """Reports a bad argument the way argparse does: usage, message, exit code 2."""
    target.print_usage(sys.stderr)
    print(f"{target.prog}: error: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one command; returns the exit code (argparse's own errors exit with 2)."""
    parser, by_name = _build()
    args = parser.parse_args(list(argv) if argv is not None else None)
    command = args.command or "tour"
    target = by_name[command]
    try:
        if command == "tour":
            from . import _tour

            _tour.run()
        elif command == "explain":
            from ._explain_cli import explain

            print(explain(args.op, args.operands, args.out, args.format, args.threads, args.dim))
        elif command == "layout":
            return _layout(args)
        elif command == "bench":
            from . import _bench

            _bench.run(
                quick=args.quick,
                threads=args.threads,
                rows=args.rows,
                json_path=args.json,
                plot_path=args.plot,
                rounds=args.repeat,
            )
        elif command == "config":
            fi.show_config()
    except SpecError as err:
        return _fail(target, str(err))
    except (ValueError, TypeError, IndexError) as err:
        # an operand combination torch refuses (e.g. shapes that do not broadcast): its message
        return _fail(target, f"{type(err).__name__}: {err}")
    except ModuleNotFoundError as err:
        return _fail(target, f"{err.name} is needed here: pip install 'ferroiter[plot]'")
    return 0


def _layout(args: argparse.Namespace) -> int:
    from ._layout_cli import layout_text, write_png

    spec = parse_operand(args.spec)
    print(layout_text(spec))
    if args.png:
        width, height = write_png(spec, args.png, dpi=args.dpi)
        print(f"\nwrote {args.png} ({width} x {height} pixels)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
