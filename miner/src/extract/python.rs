//! Python: functions, async and decorated functions, methods, nested classes and functions.
//! The docstring is the first statement of the body when it is a plain string literal.

use tree_sitter::Node;

use super::{text, tokens, Docstring, FunctionKind, LanguageSpec};

pub struct Python;

impl LanguageSpec for Python {
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_python::LANGUAGE.into()
    }

    fn function(
        &self,
        node: Node,
        ancestors: &[Node],
        src: &str,
    ) -> Option<(FunctionKind, String)> {
        if node.kind() != "function_definition" {
            return None;
        }
        let name = text(node.child_by_field_name("name")?, src).to_string();
        // A method is defined directly in a class body, decorated or not.
        let mut up = ancestors.iter().rev().map(|n| n.kind());
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
            node.kind(),
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

    fn scope(&self, node: Node, _ancestors: &[Node], src: &str) -> Option<String> {
        (node.kind() == "class_definition")
            .then(|| {
                node.child_by_field_name("name")
                    .map(|n| text(n, src).to_string())
            })
            .flatten()
    }

    fn docstring<'t>(&self, node: Node<'t>, src: &str) -> Option<Docstring<'t>> {
        let body = node.child_by_field_name("body")?;
        let mut cursor = body.walk();
        let first = body
            .named_children(&mut cursor)
            .find(|n| n.kind() != "comment")?;
        if first.kind() != "expression_statement" || first.named_child_count() != 1 {
            return None;
        }
        let string = first.named_child(0)?;
        if string.kind() != "string" {
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
            text: tokens::clean_python_docstring(literal),
            inner_node: Some(string),
        })
    }

    fn atomic_token(&self, kind: &str) -> bool {
        kind == "string"
    }
}
