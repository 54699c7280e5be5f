//! End to end: `mine --pii report|redact|drop` on a repository of the PII fixture corpus
//! (`pii/tests/fixtures`: values of every kind planted in strings, comments and docstrings
//! of the nine languages, `planted.jsonl`, and look-alikes, `lookalikes.jsonl`). Expected
//! places come from the manifest (every occurrence of a planted value, as the crate's own
//! fixture test defines them), never from the tool's output; tables are read back with
//! pyarrow.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use harness::*;
use serde_json::Value;

fn fixtures() -> PathBuf {
    workspace_root().join("pii/tests/fixtures")
}

fn manifest(name: &str) -> Vec<Value> {
    std::fs::read_to_string(fixtures().join(name))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The corpus files (path in the repository, text).
fn corpus() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e != "jsonl"))
        .map(|p| {
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            (format!("src/{name}"), std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 9, "one fixture per language");
    files
}

/// Every occurrence of a planted value, as (path, kind, start, end), an occurrence inside a
/// longer one's left out (the crate's fixture test's rule).
fn expected(files: &[(String, String)]) -> BTreeSet<(String, String, i64, i64)> {
    let planted = manifest("planted.jsonl");
    let mut out = BTreeSet::new();
    for (path, text) in files {
        let file = path.trim_start_matches("src/");
        let mut all: Vec<(usize, usize, String)> = planted
            .iter()
            .filter(|v| v["file"] == file)
            .flat_map(|v| {
                let value = v["value"].as_str().unwrap();
                let kind = v["kind"].as_str().unwrap().to_string();
                text.match_indices(value)
                    .map(move |(s, _)| (s, s + value.len(), kind.clone()))
                    .collect::<Vec<_>>()
            })
            .collect();
        all.sort_by_key(|(s, e, _)| (*s, std::cmp::Reverse(*e)));
        let mut covered = 0;
        for (s, e, kind) in all {
            if e <= covered {
                continue;
            }
            covered = e;
            out.insert((path.clone(), kind, s as i64, e as i64));
        }
    }
    out
}

struct Fixture {
    tmp: tempfile::TempDir,
    repo: PathBuf,
    files: Vec<(String, String)>,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("planted"));
    let files = corpus();
    for (path, text) in &files {
        r.write(path, text);
    }
    r.commit("planted values");
    let repo = r.path.clone();
    Fixture { tmp, repo, files }
}

impl Fixture {
    fn mine(&self, name: &str, extra: &[&str]) -> PathBuf {
        let out = self.tmp.path().join(name);
        let mut args = vec![
            "mine",
            "--repo",
            self.repo.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--no-history",
        ];
        args.extend_from_slice(extra);
        assert_success(&codemine(&args, &self.tmp.path().join("cache")));
        out
    }
}

fn rows(out: &Path, table: &str) -> Vec<Value> {
    shard_rows(&out.join(table))
}

/// The functions of a run: (path, qualified name, start line, end line, syntax error).
fn functions(out: &Path) -> BTreeSet<(String, String, i64, i64, bool)> {
    rows(out, "callgraph/nodes")
        .iter()
        .filter(|n| n["kind"] != "module" && n["kind"] != "lambda")
        .map(|n| {
            (
                n["path"].as_str().unwrap().to_string(),
                n["qualified_name"].as_str().unwrap_or_default().to_string(),
                n["start_line"].as_i64().unwrap(),
                n["end_line"].as_i64().unwrap(),
                n["syntax_error"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}

#[test]
fn report_lists_every_planted_value_and_changes_nothing() {
    let f = fixture();
    let plain = f.mine("plain", &[]);
    let out = f.mine("report", &["--pii", "report"]);
    let pii = rows(&out, "pii");
    let got: BTreeSet<(String, String, i64, i64)> = pii
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_string(),
                r["kind"].as_str().unwrap().to_string(),
                r["start_byte"].as_i64().unwrap(),
                r["end_byte"].as_i64().unwrap(),
            )
        })
        .collect();
    let want = expected(&f.files);
    let missed: Vec<_> = want.difference(&got).collect();
    let extra: Vec<_> = got.difference(&want).collect();
    assert!(
        missed.is_empty() && extra.is_empty(),
        "missed {missed:?}\nextra {extra:?}"
    );
    assert_eq!(pii.len(), want.len(), "one row per finding");
    // Lines: from the byte offsets, counted here.
    for r in &pii {
        let text = &f.files.iter().find(|(p, _)| p == &r["path"]).unwrap().1;
        let (s, e) = (
            r["start_byte"].as_u64().unwrap() as usize,
            r["end_byte"].as_u64().unwrap() as usize,
        );
        let line = text[..s].matches('\n').count() as i64 + 1;
        assert_eq!(r["start_line"].as_i64().unwrap(), line, "{r}");
        let last = line + text[s..e].matches('\n').count() as i64;
        assert_eq!(r["end_line"].as_i64().unwrap(), last, "{r}");
        assert_eq!(r["action"], "reported");
        assert_eq!(r["repository"], "planted");
        let secret = !matches!(r["kind"].as_str().unwrap(), "email" | "ip_address");
        assert_eq!(
            r["category"],
            if secret { "secret" } else { "personal_data" }
        );
        // Never the value itself.
        let value = &text[s..e];
        assert!(!r.to_string().contains(value), "{r}");
    }
    // The texts are untouched: the same rows as without the step.
    for table in ["csn", "callgraph/nodes", "yabloco"] {
        assert_eq!(rows(&out, table), rows(&plain, table), "{table}");
    }

    // Attribution, on Python's `connect`: its default host is code, the docstring's
    // repetition of it is docstring; the module docstring's address belongs to no function.
    let nodes = rows(&out, "callgraph/nodes");
    let connect = nodes
        .iter()
        .find(|n| n["path"] == "src/planted.py" && n["qualified_name"] == "connect")
        .expect("connect is a node");
    let id = &connect["id"];
    let fields: BTreeSet<(String, String)> = pii
        .iter()
        .filter(|r| r["id"] == *id)
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_string(),
                r["field"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for want in [
        ("ip_address", "code"),
        ("ip_address", "docstring"),
        ("password", "code"),
        ("secret", "code"),
    ] {
        assert!(
            fields.contains(&(want.0.to_string(), want.1.to_string())),
            "{want:?} not in {fields:?}"
        );
    }
    let maintainer = pii
        .iter()
        .find(|r| r["path"] == "src/planted.py" && r["kind"] == "email" && r["start_line"] == 3)
        .expect("the module docstring's address");
    assert!(maintainer["id"].is_null(), "{maintainer}");
    assert_eq!(maintainer["field"], "file");

    // Stats and card.
    let st = stats(&out);
    let p = &st["stages"]["pii"];
    assert_eq!(p["mode"], "report");
    assert_eq!(p["files_scanned"], 9);
    let mut by_kind: BTreeMap<String, u64> = BTreeMap::new();
    for (_, kind, _, _) in &want {
        *by_kind.entry(kind.clone()).or_default() += 1;
    }
    let got_kinds: BTreeMap<String, u64> = serde_json::from_value(p["findings"].clone()).unwrap();
    assert_eq!(got_kinds, by_kind);
    assert_eq!(p["rows"], want.len() as u64);
    assert_eq!(st["stages"]["write"]["pii_rows"], want.len() as u64);
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(
        card.contains("personal and sensitive information (`--pii report`)"),
        "{card}"
    );
    assert!(card.contains("config_name: pii"), "{card}");
    // The section, with one table line per kind found.
    let section = card
        .split("\n## Personal and sensitive information\n")
        .nth(1)
        .expect("the card's section");
    for (kind, n) in &by_kind {
        assert!(
            section
                .lines()
                .any(|l| l.starts_with(&format!("| {kind} |")) && l.ends_with(&format!("| {n} |"))),
            "{kind} {n}: {section}"
        );
    }
    // Without the step: no table, no stage.
    assert!(!plain.join("pii").exists() || rows(&plain, "pii").is_empty());
    assert!(stats(&plain)["stages"].get("pii").is_none());
}

/// Every string of a table's rows, joined.
fn all_text(out: &Path, tables: &[&str]) -> String {
    tables
        .iter()
        .map(|t| serde_json::to_string(&rows(out, t)).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The planted values as they would appear in JSON text (each line of a multi-line one).
fn planted_needles() -> Vec<String> {
    manifest("planted.jsonl")
        .iter()
        .flat_map(|v| {
            v["value"]
                .as_str()
                .unwrap()
                .lines()
                .filter(|l| l.len() >= 8 && !l.starts_with("-----"))
                .map(|l| {
                    let json = serde_json::to_string(l).unwrap();
                    json[1..json.len() - 1].to_string()
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn redact_leaves_no_planted_value_and_keeps_every_function() {
    let f = fixture();
    let plain = f.mine("plain", &[]);
    let out = f.mine("redact", &["--pii", "redact", "--emit", "completion"]);
    let tables = [
        "csn",
        "callgraph/nodes",
        "yabloco",
        "completion/token",
        "completion/line",
    ];
    let text = all_text(&out, &tables);
    let mut left = Vec::new();
    for needle in planted_needles() {
        if text.contains(&needle) {
            left.push(needle);
        }
    }
    assert!(left.is_empty(), "planted values still written: {left:?}");
    // Look-alikes are kept where they were written without the step.
    let before = all_text(&plain, &tables[..3]);
    let after = all_text(&out, &tables[..3]);
    for v in manifest("lookalikes.jsonl") {
        let value = v["value"].as_str().unwrap();
        let json = serde_json::to_string(value).unwrap();
        let needle = &json[1..json.len() - 1];
        assert_eq!(
            before.matches(needle).count(),
            after.matches(needle).count(),
            "look-alike {value:?} ({})",
            v["why"]
        );
    }
    // The same functions on the same lines, with the same syntax errors: redaction keeps
    // every line break and leaves the code parsing as it did.
    assert_eq!(functions(&out), functions(&plain));
    let csn = rows(&out, "csn");
    let connect = csn
        .iter()
        .find(|r| r["func_name"] == "connect" && r["path"] == "src/planted.py")
        .expect("connect is a CSN row");
    let code = connect["code"].as_str().unwrap();
    assert!(code.contains("db_password = \"<PASSWORD>\""), "{code}");
    let tokens: Vec<&str> = connect["code_tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(tokens.contains(&"\"<PASSWORD>\""), "{tokens:?}");
    let doc = connect["docstring"].as_str().unwrap();
    assert!(!doc.contains("93.184.216.34"), "{doc}");
    assert!(rows(&out, "pii").iter().all(|r| r["action"] == "redacted"));
    assert_eq!(stats(&out)["stages"]["pii"]["mode"], "redact");
}

#[test]
fn drop_removes_the_functions_holding_a_secret() {
    let f = fixture();
    let report = f.mine("report", &["--pii", "report"]);
    let out = f.mine("drop", &["--pii", "drop", "--explain"]);
    // The functions a secret was found in, by the report run.
    let holders: BTreeSet<u64> = rows(&report, "pii")
        .iter()
        .filter(|r| r["category"] == "secret" && !r["id"].is_null())
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    // Read off the fixtures: the functions whose code holds a secret (the others are at
    // file level: constants, fields, module docstrings).
    let nodes = rows(&report, "callgraph/nodes");
    let names: BTreeSet<String> = nodes
        .iter()
        .filter(|n| holders.contains(&n["id"].as_u64().unwrap()))
        .map(|n| {
            format!(
                "{}:{}",
                n["path"].as_str().unwrap(),
                n["qualified_name"].as_str().unwrap()
            )
        })
        .collect();
    let want: BTreeSet<String> = [
        "src/Planted.java:Planted.toString",
        "src/planted.c:main",
        "src/planted.go:Token",
        "src/planted.js:publish",
        "src/planted.py:connect",
        "src/planted.rb:redis_url",
        "src/planted.ts:check",
    ]
    .map(String::from)
    .into();
    assert_eq!(names, want);
    let dropped: BTreeSet<u64> = rows(&out, "dropped")
        .iter()
        .filter(|r| r["rule"] == "pii")
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    assert_eq!(dropped, holders);
    let csn_ids: BTreeSet<u64> = rows(&out, "csn")
        .iter()
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    assert!(csn_ids.is_disjoint(&holders));
    for n in rows(&out, "callgraph/nodes") {
        let id = n["id"].as_u64().unwrap();
        if holders.contains(&id) {
            assert_eq!(n["dropped_by"], "pii", "{n}");
        }
    }
    let st = stats(&out);
    assert_eq!(
        st["stages"]["filter"]["removed"]["pii"],
        holders.len() as u64
    );
    assert_eq!(
        st["stages"]["pii"]["functions_dropped"],
        holders.len() as u64
    );
    // The rows of the kept functions are redacted too.
    let text = all_text(&out, &["csn", "yabloco"]);
    for needle in planted_needles() {
        assert!(!text.contains(&needle), "{needle} still written");
    }
    let actions: BTreeSet<String> = rows(&out, "pii")
        .iter()
        .map(|r| r["action"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(actions, ["dropped", "redacted"].map(String::from).into());
}

#[test]
fn the_allow_list_and_a_table_without_the_flag() {
    let f = fixture();
    let config = f.tmp.path().join("filters.toml");
    std::fs::write(
        &config,
        "[pii]\nallow = [\"jane.doe@acme-corp.io\"]\nskip_kinds = [\"ip_address\"]\n",
    )
    .unwrap();
    let cfg = config.to_str().unwrap();
    let out = f.mine("allowed", &["--pii", "report", "--filter-config", cfg]);
    let pii = rows(&out, "pii");
    assert!(!pii.is_empty());
    let text = &f
        .files
        .iter()
        .find(|(p, _)| p == "src/planted.py")
        .unwrap()
        .1;
    for r in &pii {
        assert_ne!(r["kind"], "ip_address", "{r}");
        if r["path"] == "src/planted.py" {
            let (s, e) = (
                r["start_byte"].as_u64().unwrap() as usize,
                r["end_byte"].as_u64().unwrap() as usize,
            );
            assert_ne!(&text[s..e], "jane.doe@acme-corp.io");
        }
    }
    // A [pii] table without --pii would be ignored silently: a usage error instead.
    let res = codemine(
        &[
            "mine",
            "--repo",
            f.repo.to_str().unwrap(),
            "--out",
            f.tmp.path().join("refused").to_str().unwrap(),
            "--filter-config",
            cfg,
        ],
        &f.tmp.path().join("cache"),
    );
    assert_eq!(res.status.code(), Some(2), "{res:?}");
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(err.contains("[pii]") && err.contains("--pii"), "{err}");
}
