#!/usr/bin/env bash
# Builds and installs ferroiter into .venv (numpy is its only runtime dependency) and runs the tour.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
# shellcheck disable=SC1091
source .venv/bin/activate
python -m pip install --quiet --upgrade pip
python -m pip install --quiet .
python -m ferroiter tour
