#!/usr/bin/env bash
# Kills `codemine mine` with SIGKILL at the Nth unlink, unlinkat and rename system call (every
# N a run makes), reruns it, and checks the rerun's shards and stats.json against an
# uninterrupted run's. Needs strace. Usage: examples/kill_sweep.sh MANIFEST [WORKDIR]
set -uo pipefail
manifest=$(realpath "$1")
work=${2:-$(mktemp -d)}
bin=$(realpath "${CODEMINE_BIN:-$(dirname "$0")/../target/release/codemine}")
run() { "$bin" mine --manifest "$manifest" --out "$1" --checkpoint-repos 1 -j 1; }
digest() {
  (cd "$1" && find csn yabloco callgraph dedup -type f | sort | xargs sha256sum &&
    python3 -c "
import json
def keep(v):
    # timings and memory vary from run to run; every count must not
    if isinstance(v, dict):
        return {k: keep(x) for k, x in v.items() if not any(w in k for w in ('seconds', 'peak_rss', 'threads'))}
    return [keep(x) for x in v] if isinstance(v, list) else v
print(json.dumps(keep(json.load(open('stats.json'))), sort_keys=True))" &&
    ls) | sha256sum
}
cd "$work" || exit 1
rm -rf whole && run whole >/dev/null 2>&1 || { echo "the uninterrupted run failed"; exit 1; }
want=$(digest whole)
calls=$(strace -f -qq -e trace=unlink,unlinkat,rename -o /dev/stdout "$bin" mine --manifest "$manifest" --out probe --checkpoint-repos 1 -j 1 2>/dev/null | grep -vc ENOENT)
rm -rf probe
bad=0
for n in $(seq 1 "$calls"); do
  for call in unlink unlinkat rename; do
    rm -rf o
    strace -f -qq -e trace=$call -e inject=$call:signal=SIGKILL:when=$n -o /dev/null \
      "$bin" mine --manifest "$manifest" --out o --checkpoint-repos 1 -j 1 >/dev/null 2>&1
    if ! run o >/dev/null 2>err; then
      echo "kill at $call #$n: the rerun failed: $(tail -1 err)"; bad=$((bad + 1)); continue
    fi
    [ "$(digest o)" == "$want" ] || { echo "kill at $call #$n: the rerun differs"; bad=$((bad + 1)); }
    if [ -e o/staging ] || [ -e o/staging.removing ]; then
      echo "kill at $call #$n: staging left behind"; bad=$((bad + 1))
    fi
  done
done
echo "$calls system calls x 3 kinds: $bad bad reruns"
[ "$bad" -eq 0 ]
