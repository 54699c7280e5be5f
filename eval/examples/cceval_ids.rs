//! codemine's CrossCodeEval identifier values of the cases on stdin, for
//! `examples/cceval_agreement.py` (which compares them with cceval's own functions).
//!
//! Input: JSON lines `{"pred": ..., "gt": ..., "lang": ...}`; output: one JSON line per
//! case, `{"pred_ids": [...], "gt_ids": [...], "em": 0|1, "f1": ..., "precision": ...,
//! "recall": ...}` (the identifiers after comment removal, as cceval compares them).
//!
//! ```sh
//! cargo build -p codemine-eval --example cceval_ids
//! echo '{"pred": "a.b(c)", "gt": "a.b(d)", "lang": "python"}' | target/debug/examples/cceval_ids
//! ```

use std::io::{BufRead, BufWriter, Write};

use codemine_eval::repo_completion::{identifier_match, identifiers, Lang};
use serde_json::{json, Value};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let stdin = std::io::stdin();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&line)?;
        let field = |k: &str| -> Result<String, String> {
            v.get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("line {}: no string `{k}`", n + 1))
        };
        let (pred, gt) = (field("pred")?, field("gt")?);
        let lang: Lang = field("lang")?.parse()?;
        let m = identifier_match(&pred, &gt, lang);
        let rec = json!({
            "pred_ids": identifiers(&pred, lang),
            "gt_ids": identifiers(&gt, lang),
            "em": m.em,
            "f1": m.f1,
            "precision": m.precision,
            "recall": m.recall,
        });
        serde_json::to_writer(&mut out, &rec)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}
