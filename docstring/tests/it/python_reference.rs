//! Python docstrings against docstring-parser 0.18 itself (PyPI `docstring-parser==0.18.0`,
//! tests/requirements.txt), run at test time by `tests/reference/docstring_parser_ref.py`:
//! a corpus written for this test in every Python style, with the edge cases of each
//! parser (types with spaces, optional markers, defaults, continuation lines, repeated
//! sections, malformed fields), compared field by field: the style, every parameter's
//! name, type and description, the first return's type and description, every raise's.
//!
//! docstring-parser's parameters include attributes and its raises NumPy's `Warns`;
//! codemine puts those in `others` on purpose (docs/docstrings.md), so they are left out of
//! the reference's lists before comparing. Types compare trimmed, an empty type as none.

use serde_json::{json, Value};

use crate::support::{python, run_reference};
use codemine_docstring::{parse, parse_as, DocstringParams, Language, Style};

/// Docstrings in every Python style, written for this test (as `__doc__` holds them:
/// indented continuation lines).
const CORPUS: &[&str] = &[
    // reST
    "Connect.\n\n    :param host: the host\n    :param int port: the port\n    :returns: a socket\n    :rtype: socket.socket\n    :raises OSError: when it fails\n    ",
    ":param x: only fields",
    "Types apart.\n\n:param a: first\n:type a: int\n:param b: second\n:type b: list of str\n:return: nothing\n",
    "Optional.\n\n:param int? limit: how many\n:raises: on any error\n",
    "Long field.\n\n    :param path: where the file lies,\n        relative to the root,\n        never absolute.\n    :keyword timeout: seconds\n",
    "Too many words.\n\n:param Dict[str, int] mapping: breaks the field\n",
    "Only a return type.\n\n:rtype: bool\n",
    "Yields.\n\n:yields: each line\n:ytype: str\n",
    "Odd fields.\n\n:note: something\n:seealso: other\n:deprecated: 2.0\n",
    "No colon after the field\n\n:param x\n",
    "Attribute.\n\n:attribute name: the name\n:param v: value\n",
    // Google
    "Adds.\n\n    Args:\n        a (int): first\n        b (int, optional): second. Defaults to 0.\n\n    Returns:\n        int: the sum\n\n    Raises:\n        TypeError: on bad input\n        ValueError: when negative\n    ",
    "Google without types.\n\nArgs:\n    path: the path\n    mode: the mode, which\n        continues here\n\nReturns:\n    the file object\n",
    "Args:\n    x: only a section\n",
    "Typed optional.\n\nArguments:\n    name (str?): who\n    *args: more\n    **kwargs: even more\n",
    "Parameters header.\n\nParameters:\n    n (Dict[str, List[int]]): nested types\n\nYields:\n    str: lines\n",
    "Example section.\n\nExample:\n    >>> f(1)\n    2\n\nArgs:\n    x: y\n",
    "Attributes only.\n\nAttributes:\n    count (int): how many\n",
    "Repeated section.\n\nArgs:\n    a: first\n\nReturns:\n    r\n\nArgs:\n    b: second\n",
    "Missing colon.\n\nArgs:\n    just words here\n",
    "Empty section.\n\nArgs:\n\nReturns:\n    x\n",
    "Exceptions.\n\nExceptions:\n    KeyError: missing\nExcept:\n    IndexError: out of range\n",
    "Section ended by prose.\n\nArgs:\n    a: first\nThis line is not part of Args.\n\nReturns:\n    bool: ok\n",
    "Returns with brackets.\n\nReturns:\n    List[int]: numbers\n",
    "Returns multi-line.\n\nReturns:\n    A dictionary with\n    two keys.\n",
    // NumPy
    "Compute.\n\n    Parameters\n    ----------\n    x : array_like\n        Input array.\n    axis : int, optional\n        Axis.\n    out : ndarray, default None\n        Output.\n\n    Returns\n    -------\n    ndarray\n        The result.\n\n    Raises\n    ------\n    ValueError\n        If bad.\n    ",
    "Multiple returns.\n\nReturns\n-------\nmean : float\n    The mean.\nstd : float\n    The deviation.\n",
    "Other parameters.\n\nParameters\n----------\na : int\n\nOther Parameters\n----------------\nverbose : bool\n    Talk.\n",
    "Several names.\n\nParameters\n----------\nx1, x2 : array_like\n    Inputs.\n",
    "No type.\n\nParameters\n----------\nflag\n    A flag.\n",
    "Optional forms.\n\nParameters\n----------\na : int (optional)\n    One.\nb : str, default: 'x'\n    Two.\nc : {'l', 'r'}, optional\n    Three.\n",
    "Warns and notes.\n\nWarns\n-----\nUserWarning\n    Sometimes.\n\nNotes\n-----\nSome notes.\n\nSee Also\n--------\nother : thing\n",
    "Yields section.\n\nYields\n------\nint\n    Numbers.\n",
    "Examples.\n\nExamples\n--------\n>>> f(1)\n1\n>>> f(2)\n2\n\nParameters\n----------\nx : int\n",
    "Wrong dashes.\n\nParameters\n-----\nx : int\n    Not a section.\n",
    "Deprecated.\n\n.. deprecated:: 1.6.0\n    Use `g` instead.\n\nParameters\n----------\nx : int\n",
    "Receives.\n\nReceives\n--------\nvalue : int\n    Sent in.\n\nAttributes\n----------\nsize : int\n",
    "Colon in type.\n\nParameters\n----------\nmapping : Dict[str: int]\n    Odd.\n",
    // Epytext
    "Resize.\n\n    @param width: the width\n    @type width: int\n    @param height: the height\n    @return: the new size\n    @rtype: tuple\n    @raise ValueError: if negative\n    ",
    "@param x: only fields\n@return: y",
    "Type first.\n\n@type n: int\n@param n: how many\n",
    "Keyword.\n\n@keyword verbose: talk\n@see: other\n",
    "Yield.\n\n@yield: items\n@ytype: str\n",
    "Mixed return and yield.\n\n@return: x\n@yield: y\n",
    "Instance variables.\n\n@ivar count: how many\n@param x: value\n",
    "Malformed.\n\n@param: no name\n",
    "Raise without type.\n\n@raise: on error\n",
    "Multi-line epytext.\n\n@param data: the data,\n    more data\n@return: result\n    spanning lines\n",
    // Mixtures and prose
    "Just a summary line.",
    "Summary.\n\nA longer description\nspanning lines, with a colon: here.\n",
    "Mixed styles.\n\n:param a: rest\n\nArgs:\n    b: google\n",
    "Mixed epytext and rest.\n\n@param a: epy\n:param b: rest\n:param c: rest\n",
    "Email me at a@b.c about :func:`f`.",
    "\n    Leading blank line.\n\n    :param x: the x\n    ",
    "Tabs.\n\n\t:param t: tabbed\n",
    "Unicode. \u{e9}t\u{e9}\n\nArgs:\n    \u{e9}l\u{e8}ve (str): un \u{e9}l\u{e8}ve\n",
];

/// The reference's parts, mapped as codemine maps them: attributes, `Receives` and
/// `Warns` left out.
fn reference_view(r: &Value) -> Value {
    let skip_param = ["attribute", "ivar", "cvar", "var", "receives"];
    let ty = |v: &Value| match v.as_str().map(str::trim) {
        Some("") | None => Value::Null,
        Some(t) => json!(t),
    };
    let desc = |v: &Value| json!(v.as_str().unwrap_or(""));
    let params: Vec<Value> = r["params"]
        .as_array()
        .map(|a| a.as_slice())
        .unwrap_or_default()
        .iter()
        .filter(|p| !skip_param.contains(&p["key"].as_str().unwrap_or("")))
        .map(|p| json!([p["name"], ty(&p["type"]), desc(&p["description"])]))
        .collect();
    let returns = match &r["returns"] {
        Value::Null => Value::Null,
        x => json!([ty(&x["type"]), desc(&x["description"])]),
    };
    let raises: Vec<Value> = r["raises"]
        .as_array()
        .map(|a| a.as_slice())
        .unwrap_or_default()
        .iter()
        .filter(|e| e["key"] != "warns")
        .map(|e| json!([ty(&e["type"]), desc(&e["description"])]))
        .collect();
    json!({"params": params, "returns": returns, "raises": raises})
}

fn our_view(d: &DocstringParams) -> Value {
    let params: Vec<Value> = d
        .params
        .iter()
        .map(|p| json!([p.name, p.type_name, p.description]))
        .collect();
    let returns = match &d.returns {
        None => Value::Null,
        Some(r) => json!([r.type_name, r.description]),
    };
    let raises: Vec<Value> = d
        .raises
        .iter()
        .map(|e| json!([e.type_name, e.description]))
        .collect();
    json!({"params": params, "returns": returns, "raises": raises})
}

/// docstring-parser's style name as codemine's, `plain` when it found nothing.
fn reference_style(r: &Value) -> &str {
    if r["meta"].as_u64() == Some(0) {
        return "plain";
    }
    match r["style"].as_str().unwrap_or("") {
        "numpydoc" => "numpy",
        "epydoc" => "epytext",
        s => s,
    }
}

#[test]
fn autodetection_agrees_with_docstring_parser() {
    let inputs: Vec<Value> = CORPUS.iter().map(|t| json!({"text": t})).collect();
    let refs = run_reference(&python(), None, &inputs);
    let mut failures = Vec::new();
    let mut compared = 0;
    for (text, r) in CORPUS.iter().zip(&refs) {
        assert!(
            r.get("error").is_none(),
            "docstring-parser failed on {text:?}: {r}"
        );
        compared += 1;
        let ours = parse(text, Language::Python);
        let (want, got) = (reference_view(r), our_view(&ours));
        if want != got || ours.style.as_str() != reference_style(r) {
            failures.push(format!(
                "{text:?}\n  docstring-parser ({}): {want}\n  codemine ({}): {got}",
                reference_style(r),
                ours.style
            ));
        }
    }
    assert_eq!(compared, CORPUS.len());
    assert!(
        failures.is_empty(),
        "{} of {compared} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_style_agrees_with_docstring_parser() {
    let styles = [
        ("rest", Style::Rest),
        ("google", Style::Google),
        ("numpy", Style::Numpy),
        ("epytext", Style::Epytext),
    ];
    let mut inputs = Vec::new();
    for text in CORPUS {
        for (name, _) in styles {
            inputs.push(json!({"text": text, "style": name}));
        }
    }
    let refs = run_reference(&python(), None, &inputs);
    let mut failures = Vec::new();
    let mut rejected = std::collections::HashMap::new();
    for (input, r) in inputs.iter().zip(&refs) {
        let text = input["text"].as_str().unwrap_or_default();
        let style = styles
            .iter()
            .find(|(n, _)| input["style"] == *n)
            .map(|(_, s)| *s)
            .unwrap_or(Style::Plain);
        let ours = parse_as(text, style);
        if let Some(err) = r.get("error") {
            // The style rejects the text (a ParseError): codemine finds nothing.
            *rejected.entry(style).or_insert(0) += 1;
            if !ours.is_empty() || ours.style != Style::Plain {
                failures.push(format!(
                    "{style}: {text:?}\n  docstring-parser: {err}\n  codemine: {ours:?}"
                ));
            }
            continue;
        }
        let (want, got) = (reference_view(r), our_view(&ours));
        if want != got {
            failures.push(format!(
                "{style}: {text:?}\n  docstring-parser: {want}\n  codemine: {got}"
            ));
        }
    }
    // The corpus has malformed cases for every parser; NumPy's rejects nothing.
    for style in [Style::Rest, Style::Google, Style::Epytext] {
        assert!(
            rejected.get(&style).is_some_and(|&n| n > 0),
            "no {style} rejection: the corpus lost its malformed cases ({rejected:?})"
        );
    }
    assert_eq!(rejected.get(&Style::Numpy), None);
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
