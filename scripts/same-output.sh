#!/usr/bin/env bash
# The check of a change that must not change any output (docs/design.md, "Layout"; issue 35):
# mines a set of real repositories with every output on, then lists the sha256 of every
# file written. Run it with the binary before the change and after, and compare the lists:
#
#   scripts/same-output.sh BEFORE_BINARY /tmp/same/before
#   scripts/same-output.sh target/debug/codemine /tmp/same/after
#   diff /tmp/same/before.sha256 /tmp/same/after.sha256
#
# `.codemine.lock` (the run's pid) and stats.json (its timings and peak memory) differ from
# run to run; everything else must not. MIRRORS is a folder of bare or working clones named
# `owner+name/repo` (what the tool library's fetch leaves in /work/.mirror); each repository
# is mined at its HEAD and named owner/name. REPOS lists which (default: the eight of the
# house's checks; add redis+redis and tree-sitter+tree-sitter-cpp for the C family).
set -euo pipefail
bin=$(realpath "$1")
out=$2
mirrors=${MIRRORS:-/work/.mirror}
repos=${REPOS:-"psf+requests google+gson DaveGamble+cJSON spf13+cobra expressjs+express sindresorhus+ky sinatra+sinatra thephpleague+csv"}
args=()
for r in $repos; do
  args+=(--repo "$mirrors/$r/repo=${r/+//}")
done
rm -rf "$out"
"$bin" mine "${args[@]}" --out "$out" --cache "$out.cache" -q \
  --emit completion --emit repo-completion --explain
(cd "$out" && find . -type f ! -name .codemine.lock ! -name stats.json -print0 | sort -z |
  xargs -0 sha256sum) > "$out.sha256"
echo "$(wc -l < "$out.sha256") files -> $out.sha256"
