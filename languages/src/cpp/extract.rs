//! C++: free functions, methods defined in and out of class (`ns::Class::method`), constructors,
//! destructors, templates and operator overloads. Qualified names join namespaces and classes
//! with `::`; anonymous namespaces appear as `(anonymous namespace)`, as compilers print them.
//! The docstring is the comment block directly before the definition (Doxygen `///`, `//!`,
//! `/** */` included), or before its `template <...>` line.

use tree_sitter::Node;

use crate::extract::grammar::NodeExt;

use crate::cfamily::extract::{
    arg_count, c_call, c_details, c_file_item, c_may_contain_functions, comment_docstring,
    declarator_name, last_component, squash, ANONYMOUS_NAMESPACE,
};
use crate::extract::{
    text, Around, CallKind, CallSite, ClassInfo, Details, Docstring, FileInfo, FunctionKind,
    LanguageSpec,
};

use super::Cpp;

/// A type's name without qualifiers, pointers, references or template arguments
/// (`const std::vector<int>&` gives `std::vector`).
pub(crate) fn type_name(ty: Node, src: &str) -> Option<String> {
    let node = match ty.kind_str() {
        "template_type" => ty.field("name")?,
        "type_identifier" | "qualified_identifier" => ty,
        _ => return None,
    };
    let t = squash(text(node, src));
    // A qualified template type keeps its arguments in the text: cut them.
    Some(match t.find('<') {
        Some(i) => t[..i].to_string(),
        None => t,
    })
}

/// The declared variable name under a declarator (through pointers, references, arrays and
/// initializers).
fn declared_name<'t>(mut d: Node<'t>) -> Option<Node<'t>> {
    for _ in 0..32 {
        match d.kind_str() {
            "identifier" | "field_identifier" => return Some(d),
            "function_declarator" => return None,
            _ => {
                d = d
                    .field("declarator")
                    .or_else(|| d.named_child(0))?;
            }
        }
    }
    None
}

impl LanguageSpec for Cpp {
    fn name(&self) -> &'static str {
        "cpp"
    }
    fn window_scanner(&self) -> Option<crate::extract::window::Scanner> {
        Some(crate::extract::window::Scanner::Braces(
            crate::extract::window::Braces {
                preprocessor: true,
                raw_strings: true,
                digit_separators: true,
                trailing_comments: true,
                ..Default::default()
            },
        ))
    }
    fn items_follow_an_end(&self) -> bool {
        true
    }
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_cpp::LANGUAGE.into()
    }

    fn separator(&self) -> &'static str {
        "::"
    }

    fn function(
        &self,
        node: Node,
        ancestors: &[Node],
        src: &str,
    ) -> Option<(FunctionKind, String)> {
        if node.kind_str() != "function_definition" {
            return None;
        }
        // `= default` and `= delete` have no body.
        node.field("body")?;
        let name = squash(text(declarator_name(node)?, src));
        let simple = last_component(&name);
        let in_class = ancestors
            .iter()
            .rev()
            .find(|a| a.kind_str() != "template_declaration")
            .is_some_and(|a| a.kind_str() == "field_declaration_list");
        let class = if name.len() > simple.len() {
            // Out of class: `Foo::bar` or `ns::Foo::Foo`.
            Some(last_component(&name[..name.len() - simple.len() - 2]).to_string())
        } else if in_class {
            ancestors
                .iter()
                .rev()
                .find(|a| a.kind_str().ends_with("_specifier"))
                .and_then(|a| a.field("name"))
                .map(|n| squash(text(n, src)))
        } else {
            None
        };
        let kind = match class {
            Some(c) if simple == last_component(&c) || simple.starts_with('~') => {
                FunctionKind::Constructor
            }
            Some(_) => FunctionKind::Method,
            None if in_class => FunctionKind::Method,
            None => FunctionKind::Function,
        };
        Some((kind, name))
    }

    fn simple_name<'a>(&self, name: &'a str) -> &'a str {
        last_component(name)
    }

    fn scope(&self, node: Node, _ancestors: &[Node], src: &str) -> Option<String> {
        match node.kind_str() {
            "namespace_definition" => Some(
                node.field("name")
                    .map_or(ANONYMOUS_NAMESPACE.to_string(), |n| squash(text(n, src))),
            ),
            "class_specifier" | "struct_specifier" | "union_specifier"
                if node.field("body").is_some() =>
            {
                let name = node.field("name")?;
                let n = squash(text(name, src));
                Some(match n.find('<') {
                    Some(i) => n[..i].to_string(),
                    None => n,
                })
            }
            _ => None,
        }
    }

    /// Functions sit at the top level, in namespaces, classes, templates, linkage blocks and
    /// preprocessor conditionals; a class defined in a declaration (`struct S {...} s;`) too.
    fn may_contain_functions(&self, node: Node, _src: &str) -> bool {
        c_may_contain_functions(node)
            || matches!(
                node.kind_str(),
                "namespace_definition"
                    | "template_declaration"
                    | "class_specifier"
                    | "struct_specifier"
                    | "union_specifier"
                    | "field_declaration_list"
                    | "field_declaration"
                    | "declaration"
                    | "friend_declaration"
                    | "type_definition"
            )
    }

    fn docstring<'t>(
        &self,
        node: Node<'t>,
        around: &Around<'_, 't>,
        src: &str,
    ) -> Option<Docstring<'t>> {
        // The comment of a template sits before `template <...>`.
        match (around.parent(), around.up()) {
            (Some(p), Some(up)) if p.kind_str() == "template_declaration" => {
                comment_docstring(p, up.before(), src)
            }
            _ => comment_docstring(node, around.before(), src),
        }
    }

    fn atomic_token(&self, kind: &str) -> bool {
        matches!(
            kind,
            "string_literal" | "char_literal" | "system_lib_string" | "raw_string_literal"
        )
    }

    fn file_item(&self, node: Node, scope: &dyn Fn() -> String, src: &str, info: &mut FileInfo) {
        match node.kind_str() {
            "class_specifier" | "struct_specifier" | "union_specifier" => {
                let (Some(name), Some(body)) = (
                    node.field("name"),
                    node.field("body"),
                ) else {
                    return;
                };
                let mut name = squash(text(name, src));
                if let Some(i) = name.find('<') {
                    name.truncate(i);
                }
                let outer = scope();
                let mut class = ClassInfo {
                    name: crate::extract::qualify(&outer, "::", &name),
                    lines: crate::extract::lines_of(node),
                    ..Default::default()
                };
                for c in crate::extract::named(node) {
                    if c.kind_str() == "base_class_clause" {
                        for b in crate::extract::named(c) {
                            if let Some(t) = type_name(b, src) {
                                class.bases.push(t);
                            }
                        }
                    }
                }
                for f in crate::extract::named(body) {
                    if f.kind_str() != "field_declaration" {
                        continue;
                    }
                    let Some(ty) = f
                        .field("type")
                        .and_then(|t| type_name(t, src))
                    else {
                        continue;
                    };
                    let mut dc = f.walk();
                    for d in f.children_by_field_name("declarator", &mut dc) {
                        if let Some(n) = declared_name(d) {
                            class.fields.push((text(n, src).to_string(), ty.clone()));
                        }
                    }
                }
                info.classes.push(class);
            }
            "using_declaration" => {
                // `using namespace ns;`
                let t = squash(text(node, src));
                if let Some(ns) = t
                    .strip_prefix("usingnamespace")
                    .and_then(|r| r.strip_suffix(';'))
                {
                    info.using_namespaces.push(ns.to_string());
                }
            }
            _ => c_file_item(node, src, info),
        }
    }

    /// C's calls, plus `ns::f(x)`, `Class::f(x)`, `f<T>(x)`, `obj.f(x)`, `this->f(x)` and
    /// `new T(x)`.
    fn call(&self, node: Node, kind: &str, src: &str) -> Option<CallSite> {
        let line = node.start_position().row as u32 + 1;
        if kind == "new_expression" {
            let ty = node
                .field("type")
                .and_then(|t| type_name(t, src))?;
            return Some(CallSite {
                text: format!("new {ty}"),
                name: last_component(&ty).to_string(),
                kind: CallKind::New,
                line,
                args: arg_count(node),
            });
        }
        if kind != "call_expression" {
            return None;
        }
        let f = node.field("function")?;
        let strip_template = |n: Node| -> String {
            match n.kind_str() {
                "template_function" | "template_method" => n
                    .field("name")
                    .map_or_else(|| squash(text(n, src)), |x| squash(text(x, src))),
                _ => squash(text(n, src)),
            }
        };
        let (name, kind) = match f.kind_str() {
            "qualified_identifier" => {
                let full = squash(text(f, src));
                let full = match full.find('<') {
                    Some(i) if !full[i..].contains("::") => full[..i].to_string(),
                    _ => full,
                };
                let simple = last_component(&full).to_string();
                let scope = full[..full.len() - simple.len()]
                    .trim_end_matches(':')
                    .to_string();
                (simple, CallKind::Scoped(scope))
            }
            "template_function" => (strip_template(f), CallKind::Plain),
            "field_expression" => {
                let field = f.field("field")?;
                let recv = f.field("argument")?;
                (
                    last_component(&strip_template(field)).to_string(),
                    CallKind::Member(squash(text(recv, src))),
                )
            }
            _ => return c_call(node, kind, src),
        };
        Some(CallSite {
            text: squash(text(f, src)),
            name,
            kind,
            line,
            args: arg_count(node),
        })
    }

    /// Parameters and local declarations with a class type (`Foo f(1);`, `Foo* p = ...;`,
    /// `auto p = new Foo;`), for method calls on them.
    fn locals(&self, node: Node, kind: &str, src: &str, out: &mut Vec<(String, String)>) {
        match kind {
            "parameter_declaration" | "optional_parameter_declaration" => {
                let (Some(ty), Some(d)) = (
                    node.field("type")
                        .and_then(|t| type_name(t, src)),
                    node.field("declarator")
                        .and_then(declared_name),
                ) else {
                    return;
                };
                out.push((text(d, src).to_string(), ty));
            }
            "declaration" => {
                let Some(ty_node) = node.field("type") else {
                    return;
                };
                let declared = type_name(ty_node, src);
                let mut cursor = node.walk();
                for d in node.children_by_field_name("declarator", &mut cursor) {
                    let Some(n) = declared_name(d) else { continue };
                    let ty = declared.clone().or_else(|| {
                        // `auto x = new T(...)`
                        let v = d.field("value")?;
                        (v.kind_str() == "new_expression")
                            .then(|| {
                                v.field("type")
                                    .and_then(|t| type_name(t, src))
                            })
                            .flatten()
                    });
                    // Untyped (`auto f = ...`) variables are kept too: a call through
                    // one is not a call of a function of that name.
                    out.push((text(n, src).to_string(), ty.unwrap_or_default()));
                }
            }
            _ => {}
        }
    }

    fn details(&self, node: Node, src: &str) -> Details {
        c_details(node, src)
    }

    fn param_names(&self, node: Node, src: &str) -> Vec<String> {
        crate::cfamily::extract::c_param_names(node, src)
    }

    fn nested_functions_extracted(&self) -> bool {
        false
    }
}
