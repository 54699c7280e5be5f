#!/usr/bin/env bash
# Runs every test of codemine, after installing what they need (scripts/setup.sh test).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
export CODEMINE_PYTHON="$PWD/.venv/bin/python"
# No module of a crate imports another that imports it back (docs/design.md, "Layout"). The
# one cycle left is being taken apart; the script fails on any other, and when it is gone.
python3 scripts/module-cycles.py . --known "codemine-miner: extract <-> lang <-> resolve"
cargo test --workspace "$@"
# CodeSumEvaluation's BLEU code is not on a registry: its reference tests run when a copy is
# given (a checkout or git directory of github.com/DeepSoftwareAnalytics/CodeSumEvaluation).
if [ -n "${CODEMINE_CODESUM_DIR:-}" ]; then
  cargo test -p codemine-eval --test it codesum:: -- --ignored
fi
