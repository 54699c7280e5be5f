#!/usr/bin/env bash
# Runs every test of codemine, after installing what they need (see setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-python
export CODEMINE_PYTHON="$PWD/.venv/bin/python"
cargo test --workspace "$@"
