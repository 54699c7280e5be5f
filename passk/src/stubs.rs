//! The stub of task validation (`eval --execute --validate`, as EvoCodeBench checks its
//! tasks): the function with a body that fails at once, which the covering tests must
//! reject. A task whose tests pass the stub does not test the function.
//!
//! - Python: the body `raise NotImplementedError` (a body sample, [`crate::splice`] keeps the
//!   decorators and signature).
//! - Languages with braces: the function's text up to its body, found by the language's
//!   tree-sitter grammar (a `{` in an annotation, a default argument or an `interface{}`
//!   parameter type is not the body), then a body whose first statement fails, then what
//!   followed the body on the span's lines (`;` of `const f = () => {...};`):
//!   C and C++ `__builtin_trap();` (GCC and Clang, no header needed), Java
//!   `throw new UnsupportedOperationException(...)`, Go `panic(...)`, JavaScript and
//!   TypeScript `throw new Error(...)`, PHP `throw new \Exception(...)`. An arrow function
//!   with an expression body gets an expression that throws.
//! - In C, C++, Go, JavaScript and TypeScript the original body stays after that statement,
//!   as a block of its own that never runs (`{ __builtin_trap(); {original} }`): a build with
//!   `-Werror` (cJSON's) rejects a stub that leaves a parameter or a static callee unused,
//!   and Go one that leaves an import unused, and such a stub would fail for the wrong
//!   reason. Java rejects unreachable statements, so its body is replaced; PHP's is too.
//!   The kept body is on the same lines, so the file's line numbers do not move.
//!
//! None where the language has no stub (Ruby: no runner runs its tests yet) or no function
//! of the language's kinds ends on the span's last line.

use tree_sitter::{Language, Node, Parser};

/// What the stubs' errors say, so that a log shows where the failure came from.
const MESSAGE: &str = "codemine validation stub";

/// One language's stub: its grammar, the node kinds of its functions and the statement.
struct Spec {
    grammar: Language,
    functions: &'static [&'static str],
    statement: String,
    /// An expression that fails, for a body that is an expression (arrow functions).
    expression: Option<String>,
    /// The original body stays, unreachable, after the statement.
    keeps_body: bool,
}

fn spec(language: &str, path: &str) -> Option<Spec> {
    let js_functions: &[&str] = &[
        "function_declaration",
        "function_expression",
        "function",
        "generator_function_declaration",
        "generator_function",
        "arrow_function",
        "method_definition",
    ];
    let js_throw = format!("throw new Error(\"{MESSAGE}\");");
    let js_expression = Some(format!("(() => {{ {js_throw} }})()"));
    Some(match language {
        "c" => Spec {
            grammar: tree_sitter_c::LANGUAGE.into(),
            functions: &["function_definition"],
            statement: "__builtin_trap();".into(),
            expression: None,
            keeps_body: true,
        },
        "cpp" | "c++" => Spec {
            grammar: tree_sitter_cpp::LANGUAGE.into(),
            functions: &["function_definition"],
            statement: "__builtin_trap();".into(),
            expression: None,
            keeps_body: true,
        },
        "java" => Spec {
            grammar: tree_sitter_java::LANGUAGE.into(),
            functions: &[
                "method_declaration",
                "constructor_declaration",
                "compact_constructor_declaration",
            ],
            statement: format!("throw new UnsupportedOperationException(\"{MESSAGE}\");"),
            expression: None,
            keeps_body: false,
        },
        "go" => Spec {
            grammar: tree_sitter_go::LANGUAGE.into(),
            functions: &["function_declaration", "method_declaration", "func_literal"],
            // `;`: the kept body follows on the same line.
            statement: format!("panic(\"{MESSAGE}\");"),
            expression: None,
            keeps_body: true,
        },
        "javascript" => Spec {
            grammar: tree_sitter_javascript::LANGUAGE.into(),
            functions: js_functions,
            statement: js_throw,
            expression: js_expression,
            keeps_body: true,
        },
        "typescript" => Spec {
            // `.tsx` files are parsed with the TSX grammar, as extraction parses them.
            grammar: if path.ends_with(".tsx") {
                tree_sitter_typescript::LANGUAGE_TSX.into()
            } else {
                tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
            },
            functions: js_functions,
            statement: js_throw,
            expression: js_expression,
            keeps_body: true,
        },
        "php" => Spec {
            grammar: tree_sitter_php::LANGUAGE_PHP.into(),
            functions: &["function_definition", "method_declaration"],
            statement: format!("throw new \\Exception(\"{MESSAGE}\");"),
            expression: None,
            keeps_body: false,
        },
        _ => return None,
    })
}

/// Whether `language` (lower case, as the nodes table names it) has a stub.
pub fn has_stub(language: &str) -> bool {
    language == "python" || spec(language, "").is_some()
}

/// A stub in place of the function at lines `start..=end` (1-based, inclusive) of
/// `original`, as a sample for [`crate::splice::splice`]: a body for Python, the whole
/// function for the others. None for a language without a stub, a span outside the file
/// or a span where no function of the language ends on its last line.
pub fn stub(original: &str, language: &str, path: &str, start: i64, end: i64) -> Option<String> {
    let language = language.to_ascii_lowercase();
    if language == "python" {
        return Some("raise NotImplementedError".into());
    }
    let spec = spec(&language, path)?;
    let s = usize::try_from(start).ok()?.checked_sub(1)?;
    let e = usize::try_from(end).ok()?.checked_sub(1)?;
    let lines: Vec<&str> = original.split_inclusive('\n').collect();
    if s > e || e >= lines.len() {
        return None;
    }
    let mut parser = Parser::new();
    parser.set_language(&spec.grammar).ok()?;
    let tree = parser.parse(original, None)?;
    let function = find_function(tree.root_node(), spec.functions, s, e)?;
    let body = function.child_by_field_name("body")?;
    let from: usize = lines[..s].iter().map(|l| l.len()).sum();
    let to: usize = lines[..=e].iter().map(|l| l.len()).sum();
    let to = to - trailing_newline(lines[e]);
    let head = original.get(from..body.start_byte())?;
    let tail = original.get(body.end_byte()..to)?;
    let newline = if lines[e].ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let is_block = body.kind().contains("block")
        || body.kind().contains("body")
        || body.kind() == "compound_statement";
    let replaced = if is_block && spec.keeps_body {
        let original_body = original.get(body.start_byte()..body.end_byte())?;
        format!("{{ {} {original_body} }}", spec.statement)
    } else if is_block {
        // The closing brace at the indentation of the function's first line.
        let indent = &lines[s][..lines[s].len() - lines[s].trim_start_matches([' ', '\t']).len()];
        format!(
            "{{{newline}{indent}    {}{newline}{indent}}}",
            spec.statement
        )
    } else {
        spec.expression?
    };
    Some(format!("{head}{replaced}{tail}"))
}

fn trailing_newline(line: &str) -> usize {
    if line.ends_with("\r\n") {
        2
    } else {
        usize::from(line.ends_with('\n'))
    }
}

/// The outermost node of one of `kinds` that starts at or after row `s` and ends at row
/// `e` (the span may start at annotations or a `const f =`), found with a cursor walk (no
/// recursion).
fn find_function<'t>(root: Node<'t>, kinds: &[&str], s: usize, e: usize) -> Option<Node<'t>> {
    let mut cursor = root.walk();
    loop {
        let n = cursor.node();
        let (ns, ne) = (n.start_position().row, n.end_position().row);
        if kinds.contains(&n.kind()) && ns >= s && ne == e {
            return Some(n);
        }
        // Descend only into nodes that overlap the span.
        if ns <= e && ne >= s && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stub_of(text: &str, language: &str, path: &str, start: i64, end: i64) -> String {
        stub(text, language, path, start, end)
            .unwrap_or_else(|| panic!("no {language} stub for {start}-{end} of {text:?}"))
    }

    #[test]
    fn python_gets_a_body_that_raises() {
        assert_eq!(
            stub_of("def f(x):\n    return x\n", "python", "a.py", 1, 2),
            "raise NotImplementedError"
        );
    }

    #[test]
    fn c_keeps_a_signature_on_several_lines() {
        let c = "static int\nadd(int a, int b)\n{\n  return a + b;\n}\n";
        assert_eq!(
            stub_of(c, "c", "a.c", 1, 5),
            "static int\nadd(int a, int b)\n{ __builtin_trap(); {\n  return a + b;\n} }"
        );
        // A span outside the file, or one no function ends on.
        assert_eq!(stub(c, "c", "a.c", 4, 9), None);
        assert_eq!(stub(c, "c", "a.c", 1, 4), None);
    }

    #[test]
    fn cpp_braces_in_a_default_argument_are_not_the_body() {
        let cpp = "int sum(std::vector<int> v = {1, 2}) {\n  return v[0];\n}\n";
        assert_eq!(
            stub_of(cpp, "cpp", "a.cpp", 1, 3),
            "int sum(std::vector<int> v = {1, 2}) { __builtin_trap(); {\n  return v[0];\n} }"
        );
    }

    #[test]
    fn java_an_annotation_with_braces_and_a_method_in_a_class() {
        let java = "class A {\n  @SuppressWarnings({\"a\", \"b\"})\n  int f(int x) {\n    return x;\n  }\n}\n";
        assert_eq!(
            stub_of(java, "java", "A.java", 2, 5),
            "  @SuppressWarnings({\"a\", \"b\"})\n  int f(int x) {\n      throw new UnsupportedOperationException(\"codemine validation stub\");\n  }"
        );
    }

    #[test]
    fn go_an_interface_parameter_type_is_not_the_body() {
        let go = "package p\n\nfunc F(x interface{}) int {\n\treturn 1\n}\n";
        assert_eq!(
            stub_of(go, "go", "p.go", 3, 5),
            "func F(x interface{}) int { panic(\"codemine validation stub\"); {\n\treturn 1\n} }"
        );
    }

    #[test]
    fn javascript_destructured_parameters_arrows_and_methods() {
        let js = "function f({a, b}) {\n  return a + b;\n}\nconst g = (x) => x + 1;\nclass C {\n  m() {\n    return 1;\n  }\n}\n";
        assert_eq!(
            stub_of(js, "javascript", "a.js", 1, 3),
            "function f({a, b}) { throw new Error(\"codemine validation stub\"); {\n  return a + b;\n} }"
        );
        assert_eq!(
            stub_of(js, "javascript", "a.js", 4, 4),
            "const g = (x) => (() => { throw new Error(\"codemine validation stub\"); })();"
        );
        assert_eq!(
            stub_of(js, "javascript", "a.js", 6, 8),
            "  m() { throw new Error(\"codemine validation stub\"); {\n    return 1;\n  } }"
        );
    }

    #[test]
    fn typescript_and_tsx() {
        let ts = "export function f(x: {a: number}): number {\n  return x.a;\n}\n";
        assert_eq!(
            stub_of(ts, "typescript", "a.ts", 1, 3),
            "export function f(x: {a: number}): number { throw new Error(\"codemine validation stub\"); {\n  return x.a;\n} }"
        );
        let tsx = "export function V(p: {n: string}) {\n  return <b>{p.n}</b>;\n}\n";
        assert!(stub_of(tsx, "typescript", "v.tsx", 1, 3).contains("throw new Error"));
    }

    #[test]
    fn php_and_languages_without_a_stub() {
        let php = "<?php\nfunction f($x) {\n  return $x;\n}\n";
        assert_eq!(
            stub_of(php, "php", "a.php", 2, 4),
            "function f($x) {\n    throw new \\Exception(\"codemine validation stub\");\n}"
        );
        assert_eq!(stub("def f\n  1\nend\n", "ruby", "a.rb", 1, 3), None);
        assert!(!has_stub("ruby"));
        assert!(has_stub("python") && has_stub("go") && has_stub("typescript"));
    }

    #[test]
    fn a_c_stub_builds_with_werror_and_traps() {
        // cJSON's warnings (C89, -Werror): the stub keeps `b` and the static `twice` used,
        // and puts no statement before a declaration of the kept body.
        let c = "#include <stdio.h>\nstatic int twice(int v) { return 2 * v; }\nint f(int a, int b)\n{\n    int r;\n    r = twice(a) + b;\n    return r;\n}\nint main(void) { printf(\"%d\\n\", f(1, 2)); return 0; }\n";
        let s = stub_of(c, "c", "a.c", 3, 8);
        let stubbed = crate::splice::splice(c, "c", 3, 8, &s).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let run = |name: &str, text: &str| {
            let src = dir.path().join(format!("{name}.c"));
            let bin = dir.path().join(name);
            std::fs::write(&src, text).unwrap();
            let cc = std::process::Command::new("gcc")
                .args(["-std=c89", "-pedantic", "-Wall", "-Wextra", "-Werror"])
                .args(["-Wdeclaration-after-statement", "-o"])
                .arg(&bin)
                .arg(&src)
                .output()
                .expect("gcc (scripts/setup.sh test installs it)");
            assert!(
                cc.status.success(),
                "{name}: {}\n{text}",
                String::from_utf8_lossy(&cc.stderr)
            );
            std::process::Command::new(&bin).output().unwrap()
        };
        let gold = run("gold", c);
        assert!(gold.status.success());
        assert_eq!(String::from_utf8_lossy(&gold.stdout), "4\n");
        assert!(!run("stub", &stubbed).status.success(), "{stubbed}");
    }

    #[test]
    fn a_stub_in_place_parses() {
        // The stub, spliced in, leaves a file the grammar parses without an error.
        let java = "class A {\n  @SuppressWarnings({\"a\", \"b\"})\n  int f(int x) {\n    return x;\n  }\n}\n";
        let s = stub_of(java, "java", "A.java", 2, 5);
        let text = crate::splice::splice(java, "java", 2, 5, &s).unwrap();
        let mut p = Parser::new();
        p.set_language(&tree_sitter_java::LANGUAGE.into()).unwrap();
        let tree = p.parse(&text, None).unwrap();
        assert!(!tree.root_node().has_error(), "{text}");
        assert!(text.contains("UnsupportedOperationException"), "{text}");
        let go =
            "package p\n\nimport \"fmt\"\n\nfunc F(x int) int {\n\tfmt.Println(x)\n\treturn x\n}\n";
        let s = stub_of(go, "go", "p.go", 5, 8);
        let text = crate::splice::splice(go, "go", 5, 8, &s).unwrap();
        p.set_language(&tree_sitter_go::LANGUAGE.into()).unwrap();
        let tree = p.parse(&text, None).unwrap();
        assert!(!tree.root_node().has_error(), "{text}");
        // The kept body keeps the import used, and the lines where they were.
        assert_eq!(text.lines().count(), go.lines().count(), "{text}");
    }
}
