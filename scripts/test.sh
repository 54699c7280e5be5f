#!/usr/bin/env bash
# Runs every test of codemine, after installing what they need (scripts/setup.sh test).
#
#   scripts/test.sh          every test (CI runs this)
#   scripts/test.sh --fast   the fast set, for an edit-and-test loop: every crate's unit tests,
#                            the library crates' own integration tests, and the end-to-end
#                            tests of extraction, languages, call graphs, filters and the
#                            command line; not the sandbox, test runs, sharded and killed
#                            runs, Spark, SIDE, the report in Chromium, nor the docs' blocks
set -euo pipefail
cd "$(dirname "$0")/.."
fast=""
if [ "${1:-}" = --fast ]; then
  fast=1
  shift
fi
scripts/setup.sh test
export CODEMINE_PYTHON="$PWD/.venv/bin/python"
# No module of a crate imports another that imports it back (docs/design.md, "Layout").
python3 scripts/module-cycles.py .
if [ -n "$fast" ]; then
  cargo test --workspace --lib "$@"
  cargo test -p codemine-filters -p codemine-cli -p codemine-completion -p codemine-license \
    -p codemine-schemas -p codemine-io -p codemine-docstring --tests "$@"
  cargo test -p codemine --test it "$@" -- cli:: extraction:: lang_ callgraph:: filters:: \
    inspect:: yabloco:: licenses:: coverage::
  exit 0
fi
cargo test --workspace "$@"
# CodeSumEvaluation's BLEU code is not on a registry: its reference tests run when a copy is
# given (a checkout or git directory of github.com/DeepSoftwareAnalytics/CodeSumEvaluation).
if [ -n "${CODEMINE_CODESUM_DIR:-}" ]; then
  cargo test -p codemine-eval --test it codesum:: -- --ignored
fi
# The Vault's docstring parser (nmd-2000/docstring_parser) is not on a registry either: its
# reference tests run when a clone is given.
if [ -n "${CODEMINE_VAULT_DOCSTRING_DIR:-}" ]; then
  cargo test -p codemine-docstring --test it vault_reference:: -- --ignored
fi
