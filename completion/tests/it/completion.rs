//! CodeXGLUE token-level lines against an independent reference run in the test
//! (`tests/harness/completion_reference.py`): the rules of CodeXGLUE's preprocessing scripts
//! over the real tokenizers, CPython 3.11's `tokenize` and javalang 0.13. Inputs: the
//! project's own Python and Java files, hand-written edge cases, and generated mutations of
//! them (unterminated strings and comments, stray characters, escapes, encodings).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use codemine_completion::{token_line, tokens, CompletionLang, Literals, Skip};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("CODEMINE_PYTHON") {
        return PathBuf::from(p);
    }
    let venv = workspace().join(".venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

const PYTHON_CASES: &[&str] = &[
    "import os\n\n\nclass A(object):\n    '''Doc  with   spaces.'''\n    x = 'name'\n    y = \"a, b\"\n    z = 0\n    w = 3.14\n\n    def f(self):  # c\n        return [1, 2,\n                3]\n",
    "s = rb'x' + Rb\"y\" + f'{a}' + u'''multi\nline''' + 'True' + \"\"\n",
    "# -*- coding: latin-1 -*-\ns = 'é'\nt = \"café\"\n",
    "#!/usr/bin/env python\n# coding: utf-8\nx = 'ü'\n",
    "# coding: cp1251\nx = 1\n",
    "# coding: cp1251\nx = '\u{436}'\n",
    "# vim: set fileencoding=ascii :\nx = 'ü'\n",
    "\u{feff}x = 1\n",
    "\u{feff}# coding: latin-1\nx = 1\n",
    "x = 1\r\ny = 2\r\n",
    "x = 1\ry = 2\r",
    "x = (\n",
    "s = '''open\n",
    "if x:\n    y\n  z\n",
    "y = $ + `x`\n",
    "t = 'cont\\\nnued'\n",
    "",
    "# only a comment",
    "\n\n\n",
    "x = 0x1F + 1_000 + 1e3 + 2j + 10 + 100 + 1000\n",
    "print(\"a\\tb\")\n",
];

const JAVA_CASES: &[&str] = &[
    "package a.b;\n\nimport java.util.*;\n\n/** Doc. */\n@Deprecated\npublic class A<T extends List<List<String>>> {\n    private char c = 'x', d = '\\n', e = '\\'';\n    String s = \"a, b\" + \"\" + \"hello world\";\n    long n = 1L + 0x1F + 017 + 0b101 + 1_000 + 1.5e-3f + .5 + 0x1.8p1 + 10;\n    int f(int x) { return x >> 2 >>> 1; } // c\n    /* block */ void g() { x -> x; String::valueOf; int[] a = {1, 2}; }\n}\n",
    "String s = \\u0022quoted\\u0022; char c = '\\u0041';",
    "String s = \"\\\\u0041\";",
    "class A { String s = \"unterminated; }",
    "class A { /* open comment }",
    "class A { int x = 0",
    "class A { int x = 1. }",
    "class A { # }",
    "String s = \"tab\there\";",
    "String s = \"line\nbreak\";",
    "String s = \"\"\"\n  text block\n  \"\"\";",
    "char c = '\\s';",
    "String s = \"\\0a\\12\\377\\400\";",
    "int \u{e9}t\u{e9} = 1; String \u{540d} = null; boolean b = true;",
    "x = 1\r\ny = 2\r",
    "",
    "// only a comment",
    "\\uD800",
    "a...b ..c",
];

/// A small deterministic generator, so the cases are the same on every run.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn mutations(seeds: &[String], noise: &str, count: usize) -> Vec<String> {
    let noise: Vec<char> = noise.chars().collect();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    (0..count)
        .map(|_| {
            let mut chars: Vec<char> = seeds[rng.below(seeds.len())].chars().collect();
            for _ in 0..1 + rng.below(3) {
                if chars.is_empty() {
                    break;
                }
                let at = rng.below(chars.len());
                match rng.below(3) {
                    0 => {
                        chars.remove(at);
                    }
                    1 => chars.insert(at, noise[rng.below(noise.len())]),
                    _ => chars[at] = noise[rng.below(noise.len())],
                }
            }
            chars.into_iter().collect()
        })
        .collect()
}

fn files_with_extension(dir: &Path, ext: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() && !matches!(name, "target" | ".venv" | ".git") {
            files_with_extension(&p, ext, out);
        } else if p.extension().is_some_and(|e| e == ext) {
            if let Ok(s) = std::fs::read_to_string(&p) {
                out.push(s);
            }
        }
    }
}

fn reference(lang: &str, files: &[String], literals: &[u8]) -> Vec<Option<String>> {
    let literals: serde_json::Value = serde_json::from_slice(literals).unwrap();
    let req = serde_json::json!({"lang": lang, "files": files, "literals": literals});
    let mut child = Command::new(python())
        .arg(workspace().join("tests/harness/completion_reference.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the Python reference (CODEMINE_PYTHON or .venv; scripts/test.sh sets it up)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(req.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "reference failed (are tests/requirements.txt installed?): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn check(lang: CompletionLang, files: &[String], literals_json: &[u8]) {
    let lits = Literals::from_json(literals_json).unwrap();
    let want = reference(lang.name(), files, literals_json);
    assert_eq!(want.len(), files.len());
    let (mut lines, mut skipped) = (0, 0);
    for (src, want) in files.iter().zip(&want) {
        let got = match tokens(lang, src, &lits) {
            // A codec Python does not know (the reference has no line either), or one that
            // codemine does not emulate for non-ASCII text.
            Err(Skip::Encoding(name)) => {
                assert!(
                    lang == CompletionLang::Python && (want.is_none() || !src.is_ascii()),
                    "{name}: {src:?}"
                );
                skipped += 1;
                continue;
            }
            r => r.ok().map(|t| token_line(&t)),
        };
        assert_eq!(&got, want, "{} source {src:?}", lang.name());
        if got.is_some() {
            lines += 1;
        } else {
            skipped += 1;
        }
    }
    // Both outcomes are exercised.
    assert!(
        lines > files.len() / 3 && skipped > 5,
        "{lines} lines, {skipped} skipped"
    );
}

#[test]
fn python_lines_equal_the_reference() {
    let mut files: Vec<String> = PYTHON_CASES.iter().map(|s| s.to_string()).collect();
    files_with_extension(&workspace(), "py", &mut files);
    let mut all = files.clone();
    all.extend(mutations(
        &files,
        " \t\n\\'\"#()[]:.0123456789_,$\r\u{e9}",
        1500,
    ));
    check(
        CompletionLang::Python,
        &all,
        include_bytes!("../../src/data/py150_literals.json"),
    );
}

#[test]
fn java_lines_equal_the_reference() {
    let mut files: Vec<String> = JAVA_CASES.iter().map(|s| s.to_string()).collect();
    files_with_extension(&workspace(), "java", &mut files);
    let mut all = files.clone();
    all.extend(mutations(
        &files,
        " \t\n\\'\"/*@()[]{};.0123456789xXlLfFeE_u<>=#\r\u{e9}",
        1500,
    ));
    check(
        CompletionLang::Java,
        &all,
        include_bytes!("../../src/data/javacorpus_literals.json"),
    );
}
