#!/usr/bin/env bash
# Installs what building and testing codemine needs on a fresh Debian/Ubuntu machine:
# OpenSSL headers and pkg-config (git2's https transport), make (jemalloc's build),
# bubblewrap, cmake and npm (the sandbox and the test-run tests),
# git (tests compare against it),
# gcc (the call-graph test compares against `gcc -fcallgraph-info`; the coverage test runs gcov),
# a JDK and Debian's JaCoCo (the coverage test makes a real JaCoCo report), WordNet 3.0
# (METEOR's synonym stage, checked against nltk reading the same files), a TrueType font (the
# dataset card's figures), Chromium (the report test renders report.html), and a Python
# virtualenv in .venv with the independent reference readers and coverage tools of the tests.
# Idempotent: does nothing that is already done.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
pkg-config --exists openssl 2>/dev/null || need+=(libssl-dev pkg-config)
command -v git >/dev/null || need+=(git)
command -v cc >/dev/null || need+=(build-essential)
# jemalloc, the binary's allocator, is built from source by its crate: configure and make.
command -v make >/dev/null || need+=(make)
command -v gcc >/dev/null || need+=(gcc)
command -v javac >/dev/null || need+=(default-jdk-headless)
[ -f /usr/share/java/org.jacoco.report.jar ] || need+=(libjacoco-java)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
# The report test opens report.html in headless Chromium.
command -v chromium >/dev/null || need+=(chromium)
# The sandbox of every run of a repository's code (codemine-sandbox): bubblewrap; setpriv
# (util-linux) drops root inside it. The test-run tests (codemine-testrun) build a CMake
# fixture and install a JavaScript fixture's test runner with npm inside the sandbox.
command -v bwrap >/dev/null || need+=(bubblewrap)
command -v setpriv >/dev/null || need+=(util-linux)
command -v cmake >/dev/null || need+=(cmake)
command -v npm >/dev/null || need+=(npm)
# Data packages, installed without what they recommend (the WordNet browser and its Tk).
data=()
[ -f /usr/share/wordnet/index.noun ] || data+=(wordnet-base)
# nltk's WordNet reader also opens index.sense.
[ -f /usr/share/wordnet/index.sense ] || data+=(wordnet-sense-index)
# The dataset card's figures need a TrueType font for their text.
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || data+=(fonts-dejavu-core)
if [ ${#need[@]} -gt 0 ] || [ ${#data[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  if [ ${#need[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
  fi
  if [ ${#data[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${data[@]}"
  fi
fi

if [ "${1:-}" = "--with-python" ]; then
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-cache-dir -r tests/requirements.txt
fi
