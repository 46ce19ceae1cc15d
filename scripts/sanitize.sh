#!/usr/bin/env bash
# Memory-safety checks a developer runs by hand (issue 13); not part of scripts/test.sh (slow).
#
#   bash scripts/sanitize.sh [miri] [asan] [valgrind] [asan-python] [asan-suite]
#   (default: the first four)
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
# - asan-python: the extension itself built with AddressSanitizer (nightly, quick profile, in
#   target/asan-py) and loaded by an interpreter with gcc's libasan preloaded (CPython, numpy
#   and torch stay uninstrumented, but every heap block gets redzones, so the extension's
#   reads and writes past a block are caught); runs scripts/sanitize_smoke.py and, unlike
#   valgrind, at a speed where torch-based pytest modules can run too:
#   FERROITER_SANITIZE_PYTEST (default: the bad-input catalogue, the blocked formats, users'
#   kernels with their pointer probe (tests/test_user_kernels.py), the
#   sorting and manipulation suites). Child interpreters (run_isolated) inherit the preload.
#   Leak checking is off (CPython frees little at exit), and a failed huge allocation returns
#   null (a MemoryError, as without ASan) instead of aborting; the goal is zero reports.
# - asan-suite: asan-python over the whole Python suite's fast profile (every tests/ module,
#   the default hypothesis profile): 2,631 tests, about 35 minutes on two shared cores after
#   the build. The pytest output goes to target/asan-py/pytest.log.
#
# Exit status: non-zero when any step that could run found an error.
set -uo pipefail
cd "$(dirname "$0")/.."

steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(miri asan valgrind asan-python)
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
    asan-python | asan-suite)
        echo "== AddressSanitizer in the extension (an ASan-preloaded interpreter): $step"
        libasan=$(gcc -print-file-name=libasan.so 2>/dev/null)
        if ! cargo +nightly --version >/dev/null 2>&1 || [ ! -e "$libasan" ]; then
            echo "needs the nightly toolchain and gcc's libasan.so: skipped"
            continue
        fi
        RUSTFLAGS="-Zsanitizer=address" PYO3_PYTHON="$(command -v python)" \
            cargo +nightly build --profile quick --features python --lib --target "$host" \
            --target-dir target/asan-py || { status=1; continue; }
        pkg=target/asan-py/pkg
        rm -rf "$pkg" && mkdir -p "$pkg" && cp -r python/ferroiter "$pkg/" && rm -f "$pkg"/ferroiter/*.so
        suffix=$(python -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
        cp "target/asan-py/$host/quick/libferroiter.so" "$pkg/ferroiter/_ferroiter$suffix"
        rm -f target/asan-py/report.*
        # libstdc++ preloaded too: ASan's __cxa_throw interceptor must find the real one at
        # start-up (the interpreter does not link libstdc++; torch's C++ exceptions need it)
        libstdcxx=$(gcc -print-file-name=libstdc++.so)
        asan_env=(env LD_PRELOAD="$libasan $libstdcxx" PYTHONPATH="$PWD/$pkg"
            ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:alloc_dealloc_mismatch=0:new_delete_type_mismatch=0:log_path=$PWD/target/asan-py/report")
        "${asan_env[@]}" python -c "import ferroiter, sys; assert '$pkg' in ferroiter.__file__, ferroiter.__file__" \
            || { status=1; continue; }
        "${asan_env[@]}" python scripts/sanitize_smoke.py || status=1
        modules=${FERROITER_SANITIZE_PYTEST:-tests/test_bad_inputs.py tests/test_blocked.py tests/test_user_kernels.py tests/test_sorting.py tests/test_manipulation.py}
        [ "$step" = asan-suite ] && modules=tests
        # the resident-memory check is left out: ASan's quarantine holds up to 256 MiB of freed
        # blocks (to catch use after free), so resident memory grows without a leak (+143 MiB
        # over its 40 large ops); without ASan it runs in the ordinary suite
        # shellcheck disable=SC2086
        "${asan_env[@]}" python -m pytest -q -p no:cacheprovider $modules \
            --deselect tests/test_leaks.py::test_repeated_ops_leave_resident_memory_flat 2>&1 \
            | tee target/asan-py/pytest.log
        [ "${PIPESTATUS[0]}" = 0 ] || status=1
        reports=$(cat target/asan-py/report.* 2>/dev/null | grep -c "^==[0-9]*==ERROR: AddressSanitizer" || true)
        echo "asan-python: $reports AddressSanitizer report(s) (target/asan-py/report.*)"
        [ "$reports" != "0" ] && status=1
        ;;
    *)
        echo "unknown step $step (miri, asan, valgrind, asan-python, asan-suite)"
        status=2
        ;;
    esac
done
exit $status
