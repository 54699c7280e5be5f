#!/usr/bin/env bash
# Opt-in SIDE checks that need torch (about 5.6 GB with its CUDA libraries, so not in CI):
# 1. the committed tiny MPNet and side/tests/data/reference.json agree with transformers;
# 2. with CODEMINE_SIDE_MODEL=DIR (a real MPNet checkpoint: the SIDE checkpoint or a
#    sentence-transformers MPNet), codemine's scores equal the reference recipe's on real code.
# The torch virtualenv goes to .venv-side (CODEMINE_SIDE_VENV to choose another place).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${CODEMINE_SIDE_VENV:-.venv-side}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-cache-dir -r side/tests/requirements-torch.txt
"$venv/bin/python" side/tests/make_tiny_model.py --check
if [ -n "${CODEMINE_SIDE_MODEL:-}" ]; then
  CODEMINE_SIDE_PYTHON="$venv/bin/python" cargo test --release -p codemine-side --test it real_model:: -- --ignored --nocapture
else
  echo "CODEMINE_SIDE_MODEL is not set: the real-weights check was not run"
fi
