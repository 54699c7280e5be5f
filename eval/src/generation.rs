//! Docstring + context → body metrics, as CodeXGLUE's line-completion evaluator
//! (`Code-Code/CodeCompletion-line/evaluator/evaluator.py`) computes them:
//!
//! - the prediction is `strip()`ped, and both sides go through its `post_process`, which
//!   turns the literal placeholders of its pre-processed data back into text
//!   (`<NUM_LIT>` → `0`, `<STR_LIT>` and `<CHAR_LIT>` → nothing, `<STR_LIT:x>` → `x`);
//!   codemine's data has no placeholders, so this only matters for such predictions;
//! - [`exact_match`]: `pred.split() == gt.split()` (whitespace-insensitive), 0 or 1 per
//!   example, reported in percent;
//! - [`edit_sim`]: `fuzz.ratio(pred, gt)` on Unicode code points, 0–100: the Indel
//!   normalized similarity (`2·LCS / (len₁ + len₂)`), as rapidfuzz computes it (the
//!   pinned reference; two empty strings score 100);
//! - [`edit_sim_fuzzywuzzy`]: fuzzywuzzy's integer `fuzz.ratio` with the `Levenshtein`
//!   backend: 100 for equal strings, 0 when either is empty, otherwise the same ratio
//!   rounded half to even.
//!
//! CodeBLEU is a separate module ([`crate::codebleu`]); every metric plugs into
//! [`crate::metric::Scorer`].
//!
//! ```
//! use codemine_eval::generation::{edit_sim, exact_match};
//! assert_eq!(exact_match(" return  x\n", "return x"), 1.0);
//! assert!((edit_sim("abc", "abd") - 200.0 / 3.0).abs() < 1e-9);
//! ```

use rayon::prelude::*;

use std::borrow::Cow;

use crate::pytext::{py_is_space, py_strip};

/// CodeXGLUE line completion's `post_process`.
pub fn post_process(code: &str) -> Cow<'_, str> {
    // Every placeholder has `_LIT`: most code needs no copy.
    if !code.contains("_LIT") {
        return Cow::Borrowed(code);
    }
    let mut code = code
        .replace("<NUM_LIT>", "0")
        .replace("<STR_LIT>", "")
        .replace("<CHAR_LIT>", "");
    // re.findall(r"<(STR|NUM|CHAR)_LIT:(.*?)>", code, re.S), then each found literal
    // replaced everywhere in turn.
    let mut found: Vec<(String, String)> = Vec::new();
    let mut rest = code.as_str();
    while let Some(start) = rest.find('<') {
        let tail = &rest[start + 1..];
        let kind = ["STR", "NUM", "CHAR"]
            .into_iter()
            .find(|k| tail.starts_with(k) && tail[k.len()..].starts_with("_LIT:"));
        match kind {
            Some(k) => {
                let body = &tail[k.len() + 5..];
                match body.find('>') {
                    Some(end) => {
                        found.push((k.to_string(), body[..end].to_string()));
                        rest = &body[end + 1..];
                    }
                    None => rest = tail,
                }
            }
            None => rest = tail,
        }
    }
    for (k, lit) in found {
        code = code.replace(&format!("<{k}_LIT:{lit}>"), &lit);
    }
    Cow::Owned(code)
}

/// The prediction and reference as the evaluator compares them.
fn prepare<'a>(prediction: &'a str, reference: &'a str) -> (Cow<'a, str>, Cow<'a, str>) {
    (post_process(py_strip(prediction)), post_process(reference))
}

/// 1.0 when the whitespace-separated tokens are equal, else 0.0.
pub fn exact_match(prediction: &str, reference: &str) -> f64 {
    let (p, g) = prepare(prediction, reference);
    f64::from(u8::from(
        p.split(py_is_space)
            .filter(|w| !w.is_empty())
            .eq(g.split(py_is_space).filter(|w| !w.is_empty())),
    ))
}

/// rapidfuzz's `fuzz.ratio` of two strings (code points), 0–100.
pub fn ratio(a: &str, b: &str) -> f64 {
    if a.is_ascii() && b.is_ascii() {
        // One byte a code point: the same ratio, on rapidfuzz's byte fast path.
        rapidfuzz::fuzz::ratio(a.bytes(), b.bytes()) * 100.0
    } else {
        rapidfuzz::fuzz::ratio(a.chars(), b.chars()) * 100.0
    }
}

/// Edit similarity (rapidfuzz `fuzz.ratio`) after the evaluator's clean-up, 0–100.
pub fn edit_sim(prediction: &str, reference: &str) -> f64 {
    let (p, g) = prepare(prediction, reference);
    ratio(&p, &g)
}

/// fuzzywuzzy's `fuzz.ratio` (an integer) after the evaluator's clean-up.
pub fn edit_sim_fuzzywuzzy(prediction: &str, reference: &str) -> f64 {
    let (p, g) = prepare(prediction, reference);
    if p == g {
        100.0
    } else if p.is_empty() || g.is_empty() {
        0.0
    } else {
        ratio(&p, &g).round_ties_even()
    }
}

/// Applies a per-example function to every pair, in parallel.
pub fn per_example(
    predictions: &[String],
    references: &[String],
    f: fn(&str, &str) -> f64,
) -> Vec<f64> {
    predictions
        .par_iter()
        .zip(references.par_iter())
        .map(|(p, r)| f(p, r))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_process_literals() {
        assert_eq!(post_process("x = <NUM_LIT> + <STR_LIT:abc>"), "x = 0 + abc");
        assert_eq!(post_process("<STR_LIT:a<b> <NUM_LIT:7"), "a<b <NUM_LIT:7");
        assert_eq!(post_process("a < b"), "a < b");
    }

    #[test]
    fn fuzzywuzzy_edges() {
        assert_eq!(edit_sim_fuzzywuzzy("", ""), 100.0);
        assert_eq!(edit_sim_fuzzywuzzy("a", ""), 0.0);
        assert_eq!(edit_sim("", ""), 100.0);
    }
}
