#!/usr/bin/env bash
# Memory-safety checks a developer runs by hand (issue 13); not part of scripts/test.sh (slow).
#
#   bash scripts/sanitize.sh [miri] [asan] [valgrind]     (default: all three)
#
# - miri: the core's Rust tests under Miri (`cargo +nightly miri test`), which checks every
#   unsafe access of src/storage.rs and src/exec/raw/ against Rust's aliasing and bounds rules.
#   Needs the nightly toolchain's `miri` and `rust-src` components; where they are missing
#   (they cannot be downloaded offline) the step says so and is skipped.
# - asan: the Rust tests (the library's unit tests, tests/layout_props.rs and the
#   tests/fuzz_plan.rs fuzzer) built with AddressSanitizer (`-Zsanitizer=address`, nightly;
#   std itself is not instrumented without rust-src, the crate's own code is).
# - valgrind: the Python extension (quick profile, with symbols) under valgrind's memcheck,
#   running scripts/sanitize_smoke.py (every op, reduction, conversion and interop path over
#   strided layouts, without torch: torch under valgrind takes hours). PYTHONMALLOC=malloc
#   lets memcheck see Python's allocations. CPython and glibc raise reports of their own (the
#   hash seed read with getrandom, which valgrind 3.19 does not model; the loader's strcmp),
#   so the step counts the reports whose stack has a ferroiter frame: the goal is zero.
#   FERROITER_SANITIZE_PYTEST="tests/test_x.py ..." also runs those pytest modules.
#
# Exit status: non-zero when any step that could run found an error.
set -uo pipefail
cd "$(dirname "$0")/.."

steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(miri asan valgrind)
status=0
host=$(rustc -vV | sed -n 's/^host: //p')

for step in "${steps[@]}"; do
    case "$step" in
    miri)
        echo "== Miri"
        if cargo +nightly miri --version >/dev/null 2>&1; then
            # the pure and raw modules' unit tests; Miri is ~1000x slower, so few proptest cases
            PROPTEST_CASES=4 MIRIFLAGS="-Zmiri-disable-isolation" \
                cargo +nightly miri test --lib || status=1
        else
            echo "Miri is not installed for the nightly toolchain (rustup component add miri" \
                "rust-src needs the network): skipped"
        fi
        ;;
    asan)
        echo "== AddressSanitizer (cargo +nightly test, -Zsanitizer=address)"
        if cargo +nightly --version >/dev/null 2>&1; then
            RUSTFLAGS="-Zsanitizer=address" RUSTDOCFLAGS="-Zsanitizer=address" \
                ASAN_OPTIONS="detect_leaks=1" \
                cargo +nightly test --target "$host" --target-dir target/asan \
                --lib --test fuzz_plan --test layout_props || status=1
        else
            echo "no nightly toolchain: skipped"
        fi
        ;;
    valgrind)
        echo "== valgrind memcheck (the extension, quick profile)"
        if ! command -v valgrind >/dev/null; then
            echo "valgrind is not installed: skipped"
            continue
        fi
        maturin develop --profile quick --quiet || { status=1; continue; }
        log=target/valgrind.log
        PYTHONMALLOC=malloc valgrind --tool=memcheck --errors-for-leak-kinds=none \
            --num-callers=40 --log-file="$log" python scripts/sanitize_smoke.py || status=1
        grep -E "ERROR SUMMARY" "$log"
        # CPython and glibc report errors of their own under memcheck (the hash seed from
        # getrandom, which valgrind 3.19 does not model, and the loader's strcmp): count only
        # the reports with a ferroiter frame in their stack.
        ours=$(python - "$log" <<'PY'
import re, sys
blocks = re.split(r"\n==\d+== \n", open(sys.argv[1]).read())
print(sum(1 for b in blocks
          if re.search(r"== (Invalid|Conditional|Use of uninit|Mismatched|Source and dest)", b)
          and "ferroiter" in b))
PY
)
        echo "valgrind: $ours report(s) with a ferroiter frame (see $log)"
        [ "$ours" != "0" ] && status=1
        if [ -n "${FERROITER_SANITIZE_PYTEST:-}" ]; then
            # shellcheck disable=SC2086
            PYTHONMALLOC=malloc valgrind --tool=memcheck --errors-for-leak-kinds=none \
                --num-callers=40 --log-file=target/valgrind-pytest.log \
                python -m pytest -x -q -p no:cacheprovider $FERROITER_SANITIZE_PYTEST || status=1
            grep -E "ERROR SUMMARY" target/valgrind-pytest.log
            grep -c "ferroiter" target/valgrind-pytest.log || true
        fi
        ;;
    *)
        echo "unknown step $step (miri, asan, valgrind)"
        status=2
        ;;
    esac
done
exit $status
