//! Python: functions, async and decorated functions, methods, nested classes and functions.
//! The docstring is the first statement of the body when it is a plain string literal.

use tree_sitter::Node;

use super::{text, tokens, Docstring, FunctionKind, Lang, LanguageSpec};

pub struct Python;

impl LanguageSpec for Python {
    fn lang(&self) -> Lang {
        Lang::Python
    }

    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_python::LANGUAGE.into()
    }

    fn function(&self, node: Node, src: &str) -> Option<(FunctionKind, String)> {
        if node.kind() != "function_definition" {
            return None;
        }
        let name = text(node.child_by_field_name("name")?, src).to_string();
        // A method is defined directly in a class body, decorated or not.
        let mut parent = node.parent()?;
        if parent.kind() == "decorated_definition" {
            parent = parent.parent()?;
        }
        let in_class = parent.kind() == "block"
            && parent
                .parent()
                .is_some_and(|p| p.kind() == "class_definition");
        let kind = match (in_class, name.as_str()) {
            (true, "__init__") => FunctionKind::Constructor,
            (true, _) => FunctionKind::Method,
            (false, _) => FunctionKind::Function,
        };
        Some((kind, name))
    }

    fn scope(&self, node: Node, src: &str) -> Option<String> {
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
