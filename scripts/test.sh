#!/usr/bin/env bash
# Runs every test of codemine, after installing what they need (scripts/setup.sh test).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
export CODEMINE_PYTHON="$PWD/.venv/bin/python"
cargo test --workspace "$@"
# CodeSumEvaluation's BLEU code is not on a registry: its reference tests run when a copy is
# given (a checkout or git directory of github.com/DeepSoftwareAnalytics/CodeSumEvaluation).
if [ -n "${CODEMINE_CODESUM_DIR:-}" ]; then
  cargo test -p codemine-eval --test it codesum:: -- --ignored
fi
