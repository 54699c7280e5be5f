#!/usr/bin/env bash
# The main job, offline: installs what building and mining need (scripts/setup.sh mine),
# builds codemine (target/release/codemine, without SIDE, which mining does not need: plain
# `cargo build --release` adds it) and mines this project's own checkout (its
# committed HEAD, which includes the sample project in examples/sample) into out/sample.
# Extra arguments go to `codemine mine`. With CODEMINE_BIN set, that binary is used and
# nothing is installed or built (the documentation tests run the Quick start this way).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${CODEMINE_BIN:-}" ]; then
  bin=$CODEMINE_BIN
else
  scripts/setup.sh mine
  cargo build --release --no-default-features
  bin=target/release/codemine
fi
"$bin" mine --repo . --out out/sample "$@"
