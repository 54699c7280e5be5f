#!/usr/bin/env bash
# The main job, offline: builds codemine and mines this project's own checkout (its
# committed HEAD, which includes the sample project in examples/sample) into out/sample.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo run --release -- mine --repo . --out out/sample "$@"
