//! End to end: the dataset card declares every table as a config, and the real `datasets`
//! library (`load_dataset(OUT, name)`, offline) loads each with the row counts pyarrow reads
//! from the same files.

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
import datasets, pyarrow.parquet as pq
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
print(json.dumps({"loaded": res, "paths": paths}))
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
}
