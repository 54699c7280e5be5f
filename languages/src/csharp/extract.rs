//! C#: methods, constructors, local functions and properties with a body (an accessor with
//! a block or `=>`, or an expression-bodied property), named `Class.Method` without the
//! namespace, as codemine names Java's (`Outer.Inner.Method` for nested types, a local
//! function `Class.Method.local`). Bodiless (abstract, interface, `extern`, `partial`)
//! declarations are none. The docstring is the run of `///` comment lines directly before
//! the declaration (its attributes are inside it), markers stripped: the XML is kept, and
//! [`super::CSharp`]'s `docstring_summary` gives `<summary>`'s text to `docstring_tokens`.
//!
//! For the resolver the file records its namespace (`package`), its `using` directives
//! (`module` the namespace or type, `alias` for `using A = B;`, `is_static` for `using
//! static`), and its classes, structs, interfaces and records with their base types and
//! fields with declared types.

use tree_sitter::Node;

use crate::extract::grammar::NodeExt;
use crate::extract::{
    count_named, lines_of, named, squash, text, tokens, Around, CallKind, CallSite, ClassInfo,
    Details, Docstring, FileInfo, FunctionKind, Import, LanguageSpec,
};

use super::CSharp;

/// A type as the resolver names it: `Foo` for `Foo`, `Foo<T>`, `A.B.Foo`, `Foo?`, `Foo[]`
/// stays `None`, as do tuples and pointers; predefined types (`int`, `string`) by keyword.
pub(crate) fn type_name(ty: Node, src: &str) -> Option<String> {
    let mut ty = ty;
    for _ in 0..16 {
        match ty.kind_str() {
            "identifier" | "predefined_type" => return Some(text(ty, src).to_string()),
            "qualified_name" => ty = ty.field("name")?,
            "generic_name" => ty = named(ty).find(|c| c.kind_str() == "identifier")?,
            "nullable_type" => ty = named(ty).next()?,
            _ => return None,
        }
    }
    None
}

/// The types that scope members.
const TYPES: [&str; 5] = [
    "class_declaration",
    "struct_declaration",
    "interface_declaration",
    "record_declaration",
    "enum_declaration",
];

/// Whether a property has code: an accessor with a body, or `=> expr`.
fn property_has_body(node: Node) -> bool {
    if node
        .field("value")
        .is_some_and(|v| v.kind_str() == "arrow_expression_clause")
    {
        return true;
    }
    node.field("accessors")
        .is_some_and(|a| named(a).any(|acc| acc.field("body").is_some()))
}

impl LanguageSpec for CSharp {
    fn name(&self) -> &'static str {
        "csharp"
    }
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_c_sharp::LANGUAGE.into()
    }

    /// Preprocessor directive lines (`#if`, `#else`, `#endif`, `#region`, `#nullable`, ...)
    /// blanked: both branches of an `#if` are parsed as code, as the grammars before
    /// tree-sitter-c-sharp 0.23 (and codetext) read them, instead of an ERROR where a
    /// branch cuts through a statement. The code of every row is the file's own text.
    fn parse_text(&self, src: &str) -> Option<String> {
        const DIRECTIVES: [&str; 13] = [
            "if", "elif", "else", "endif", "region", "endregion", "pragma", "nullable", "define",
            "undef", "warning", "error", "line",
        ];
        if !src.contains('#') {
            return None;
        }
        let mut out: Vec<u8> = src.as_bytes().to_vec();
        let mut start = 0;
        let mut changed = false;
        for line in src.split_inclusive('\n') {
            let trimmed = line.trim_start();
            if let Some(rest) = trimmed.strip_prefix('#') {
                let word: String = rest
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .collect();
                if DIRECTIVES.contains(&word.as_str()) {
                    let body = line.trim_end_matches(['\n', '\r']).len();
                    for b in &mut out[start..start + body] {
                        *b = b' ';
                    }
                    changed = true;
                }
            }
            start += line.len();
        }
        // Every byte of a directive line became a space: still UTF-8, still as long.
        changed.then(|| String::from_utf8(out).ok()).flatten()
    }

    fn function(
        &self,
        node: Node,
        _ancestors: &[Node],
        src: &str,
    ) -> Option<(FunctionKind, String)> {
        let kind = match node.kind_str() {
            "method_declaration" => {
                node.field("body")?;
                FunctionKind::Method
            }
            "constructor_declaration" => {
                node.field("body")?;
                FunctionKind::Constructor
            }
            "local_function_statement" => {
                node.field("body")?;
                FunctionKind::Function
            }
            "property_declaration" if property_has_body(node) => FunctionKind::Method,
            _ => return None,
        };
        Some((kind, text(node.field("name")?, src).to_string()))
    }

    fn function_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "method_declaration",
            "constructor_declaration",
            "local_function_statement",
            "property_declaration",
        ])
    }

    fn scope_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&TYPES)
    }

    fn scope(&self, node: Node, _ancestors: &[Node], src: &str) -> Option<String> {
        TYPES
            .contains(&node.kind_str())
            .then(|| node.field("name").map(|n| text(n, src).to_string()))
            .flatten()
    }

    fn file_item_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "namespace_declaration",
            "file_scoped_namespace_declaration",
            "using_directive",
            "class_declaration",
            "struct_declaration",
            "interface_declaration",
            "record_declaration",
        ])
    }

    fn visit_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "invocation_expression",
            "object_creation_expression",
            "parameter",
            "local_declaration_statement",
        ])
    }

    /// The body: a block or an `=>` clause; for a property its accessors or its `=>`.
    fn body<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        if node.kind_str() == "property_declaration" {
            return node.field("accessors").or_else(|| node.field("value"));
        }
        node.field("body")
    }

    fn simple_name<'a>(&self, name: &'a str) -> &'a str {
        name.rsplit('.').next().unwrap_or(name)
    }

    fn may_contain_functions(&self, node: Node, _src: &str) -> bool {
        !matches!(
            node.kind_str(),
            "comment" | "attribute_list" | "identifier" | "parameter_list" | "using_directive"
                | "string_literal" | "verbatim_string_literal" | "interpolated_string_expression"
        )
    }

    fn docstring<'t>(
        &self,
        _node: Node<'t>,
        around: &Around<'_, 't>,
        src: &str,
    ) -> Option<Docstring<'t>> {
        let before = around.before();
        let run = before
            .iter()
            .rev()
            .take_while(|p| {
                p.kind_str() == "comment" && {
                    let t = text(**p, src);
                    t.starts_with("///") && !t.starts_with("////")
                }
            })
            .count();
        if run == 0 {
            return None;
        }
        let raw: Vec<&str> = before[before.len() - run..]
            .iter()
            .map(|p| text(*p, src).trim_end_matches(['\n', '\r']))
            .collect();
        // The published text is the cleaned one (no CodeSearchNet rows to follow).
        Some(Docstring {
            text: tokens::strip_comment_delimiters(&raw.join("\n")),
            published: None,
            inner_node: None,
        })
    }

    fn atomic_token(&self, kind: &str) -> bool {
        matches!(
            kind,
            "string_literal" | "verbatim_string_literal" | "raw_string_literal" | "character_literal"
        )
    }

    fn details(&self, node: Node, src: &str) -> Details {
        let params = node.field("parameters");
        Details {
            is_static: named(node)
                .any(|c| c.kind_str() == "modifier" && text(c, src) == "static"),
            params: params.map_or(0, |p| {
                named(p).filter(|c| c.kind_str() == "parameter").count() as u32
            }),
            variadic: params.is_some_and(|p| text(p, src).contains("params ")),
        }
    }

    fn param_names(&self, node: Node, src: &str) -> Vec<String> {
        let Some(params) = node.field("parameters") else {
            return Vec::new();
        };
        named(params)
            .filter(|p| p.kind_str() == "parameter")
            .filter_map(|p| p.field("name").map(|n| text(n, src).to_string()))
            .collect()
    }

    fn file_item(&self, node: Node, scope: &dyn Fn() -> String, src: &str, info: &mut FileInfo) {
        match node.kind_str() {
            "namespace_declaration" | "file_scoped_namespace_declaration" => {
                if let Some(n) = node.field("name") {
                    info.package.get_or_insert_with(|| squash(text(n, src)));
                }
            }
            "using_directive" => {
                let Some(target) = named(node).find(|c| {
                    matches!(c.kind_str(), "qualified_name" | "identifier" | "generic_name")
                        && Some(*c) != node.field("name")
                }) else {
                    return;
                };
                let t = text(node, src);
                info.imports.push(Import {
                    module: squash(text(target, src)),
                    alias: node.field("name").map(|n| text(n, src).to_string()),
                    is_static: t.contains("static "),
                    ..Default::default()
                });
            }
            kind if TYPES.contains(&kind) => {
                let Some(name) = node.field("name") else {
                    return;
                };
                let outer = scope();
                let name = text(name, src);
                let mut class = ClassInfo {
                    name: if outer.is_empty() {
                        name.to_string()
                    } else {
                        format!("{outer}.{name}")
                    },
                    lines: lines_of(node),
                    ..Default::default()
                };
                if let Some(bases) = named(node).find(|c| c.kind_str() == "base_list") {
                    for b in named(bases) {
                        if let Some(t) = type_name(b, src) {
                            class.bases.push(t);
                        }
                    }
                }
                if let Some(body) = node.field("body") {
                    for f in named(body) {
                        let decl = match f.kind_str() {
                            "field_declaration" => {
                                named(f).find(|c| c.kind_str() == "variable_declaration")
                            }
                            _ => None,
                        };
                        if let Some(d) = decl {
                            let Some(t) = d.field("type").and_then(|t| type_name(t, src)) else {
                                continue;
                            };
                            for v in named(d).filter(|v| v.kind_str() == "variable_declarator") {
                                if let Some(n) = v.field("name") {
                                    class.fields.push((text(n, src).to_string(), t.clone()));
                                }
                            }
                        } else if f.kind_str() == "property_declaration" {
                            if let (Some(n), Some(t)) =
                                (f.field("name"), f.field("type").and_then(|t| type_name(t, src)))
                            {
                                class.fields.push((text(n, src).to_string(), t));
                            }
                        }
                    }
                }
                info.classes.push(class);
            }
            _ => {}
        }
    }

    /// `M(x)`, `a.b.M(x)`, `this.M(x)`, `base.M(x)`, `M<T>(x)`, and `new T(x)`.
    fn call(&self, node: Node, kind: &str, src: &str) -> Option<CallSite> {
        let line = node.start_position().row as u32 + 1;
        let args = node
            .field("arguments")
            .map_or(0, |a| count_named(a, src, b"("));
        if kind == "object_creation_expression" {
            let ty = node.field("type")?;
            let name = type_name(ty, src)?;
            return Some(CallSite {
                text: format!("new {}", squash(text(ty, src))),
                name,
                kind: CallKind::New,
                line,
                args,
            });
        }
        if kind != "invocation_expression" {
            return None;
        }
        let f = node.field("function")?;
        let written = squash(text(f, src));
        let (name, kind) = match f.kind_str() {
            "identifier" => (written.clone(), CallKind::Plain),
            "generic_name" => (
                text(named(f).find(|c| c.kind_str() == "identifier")?, src).to_string(),
                CallKind::Plain,
            ),
            "member_access_expression" => {
                let n = f.field("name")?;
                let n = if n.kind_str() == "generic_name" {
                    named(n).find(|c| c.kind_str() == "identifier")?
                } else {
                    n
                };
                (
                    text(n, src).to_string(),
                    CallKind::Member(squash(text(f.field("expression")?, src))),
                )
            }
            _ => (written.clone(), CallKind::Plain),
        };
        Some(CallSite {
            text: written,
            name,
            kind,
            line,
            args,
        })
    }

    /// Parameters `T x`, `T x = ...;` and `var x = new T(..);` declarations.
    fn locals(&self, node: Node, kind: &str, src: &str, out: &mut Vec<(String, String)>) {
        match kind {
            "parameter" => {
                if let (Some(n), Some(t)) = (
                    node.field("name"),
                    node.field("type").and_then(|t| type_name(t, src)),
                ) {
                    out.push((text(n, src).to_string(), t));
                }
            }
            "local_declaration_statement" => {
                let Some(d) = named(node).find(|c| c.kind_str() == "variable_declaration") else {
                    return;
                };
                let declared = d
                    .field("type")
                    .filter(|t| t.kind_str() != "implicit_type")
                    .and_then(|t| type_name(t, src));
                for v in named(d).filter(|v| v.kind_str() == "variable_declarator") {
                    let Some(n) = v.field("name") else { continue };
                    let ty = declared.clone().or_else(|| {
                        let value = named(v).find(|c| c.kind_str() == "object_creation_expression")?;
                        type_name(value.field("type")?, src)
                    });
                    if let Some(t) = ty {
                        out.push((text(n, src).to_string(), t));
                    }
                }
            }
            _ => {}
        }
    }
}
