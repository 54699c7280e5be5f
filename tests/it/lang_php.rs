//! End to end for PHP: fixture repositories mined by the real binary, read back by pyarrow.
//! CodeSearchNet rows are checked against function_parser's `php_parser.py` rules (the
//! comment node before a method is its docstring, delimiters stripped; `func_name` is
//! `Class.method`; string literals are single code tokens), and a hand-written multi-file
//! project's call graph edge by edge with its categories. Expected values are worked out
//! by hand from those rules and the fixture files, never copied from codemine's output.

use std::path::Path;

use harness::*;
use serde_json::{json, Value};

const SHAPES: &str = include_str!("../fixtures/php/Shapes.php");
const BROKEN: &str = include_str!("../fixtures/php/broken.php");

fn mine_shapes(extra: &[&str]) -> Mined {
    let page = "<?php function not_mined() { return 1; } ?>\n";
    Mined::files(
        "phpdemo",
        &[
            ("src/Shapes.php", SHAPES),
            ("src/broken.php", BROKEN),
            ("templates/page.phtml", page),
        ],
        extra,
    )
}

fn names(rows: &[Value]) -> Vec<String> {
    let mut v: Vec<String> = rows
        .iter()
        .map(|r| {
            assert_eq!(r["language"], "php");
            r["func_name"].as_str().unwrap().to_string()
        })
        .collect();
    v.sort();
    v
}

#[test]
fn php_rows_follow_codesearchnet() {
    let m = mine_shapes(&[]);
    // Methods of classes, traits, enums and anonymous classes, named functions (nested
    // too); not the abstract or interface `area` (no body), not the closure, not the
    // `.phtml` template, not `Broken.bad` (its parameter list is broken). Every function
    // is a call-graph node; those with a docstring are CodeSearchNet rows.
    let graph = read_graph(&m.out);
    let mut nodes: Vec<String> = graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            format!(
                "{}:{}",
                n["path"].as_str().unwrap(),
                n["qualified_name"].as_str().unwrap()
            )
        })
        .collect();
    nodes.sort();
    assert_eq!(
        nodes,
        [
            "src/Shapes.php:Greets.hello",
            "src/Shapes.php:Shape.__construct",
            "src/Shapes.php:Shape.count",
            "src/Shapes.php:Shape.describe",
            "src/Shapes.php:Shape.label",
            "src/Shapes.php:Shape.unit",
            "src/Shapes.php:Suit.color",
            "src/Shapes.php:add_numbers",
            "src/Shapes.php:outer",
            "src/Shapes.php:outer.class@anonymous.run",
            "src/Shapes.php:outer.inner",
            "src/broken.php:Broken.fine",
        ]
    );
    assert_eq!(
        names(&m.rows),
        [
            "Broken.fine",
            "Greets.hello",
            "Shape.__construct",
            "Shape.describe",
            "Shape.label",
            "Shape.unit",
            "Suit.color",
            "add_numbers",
            "outer.class@anonymous.run",
        ]
    );
    let p = "src/Shapes.php";

    let add = find_row(&m.rows, "func_name", "add_numbers");
    assert_eq!(add["url"], m.url(p, 12, 15));
    assert_eq!(
        add["docstring"],
        "Adds two numbers.\n\n@param int $a the first"
    );
    assert_eq!(
        add["docstring_tokens"],
        json!(["Adds", "two", "numbers", "."])
    );
    assert_eq!(
        add["code_tokens"],
        json!([
            "function",
            "add_numbers",
            "(",
            "int",
            "$",
            "a",
            ",",
            "int",
            "$",
            "b",
            ")",
            ":",
            "int",
            "{",
            "return",
            "$",
            "a",
            "+",
            "$",
            "b",
            ";",
            "}"
        ])
    );

    let describe = find_row(&m.rows, "func_name", "Shape.describe");
    assert_eq!(describe["url"], m.url(p, 40, 43));
    assert_eq!(
        describe["docstring"],
        "Describes the shape in words.\n\n@return string"
    );
    assert_eq!(
        describe["docstring_tokens"],
        json!(["Describes", "the", "shape", "in", "words", "."])
    );
    // An interpolated string is one token, as the `string` token of function_parser's
    // grammar was.
    assert_eq!(
        describe["code_tokens"],
        json!([
            "public",
            "function",
            "describe",
            "(",
            ")",
            ":",
            "string",
            "{",
            "return",
            "\"Shape {$this->name}: \"",
            ".",
            "sprintf",
            "(",
            "'%.2f'",
            ",",
            "$",
            "this",
            "->",
            "area",
            "(",
            ")",
            ")",
            ";",
            "}"
        ])
    );

    let ctor = find_row(&m.rows, "func_name", "Shape.__construct");
    assert_eq!(ctor["url"], m.url(p, 27, 30));
    assert_eq!(ctor["docstring"], "Builds a shape.");

    // Any comment directly before is the docstring (function_parser's rule), delimiters
    // stripped.
    let unit = find_row(&m.rows, "func_name", "Shape.unit");
    assert_eq!(unit["docstring"], "A line comment.");
    assert_eq!(
        unit["docstring_tokens"],
        json!(["A", "line", "comment", "."])
    );
    assert_eq!(
        unit["code_tokens"],
        json!([
            "public", "static", "function", "unit", "(", ")", ":", "string", "{", "return", "'m'",
            ";", "}"
        ])
    );
    let label = find_row(&m.rows, "func_name", "Shape.label");
    assert_eq!(label["url"], m.url(p, 52, 56));
    // function_parser keeps the `#` (its cleaning knows C-style delimiters only).
    assert_eq!(label["docstring"], "# A hash comment.");
    // A comment trailing the code of the line before is not a docstring: `Shape.count`
    // has no row.

    let hello = find_row(&m.rows, "func_name", "Greets.hello");
    assert_eq!(hello["url"], m.url(p, 75, 80));
    assert_eq!(hello["docstring"], "Says hello.");
    assert_eq!(
        hello["code_tokens"],
        json!([
            "public",
            "function",
            "hello",
            "(",
            ")",
            ":",
            "string",
            "{",
            "return",
            "<<<EOT\n        Hello\n        EOT",
            ";",
            "}"
        ])
    );

    let color = find_row(&m.rows, "func_name", "Suit.color");
    assert_eq!(color["url"], m.url(p, 90, 93));
    assert_eq!(color["docstring"], "The colour of the suit.");

    let lines = |q: &str| {
        let n = graph["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["qualified_name"] == q)
            .unwrap();
        (
            n["start_line"].as_u64().unwrap(),
            n["end_line"].as_u64().unwrap(),
        )
    };
    assert_eq!(lines("outer"), (96, 109));
    assert_eq!(lines("outer.inner"), (98, 101));
    let run = find_row(&m.rows, "func_name", "outer.class@anonymous.run");
    assert_eq!(run["url"], m.url(p, 104, 107));
    assert_eq!(run["docstring"], "Anonymous method.");
    assert_eq!(
        run["code"],
        "public function run()\n        {\n            return 2;\n        }"
    );

    let fine = find_row(&m.rows, "func_name", "Broken.fine");
    assert_eq!(fine["url"], m.url("src/broken.php", 5, 8));
    assert_eq!(fine["docstring"], "Fine.");
}

/// The CodeSearchNet preset: docstring summary of 3 tokens or more, 3 lines or more, and
/// none of function_parser's magic methods (`__construct`).
#[test]
fn php_csn_preset_drops_magic_methods_and_short_docstrings() {
    let m = mine_shapes(&["--preset", "csn"]);
    assert_eq!(
        names(&m.rows),
        [
            "Greets.hello",
            "Shape.describe",
            "Shape.label",
            "Shape.unit",
            "Suit.color",
            "add_numbers",
            "outer.class@anonymous.run",
        ]
    );
}

fn add_project(r: &RepoBuilder, dir: &Path, rel: &str) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = format!("{rel}{}", path.file_name().unwrap().to_str().unwrap());
        if path.is_dir() {
            add_project(r, &path, &format!("{name}/"));
        } else {
            r.write(&name, std::fs::read(&path).unwrap());
        }
    }
}

#[test]
fn php_call_graph_namespaces_imports_types_and_vendor() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("phpapp"));
    let fixture = workspace_root().join("tests/fixtures/php/project");
    add_project(&r, &fixture, "");
    r.commit("app");
    let out = mine_into(&r.path, tmp.path(), &[]);
    let g = read_graph(&out);

    assert_edges(
        &g,
        "src/Models/Model.php:Model.save",
        &[("helper", "src/Models/Model.php:helper", "same_file")],
    );
    assert_edges(
        &g,
        "src/Models/Model.php:helper",
        &[("spl_object_id", "-", "stdlib")],
    );
    assert_edges(&g, "src/Models/HasName.php:HasName.name", &[]);
    assert_edges(
        &g,
        "src/Models/User.php:User.__construct",
        // Same namespace, another file.
        &[(
            "parent::__construct",
            "src/Models/Model.php:Model.__construct",
            "same_package",
        )],
    );
    assert_edges(
        &g,
        "src/Models/User.php:User.notify",
        &[
            // A promoted constructor property typed by an imported class.
            (
                "$this->mailer->send",
                "src/Services/Mailer.php:Mailer.send",
                "project",
            ),
            // A method of a used trait, and one of the parent class.
            (
                "$this->name",
                "src/Models/HasName.php:HasName.name",
                "same_package",
            ),
            (
                "$this->save",
                "src/Models/Model.php:Model.save",
                "same_package",
            ),
            ("strtoupper", "-", "stdlib"),
            // A function of the caller's namespace.
            ("helper", "src/Models/Model.php:helper", "same_package"),
        ],
    );
    assert_edges(
        &g,
        "src/Models/User.php:User.make",
        &[(
            "new static",
            "src/Models/User.php:User.__construct",
            "same_file",
        )],
    );
    assert_edges(
        &g,
        "src/Services/Mailer.php:Mailer.send",
        &[
            // A composer package's class, by a typed property.
            ("$this->http->post", "-", "external_binaries"),
            // A class found only under vendor/.
            ("new Logger", "-", "external_binaries"),
            ("$log->info", "-", "external_binaries"),
            (
                "\\App\\Support\\log_it",
                "src/Support/functions.php:log_it",
                "project",
            ),
            // Not in the namespace: PHP falls back to the global function.
            ("json_encode", "-", "stdlib"),
        ],
    );
    assert_edges(
        &g,
        "src/Support/functions.php:log_it",
        &[("error_log", "-", "stdlib"), ("\\count", "-", "stdlib")],
    );
    assert_edges(
        &g,
        "src/Http/Controller.php:Controller.handle",
        &[
            ("$u->notify", "src/Models/User.php:User.notify", "project"),
            // An aliased import of a class without a constructor: its file.
            ("new M", "-", "project"),
            ("$m->send", "src/Services/Mailer.php:Mailer.send", "project"),
            // `use function`.
            ("log_it", "src/Support/functions.php:log_it", "project"),
            ("User::make", "src/Models/User.php:User.make", "project"),
            ("strlen", "-", "stdlib"),
            ("missing_fn", "-", "unresolved"),
            (
                "$this->helper",
                "src/Http/Controller.php:Controller.helper",
                "same_file",
            ),
            (
                "self::helper",
                "src/Http/Controller.php:Controller.helper",
                "same_file",
            ),
            // Inherited from the internal Exception class.
            ("$this->getMessage", "-", "stdlib"),
            ("new \\DateTime", "-", "stdlib"),
            ("new \\Monolog\\Logger", "-", "external_binaries"),
            ("\\Vendor\\Lib\\thing", "-", "external_binaries"),
            ("$unknown->foo", "-", "unresolved"),
            ("$callback", "-", "unresolved"),
            // A language construct.
            ("isset", "-", "stdlib"),
            // Typed by the catch clause.
            ("$e->getMessage", "-", "stdlib"),
            // Missing from a namespace the repository declares.
            ("new \\App\\Models\\Ghost", "-", "unresolved"),
            // A namespace the repository does not declare (a package sharing its root).
            ("\\App\\Extra\\Thing::make", "-", "external_binaries"),
            // Receivers typed by the declared return type of the call they come from.
            (
                "$u->mailer()->send",
                "src/Services/Mailer.php:Mailer.send",
                "project",
            ),
            ("$u->mailer", "src/Models/User.php:User.mailer", "project"),
            ("$u->mailer", "src/Models/User.php:User.mailer", "project"),
            (
                "$mm->send",
                "src/Services/Mailer.php:Mailer.send",
                "project",
            ),
        ],
    );
    // Files without a namespace: the directory is the package.
    assert_edges(
        &g,
        "legacy/util.php:legacy_util",
        &[
            (
                "legacy_other",
                "legacy/other.php:legacy_other",
                "same_package",
            ),
            ("strlen", "-", "stdlib"),
        ],
    );
}
