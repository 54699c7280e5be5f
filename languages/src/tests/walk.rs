//! The core's walk over every registered language: tokens, the walk's shortcut against its
//! reference, the hooks' kind lists, the nesting limit (the core's own tests use a toy
//! language; these need the real ones).

use codemine_syntax::extract::grammar::NodeExt;
use codemine_syntax::extract::{
    functions_of, functions_of_reference, Extractor, FileInfo, Place, MAX_FUNCTION_NESTING,
};
use tree_sitter::Node;

use crate::{Lang, Registry};

fn tokens(lang: Lang, src: &str) -> Vec<String> {
    let out = Extractor::default().extract(lang, src).expect("parses");
    out.functions[0].code_tokens.to_vec()
}

/// A backslash-newline is no token in any language, as in function_parser's grammars
/// (CodeSearchNet's published Python rows have none); comments stay tokens.
#[test]
fn line_continuations_are_not_tokens() {
    assert_eq!(
        tokens(
            Lang::Python,
            "def f(a):\n    return a or \\\n      1  # c\n"
        ),
        ["def", "f", "(", "a", ")", ":", "return", "a", "or", "1", "# c"]
    );
    for lang in [Lang::C, Lang::Cpp] {
        assert_eq!(
            tokens(lang, "int f(int a) {\n  return a + \\\n    1; /* c */\n}\n"),
            ["int", "f", "(", "int", "a", ")", "{", "return", "a", "+", "1", ";", "/* c */", "}"],
            "{lang:?}"
        );
    }
}

/// Test fixtures of the languages that list their hooks' kinds.
const FIXTURES: &[(Lang, &str, &str)] = &[
    (
        Lang::Java,
        "Shapes.java",
        include_str!("../../../tests/fixtures/Shapes.java"),
    ),
    (
        Lang::Go,
        "shapes.go",
        include_str!("../../../tests/fixtures/go/shapes.go"),
    ),
    (
        Lang::Go,
        "main.go",
        include_str!("../../../tests/fixtures/go/project/main.go"),
    ),
    (
        Lang::Go,
        "store.go",
        include_str!("../../../tests/fixtures/go/project/store/store.go"),
    ),
    (
        Lang::Php,
        "Shapes.php",
        include_str!("../../../tests/fixtures/php/Shapes.php"),
    ),
    (
        Lang::Php,
        "User.php",
        include_str!("../../../tests/fixtures/php/project/src/Models/User.php"),
    ),
    (
        Lang::Php,
        "Mailer.php",
        include_str!("../../../tests/fixtures/php/project/src/Services/Mailer.php"),
    ),
    (
        Lang::JavaScript,
        "forms.js",
        include_str!("../../../tests/fixtures/javascript/forms.js"),
    ),
    (
        Lang::JavaScript,
        "cjs.js",
        include_str!("../../../tests/fixtures/javascript/project/src/cjs.js"),
    ),
    (
        Lang::JavaScript,
        "main.js",
        include_str!("../../../tests/fixtures/javascript/project/src/main.js"),
    ),
    (
        Lang::TypeScript,
        "forms.ts",
        include_str!("../../../tests/fixtures/javascript/forms.ts"),
    ),
    (
        Lang::TypeScript,
        "app.ts",
        include_str!("../../../tests/fixtures/javascript/project/src/app.ts"),
    ),
    (
        Lang::TypeScript,
        "view.tsx",
        include_str!("../../../tests/fixtures/javascript/view.tsx"),
    ),
    (
        Lang::Python,
        "forms.py",
        include_str!("../../../tests/fixtures/python/forms.py"),
    ),
    (
        Lang::Python,
        "shapes.py",
        include_str!("../../../tests/fixtures/shapes.py"),
    ),
];

/// A function's own walk finds the file items of its body exactly as the file walk
/// finds them going down itself (the walk's shortcut, `Inner`), on every fixture.
#[test]
fn file_items_of_function_bodies_are_those_the_file_walk_finds() {
    let mut with_items = 0;
    for (lang, path, src) in FIXTURES {
        let spec = lang.spec();
        let tree = Extractor::default()
            .parse_path(*lang, path, src)
            .expect("parses");
        let fast = functions_of(spec, &tree, src);
        let slow = functions_of_reference(spec, &tree, src);
        assert_eq!(fast, slow, "{lang:?} {path}");
        with_items += usize::from(fast.info != FileInfo::default());
    }
    assert!(with_items > 5, "{with_items}");
}

/// The hooks act on no kind that their spec's kind lists leave out (the walks never
/// ask them about those): every node of the languages' test fixtures, hook by hook.
#[test]
fn kind_lists_cover_what_the_hooks_act_on() {
    let fixtures = FIXTURES;
    // Per hook, how often a listed kind did something: the check below has teeth.
    let mut acted = [0usize; 4];
    for (lang, path, src) in fixtures {
        let spec = lang.spec();
        let mut x = Extractor::default();
        let tree = x.parse_path(*lang, path, src).expect("parses");
        spec.new_tree();
        let listed = |kinds: Option<&[&str]>, k: &str| kinds.is_none_or(|ks| ks.contains(&k));
        let mut cursor = tree.walk();
        let mut ancestors: Vec<Node> = Vec::new();
        // The current node's index among its parent's children.
        let mut index: Vec<u32> = vec![0];
        loop {
            let n = cursor.node();
            let k = n.kind_str();
            let function = spec.function(n, &ancestors, src).is_some();
            let scope = spec.scope(n, &ancestors, src).is_some();
            let mut info = FileInfo::default();
            spec.file_item(n, &|| "S".to_string(), src, &mut info);
            let item = info != FileInfo::default();
            let (mut calls, mut locals) = (Vec::new(), Vec::new());
            let place = Place::new(
                ancestors.last().copied(),
                index.last().copied().unwrap_or(0),
            );
            spec.visit(n, k, src, place, &mut calls, &mut locals);
            let visit = !calls.is_empty() || !locals.is_empty();
            for (i, (did, kinds, hook)) in [
                (function, spec.function_kinds(), "function"),
                (scope, spec.scope_kinds(), "scope"),
                (item, spec.file_item_kinds(), "file_item"),
                (visit, spec.visit_kinds(), "visit"),
            ]
            .into_iter()
            .enumerate()
            {
                assert!(kinds.is_some(), "{lang:?} lists no kinds for {hook}");
                assert!(
                    !did || listed(kinds, k),
                    "{lang:?} {path}: {hook} acts on {k}"
                );
                acted[i] += usize::from(did);
            }
            if cursor.goto_first_child() {
                ancestors.push(n);
                index.push(0);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    if let Some(i) = index.last_mut() {
                        *i += 1;
                    }
                    break;
                }
                if !cursor.goto_parent() {
                    break;
                }
                ancestors.pop();
                index.pop();
            }
            if ancestors.is_empty() && cursor.node() == tree.root_node() {
                break;
            }
        }
    }
    assert!(acted.iter().all(|&n| n > 10), "{acted:?}");
}

/// Functions nested deeper than the limit stay in the code of the deepest one extracted
/// and are counted (issue 33, item 7: the rows of a file nested `d` deep held `d` times
/// its text).
#[test]
fn nesting_beyond_the_limit_is_counted_not_extracted() {
    let depth = 40;
    let js: String = (0..depth)
        .map(|i| format!("function f{i}() {{\n"))
        .collect::<String>()
        + &"}\n".repeat(depth);
    let rb: String = (0..depth)
        .map(|i| format!("def f{i}\n"))
        .collect::<String>()
        + &"end\n".repeat(depth);
    let mut ex = Extractor::default();
    for (lang, src) in [(Lang::JavaScript, js), (Lang::Ruby, rb)] {
        let out = ex.extract(lang, &src).expect("extracts");
        assert!(!out.has_errors, "{lang:?}");
        let names: Vec<&str> = out.functions.iter().map(|f| f.name.as_str()).collect();
        let want: Vec<String> = (0..MAX_FUNCTION_NESTING).map(|i| format!("f{i}")).collect();
        assert_eq!(names, want, "{lang:?}");
        assert_eq!(
            out.dropped_nesting,
            depth - MAX_FUNCTION_NESTING,
            "{lang:?}"
        );
        // The deepest row holds the functions below it.
        let deepest = out.functions.last().expect("functions");
        assert!(
            deepest.code.contains(&format!("f{}", depth - 1)),
            "{lang:?}"
        );
    }
}
