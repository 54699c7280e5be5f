# Agreement of `codemine mine --run-tests`'s node columns with a pytest-cov report made by
# hand in the sandbox (coverage.py JSON with show_contexts, as
# `testrun/examples/bench_testrun.rs --reference --keep-reference FILE` writes it): per
# function node of src/, test_cov_hits, covered_lines and coverable_lines against the
# report's executed and missing lines in its span (coverage.py: 1 hit per executed line),
# and covering_tests against the report's contexts of those lines.
#
#   python examples/run_tests_agreement.py OUT ref.json
import json, sys
import pyarrow.parquet as pq

out, ref = sys.argv[1], json.load(open(sys.argv[2]))
files = ref["files"]
nodes = pq.read_table(out + "/callgraph/nodes").to_pylist()
n = same_hits = same_cov = same_coverable = same_tests = 0
diff = []
for r in nodes:
    if r["kind"] in ("module", "lambda") or not r["path"].startswith("src/"):
        continue
    f = files.get(r["path"])
    if f is None:
        continue
    n += 1
    lo, hi = r["start_line"], r["end_line"]
    executed = [l for l in f["executed_lines"] if lo <= l <= hi]
    missing = [l for l in f["missing_lines"] if lo <= l <= hi]
    hits = len(executed)  # coverage.py: 1 per executed line
    same_hits += r["test_cov_hits"] == hits
    same_cov += r["covered_lines"] == len(executed)
    same_coverable += r["coverable_lines"] == len(executed) + len(missing)
    tests = set()
    for l in executed:
        for c in f.get("contexts", {}).get(str(l), []):
            if c:
                tests.add(c.split("|")[0])
    ours = set(r["covering_tests"] or [])
    same_tests += ours == tests
    if ours != tests or r["test_cov_hits"] != hits:
        diff.append((r["path"], r["qualified_name"], r["test_cov_hits"], hits, len(ours), len(tests), sorted(ours ^ tests)[:3]))
print(f"functions of src/ in the report: {n}")
print(f"test_cov_hits equal: {same_hits} ({100*same_hits/n:.2f}%); covered_lines equal: {same_cov}; coverable_lines equal: {same_coverable}")
print(f"covering_tests equal to the report's contexts: {same_tests} ({100*same_tests/n:.2f}%)")
for d in diff[:10]:
    print("differs:", d)
