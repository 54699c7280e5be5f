//! Java: methods and constructors of classes, interfaces (default and static methods),
//! enums, records, nested, inner, local and anonymous classes. The docstring is the `/** */`
//! comment directly before the declaration (annotations belong to the declaration).

use tree_sitter::Node;

use super::{text, tokens, Docstring, FunctionKind, LanguageSpec};

pub struct Java;

impl LanguageSpec for Java {
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_java::LANGUAGE.into()
    }

    fn function(
        &self,
        node: Node,
        _ancestors: &[Node],
        src: &str,
    ) -> Option<(FunctionKind, String)> {
        let kind = match node.kind() {
            "method_declaration" => FunctionKind::Method,
            "constructor_declaration" | "compact_constructor_declaration" => {
                FunctionKind::Constructor
            }
            _ => return None,
        };
        // Abstract and interface methods without a body have no code to mine.
        node.child_by_field_name("body")?;
        Some((
            kind,
            text(node.child_by_field_name("name")?, src).to_string(),
        ))
    }

    fn scope(&self, node: Node, ancestors: &[Node], src: &str) -> Option<String> {
        match node.kind() {
            "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "annotation_type_declaration" => {
                Some(text(node.child_by_field_name("name")?, src).to_string())
            }
            // An enum constant with a body is a class of its own.
            "enum_constant" if node.child_by_field_name("body").is_some() => {
                Some(text(node.child_by_field_name("name")?, src).to_string())
            }
            // `new T() { ... }`: an anonymous subclass of T.
            "class_body"
                if ancestors
                    .last()
                    .is_some_and(|p| p.kind() == "object_creation_expression") =>
            {
                let ty = ancestors.last()?.child_by_field_name("type")?;
                Some(format!("<anonymous {}>", text(ty, src)))
            }
            _ => None,
        }
    }

    /// Methods live in class bodies; a class inside a method (local or anonymous) needs a
    /// `{`, so a statement or expression without one cannot hold a method. A byte scan is
    /// far cheaper than walking the subtree.
    fn may_contain_functions(&self, node: Node, src: &str) -> bool {
        match node.kind() {
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
            _ => src.as_bytes()[node.byte_range()].contains(&b'{'),
        }
    }

    fn docstring<'t>(&self, node: Node<'t>, src: &str) -> Option<Docstring<'t>> {
        let prev = node.prev_sibling()?;
        let comment = text(prev, src);
        if prev.kind() != "block_comment" || !comment.starts_with("/**") {
            return None;
        }
        Some(Docstring {
            text: tokens::strip_comment_delimiters(comment),
            inner_node: None,
        })
    }

    fn atomic_token(&self, kind: &str) -> bool {
        matches!(kind, "string_literal" | "character_literal")
    }
}
