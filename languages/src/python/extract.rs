//! Python: functions, async and decorated functions, methods, nested classes and functions.
//! The docstring is the first statement of the body when it is a plain string literal.

use tree_sitter::Node;

use crate::extract::grammar::NodeExt;

use crate::extract::{
    named, squash, text, tokens, CallKind, CallSite, ClassInfo, Around, Details, Docstring, FileInfo,
    FunctionKind, Import, LanguageSpec,
};

use super::{Facts, Python};

impl LanguageSpec for Python {
    fn name(&self) -> &'static str {
        "python"
    }
    fn window_scanner(&self) -> Option<crate::extract::window::Scanner> {
        Some(crate::extract::window::Scanner::Indentation)
    }
    /// `def`, `class`, `async` or a decorator.
    fn starts_item(&self, rest: &[u8]) -> bool {
        rest.starts_with(b"def ")
            || rest.starts_with(b"class ")
            || rest.starts_with(b"async ")
            || rest.starts_with(b"@")
    }
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_python::LANGUAGE.into()
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
        let name = text(node.field("name")?, src).to_string();
        // A method is defined directly in a class body, decorated or not.
        let mut up = ancestors.iter().rev().map(|n| n.kind_str());
        let mut parent = up.next();
        if parent == Some("decorated_definition") {
            parent = up.next();
        }
        let in_class = parent == Some("block") && up.next() == Some("class_definition");
        let kind = match (in_class, name.as_str()) {
            (true, "__init__") => FunctionKind::Constructor,
            (true, _) => FunctionKind::Method,
            (false, _) => FunctionKind::Function,
        };
        Some((kind, name))
    }

    /// Functions are statements: they sit in modules, blocks and compound statements,
    /// never inside expressions.
    fn may_contain_functions(&self, node: Node, _src: &str) -> bool {
        matches!(
            node.kind_str(),
            "module"
                | "block"
                | "class_definition"
                | "function_definition"
                | "decorated_definition"
                | "if_statement"
                | "elif_clause"
                | "else_clause"
                | "for_statement"
                | "while_statement"
                | "try_statement"
                | "except_clause"
                | "except_group_clause"
                | "finally_clause"
                | "with_statement"
                | "match_statement"
                | "case_clause"
        )
    }

    fn function_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&["function_definition"])
    }

    fn scope_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&["class_definition"])
    }

    /// The statements the value-flow facts read, and imports.
    fn file_item_kinds(&self) -> Option<&'static [&'static str]> {
        static KINDS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
            let mut k = super::facts::STATEMENTS.to_vec();
            k.extend(["import_statement", "import_from_statement"]);
            k
        });
        Some(&KINDS)
    }

    fn visit_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "call",
            "typed_parameter",
            "typed_default_parameter",
            "assignment",
        ])
    }

    fn scope(&self, node: Node, _ancestors: &[Node], src: &str) -> Option<String> {
        (node.kind_str() == "class_definition")
            .then(|| {
                node.field("name")
                    .map(|n| text(n, src).to_string())
            })
            .flatten()
    }

    fn docstring<'t>(
        &self,
        node: Node<'t>,
        _around: &Around<'_, 't>,
        src: &str,
    ) -> Option<Docstring<'t>> {
        let body = node.field("body")?;
        let first = crate::extract::named(body).find(|n| n.kind_str() != "comment")?;
        if first.kind_str() != "expression_statement" || first.named_child_count() != 1 {
            return None;
        }
        let string = first.named_child(0)?;
        if string.kind_str() != "string" {
            return None;
        }
        // f-strings and bytes are not docstrings (Python leaves __doc__ unset for them).
        let literal = text(string, src);
        let prefix: String = literal
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        if prefix.contains(['f', 'F', 'b', 'B']) {
            return None;
        }
        Some(Docstring {
            inner_node: Some(string),
            ..Docstring::with_published(
                tokens::clean_python_docstring(literal),
                tokens::fp_python_docstring(literal),
            )
        })
    }

    /// The `def` keyword opens a function in text that tree-sitter could not parse.
    fn opens_function(&self, text: &str, _before: [Option<&str>; 2]) -> bool {
        text == "def"
    }

    fn atomic_token(&self, kind: &str) -> bool {
        kind == "string"
    }

    /// tree-sitter-python 0.25 has `line_continuation` (a `\` ending a line) as a named
    /// extra; the grammar of CodeSearchNet's function_parser matched it in an anonymous
    /// extras pattern, so it made no token.
    fn hidden_leaf(&self, kind: &str) -> bool {
        kind == "line_continuation"
    }

    fn file_item(&self, node: Node, scope: &dyn Fn() -> String, src: &str, info: &mut FileInfo) {
        let kind = node.kind_str();
        // The scope's name is built once per statement (it is a fresh string).
        let mut at_top = None;
        if super::facts::is_statement(kind) {
            let s = scope();
            at_top = Some(s.is_empty());
            if let Some(facts) = info.payload_or_insert(Facts::default) {
                facts.statement(node, &s, src);
            }
        }
        match kind {
            // `NAME = value` at the top level of the module (also inside a module-level `if`
            // or `try`), outside any function or class.
            "expression_statement" => {
                let left = named(node)
                    .next()
                    .filter(|a| a.kind_str() == "assignment")
                    .and_then(|a| a.field("left"))
                    .filter(|l| l.kind_str() == "identifier");
                if let Some(left) = left.filter(|_| at_top.unwrap_or_else(|| scope().is_empty())) {
                    info.constants
                        .push((text(left, src).to_string(), crate::extract::lines_of(node)));
                }
            }
            "import_statement" => {
                let mut cursor = node.walk();
                for n in node.children_by_field_name("name", &mut cursor) {
                    let (module, alias) = match n.kind_str() {
                        "aliased_import" => (
                            n.field("name"),
                            n.field("alias")
                                .map(|a| text(a, src).to_string()),
                        ),
                        _ => (Some(n), None),
                    };
                    if let Some(m) = module {
                        info.imports.push(Import {
                            module: squash(text(m, src)),
                            alias,
                            ..Default::default()
                        });
                    }
                }
            }
            "import_from_statement" => {
                let Some(m) = node.field("module_name") else {
                    return;
                };
                let (level, module) = if m.kind_str() == "relative_import" {
                    let prefix = named(m).find(|c| c.kind_str() == "import_prefix");
                    let dots = prefix.map_or(0, |p| text(p, src).matches('.').count());
                    let name = named(m).find(|c| c.kind_str() == "dotted_name");
                    (
                        dots as u32,
                        name.map(|n| squash(text(n, src))).unwrap_or_default(),
                    )
                } else {
                    (0, squash(text(m, src)))
                };
                let mut cursor = node.walk();
                let mut any = false;
                for n in node.children_by_field_name("name", &mut cursor) {
                    let (name, alias) = match n.kind_str() {
                        "aliased_import" => (
                            n.field("name"),
                            n.field("alias")
                                .map(|a| text(a, src).to_string()),
                        ),
                        _ => (Some(n), None),
                    };
                    if let Some(name) = name {
                        any = true;
                        info.imports.push(Import {
                            module: module.clone(),
                            name: Some(squash(text(name, src))),
                            alias,
                            level,
                            ..Default::default()
                        });
                    }
                }
                if !any && named(node).any(|c| c.kind_str() == "wildcard_import") {
                    info.imports.push(Import {
                        module,
                        level,
                        wildcard: true,
                        ..Default::default()
                    });
                }
            }
            "class_definition" => {
                let Some(name) = node.field("name") else {
                    return;
                };
                let outer = scope();
                let name = text(name, src);
                let mut class = ClassInfo {
                    name: crate::extract::qualify(&outer, ".", name),
                    lines: crate::extract::lines_of(node),
                    ..Default::default()
                };
                if let Some(sup) = node.field("superclasses") {
                    for b in named(sup) {
                        if matches!(b.kind_str(), "identifier" | "attribute") {
                            class.bases.push(squash(text(b, src)));
                        }
                    }
                }
                info.classes.push(class);
            }
            _ => {}
        }
    }

    /// `f(x)`, `obj.m(x)`, `super().m(x)`; other callee expressions (`f()(x)`, `d[k](x)`)
    /// are kept as written and never resolved.
    fn call(&self, node: Node, kind: &str, src: &str) -> Option<CallSite> {
        if kind != "call" {
            return None;
        }
        let f = node.field("function")?;
        let (name, kind) = match f.kind_str() {
            "identifier" => (text(f, src).to_string(), CallKind::Plain),
            "attribute" => (
                text(f.field("attribute")?, src).to_string(),
                CallKind::Member(squash(text(f.field("object")?, src))),
            ),
            _ => (squash(text(f, src)), CallKind::Plain),
        };
        // Comments start with `#`: without one, tree-sitter's count is the answer.
        let args = node
            .field("arguments")
            .map_or(0, |a| crate::extract::count_named(a, src, b"#"));
        Some(CallSite {
            text: squash(text(f, src)),
            name,
            kind,
            line: node.start_position().row as u32 + 1,
            args,
        })
    }

    /// Annotated parameters (`x: Foo`) and assignments of a call (`x = Foo(...)`), whose
    /// callee is the variable's class when it is a class.
    fn locals(&self, node: Node, kind: &str, src: &str, out: &mut Vec<(String, String)>) {
        match kind {
            "typed_parameter" => {
                let (Some(name), Some(ty)) = (
                    named(node).find(|c| c.kind_str() == "identifier"),
                    node.field("type"),
                ) else {
                    return;
                };
                out.push((text(name, src).to_string(), squash(text(ty, src))));
            }
            "typed_default_parameter" => {
                if let (Some(name), Some(ty)) = (
                    node.field("name"),
                    node.field("type"),
                ) {
                    out.push((text(name, src).to_string(), squash(text(ty, src))));
                }
            }
            "assignment" => {
                let (Some(left), Some(right)) = (
                    node.field("left"),
                    node.field("right"),
                ) else {
                    return;
                };
                if left.kind_str() != "identifier" || right.kind_str() != "call" {
                    return;
                }
                let Some(f) = right.field("function") else {
                    return;
                };
                if matches!(f.kind_str(), "identifier" | "attribute") {
                    out.push((text(left, src).to_string(), squash(text(f, src))));
                }
            }
            _ => {}
        }
    }

    fn details(&self, node: Node, _src: &str) -> Details {
        let mut d = Details::default();
        if let Some(params) = node.field("parameters") {
            for p in named(params) {
                match p.kind_str() {
                    "identifier"
                    | "typed_parameter"
                    | "default_parameter"
                    | "typed_default_parameter" => d.params += 1,
                    "list_splat_pattern" | "dictionary_splat_pattern" => d.variadic = true,
                    _ => {}
                }
            }
        }
        d
    }

    fn param_names(&self, node: Node, src: &str) -> Vec<String> {
        let Some(params) = node.field("parameters") else {
            return Vec::new();
        };
        named(params)
            .filter_map(|p| match p.kind_str() {
                "identifier" | "list_splat_pattern" | "dictionary_splat_pattern" => Some(p),
                // `x: int` and `*args: int`: the name is the first child.
                "typed_parameter" => p.named_child(0),
                "default_parameter" | "typed_default_parameter" => p.field("name"),
                // `*` and `/` separators, Python 2's tuple parameters.
                _ => None,
            })
            .map(|n| text(n, src).to_string())
            .collect()
    }
}
