//! Rust: every `function_item` with a body, as The Vault's `codetext` takes them (free
//! functions, methods of `impl` blocks, default methods of traits, functions nested in
//! functions or inline modules). A method is named `Type.method` (the `impl`'s self type
//! without generic arguments or path, also for `impl Trait for Type`), a trait's default
//! method `Trait.method`; a nested function is `outer.inner`. The docstring is the run of
//! outer doc comments (`///` lines, or one `/** */` block) before the function, attributes
//! (`#[inline]`, `#[cfg(...)]`) allowed in between, then the inner doc comments (`//!`,
//! `/*! */`) that open its body, as rustdoc joins them; plain `//` comments are no
//! docstring.
//!
//! For the resolver the file records its `use` declarations (one [`Import`] per imported
//! path: `module` the path with `::`, `alias` its `as` name, `wildcard` for `::*`), its
//! structs, enums, unions and traits ([`ClassInfo`], a struct's named fields with their
//! types) and the inline modules it declares (`mod name;` and `mod name { }`, as classes
//! named `mod name`).

use tree_sitter::Node;

use crate::extract::grammar::NodeExt;
use crate::extract::{
    count_named, lines_of, named, squash, text, tokens, Around, CallKind, CallSite, ClassInfo,
    Details, Docstring, FileInfo, FunctionKind, Import, LanguageSpec,
};

use super::Rust;

/// The name a type is known by: `Foo` for `Foo`, `Foo<T>`, `crate::a::Foo`, `&mut Foo`,
/// `Box<Foo>` stays `Box`; `None` for tuples, slices, arrays, `dyn`/`impl` bounds.
pub(crate) fn type_name(ty: Node, src: &str) -> Option<String> {
    let mut ty = ty;
    // Peel references and generics (bounded: each step goes one node down).
    for _ in 0..16 {
        match ty.kind_str() {
            "type_identifier" | "primitive_type" => return Some(text(ty, src).to_string()),
            "scoped_type_identifier" => return Some(text(ty.field("name")?, src).to_string()),
            "generic_type" => ty = ty.field("type")?,
            "reference_type" | "pointer_type" => ty = ty.field("type")?,
            _ => return None,
        }
    }
    None
}

/// The self type of an `impl` block, or the name of a trait.
fn owner_name(node: Node, src: &str) -> Option<String> {
    match node.kind_str() {
        "impl_item" => type_name(node.field("type")?, src),
        "trait_item" => Some(text(node.field("name")?, src).to_string()),
        _ => None,
    }
}

/// Whether a comment node is an outer doc comment (`///`, `/** */`; not `////` or `/***`,
/// which rustdoc reads as plain comments, nor inner `//!`).
fn is_outer_doc(node: Node, src: &str) -> bool {
    let t = text(node, src);
    match node.kind_str() {
        "line_comment" => t.starts_with("///") && !t.starts_with("////"),
        "block_comment" => t.starts_with("/**") && !t.starts_with("/***") && t != "/**/",
        _ => false,
    }
}

/// Whether a comment node is an inner doc comment (`//!`, `/*! */`).
fn is_inner_doc(node: Node, src: &str) -> bool {
    let t = text(node, src);
    match node.kind_str() {
        "line_comment" => t.starts_with("//!"),
        "block_comment" => t.starts_with("/*!"),
        _ => false,
    }
}

/// The imports of a `use` tree (`a::{b, c::d as e, f::*}`), walked with a stack of
/// (node, path prefix), at most 1,024 nodes.
fn use_tree(root: Node, src: &str, out: &mut Vec<Import>) {
    let join = |p: &str, s: &str| {
        if p.is_empty() {
            s.to_string()
        } else {
            format!("{p}::{s}")
        }
    };
    let mut stack = vec![(root, String::new())];
    let mut seen = 0;
    while let Some((node, prefix)) = stack.pop() {
        seen += 1;
        if seen > 1024 {
            return;
        }
        match node.kind_str() {
            "identifier" | "scoped_identifier" | "crate" | "self" | "super" => out.push(Import {
                module: join(&prefix, &squash(text(node, src))),
                ..Default::default()
            }),
            "use_as_clause" => {
                if let Some(path) = node.field("path") {
                    out.push(Import {
                        module: join(&prefix, &squash(text(path, src))),
                        alias: node.field("alias").map(|a| text(a, src).to_string()),
                        ..Default::default()
                    });
                }
            }
            "use_wildcard" => {
                // `a::b::*`: the path is the node's text before `::*`.
                let t = squash(text(node, src));
                let path = t.strip_suffix("::*").unwrap_or(&t);
                out.push(Import {
                    module: join(&prefix, path),
                    wildcard: true,
                    ..Default::default()
                });
            }
            "scoped_use_list" => {
                let p = node
                    .field("path")
                    .map_or(prefix.clone(), |p| join(&prefix, &squash(text(p, src))));
                if let Some(list) = node.field("list") {
                    stack.push((list, p));
                }
            }
            "use_list" => {
                // Reversed onto the stack, so the imports come in source order.
                let items: Vec<Node> = named(node).collect();
                for c in items.into_iter().rev() {
                    stack.push((c, prefix.clone()));
                }
            }
            _ => {}
        }
    }
}

/// The outer doc comments before a function (`///` lines or one `/** */` block), as
/// written; attributes may stand between them and the function.
fn outer_docs(around: &Around<'_, '_>, src: &str) -> Option<String> {
    let before = around.before();
    let mut end = before.len();
    while end > 0 && before[end - 1].kind_str() == "attribute_item" {
        end -= 1;
    }
    let mut start = end;
    while start > 0 && is_outer_doc(before[start - 1], src) {
        start -= 1;
        // One `/** */` block, or a run of `///` lines.
        if before[start].kind_str() == "block_comment" {
            break;
        }
    }
    if start == end {
        return None;
    }
    // A run of `///` lines after a block comment is the run alone.
    let run = &before[start..end];
    let run = match run.iter().rposition(|n| n.kind_str() == "block_comment") {
        Some(i) if i + 1 < run.len() => &run[i + 1..],
        _ => run,
    };
    let raw: Vec<&str> = run
        .iter()
        .map(|n| text(*n, src).trim_end_matches(['\n', '\r']))
        .collect();
    Some(raw.join("\n"))
}

impl LanguageSpec for Rust {
    fn name(&self) -> &'static str {
        "rust"
    }
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_rust::LANGUAGE.into()
    }

    fn function(
        &self,
        node: Node,
        ancestors: &[Node],
        src: &str,
    ) -> Option<(FunctionKind, String)> {
        if node.kind_str() != "function_item" {
            return None;
        }
        node.field("body")?;
        let name = text(node.field("name")?, src).to_string();
        // A method when the nearest enclosing item is an `impl` or a trait (through its
        // declaration list), not a function.
        let owner = ancestors
            .iter()
            .rev()
            .find(|a| matches!(a.kind_str(), "impl_item" | "trait_item" | "function_item"));
        let kind = match owner.map(|o| o.kind_str()) {
            Some("impl_item" | "trait_item") => FunctionKind::Method,
            _ => FunctionKind::Function,
        };
        Some((kind, name))
    }

    fn function_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&["function_item"])
    }

    fn scope_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&["impl_item", "trait_item"])
    }

    fn scope(&self, node: Node, _ancestors: &[Node], src: &str) -> Option<String> {
        owner_name(node, src)
    }

    fn file_item_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "use_declaration",
            "struct_item",
            "enum_item",
            "union_item",
            "trait_item",
            "mod_item",
        ])
    }

    fn visit_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "call_expression",
            "function_item",
            "parameter",
            "self_parameter",
            "let_declaration",
        ])
    }

    /// `Type.method` names the method `method`.
    fn simple_name<'a>(&self, name: &'a str) -> &'a str {
        name.rsplit('.').next().unwrap_or(name)
    }

    /// Functions are items: below blocks, items and modules, never inside an expression
    /// other than a block.
    fn may_contain_functions(&self, node: Node, _src: &str) -> bool {
        !node.kind_str().ends_with("_literal")
            && !matches!(
                node.kind_str(),
                "line_comment" | "block_comment" | "attribute_item" | "identifier"
                    | "type_identifier" | "parameters" | "use_declaration"
            )
    }

    fn docstring<'t>(
        &self,
        node: Node<'t>,
        around: &Around<'_, 't>,
        src: &str,
    ) -> Option<Docstring<'t>> {
        let mut raw = outer_docs(around, src).unwrap_or_default();
        // Inner doc comments at the top of the body document the function too (rustdoc
        // appends them to the outer ones).
        if let Some(body) = node.field("body") {
            let inner: Vec<&str> = (0..body.named_child_count())
                .filter_map(|i| body.named_child(i as u32))
                .take_while(|c| is_inner_doc(*c, src))
                .map(|c| text(c, src).trim_end_matches(['\n', '\r']))
                .collect();
            if !inner.is_empty() {
                if !raw.is_empty() {
                    raw.push('\n');
                }
                raw.push_str(&inner.join("\n"));
            }
        }
        if raw.is_empty() {
            return None;
        }
        // The published text is the cleaned one (no CodeSearchNet rows to follow).
        Some(Docstring {
            text: tokens::strip_comment_delimiters(&raw),
            published: None,
            inner_node: None,
        })
    }

    /// A string literal is one token (its content and escapes are its children).
    fn atomic_token(&self, kind: &str) -> bool {
        matches!(kind, "string_literal" | "raw_string_literal" | "char_literal")
    }

    /// `fn` opens a function in text tree-sitter could not parse.
    fn opens_function(&self, text: &str, _before: [Option<&str>; 2]) -> bool {
        text == "fn"
    }

    fn details(&self, node: Node, _src: &str) -> Details {
        Details {
            is_static: false,
            params: node.field("parameters").map_or(0, |p| named(p).count() as u32),
            variadic: false,
        }
    }

    /// The parameters' names: `self` for the receiver, the identifier of `name: T`
    /// (patterns such as `(a, b): (u8, u8)` left out).
    fn param_names(&self, node: Node, src: &str) -> Vec<String> {
        let Some(params) = node.field("parameters") else {
            return Vec::new();
        };
        named(params)
            .filter_map(|p| match p.kind_str() {
                "self_parameter" => Some("self".to_string()),
                "parameter" => {
                    let pat = p.field("pattern")?;
                    (pat.kind_str() == "identifier").then(|| text(pat, src).to_string())
                }
                _ => None,
            })
            .collect()
    }

    fn file_item(&self, node: Node, _scope: &dyn Fn() -> String, src: &str, info: &mut FileInfo) {
        match node.kind_str() {
            "use_declaration" => {
                if let Some(arg) = node.field("argument") {
                    use_tree(arg, src, &mut info.imports);
                }
            }
            "struct_item" | "enum_item" | "union_item" | "trait_item" => {
                let Some(name) = node.field("name") else {
                    return;
                };
                let mut class = ClassInfo {
                    name: text(name, src).to_string(),
                    lines: lines_of(node),
                    ..Default::default()
                };
                if node.kind_str() == "struct_item" {
                    if let Some(body) = node.field("body") {
                        for f in named(body).filter(|f| f.kind_str() == "field_declaration") {
                            let (Some(n), Some(t)) = (f.field("name"), f.field("type")) else {
                                continue;
                            };
                            if let Some(t) = type_name(t, src) {
                                class.fields.push((text(n, src).to_string(), t));
                            }
                        }
                    }
                }
                info.classes.push(class);
            }
            "mod_item" => {
                if let Some(name) = node.field("name") {
                    info.classes.push(ClassInfo {
                        name: format!("mod {}", text(name, src)),
                        lines: lines_of(node),
                        ..Default::default()
                    });
                }
            }
            _ => {}
        }
    }

    /// `f(x)`, `a::b::f(x)`, `Type::f(x)`, `x.f(x)`, `f::<T>(x)`; other callees
    /// (closures called at once, `(self.f)(x)`) are kept as written and never resolved.
    /// Macros (`println!`) are not calls.
    fn call(&self, node: Node, kind: &str, src: &str) -> Option<CallSite> {
        if kind != "call_expression" {
            return None;
        }
        let mut f = node.field("function")?;
        if f.kind_str() == "generic_function" {
            f = f.field("function")?;
        }
        let written = squash(text(f, src));
        let (name, kind) = match f.kind_str() {
            "identifier" => (written.clone(), CallKind::Plain),
            "scoped_identifier" => {
                let name = text(f.field("name")?, src).to_string();
                let path = f.field("path").map_or(String::new(), |p| squash(text(p, src)));
                (name, CallKind::Scoped(path))
            }
            "field_expression" => (
                text(f.field("field")?, src).to_string(),
                CallKind::Member(squash(text(f.field("value")?, src))),
            ),
            _ => (written.clone(), CallKind::Plain),
        };
        let args = node.field("arguments").map_or(0, |a| count_named(a, src, b"("));
        Some(CallSite {
            text: written,
            name,
            kind,
            line: node.start_position().row as u32 + 1,
            args,
        })
    }

    /// `name: T` parameters, `self` (as `self`: the resolver knows the impl's type), `let
    /// x: T`, `let x = T::new(..)` / `T { .. }` / `T(..)` (a path or type the resolver
    /// looks up), and the function's return type as `return`.
    fn locals(&self, node: Node, kind: &str, src: &str, out: &mut Vec<(String, String)>) {
        match kind {
            "parameter" => {
                let (Some(pat), Some(ty)) = (node.field("pattern"), node.field("type")) else {
                    return;
                };
                if pat.kind_str() == "identifier" {
                    if let Some(t) = type_name(ty, src) {
                        out.push((text(pat, src).to_string(), t));
                    }
                }
            }
            "let_declaration" => {
                let Some(pat) = node.field("pattern") else {
                    return;
                };
                let pat = if pat.kind_str() == "mut_pattern" {
                    match named(pat).last() {
                        Some(p) => p,
                        None => return,
                    }
                } else {
                    pat
                };
                if pat.kind_str() != "identifier" {
                    return;
                }
                let name = text(pat, src).to_string();
                if let Some(t) = node.field("type").and_then(|t| type_name(t, src)) {
                    out.push((name, t));
                    return;
                }
                let Some(v) = node.field("value") else {
                    return;
                };
                let ty = match v.kind_str() {
                    "struct_expression" => v.field("name").and_then(|n| match n.kind_str() {
                        "type_identifier" => Some(text(n, src).to_string()),
                        "scoped_type_identifier" => n.field("name").map(|x| text(x, src).to_string()),
                        _ => None,
                    }),
                    // `T::new(..)`, `T::default()`: typed as `T` when `T` is a type of the
                    // repository (the resolver checks; a constructor returning another type
                    // is rare enough).
                    "call_expression" => v.field("function").and_then(|f| {
                        (f.kind_str() == "scoped_identifier")
                            .then(|| f.field("path"))
                            .flatten()
                            .and_then(|p| match p.kind_str() {
                                "identifier" | "type_identifier" => Some(text(p, src).to_string()),
                                "generic_type" => p.field("type").map(|t| text(t, src).to_string()),
                                _ => None,
                            })
                    }),
                    _ => None,
                };
                if let Some(t) = ty {
                    out.push((name, t));
                }
            }
            "function_item" => {
                if let Some(t) = node.field("return_type").and_then(|t| type_name(t, src)) {
                    out.push(("return".into(), t));
                }
            }
            _ => {}
        }
    }
}
