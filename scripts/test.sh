#!/usr/bin/env bash
# Runs every test from a fresh clone: creates .venv, installs the test dependencies (torch
# included), builds the extension, then runs `cargo test`, the Rust lints (fmt, clippy), the
# Python lints (ruff check, ruff format --check), stubtest and mypy (the type stubs against the
# extension), and `pytest`. Exits non-zero on any failure. FERROITER_NIGHTLY=1 runs the
# randomized suites with many more examples.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m venv .venv
# shellcheck disable=SC1091
source .venv/bin/activate
python -m pip install --quiet --upgrade pip
python -m pip install --quiet -r requirements-test.txt

echo "== cargo test (the core, without Python)"
cargo test --quiet

echo "== Rust lints: cargo fmt --check, clippy -D warnings (the core alone, and with the binding)"
cargo fmt --check
cargo clippy --quiet --all-targets -- -D warnings
cargo clippy --quiet --all-targets --features python -- -D warnings

echo "== Python lints: ruff check, ruff format --check (rules in pyproject.toml [tool.ruff])"
ruff check python tests
ruff format --check python tests

echo "== build the extension"
maturin develop --release --quiet

echo "== stubtest (python/ferroiter/_ferroiter.pyi against the built extension) and mypy"
python -m mypy.stubtest ferroiter._ferroiter --mypy-config-file pyproject.toml \
    --allowlist scripts/stubtest-allowlist.txt
python -m mypy  # the files and options are in pyproject.toml [tool.mypy]

echo "== pytest"
python -m pytest tests -p no:cacheprovider
