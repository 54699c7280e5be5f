//! The parameter-consistency rule (`params_match`, `check_params`): The Vault's split of
//! documented parameters into the signature's and outliers, with codemine's handling of
//! sigils, receivers and variadics (docs/docstrings.md, "Consistency").

use codemine_docstring::{check_params, params_match, parse, Language};

/// The Vault's own example (TheVault's data/README.md): `cal_sum(a, b)` documents `a`, `b`
/// and `c`, and `c` is its outlier parameter.
#[test]
fn the_vault_readme_example() {
    let d = parse(
        "This is demo function\n\n    Args:\n        a (int): this is a comment\n        b (int): this is another comment\n        c (int): this is a comment, but `c` is not `cal_sum`'s paramerter\n\n    Returns:\n        int: sum of 2 value",
        Language::Python,
    );
    let check = check_params(&d, &["a", "b"]);
    assert!(check.missing.is_empty());
    assert_eq!(check.outliers, ["c"]);
    assert!(!check.is_match());
}

#[test]
fn every_parameter_documented_and_nothing_else() {
    let d = parse("Adds.\n\n:param a: x\n:param b: y", Language::Python);
    assert!(params_match(&d, &["self", "a", "b"]));
    assert!(params_match(&d, &["a", "b"]));
    let c = check_params(&d, &["a", "b", "c"]);
    assert_eq!(c.missing, ["c"]);
    assert!(c.outliers.is_empty());
    // Nothing documented: a function with parameters does not match, one without does.
    let none = parse("Adds.", Language::Python);
    assert!(!params_match(&none, &["a"]));
    assert!(params_match(&none, &[] as &[&str]));
    assert!(params_match(&none, &["self"]));
}

#[test]
fn variadics_need_no_documentation() {
    let d = parse("Calls.\n\nArgs:\n    f: the function", Language::Python);
    assert!(params_match(&d, &["f", "*args", "**kwargs"]));
    let d = parse(
        "Calls.\n\nArgs:\n    f: the function\n    **kwargs: passed on",
        Language::Python,
    );
    assert!(params_match(&d, &["f", "*args", "**kwargs"]));
    // Given without its sigil, a variadic cannot be told from a parameter.
    assert!(!params_match(&d, &["f", "args", "kwargs"]));
    let js = parse(
        "@param {number} a x\n@param {...number} rest y",
        Language::JavaScript,
    );
    assert!(params_match(&js, &["a", "...rest"]));
}

#[test]
fn names_across_languages() {
    let php = parse("@param int $x a\n@param string ...$ys b", Language::Php);
    assert!(params_match(&php, &["$x", "...$ys"]));
    let js = parse(
        "@param {Object} options o\n@param {number} options.timeout t",
        Language::JavaScript,
    );
    assert!(params_match(&js, &["options"]));
    let numpy = parse(
        "F.\n\nParameters\n----------\nx1, x2 : float\n    Inputs.",
        Language::Python,
    );
    assert!(params_match(&numpy, &["x1", "x2"]));
    let java = parse("@param <T> the type\n@param a the a", Language::Java);
    assert!(params_match(&java, &["a"]));
    let rust = parse("Reads.\n\n# Arguments\n\n* `buf` - where", Language::Rust);
    assert!(params_match(&rust, &["&self", "mut buf: &mut [u8]"]));
    let ruby = parse(
        "@param name [String] n\n@param block [Proc] b",
        Language::Ruby,
    );
    assert!(params_match(&ruby, &["name", "&block"]));
}
