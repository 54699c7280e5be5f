//! Go end to end: the CSN rows of a fixture with every function form (functions, pointer,
//! value and generic receivers, `//` and `/* */` docstrings, a closure, a bodiless
//! declaration, a syntax error), and the call graph of a hand-written multi-package project,
//! edge by edge. Expected values come from CodeSearchNet's function_parser rules
//! and the resolution rules of the issue, written by hand, never from codemine's output.

use harness::*;
use serde_json::Value;

const SHAPES: &str = include_str!("../fixtures/go/shapes.go");

const PROJECT: &[(&str, &str)] = &[
    ("go.mod", include_str!("../fixtures/go/project/go.mod")),
    ("main.go", include_str!("../fixtures/go/project/main.go")),
    (
        "helper.go",
        include_str!("../fixtures/go/project/helper.go"),
    ),
    (
        "store/store.go",
        include_str!("../fixtures/go/project/store/store.go"),
    ),
    (
        "store/counter.go",
        include_str!("../fixtures/go/project/store/counter.go"),
    ),
    (
        "store/log.go",
        include_str!("../fixtures/go/project/store/log.go"),
    ),
    (
        "store/basket.go",
        include_str!("../fixtures/go/project/store/basket.go"),
    ),
    (
        "inventory/count.go",
        include_str!("../fixtures/go/project/inventory/count.go"),
    ),
];

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect()
}

fn split(s: &str) -> Vec<String> {
    s.split(' ').map(str::to_string).collect()
}

#[test]
fn go_csn_rows_follow_function_parser() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("goshapes"));
    r.write("shapes.go", SHAPES);
    r.commit("go");
    let out = mine_into(&r.path, tmp.path(), &[]);
    let rows = shard_rows(&out.join("csn"));
    let mut names: Vec<&str> = rows
        .iter()
        .map(|r| r["func_name"].as_str().unwrap())
        .collect();
    names.sort();
    // Not rows: `undocumented` (no comment), `Sqrt` (no body), `Broken` (syntax error in
    // its parameters), and the closure in Apply (function_parser never extracts literals).
    assert_eq!(
        names,
        ["Apply", "Area", "Rect.Scale", "Rect.String", "Stack.Push"]
    );
    for r in &rows {
        assert_eq!(r["language"], "go");
        assert_eq!(r["path"], "shapes.go");
    }

    // CodeSearchNet published the comments' text with their `//` markers (function_parser
    // joins the comment nodes' text; process.py strips the whole).
    let area = find_row(&rows, "func_name", "Area");
    assert_eq!(
        area["docstring"],
        "// Area returns the area of r.\n//\n// It is width times height; see @Perimeter for the border."
    );
    // function_parser cuts the raw `//` text at the first `@`; an empty `//` line is no
    // blank line there, so the second paragraph is part of the summary.
    assert_eq!(
        strings(&area["docstring_tokens"]),
        split("Area returns the area of r . It is width times height ; see")
    );
    assert!(area["url"].as_str().unwrap().ends_with("/shapes.go#L9-L11"));
    assert_eq!(
        strings(&area["code_tokens"]),
        split("func Area ( r Rect ) int { return r . W * r . H }")
    );

    let scale = find_row(&rows, "func_name", "Rect.Scale");
    assert_eq!(scale["docstring"], "// Scale multiplies both sides by k.");
    assert_eq!(
        strings(&scale["code_tokens"])[..7],
        split("func ( r * Rect ) Scale")
    );

    // A `/* */` comment is a docstring too. An interpreted string gives its quotes and escape
    // sequences only, a raw string one token (the leaves of function_parser's grammar).
    let string = find_row(&rows, "func_name", "Rect.String");
    assert_eq!(string["docstring"], "/* String formats r. */");
    assert_eq!(
        strings(&string["docstring_tokens"]),
        split("String formats r .")
    );
    let mut want = split("func ( r Rect ) String ( ) string { return fmt . Sprintf (");
    want.extend(["\"", "\\n", "\""].map(String::from));
    want.extend(split(", r . W , r . H ) + `!` }"));
    assert_eq!(strings(&string["code_tokens"]), want);

    // A blank line between the comment and the method does not break the comment run.
    let push = find_row(&rows, "func_name", "Stack.Push");
    assert_eq!(push["docstring"], "// Push adds v on top.");
    assert_eq!(
        strings(&push["code_tokens"])[..10],
        split("func ( s * Stack [ T ] ) Push")
    );

    // The closure's tokens stay in the function that holds it.
    let apply = find_row(&rows, "func_name", "Apply");
    let toks = strings(&apply["code_tokens"]);
    let at = toks.iter().position(|t| t == ":=").unwrap();
    assert_eq!(
        toks[at - 1..at + 14],
        split("g := func ( x int ) int { return f ( x ) }")
    );
}

#[test]
fn go_packages_imports_receivers_and_categories() {
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
        "main.go:main",
        &[
            ("store.NewStore", "store/store.go:NewStore", "project"),
            ("s.Add", "store/store.go:Store.Add", "project"),
            ("item", "main.go:item", "same_file"),
            ("inv.Count", "inventory/count.go:Count", "project"),
            ("pflag.Parse", "-", "external_binaries"),
            ("fmt.Println", "-", "stdlib"),
            ("len", "-", "stdlib"),
            ("helper", "helper.go:helper", "same_package"),
            ("os.Exit", "-", "stdlib"),
            ("run", "helper.go:run", "same_package"),
            // A conversion to a type of another package of the repository.
            ("store.Kind", "-", "project"),
        ],
    );
    assert_edges(&g, "main.go:item", &[]);
    assert_edges(
        &g,
        "helper.go:helper",
        &[("strings.ToUpper", "-", "stdlib")],
    );
    assert_edges(
        &g,
        "helper.go:run",
        &[
            ("b.Put", "store/basket.go:Basket.Put", "project"),
            // Through Store.Log's result type, *Logger.
            ("s.Log().Flush", "store/log.go:Logger.Flush", "project"),
            ("s.Log", "store/store.go:Store.Log", "project"),
            // Promoted from the embedded `counter`.
            ("s.Size", "store/counter.go:counter.Size", "project"),
        ],
    );
    assert_edges(
        &g,
        "helper.go:walk",
        &[
            // `range` over a []*store.Store parameter.
            ("s.Log().Flush", "store/log.go:Logger.Flush", "project"),
            ("s.Log", "store/store.go:Store.Log", "project"),
            ("strconv.Atoi", "-", "stdlib"),
            ("fmt.Errorf", "-", "stdlib"),
            // `err` of `n, err := ...` has no recorded type; `.Error()` of it is error's.
            ("err.Error", "-", "stdlib"),
            // A package-level variable: `var defaultStore = &store.Store{}`.
            ("defaultStore.Add", "store/store.go:Store.Add", "project"),
        ],
    );
    assert_edges(
        &g,
        "store/store.go:NewStore",
        &[("newLogger", "store/log.go:newLogger", "same_package")],
    );
    assert_edges(
        &g,
        "store/store.go:Store.Add",
        &[
            ("s.mu.Lock", "-", "stdlib"),
            ("s.mu.Unlock", "-", "stdlib"),
            ("append", "-", "stdlib"),
            ("s.incr", "store/counter.go:counter.incr", "same_package"),
            ("errors.New", "-", "external_binaries"),
            ("s.log.Printf", "store/log.go:Logger.Printf", "same_package"),
        ],
    );
    assert_edges(&g, "store/store.go:Store.Log", &[]);
    assert_edges(
        &g,
        "store/log.go:Logger.Printf",
        &[
            ("fmt.Sprintf", "-", "stdlib"),
            // An interface method: an edge into the interface's file.
            ("l.sink.Write", "-", "same_file"),
        ],
    );
    assert_edges(&g, "store/basket.go:Basket.Put", &[("len", "-", "stdlib")]);
    assert_edges(
        &g,
        "inventory/count.go:Count",
        &[
            ("s.Size", "store/counter.go:counter.Size", "project"),
            // Through the dot import of strings.
            ("TrimSpace", "-", "stdlib"),
            ("local", "inventory/count.go:local", "same_file"),
        ],
    );
    let stats = stats(&out);
    let go = &stats["languages"]["go"];
    assert_eq!(go["files"], 8 - 1, "go.mod is no Go source: {go}");
}

fn node<'a>(graph: &'a Value, path: &str, name: &str) -> &'a Value {
    graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["path"] == path && n["qualified_name"] == name)
        .unwrap_or_else(|| panic!("no node {path}:{name}"))
}

/// A `go test -coverprofile` report names files by import path; its blocks become line hits
/// of the repository's files (`example.com/shop/store/x.go` is `store/x.go`).
#[test]
fn go_coverprofile_gives_functions_their_hits() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("shop"));
    for (path, text) in PROJECT {
        r.write(path, text);
    }
    r.commit("shop");
    let profile = tmp.path().join("cover.out");
    std::fs::write(
        &profile,
        "mode: count\n\
         example.com/shop/store/basket.go:7.32,7.49 1 5\n\
         example.com/shop/store/counter.go:5.26,5.34 1 2\n\
         example.com/shop/store/counter.go:7.29,7.42 1 0\n",
    )
    .unwrap();
    let out = mine_into(
        &r.path,
        tmp.path(),
        &["--coverage", profile.to_str().unwrap()],
    );
    let g = read_graph(&out);
    let put = node(&g, "store/basket.go", "Basket.Put");
    assert_eq!(put["test_cov_hits"], 5);
    assert_eq!(put["covered_lines"], 1);
    let incr = node(&g, "store/counter.go", "counter.incr");
    assert_eq!(incr["test_cov_hits"], 2);
    let size = node(&g, "store/counter.go", "counter.Size");
    assert_eq!(size["test_cov_hits"], 0);
    assert_eq!(size["coverable_lines"], 1);
    assert_eq!(size["covered_lines"], 0);
    // No block of the report is in store.go.
    assert!(node(&g, "store/store.go", "NewStore")["test_cov_hits"].is_null());
}

/// `go.mod` files say which import paths are folders of the repository, a nested module
/// too: `other.org/tools/lib` is `tools/lib/`, which no import path alone would tell.
#[test]
fn go_mod_files_map_modules_onto_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("mono"));
    r.write("go.mod", "module example.com/mono\n\ngo 1.21\n")
        .write(
            "main.go",
            "package main\n\nimport \"example.com/mono/util\"\n\nfunc main() {\n\tutil.Help()\n}\n",
        )
        .write("util/util.go", "package util\n\nfunc Help() {}\n")
        .write("tools/go.mod", "module other.org/tools\n")
        .write(
            "tools/cmd/main.go",
            "package main\n\nimport \"other.org/tools/lib\"\n\nfunc main() {\n\tlib.Run()\n}\n",
        )
        .write("tools/lib/lib.go", "package lib\n\nfunc Run() {}\n");
    r.commit("two modules");
    let out = mine_into(&r.path, tmp.path(), &[]);
    let g = read_graph(&out);
    assert_edges(
        &g,
        "main.go:main",
        &[("util.Help", "util/util.go:Help", "project")],
    );
    assert_edges(
        &g,
        "tools/cmd/main.go:main",
        &[("lib.Run", "tools/lib/lib.go:Run", "project")],
    );
}

/// Issue 34, item 4: `--csn-names function-parser` names a Go method as go_parser.py does,
/// by the declaration's name child alone (`Push`, not `Stack.Push`); functions keep theirs.
#[test]
fn go_function_parser_names_on_request() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("gonames"));
    r.write("shapes.go", SHAPES);
    r.commit("go");
    let out = mine_into(&r.path, tmp.path(), &["--csn-names", "function-parser"]);
    let rows = shard_rows(&out.join("csn"));
    let mut names: Vec<&str> = rows
        .iter()
        .map(|r| r["func_name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["Apply", "Area", "Push", "Scale", "String"]);
}
