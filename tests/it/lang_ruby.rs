//! Ruby end to end: fixture repositories mined by the real binary, read back by pyarrow.
//! Expected rows are worked out by hand from CodeSearchNet's `ruby_parser.py` rules
//! (func_name `Module.Class.method`, docstring = the `#` comments before `def` stripped of
//! `#`, string literals as single code tokens) and the expected call graph from the
//! resolution rules of the issue, every edge written out; never copied from codemine's
//! output.

use std::path::Path;

use harness::*;
use serde_json::{json, Value};

const SHAPES: &str = include_str!("../fixtures/ruby/shapes.rb");
const BROKEN: &str = include_str!("../fixtures/ruby/broken.rb");

const PROJECT: &[(&str, &str)] = &[
    // sorts first; its `def helper_top` is in a block, not a top-level function
    (
        "lib/a_spec.rb",
        include_str!("../fixtures/ruby/proj/lib/a_spec.rb"),
    ),
    (
        "lib/app.rb",
        include_str!("../fixtures/ruby/proj/lib/app.rb"),
    ),
    (
        "lib/app/base.rb",
        include_str!("../fixtures/ruby/proj/lib/app/base.rb"),
    ),
    (
        "lib/app/helpers.rb",
        include_str!("../fixtures/ruby/proj/lib/app/helpers.rb"),
    ),
    (
        "lib/app/model.rb",
        include_str!("../fixtures/ruby/proj/lib/app/model.rb"),
    ),
    (
        "lib/app/model_ext.rb",
        include_str!("../fixtures/ruby/proj/lib/app/model_ext.rb"),
    ),
    (
        "lib/app/finder.rb",
        include_str!("../fixtures/ruby/proj/lib/app/finder.rb"),
    ),
    (
        "lib/app/errors.rb",
        include_str!("../fixtures/ruby/proj/lib/app/errors.rb"),
    ),
];

fn mine_shapes(extra: &[&str]) -> Mined {
    Mined::files(
        "rbdemo",
        &[
            ("lib/shapes.rb", SHAPES),
            ("lib/broken.rb", BROKEN),
            ("Rakefile", "task :default\n"),
        ],
        extra,
    )
}

fn names(rows: &[Value]) -> Vec<String> {
    let mut v: Vec<String> = rows
        .iter()
        .filter(|r| r["language"] == "ruby")
        .map(|r| r["func_name"].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

fn row<'a>(m: &'a Mined, name: &str) -> &'a Value {
    find_row(&m.rows, "func_name", name)
}

#[test]
fn every_ruby_form_and_docstring_style() {
    let m = mine_shapes(&[]);
    // Documented methods only (undocumented and outer have no comment right before them);
    // broken_sig has a syntax error in its parameters and is dropped.
    assert_eq!(
        names(&m.rows),
        [
            "Geo.Shape.==",
            "Geo.Shape.block_doc",
            "Geo.Shape.build",
            "Geo.Shape.initialize",
            "Geo.Shape.label",
            "Geo.Shape.outer.inner_helper",
            "Geo.circle_area",
            "Point.dist",
            "broken_body",
            "fine",
            "top_level",
        ]
    );
    let stats = stats(&m.out);
    assert_eq!(stats["languages"]["ruby"]["functions"], 11 + 2);
    assert_eq!(stats["stages"]["extract"]["dropped_syntax_error"], 1);
    assert_eq!(
        stats["stages"]["extract"]["functions_with_syntax_errors"],
        1
    );

    // A singleton method of a module; `#` alone is a blank docstring line, which ends the
    // summary.
    let area = row(&m, "Geo.circle_area");
    assert_eq!(area["language"], "ruby");
    assert_eq!(area["path"], "lib/shapes.rb");
    assert_eq!(area["url"], m.url("lib/shapes.rb", 10, 12));
    assert_eq!(
        area["original_string"],
        "def self.circle_area(r)\n    Math::PI * r * r\n  end"
    );
    assert_eq!(
        area["docstring"],
        "The area of a circle of radius r.\n\n Uses Math::PI."
    );
    assert_eq!(
        area["docstring_tokens"],
        json!(["The", "area", "of", "a", "circle", "of", "radius", "r", "."])
    );
    assert_eq!(
        area["code_tokens"],
        json!([
            "def",
            "self",
            ".",
            "circle_area",
            "(",
            "r",
            ")",
            "Math",
            "::",
            "PI",
            "*",
            "r",
            "*",
            "r",
            "end"
        ])
    );

    // A blank line between the comments and `def` does not break the run; an interpolated
    // string is one token.
    let label = row(&m, "Geo.Shape.label");
    assert_eq!(label["url"], m.url("lib/shapes.rb", 24, 26));
    // Continuation lines keep the space after `#` (function_parser strips each comment of
    // `#`, process.py the whole text).
    assert_eq!(label["docstring"], "The label, in capitals.\n Second line.");
    assert_eq!(
        label["code_tokens"],
        json!(["def", "label", "\"shape: #{@name}\"", ".", "upcase", "end"])
    );

    let init = row(&m, "Geo.Shape.initialize");
    assert_eq!(init["docstring"], "Makes a shape.");
    assert_eq!(init["url"], m.url("lib/shapes.rb", 17, 19));

    // `class << self` methods belong to the class; an endless method.
    let build = row(&m, "Geo.Shape.build");
    assert_eq!(build["url"], m.url("lib/shapes.rb", 34, 34));
    assert_eq!(build["docstring"], "Builds the default shape.");
    assert_eq!(
        build["code_tokens"],
        json!(["def", "build", "=", "new", "(", "\"default\"", ")"])
    );

    // `##...##`: every `#` at either end goes; an operator method.
    let eq = row(&m, "Geo.Shape.==");
    assert_eq!(eq["docstring"], "Equality by name");
    assert_eq!(
        eq["code_tokens"],
        json!(["def", "==", "(", "other", ")", "other", ".", "name", "==", "@name", "end"])
    );

    // `=begin`/`=end`: the inner lines.
    let block = row(&m, "Geo.Shape.block_doc");
    // Published with its markers (one comment node); the tokens come from the inner lines.
    assert_eq!(
        block["docstring"],
        "=begin\nBlock comment\ndocumentation.\n=end"
    );
    assert_eq!(
        block["docstring_tokens"],
        json!(["Block", "comment", "documentation", "."])
    );
    assert_eq!(
        block["code_tokens"],
        json!(["def", "block_doc", ":ok", "end"])
    );

    // A nested `def` is a function of its own, qualified by the outer one.
    let inner = row(&m, "Geo.Shape.outer.inner_helper");
    assert_eq!(inner["url"], m.url("lib/shapes.rb", 52, 54));
    assert_eq!(inner["docstring"], "Nested helper doc.");

    let top = row(&m, "top_level");
    assert_eq!(top["url"], m.url("lib/shapes.rb", 61, 63));
    assert_eq!(top["docstring"], "A top-level function.");

    // Methods of a `Struct.new do ... end` block belong to the constant's class.
    let dist = row(&m, "Point.dist");
    assert_eq!(dist["url"], m.url("lib/shapes.rb", 67, 69));
    assert_eq!(dist["docstring"], "Distance to the origin.");

    // The error inside broken_body's body keeps it; `fine` before it is untouched.
    let broken = row(&m, "broken_body");
    assert_eq!(broken["url"], m.url("lib/broken.rb", 7, 10));
    assert_eq!(row(&m, "fine")["docstring"], "Fine before the errors.");
}

/// The csn preset drops function_parser's blacklisted Ruby names (`==`), constructors,
/// one-line methods and docstrings under 3 tokens.
#[test]
fn csn_preset_follows_ruby_parser() {
    let m = mine_shapes(&["--preset", "csn"]);
    assert_eq!(
        names(&m.rows),
        [
            "Geo.Shape.block_doc",
            "Geo.Shape.label",
            "Geo.Shape.outer.inner_helper",
            "Geo.circle_area",
            "Point.dist",
            "broken_body",
            "fine",
            "top_level",
        ]
    );
}

fn mine_project(root: &Path) -> Value {
    let mut r = RepoBuilder::init(&root.join("rbproj"));
    for (path, text) in PROJECT {
        r.write(path, text);
    }
    r.commit("project");
    read_graph(&mine_into(&r.path, root, &[]))
}

#[test]
fn ruby_call_graph_edge_by_edge() {
    let tmp = tempfile::tempdir().unwrap();
    let g = mine_project(tmp.path());
    let helpers = "lib/app/helpers.rb";
    assert_edges(
        &g,
        "lib/app.rb:App.Server.start",
        &[
            // an included module of the repository
            ("log", &format!("{helpers}:App.Helpers.log"), "project"),
            // the superclass, through self
            (
                "self.configure",
                "lib/app/base.rb:App.Base.configure",
                "project",
            ),
            // Const.new is initialize; a local of that class
            (
                "Model.new",
                "lib/app/model.rb:App.Model.initialize",
                "project",
            ),
            ("m.save", "lib/app/model.rb:App.Model.save", "project"),
            // a singleton method of the class, defined where it is reopened
            (
                "Model.find",
                "lib/app/model_ext.rb:App.Model.find",
                "project",
            ),
            // standard library and core
            ("JSON.generate", "-", "stdlib"),
            // a gem's constant (rack is required, and neither ours nor Ruby's)
            ("Rack::Utils.escape", "-", "external_binaries"),
            ("puts", "-", "stdlib"),
            ("[1,2].map", "-", "stdlib"),
            // a top-level def of another file
            ("helper_top", &format!("{helpers}:helper_top"), "project"),
            // a bare name that is no local variable is a call on self; found nowhere in
            // the repository, it is left to the gem's module the class includes
            ("local_only", "-", "external_binaries"),
            ("escape_html", "-", "external_binaries"),
            // a constant holding a string
            ("VERSION.split", "-", "stdlib"),
            ("stop", "lib/app.rb:App.Server.stop", "same_file"),
            // an attr_reader: code of this file, no function node
            ("port", "-", "same_file"),
            ("raise", "-", "stdlib"),
            (
                "AppError.new",
                "lib/app/errors.rb:App.AppError.initialize",
                "project",
            ),
        ],
    );
    assert_edges(
        &g,
        "lib/app.rb:App.Server.initialize",
        &[("super", "lib/app/base.rb:App.Base.initialize", "project")],
    );
    // `settings` is defined nowhere and Base has no ancestor outside the repository.
    assert_edges(
        &g,
        "lib/app/base.rb:App.Base.configure",
        &[
            ("settings", "-", "unresolved"),
            ("defaults", "lib/app/base.rb:App.Base.defaults", "same_file"),
        ],
    );
    // `new` in a class method builds the class.
    assert_edges(
        &g,
        "lib/app/base.rb:App.Base.create",
        &[("new", "lib/app/base.rb:App.Base.initialize", "same_file")],
    );
    assert_edges(
        &g,
        "lib/app/helpers.rb:App.Helpers.log",
        &[
            (
                "format_msg",
                "lib/app/helpers.rb:App.Helpers.format_msg",
                "same_file",
            ),
            // self in a mixin is an instance of an includer: Server's attr_reader
            ("port", "-", "project"),
        ],
    );
    assert_edges(
        &g,
        "lib/app/helpers.rb:App.Helpers.format_msg",
        &[
            ("mystery", "-", "unresolved"),
            // no method `strip` in the repository: a core method
            ("msg.strip", "-", "stdlib"),
        ],
    );
    assert_edges(
        &g,
        "lib/app/model_ext.rb:App.Model.find",
        &[
            // an `extend`ed module's method, on the class's singleton side
            (
                "where",
                "lib/app/finder.rb:App.Finder.where",
                "same_package",
            ),
            (
                "new",
                "lib/app/model.rb:App.Model.initialize",
                "same_package",
            ),
        ],
    );
    assert_edges(
        &g,
        "lib/app/model_ext.rb:App.Model.reload",
        &[
            // the reopened class's method in another file of the folder
            ("save", "lib/app/model.rb:App.Model.save", "same_package"),
            // Comparable's, included
            ("clamp", "-", "stdlib"),
        ],
    );
    assert_edges(
        &g,
        "lib/app/model.rb:App.Model.save",
        &[(
            "validate!",
            "lib/app/model.rb:App.Model.validate!",
            "same_file",
        )],
    );
    // super into a core class
    assert_edges(
        &g,
        "lib/app/errors.rb:App.AppError.initialize",
        &[("super", "-", "stdlib")],
    );
}

/// Locals (parameters, assignments, block parameters) are variables; other bare names
/// are calls on self.
#[test]
fn bare_names_are_calls_unless_local() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("bare"));
    r.write(
        "k.rb",
        "class K\n  def run(a, b = c, *rest, key: d, &blk)\n    e = 1\n    [a].each { |v| v }\n    \
         e\n    f\n    rest\n    blk\n    key\n    g.h\n  end\n\n  def f; end\n  def g; end\n  \
         def c; end\n  def d; end\nend\n",
    );
    r.commit("bare");
    let g = read_graph(&mine_into(&r.path, tmp.path(), &[]));
    assert_edges(
        &g,
        "k.rb:K.run",
        &[
            // default values are expressions
            ("c", "k.rb:K.c", "same_file"),
            ("d", "k.rb:K.d", "same_file"),
            ("[a].each", "-", "stdlib"),
            ("f", "k.rb:K.f", "same_file"),
            // g is a call; its result's class is unknown and `h` is no method anywhere
            ("g.h", "-", "unresolved"),
            ("g", "k.rb:K.g", "same_file"),
        ],
    );
}
