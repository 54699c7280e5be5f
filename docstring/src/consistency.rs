//! Whether a docstring documents exactly its function's parameters: the check behind
//! `--require-param-docs`.
//!
//! The Vault (FSoft-AI4Code/TheVault, `src/utils/utils.py`, `extract_docstring`) sorts the
//! documented parameters into `params` (named in the signature) and `outlier_params` (not in
//! the signature), and leaves signature parameters that the docstring does not document with
//! an empty docstring. A docstring is consistent when there is neither an outlier nor an
//! undocumented parameter; that is [`params_match`]. Where codemine goes further:
//!
//! - names compare without their sigils (`*args`, `**kwargs`, `...rest`, `$x`, `&x`,
//!   `&mut x`) and without a type or default written after them (`x: int`, `x=1`);
//! - receivers (`self`, `cls`, `this`) are never required, and documenting them is no
//!   outlier;
//! - variadic parameters (given with their `*`, `**` or `...`) need not be documented;
//! - `x, y` (NumPy documents several parameters at once) documents both, and a dotted
//!   name (JSDoc's `options.timeout`) documents its root (`options`);
//! - Javadoc's type parameters (`@param <T>`) are not value parameters and are left out.
//!
//! A function without parameters matches a docstring that documents none.
//!
//! ```
//! use codemine_docstring::{check_params, params_match, parse, Language};
//!
//! let d = parse("Adds.\n\nArgs:\n    a: first\n    c: not a parameter", Language::Python);
//! assert!(!params_match(&d, &["self", "a", "b"]));
//! let check = check_params(&d, &["self", "a", "b"]);
//! assert_eq!(check.missing, ["b"]);
//! assert_eq!(check.outliers, ["c"]);
//! ```

use std::collections::HashSet;

use crate::model::DocstringParams;

/// What differs between the documented parameters and the signature's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParamCheck {
    /// Required signature parameters the docstring does not document, in signature order.
    pub missing: Vec<String>,
    /// Documented names that are not signature parameters (The Vault's `outlier_params`),
    /// in docstring order.
    pub outliers: Vec<String>,
}

impl ParamCheck {
    /// Neither a missing nor an outlier parameter.
    pub fn is_match(&self) -> bool {
        self.missing.is_empty() && self.outliers.is_empty()
    }
}

const RECEIVERS: [&str; 3] = ["self", "cls", "this"];

/// A parameter name as compared: sigils, `mut`, and anything after the identifier (a type,
/// a default, `?`) removed. Empty when no identifier is left (`<T>`, `...`).
pub fn normalize_param_name(name: &str) -> &str {
    let mut s = name.trim();
    // Bounded: every turn removes at least one character.
    loop {
        let next = s
            .strip_prefix("...")
            .or_else(|| s.strip_prefix('*'))
            .or_else(|| s.strip_prefix('&'))
            .or_else(|| s.strip_prefix('$'))
            .or_else(|| s.strip_prefix('@'))
            .or_else(|| s.strip_prefix("mut "))
            .map(str::trim_start);
        match next {
            Some(n) => s = n,
            None => break,
        }
    }
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

fn is_variadic(name: &str) -> bool {
    let s = name.trim().trim_start_matches('&');
    s.starts_with('*') || s.starts_with("...")
}

/// Compares the documented parameters of `parsed` with the signature's parameter names,
/// given as the signature writes them (`*args`, `$x` and `x: int` are all fine).
pub fn check_params<S: AsRef<str>>(parsed: &DocstringParams, signature: &[S]) -> ParamCheck {
    let sig: Vec<(&str, bool)> = signature
        .iter()
        .map(|n| (normalize_param_name(n.as_ref()), is_variadic(n.as_ref())))
        .filter(|(n, _)| !n.is_empty())
        .collect();
    let mut documented: Vec<&str> = Vec::new();
    for p in &parsed.params {
        if p.name.trim_start().starts_with('<') {
            continue;
        }
        for part in p.name.split(',') {
            let n = normalize_param_name(part);
            if !n.is_empty() {
                documented.push(n);
            }
        }
    }
    let documented_set: HashSet<&str> = documented.iter().copied().collect();
    let sig_set: HashSet<&str> = sig.iter().map(|(n, _)| *n).collect();
    let mut check = ParamCheck::default();
    for &(name, variadic) in &sig {
        if !variadic && !RECEIVERS.contains(&name) && !documented_set.contains(name) {
            check.missing.push(name.to_string());
        }
    }
    let mut seen = HashSet::new();
    for &name in &documented {
        let known = sig_set.contains(name) || RECEIVERS.contains(&name);
        if !known && seen.insert(name) {
            check.outliers.push(name.to_string());
        }
    }
    check
}

/// The Vault's consistency rule ([`check_params`] finds nothing missing and no outlier).
pub fn params_match<S: AsRef<str>>(parsed: &DocstringParams, signature: &[S]) -> bool {
    check_params(parsed, signature).is_match()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_their_sigils() {
        assert_eq!(normalize_param_name("**kwargs"), "kwargs");
        assert_eq!(normalize_param_name("...$rest"), "rest");
        assert_eq!(normalize_param_name("&mut buf"), "buf");
        assert_eq!(normalize_param_name("x: int = 3"), "x");
        assert_eq!(normalize_param_name("opts.timeout"), "opts");
        assert_eq!(normalize_param_name("<T>"), "");
    }
}
