//! Recovery from syntax errors (`codemine_syntax::extract`'s restart after a broken item) in
//! every language. The reference for a file with a broken item is the same file without it: every
//! function outside the broken item must come out as it does there (names, spans shifted
//! by the inserted text, docstrings, code, tokens, calls), from real tree-sitter parses.

use codemine_syntax::extract::{functions_of, Extractor, Function};

use crate::{Lang, Registry};

/// A file's items, a broken item, and where it goes.
struct Case {
    lang: Lang,
    path: &'static str,
    /// Text before the items (PHP's tag).
    head: &'static str,
    items: &'static [&'static str],
    /// Broken items, each tried at every place between the items.
    broken: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        lang: Lang::C,
        path: "a.c",
        head: "#include <stdio.h>\n\n",
        items: &[
            "/* Add one. */\nint a(int x) { return x + 1; }\n\n",
            "/* Twice x.\n * Really. */\nstatic int b(int x)\n{\n    return 2 * x;\n}\n\n",
            "// Third.\nint c(int x) { return a(x) + b(x); }\n\n",
            // GNU style: the return type on a line of its own.
            "/* GNU. */\nstatic int\ngnu(int x)\n{\n    return x;\n}\n\n",
            "struct s { int f; };\n\n",
            "/** Fourth. */\nchar *d(char *s) {\n    printf(\"%s\", s);\n    return s;\n}\n\n",
            "int e(void) { return 5; }\n",
        ],
        broken: &[
            "int broken( {\n",
            "int broken( {\n    return 1;\n}\n\n",
            "/* Broken. */\nint broken(int x {\n    return x;\n}\n\n",
            "static int z = (1 + ;\n\n",
        ],
    },
    Case {
        lang: Lang::Cpp,
        path: "a.cpp",
        head: "#include <vector>\n\n",
        items: &[
            "// One.\nint a(int x) { return x; }\n\n",
            "// A class.\nclass K {\n public:\n  // Method.\n  int m(int y) { return y + a(y); }\n};\n\n",
            "/** Out of class. */\nint K::n() const { return 2; }\n\n",
            "namespace ns {\n// In a namespace.\nint f(std::vector<int> v) { return v.size(); }\n}  // namespace ns\n\n",
            "template <typename T>\nT g(T t) { return t; }\n",
        ],
        broken: &["int broken( {\n", "class Broken {\n  int x(\n};\n\n"],
    },
    Case {
        lang: Lang::Go,
        path: "a.go",
        head: "package p\n\nimport \"fmt\"\n\n",
        items: &[
            "// A does a.\nfunc A(x int) int { return x }\n\n",
            "type K struct{ n int }\n\n",
            "// M is a method.\nfunc (k *K) M() int {\n\treturn k.n\n}\n\n",
            "// B prints.\n// Twice.\nfunc B() {\n\tfmt.Println(A(1))\n}\n\n",
            "func C() {}\n",
        ],
        broken: &["func broken( {\n", "func broken(x int {\n\treturn\n}\n\n"],
    },
    Case {
        lang: Lang::Java,
        path: "A.java",
        head: "package p;\n\nimport java.util.List;\n\n",
        items: &[
            "/** A class. */\nclass A {\n  /** Method a. */\n  int a(int x) { return x; }\n\n  // b.\n  void b() { a(1); }\n}\n\n",
            "interface I {\n  default int i() { return 1; }\n}\n\n",
            "class B {\n  /** c. */\n  static List<String> c() { return null; }\n}\n",
        ],
        broken: &[
            "class Broken {\n  int broken( {\n}\n\n",
            "class Broken {\n  void ok() {}\n  int broken( {\n    return 1;\n  }\n}\n\n",
        ],
    },
    Case {
        lang: Lang::JavaScript,
        path: "a.js",
        head: "'use strict';\n\n",
        items: &[
            "/** Adds. */\nfunction a(x) { return x + 1; }\n\n",
            "// B.\nconst b = function (y) {\n  return a(y);\n};\n\n",
            "class K {\n  // A method.\n  m() { return b(2); }\n}\n\n",
            "/**\n * C.\n */\nexport function c() {\n  return `t${a(1)}`;\n}\n\n",
            "function d() {}\n",
        ],
        broken: &[
            "function broken( {\n",
            "function broken( {\n  return 1;\n}\n\n",
            "const x = {\n",
        ],
    },
    Case {
        lang: Lang::TypeScript,
        path: "a.ts",
        head: "import { X } from './x';\n\n",
        items: &[
            "/** Adds. */\nfunction a(x: number): number { return x + 1; }\n\n",
            "interface I { f(): void }\n\n",
            "class K implements I {\n  // A method.\n  f(): void { a(2); }\n}\n\n",
            "/** C. */\nexport function c<T>(t: T): T {\n  return t;\n}\n\n",
            "function d(): X { return null; }\n",
        ],
        broken: &["function broken( {\n", "function broken(x: number {\n  return x;\n}\n\n"],
    },
    Case {
        lang: Lang::Php,
        path: "a.php",
        head: "<?php\n\nnamespace App;\n\n",
        items: &[
            "/** Adds. */\nfunction a($x) { return $x + 1; }\n\n",
            "class K {\n    /** A method. */\n    public function m($y) { return a($y); }\n}\n\n",
            "// C.\nfunction c() {\n    return [1, 2];\n}\n\n",
            "function d() {}\n",
        ],
        broken: &["function broken( {\n", "function broken($x {\n    return $x;\n}\n\n"],
    },
    Case {
        lang: Lang::Python,
        path: "a.py",
        head: "import os\n\n",
        items: &[
            "def a(x):\n    \"\"\"Adds one.\"\"\"\n    return x + 1\n\n\n",
            "class K:\n    \"\"\"A class.\"\"\"\n\n    def m(self):\n        \"\"\"A method.\"\"\"\n        return a(1)\n\n\n",
            "@decorator\ndef c():\n    '''C.'''\n    return os.sep\n\n\n",
            "def d():\n    pass\n",
        ],
        broken: &["def broken(:\n    pass\n\n\n", "def broken(x\n    return x\n\n\n"],
    },
    Case {
        lang: Lang::Ruby,
        path: "a.rb",
        head: "require 'set'\n\n",
        items: &[
            "# Adds one.\ndef a(x)\n  x + 1\nend\n\n",
            "# A class.\nclass K\n  # A method.\n  def m(y)\n    a(y)\n  end\nend\n\n",
            "module M\n  def self.c\n    [1, 2].map { |v| v * 2 }\n  end\nend\n\n",
            "def d; end\n",
        ],
        broken: &["def broken(\n", "def broken(x\n  x +\nend\n\n", "class Broken\n  def x(\nend\n\n"],
    },
];

/// Where tree-sitter resumed right after an error, recovery keeps what its parse found:
/// here the function under a line that tree-sitter could not read (`static BOOL
/// WINAPI`, an unknown macro, then the name on the next line, as in jemalloc's tsd.c)
/// was cut from its return type at a restart and lost.
#[test]
fn recovery_keeps_what_a_resumed_parse_found() {
    let src = "#include <x.h>\n\nint a(void) { return 1; }\n\n#ifdef _WIN32\n\
               static BOOL WINAPI\nwin(HINSTANCE h, DWORD r) {\n\tswitch (r) {\n\
               #ifdef LAZY\n\tcase 1:\n\t\tbreak;\n#endif\n\tdefault:\n\t\tbreak;\n\t}\n\
               \treturn true;\n}\n#endif\n\nint b(void) { return 2; }\n";
    let mut ex = Extractor::default();
    let tree = ex.parse_path(Lang::C, "a.c", src).expect("parses");
    assert!(tree.root_node().has_error());
    let names =
        |fs: &[Function]| -> Vec<String> { fs.iter().map(|f| f.qualified_name.clone()).collect() };
    let first = functions_of(Lang::C.spec(), &tree, src);
    assert_eq!(names(&first.functions), ["a", "win", "b"]);
    let got = ex.extract_path(Lang::C, "a.c", src).expect("extracts");
    assert_eq!(names(&got.functions), names(&first.functions));
}

/// What must survive, with spans moved back by `shift` (bytes, lines) when the function
/// starts at or after `at`.
fn key(f: &Function, at: usize, shift: (usize, u32)) -> String {
    let (b, l) = if f.byte_range.start >= at {
        shift
    } else {
        (0, 0)
    };
    let calls: Vec<(String, u32)> = f
        .calls
        .iter()
        .map(|c| (c.text.clone(), c.line - l))
        .collect();
    format!(
        "{} {} {:?} {}..{} lines {}-{} sig {:?} doc {:?} csn {:?} code {:?} tokens {:?} calls {:?} err {}",
        f.qualified_name,
        f.name,
        f.kind,
        f.byte_range.start - b,
        f.byte_range.end - b,
        f.start_line - l,
        f.end_line - l,
        f.signature,
        f.docstring,
        f.csn_docstring,
        f.code,
        f.code_tokens,
        calls,
        f.syntax_error
    )
}

#[test]
fn a_broken_item_costs_only_itself() {
    let mut ex = Extractor::default();
    let mut failures = Vec::new();
    for case in CASES {
        let clean: String = std::iter::once(case.head)
            .chain(case.items.iter().copied())
            .collect();
        let reference = ex
            .extract_path(case.lang, case.path, &clean)
            .expect("extracts");
        assert!(
            !reference.has_errors,
            "{:?}: the clean file parses",
            case.lang
        );
        assert!(reference.functions.len() >= 4, "{:?}", case.lang);
        let want: Vec<String> = reference
            .functions
            .iter()
            .map(|f| key(f, usize::MAX, (0, 0)))
            .collect();
        for broken in case.broken {
            // Before the first item, between any two, after the last.
            for k in 0..=case.items.len() {
                let at: usize =
                    case.head.len() + case.items[..k].iter().map(|i| i.len()).sum::<usize>();
                let mut src = clean.clone();
                // After the last item, on a line of its own.
                let insert = if k == case.items.len() {
                    format!("\n{broken}")
                } else {
                    broken.to_string()
                };
                src.insert_str(at, &insert);
                let lines = insert.matches('\n').count() as u32;
                let got = ex
                    .extract_path(case.lang, case.path, &src)
                    .expect("extracts");
                if !got.has_errors {
                    failures.push(format!("{:?} {broken:?} at {k}: no error", case.lang));
                }
                // The broken item's own functions (named `broken`, or a method of
                // `Broken`) are no reference's.
                let inside = |f: &Function| {
                    f.byte_range
                        .start
                        .checked_sub(at)
                        .is_some_and(|d| d < insert.len())
                };
                let got_keys: Vec<String> = got
                    .functions
                    .iter()
                    .filter(|f| !inside(f))
                    .map(|f| key(f, at, (insert.len(), lines)))
                    .collect();
                if got_keys != want {
                    failures.push(format!(
                        "{:?}: {broken:?} inserted before item {k}: got\n{}\nwant\n{}\n",
                        case.lang,
                        got_keys.join("\n"),
                        want.join("\n")
                    ));
                }
                // The broken function is counted as lost, once (a broken item without a
                // function, such as a bad initializer, loses none).
                let kept_broken = got.functions.iter().filter(|f| f.name == "broken").count();
                if broken.contains("broken(") && got.dropped_syntax_error + kept_broken != 1 {
                    failures.push(format!(
                        "{:?}: {broken:?} before item {k}: {} dropped, {kept_broken} kept",
                        case.lang, got.dropped_syntax_error
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
