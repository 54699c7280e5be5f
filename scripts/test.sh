#!/usr/bin/env bash
# Runs every test of codemine, after installing what they need (see setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-python
export CODEMINE_PYTHON="$PWD/.venv/bin/python"
cargo test --workspace "$@"
# CodeSumEvaluation's BLEU code is not on a registry: its reference tests run when a copy is
# given (a checkout or git directory of github.com/DeepSoftwareAnalytics/CodeSumEvaluation).
if [ -n "${CODEMINE_CODESUM_DIR:-}" ]; then
  cargo test -p codemine-eval --test it codesum:: -- --ignored
fi
