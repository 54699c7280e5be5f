#!/usr/bin/env bash
# Runs every test of codemine, after installing what they need (scripts/setup.sh test).
#
#   scripts/test.sh          every test, the workspace linted by clippy as it is built
#                            (`-D warnings`); CI runs this
#   scripts/test.sh --fast   the fast set, for an edit-and-test loop: every crate's unit tests,
#                            the library crates' own integration tests, and the end-to-end
#                            tests of extraction, languages, call graphs, filters and the
#                            command line; not the sandbox, test runs, sharded and killed
#                            runs, Spark, SIDE, the report in Chromium, nor the docs' blocks
#
# Tests run under cargo-nextest when it is installed (many at once: .config/nextest.toml),
# else under `cargo test`; arguments after the flag go to either.
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
nextest=""
cargo nextest --version >/dev/null 2>&1 && nextest=1
if [ -n "$fast" ]; then
  if [ -n "$nextest" ]; then
    # One build of the whole workspace, filtered: the same features as the full run's, so
    # switching between the two rebuilds no dependency.
    cargo nextest run --workspace "$@" -E 'kind(lib)
      | (kind(test) & (package(codemine-filters) | package(codemine-cli)
          | package(codemine-completion) | package(codemine-license) | package(codemine-schemas)
          | package(codemine-io) | package(codemine-docstring)))
      | (package(codemine) & binary(it) & (test(/^cli::/) | test(/^extraction::/)
          | test(/^lang_/) | test(/^callgraph::/) | test(/^filters::/) | test(/^inspect::/)
          | test(/^yabloco::/) | test(/^licenses::/) | test(/^coverage::/)))'
  else
    cargo test --workspace --lib "$@"
    cargo test -p codemine-filters -p codemine-cli -p codemine-completion -p codemine-license \
      -p codemine-schemas -p codemine-io -p codemine-docstring --tests "$@"
    cargo test -p codemine --test it "$@" -- cli:: extraction:: lang_ callgraph:: filters:: \
      inspect:: yabloco:: licenses:: coverage::
  fi
  exit 0
fi
# clippy compiles the workspace's own crates (cargo's RUSTC_WORKSPACE_WRAPPER, which is how
# `cargo clippy` runs it, with its arguments in CLIPPY_ARGS): the build the tests need is
# linted as it is made, `-D warnings` as `cargo clippy --workspace --all-targets -- -D
# warnings` would, and the dependencies are compiled once instead of once more for clippy's
# separate check build (BENCHMARKS.md, "CI on a clean clone").
export RUSTC_WORKSPACE_WRAPPER
RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver"
[ -x "$RUSTC_WORKSPACE_WRAPPER" ] || {
  echo "scripts/test.sh: clippy is not installed (rustup component add clippy)" >&2
  exit 2
}
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
status=0
if [ -n "$nextest" ]; then
  cargo nextest run --workspace --no-fail-fast "$@" || status=$?
  # nextest runs no documentation tests.
  cargo test --workspace --doc "$@" || status=$?
else
  cargo test --workspace --no-fail-fast "$@" || status=$?
fi
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
exit $status
