//! Java: methods and constructors of classes, interfaces (default and static methods),
//! enums, records, nested, inner, local and anonymous classes. The docstring is the `/** */`
//! comment directly before the declaration (annotations belong to the declaration).

use tree_sitter::Node;

use crate::extract::grammar::NodeExt;

use crate::extract::{
    count_named, named, squash, text, tokens, CallKind, CallSite, ClassInfo, Around, Details, Docstring, FileInfo,
    FunctionKind, Import, LanguageSpec,
};

/// A type's name without generic arguments or array brackets (`List<Foo>` gives `List`,
/// `java.util.Map` stays qualified); `None` for primitive types.
pub(crate) fn type_name(mut ty: Node, src: &str) -> Option<String> {
    // `List<String>` down to `List` (a loop, not recursion: each step goes to a child).
    while ty.kind_str() == "generic_type" {
        ty = ty.named_child(0)?;
    }
    match ty.kind_str() {
        "type_identifier" | "scoped_type_identifier" => {
            let t = squash(text(ty, src));
            Some(match t.find('<') {
                Some(i) => t[..i].to_string(),
                None => t,
            })
        }
        _ => None,
    }
}

/// Whether `word` occurs in `t` as a word of its own, not within an identifier (`new`, not
/// `newValue` or `renew`). Java's whitespace is ASCII, so a keyword never touches a
/// non-ASCII byte, which counts as part of an identifier here.
fn has_word(t: &str, word: &str) -> bool {
    let b = t.as_bytes();
    let ident = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$') || *c >= 0x80;
    // `contains` first: its search is faster than `match_indices`, and most texts lack
    // the word altogether.
    t.contains(word)
        && t.match_indices(word).any(|(i, _)| {
            let before = i.checked_sub(1).and_then(|j| b.get(j));
            let after = b.get(i + word.len());
            !before.is_some_and(ident) && !after.is_some_and(ident)
        })
}

fn has_modifier(node: Node, src: &str, m: &str) -> bool {
    named(node)
        .find(|c| c.kind_str() == "modifiers")
        .is_some_and(|mods| text(mods, src).split_whitespace().any(|w| w == m))
}

use super::Java;

impl LanguageSpec for Java {
    fn name(&self) -> &'static str {
        "java"
    }
    fn window_scanner(&self) -> Option<crate::extract::window::Scanner> {
        Some(crate::extract::window::Scanner::Braces(
            crate::extract::window::Braces {
                text_blocks: true,
                top_level_types: true,
                ..Default::default()
            },
        ))
    }
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_java::LANGUAGE.into()
    }

    fn function(
        &self,
        node: Node,
        _ancestors: &[Node],
        src: &str,
    ) -> Option<(FunctionKind, String)> {
        let kind = match node.kind_str() {
            "method_declaration" => FunctionKind::Method,
            "constructor_declaration" | "compact_constructor_declaration" => {
                FunctionKind::Constructor
            }
            _ => return None,
        };
        // Abstract and interface methods without a body have no code to mine.
        node.field("body")?;
        Some((
            kind,
            text(node.field("name")?, src).to_string(),
        ))
    }

    fn function_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "method_declaration",
            "constructor_declaration",
            "compact_constructor_declaration",
        ])
    }

    fn scope_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "class_declaration",
            "interface_declaration",
            "enum_declaration",
            "record_declaration",
            "annotation_type_declaration",
            "enum_constant",
            "class_body",
        ])
    }

    fn file_item_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "package_declaration",
            "import_declaration",
            "class_declaration",
            "interface_declaration",
            "enum_declaration",
            "record_declaration",
            "object_creation_expression",
        ])
    }

    fn visit_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "method_invocation",
            "object_creation_expression",
            "explicit_constructor_invocation",
            "formal_parameter",
            "catch_formal_parameter",
            "enhanced_for_statement",
            "local_variable_declaration",
        ])
    }

    fn scope(&self, node: Node, ancestors: &[Node], src: &str) -> Option<String> {
        match node.kind_str() {
            "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "annotation_type_declaration" => {
                Some(text(node.field("name")?, src).to_string())
            }
            // An enum constant with a body is a class of its own.
            "enum_constant" if node.field("body").is_some() => {
                Some(text(node.field("name")?, src).to_string())
            }
            // `new T() { ... }`: an anonymous subclass of T.
            "class_body"
                if ancestors
                    .last()
                    .is_some_and(|p| p.kind_str() == "object_creation_expression") =>
            {
                let ty = ancestors.last()?.field("type")?;
                Some(format!("<anonymous {}>", text(ty, src)))
            }
            _ => None,
        }
    }

    /// Methods live in class bodies; a class inside a method (local or anonymous) needs a
    /// `{` and a keyword that opens it, so a statement or expression without them cannot
    /// hold a method (nor an anonymous or local class, which `file_item` records). A byte
    /// scan is far cheaper than walking the subtree.
    fn may_contain_functions(&self, node: Node, src: &str) -> bool {
        match node.kind_str() {
            "program"
            | "class_body"
            | "interface_body"
            | "enum_body"
            | "enum_body_declarations"
            | "annotation_type_body"
            | "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "annotation_type_declaration"
            | "enum_constant" => true,
            _ if node.child_count() == 0 => false,
            _ => src.get(node.byte_range()).is_none_or(|t| {
                // A method inside a method body needs a class body there, so a class,
                // interface, enum or record declaration or an anonymous class (`new`).
                t.contains('{')
                    && ["new", "class", "interface", "enum", "record"]
                        .iter()
                        .any(|k| has_word(t, k))
            }),
        }
    }

    fn docstring<'t>(
        &self,
        _node: Node<'t>,
        around: &Around<'_, 't>,
        src: &str,
    ) -> Option<Docstring<'t>> {
        // function_parser's rule: the one comment node right before the method, of any
        // kind (its grammar called `//`, `/* */` and `/** */` all `comment`), so a run of
        // `//` lines gives its last line.
        let before = around.before();
        let prev = *before.last()?;
        if !matches!(prev.kind_str(), "block_comment" | "line_comment") {
            return None;
        }
        // On purpose: `int x; // note` (or `} // end of f`) on the line before is about that
        // line, not the method (as for PHP).
        if let Some(before) = before.len().checked_sub(2).and_then(|i| before.get(i)) {
            if !before.kind_str().ends_with("comment")
                && before.end_position().row == prev.start_position().row
            {
                return None;
            }
        }
        let comment = text(prev, src);
        Some(Docstring::with_published(
            tokens::strip_comment_delimiters(comment),
            tokens::py_strip(&tokens::fp_strip_c_style(comment)).to_string(),
        ))
    }

    /// A string literal (a text block too) was one token in the grammar function_parser
    /// used.
    fn atomic_token(&self, kind: &str) -> bool {
        kind == "string_literal"
    }

    /// A character literal was `seq("'", repeat(/[^\'\n]/ | /\\./), "'")` in that grammar
    /// (tree-sitter-java of 2018-2019, not a `token`): its quotes were tokens, its characters
    /// hidden, so `'a'` gave `'`, `'` in CodeSearchNet's rows.
    fn leaf_tokens(&self, kind: &str) -> Option<&'static [&'static str]> {
        (kind == "character_literal").then_some(&["'", "'"])
    }

    fn file_item(&self, node: Node, scope: &dyn Fn() -> String, src: &str, info: &mut FileInfo) {
        match node.kind_str() {
            "package_declaration" => {
                if let Some(n) = named(node).find(|c| c.kind_str().ends_with("identifier")) {
                    info.package = Some(squash(text(n, src)));
                }
            }
            "import_declaration" => {
                let Some(path) = named(node).find(|c| c.kind_str().ends_with("identifier")) else {
                    return;
                };
                let path = squash(text(path, src));
                let is_static = squash(text(node, src)).starts_with("importstatic");
                let wildcard = named(node).any(|c| c.kind_str() == "asterisk");
                let (module, name) = match (is_static, wildcard) {
                    (true, false) => match path.rsplit_once('.') {
                        Some((t, m)) => (t.to_string(), Some(m.to_string())),
                        None => (path, None),
                    },
                    _ => (path, None),
                };
                info.imports.push(Import {
                    module,
                    name,
                    is_static,
                    wildcard,
                    ..Default::default()
                });
            }
            "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration" => {
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
                // `extends` of a class, `implements`, and `extends` of an interface.
                for field in ["superclass", "interfaces"] {
                    if let Some(s) = node.field(field) {
                        collect_types(s, src, &mut class.bases);
                    }
                }
                if let Some(e) = named(node).find(|c| c.kind_str() == "extends_interfaces") {
                    collect_types(e, src, &mut class.bases);
                }
                if let Some(body) = node.field("body") {
                    collect_fields(body, src, &mut class.fields);
                }
                info.classes.push(class);
            }
            "object_creation_expression" => {
                // An anonymous class: its methods' scope is `<anonymous T>`, a subclass of T.
                let (Some(ty), Some(body)) = (
                    node.field("type"),
                    named(node).find(|c| c.kind_str() == "class_body"),
                ) else {
                    return;
                };
                let outer = scope();
                let name = format!("<anonymous {}>", text(ty, src));
                let mut class = ClassInfo {
                    name: crate::extract::qualify(&outer, ".", &name),
                    lines: crate::extract::lines_of(node),
                    bases: type_name(ty, src).into_iter().collect(),
                    ..Default::default()
                };
                collect_fields(body, src, &mut class.fields);
                info.classes.push(class);
            }
            _ => {}
        }
    }

    /// `m(x)`, `obj.m(x)`, `Type.m(x)`, `this.m(x)`, `super.m(x)`, `new T(x)`, and
    /// `this(x)` / `super(x)` (named `<init>`).
    fn call(&self, node: Node, kind: &str, src: &str) -> Option<CallSite> {
        if !matches!(
            kind,
            "method_invocation" | "object_creation_expression" | "explicit_constructor_invocation"
        ) {
            return None;
        }
        let line = node.start_position().row as u32 + 1;
        let args = node
            .field("arguments")
            .map_or(0, |a| count_named(a, src, b"/"));
        match kind {
            "method_invocation" => {
                let name = text(node.field("name")?, src).to_string();
                let (kind, written) = match node.field("object") {
                    Some(o) => {
                        let recv = squash(text(o, src));
                        let mut written = String::with_capacity(recv.len() + 1 + name.len());
                        written.push_str(&recv);
                        written.push('.');
                        written.push_str(&name);
                        (CallKind::Member(recv), written)
                    }
                    None => (CallKind::Plain, name.clone()),
                };
                Some(CallSite {
                    text: written,
                    name,
                    kind,
                    line,
                    args,
                })
            }
            "object_creation_expression" => {
                let ty = type_name(node.field("type")?, src)?;
                let name = ty.rsplit('.').next().unwrap_or(&ty).to_string();
                Some(CallSite {
                    text: format!("new {ty}"),
                    name: ty,
                    kind: CallKind::New,
                    line,
                    args,
                })
                .map(|mut c| {
                    c.name = name;
                    c
                })
            }
            "explicit_constructor_invocation" => {
                let ctor = squash(text(node.field("constructor")?, src));
                Some(CallSite {
                    text: ctor.clone(),
                    name: "<init>".into(),
                    kind: CallKind::Member(ctor),
                    line,
                    args,
                })
            }
            _ => None,
        }
    }

    fn locals(&self, node: Node, kind: &str, src: &str, out: &mut Vec<(String, String)>) {
        match kind {
            "formal_parameter" | "catch_formal_parameter" | "enhanced_for_statement" => {
                let (Some(ty), Some(name)) = (
                    node.field("type"),
                    node.field("name"),
                ) else {
                    return;
                };
                if let Some(ty) = type_name(ty, src) {
                    out.push((text(name, src).to_string(), ty));
                }
            }
            "local_variable_declaration" => {
                let Some(ty) = node
                    .field("type")
                    .and_then(|t| type_name(t, src))
                else {
                    return;
                };
                let mut cursor = node.walk();
                for d in node.children_by_field_name("declarator", &mut cursor) {
                    if let Some(n) = d.field("name") {
                        let t = if ty == "var" {
                            // `var x = new T()`.
                            match d.field("value") {
                                Some(v) if v.kind_str() == "object_creation_expression" => {
                                    match v
                                        .field("type")
                                        .and_then(|t| type_name(t, src))
                                    {
                                        Some(t) => t,
                                        None => continue,
                                    }
                                }
                                _ => continue,
                            }
                        } else {
                            ty.clone()
                        };
                        out.push((text(n, src).to_string(), t));
                    }
                }
            }
            _ => {}
        }
    }

    fn details(&self, node: Node, src: &str) -> Details {
        let mut d = Details {
            is_static: has_modifier(node, src, "static"),
            ..Default::default()
        };
        if let Some(params) = node.field("parameters") {
            for p in named(params) {
                match p.kind_str() {
                    "formal_parameter" => d.params += 1,
                    "spread_parameter" => {
                        d.params += 1;
                        d.variadic = true;
                    }
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
                "formal_parameter" => p.field("name"),
                // `String... names`: Java writes the `...` on the type, the name is plain.
                "spread_parameter" => named(p)
                    .find(|c| c.kind_str() == "variable_declarator")
                    .and_then(|v| v.field("name")),
                // A receiver parameter (`Foo this`) is no value parameter.
                _ => None,
            })
            .map(|n| text(n, src).to_string())
            .collect()
    }
}

/// The type names under `node` (a `superclass`, `super_interfaces` or `extends_interfaces`).
fn collect_types(node: Node, src: &str, out: &mut Vec<String>) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind_str() {
            "type_identifier" | "scoped_type_identifier" | "generic_type" => {
                if let Some(t) = type_name(n, src) {
                    out.push(t);
                }
            }
            _ => {
                // Reversed so that the types come out in source order.
                let kids: Vec<Node> = named(n).collect();
                stack.extend(kids.into_iter().rev());
            }
        }
    }
}

/// The typed fields declared directly in a class body.
fn collect_fields(body: Node, src: &str, out: &mut Vec<(String, String)>) {
    for f in named(body) {
        if f.kind_str() != "field_declaration" && f.kind_str() != "constant_declaration" {
            continue;
        }
        let Some(ty) = f
            .field("type")
            .and_then(|t| type_name(t, src))
        else {
            continue;
        };
        let mut cursor = f.walk();
        for d in f.children_by_field_name("declarator", &mut cursor) {
            if let Some(n) = d.field("name") {
                out.push((text(n, src).to_string(), ty.clone()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::has_word;

    #[test]
    fn words_stand_alone() {
        assert!(has_word("x = new T() {", "new"));
        assert!(has_word("new T()", "new"));
        assert!(has_word("local class", "class"));
        assert!(has_word("@interface A {}", "interface"));
        assert!(!has_word("newValue(renew)", "new"));
        assert!(!has_word("getClass().classes", "class"));
        assert!(!has_word("$new + new_ + énew", "new"));
        assert!(has_word("renew; new", "new"));
    }

    /// Issue 34, item 3: a character literal gave its two quotes in the grammar
    /// function_parser ran (tree-sitter-java a42dde8: `seq("'", repeat(...), "'")`, not a
    /// token); a string literal was one token.
    #[test]
    fn character_literals_are_their_quotes_as_function_parser_saw_them() {
        let out = crate::extract::Extractor::default()
            .extract(
                <crate::Lang as crate::Registry>::Java,
                "class A { char m(String s) { return s == \"a'b\" ? '\\n' : 'c'; } }",
            )
            .expect("parses");
        let got: Vec<&str> = out.functions[0].code_tokens.iter().collect();
        assert_eq!(
            got,
            [
                "char", "m", "(", "String", "s", ")", "{", "return", "s", "==", "\"a'b\"", "?",
                "'", "'", ":", "'", "'", ";", "}"
            ]
        );
    }
}
