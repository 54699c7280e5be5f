//! Parses docstrings read as JSON lines from stdin, `{"language": "python", "text": "..."}`
//! (optionally `"style": "google"` to force a convention), and writes one JSON line of
//! `docstring_params` per input line to stdout, in order. The agreement benchmark
//! (`docstring/tests/reference/agreement.py`) compares these lines with docstring-parser's
//! and The Vault's.
//!
//! ```sh
//! echo '{"language":"java","text":"@param a x"}' | cargo run -q -p codemine-docstring --example parse_jsonl
//! ```

use std::io::{BufRead, Write};

use codemine_docstring::{parse, parse_as, Language, Style};
use serde_json::Value;

fn main() {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("parse_jsonl: stdin: {e}");
                std::process::exit(2);
            }
        };
        let v: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("parse_jsonl: line {}: {e}", n + 1);
                std::process::exit(2);
            }
        };
        let text = v["text"].as_str().unwrap_or_default();
        let parsed = match v["style"].as_str().and_then(Style::from_name) {
            Some(style) => parse_as(text, style),
            None => parse(
                text,
                Language::from_name(v["language"].as_str().unwrap_or_default()),
            ),
        };
        let json = serde_json::to_string(&parsed).unwrap_or_else(|e| {
            eprintln!("parse_jsonl: line {}: {e}", n + 1);
            std::process::exit(2);
        });
        if writeln!(out, "{json}").is_err() {
            std::process::exit(0);
        }
    }
}
