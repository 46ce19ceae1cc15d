#!/usr/bin/env bash
# Runs every test from a fresh clone: creates .venv, installs the test dependencies (torch
# included), builds the extension, then runs `cargo test` (the examples too), the rayon
# feature's pool test, `cargo doc` (no warnings), the Rust lints (fmt, clippy), the
# aarch64 build and tests (clippy for aarch64-apple-darwin; `cargo test` for aarch64 Linux under
# qemu-user, installing the Debian cross tools and the rustup targets when missing), the Python
# lints (ruff check, ruff format --check), stubtest and mypy (the type stubs against the
# extension), and `pytest`. Exits non-zero on any failure. FERROITER_NIGHTLY=1 runs the
# randomized suites with many more examples, and Miri over the core's raw-pointer tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each section's heading carries the time since the start, so a slow CI run shows where it went.
section() { printf '== [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$1"; }

section "the virtual environment and the test dependencies (requirements-test.txt)"
python3 -m venv .venv
# shellcheck disable=SC1091
source .venv/bin/activate
python -m pip install --quiet --upgrade pip
python -m pip install --quiet -r requirements-test.txt

section "cargo test (the core, without Python)"
# The kernel tests for AVX2/AVX-512 return early on a CPU without those features; here they
# must run wherever the kernel (/proc/cpuinfo, not ferroiter's own detection) reports them:
# FERROITER_REQUIRE_ISA makes such a test fail instead (src/exec/cpu.rs, test_runs). Left as
# set when given, and unset where FERROITER_CPU_CAPABILITY caps the kernels on purpose.
require_isa="${FERROITER_REQUIRE_ISA-}"
if [[ -z "${FERROITER_REQUIRE_ISA+x}" && -z "${FERROITER_CPU_CAPABILITY-}" && -r /proc/cpuinfo ]]; then
    flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
    for f in avx2 fma avx512f; do
        if [[ "$flags" == *" $f "* ]]; then require_isa="$require_isa,$f"; fi
    done
    require_isa="${require_isa#,}"
    echo "   (FERROITER_REQUIRE_ISA=$require_isa: the CPU's AVX kernels must be tested)"
fi
FERROITER_REQUIRE_ISA="$require_isa" cargo test --quiet

if [[ "${FERROITER_NIGHTLY:-0}" == 1 ]]; then
    section "Miri: the core's raw-pointer tests on the scalar paths (nightly toolchain; FERROITER_NIGHTLY=1)"
    # Undefined behaviour in the unsafe modules (the walk, the loops, storage, the permuting
    # copy, the user loops) that the optimized tests could only hit by chance. The scalar
    # copies only (Miri runs the baseline target; FERROITER_CPU_CAPABILITY=default says so to
    # the kernels), one thread, and the tests that finish in Miri within 25 s each on the
    # 2-core machine: scripts/miri-tests.txt, one exact name per line. Isolation off: the
    # kernels read the cache sizes from /sys and the settings from the environment; leaks
    # ignored: the pool's workers live as long as the process, by design.
    rustup toolchain install nightly --profile minimal --component miri,rust-src
    mapfile -t miri_tests < <(grep -v '^#' scripts/miri-tests.txt)
    FERROITER_CPU_CAPABILITY=default FERROITER_NUM_THREADS=1 \
        MIRIFLAGS="-Zmiri-disable-isolation -Zmiri-ignore-leaks" \
        cargo +nightly miri test --quiet --lib -- --exact "${miri_tests[@]}"
fi

section "the rayon feature's pool test; cargo doc without warnings (every public item documented)"
cargo test --quiet --features rayon --lib exec::pool
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps

section "Rust lints: cargo fmt --check, clippy -D warnings (the core alone, with the binding, with rayon)"
cargo fmt --check
cargo clippy --quiet --all-targets -- -D warnings
cargo clippy --quiet --all-targets --features python -- -D warnings
cargo clippy --quiet --all-targets --features rayon -- -D warnings

section "aarch64: clippy for Apple Silicon (aarch64-apple-darwin), the Rust tests for aarch64 Linux"
echo "   under qemu-user (linker and runner: .cargo/config.toml, scripts/aarch64/)"
scripts/aarch64/setup.sh
cargo clippy --quiet --target aarch64-apple-darwin --lib -- -D warnings
# The cross-test profile (Cargo.toml): a debug build without debug info. Emulated, the unit
# tests take about 6 CPU-minutes, three quarters of them in the first five below (large
# sweeps of values and shapes that the x86-64 run covers too), and the GEMM's bit-identity
# sweeps over thread counts ran past 8 minutes: they run only with FERROITER_NIGHTLY=1, which
# runs every test.
aarch64_skips=()
if [[ "${FERROITER_NIGHTLY:-0}" != 1 ]]; then
    for t in exec::raw::permute::tests::few_rows_or_columns_match_the_naive_loop \
        exec::raw::permute::tests::permuting_copies_match_the_naive_loop \
        kernels::vecmath::tests::float32_tanh_within_one_ulp_around_its_branch_point \
        kernels::reduce::tests::float32_sum_of_three_times_two_to_the_24_ones_is_exact \
        kernels::reduce::tests::float_sums_match_the_generic_lane_loop_bit_for_bit \
        exec::raw::gemm::tests::crate_cuts_give_the_crate_large_parts \
        exec::raw::gemm::tests::float_parts_give_the_same_bits \
        exec::raw::gemm::tests::complex_parts_give_the_same_bits; do
        aarch64_skips+=(--skip "$t")
    done
    echo "   (skipping the 8 slowest unit tests under qemu; FERROITER_NIGHTLY=1 runs them)"
fi
cargo test --quiet --profile cross-test --target aarch64-unknown-linux-gnu -- \
    --exact "${aarch64_skips[@]}"

section "Python lints: ruff check, ruff format --check (rules in pyproject.toml [tool.ruff])"
ruff check python tests
ruff format --check python tests

section "build the extension"
# The `quick` profile (Cargo.toml: release's optimizations in 16 codegen units, no LTO): the
# same code, built in about 9 minutes on the 2-core CI machine. The shipped `release` profile
# compiles the crate as one codegen unit with thin LTO, on one core: over 15 minutes there, half
# of the whole run. FERROITER_NIGHTLY=1 tests the release build. (The quick build takes about
# 9.4 minutes in CI with or without the profile's incremental caches: CARGO_INCREMENTAL=0 saved
# nothing, 2026-12-06.)
if [[ "${FERROITER_NIGHTLY:-0}" == 1 ]]; then
    maturin develop --release --quiet
else
    maturin develop --profile quick --quiet
fi

section "stubtest (python/ferroiter/_ferroiter.pyi against the built extension) and mypy"
python -m mypy.stubtest ferroiter._ferroiter --mypy-config-file pyproject.toml \
    --allowlist scripts/stubtest-allowlist.txt
python -m mypy  # the files and options are in pyproject.toml [tool.mypy]

section "pytest"
python -m pytest tests -p no:cacheprovider
section "done"
