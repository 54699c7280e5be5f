//! The filter stage end to end: presets and rules from flags and from a TOML file, the
//! funnel in stats.json, `--explain`, default excludes, date rules that only blame the
//! survivors, and usage errors before any work. Expected sets come from the rules as the
//! issue and the presets' sources state them, applied by hand to the fixture below.

use std::path::Path;
use std::process::Command;

use harness::{binary, mine_into, read_graph, shard_rows, stats, RepoBuilder};
use serde_json::Value;

/// A Python and a Java file, each function built to meet or miss one rule.
fn fixture(path: &Path) -> RepoBuilder {
    let mut r = RepoBuilder::init(path);
    r.write(
        "pkg/core.py",
        r#"def parse_config(text):
    """Parse the configuration text into a dictionary of settings."""
    data = {}
    for line in text.splitlines():
        data[line] = True
    return data


def tiny(x):
    """Return nothing at all, for callers."""


def short_doc(x):
    """Short."""
    y = x * 2
    return y


def test_parse(x):
    """Check that parse works on simple input text."""
    y = parse_config(x)
    return y


class Store:
    def __init__(self, path):
        """Create a store rooted at the given path."""
        self.path = path
        self.items = []

    def __repr__(self):
        """Show the store and its path for debugging."""
        text = "Store(" + self.path
        return text + ")"
"#,
    )
    .write(
        "src/main/java/org/ex/Box.java",
        r#"package org.ex;

public class Box {
    private int v;

    /** Creates a box holding the given value. */
    public Box(int v) {
        this.v = v;
        check();
    }

    /** Returns the text form of this box for logs. */
    public String toString() {
        String s = "Box" + v;
        return s;
    }

    /** Adds the given amount to the value held. */
    public void add(int n) {
        v += n;
        check();
    }

    private void check() {
        if (v < 0) {
            v = 0;
        }
    }
}
"#,
    )
    .write(
        "vendor/lib/util.py",
        "def helper(a):\n    \"\"\"Vendored helper that doubles its argument value.\"\"\"\n    b = a * 2\n    return b\n",
    );
    r.commit("initial");
    r
}

fn names_of(rows: &[Value], key: &str) -> Vec<String> {
    let mut v: Vec<String> = rows
        .iter()
        .map(|r| r[key].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn nothing_configured_filters_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    fixture(&tmp.path().join("fx"));
    let out = mine_into(&tmp.path().join("fx"), tmp.path(), &[]);
    let s = stats(&out);
    let f = &s["stages"]["filter"];
    assert_eq!(f["active"], false);
    assert_eq!(f["input"], f["kept"]);
    let graph = read_graph(&out);
    let nodes = graph["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 11);
    assert!(nodes.iter().all(|n| n["dropped_by"].is_null()));
    // YABLoCo keeps every function; CSN every function with a docstring (not Box.check).
    assert_eq!(shard_rows(&out.join("yabloco")).len(), 11);
    assert_eq!(shard_rows(&out.join("csn")).len(), 10);
}

#[test]
fn csn_preset_applies_codesearchnet_rules_and_explains() {
    let tmp = tempfile::tempdir().unwrap();
    fixture(&tmp.path().join("fx"));
    let out = mine_into(
        &tmp.path().join("fx"),
        tmp.path(),
        &["--preset", "csn", "--explain"],
    );
    // Kept: a docstring summary of >= 3 tokens, >= 3 lines, no "test" in the name, not a
    // constructor or standard method, not vendored.
    let csn = shard_rows(&out.join("csn"));
    assert_eq!(
        names_of(&csn, "func_name"),
        vec!["Box.add", "parse_config"],
        "{csn:#?}"
    );
    // Every removed function is in dropped/, with the first rule that removed it.
    let dropped = shard_rows(&out.join("dropped"));
    let mut got: Vec<(String, String)> = dropped
        .iter()
        .map(|r| {
            (
                r["qualified_name"].as_str().unwrap().to_string(),
                r["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    got.sort();
    let want = [
        ("Box.Box", "special_method"),
        ("Box.check", "docstring_tokens"),
        ("Box.toString", "special_method"),
        ("Store.__init__", "special_method"),
        ("Store.__repr__", "special_method"),
        ("helper", "path_exclude"),
        ("short_doc", "docstring_tokens"),
        ("test_parse", "test_in_name"),
        ("tiny", "lines"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(got, want);
    // The funnel: overall, per language and per repository, in stats.json.
    let s = stats(&out);
    let f = &s["stages"]["filter"];
    assert_eq!(
        (f["input"].as_u64(), f["kept"].as_u64()),
        (Some(11), Some(2))
    );
    assert_eq!(f["removed"]["special_method"], 4);
    assert_eq!(f["by_language"]["java"]["kept"], 1);
    assert_eq!(f["by_language"]["python"]["removed"]["path_exclude"], 1);
    assert_eq!(f["by_repository"]["fx"]["input"], 11);
    // The call graph keeps every function and says which rule removed it.
    let graph = read_graph(&out);
    let nodes = graph["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 11);
    let test_parse = nodes
        .iter()
        .find(|n| n["qualified_name"] == "test_parse")
        .unwrap();
    assert_eq!(test_parse["dropped_by"], "test_in_name");
    // Only survivors of the cheap rules were dated.
    assert_eq!(s["stages"]["enrich"]["history"]["functions"], 2);
    assert!(test_parse["last_commit"].is_null());
}

#[test]
fn toml_config_equals_flags_and_flags_win() {
    let tmp = tempfile::tempdir().unwrap();
    fixture(&tmp.path().join("fx"));
    let cfg = tmp.path().join("filter.toml");
    std::fs::write(
        &cfg,
        "languages = [\"python\"]\nmin_lines = 4\nrequire_docstring = true\ndefault_excludes = false\n",
    )
    .unwrap();
    let by_file = mine_into(
        &tmp.path().join("fx"),
        &tmp.path().join("a"),
        &["--filter-config", cfg.to_str().unwrap()],
    );
    let by_flags = mine_into(
        &tmp.path().join("fx"),
        &tmp.path().join("b"),
        &[
            "--languages",
            "python",
            "--min-lines",
            "4",
            "--require-docstring",
            "--no-default-excludes",
        ],
    );
    let a = names_of(&shard_rows(&by_file.join("yabloco")), "outputs");
    let b = names_of(&shard_rows(&by_flags.join("yabloco")), "outputs");
    assert_eq!(a, b);
    // Python functions of >= 4 lines with a docstring, the vendored one included.
    let rows = shard_rows(&by_file.join("yabloco"));
    let mut fnames: Vec<&str> = rows
        .iter()
        .map(|r| r["meta"]["fname"].as_str().unwrap())
        .collect();
    fnames.sort();
    assert_eq!(
        fnames,
        vec![
            "Store.__init__",
            "Store.__repr__",
            "helper",
            "parse_config",
            "short_doc",
            "test_parse"
        ]
    );
    // A flag overrides the file's value.
    let over = mine_into(
        &tmp.path().join("fx"),
        &tmp.path().join("c"),
        &["--filter-config", cfg.to_str().unwrap(), "--min-lines", "6"],
    );
    let rows = shard_rows(&over.join("yabloco"));
    assert_eq!(rows.len(), 1); // parse_config has 6 lines
}

#[test]
fn dates_filter_on_last_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = fixture(&tmp.path().join("fx"));
    // A second commit, a day later, edits parse_config only.
    let text = std::fs::read_to_string(r.path.join("pkg/core.py")).unwrap();
    r.write(
        "pkg/core.py",
        text.replace("data[line] = True", "data[line] = 1"),
    );
    r.commit("edit parse_config");
    // EPOCH is 2024-01-15; the edit is dated 2024-01-16.
    let out = mine_into(
        &tmp.path().join("fx"),
        tmp.path(),
        &["--since", "2024-01-16", "--languages", "python"],
    );
    let rows = shard_rows(&out.join("yabloco"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["meta"]["fname"], "parse_config");
    assert_eq!(rows[0]["meta"]["last_commit"], "16.01.2024");
    let out2 = mine_into(
        &tmp.path().join("fx"),
        &tmp.path().join("u"),
        &[
            "--until",
            "2024-01-15",
            "--languages",
            "python",
            "--no-default-excludes",
        ],
    );
    // The 7 Python functions (the vendored one too) but the edited one.
    assert_eq!(shard_rows(&out2.join("yabloco")).len(), 6);
    let f = &stats(&out2)["stages"]["filter"];
    assert_eq!(f["removed"]["until"], 1);
}

#[test]
fn bad_values_are_usage_errors_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    fixture(&tmp.path().join("fx"));
    let cfg = tmp.path().join("bad.toml");
    std::fs::write(&cfg, "since = \"2024-02-30\"\n").unwrap();
    let out = tmp.path().join("out");
    for args in [
        vec!["--since", "yesterday"],
        vec!["--min-lines", "three"],
        vec!["--filter-config", cfg.to_str().unwrap()],
        vec!["--preset", "nope"],
    ] {
        let res = Command::new(binary())
            .args(["mine", "--repo"])
            .arg(tmp.path().join("fx"))
            .arg("--out")
            .arg(&out)
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&res.stderr);
        assert_eq!(res.status.code(), Some(2), "{args:?}: {err}");
        let named = if args[0] == "--filter-config" {
            "since"
        } else {
            args[0]
        };
        assert!(err.contains(named), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?} started work");
    }
}
