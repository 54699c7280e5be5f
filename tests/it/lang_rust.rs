//! Rust end to end: the CSN rows of a fixture with every function form (free functions,
//! methods of an `impl` and of an `impl Trait for`, a trait's default method and its
//! bodiless declaration, a nested function, a function in an inline test module; `///`,
//! `/** */`, inner `//!` and plain `//` comments, attributes between comment and
//! function), and the
//! call graph of a hand-written crate, edge by edge. Expected values come from the rules
//! of the issue (The Vault's `codetext` takes every `fn` with a body; rustdoc's outer doc
//! comments are the docstring) and Rust's own name resolution, written by hand.

use harness::*;

const SHAPES: &str = include_str!("../fixtures/rust/shapes.rs");

const PROJECT: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        include_str!("../fixtures/rust/project/Cargo.toml"),
    ),
    (
        "src/lib.rs",
        include_str!("../fixtures/rust/project/src/lib.rs"),
    ),
    (
        "src/util.rs",
        include_str!("../fixtures/rust/project/src/util.rs"),
    ),
    (
        "src/store/mod.rs",
        include_str!("../fixtures/rust/project/src/store/mod.rs"),
    ),
    (
        "src/store/kind.rs",
        include_str!("../fixtures/rust/project/src/store/kind.rs"),
    ),
    (
        "tests/integration.rs",
        include_str!("../fixtures/rust/project/tests/integration.rs"),
    ),
];

#[test]
fn rust_rows_take_every_function_with_its_doc_comment() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("shapes"));
    r.write("src/shapes.rs", SHAPES);
    r.commit("rust");
    let out = mine_into(&r.path, tmp.path(), &["--docstring-params"]);
    let rows = shard_rows(&out.join("csn"));
    let mut names: Vec<&str> = rows
        .iter()
        .map(|r| r["func_name"].as_str().unwrap())
        .collect();
    names.sort();
    // Not rows: `undocumented` (a plain `//` comment), `Shape.sides` (no body).
    assert_eq!(
        names,
        [
            "Shape.has_corners",
            "Wrapper.get",
            "Wrapper.sides",
            "Wrapper.sides.four",
            "area",
            "area_of_two",
            "double",
            "half",
            "inner_only"
        ]
    );
    // Inner doc comments at the top of the body are appended to the outer ones.
    assert_eq!(
        find_row(&rows, "func_name", "half")["docstring"],
        "Halves a number.\nRounds nothing."
    );
    assert_eq!(
        find_row(&rows, "func_name", "inner_only")["docstring"],
        "Documented from inside its body."
    );
    for r in &rows {
        assert_eq!(r["language"], "rust");
        assert_eq!(r["path"], "src/shapes.rs");
    }
    let area = find_row(&rows, "func_name", "area");
    assert_eq!(
        area["docstring"],
        "The area of a square.\n\n# Arguments\n* `side` - the side's length"
    );
    assert_eq!(
        area["code"],
        "pub fn area(side: f64) -> f64 {\n    side * side\n}"
    );
    // rustdoc's `# Arguments` section, in parts.
    let params = &area["docstring_params"];
    assert_eq!(params["style"], "rustdoc");
    assert_eq!(params["params"][0]["name"], "side");
    assert_eq!(params["params"][0]["description"], "the side's length");
    // A `/** */` block, then attributes: the code starts at the function itself.
    let double = find_row(&rows, "func_name", "double");
    assert_eq!(double["docstring"], "Doubles a number.");
    assert_eq!(
        double["code"],
        "pub fn double(x: i64) -> i64 {\n    x * 2\n}"
    );
    assert_eq!(
        find_row(&rows, "func_name", "area_of_two")["docstring"],
        "Checks the area."
    );
    assert_eq!(
        find_row(&rows, "func_name", "Wrapper.sides.four")["docstring"],
        "Nested helpers have their own rows."
    );

    // Every function is a call-graph node, documented or not; the bodiless declaration
    // is none.
    let g = read_graph(&out);
    let mut nodes: Vec<(String, String)> = g["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["qualified_name"].as_str().unwrap().to_string(),
                n["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    nodes.sort();
    let want: Vec<(String, String)> = [
        ("Shape.has_corners", "method"),
        ("Wrapper.get", "method"),
        ("Wrapper.sides", "method"),
        ("Wrapper.sides.four", "function"),
        ("area", "function"),
        ("area_of_two", "function"),
        ("double", "function"),
        ("half", "function"),
        ("inner_only", "function"),
        ("undocumented", "function"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(nodes, want);
}

#[test]
fn rust_modules_uses_crates_and_receivers() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("shop"));
    for (path, text) in PROJECT {
        r.write(path, text);
    }
    r.commit("shop");
    let out = mine_into(&r.path, tmp.path(), &[]);
    let g = read_graph(&out);
    assert_edges(
        &g,
        "src/lib.rs:open",
        &[
            // `use crate::store::Store`: a type of module `store`, `new` its method.
            ("Store::new", "src/store/mod.rs:Store.new", "project"),
            ("s.add", "src/store/mod.rs:Store.add", "project"),
            // `use util::normalize as norm`.
            ("norm", "src/util.rs:normalize", "same_package"),
            ("helper", "src/lib.rs:helper", "same_file"),
            ("HashMap::new", "-", "stdlib"),
            // `m` is typed by `HashMap::new()`.
            ("m.insert", "-", "stdlib"),
            // A dependency of Cargo.toml.
            ("serde_json::to_string", "-", "external_binaries"),
            ("drop", "-", "stdlib"),
            ("std::fs::remove_file(\"x\").ok", "-", "stdlib"),
            ("std::fs::remove_file", "-", "stdlib"),
        ],
    );
    assert_edges(
        &g,
        "src/lib.rs:helper",
        &[("util::count", "src/util.rs:count", "same_package")],
    );
    assert_edges(
        &g,
        "src/util.rs:normalize",
        &[
            ("name.trim().to_lowercase", "-", "stdlib"),
            ("name.trim", "-", "stdlib"),
        ],
    );
    assert_edges(
        &g,
        "src/util.rs:count",
        &[("inner", "src/util.rs:count.inner", "same_file")],
    );
    assert_edges(
        &g,
        "src/store/mod.rs:Store.new",
        &[
            ("Vec::new", "-", "stdlib"),
            // `Kind` through `pub use kind::Kind`; `default` is derived: the type's file.
            ("Kind::default", "-", "same_package"),
        ],
    );
    assert_edges(
        &g,
        "src/store/mod.rs:Store.add",
        &[
            // A field of a declared type: `items: Vec<String>`.
            ("self.items.push", "-", "stdlib"),
            ("self.touch", "src/store/mod.rs:Store.touch", "same_file"),
            (
                "self.kind.describe",
                "src/store/kind.rs:Kind.describe",
                "same_package",
            ),
        ],
    );
    assert_edges(
        &g,
        "src/store/mod.rs:Store.touch",
        &[
            ("Self::limit", "src/store/mod.rs:Store.limit", "same_file"),
            ("self.items.len", "-", "stdlib"),
        ],
    );
    assert_edges(
        &g,
        "src/store/mod.rs:Named.shout",
        &[
            ("self.name().to_uppercase", "-", "stdlib"),
            // A required method (no body): the trait's file.
            ("self.name", "-", "same_file"),
        ],
    );
    // An integration test is a crate of its own that uses the library by its name.
    assert_edges(
        &g,
        "tests/integration.rs:opens",
        &[("open", "src/lib.rs:open", "project")],
    );
}

/// Coverage of Rust code: an LCOV report as `cargo llvm-cov --lcov` writes it (absolute
/// `SF:` path, mangled `FN:` names, `FNDA`, `DA`, `LF`/`LH`), written by hand from the
/// format; each function takes the `DA` counts of its own lines (docs/coverage.md).
#[test]
fn rust_coverage_from_an_llvm_cov_lcov_report() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("shapes"));
    r.write("src/shapes.rs", SHAPES);
    r.commit("rust");
    let report = tmp.path().join("lcov.info");
    std::fs::write(
        &report,
        "SF:/home/ci/shapes/src/shapes.rs\n\
         FN:7,_RNvCs1a2b3c_6shapes4area\nFN:19,_RNvCs1a2b3c_6shapes6double\n\
         FNDA:3,_RNvCs1a2b3c_6shapes4area\nFNDA:0,_RNvCs1a2b3c_6shapes6double\nFNF:2\nFNH:1\n\
         DA:7,3\nDA:8,3\nDA:9,3\nDA:19,0\nDA:20,0\nDA:21,0\nBRF:0\nBRH:0\nLF:6\nLH:3\n\
         end_of_record\n",
    )
    .unwrap();
    let out = mine_into(
        &r.path,
        tmp.path(),
        &["--coverage", report.to_str().unwrap()],
    );
    let g = read_graph(&out);
    let nodes = g["nodes"].as_array().unwrap();
    let cov = |q: &str| coverage_of(find_row(nodes, "qualified_name", q));
    assert_eq!(cov("area"), (Some(9), Some(3), Some(3)));
    assert_eq!(cov("double"), (Some(0), Some(0), Some(3)));
}
