//! C# end to end: the CSN rows of a fixture with every member form (a constructor, a
//! method with an attribute, an expression-bodied method, a property with a getter body,
//! an auto property, a local function, abstract and interface methods without bodies;
//! `///` XML and plain `//` comments), and the call graph of a hand-written project edge
//! by edge. Expected values come from the rules (codetext's functions plus
//! constructors and properties with bodies; the `///` XML kept, `<summary>` tokenised)
//! and C#'s own name lookup, written by hand.

use harness::*;

const SHAPES: &str = include_str!("../fixtures/csharp/Shapes.cs");

const PROJECT: &[(&str, &str)] = &[
    (
        "src/Models/Item.cs",
        include_str!("../fixtures/csharp/project/src/Models/Item.cs"),
    ),
    (
        "src/BaseStore.cs",
        include_str!("../fixtures/csharp/project/src/BaseStore.cs"),
    ),
    (
        "src/Store.cs",
        include_str!("../fixtures/csharp/project/src/Store.cs"),
    ),
    (
        "src/Util/Helpers.cs",
        include_str!("../fixtures/csharp/project/src/Util/Helpers.cs"),
    ),
];

#[test]
fn csharp_rows_take_members_with_bodies_and_their_xml_docs() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("shapes"));
    r.write("Shapes.cs", SHAPES);
    r.commit("cs");
    let out = mine_into(&r.path, tmp.path(), &["--docstring-params"]);
    let rows = shard_rows(&out.join("csn"));
    let mut names: Vec<&str> = rows
        .iter()
        .map(|r| r["func_name"].as_str().unwrap())
        .collect();
    names.sort();
    // Not rows: `Scale` (a plain comment), `Count` (an auto property), `Sum.Twice` (no
    // doc comment), `Inner.Run` and `IShape.Area` (no body).
    assert_eq!(
        names,
        [
            "Square.Area",
            "Square.Clamp",
            "Square.Double",
            "Square.Square",
            "Square.Sum"
        ]
    );
    // Preprocessor lines are parsed as blank (tree-sitter-c-sharp 0.23 cannot parse an
    // `#if` that cuts through a statement), and kept in the code.
    let clamp = find_row(&rows, "func_name", "Square.Clamp");
    assert!(clamp["code"]
        .as_str()
        .unwrap()
        .contains("#if NET8_0\n            if (v > 1)"));
    for r in &rows {
        assert_eq!(r["language"], "csharp");
    }
    // The XML is kept; the attribute inside the declaration does not stand in the way.
    let area = find_row(&rows, "func_name", "Square.Area");
    assert_eq!(
        area["docstring"],
        "<summary>The area.</summary>\n<returns>The side squared.</returns>"
    );
    let tokens: Vec<&str> = area["docstring_tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(tokens.contains(&"area"), "{tokens:?}");
    assert!(!tokens.contains(&"squared"), "{tokens:?}");
    assert!(area["code"]
        .as_str()
        .unwrap()
        .starts_with("[Obsolete(\"use another\")]\n"));
    // The XML's parts: `<param>` of the constructor.
    let ctor = find_row(&rows, "func_name", "Square.Square");
    assert_eq!(ctor["docstring_params"]["params"][0]["name"], "side");
    assert_eq!(
        ctor["docstring_params"]["params"][0]["description"],
        "The side's length."
    );

    let g = read_graph(&out);
    let mut nodes: Vec<String> = g["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["qualified_name"].as_str().unwrap().to_string())
        .collect();
    nodes.sort();
    assert!(g["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|n| n["syntax_error"] == false));
    assert_eq!(
        nodes,
        [
            "Square.Area",
            "Square.Clamp",
            "Square.Double",
            "Square.Scale",
            "Square.Square",
            "Square.Sum",
            "Square.Sum.Twice"
        ]
    );
    assert_edges(
        &g,
        "Shapes.cs:Square.Area",
        &[("Scale", "Shapes.cs:Square.Scale", "same_file")],
    );
    assert_edges(
        &g,
        "Shapes.cs:Square.Sum",
        &[
            ("Twice", "Shapes.cs:Square.Sum.Twice", "same_file"),
            ("Math.Abs", "-", "stdlib"),
        ],
    );
}

#[test]
fn csharp_types_bases_usings_and_receivers() {
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
        "src/Store.cs:Store.Add",
        &[
            ("new Item", "src/Models/Item.cs:Item.Item", "project"),
            // A field of a type of the base class library (the file imports only
            // `System.*` and the repository's namespaces).
            ("items.Add", "-", "stdlib"),
            // Inherited from the base class.
            ("Touch", "src/BaseStore.cs:BaseStore.Touch", "same_package"),
            // The overload of one parameter, not the two-parameter one declared first.
            ("this.Log", "src/Store.cs:Store.Log", "same_file"),
            // `var item = new Item(..)`.
            ("item.Label", "src/Models/Item.cs:Item.Label", "project"),
        ],
    );
    assert_edges(
        &g,
        "src/Store.cs:Store.Log",
        &[
            (
                "base.Touch",
                "src/BaseStore.cs:BaseStore.Touch",
                "same_package",
            ),
            (
                "Helpers.Format",
                "src/Util/Helpers.cs:Helpers.Format",
                "project",
            ),
        ],
    );
    assert_edges(
        &g,
        "src/BaseStore.cs:BaseStore.Touch",
        &[("Console.WriteLine", "-", "stdlib")],
    );
    // `Log` has two overloads; each call has one by its argument count: no call of the
    // project is ambiguous.
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("stats.json")).unwrap()).unwrap();
    assert_eq!(
        s["stages"]["resolve"]["languages"]["csharp"]["ambiguous"],
        0
    );
    // A property of type `string`.
    assert_edges(
        &g,
        "src/Models/Item.cs:Item.Label",
        &[("Name.ToUpper", "-", "stdlib")],
    );
    // A file that imports a package's namespace: a type of the base class library's list
    // is still `stdlib`, another unknown type the package's.
    assert_edges(
        &g,
        "src/Util/Helpers.cs:Helpers.Format",
        &[
            ("new List<string>", "-", "stdlib"),
            ("parts.Add", "-", "stdlib"),
            ("JsonConvert.SerializeObject", "-", "external_binaries"),
        ],
    );
}

/// Coverage of C# code: a Cobertura report as coverlet writes it (a `<source>` folder,
/// classes by file, each method's `<lines>` repeated in its class's `<lines>`), written by
/// hand from the format: each member takes the hits of its own lines, counted once.
#[test]
fn csharp_coverage_from_a_coverlet_cobertura_report() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("shapes"));
    r.write("Shapes.cs", SHAPES);
    r.commit("cs");
    let line = |n: u32, h: u32| format!("<line number=\"{n}\" hits=\"{h}\" branch=\"False\" />");
    let area: String = [23, 24, 25].iter().map(|&n| line(n, 2)).collect();
    let sum: String = [41, 43, 44].iter().map(|&n| line(n, 0)).collect();
    let xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<coverage line-rate=\"0.5\" branch-rate=\"1\" version=\"1.9\" timestamp=\"1700000000\" lines-covered=\"3\" lines-valid=\"6\">\n\
         <sources><source>/home/ci/shapes/</source></sources>\n<packages><package name=\"Geometry\" line-rate=\"0.5\">\n\
         <classes><class name=\"Geometry.Square\" filename=\"Shapes.cs\" line-rate=\"0.5\">\n\
         <methods><method name=\"Area\" signature=\"()\"><lines>{area}</lines></method>\n\
         <method name=\"Sum\" signature=\"(System.Double)\"><lines>{sum}</lines></method></methods>\n\
         <lines>{area}{sum}</lines></class></classes></package></packages></coverage>\n"
    );
    let report = tmp.path().join("coverage.cobertura.xml");
    std::fs::write(&report, xml).unwrap();
    let out = mine_into(
        &r.path,
        tmp.path(),
        &["--coverage", report.to_str().unwrap()],
    );
    let g = read_graph(&out);
    let nodes = g["nodes"].as_array().unwrap();
    let cov = |q: &str| coverage_of(find_row(nodes, "qualified_name", q));
    // Area spans lines 21 (its attribute) to 25.
    assert_eq!(cov("Square.Area"), (Some(6), Some(3), Some(3)));
    assert_eq!(cov("Square.Sum"), (Some(0), Some(0), Some(3)));
}
