//! Inputs that must not break the parser: unbalanced delimiters, deep nesting, random
//! mixtures of every convention's syntax, and texts at and past the size limit. Parsing
//! never panics, and a text past the limit parses as its first `MAX_DOCSTRING_BYTES`.

use std::time::{Duration, Instant};

use codemine_docstring::{parse, Language, Style, MAX_DOCSTRING_BYTES};

const LANGUAGES: [Language; 12] = [
    Language::Python,
    Language::Java,
    Language::JavaScript,
    Language::TypeScript,
    Language::Php,
    Language::Ruby,
    Language::Go,
    Language::C,
    Language::Cpp,
    Language::Rust,
    Language::CSharp,
    Language::Other,
];

/// Pieces of every convention's syntax, drawn at random by [`mixture`].
const PIECES: &[&str] = &[
    "@param",
    "@return",
    "@throws",
    "\\param",
    "@!macro",
    ":param",
    ":rtype:",
    ":",
    "::",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "<",
    ">",
    "</",
    "/>",
    "<param name=\"",
    "\"",
    "'",
    "=",
    "$",
    "&",
    "...",
    "*",
    "**",
    "`",
    "#",
    "# Errors",
    "* `x` -",
    "```",
    "Args:",
    "Returns:",
    "Parameters\n----------",
    "-----",
    ".. deprecated::",
    ">>>",
    "<pre>",
    "</pre>",
    "@code",
    "\\endcode",
    "&amp;",
    "&#",
    "\n",
    "\n\n",
    "    ",
    "\t",
    " ",
    "x",
    "é",
    "\u{1c}",
    "\r\n",
    "/**",
    "*/",
    "//",
    "///",
];

/// A deterministic pseudo-random text of `n` pieces (a linear congruential generator).
fn mixture(seed: u64, n: usize) -> String {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut out = String::new();
    for _ in 0..n {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.push_str(PIECES[(state >> 33) as usize % PIECES.len()]);
    }
    out
}

#[test]
fn random_mixtures_never_panic() {
    for seed in 0..300u64 {
        let text = mixture(seed, 5 + (seed as usize % 200));
        for lang in LANGUAGES {
            let d = parse(&text, lang);
            // Serialisable whatever it found.
            serde_json::to_string(&d).unwrap();
        }
    }
}

#[test]
fn unbalanced_and_deeply_nested() {
    let cases = [
        "@param {{{{{{{{ x".to_string(),
        "@param [[[[[[ x".to_string(),
        "@param {".to_string(),
        "<summary>".repeat(20_000),
        "</param>".repeat(20_000),
        "<a b=\"".repeat(5_000),
        "<!-- never closed".to_string(),
        "<![CDATA[ never closed".to_string(),
        "```\n# Errors\n".repeat(2_000),
        "(".repeat(30_000) + "@param x y",
        "@".repeat(40_000),
        "\\".repeat(40_000),
        ":".repeat(40_000),
        "Args:\n".repeat(8_000),
        "Parameters\n----------\n".repeat(2_000),
        "&#x110000; &#99999999999; &;".to_string(),
    ];
    for text in &cases {
        for lang in LANGUAGES {
            let _ = parse(text, lang);
        }
    }
}

/// At the limit every convention stays fast (linear work: a quadratic step would take
/// minutes on these texts), and a longer text is cut there.
#[test]
fn size_limit_bounds_the_work() {
    let unit = "@param {int} x the x\n:param y: the y\n    Args:\n        z (int): z\n<param name=\"w\">w</param>\n* `v` - v\n";
    let big = unit.repeat(MAX_DOCSTRING_BYTES / unit.len() + 1);
    assert!(big.len() > MAX_DOCSTRING_BYTES);
    let limit = std::env::var("CODEMINE_DOCSTRING_SLOW_LIMIT_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    for lang in LANGUAGES {
        let start = Instant::now();
        let d = parse(&big, lang);
        let took = start.elapsed();
        assert!(
            took < Duration::from_secs(limit),
            "{lang:?}: {took:?} for a text at the limit"
        );
        let cut = &big[..big[..MAX_DOCSTRING_BYTES].rfind('\n').unwrap()];
        assert_eq!(
            d,
            parse(cut, lang),
            "{lang:?}: the text past the limit is ignored"
        );
        assert_ne!(d.style, Style::None);
    }
    // Many parameters: no quadratic merge of names.
    let many: String = (0..2000)
        .map(|i| format!("@param p{i} the {i}th\n"))
        .collect();
    let start = Instant::now();
    assert_eq!(parse(&many, Language::Java).params.len(), 2000);
    assert!(start.elapsed() < Duration::from_secs(limit));
}
