//! End to end: `mine --emit completion` writes CodeXGLUE's code-completion sets. The token
//! lines are checked against the independent reference (`harness/completion_reference.py`:
//! CodeXGLUE's rules over CPython's `tokenize` and javalang 0.13), the line-level cuts
//! against the rules of the issue (a prefix of the token line at a token boundary, the
//! ground truth's stop rule), the text files against the Parquet rows, and the partitions
//! against the repositories'.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use harness::*;
use serde_json::Value;

const PY_A: &str = r#"import os


def greet(name, times=3):
    """Say hello."""
    for _ in range(times):
        print(f"hello {name}", 'x', 0x1F, 2.5)
    return os.path.join("a", "b")


class Box:
    def __init__(self, v):
        self.v = v  # a comment

    def get(self):
        return self.v
"#;

const PY_B: &str = "def add(a, b):\n    return a + b\n\n\nVALUES = [1, 2, 3,\n          4, 5]\n";

const JAVA: &str = r#"package demo;

/** A demo. */
public class Demo {
    private static final String NAME = "demo";

    public int twice(int x) {
        if (x > 0) { return x * 2; }
        char c = 'a';
        return -x + 1L;
    }
}
"#;

/// CodeXGLUE's lines for `files` of `lang` by the reference (null where it writes none).
fn reference(lang: &str, files: &[&str]) -> Vec<Value> {
    let literals: Value = serde_json::from_str(match lang {
        "python" => include_str!("../../completion/src/data/py150_literals.json"),
        _ => include_str!("../../completion/src/data/javacorpus_literals.json"),
    })
    .unwrap();
    let req = serde_json::json!({"lang": lang, "files": files, "literals": literals});
    let mut child = Command::new(python())
        .arg(workspace_root().join("tests/harness/completion_reference.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(req.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v.as_array().unwrap().clone()
}

fn rows(dir: &Path, prefix: &str) -> Vec<Value> {
    // One folder per table: `completion/token/token-*`, `completion/line/line-*`.
    let dir = &dir.join(prefix.trim_end_matches('-'));
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix) && n.ends_with(".parquet"))
        .collect();
    names.sort_by_key(|n| {
        // train, valid, test: the order the text files are written in does not matter
        // across splits; within one split shards are in row order.
        n.clone()
    });
    let mut all = Vec::new();
    for n in names {
        let v = python_json(
            "import sys, json, pyarrow.parquet as pq\nprint(json.dumps(pq.read_table(sys.argv[1]).to_pylist()))",
            &[dir.join(&n).to_str().unwrap()],
        );
        all.extend(v.as_array().unwrap().clone());
    }
    all
}

#[test]
fn completion_sets_follow_codexglue_and_the_repository_partitions() {
    let tmp = tempfile::tempdir().unwrap();
    let mut one = RepoBuilder::init(&tmp.path().join("one"));
    one.write("pkg/a.py", PY_A)
        .write("pkg/b.py", PY_B)
        .write("src/Demo.java", JAVA)
        .write("pkg/broken.py", "def f(:\n    return '''never closed\n")
        .write("pkg/empty.py", "# only a comment\n")
        .write("native.c", "int main(void) { return 0; }\n");
    one.commit("one");
    // A second repository with a copy of a.py: one of the two is left out.
    let mut two = RepoBuilder::init(&tmp.path().join("two"));
    two.write("vendor/a_copy.py", PY_A)
        .write("c.py", PY_B.replace("add", "plus").as_str());
    two.commit("one");
    let out = tmp.path().join("out");
    let run = |out: &Path, seed: &str| {
        let res = codemine(
            &[
                "mine",
                "--out",
                out.to_str().unwrap(),
                "--repo",
                one.path.to_str().unwrap(),
                "--repo",
                two.path.to_str().unwrap(),
                "--emit",
                "completion",
                "--completion-seed",
                seed,
                "--completion-cuts",
                "2",
            ],
            &tmp.path().join("cache"),
        );
        assert_success(&res);
    };
    run(&out, "7");
    let dir = out.join("completion");
    let tokens = rows(&dir, "token-");
    let lines = rows(&dir, "line-");

    // Token level: every file with a line, once; the copy in the later repository is out.
    let paths: BTreeSet<String> = tokens
        .iter()
        .map(|r| {
            format!(
                "{}/{}",
                r["repo"].as_str().unwrap(),
                r["path"].as_str().unwrap()
            )
        })
        .collect();
    let want: BTreeSet<String> = [
        "one/pkg/a.py",
        "one/pkg/b.py",
        "one/src/Demo.java",
        "two/c.py",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(paths, want);
    let py = reference("python", &[PY_A, PY_B, &PY_B.replace("add", "plus")]);
    let java = reference("java", &[JAVA]);
    let text_of = |p: &str| {
        tokens
            .iter()
            .find(|r| {
                format!(
                    "{}/{}",
                    r["repo"].as_str().unwrap(),
                    r["path"].as_str().unwrap()
                ) == p
            })
            .map(|r| r["text"].clone())
            .unwrap()
    };
    assert_eq!(text_of("one/pkg/a.py"), py[0]);
    assert_eq!(text_of("one/pkg/b.py"), py[1]);
    assert_eq!(text_of("two/c.py"), py[2]);
    assert_eq!(text_of("one/src/Demo.java"), java[0]);
    assert!(reference("python", &["def f(:\n    return '''never closed\n"])[0].is_null());

    let s = stats(&out);
    let c = &s["stages"]["completion"];
    assert_eq!(c["duplicate_files"], 1, "{c}");
    assert_eq!(c["files"], 7, "{c}");
    assert_eq!(c["skipped"]["tokenize"], 1, "{c}");
    assert_eq!(c["skipped"]["empty"], 1, "{c}");

    // Partitions are the repositories'.
    let partition: BTreeMap<String, String> = s["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["repo"].as_str().unwrap().to_string(),
                r["partition"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for r in tokens.iter().chain(&lines) {
        assert_eq!(
            r["partition"].as_str(),
            Some(partition[r["repo"].as_str().unwrap()].as_str())
        );
    }

    // Line level: two cuts per file, none of the dropped copy, each a prefix of its file's
    // token line at a token boundary, the ground truth ending where CodeXGLUE's rule says.
    assert_eq!(lines.len(), 2 * tokens.len());
    for l in &lines {
        let p = format!(
            "{}/{}",
            l["repo"].as_str().unwrap(),
            l["path"].as_str().unwrap()
        );
        let text = text_of(&p);
        let text = text.as_str().unwrap();
        let (input, gt) = (l["input"].as_str().unwrap(), l["gt"].as_str().unwrap());
        let joined = format!("{input} {gt}");
        assert!(
            text.starts_with(&joined),
            "{p}: {joined:?} not a prefix of {text:?}"
        );
        let rest = &text[joined.len()..];
        assert!(
            rest.starts_with(' '),
            "{p}: the cut is not at a token boundary"
        );
        assert!(input.starts_with("<s>") && !gt.is_empty());
        assert!(
            gt.chars().any(char::is_alphanumeric),
            "{p}: trivial gt {gt:?}"
        );
        let next = rest.split(' ').nth(1).unwrap_or("");
        if l["language"] == "python" {
            assert!(!gt.split(' ').any(|t| t == "<EOL>"), "{gt}");
            assert!(
                next == "<EOL>" || next == "</s>",
                "{p}: gt {gt:?} stops before {next:?}"
            );
        } else {
            let last = gt.rsplit(' ').next().unwrap();
            assert!(
                last == ";" || last == "}" || next == "{" || next == "</s>",
                "{p}: gt {gt:?} then {next:?}"
            );
            let inner = &gt.split(' ').collect::<Vec<_>>()[..gt.split(' ').count() - 1];
            assert!(
                !inner.iter().any(|t| *t == ";" || *t == "}" || *t == "{"),
                "{gt}"
            );
        }
        assert!(l["line"].as_u64().unwrap() >= 1);
    }

    // The text files hold the Parquet rows, in order, in CodeXGLUE's formats.
    for (lang, split, file) in [
        ("python", "train", "train"),
        ("python", "test", "test"),
        ("java", "train", "train"),
        ("java", "test", "test"),
    ] {
        let want: Vec<String> = tokens
            .iter()
            .filter(|r| r["language"] == lang && r["partition"] == split)
            .map(|r| r["text"].as_str().unwrap().to_string())
            .collect();
        let path = dir.join(lang).join(format!("{file}.txt"));
        let got: Vec<String> = fs::read_to_string(&path)
            .map(|t| t.lines().map(str::to_string).collect())
            .unwrap_or_default();
        assert_eq!(got, want, "{}", path.display());
        let want: Vec<Value> = lines
            .iter()
            .filter(|r| r["language"] == lang && r["partition"] == split)
            .map(|r| serde_json::json!({"id": r["id"], "input": r["input"], "gt": r["gt"]}))
            .collect();
        let path = dir.join(lang).join(format!("line_{file}.json"));
        let got: Vec<Value> = fs::read_to_string(&path)
            .map(|t| {
                t.lines()
                    .map(|l| serde_json::from_str(l).unwrap())
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(got, want, "{}", path.display());
    }

    // The same seed gives the same set; another seed other cuts.
    let again = tmp.path().join("again");
    run(&again, "7");
    assert_eq!(rows(&again.join("completion"), "line-"), lines);

    // The same settings from the TOML file give the same rows.
    let config = tmp.path().join("run.toml");
    fs::write(
        &config,
        "emit = [\"completion\"]\ncompletion_seed = 7\ncompletion_cuts = 2\n",
    )
    .unwrap();
    let from_file = tmp.path().join("from-file");
    let (one_path, two_path) = (one.path.to_str().unwrap(), two.path.to_str().unwrap());
    let args = |out: &Path, config: &Path| {
        vec![
            "mine".to_string(),
            "--out".into(),
            out.to_str().unwrap().into(),
            "--repo".into(),
            one_path.into(),
            "--repo".into(),
            two_path.into(),
            "--filter-config".into(),
            config.to_str().unwrap().into(),
        ]
    };
    let a = args(&from_file, &config);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    assert_success(&codemine(&a, &tmp.path().join("cache")));
    assert_eq!(rows(&from_file.join("completion"), "line-"), lines);
    assert_eq!(rows(&from_file.join("completion"), "token-"), tokens);
    // A completion setting without the output is a usage error.
    fs::write(&config, "completion_seed = 7\n").unwrap();
    let a = args(&tmp.path().join("bad"), &config);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let res = codemine(&a, &tmp.path().join("cache"));
    assert_eq!(res.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&res.stderr).contains("--emit completion"));
    let other = tmp.path().join("other");
    run(&other, "8");
    assert_ne!(rows(&other.join("completion"), "line-"), lines);
}

/// Content 5-shingles of a token line (the markers and punctuation-only tokens left out),
/// as strings: the test's own Jaccard, independent of codemine's hashing.
fn shingles(line: &str) -> BTreeSet<Vec<String>> {
    let tokens: Vec<String> = line
        .split(' ')
        .filter(|t| !matches!(*t, "<s>" | "</s>" | "<EOL>" | ""))
        .filter(|t| {
            t.starts_with(['"', '\'']) || !t.bytes().all(|b| b.is_ascii_punctuation() && b != b'_')
        })
        .map(str::to_string)
        .collect();
    tokens.windows(5).map(<[String]>::to_vec).collect()
}

fn jaccard(a: &str, b: &str) -> f64 {
    let (a, b) = (shingles(a), shingles(b));
    a.intersection(&b).count() as f64 / a.union(&b).count() as f64
}

#[test]
fn near_duplicate_files_are_left_out_across_repositories() {
    let base: String = (0..30)
        .map(|i| {
            format!(
                "def f{i}(a, b):\n    return a * {i} + b - helper{}(a)\n\n\n",
                i % 3
            )
        })
        .collect();
    // The same file with one body changed and a comment: a near copy.
    let near = base
        .replace("return a * 7 + b", "# changed\n    return a * 7 - b")
        .replace(
            "return a * 12 + b - helper0(a)",
            "return a * 12 + b - helper9(a)",
        );
    let other: String = (0..30)
        .map(|i| format!("class C{i}:\n    size = {i}\n\n    def area(self):\n        return self.size ** 2\n\n\n"))
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let mut one = RepoBuilder::init(&tmp.path().join("one"));
    one.write("lib/base.py", &base);
    one.commit("one");
    let mut two = RepoBuilder::init(&tmp.path().join("two"));
    two.write("copied/base.py", &near)
        .write("shapes.py", &other);
    two.commit("two");

    let py = reference("python", &[&base, &near, &other]);
    let (base_line, near_line, other_line) = (
        py[0].as_str().unwrap(),
        py[1].as_str().unwrap(),
        py[2].as_str().unwrap(),
    );
    // The default threshold is 0.7: one file is far above it, the other far below.
    assert!(
        jaccard(base_line, near_line) > 0.85,
        "{}",
        jaccard(base_line, near_line)
    );
    assert!(jaccard(base_line, other_line) < 0.2);
    assert_ne!(base_line, near_line);

    let mine = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "mine",
            "--out",
            out.to_str().unwrap(),
            "--repo",
            one.path.to_str().unwrap(),
            "--repo",
            two.path.to_str().unwrap(),
            "--emit",
            "completion",
        ];
        args.extend_from_slice(extra);
        assert_success(&codemine(&args, &tmp.path().join("cache")));
    };
    let paths = |out: &Path, prefix: &str| -> BTreeSet<String> {
        rows(&out.join("completion"), prefix)
            .iter()
            .map(|r| {
                format!(
                    "{}/{}",
                    r["repo"].as_str().unwrap(),
                    r["path"].as_str().unwrap()
                )
            })
            .collect()
    };
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();

    let out = tmp.path().join("out");
    mine(&out, &[]);
    assert_eq!(
        paths(&out, "token-"),
        set(&["one/lib/base.py", "two/shapes.py"])
    );
    assert_eq!(
        paths(&out, "line-"),
        set(&["one/lib/base.py", "two/shapes.py"])
    );
    let c = &stats(&out)["stages"]["completion"];
    assert_eq!(c["near_duplicate_files"], 1, "{c}");
    assert_eq!(c["duplicate_files"], 0, "{c}");
    // Its content tokens differ from the base's (helper9): a near duplicate, not an exact one.
    assert_eq!(c["near_duplicate"]["near_removed"], 1, "{c}");

    // Without dedup only exact copies go.
    let out = tmp.path().join("no-dedup");
    mine(&out, &["--no-dedup"]);
    assert_eq!(
        paths(&out, "token-"),
        set(&["one/lib/base.py", "two/copied/base.py", "two/shapes.py"])
    );
    let c = &stats(&out)["stages"]["completion"];
    assert_eq!(c["near_duplicate_files"], 0, "{c}");
    assert!(c.get("near_duplicate").is_none(), "{c}");
}
