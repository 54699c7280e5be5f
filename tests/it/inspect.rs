//! `codemine inspect`: the tables of an output folder, a table's schema, row count and first
//! rows, checked against pyarrow reading the same files; its reads are bounded.

use std::path::Path;

use harness::*;
use serde_json::Value;

const PY: &str = "def area(r):\n    \"\"\"Area of a circle of radius r.\"\"\"\n    return 3.14159 * r * r\n\n\ndef perimeter(r):\n    \"\"\"Perimeter of a circle of radius r, a much longer docstring than the width of a value that inspect shows by default.\"\"\"\n    return 2 * 3.14159 * r\n\n\ndef nodoc(x):\n    return x\n";

fn inspect(args: &[&str], tmp: &Path) -> (Option<i32>, String, String) {
    let mut all = vec!["inspect"];
    all.extend_from_slice(args);
    let o = codemine(&all, &tmp.join("cache"));
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// pyarrow's type names, as `inspect` prints them (lists without their item's name).
fn arrow_type(t: &str) -> String {
    t.replace("list<item: ", "list<")
}

#[test]
fn inspect_shows_what_pyarrow_reads() {
    let m = Mined::files("circles", &[("geo.py", PY)], &[]);
    let tmp = m.out.parent().unwrap();
    let out = m.out.to_str().unwrap();

    // The output folder: every table with its rows, as pyarrow counts them.
    let (code, text, err) = inspect(&[out], tmp);
    assert_eq!(code, Some(0), "{err}");
    for (table, dir, prefix) in [
        ("csn", "csn", ""),
        ("yabloco", "yabloco", ""),
        ("callgraph_nodes", "callgraph", "nodes-"),
        ("callgraph_edges", "callgraph", "edges-"),
        ("repositories", "repositories", ""),
    ] {
        let shards = read_shards(&m.out.join(dir));
        let rows: u64 = shards
            .as_object()
            .unwrap()
            .iter()
            .filter(|(name, _)| name.starts_with(prefix))
            .map(|(_, s)| s["num_rows"].as_u64().unwrap())
            .sum();
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(table))
            .unwrap_or_else(|| panic!("no line for {table}:\n{text}"));
        let unit = if rows == 1 { "row" } else { "rows" };
        assert!(line.contains(&format!(" {rows} {unit} ")), "{line}");
    }

    // A table: its schema and first rows, as pyarrow reads them.
    let (code, text, err) = inspect(&[out, "csn", "--rows", "2"], tmp);
    assert_eq!(code, Some(0), "{err}");
    let shards = read_shards(&m.out.join("csn"));
    let (file, shard) = shards.as_object().unwrap().iter().next().unwrap();
    let rows = shard["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert!(
        text.starts_with("csn: 1 file, 2 rows ("),
        "{}",
        text.lines().next().unwrap()
    );
    let columns: Vec<(String, String)> = text
        .lines()
        .skip_while(|l| !l.starts_with("columns ("))
        .skip(1)
        .take_while(|l| l.starts_with("  ") && !l.starts_with("  ["))
        .map(|l| {
            let mut parts = l.split_whitespace();
            let name = parts.next().unwrap().to_string();
            let ty = parts.next().unwrap().to_string();
            (name, ty)
        })
        .collect();
    let want: Vec<(String, String)> = shard["schema"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f[0].as_str().unwrap().to_string(),
                arrow_type(f[1].as_str().unwrap()),
            )
        })
        .collect();
    assert_eq!(columns, want);
    assert!(text.contains(&format!(
        "first 2 rows of {}",
        m.out.join("csn").join(file).display()
    )));
    for (i, row) in rows.iter().enumerate() {
        let block: Vec<&str> = text
            .split(&format!("  [{i}]\n"))
            .nth(1)
            .unwrap()
            .lines()
            .take(want.len())
            .collect();
        let field = |name: &str| {
            block
                .iter()
                .find_map(|l| l.trim_start().strip_prefix(name).map(str::trim))
                .unwrap_or_else(|| panic!("no {name} in row {i}: {block:?}"))
        };
        assert_eq!(
            field("func_name"),
            format!("\"{}\"", row["func_name"].as_str().unwrap())
        );
        assert_eq!(field("repo"), "\"circles\"");
        // A value over the width (80 characters) is cut, and marked so.
        let doc = row["docstring"].as_str().unwrap();
        if doc.chars().count() + 2 > 80 {
            let shown = field("docstring");
            assert!(
                shown.ends_with('…') && shown.chars().count() == 81,
                "{shown}"
            );
            assert!(doc.starts_with(&shown[1..shown.len() - '…'.len_utf8()]));
        } else {
            assert_eq!(field("docstring"), format!("\"{doc}\""));
        }
        let tokens = row["code_tokens"].as_array().unwrap();
        assert!(
            field("code_tokens").starts_with(&format!("[{} items: \"def\"", tokens.len())),
            "{}",
            field("code_tokens")
        );
    }

    // A file, and a table folder holding two tables.
    let nodes = m.out.join("callgraph");
    let first = std::fs::read_dir(&nodes)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains("nodes-"))
        .unwrap();
    let (code, text, err) = inspect(&[first.to_str().unwrap(), "-n", "0"], tmp);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        text.contains("qualified_name") && !text.contains("first "),
        "{text}"
    );
    let (code, text, _) = inspect(&[nodes.to_str().unwrap()], tmp);
    assert_eq!(code, Some(0));
    assert!(
        text.contains("callgraph_nodes") && text.contains("callgraph_edges"),
        "{text}"
    );
    let (code, text, _) = inspect(&[out, "nodes", "-n", "1"], tmp);
    assert_eq!(code, Some(0));
    assert!(text.starts_with("callgraph_nodes: 1 file, "), "{text}");
}

#[test]
fn inspect_errors_name_the_thing_and_the_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let (code, _, err) = inspect(&[t.join("missing").to_str().unwrap()], t);
    assert_eq!(code, Some(1));
    assert!(err.contains("missing"), "{err}");

    let (code, _, err) = inspect(&[t.to_str().unwrap()], t);
    assert_eq!(code, Some(2));
    assert!(err.contains("no Parquet files"), "{err}");

    std::fs::write(t.join("notes.parquet"), "not parquet at all").unwrap();
    let (code, _, err) = inspect(&[t.join("notes.parquet").to_str().unwrap()], t);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("notes.parquet: not a readable Parquet file"),
        "{err}"
    );

    // A footer that claims 1 GiB is refused before it is read.
    let mut bytes = b"PAR1".to_vec();
    bytes.extend_from_slice(&[0u8; 64]);
    bytes.extend_from_slice(&(1u32 << 30).to_le_bytes());
    bytes.extend_from_slice(b"PAR1");
    std::fs::write(t.join("huge.parquet"), bytes).unwrap();
    let (code, _, err) = inspect(&[t.join("huge.parquet").to_str().unwrap()], t);
    assert_eq!(code, Some(2));
    assert!(err.contains("over the limit"), "{err}");

    let m = Mined::files("demo", &[("a.py", PY)], &[]);
    let (code, _, err) = inspect(&[m.out.to_str().unwrap(), "bogus"], t);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("no table `bogus`") && err.contains("csn"),
        "{err}"
    );
    let (code, _, err) = inspect(&[m.out.to_str().unwrap(), "csn", "--rows", "5000"], t);
    assert_eq!(code, Some(2), "{err}");
    let _: Value = stats(&m.out);
}
