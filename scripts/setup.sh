#!/usr/bin/env bash
# Installs what codemine needs on a Debian/Ubuntu machine, in two parts:
#
#   scripts/setup.sh mine   what building and running the miner needs (the main job,
#                           scripts/mine-sample.sh): a C compiler and make (tree-sitter's
#                           grammars, zstd, libgit2 and jemalloc are C, jemalloc is built
#                           with configure and make), pkg-config and the OpenSSL headers
#                           (git2's https transport), and one TrueType font (the text of the
#                           dataset card's figures; without one the figures are skipped).
#   scripts/setup.sh test   the above, and what the tests need (scripts/test.sh): git (tests
#                           compare against it), a JDK and Debian's JaCoCo (the coverage test
#                           makes a real JaCoCo report), WordNet 3.0 (METEOR's synonym stage,
#                           checked against nltk reading the same files), Chromium (the report
#                           test renders report.html), bubblewrap, cmake and npm (the sandbox and test-run
#                           tests), strace (the offline test), and a
#                           Python virtualenv in .venv with the tests' independent reference
#                           readers (pyarrow, pandas, nltk, ...: tests/requirements.txt).
#
# README.md says what each part costs. Idempotent: installs nothing that is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

part=${1:-}
case "$part" in
  mine|test) ;;
  *) echo "usage: scripts/setup.sh mine|test" >&2; exit 2 ;;
esac

need=()
data=()
command -v cc >/dev/null || need+=(gcc)
# gcc only recommends the C library's headers; the build scripts need them.
[ -f /usr/include/stdio.h ] || need+=(libc6-dev)
command -v make >/dev/null || need+=(make)
command -v pkg-config >/dev/null || need+=(pkg-config)
pkg-config --exists openssl 2>/dev/null || need+=(libssl-dev)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || data+=(fonts-dejavu-core)

if [ "$part" = test ]; then
  command -v git >/dev/null || need+=(git)
  # The call-graph test compares against `gcc -fcallgraph-info`; the coverage test runs gcov.
  command -v gcc >/dev/null || need+=(gcc)
  command -v javac >/dev/null || need+=(default-jdk-headless)
  [ -f /usr/share/java/org.jacoco.report.jar ] || need+=(libjacoco-java)
  python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
  command -v chromium >/dev/null || need+=(chromium)
  # The sandbox of every run of a repository's code (codemine-sandbox): bubblewrap; setpriv
  # (util-linux) drops root inside it. The test-run tests (codemine-testrun) build a CMake
  # fixture and install a JavaScript fixture's test runner with npm inside the sandbox.
  command -v bwrap >/dev/null || need+=(bubblewrap)
  command -v setpriv >/dev/null || need+=(util-linux)
  command -v cmake >/dev/null || need+=(cmake)
  command -v npm >/dev/null || need+=(npm)
  # The offline test checks with strace that no socket is made.
  command -v strace >/dev/null || need+=(strace)
  # Data packages, installed without what they recommend (the WordNet browser and its Tk).
  [ -f /usr/share/wordnet/index.noun ] || data+=(wordnet-base)
  # nltk's WordNet reader also opens index.sense.
  [ -f /usr/share/wordnet/index.sense ] || data+=(wordnet-sense-index)
fi

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

if [ "$part" = test ]; then
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-cache-dir -r tests/requirements.txt
fi
