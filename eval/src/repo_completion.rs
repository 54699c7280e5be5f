//! Scoring repository-level completion rows (`completion/repo/repo-*.parquet`, issue 16):
//! CrossCodeEval's identifier match and the recall@k of the gold cross-file context.
//!
//! # Identifier exact match and F1
//!
//! As amazon-science/cceval's `scripts/eval_metric.py` (`process_examples`,
//! `compute_id_match`, the `id_em` and `id_f1` of `compute_metric_stmt`) and
//! `scripts/eval_utils.py` (`remove_comments`, `extract_identifiers`, `is_identifier`)
//! compute them, for the prediction and the reference alike:
//!
//! 1. `remove_comments`: everything from a `#` to the end of its line is removed, then
//!    everything from a `//` to the end of its line, in every language (so a C
//!    `#include`, a Python `a // b` or a `"http://..."` string lose the rest of their line,
//!    as in cceval);
//! 2. string literals are removed: cceval's regular expression
//!    `"([^"\\]*(\\.[^"\\]*)*)"|'([^'\\]*(\\.[^'\\]*)*)'` (a backslash escapes any character
//!    but a newline);
//! 3. the text is cut into runs of Python `re` word characters (nltk's
//!    `RegexpTokenizer(r'\w+')`), and a run is an identifier when it starts with
//!    `[_a-zA-Z]` and is not one of the language's keywords (`eval/data/keywords/`; each
//!    file's header names its source);
//! 4. `identifier_em` is 1 when the two identifier *lists* are equal (order and repeats
//!    count), else 0 (two lines without identifiers match); `identifier_f1` compares the
//!    *sets* of identifiers (a repeated identifier counts once): tp = shared, fp = only in
//!    the prediction, fn = only in the reference, F1 = 2tp / (2tp + fp + fn), 0 when both
//!    sets are empty. Aggregates are means in percent, as cceval prints them (unrounded).
//!
//! What codemine does differently:
//! - **No truncation of the prediction.** cceval first cuts a model's raw output to one
//!   statement (`postprocess_code_lines`: Java, C# and TypeScript at the first `;`, `{` or
//!   `}`; Python at the first newline after which `prompt + completion` parses without a
//!   tree-sitter ERROR node; other languages are not supported there). codemine scores the
//!   prediction as given, like `exact_match` and `edit_sim` on the same run: the predictions
//!   file should hold the completion of the line (the `gt` is the rest of one line).
//! - **Languages.** cceval ships keyword lists for Python, Java, C# and TypeScript (and its
//!   JavaScript list); the lists for C, C++, Go, PHP and Ruby come from the language
//!   specifications (file headers). JavaScript and TypeScript use cceval's lists, Python
//!   CPython 3.11's `keyword.kwlist` without `True`/`False` (cceval uses the running
//!   interpreter's).
//! - `\w` is Python's (letters and numbers of any script, and `_`), through
//!   [`crate::pytext::py_is_word`].
//!
//! # Recall@k of the gold context
//!
//! The table contract's definition: a gold definition (`gold_context`: path, start_line,
//! end_line) is found when one of the first k retrieved items has the same path and a line
//! range overlapping the definition's (both inclusive); an example's recall is found /
//! |gold|; the aggregate is the mean over the examples with a non-empty gold, in percent
//! (an example with an empty gold has no value: NaN per example, `null` in JSON).
//!
//! ```
//! use codemine_eval::repo_completion::{identifier_match, Lang};
//! // `None` is a keyword: the same identifiers, in the same order.
//! let m = identifier_match("self.cache.get(key)", "self.cache.get(key, None)", Lang::Python);
//! assert_eq!((m.em, m.f1), (1.0, 1.0));
//! // {self, cache, get, k} against {self, cache, get, key}: tp 3, fp 1, fn 1.
//! let m = identifier_match("self.cache.get(k)", "self.cache.get(key, None)", Lang::Python);
//! assert_eq!(m.em, 0.0);
//! assert!((m.f1 - 0.75).abs() < 1e-12);
//! ```

use std::collections::HashSet;
use std::str::FromStr;
use std::sync::LazyLock;

use crate::pytext::py_is_word;
use crate::Error;

/// The metrics a repository-level completion table reports when none are named.
pub const DEFAULT_METRICS: [&str; 4] =
    ["exact_match", "edit_sim", "identifier_em", "identifier_f1"];

/// Whether a metric name only makes sense on repository-level completion rows.
pub fn repo_only_metric(name: &str) -> bool {
    name.starts_with(CONTEXT_RECALL) || name == "identifier_em" || name == "identifier_f1"
}

/// The languages of repository-level completion rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    Python,
    Java,
    C,
    Cpp,
    Go,
    JavaScript,
    TypeScript,
    Php,
    Ruby,
}

impl Lang {
    pub const ALL: [Lang; 9] = [
        Lang::Python,
        Lang::Java,
        Lang::C,
        Lang::Cpp,
        Lang::Go,
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Php,
        Lang::Ruby,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Java => "java",
            Lang::C => "c",
            Lang::Cpp => "cpp",
            Lang::Go => "go",
            Lang::JavaScript => "javascript",
            Lang::TypeScript => "typescript",
            Lang::Php => "php",
            Lang::Ruby => "ruby",
        }
    }

    /// The keyword data file (with its `#` header lines).
    fn data(self) -> &'static str {
        match self {
            Lang::Python => include_str!("../data/keywords/python.txt"),
            Lang::Java => include_str!("../data/keywords/java.txt"),
            Lang::C => include_str!("../data/keywords/c.txt"),
            Lang::Cpp => include_str!("../data/keywords/cpp.txt"),
            Lang::Go => include_str!("../data/keywords/go.txt"),
            Lang::JavaScript => include_str!("../data/keywords/javascript.txt"),
            Lang::TypeScript => include_str!("../data/keywords/typescript.txt"),
            Lang::Php => include_str!("../data/keywords/php.txt"),
            Lang::Ruby => include_str!("../data/keywords/ruby.txt"),
        }
    }

    /// The language's keywords: the data file's lines that are not `#` comments.
    pub fn keywords(self) -> &'static HashSet<&'static str> {
        static SETS: LazyLock<Vec<HashSet<&'static str>>> = LazyLock::new(|| {
            Lang::ALL
                .iter()
                .map(|l| {
                    l.data()
                        .lines()
                        .map(str::trim)
                        .filter(|w| !w.is_empty() && !w.starts_with('#'))
                        .collect()
                })
                .collect()
        });
        &SETS[self as usize]
    }
}

impl FromStr for Lang {
    type Err = String;

    /// A language name as the tables write it (`cpp`), with the usual aliases.
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "python" | "py" => Lang::Python,
            "java" => Lang::Java,
            "c" => Lang::C,
            "cpp" | "c++" | "cxx" | "cc" => Lang::Cpp,
            "go" | "golang" => Lang::Go,
            "javascript" | "js" => Lang::JavaScript,
            "typescript" | "ts" => Lang::TypeScript,
            "php" => Lang::Php,
            "ruby" | "rb" => Lang::Ruby,
            other => return Err(format!("`{other}` is not one of the languages identifier metrics know (python, java, c, cpp, go, javascript, typescript, php, ruby)")),
        })
    }
}

/// cceval's `remove_comments`: `re.sub(r'#.*', '', code)` then `re.sub(r'//.*', '', code)`
/// (`.` is anything but a newline).
pub fn remove_comments(code: &str) -> String {
    let cut = |s: &str, marker: &str| -> String {
        let mut out = String::with_capacity(s.len());
        for (i, line) in s.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(line.find(marker).map_or(line, |k| &line[..k]));
        }
        out
    };
    cut(&cut(code, "#"), "//")
}

/// The end (exclusive byte offset) of the quoted string that starts at `start` (a `quote`
/// character), as cceval's pattern `"([^"\\]*(\\.[^"\\]*)*)"` matches it; `None` when it
/// does not close.
fn string_end(s: &str, start: usize, quote: char) -> Option<usize> {
    let mut it = s[start + quote.len_utf8()..].char_indices();
    let base = start + quote.len_utf8();
    while let Some((i, c)) = it.next() {
        if c == quote {
            return Some(base + i + c.len_utf8());
        }
        if c == '\\' {
            // `\\.`: any character but a newline; a backslash before a newline (or at the
            // end) stops the match, and the pattern cannot backtrack into a closing quote
            // earlier than this point (`[^"\\]*` consumed every other character).
            match it.next() {
                Some((_, '\n')) | None => return None,
                Some(_) => {}
            }
        }
    }
    None
}

/// cceval's `re.sub(string_pattern, '', code)`: every string literal removed, scanning from
/// the left (an unclosed quote stays and the scan moves one character on).
pub fn remove_strings(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    while i < code.len() {
        let Some(c) = code[i..].chars().next() else {
            break;
        };
        if c == '"' || c == '\'' {
            if let Some(end) = string_end(code, i, c) {
                i = end;
                continue;
            }
        }
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// cceval's `extract_identifiers(code, lang)` (comments are not removed here; see
/// [`identifiers`]).
pub fn extract_identifiers(code: &str, lang: Lang) -> Vec<String> {
    let text = remove_strings(code);
    let keywords = lang.keywords();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut push = |tok: &str| {
        let first_ok = tok
            .chars()
            .next()
            .is_some_and(|c| c == '_' || c.is_ascii_alphabetic());
        if first_ok && !keywords.contains(tok) {
            out.push(tok.to_string());
        }
    };
    for (i, c) in text.char_indices() {
        match (py_is_word(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                push(&text[s..i]);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        push(&text[s..]);
    }
    out
}

/// The identifiers cceval compares: comments removed, then [`extract_identifiers`].
pub fn identifiers(code: &str, lang: Lang) -> Vec<String> {
    extract_identifiers(&remove_comments(code), lang)
}

/// One example's identifier match.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IdentifierMatch {
    /// 1.0 when the identifier lists are equal.
    pub em: f64,
    /// F1 of the identifier sets (0 when both are empty).
    pub f1: f64,
    pub precision: f64,
    pub recall: f64,
}

/// cceval's `id_em` and `id_f1` (with its precision and recall) of a prediction against
/// the reference.
pub fn identifier_match(prediction: &str, reference: &str, lang: Lang) -> IdentifierMatch {
    let p = identifiers(prediction, lang);
    let g = identifiers(reference, lang);
    let em = f64::from(u8::from(p == g));
    let ps: HashSet<&str> = p.iter().map(String::as_str).collect();
    let gs: HashSet<&str> = g.iter().map(String::as_str).collect();
    let tp = ps.intersection(&gs).count() as f64;
    let fp = ps.len() as f64 - tp;
    let fn_ = gs.len() as f64 - tp;
    let ratio = |n: f64, d: f64| if d != 0.0 { n / d } else { 0.0 };
    IdentifierMatch {
        em,
        f1: ratio(2.0 * tp, 2.0 * tp + fp + fn_),
        precision: ratio(tp, tp + fp),
        recall: ratio(tp, tp + fn_),
    }
}

/// A span of lines of one file (a gold definition or a retrieved chunk), 1-based and
/// inclusive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub path: String,
    pub start_line: i64,
    pub end_line: i64,
}

impl Span {
    fn overlaps(&self, other: &Span) -> bool {
        self.path == other.path
            && self.start_line <= other.end_line
            && other.start_line <= self.end_line
    }
}

/// The recall@k of one example: the share of `gold` found among the first `k` of
/// `retrieved`; `None` when `gold` is empty.
pub fn recall_at_k(gold: &[Span], retrieved: &[Span], k: usize) -> Option<f64> {
    if gold.is_empty() {
        return None;
    }
    let top = &retrieved[..k.min(retrieved.len())];
    let found = gold
        .iter()
        .filter(|g| top.iter().any(|r| r.overlaps(g)))
        .count();
    Some(found as f64 / gold.len() as f64)
}

/// A `context_recall@K` metric name: from the predictions' `retrieved` lists, or
/// (`context_recall@K:RETRIEVER`) from the dataset's own `retrieved_context` of that
/// retriever.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextRecall {
    pub name: String,
    pub k: usize,
    pub retriever: Option<String>,
}

/// The prefix of the recall metric names.
pub const CONTEXT_RECALL: &str = "context_recall@";

impl ContextRecall {
    /// Parses a metric name; `Ok(None)` when it is not a recall metric at all.
    pub fn parse(name: &str) -> Result<Option<ContextRecall>, Error> {
        let Some(rest) = name.strip_prefix(CONTEXT_RECALL) else {
            return Ok(None);
        };
        let (k, retriever) = match rest.split_once(':') {
            Some((k, r)) => (k, Some(r)),
            None => (rest, None),
        };
        let bad = || {
            Error::Usage(format!(
                "`{name}`: say context_recall@K (K ≥ 1, from the predictions' `retrieved` lists) or context_recall@K:RETRIEVER (the dataset's retrieved_context of that retriever, e.g. bm25 or jaccard)"
            ))
        };
        let k: usize = k.parse().ok().filter(|&k| k >= 1).ok_or_else(bad)?;
        if retriever.is_some_and(|r| r.is_empty() || r.contains(char::is_whitespace)) {
            return Err(bad());
        }
        Ok(Some(ContextRecall {
            name: name.to_string(),
            k,
            retriever: retriever.map(str::to_string),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(code: &str, lang: Lang) -> Vec<&'static str> {
        identifiers(code, lang)
            .into_iter()
            .map(|s| &*Box::leak(s.into_boxed_str()))
            .collect()
    }

    #[test]
    fn every_language_has_its_keywords() {
        let count = |l: Lang| l.keywords().len();
        // Counted from the sources named in the files' headers.
        assert_eq!(count(Lang::Python), 33);
        assert_eq!(count(Lang::Java), 51);
        assert_eq!(count(Lang::JavaScript), 42);
        assert_eq!(count(Lang::TypeScript), 42);
        assert_eq!(count(Lang::C), 44);
        assert_eq!(count(Lang::Cpp), 90);
        assert_eq!(count(Lang::Go), 25);
        assert_eq!(count(Lang::Php), 69);
        assert_eq!(count(Lang::Ruby), 39);
        for l in Lang::ALL {
            assert_eq!(l.as_str().parse::<Lang>(), Ok(l));
            assert!(!l.keywords().contains("true") && !l.keywords().contains("false"));
        }
        assert!(Lang::Python.keywords().contains("None"));
        assert!(!Lang::Python.keywords().contains("True"));
        assert!("cobol".parse::<Lang>().is_err());
    }

    #[test]
    fn identifiers_as_cceval_extracts_them() {
        // Keywords out, literals and numbers out, strings out, order and repeats kept.
        assert_eq!(
            ids("return self.get(x, 'a b', 3) if x else None", Lang::Python),
            ["self", "get", "x", "x"]
        );
        assert_eq!(
            ids("for (int i = 0; i < n; i++) total += a[i];", Lang::Java),
            ["i", "i", "n", "i", "total", "a", "i"]
        );
        // `#` and `//` start comments in every language, inside strings too.
        assert_eq!(ids("x = a // b", Lang::Python), ["x", "a"]);
        assert!(ids("#include \"foo.h\"", Lang::C).is_empty());
        assert_eq!(ids("url = \"http://x\" + y", Lang::Go), ["url", "http"]);
        // An escaped quote stays inside its string; an unclosed quote is not a string.
        assert_eq!(ids(r#"s = "a\"b" + c"#, Lang::Ruby), ["s", "c"]);
        assert_eq!(ids("s = \"abc + d", Lang::Ruby), ["s", "abc", "d"]);
        // A backslash before a newline ends no string: the quote is left alone.
        assert_eq!(ids("s = 'a\\\nb' + c", Lang::Php), ["s", "a", "b", "c"]);
        // Runs of word characters: a leading digit or non-ASCII letter is no identifier,
        // a later one is part of it.
        assert_eq!(ids("2fast é_x café x2", Lang::Go), ["café", "x2"]);
        assert_eq!(ids("$this->value", Lang::Php), ["this", "value"]);
        assert_eq!(ids("defined?(x) && nil", Lang::Ruby), ["x"]);
        assert_eq!(
            ids("std::vector<int> v = nullptr and w;", Lang::Cpp),
            ["std", "vector", "v", "w"]
        );
        assert!(ids("", Lang::Java).is_empty());
    }

    #[test]
    fn match_counts_as_cceval() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        // Empty reference and empty prediction: the lists are equal, F1 has nothing: 0.
        let m = identifier_match("", "", Lang::Python);
        assert_eq!((m.em, m.f1), (1.0, 0.0));
        // Keywords only on both sides: no identifiers, the same.
        let m = identifier_match("return None", "pass", Lang::Python);
        assert_eq!((m.em, m.f1), (1.0, 0.0));
        // An empty gt against a prediction with identifiers: fp = 1, F1 = 0, EM 0.
        let m = identifier_match("foo()", "", Lang::Java);
        assert_eq!((m.em, m.f1, m.precision, m.recall), (0.0, 0.0, 0.0, 0.0));
        // Repeats: the lists differ ([a, a, b] vs [a, b]) so EM = 0, but the sets are equal.
        let m = identifier_match("a + a * b", "a * b", Lang::C);
        assert_eq!(m.em, 0.0);
        assert!(close(m.f1, 1.0));
        // Order matters for EM.
        assert_eq!(identifier_match("b(a)", "a(b)", Lang::Go).em, 0.0);
        // pred {x, y, z}, gt {x, y, w, v}: tp 2, fp 1, fn 2: F1 = 4/7, P = 2/3, R = 1/2.
        let m = identifier_match("x.y(z)", "x.y(w, v, w)", Lang::JavaScript);
        assert!(close(m.f1, 4.0 / 7.0) && close(m.precision, 2.0 / 3.0) && close(m.recall, 0.5));
        // Comments and strings do not count.
        let m = identifier_match("f(a) # uses b", "f(a)  // c", Lang::Python);
        assert_eq!((m.em, m.f1), (1.0, 1.0));
    }

    #[test]
    fn recall_overlap_and_cut_off() {
        let s = |p: &str, a: i64, b: i64| Span {
            path: p.into(),
            start_line: a,
            end_line: b,
        };
        let gold = [s("a.py", 10, 20), s("b.py", 1, 5)];
        // Touching at one line overlaps; another path never does.
        let r = [s("b.py", 30, 40), s("a.py", 20, 25), s("c.py", 1, 100)];
        assert_eq!(recall_at_k(&gold, &r, 1), Some(0.0));
        assert_eq!(recall_at_k(&gold, &r, 2), Some(0.5));
        assert_eq!(recall_at_k(&gold, &r, 10), Some(0.5));
        let r = [s("a.py", 21, 30), s("b.py", 5, 5)];
        assert_eq!(recall_at_k(&gold, &r, 2), Some(0.5));
        assert_eq!(recall_at_k(&[], &r, 2), None);
        assert_eq!(recall_at_k(&gold, &[], 5), Some(0.0));
    }

    #[test]
    fn recall_names() {
        let p = |n: &str| ContextRecall::parse(n);
        assert_eq!(p("edit_sim").unwrap(), None);
        let c = p("context_recall@5").unwrap().unwrap();
        assert_eq!((c.k, c.retriever), (5, None));
        let c = p("context_recall@10:bm25").unwrap().unwrap();
        assert_eq!((c.k, c.retriever.as_deref()), (10, Some("bm25")));
        for bad in [
            "context_recall@0",
            "context_recall@",
            "context_recall@k",
            "context_recall@5:",
        ] {
            assert!(matches!(p(bad), Err(Error::Usage(_))), "{bad}");
        }
    }
}
