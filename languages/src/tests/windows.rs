//! Huge files cut into windows (`codemine_syntax::extract::window`) in every language: where
//! the cuts fall, and windowed extraction against a parse of the whole file.

mod cuts {
    use codemine_syntax::extract::window::cuts;

    use crate::{Lang, Registry};

    fn bytes(lang: Lang, src: &str) -> Vec<usize> {
        cuts(lang, src, 1).iter().map(|c| c.byte).collect()
    }

    #[test]
    fn c_cuts_only_between_items() {
        let src = "int a[] = {1, 2};\nstruct S { int x; } s;\nint f(void) { return '}'; }\n/* doc */\nint g(void) { return 0; }\n#if X\nint h(void) { return 1; }\n#endif\nint k(void) {}";
        let at = |s: &str| src.find(s).expect("present");
        assert_eq!(
            bytes(Lang::C, src),
            [at("struct S"), at("int f"), at("/* doc */"), at("#if X")]
        );
    }

    #[test]
    fn python_cuts_before_top_level_definitions() {
        let src = "import os\n\n@dec\n# c\ndef f():\n    s = '''\ndef no():\n'''\n    return (\ndef_ )\nclass A:\n    def m(self): pass\nx = 1\nasync def g(): pass\n";
        let at = |s: &str| src.find(s).expect("present");
        assert_eq!(
            bytes(Lang::Python, src),
            [at("@dec"), at("class A"), at("async def")]
        );
        let c = cuts(Lang::Python, src, 1);
        assert_eq!((c[1].row, c[1].column), (10, 0));
    }
}

/// The windowed extraction against the reference, a parse of the whole file: every field of
/// every function (names, qualified names, lines, byte ranges, code, code tokens,
/// docstrings, calls, locals) and of the file's declarations must be equal.
mod equivalence {
    use std::fmt::Write as _;
    use std::path::Path;

    use codemine_syntax::extract::{window, Extractor, FileFunctions};

    use crate::{Lang, Registry};

    /// Extracts `src` whole and in windows of `window` bytes; asserts both agree and returns
    /// whether windows were used (false: no safe cut, or a window that did not parse cleanly).
    fn agree(lang: Lang, src: &str, window: usize, what: &str) -> bool {
        let whole: FileFunctions = Extractor::with_windows(usize::MAX, 0)
            .extract(lang, src)
            .expect("parses");
        let mut ex = Extractor::with_windows(0, window);
        let parts = ex.extract(lang, src).expect("parses");
        assert_eq!(
            whole.functions.len(),
            parts.functions.len(),
            "{what}: function count"
        );
        for (w, p) in whole.functions.iter().zip(&parts.functions) {
            assert_eq!(w, p, "{what}: function {}", w.qualified_name);
        }
        assert_eq!(whole.info, parts.info, "{what}: file declarations");
        assert_eq!(
            (whole.dropped_syntax_error, whole.has_errors),
            (parts.dropped_syntax_error, parts.has_errors),
            "{what}: errors"
        );
        ex.windowed_files() == 1
    }

    fn lang_of(path: &Path) -> Option<Lang> {
        Lang::from_path(&path.to_string_lossy())
    }

    /// Every source file under `dir`, recursively, in a stable order.
    fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                sources(&p, out);
            } else if lang_of(&p).is_some() {
                out.push(p);
            }
        }
    }

    /// The repository's fixtures (real-world shapes: a C project, Java, Python, a broken C
    /// file), each cut at every safe place and at about every 200 bytes. With
    /// `CODEMINE_WINDOW_CORPUS=dir`, every source file under `dir` too (for checking against
    /// real repositories by hand).
    #[test]
    fn fixtures_and_corpus_agree_with_whole_file_parsing() {
        let mut files = Vec::new();
        sources(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures"),
            &mut files,
        );
        let fixtures = files.len();
        if let Some(dir) = std::env::var_os("CODEMINE_WINDOW_CORPUS") {
            sources(Path::new(&dir), &mut files);
        }
        let (mut windowed, mut checked, mut fixtures_windowed) = (0, 0, 0);
        for (k, path) in files.iter().enumerate() {
            let Ok(src) = std::fs::read_to_string(path) else {
                continue;
            };
            let Some(lang) = lang_of(path) else { continue };
            let what = path.display().to_string();
            for window in [1, 200] {
                let used = usize::from(agree(lang, &src, window, &what));
                windowed += used;
                fixtures_windowed += if k < fixtures { used } else { 0 };
                checked += 1;
            }
        }
        eprintln!(
            "{} files, {checked} extractions compared, {windowed} of them in windows",
            files.len()
        );
        assert!(fixtures >= 20, "fixtures found: {fixtures}");
        // 38 of the 78 fixture extractions are cut today: not the headers, whose include
        // guard holds every item, nor the files with syntax errors.
        assert!(
            fixtures_windowed >= 38,
            "windowed {fixtures_windowed} of the fixtures' {}",
            fixtures * 2
        );
    }

    const C_TRICKY: &str = r#"/* File comment. */
#include <stdio.h>
#include "local.h"
#define OPEN {
#define CLOSE(x) } while (0); f(x)
#define LONG_MACRO(a) do { \
    g(a); \
  } while (0)

static const char *s = "} int fake(void) { \" ";
static char c = '}';
int table[] = { 1, 2, 3 };
struct point { int x; int y; } origin = { 0, 0 };
typedef struct { int a; } pair;
enum color { RED, GREEN };

/* Adds. */ int add(int a, int b) { return a + b; } /* trailing, not a docstring */ int sub(int a, int b) { return a - b; }
/**
 * Documented across lines: { not a brace.
 */
int mul(int a, int b) {
    // } a brace in a comment
    const char *t = "{{{";
    return a * b + (t[0] == '{');
}
#if defined(FEATURE)
int feature(void) { return 1; }
#else
int feature(void) { return 0; }
#endif
int kr(a, b)
int a;
int b;
{
    return add(a, b);
}
int (*pick(int k))(int, int) { return k ? add : sub; }
extern int proto(int);
static int with_macro(int v) { LONG_MACRO(v); return proto(v); }
"#;

    /// A string continued with a backslash (tree-sitter-c takes none before `\r\n`: that
    /// file has a syntax error and is parsed whole, so this one is checked with `\n` only).
    const C_CONTINUED: &str = "int f(void) { return 1; }\nstatic const char *cont = \"a \\\n } b\";\nint g(void) { return 2; }\n";

    const CPP_TRICKY: &str = r#"#include <vector>
namespace ns {
int in_ns(int a) { return a; }
}
auto lambda = [](int x) { return x + 1; };
static const char *raw = R"xy(} int no(){ )xy";
long big = 1'000'000;
template <typename T>
T twice(T v) { return v + v; }
class Box {
 public:
  int get() const { return v_; }
 private:
  int v_ = 0;
};
/// Doc of after.
int Box_after(int x) { return twice(x); }
void Box::set(int v) { v_ = v; }
"#;

    const PY_TRICKY: &str = r#""""Module docstring
def not_a_function():
"""
import os
from . import sibling as sib

@decorator(
    arg=1,
)
# a comment between
@other
def decorated(a):
    """Decorated."""
    return os.path.join(a, sib.x)


class Outer:
    """Outer."""

    class Inner:
        def method(self):
            """Inner method."""
            return 1

    def outer_method(self):
        s = """
def inside_string():
    pass
"""
        return s

x = (1,
def_ := 2)
y = 1 + \
    2
z = 'a \
b'
async def fetch(u):
    """Fetch."""
    return await u


if x:
    def conditional():
        return 0
else:
    def conditional():
        return 1
def last(): return last()
"#;

    const JAVA_TRICKY: &str = r#"package a.b;

import java.util.List;
import static java.lang.Math.max;

/** First. */
public class First {
    /** Doc. */
    public int f(int a) { return max(a, 1); }
    String block = """
        } class Fake { void g() { \
        """;
}

@Deprecated
class Second {
    char c = '}';
    void h() { new First().f(2); }
}
interface Third { default void i() {} }
"#;

    #[test]
    fn tricky_files_agree_with_whole_file_parsing() {
        assert!(agree(Lang::C, C_CONTINUED, 1, "continued string"));
        assert_eq!(window::cuts(Lang::C, C_CONTINUED, 1).len(), 2);
        for (lang, src) in [
            (Lang::C, C_TRICKY),
            (Lang::Cpp, CPP_TRICKY),
            (Lang::Python, PY_TRICKY),
            (Lang::Java, JAVA_TRICKY),
        ] {
            // Also with Windows line ends.
            for src in [src.to_string(), src.replace('\n', "\r\n")] {
                for window in [1, 50, 300] {
                    assert!(
                        agree(lang, &src, window, &format!("{lang:?} window {window}")),
                        "{lang:?} window {window}: windows were not used"
                    );
                }
            }
        }
    }

    #[test]
    fn generated_files_agree_and_long_items_span_windows() {
        // The long-line C file of the benchmark (a function and a same-line comment each).
        let mut c = String::new();
        for n in 0..400u32 {
            let _ = write!(
                c,
                "/* Adds {n}. */ static int f{n}(int a, int b) {{ int c = a + b * {n}; return f{}(c, a) + g{}(b); }} ",
                n.saturating_sub(1),
                n % 7
            );
        }
        c.push('\n');
        assert!(agree(Lang::C, &c, 1000, "long-line C"));
        // A Python class of many methods spans many windows; functions around it are cut.
        let mut py = String::from("def before():\n    return 0\n\n\nclass Big:\n");
        for n in 0..300u32 {
            let _ = write!(
                py,
                "    @staticmethod\n    def m{n}(a):\n        \"\"\"M {n}.\"\"\"\n        return Big.m{}(a)\n\n",
                n.saturating_sub(1)
            );
        }
        py.push_str("def after():\n    return Big()\n");
        assert!(agree(Lang::Python, &py, 100, "big class"));
        // One giant function: no safe cut, the whole file is parsed.
        let mut giant = String::from("int giant(int a) {\n");
        for n in 0..2000 {
            let _ = writeln!(giant, "    a = a * {n} + 1; /* }} */");
        }
        giant.push_str("    return a;\n}\n");
        assert!(window::cuts(Lang::C, &giant, 100).is_empty());
        assert!(!agree(Lang::C, &giant, 100, "giant function"));
        // A file with a syntax error: windows are abandoned for the whole parse.
        let broken = format!("{c}int broken(int a {{ return a; }}\n{c}");
        assert!(!agree(Lang::C, &broken, 1000, "broken C"));
    }
}
