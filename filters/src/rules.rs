//! The predicates behind the rules: languages, path globs and the default excludes, the
//! name and docstring heuristics of the presets. Each is a plain function so it can be
//! tested on its own against the published rule it reproduces.

use std::sync::LazyLock;

use globset::{Glob, GlobBuilder};
use regex::Regex;

use crate::{FunctionView, Kind};

/// The languages a filter may name, as the miner's language registry knows them (the list
/// is written there, once): each language's canonical name and its other spellings, lower
/// case.
#[derive(Debug, Clone, Copy)]
pub struct KnownLanguages<'a>(pub &'a [(&'static str, &'static [&'static str])]);

impl KnownLanguages<'_> {
    /// A language as a user may write it (`Python`, `c++`) to its canonical name.
    pub fn canonical(&self, name: &str) -> Option<&'static str> {
        let n = name.trim().to_ascii_lowercase();
        self.0
            .iter()
            .find(|(l, aliases)| *l == n || aliases.contains(&n.as_str()))
            .map(|(l, _)| *l)
    }

    /// The canonical names, comma-separated, for error messages.
    pub fn names(&self) -> String {
        self.0
            .iter()
            .map(|(l, _)| *l)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The built-in excludes for vendored and generated code, matched case-insensitively
/// against the '/'-separated repository path (`**` spans folders, `*` does not).
///
/// Left out on purpose: `deps/`, `external/`, `extern/`, `lib/`, `build/`, `gen/`, `venv/`.
/// They hold vendored code in some projects and a project's own code in others (redis's
/// `deps/` has its own hiredis and linenoise next to jemalloc and lua; CPython's
/// `Lib/venv/` is the standard library), so excluding them must be the user's choice
/// (`--exclude 'deps/'`).
pub const DEFAULT_EXCLUDES: &[&str] = &[
    // Vendored third-party code.
    "**/vendor/**",
    "**/vendored/**",
    "**/_vendor/**",
    "**/third_party/**",
    "**/third-party/**",
    "**/thirdparty/**",
    "**/3rdparty/**",
    "**/3rd_party/**",
    "**/3rd-party/**",
    "**/node_modules/**",
    "**/bower_components/**",
    "**/site-packages/**",
    // Minified files (no mined language today; kept for when one is added).
    "**/*.min.js",
    "**/*.min.css",
    // Generated code: generator output folders.
    "**/generated/**",
    "**/__generated__/**",
    "**/generated-sources/**",
    "**/gen-cpp/**",
    "**/gen-java/**",
    "**/gen-py/**",
    // Protocol Buffers (protoc, gRPC, nanopb, protobuf-c) and FlatBuffers.
    "**/*_pb2.py",
    "**/*_pb2_grpc.py",
    "**/*.pb.cc",
    "**/*.pb.h",
    "**/*.pb.c",
    "**/*.pb-c.c",
    "**/*.pb-c.h",
    "**/*_generated.h",
    // Qt moc/rcc, SWIG wrappers, lex and yacc/bison output.
    "**/moc_*.cpp",
    "**/qrc_*.cpp",
    "**/*_wrap.c",
    "**/*_wrap.cxx",
    "**/lex.yy.c",
    "**/*.tab.c",
    "**/*.tab.h",
    "**/*.tab.cc",
    "**/*.tab.hh",
];

/// A user's exclude pattern in globset syntax, after the .gitignore-like conventions:
/// a leading `/` anchors at the repository root, a pattern with no other `/` matches at
/// any depth (`*.py` is `**/*.py`), a trailing `/` means everything under that folder.
pub fn normalize_glob(pattern: &str) -> Result<String, String> {
    let p = pattern.trim();
    if p.is_empty() || p == "/" {
        return Err("empty pattern".to_string());
    }
    let (anchored, p) = match p.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, p),
    };
    let (dir, p) = match p.strip_suffix('/') {
        Some(rest) => (true, rest),
        None => (false, p),
    };
    let mut out = String::new();
    if !anchored && !p.contains('/') {
        out.push_str("**/");
    }
    out.push_str(p);
    if dir {
        out.push_str("/**");
    }
    // Errors quote the pattern as the user wrote it.
    build_glob(&out, false).map_err(|kind| glob_error(pattern, &kind))?;
    Ok(out)
}

/// A globset pattern with `*` stopping at `/`.
pub fn compile_glob(pattern: &str, case_insensitive: bool) -> Result<Glob, String> {
    build_glob(pattern, case_insensitive).map_err(|kind| glob_error(pattern, &kind))
}

fn build_glob(pattern: &str, case_insensitive: bool) -> Result<Glob, String> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .case_insensitive(case_insensitive)
        .build()
        .map_err(|e| e.kind().to_string())
}

fn glob_error(pattern: &str, kind: &str) -> String {
    format!("'{pattern}' is not a valid glob: {kind}")
}

/// ASCII case-insensitive substring test, without allocating.
fn contains_ignore_ascii_case(haystack: &str, needle: &str) -> bool {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// CodeSearchNet: "test" anywhere in the function's simple name, in any case (so
/// `testParse`, `TestCase` and, as in CodeSearchNet, `get_latest`).
pub fn csn_test_name(f: &FunctionView) -> bool {
    contains_ignore_ascii_case(f.name, "test")
}

/// `java.lang.Object`'s overridable methods: function_parser's
/// `JavaParser.BLACKLISTED_FUNCTION_NAMES`.
const OBJECT_METHODS: &[&str] = &[
    "toString",
    "hashCode",
    "equals",
    "finalize",
    "notify",
    "notifyAll",
    "clone",
];

/// function_parser's `RubyParser.BLACKLISTED_FUNCTION_NAMES` (its `initialize` is a
/// constructor here).
const RUBY_METHODS: &[&str] = &[
    "initialize",
    "to_text",
    "display",
    "dup",
    "clone",
    "equal?",
    "==",
    "<=>",
    "===",
    "<=",
    "<",
    ">",
    ">=",
    "between?",
    "eql?",
    "hash",
];

/// PHP's magic methods: function_parser's `PhpParser.BLACKLISTED_FUNCTION_NAMES`.
const PHP_MAGIC_METHODS: &[&str] = &[
    "__construct",
    "__destruct",
    "__call",
    "__callStatic",
    "__get",
    "__set",
    "__isset",
    "__unset",
    "__sleep",
    "__wakeup",
    "__toString",
    "__invoke",
    "__set_state",
    "__clone",
    "__debugInfo",
    "__serialize",
    "__unserialize",
];

/// CodeSearchNet: constructors and standard methods. Sources: the CodeSearchNet paper
/// (arXiv:1909.09436, §2.2 Filtering: "we remove constructors and standard extension
/// methods such as `__str__` in Python or `toString` in Java") and github/CodeSearchNet
/// `function_parser/function_parser/parsers/`: `java_parser.py` skips
/// `BLACKLISTED_FUNCTION_NAMES = {toString, hashCode, equals, finalize, notify, notifyAll,
/// clone}`, `ruby_parser.py` skips its own list (`RUBY_METHODS`), `python_parser.py` skips methods named `__x__` ("Blacklist built-in
/// functions"; its check runs on the `Class.name` string, so upstream it only fired for
/// class names starting with `__`; we apply the evident intent to the method name).
/// Extended to C++ the same way: destructors (`~Foo`), operator overloads (C++'s
/// `__eq__`/`__add__`) and the Java names on methods. PHP: `php_parser.py`'s magic methods.
pub fn csn_special_method(f: &FunctionView) -> bool {
    if f.kind == Kind::Constructor {
        return true;
    }
    match f.language {
        "python" => is_dunder(f.name),
        "java" => OBJECT_METHODS.contains(&f.name),
        "ruby" => RUBY_METHODS.contains(&f.name),
        "php" => PHP_MAGIC_METHODS
            .iter()
            .any(|m| m.eq_ignore_ascii_case(f.name)),
        "cpp" => {
            f.name.starts_with('~')
                || is_operator(f.name)
                || (f.kind == Kind::Method && OBJECT_METHODS.contains(&f.name))
        }
        _ => false,
    }
}

/// `__init__`, `__str__`, ...: at least one character between the underscores.
fn is_dunder(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

/// `operator+`, `operator()`, `operator bool`, `operator""_km`; not `operators`.
fn is_operator(name: &str) -> bool {
    match name.strip_prefix("operator") {
        Some(rest) => rest
            .chars()
            .next()
            .is_some_and(|c| !(c.is_alphanumeric() || c == '_')),
        None => false,
    }
}

/// YABLoCo `is_not_test`: "test" (case-sensitive) in the path or the name. YABLoCo's
/// `file` also starts with the repository's folder name; we look at the repository path
/// only, so a repository called `googletest` is not dropped whole.
pub fn yabloco_test(f: &FunctionView) -> bool {
    f.path.contains("test") || f.name.contains("test")
}

/// YABLoCo's `has_docstring`: the docstring must exist, hold more than 3 words (Python's
/// `str.split()`), and contain neither "Copyright", "====", nor a C function definition
/// (their regex, together with a `}` anywhere).
pub fn yabloco_docstring_ok(doc: Option<&str>) -> bool {
    static CODE_LIKE: LazyLock<Regex> = LazyLock::new(|| {
        // From generate_benchmark.py, `{` escaped for the regex crate. A constant pattern:
        // the tests compile it.
        Regex::new(r"[a-zA-Z0-9_]+[ \n\t\r]?\([ \n\t\r&,_a-zA-Z0-9]+\)[ \n\t\r]*\{")
            .expect("constant regex")
    });
    let Some(doc) = doc else { return false };
    if doc.contains("Copyright") || doc.contains("====") {
        return false;
    }
    if doc.contains('}') && CODE_LIKE.is_match(doc) {
        return false;
    }
    python_split_count(doc) > 3
}

/// `len(s.split())`: Python's whitespace also has the separators U+001C..U+001F.
fn python_split_count(s: &str) -> usize {
    s.split(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
        .filter(|w| !w.is_empty())
        .count()
}

/// CodeXGLUE: "documents contain special tokens (e.g. `<img ...>` or `https:...`)". A URL
/// is `http://`, `https://` or a word starting `www.`; an HTML tag is a known HTML element
/// name in angle brackets (opening, closing or self-closing, any case, with attributes) or
/// an HTML comment. Requiring a known element name and no identifier character right
/// before the `<` keeps generics (`List<String>`, `Map<K, V>`, `Optional<B>`) and
/// `#include <stdio.h>` from counting as HTML.
pub fn has_url_or_html(doc: &str) -> bool {
    static URL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)https?://|\bwww\.").expect("constant regex") // tested
    });
    static TAG: LazyLock<Regex> = LazyLock::new(|| {
        let names = HTML_ELEMENTS.join("|");
        Regex::new(&format!(
            r"(?i)(?:^|[^\w])</?(?:{names})(?:\s[^<>]*)?/?>|<!--"
        ))
        .expect("constant regex") // tested
    });
    URL.is_match(doc) || TAG.is_match(doc)
}

/// HTML element names that appear in documentation comments (Javadoc, Doxygen, docstrings).
const HTML_ELEMENTS: &[&str] = &[
    "a",
    "abbr",
    "b",
    "big",
    "blockquote",
    "body",
    "br",
    "caption",
    "center",
    "cite",
    "code",
    "col",
    "dd",
    "del",
    "div",
    "dl",
    "dt",
    "em",
    "font",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "hr",
    "html",
    "i",
    "iframe",
    "img",
    "ins",
    "kbd",
    "li",
    "ol",
    "p",
    "pre",
    "q",
    "s",
    "samp",
    "script",
    "small",
    "span",
    "strike",
    "strong",
    "style",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "tt",
    "u",
    "ul",
    "var",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_conventions() {
        assert_eq!(normalize_glob("*.py").unwrap(), "**/*.py");
        assert_eq!(normalize_glob("vendor/").unwrap(), "**/vendor/**");
        assert_eq!(normalize_glob("docs/**").unwrap(), "docs/**");
        assert_eq!(normalize_glob("/build/").unwrap(), "build/**");
        assert_eq!(normalize_glob("/setup.py").unwrap(), "setup.py");
        assert!(normalize_glob("").is_err());
        let e = normalize_glob("src/[a").unwrap_err();
        assert!(e.contains("'src/[a' is not a valid glob"), "{e}");
    }

    #[test]
    fn default_excludes_compile_and_match() {
        let mut b = globset::GlobSetBuilder::new();
        for p in DEFAULT_EXCLUDES {
            b.add(compile_glob(p, true).unwrap());
        }
        let set = b.build().unwrap();
        for hit in [
            "vendor/lib.c",
            "src/vendor/x/y.py",
            "ThirdParty/zlib/inflate.c",
            "third_party/abseil/str.cc",
            "web/node_modules/x/index.js",
            "pip/_vendor/six.py",
            "proto/api_pb2.py",
            "src/msg.pb.cc",
            "include/msg.pb.h",
            "build/generated/Foo.java",
            "target/generated-sources/antlr/Parser.java",
            "assets/app.min.js",
            "src/parser.tab.c",
            "src/lex.yy.c",
            "ui/moc_window.cpp",
        ] {
            assert!(set.is_match(hit), "{hit} should be excluded");
        }
        for keep in [
            "src/server.c",
            "deps/hiredis/hiredis.c",
            "external/foo.c",
            "Lib/venv/__init__.py",
            "src/vendors.py",
            "src/generator.py",
            "src/pb.c",
            "lib/tab.c",
            "src/main/java/com/x/Vendor.java",
        ] {
            assert!(!set.is_match(keep), "{keep} should be kept");
        }
    }

    #[test]
    fn languages() {
        const TABLE: &[(&str, &[&str])] = &[("python", &["py"]), ("cpp", &["c++", "cxx"])];
        let known = KnownLanguages(TABLE);
        assert_eq!(known.canonical("C++"), Some("cpp"));
        assert_eq!(known.canonical(" Python "), Some("python"));
        assert_eq!(known.canonical("rust"), None);
        assert_eq!(known.names(), "python, cpp");
    }

    #[test]
    fn operators_and_dunders() {
        assert!(is_operator("operator+"));
        assert!(is_operator("operator()"));
        assert!(is_operator("operator bool"));
        assert!(is_operator("operator\"\"_km"));
        assert!(!is_operator("operators"));
        assert!(!is_operator("operator_helper"));
        assert!(!is_operator("operator"));
        assert!(is_dunder("__init__"));
        assert!(is_dunder("__str__"));
        assert!(!is_dunder("____"));
        assert!(!is_dunder("__private"));
        assert!(!is_dunder("_x_"));
    }

    #[test]
    fn python_split() {
        assert_eq!(python_split_count("  a\tb\nc\u{1f}d  "), 4);
        assert_eq!(python_split_count(""), 0);
    }
}
