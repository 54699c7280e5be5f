//! End to end: `mine --docstring-params` (the `docstring_params` column on CSN rows and
//! call-graph nodes) and `--require-param-docs` (the funnel rule `param_docs`) on a
//! repository made here, with functions in Python (Google, NumPy, reST), Java (Javadoc),
//! JavaScript (JSDoc), Go and C (Doxygen). The expected parts are written out from each
//! convention's documentation (Napoleon's Google style, the numpydoc guide, Sphinx's info
//! field lists, Oracle's Javadoc guide, jsdoc.app, go.dev/doc/comment, Doxygen's special
//! commands), never from the tool's output; the tables are read back with pyarrow.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use harness::*;
use serde_json::{json, Value};

const PY: &str = r#"def scale(values, factor=2):
    """Scales every value.

    Args:
        values (list of float): The numbers to scale.
        factor (int, optional): The multiplier.

    Returns:
        list: The scaled numbers.

    Raises:
        ValueError: If factor is zero.
    """
    if factor == 0:
        raise ValueError("zero")
    return [v * factor for v in values]


def clip(x, low, high):
    """Clip a value to a range.

    Parameters
    ----------
    x : float
        The value.
    low, high : float
        The bounds.

    Returns
    -------
    float
        The clipped value.
    """
    return max(low, min(x, high))


def area(width, height):
    """Compute an area.

    :param width: the width
    :type width: float
    :param height: the height
    :returns: the product
    :rtype: float
    :raises TypeError: on bad input
    """
    return width * height


def log(msg, *args, **kwargs):
    """Write a message.

    Args:
        msg: The message.
    """
    print(msg, *args, **kwargs)


def missing(a, b):
    """Add two numbers.

    Args:
        a: The first.
    """
    return a + b


def extra(a):
    """Return the value.

    Args:
        a: The value.
        b: Not a parameter.
    """
    return a


def undocumented():
    return 1
"#;

const JAVA: &str = r#"public class Calc {
    /**
     * Divides two numbers.
     *
     * @param a the dividend
     * @param b the divisor
     * @return the quotient
     * @throws ArithmeticException if b is zero
     */
    public int divide(int a, int b) {
        return a / b;
    }
}
"#;

const JS: &str = r#"/**
 * Joins words into a sentence.
 * @param {string[]} words - The words.
 * @param {string} [sep=","] - The separator.
 * @returns {string} The sentence.
 */
function join(words, sep = ",") {
  return words.join(sep);
}
"#;

const GO: &str = r#"package calc

// Sum adds the numbers of xs.
//
// Deprecated: use Add instead.
func Sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
"#;

const C: &str = r#"/**
 * @brief Copies a buffer.
 * @param[out] dst the destination
 * @param[in] src the source
 * @param n the byte count
 * @return the bytes copied
 */
int copy(char *dst, const char *src, int n) {
    for (int i = 0; i < n; i++) dst[i] = src[i];
    return n;
}

/*!
 * \brief Frees a node.
 * \param node the node to free
 * \retval 0 on success
 */
int release(struct node *node) {
    (void)node;
    return 0;
}
"#;

struct Fixture {
    tmp: tempfile::TempDir,
    repo: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("documented"));
    for (path, text) in [
        ("src/calc.py", PY),
        ("src/Calc.java", JAVA),
        ("src/join.js", JS),
        ("src/sum.go", GO),
        ("src/copy.c", C),
    ] {
        r.write(path, text);
    }
    r.commit("documented functions");
    let repo = r.path.clone();
    Fixture { tmp, repo }
}

impl Fixture {
    fn mine(&self, name: &str, extra: &[&str]) -> PathBuf {
        let out = self.tmp.path().join(name);
        let mut args = vec![
            "mine",
            "--repo",
            self.repo.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--no-history",
        ];
        args.extend_from_slice(extra);
        assert_success(&codemine(&args, &self.tmp.path().join("cache")));
        out
    }
}

fn param(name: &str, ty: Option<&str>, description: &str) -> Value {
    json!({"name": name, "type": ty, "description": description})
}

fn typed(ty: Option<&str>, description: &str) -> Value {
    json!({"type": ty, "description": description})
}

fn parts(
    params: Vec<Value>,
    returns: Value,
    raises: Vec<Value>,
    others: Vec<Value>,
    style: &str,
) -> Value {
    json!({"params": params, "returns": returns, "raises": raises, "others": others, "style": style})
}

/// The expected parts of every documented function, by CSN `func_name`.
fn expected() -> BTreeMap<&'static str, Value> {
    BTreeMap::from([
        // Napoleon: `name (type, optional): description`; `Returns:` typed by `type:`.
        (
            "scale",
            parts(
                vec![
                    param("values", Some("list of float"), "The numbers to scale."),
                    param("factor", Some("int"), "The multiplier."),
                ],
                typed(Some("list"), "The scaled numbers."),
                vec![typed(Some("ValueError"), "If factor is zero.")],
                vec![],
                "google",
            ),
        ),
        // numpydoc: `name : type`, `x1, x2 : type` for several; a return of a type only.
        (
            "clip",
            parts(
                vec![
                    param("x", Some("float"), "The value."),
                    param("low, high", Some("float"), "The bounds."),
                ],
                typed(Some("float"), "The clipped value."),
                vec![],
                vec![],
                "numpy",
            ),
        ),
        // Sphinx info fields: `:type name:` types the parameter, `:rtype:` the return.
        (
            "area",
            parts(
                vec![
                    param("width", Some("float"), "the width"),
                    param("height", None, "the height"),
                ],
                typed(Some("float"), "the product"),
                vec![typed(Some("TypeError"), "on bad input")],
                vec![],
                "rest",
            ),
        ),
        (
            "log",
            parts(
                vec![param("msg", None, "The message.")],
                Value::Null,
                vec![],
                vec![],
                "google",
            ),
        ),
        (
            "missing",
            parts(
                vec![param("a", None, "The first.")],
                Value::Null,
                vec![],
                vec![],
                "google",
            ),
        ),
        (
            "extra",
            parts(
                vec![
                    param("a", None, "The value."),
                    param("b", None, "Not a parameter."),
                ],
                Value::Null,
                vec![],
                vec![],
                "google",
            ),
        ),
        // Javadoc: `@param name`, `@return`, `@throws Type`; no types on parameters.
        (
            "Calc.divide",
            parts(
                vec![
                    param("a", None, "the dividend"),
                    param("b", None, "the divisor"),
                ],
                typed(None, "the quotient"),
                vec![typed(Some("ArithmeticException"), "if b is zero")],
                vec![],
                "javadoc",
            ),
        ),
        // JSDoc: `{Type} name - description`, `[name=default]` optional.
        (
            "join",
            parts(
                vec![
                    param("words", Some("string[]"), "The words."),
                    param("sep", Some("string"), "The separator."),
                ],
                typed(Some("string"), "The sentence."),
                vec![],
                vec![],
                "jsdoc",
            ),
        ),
        // Go: prose; a paragraph opening `Deprecated: ` is the one section.
        (
            "Sum",
            parts(
                vec![],
                Value::Null,
                vec![],
                vec![json!({"section": "deprecated", "text": "use Add instead."})],
                "godoc",
            ),
        ),
        // Doxygen: `@param[dir] name`, the direction dropped; `@brief` is description.
        (
            "copy",
            parts(
                vec![
                    param("dst", None, "the destination"),
                    param("src", None, "the source"),
                    param("n", None, "the byte count"),
                ],
                typed(None, "the bytes copied"),
                vec![],
                vec![],
                "doxygen",
            ),
        ),
        // `\cmd` as `@cmd`; `\retval` is no return but a section of its own.
        (
            "release",
            parts(
                vec![param("node", None, "the node to free")],
                Value::Null,
                vec![],
                vec![json!({"section": "retval", "text": "0 on success"})],
                "doxygen",
            ),
        ),
    ])
}

fn rows(out: &Path, table: &str) -> Vec<Value> {
    shard_rows(&out.join(table))
}

/// Every shard's column names of a table.
fn columns(out: &Path, table: &str) -> Vec<String> {
    let shards = read_shards(&out.join(table));
    let first = shards.as_object().unwrap().values().next().unwrap();
    first["schema"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f[0].as_str().unwrap().to_string())
        .collect()
}

fn without_params(mut rows: Vec<Value>) -> Vec<Value> {
    for r in &mut rows {
        r.as_object_mut().unwrap().remove("docstring_params");
    }
    rows
}

#[test]
fn the_column_holds_each_conventions_parts() {
    let f = fixture();
    let plain = f.mine("plain", &[]);
    let out = f.mine("params", &["--docstring-params"]);

    // Without the flag the column is absent; with it, it is the last one and nothing else
    // changes.
    for table in ["csn", "callgraph/nodes"] {
        assert!(!columns(&plain, table).contains(&"docstring_params".to_string()));
        let cols = columns(&out, table);
        assert_eq!(
            cols.last().map(String::as_str),
            Some("docstring_params"),
            "{table}"
        );
        assert_eq!(
            without_params(rows(&out, table)),
            rows(&plain, table),
            "{table}"
        );
    }
    let shards = read_shards(&out.join("csn"));
    let schema = &shards.as_object().unwrap().values().next().unwrap()["schema"];
    let ty = schema
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f[0] == "docstring_params")
        .unwrap()[1]
        .as_str()
        .unwrap()
        .to_string();
    for part in [
        "params: list<item: struct<name: string not null, type: string, description: string not null>> not null",
        "returns: struct<type: string, description: string not null>",
        "raises: list<item: struct<type: string, description: string not null>> not null",
        "others: list<item: struct<section: string not null, text: string not null>> not null",
        "style: string not null",
    ] {
        assert!(ty.contains(part), "{part} in {ty}");
    }

    let csn = rows(&out, "csn");
    let want = expected();
    let got: BTreeMap<&str, &Value> = csn
        .iter()
        .map(|r| (r["func_name"].as_str().unwrap(), &r["docstring_params"]))
        .collect();
    assert_eq!(
        got.len(),
        want.len(),
        "one CSN row per documented function: {got:?}"
    );
    for (name, parts) in &want {
        assert_eq!(got.get(name).copied(), Some(parts), "{name}");
    }

    // The nodes carry the same parts; a function without a docstring has none.
    let nodes = rows(&out, "callgraph/nodes");
    for (name, parts) in &want {
        let n = find_row(&nodes, "qualified_name", name);
        assert_eq!(&n["docstring_params"], parts, "node {name}");
    }
    assert_eq!(
        find_row(&nodes, "qualified_name", "undocumented")["docstring_params"],
        Value::Null
    );

    // stats.json and the card.
    let st = stats(&out)["stages"]["docstring_params"].clone();
    assert_eq!(st["rows"], want.len());
    let styles = json!({"doxygen": 2, "godoc": 1, "google": 4, "javadoc": 1, "jsdoc": 1, "numpy": 1, "rest": 1});
    assert_eq!(st["styles"], styles);
    assert_eq!(st["with_params"], want.len() - 1, "all but Go's");
    assert_eq!(st["with_returns"], 6);
    assert!(stats(&plain)["stages"].get("docstring_params").is_none());
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(
        card.contains("  - name: docstring_params\n    struct:\n    - name: params\n      list:\n")
    );
    assert!(card.contains(
        "- structured docstrings (`--docstring-params`): column `docstring_params` on 11 rows"
    ));
    let plain_card = std::fs::read_to_string(plain.join("README.md")).unwrap();
    assert!(!plain_card.contains("docstring_params"));

    // Hugging Face `datasets` reads the declared features against the files (it refuses
    // columns that differ) and gives the struct back.
    let loaded = python_json(
        r#"
import json, sys, datasets
d = datasets.load_dataset(sys.argv[1], "csn")
rows = [r for s in d.values() for r in s]
print(json.dumps({r["func_name"]: r["docstring_params"] for r in rows}))
"#,
        &[out.to_str().unwrap()],
    );
    assert_eq!(loaded["Calc.divide"], want["Calc.divide"]);
    assert_eq!(loaded.as_object().unwrap().len(), want.len());
}

#[test]
fn require_param_docs_keeps_the_consistent_functions() {
    let f = fixture();
    let out = f.mine(
        "consistent",
        &["--docstring-params", "--require-param-docs"],
    );
    let kept: Vec<String> = rows(&out, "csn")
        .iter()
        .map(|r| r["func_name"].as_str().unwrap().to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    // `missing` lacks `b`, `extra` documents a `b` it lacks, Go documents no parameter
    // (its convention has no syntax for one) and `undocumented` has no docstring; `log`'s
    // variadic `*args` and `**kwargs` need no entry, NumPy's `low, high` documents both.
    assert_eq!(
        kept,
        [
            "Calc.divide",
            "area",
            "clip",
            "copy",
            "join",
            "log",
            "release",
            "scale"
        ]
    );
    let filter = &stats(&out)["stages"]["filter"];
    assert_eq!(filter["removed"]["param_docs"], 4, "{filter}");
    assert!(filter["rules"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r == "param_docs"));
    let nodes = rows(&out, "callgraph/nodes");
    for name in ["missing", "extra", "Sum", "undocumented"] {
        let n = find_row(&nodes, "qualified_name", name);
        assert_eq!(n["dropped_by"], "param_docs", "{name}");
        // Only the kept functions are parsed.
        assert_eq!(n["docstring_params"], Value::Null, "{name}");
    }
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(card.contains("param_docs 4"), "{card}");
}

/// A sharded run (`--rank`/`--world-size`, then `cluster` and `finalize`) takes the
/// setting from the rank markers: the same column as one `mine`.
#[test]
fn a_sharded_run_writes_the_same_column() {
    let f = fixture();
    let single = f.mine("single", &["--docstring-params"]);
    let out = f.tmp.path().join("sharded");
    let (repo, dir) = (f.repo.to_str().unwrap(), out.to_str().unwrap());
    let cache = f.tmp.path().join("cache");
    for rank in ["0", "1"] {
        let args = [
            "mine",
            "--repo",
            repo,
            "--out",
            dir,
            "--no-history",
            "--docstring-params",
            "--rank",
            rank,
            "--world-size",
            "2",
        ];
        assert_success(&codemine(&args, &cache));
    }
    assert_success(&codemine(&["cluster", "--out", dir], &cache));
    assert_success(&codemine(&["finalize", "--out", dir], &cache));
    let by_name = |out: &Path, table: &str, key: &str| -> BTreeMap<String, Value> {
        rows(out, table)
            .into_iter()
            .map(|r| {
                (
                    r[key].as_str().unwrap().to_string(),
                    r["docstring_params"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(
        by_name(&out, "csn", "func_name"),
        by_name(&single, "csn", "func_name")
    );
    assert_eq!(by_name(&out, "csn", "func_name").len(), expected().len());
    assert_eq!(
        by_name(&out, "callgraph/nodes", "qualified_name"),
        by_name(&single, "callgraph/nodes", "qualified_name")
    );
    assert_eq!(
        stats(&out)["stages"]["docstring_params"]["rows"],
        expected().len()
    );
}
