//! Issue 39: one table per folder. A fixture mined with every output switched on; every
//! table folder is read whole, as users pass it, by pyarrow (`pyarrow.dataset`), pandas
//! (`read_parquet(folder)`), polars and DuckDB, and each returns exactly that table: the
//! rows stats.json counts and the columns of the table's own files. `datasets` loads every
//! config of the card with the same counts. An output in the layout before issue 39 (tables
//! side by side) is refused by `eval`, `report`, `contamination` and `inspect` with the new
//! layout named.

use std::path::Path;

use harness::*;
use serde_json::Value;

const PY: &str = "import os\n\n\ndef join(a, b):\n    \"\"\"Join two paths.\"\"\"\n    return os.path.join(a, b)\n\n\ndef test_join():\n    \"\"\"A test.\"\"\"\n    assert join('a', 'b')\n\n\ndef nodoc(x):\n    return join(x, x)\n";

/// (card config, folder) of every table, as docs/design.md lists them.
const TABLES: [(&str, &str); 12] = [
    ("csn", "csn"),
    ("yabloco", "yabloco"),
    ("callgraph_nodes", "callgraph/nodes"),
    ("callgraph_edges", "callgraph/edges"),
    ("repositories", "repositories"),
    ("dropped", "dropped"),
    ("dedup_bands", "dedup/bands"),
    ("dedup_clusters", "dedup/clusters"),
    ("completion_token", "completion/token"),
    ("completion_line", "completion/line"),
    ("completion_repo", "completion/repo"),
    ("completion_snapshot", "completion/snapshot"),
];

const READ: &str = r#"
import glob, json, os, sys
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HOME"] = sys.argv[2]
import duckdb, pandas as pd, polars as pl, pyarrow.dataset as ds, pyarrow.parquet as pq
import datasets
out, tables = sys.argv[1], json.loads(sys.argv[3])
res = {}
for name, d in tables.items():
    folder = os.path.join(out, d)
    files = sorted(glob.glob(os.path.join(folder, "*.parquet")))
    e = {"files": len(files), "schema": pq.read_schema(files[0]).names if files else None}
    t = ds.dataset(folder, format="parquet").to_table()
    e["pyarrow"] = [t.num_rows, t.column_names]
    p = pd.read_parquet(folder)
    e["pandas"] = [len(p), list(p.columns)]
    f = pl.read_parquet(folder)
    e["polars"] = [f.height, f.columns]
    q = duckdb.sql(f"select * from read_parquet('{folder}/*.parquet')")
    n = duckdb.sql(f"select count(*) from read_parquet('{folder}/*.parquet')").fetchall()[0][0]
    e["duckdb"] = [n, q.columns]
    res[name] = e
card = open(os.path.join(out, "README.md")).read().split("---")[1]
configs = [l.split(": ", 1)[1] for l in card.splitlines() if l.startswith("- config_name: ")]
loaded = {}
for name in configs:
    d = datasets.load_dataset(out, name)
    loaded[name] = {"rows": sum(s.num_rows for s in d.values()),
                    "columns": sorted({c for s in d.values() for c in s.column_names})}
print(json.dumps({"tables": res, "datasets": loaded}))
"#;

fn mine_everything(tmp: &Path) -> std::path::PathBuf {
    let repo = tmp.join("tablesfx");
    if !repo.exists() {
        let mut r = RepoBuilder::init(&repo);
        r.write("LICENSE", "SPDX-License-Identifier: MIT\n")
            .write("pkg/a.py", PY)
            // An exact copy, so that dedup has a cluster to write.
            .write("pkg/copy.py", PY)
            .write("pkg/b.py", PY.replace("join", "split"));
        r.commit("one");
    }
    mine_into(
        &repo,
        tmp,
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
    )
}

fn sum(v: &Value) -> u64 {
    v.as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum()
}

#[test]
fn every_table_folder_reads_as_exactly_its_table() {
    let tmp = tempfile::tempdir().unwrap();
    let out = mine_everything(tmp.path());
    let s = stats(&out);
    let w = &s["stages"]["write"];
    let n = |v: &Value| v.as_u64().unwrap();
    let mined = s["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "mined")
        .count() as u64;
    let want: Vec<(&str, u64)> = vec![
        ("csn", sum(&w["csn_rows"])),
        ("yabloco", n(&w["yabloco_rows"])),
        ("callgraph_nodes", n(&w["callgraph_nodes"])),
        ("callgraph_edges", n(&w["callgraph_edges"])),
        ("repositories", mined),
        ("dropped", n(&w["dropped_rows"])),
        ("dedup_bands", n(&w["band_rows"])),
        (
            "dedup_clusters",
            n(&s["stages"]["dedup"]["cluster_members"]),
        ),
        (
            "completion_token",
            sum(&s["stages"]["completion"]["token_rows"]),
        ),
        (
            "completion_line",
            sum(&s["stages"]["completion"]["line_rows"]),
        ),
        (
            "completion_repo",
            sum(&s["stages"]["repo_completion"]["rows_by_split"]),
        ),
        (
            "completion_snapshot",
            n(&s["stages"]["repo_completion"]["snapshot_files"]),
        ),
    ];
    let dirs: serde_json::Map<String, Value> = TABLES
        .iter()
        .map(|(name, dir)| (name.to_string(), Value::from(*dir)))
        .collect();
    let got = python_json(
        READ,
        &[
            out.to_str().unwrap(),
            tmp.path().join("hf").to_str().unwrap(),
            &Value::Object(dirs).to_string(),
        ],
    );
    let mut schemas = Vec::new();
    for (name, rows) in &want {
        let t = &got["tables"][*name];
        // Not vacuous: every table has rows, and files of its own.
        assert!(*rows > 0, "{name}: no rows in stats.json");
        assert!(n(&t["files"]) > 0, "{name}: {t}");
        let schema = t["schema"].clone();
        for reader in ["pyarrow", "pandas", "polars", "duckdb"] {
            assert_eq!(
                t[reader],
                serde_json::json!([rows, schema]),
                "{name} read by {reader}"
            );
        }
        // As `datasets` loads the card's config of the table.
        let d = &got["datasets"][*name];
        assert_eq!(n(&d["rows"]), *rows, "{name} loaded by datasets: {d}");
        let mut columns: Vec<&str> = schema
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        columns.sort();
        assert_eq!(d["columns"], serde_json::json!(columns), "{name}");
        schemas.push(schema);
    }
    // Every config of the card is a table of the layout, and back.
    let configs: Vec<&String> = got["datasets"].as_object().unwrap().keys().collect();
    assert_eq!(configs.len(), TABLES.len(), "{configs:?}");
    // The folders that held two tables now hold tables of different schemas apart.
    assert_ne!(schemas[2], schemas[3]);
    assert_ne!(schemas[6], schemas[7]);
    assert_ne!(schemas[8], schemas[9]);
    // The group folders hold folders only: no file beside the tables.
    for group in ["callgraph", "dedup"] {
        for e in std::fs::read_dir(out.join(group)).unwrap() {
            let e = e.unwrap();
            assert!(e.file_type().unwrap().is_dir(), "{:?}", e.path());
        }
    }
}

/// Moves every grouped table's files up into its group folder, as outputs were written
/// before issue 39 (`callgraph/nodes-*.parquet` beside `callgraph/edges-*.parquet`).
fn to_old_layout(out: &Path) {
    for (_, dir) in TABLES {
        let Some((group, _)) = dir.split_once('/') else {
            continue;
        };
        let table = out.join(dir);
        for e in std::fs::read_dir(&table).unwrap() {
            let p = e.unwrap().path();
            std::fs::rename(&p, out.join(group).join(p.file_name().unwrap())).unwrap();
        }
        std::fs::remove_dir(&table).unwrap();
    }
}

#[test]
fn an_output_in_the_old_layout_is_refused_with_the_new_one_named() {
    let tmp = tempfile::tempdir().unwrap();
    let out = mine_everything(tmp.path());
    // The readers accept the output as written.
    let cache = tmp.path().join("cache");
    let bench = tmp.path().join("bench.jsonl");
    std::fs::write(
        &bench,
        serde_json::json!({"task_id": "b/1", "text": "Join.", "code": PY, "test_list": []})
            .to_string()
            + "\n",
    )
    .unwrap();
    let o = out.to_str().unwrap();
    let commands: [Vec<&str>; 4] = [
        vec![
            "eval",
            o,
            "--task",
            "summarization",
            "--split",
            "all",
            "--prediction-column",
            "docstring",
        ],
        vec!["report", o],
        vec!["contamination", bench.to_str().unwrap(), "--against", o],
        vec!["inspect", o],
    ];
    for args in &commands {
        assert_success(&codemine(args, &cache));
    }
    to_old_layout(&out);
    for args in &commands {
        let res = codemine(args, &cache);
        let err = String::from_utf8_lossy(&res.stderr);
        assert!(!res.status.success(), "{args:?} read the old layout: {err}");
        assert!(
            err.contains("in the old layout")
                && err.contains("one folder per table (callgraph/nodes/, callgraph/edges/)"),
            "{args:?}: {err}"
        );
    }
    // A folder of two tables side by side, given directly, is refused as well.
    let mixed = |group: &str| {
        std::fs::read_dir(out.join(group))
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".parquet"))
            .count()
    };
    assert!(mixed("callgraph") > 0 && mixed("dedup") > 0 && mixed("completion") > 0);
    let graph = out.join("callgraph");
    for args in [
        vec!["inspect", graph.to_str().unwrap()],
        vec![
            "eval",
            graph.to_str().unwrap(),
            "--prediction-column",
            "name",
        ],
    ] {
        let res = codemine(&args, &cache);
        let err = String::from_utf8_lossy(&res.stderr);
        assert!(!res.status.success(), "{args:?}");
        assert!(
            err.contains("2 tables side by side (edges-*, nodes-*)"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn mining_again_into_an_old_layout_folder_replaces_its_files() {
    let tmp = tempfile::tempdir().unwrap();
    let out = mine_everything(tmp.path());
    let want: Vec<(String, Vec<u8>)> = shards(&out);
    to_old_layout(&out);
    // Only the tables that always had folders of their own are still in place.
    assert!(shards(&out)
        .iter()
        .all(|(p, _)| p.matches('/').count() == 1));
    mine_everything(tmp.path());
    // The same files in their folders, and nothing left beside them.
    assert_eq!(shards(&out), want);
    for group in ["callgraph", "dedup", "completion"] {
        for e in std::fs::read_dir(out.join(group)).unwrap() {
            let e = e.unwrap();
            assert!(
                e.file_type().unwrap().is_dir(),
                "left behind: {:?}",
                e.path()
            );
        }
    }
}

/// Every Parquet file in the table folders of `out`, with its bytes, by relative path.
fn shards(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for (_, dir) in TABLES {
        let Ok(entries) = std::fs::read_dir(out.join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(out).unwrap().to_string_lossy().into_owned();
            files.push((rel, std::fs::read(&p).unwrap()));
        }
    }
    files.sort();
    files
}
