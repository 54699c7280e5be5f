//! End to end: the dataset card declares every table as a config, and the real `datasets`
//! library (`load_dataset(OUT, name)`, offline) loads each with the row counts pyarrow reads
//! from the same files, without a warning about the card (datasets 5.2 warns when a split of
//! `dataset_info` lacks `name`, `num_examples` or `num_bytes`, and ignores the field).

use harness::*;

const PY: &str = "import os\n\n\ndef join(a, b):\n    \"\"\"Join two paths.\"\"\"\n    return os.path.join(a, b)\n\n\ndef test_join():\n    \"\"\"A test.\"\"\"\n    assert join('a', 'b')\n";

#[test]
fn every_table_is_a_config_that_datasets_loads() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("cardfx"));
    r.write("LICENSE", "SPDX-License-Identifier: MIT\n")
        .write(
            "pyproject.toml",
            "[project]\nname = \"x\"\nlicense = \"MIT\"\n",
        )
        .write("pkg/a.py", PY)
        .write("pkg/b.py", PY.replace("join", "split"));
    r.commit("one");
    let out = mine_into(
        &r.path,
        tmp.path(),
        &[
            "--emit",
            "completion",
            "--emit",
            "repo-completion",
            "--completion-snapshot",
            "--repo-completion-min-prefix",
            "0",
            "--explain",
            "--preset",
            "csn",
        ],
    );
    let got = python_json(
        r#"
import glob, json, os, sys
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HOME"] = sys.argv[2]
import logging
import datasets, pyarrow.parquet as pq
warned = []
class Keep(logging.Handler):
    def emit(self, record):
        warned.append(record.getMessage())
logging.getLogger("datasets").addHandler(Keep(level=logging.WARNING))
out = sys.argv[1]
card = open(os.path.join(out, "README.md")).read().split("---")[1]
names = [l.split(": ", 1)[1] for l in card.splitlines() if l.startswith("- config_name: ")]
res = {}
for name in names:
    d = datasets.load_dataset(out, name)
    res[name] = {split: ds.num_rows for split, ds in d.items()}
paths = {}
for l in card.splitlines():
    if l.strip().startswith("path: "):
        p = l.strip()[6:]
        paths[p] = sum(pq.read_metadata(f).num_rows for f in glob.glob(os.path.join(out, p)))
# The split's bytes as pyarrow counts the table's buffers.
nbytes = {}
for f in glob.glob(os.path.join(out, "csn", "*.parquet")):
    split = os.path.basename(f).split("-")[0]
    nbytes[split] = nbytes.get(split, 0) + pq.read_table(f).nbytes
info = datasets.load_dataset_builder(out, "csn").info
print(json.dumps({"loaded": res, "paths": paths, "warnings": warned, "nbytes": nbytes,
                  "info": {k: [v.num_examples, v.num_bytes] for k, v in (info.splits or {}).items()}}))
"#,
        &[
            out.to_str().unwrap(),
            tmp.path().join("hf").to_str().unwrap(),
        ],
    );
    let loaded = got["loaded"].as_object().unwrap();
    let mut names: Vec<&str> = loaded.keys().map(String::as_str).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "callgraph_edges",
            "callgraph_nodes",
            "completion_line",
            "completion_repo",
            "completion_snapshot",
            "completion_token",
            "csn",
            "dropped",
            "repositories",
            "yabloco"
        ]
    );
    let s = stats(&out);
    let split = s["repositories"][0]["partition"].as_str().unwrap();
    let rows = |name: &str, split: &str| loaded[name][split].as_u64().unwrap();
    let w = &s["stages"]["write"];
    assert_eq!(rows("csn", split), w["csn_rows"][split].as_u64().unwrap());
    assert_eq!(
        rows("yabloco", "train"),
        w["yabloco_rows"].as_u64().unwrap()
    );
    assert_eq!(
        rows("callgraph_nodes", "train"),
        w["callgraph_nodes"].as_u64().unwrap()
    );
    assert_eq!(
        rows("callgraph_edges", "train"),
        w["callgraph_edges"].as_u64().unwrap()
    );
    assert_eq!(
        rows("dropped", "train"),
        w["dropped_rows"].as_u64().unwrap()
    );
    assert_eq!(rows("repositories", "train"), 1);
    assert_eq!(rows("completion_token", split), 2);
    // Both files in the snapshot; the repository-level rows as the step counted them.
    assert_eq!(rows("completion_snapshot", split), 2);
    let repo_rows: u64 = s["stages"]["repo_completion"]["rows"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert!(repo_rows > 0);
    assert_eq!(rows("completion_repo", split), repo_rows);
    let paths = got["paths"].as_object().unwrap();
    assert_eq!(
        paths[&format!("completion/line-{split}-*.parquet")].as_u64(),
        Some(rows("completion_line", split))
    );
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(card.contains("| MIT |"), "the card lists the license");
    // Issue 34, item 7: no warning, and datasets reads the CSN splits from the card with
    // their row counts and pyarrow's byte counts.
    assert_eq!(got["warnings"], serde_json::json!([]), "{card}");
    assert_eq!(
        got["info"][split],
        serde_json::json!([rows("csn", split), got["nbytes"][split]])
    );
}
