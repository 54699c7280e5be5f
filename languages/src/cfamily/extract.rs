//! What C's and C++'s extraction share: declarators, the comment-block docstring, calls,
//! typed locals, linkage and arity, file items (includes, macros, prototypes), the names of
//! C++ scopes that the resolver reads too.

use tree_sitter::Node;

use crate::extract::grammar::NodeExt;

pub(crate) use crate::extract::squash;
use crate::extract::{
    leading_comments, text, tokens, CallKind, CallSite, Details, Docstring, FileInfo, Include,
    Macro,
};

/// The name a declarator declares: follows the `declarator` fields through pointer,
/// parenthesized and attributed declarators down to the function declarator's identifier.
pub(crate) fn declarator_name<'t>(def: Node<'t>) -> Option<Node<'t>> {
    let mut d = def.field("declarator")?;
    let mut seen_function = false;
    // Declarator chains are short; the bound only guards against a malformed tree.
    for _ in 0..64 {
        match d.kind_str() {
            "function_declarator" => seen_function = true,
            "identifier"
            | "field_identifier"
            | "qualified_identifier"
            | "destructor_name"
            | "operator_name"
            | "template_function" => return seen_function.then_some(d),
            _ => {}
        }
        d = d.field("declarator").or_else(|| d.named_child(0))?;
    }
    None
}

/// The comment block directly before `node`, delimiters stripped (C and C++ docstrings).
/// `before`: the earlier siblings of `node` ([`crate::extract::Around::before`]).
pub(crate) fn comment_docstring<'t>(
    node: Node<'t>,
    before: &[Node<'t>],
    src: &str,
) -> Option<Docstring<'t>> {
    let comments = leading_comments(node, before, |k| k == "comment");
    if comments.is_empty() {
        return None;
    }
    let parts: Vec<String> = comments
        .iter()
        .map(|c| tokens::strip_comment_delimiters(text(*c, src)))
        .collect();
    Some(Docstring {
        text: parts.join("\n").trim().to_string(),
        published: None,
        inner_node: None,
    })
}

/// The function declarator of a definition or declaration, through pointer and
/// parenthesized declarators.
pub(crate) fn function_declarator(def: Node) -> Option<Node> {
    let mut d = def.field("declarator")?;
    for _ in 0..64 {
        if d.kind_str() == "function_declarator" {
            return Some(d);
        }
        d = d.field("declarator").or_else(|| d.named_child(0))?;
    }
    None
}

/// Whether a definition or declaration carries `static`.
pub(crate) fn has_static(node: Node, src: &str) -> bool {
    let mut cursor = node.walk();
    let found = node
        .children(&mut cursor)
        .any(|c| c.kind_str() == "storage_class_specifier" && text(c, src) == "static");
    found
}

/// Linkage and arity of a C or C++ function definition.
pub(crate) fn c_details(node: Node, src: &str) -> Details {
    let mut d = Details {
        is_static: has_static(node, src),
        ..Default::default()
    };
    let Some(params) = function_declarator(node).and_then(|f| f.field("parameters")) else {
        return d;
    };
    for p in crate::extract::named(params) {
        match p.kind_str() {
            "variadic_parameter" | "variadic_parameter_declaration" => d.variadic = true,
            // `(void)` declares no parameter.
            "parameter_declaration" | "optional_parameter_declaration"
                if p.field("declarator").is_some() || text(p, src).trim() != "void" =>
            {
                d.params += 1;
            }
            _ => {}
        }
    }
    d
}

/// The parameter names of a C or C++ function definition: each declarator's variable
/// (through pointers, arrays and references), `...name` for a C++ parameter pack; a
/// parameter without a name (`int`, `void`, C's `...`) gives none.
pub(crate) fn c_param_names(node: Node, src: &str) -> Vec<String> {
    let Some(params) = function_declarator(node).and_then(|f| f.field("parameters")) else {
        return Vec::new();
    };
    crate::extract::named(params)
        .filter_map(|p| {
            let kind = p.kind_str();
            let name = match kind {
                "parameter_declaration"
                | "optional_parameter_declaration"
                | "variadic_parameter_declaration" => variable_name(p.field("declarator")?)?,
                _ => return None,
            };
            let name = text(name, src);
            Some(match kind {
                "variadic_parameter_declaration" => format!("...{name}"),
                _ => name.to_string(),
            })
        })
        .collect()
}

/// The number of arguments of a call's argument list.
pub(crate) fn arg_count(call: Node) -> u32 {
    call.field("arguments").map_or(0, |a| {
        crate::extract::named(a)
            .filter(|c| !c.kind_str().contains("comment"))
            .count() as u32
    })
}

/// A C call: `f(x)`, `s->f(x)` (a function pointer in a struct), `(*fp)(x)`.
pub(crate) fn c_call(node: Node, kind: &str, src: &str) -> Option<CallSite> {
    if kind != "call_expression" {
        return None;
    }
    let f = node.field("function")?;
    let line = node.start_position().row as u32 + 1;
    let args = arg_count(node);
    let (name, kind) = match f.kind_str() {
        "identifier" => (text(f, src).to_string(), CallKind::Plain),
        "field_expression" => {
            let field = f.field("field")?;
            let recv = f.field("argument")?;
            (
                text(field, src).to_string(),
                CallKind::Member(squash(text(recv, src))),
            )
        }
        // Calls through an expression ((*fp)(x), table[i](x)): kept, never resolved.
        _ => (squash(text(f, src)), CallKind::Plain),
    };
    Some(CallSite {
        text: squash(text(f, src)),
        name,
        kind,
        line,
        args,
    })
}

/// Words that look like calls in a macro body but are not.
const NOT_CALLS: [&str; 16] = [
    "if",
    "while",
    "for",
    "switch",
    "return",
    "sizeof",
    "typeof",
    "__typeof__",
    "do",
    "defined",
    "alignof",
    "_Alignof",
    "offsetof",
    "__attribute__",
    "__extension__",
    "case",
];

/// The names a macro body calls: identifiers followed by `(`, except the macro's
/// parameters, keywords and token-pasted names (`a##b(...)` names no function).
pub(crate) fn macro_calls(body: &str, params: &[&str]) -> Vec<String> {
    let b = body.as_bytes();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'"' || c == b'\'' {
            // Skip a literal.
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &body[start..i];
            let pasted = body[..start].trim_end().ends_with("##")
                || body[i..].trim_start().starts_with("##")
                || body[..start].trim_end().ends_with('#');
            let called = body[i..].trim_start().starts_with('(');
            let member =
                body[..start].trim_end().ends_with('.') || body[..start].trim_end().ends_with("->");
            if called
                && !pasted
                && !member
                && !params.contains(&word)
                && !NOT_CALLS.contains(&word)
                && !out.iter().any(|o| o == word)
            {
                out.push(word.to_string());
            }
            continue;
        }
        i += 1;
    }
    out
}

/// The variable a declarator declares, through pointers, arrays, initializers and function
/// pointer declarators (`(*fp)(int)` declares `fp`); `None` for a plain function prototype.
pub(crate) fn variable_name<'t>(mut d: Node<'t>) -> Option<Node<'t>> {
    let mut through_pointer = false;
    for _ in 0..32 {
        match d.kind_str() {
            "identifier" | "field_identifier" => return Some(d),
            "function_declarator" => {
                let inner = d.field("declarator")?;
                if inner.kind_str() != "parenthesized_declarator" && !through_pointer {
                    return None;
                }
                d = inner;
            }
            kind => {
                through_pointer |= kind == "pointer_declarator";
                d = d.field("declarator").or_else(|| d.named_child(0))?;
            }
        }
    }
    None
}

/// C parameters and local variables, with their type when it is a named type (`struct`
/// tags and typedef names), else an empty type: enough to tell a call through a variable
/// (`fp(x)`) from a call of a function.
pub(crate) fn c_locals(node: Node, kind: &str, src: &str, out: &mut Vec<(String, String)>) {
    if !matches!(kind, "declaration" | "parameter_declaration") {
        return;
    }
    let ty = node
        .field("type")
        .filter(|t| t.kind_str() == "type_identifier")
        .map(|t| text(t, src).to_string())
        .unwrap_or_default();
    let mut cursor = node.walk();
    for d in node.children_by_field_name("declarator", &mut cursor) {
        if let Some(n) = variable_name(d) {
            out.push((text(n, src).to_string(), ty.clone()));
        }
    }
}

/// File-level items common to C and C++: includes, function-like macros, prototypes.
pub(crate) fn c_file_item(node: Node, src: &str, info: &mut FileInfo) {
    match node.kind_str() {
        "preproc_include" => {
            if let Some(p) = node.field("path") {
                let raw = text(p, src);
                let system = p.kind_str() == "system_lib_string";
                let path = raw
                    .trim_matches(|c| c == '"' || c == '<' || c == '>')
                    .to_string();
                info.includes.push(Include { path, system });
            }
        }
        "preproc_function_def" => {
            if let Some(n) = node.field("name") {
                let params: Vec<&str> = node
                    .field("parameters")
                    .map(|p| {
                        (0..p.named_child_count())
                            .filter_map(|i| p.named_child(i as u32))
                            .map(|c| text(c, src))
                            .collect()
                    })
                    .unwrap_or_default();
                let body = node.field("value").map_or("", |v| text(v, src));
                info.macros.push(Macro {
                    name: text(n, src).to_string(),
                    calls: macro_calls(body, &params),
                });
            }
        }
        // `#define s_malloc hi_malloc`: an alias, so `s_malloc(n)` calls hi_malloc.
        "preproc_def" => {
            let (Some(n), Some(v)) = (node.field("name"), node.field("value")) else {
                return;
            };
            let value = text(v, src).trim();
            let is_ident = !value.is_empty()
                && !value.starts_with(|c: char| c.is_ascii_digit())
                && value
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if is_ident {
                info.macros.push(Macro {
                    name: text(n, src).to_string(),
                    calls: vec![value.to_string()],
                });
            }
        }
        "declaration" | "field_declaration" => {
            if let Some(name) = declarator_name(node) {
                info.prototypes
                    .push((text(name, src).to_string(), has_static(node, src)));
            }
        }
        _ => {}
    }
}

/// Where C's functions can be: the top level, preprocessor conditionals, `extern "C" { }`
/// blocks (C has no nested functions; C++ adds its scopes to these).
pub(crate) fn c_may_contain_functions(node: Node) -> bool {
    matches!(
        node.kind_str(),
        "translation_unit"
            | "preproc_if"
            | "preproc_ifdef"
            | "preproc_else"
            | "preproc_elif"
            | "preproc_elifdef"
            | "linkage_specification"
            | "declaration_list"
    )
}

/// The name of an anonymous namespace in qualified names.
pub const ANONYMOUS_NAMESPACE: &str = "(anonymous namespace)";

/// The last `::` component of a qualified name, ignoring `::` inside template arguments.
pub fn last_component(name: &str) -> &str {
    let mut depth = 0i32;
    let bytes = name.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => {
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    &name[start..]
}

#[cfg(test)]
mod tests {
    use super::{last_component, macro_calls};

    #[test]
    fn calls_in_macro_bodies() {
        assert_eq!(macro_calls("util_free(p)", &["p"]), ["util_free"]);
        assert_eq!(
            macro_calls(
                "do { if (x) log_write(LVL, \"f(%d)\", x); } while (0)",
                &["x"]
            ),
            ["log_write"]
        );
        assert!(macro_calls("x##_init(a) + s.f(1) + p->g(2) + sizeof(a)", &["x", "a"]).is_empty());
        assert_eq!(
            macro_calls("cb(a) + helper(cb(a))", &["cb", "a"]),
            ["helper"]
        );
    }

    #[test]
    fn last_component_skips_template_arguments() {
        assert_eq!(last_component("ns::Foo::bar"), "bar");
        assert_eq!(last_component("f"), "f");
        assert_eq!(last_component("Foo<a::b>::operator=="), "operator==");
        assert_eq!(last_component("cast<std::string>"), "cast<std::string>");
    }
}
