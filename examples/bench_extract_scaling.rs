//! Extraction time and peak memory against the size of one file, in the shapes that were
//! quadratic (issue 33, items 6 and 7), every language:
//!
//! - `methods`: one class (a file of functions where the language has no classes) of N
//!   methods, each with a comment or doc comment before it;
//! - `functions`: N documented top-level functions (bound function expressions in
//!   JavaScript and TypeScript, `const f = function`);
//! - `nested`: named functions nested D deep, each calling the next (local classes with a
//!   method in Java and C++, closures bound to a name in Go);
//! - `broken`: N broken items (`int broken( {`), each followed by a valid function (item 1:
//!   the parsing again after each broken item must stay linear).
//!
//! Each file is mined alone with `codemine mine --max-file-bytes 100M -j 1`, and the wall
//! time, the peak RSS (`peak_rss_bytes` of stats.json, Linux `VmHWM`), the functions
//! extracted and those dropped are printed at three sizes, with the time and memory per
//! unit of size against the smallest (1.0 everywhere for linear growth). `--in-process`
//! times `Extractor::extract` alone instead (no memory figure), for a quick look.
//!
//! ```sh
//! cargo build --release && cargo build --release --example bench_extract_scaling
//! target/release/examples/bench_extract_scaling                          # every shape and language
//! target/release/examples/bench_extract_scaling --shape nested --lang ruby --sizes 1000,3000,9000
//! CODEMINE_BIN=/path/to/other/codemine target/release/examples/bench_extract_scaling
//! ```

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use miner::extract::Extractor;
use miner::lang::{Lang, Registry};

/// A file of `n` methods of one class (top-level functions in C and Go), each documented.
fn methods(lang: Lang, n: usize) -> String {
    let mut s = String::new();
    let p = |i: usize| i.saturating_sub(1);
    match lang.name() {
        "python" => {
            s.push_str("class K:\n");
            for i in 0..n {
                let _ = write!(
                    s,
                    "    # Comment {i}.\n    def m{i}(self, a):\n        \"\"\"Doc {i}.\"\"\"\n        return self.m{}(a) + {i}\n\n",
                    p(i)
                );
            }
        }
        "ruby" => {
            s.push_str("class K\n");
            for i in 0..n {
                let _ = write!(
                    s,
                    "  # Doc {i}.\n  def m{i}(a)\n    m{}(a) + {i}\n  end\n\n",
                    p(i)
                );
            }
            s.push_str("end\n");
        }
        "java" | "cpp" => {
            s.push_str(if lang == Lang::Java {
                "class K {\n"
            } else {
                "class K {\n public:\n"
            });
            for i in 0..n {
                let _ = writeln!(
                    s,
                    "  /** Doc {i}. */\n  int m{i}(int a) {{ return m{}(a) + {i}; }}",
                    p(i)
                );
            }
            s.push_str(if lang == Lang::Java { "}\n" } else { "};\n" });
        }
        "c" => {
            for i in 0..n {
                let _ = writeln!(
                    s,
                    "/* Doc {i}. */\nint f{i}(int a) {{ return f{}(a) + {i}; }}",
                    p(i)
                );
            }
        }
        "go" => {
            s.push_str("package p\n\ntype K struct{}\n\n");
            for i in 0..n {
                let _ = writeln!(
                    s,
                    "// M{i} doc.\nfunc (k *K) M{i}(a int) int {{ return k.M{}(a) + {i} }}",
                    p(i)
                );
            }
        }
        "javascript" | "typescript" => {
            let t = if lang == Lang::TypeScript {
                ": number"
            } else {
                ""
            };
            s.push_str("class K {\n");
            for i in 0..n {
                let _ = writeln!(
                    s,
                    "  /** Doc {i}. */\n  m{i}(a{t}) {{ return this.m{}(a) + {i}; }}",
                    p(i)
                );
            }
            s.push_str("}\n");
        }
        "php" => {
            s.push_str("<?php\nclass K {\n");
            for i in 0..n {
                let _ = writeln!(
                    s,
                    "  /** Doc {i}. */\n  public function m{i}($a) {{ return $this->m{}($a) + {i}; }}",
                    p(i)
                );
            }
            s.push_str("}\n");
        }
        other => unreachable!("no {other} sample here"),
    }
    s
}

/// A file of `n` documented top-level functions.
fn functions(lang: Lang, n: usize) -> String {
    let mut s = String::new();
    let p = |i: usize| i.saturating_sub(1);
    match lang.name() {
        "python" => {
            for i in 0..n {
                let _ = write!(
                    s,
                    "# Comment {i}.\ndef f{i}(a):\n    \"\"\"Doc {i}.\"\"\"\n    return f{}(a) + {i}\n\n",
                    p(i)
                );
            }
        }
        "ruby" => {
            for i in 0..n {
                let _ = write!(s, "# Doc {i}.\ndef f{i}(a)\n  f{}(a) + {i}\nend\n\n", p(i));
            }
        }
        // No top-level functions: static methods.
        "java" => {
            s.push_str("class K {\n");
            for i in 0..n {
                let _ = writeln!(
                    s,
                    "  /** Doc {i}. */\n  static int f{i}(int a) {{ return f{}(a) + {i}; }}",
                    p(i)
                );
            }
            s.push_str("}\n");
        }
        "c" | "cpp" => {
            for i in 0..n {
                let _ = writeln!(
                    s,
                    "// Doc {i}.\nstatic int f{i}(int a) {{ return f{}(a) + {i}; }}",
                    p(i)
                );
            }
        }
        "go" => {
            s.push_str("package p\n\n");
            for i in 0..n {
                let _ = writeln!(
                    s,
                    "// F{i} doc.\nfunc F{i}(a int) int {{ return F{}(a) + {i} }}",
                    p(i)
                );
            }
        }
        "javascript" | "typescript" => {
            let t = if lang == Lang::TypeScript {
                ": number"
            } else {
                ""
            };
            for i in 0..n {
                let _ = writeln!(
                    s,
                    "/** Doc {i}. */\nconst f{i} = function (a{t}) {{ return f{}(a) + {i}; }};",
                    p(i)
                );
            }
        }
        "php" => {
            s.push_str("<?php\n");
            for i in 0..n {
                let _ = writeln!(
                    s,
                    "/** Doc {i}. */\nfunction f{i}($a) {{ return f{}($a) + {i}; }}",
                    p(i)
                );
            }
        }
        other => unreachable!("no {other} sample here"),
    }
    s
}

/// `n` broken items (an unclosed parameter list and brace), each followed by a valid
/// function: tree-sitter takes the rest of the file into each broken item, and recovery
/// parses the text again after each (issue 33, item 1; the work must stay linear).
fn broken(lang: Lang, n: usize) -> String {
    let mut s = String::new();
    match lang.name() {
        "php" => s.push_str("<?php\n"),
        "go" => s.push_str("package p\n\n"),
        _ => {}
    }
    for i in 0..n {
        let _ = match lang.name() {
            "python" => write!(s, "def broken{i}(:\n    pass\n\ndef f{i}(a):\n    return a + {i}\n\n"),
            "ruby" => write!(s, "def broken{i}(a\n  if a\nend\n\ndef f{i}(a)\n  a + {i}\nend\n\n"),
            "java" => write!(
                s,
                "class B{i} {{\n  int broken( {{\n}}\nclass C{i} {{\n  int f(int a) {{ return a + {i}; }}\n}}\n"
            ),
            "c" | "cpp" => write!(s, "int broken{i}( {{\nint f{i}(int a) {{ return a + {i}; }}\n"),
            "go" => write!(s, "func broken{i}( {{\nfunc f{i}(a int) int {{ return a + {i} }}\n"),
            "javascript" | "typescript" | "php" => write!(
                s,
                "function broken{i}( {{\nfunction f{i}($a) {{ return $a + {i}; }}\n"
            ),
            other => unreachable!("no {other} sample here"),
        };
    }
    s
}

/// Named functions nested `d` deep, each calling the one it holds; no indentation (Python
/// needs one space a level, so its file grows with the square of the depth).
fn nested(lang: Lang, d: usize) -> String {
    let mut s = String::new();
    let (mut open, mut close) = (String::new(), String::new());
    for i in 0..d {
        let next = i + 1;
        let (o, c) = match lang.name() {
            "python" => {
                let ind = " ".repeat(i);
                (
                    format!("{ind}def f{i}(a):\n"),
                    format!("{ind} return f{next}(a)\n"),
                )
            }
            "ruby" => (format!("def f{i}(a)\n"), format!("f{next}(a)\nend\n")),
            "javascript" | "typescript" => (
                format!("function f{i}(a) {{\n"),
                format!("return f{next}(a);\n}}\n"),
            ),
            "php" => (
                format!("function f{i}($a) {{\n"),
                format!("return f{next}($a);\n}}\n"),
            ),
            "go" => (
                format!("f{i} := func(a int) int {{\n"),
                format!("return f{next}(a)\n}}\n_ = f{i}\n"),
            ),
            "java" => (
                format!("class L{i} {{ int m{i}(int a) {{\n"),
                format!("return m{next}(a);\n}} }}\n"),
            ),
            "c" | "cpp" => (
                format!("struct L{i} {{ int m{i}(int a) {{\n"),
                format!("return m{next}(a);\n}} }};\n"),
            ),
            other => unreachable!("no {other} sample here"),
        };
        open.push_str(&o);
        close.insert_str(0, &c);
    }
    match lang.name() {
        "php" => s.push_str("<?php\n"),
        "go" => s.push_str("package p\n\nfunc Outer() {\n"),
        "java" => s.push_str("class Outer {\n"),
        _ => {}
    }
    s.push_str(&open);
    s.push_str(&close);
    match lang.name() {
        "go" => s.push_str("}\n"),
        "java" => s.push_str("}\n"),
        _ => {}
    }
    s
}

fn extension(lang: Lang) -> &'static str {
    lang.def().extensions()[0]
}

/// Runs `codemine mine` on `repo`; (seconds, peak RSS bytes, functions, dropped).
fn mine(repo: &Path, out: &Path) -> (f64, u64, u64, u64) {
    let _ = std::fs::remove_dir_all(out);
    let t = Instant::now();
    let res = Command::new(harness::binary())
        .args(["mine", "--repo"])
        .arg(repo)
        .arg("--out")
        .arg(out)
        .args(["--max-file-bytes", "100M", "-j", "1", "--quiet"])
        .env("CI", "1")
        .env("CODEMINE_CACHE", out.with_extension("cache"))
        .output()
        .expect("run codemine");
    let secs = t.elapsed().as_secs_f64();
    assert!(
        res.status.success(),
        "codemine failed: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    let stats = harness::stats(out);
    let extract = &stats["stages"]["extract"];
    (
        secs,
        stats["peak_rss_bytes"].as_u64().unwrap_or(0),
        extract["functions"].as_u64().unwrap_or(0),
        extract["dropped_syntax_error"].as_u64().unwrap_or(0)
            + extract["dropped_nesting"].as_u64().unwrap_or(0),
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let in_process = args.iter().any(|a| a == "--in-process");
    let shapes: Vec<String> = match value("--shape") {
        Some(s) => vec![s],
        None => ["methods", "functions", "nested", "broken"]
            .map(String::from)
            .to_vec(),
    };
    let langs: Vec<Lang> = match value("--lang") {
        Some(l) => vec![Lang::from_name(&l).expect("a language")],
        None => Lang::ALL.to_vec(),
    };
    let sizes_of = |shape: &str, lang: Lang| -> Vec<usize> {
        if let Some(s) = value("--sizes") {
            return s.split(',').map(|n| n.parse().expect("a number")).collect();
        }
        match (shape, lang.name()) {
            // Python's nested file grows with the square of the depth (indentation).
            ("nested", "python") => vec![500, 1000, 2000],
            ("nested", _) => vec![1000, 3000, 9000],
            _ => vec![5000, 15000, 45000],
        }
    };
    let tmp = tempfile::tempdir().expect("temp dir");
    if !in_process {
        println!("codemine: {}", harness::binary().display());
    }
    let mut ex = Extractor::default();
    for shape in &shapes {
        for &lang in &langs {
            let mut first: Option<(f64, f64, f64)> = None;
            for n in sizes_of(shape, lang) {
                let text = match shape.as_str() {
                    "methods" => methods(lang, n),
                    "functions" => functions(lang, n),
                    "nested" => nested(lang, n),
                    "broken" => broken(lang, n),
                    s => panic!("unknown shape {s}"),
                };
                let (secs, peak, found, dropped) = if in_process {
                    let t = Instant::now();
                    let out = ex.extract(lang, &text).expect("extract");
                    (
                        t.elapsed().as_secs_f64(),
                        0,
                        out.functions.len() as u64,
                        (out.dropped_syntax_error + out.dropped_nesting) as u64,
                    )
                } else {
                    let dir = tmp.path().join(format!("{shape}-{}-{n}", lang.name()));
                    std::fs::create_dir_all(&dir).expect("folder");
                    std::fs::write(dir.join(format!("big.{}", extension(lang))), &text)
                        .expect("write");
                    let r = mine(&dir, &dir.with_extension("out"));
                    let _ = std::fs::remove_dir_all(&dir);
                    let _ = std::fs::remove_dir_all(dir.with_extension("out"));
                    r
                };
                let mb = peak as f64 / 1e6;
                let (t1, m1, n1) = *first.get_or_insert((secs, mb, n as f64));
                let scale = n as f64 / n1;
                println!(
                    "{shape:<9} {:<10} n={n:>6} {:>8.2} MB file: {secs:7.2} s  peak {mb:7.1} MB  \
                     ({found} functions, {dropped} dropped)  per n vs smallest: time {:.2}, memory {:.2}",
                    lang.name(),
                    text.len() as f64 / 1e6,
                    secs / t1 / scale,
                    if m1 > 0.0 { mb / m1 / scale } else { 0.0 },
                );
            }
        }
    }
}
