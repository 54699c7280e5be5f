//! C: function definitions, `static` and `inline` included; prototypes are not functions.
//! The docstring is the comment block directly before the definition.

use tree_sitter::Node;

use super::{leading_comments, text, tokens, Docstring, FunctionKind, LanguageSpec};

pub struct C;

/// The name a declarator declares: follows the `declarator` fields through pointer,
/// parenthesized and attributed declarators down to the function declarator's identifier.
pub(crate) fn declarator_name<'t>(def: Node<'t>) -> Option<Node<'t>> {
    let mut d = def.child_by_field_name("declarator")?;
    let mut seen_function = false;
    // Declarator chains are short; the bound only guards against a malformed tree.
    for _ in 0..64 {
        match d.kind() {
            "function_declarator" => seen_function = true,
            "identifier"
            | "field_identifier"
            | "qualified_identifier"
            | "destructor_name"
            | "operator_name"
            | "template_function" => return seen_function.then_some(d),
            _ => {}
        }
        d = d
            .child_by_field_name("declarator")
            .or_else(|| d.named_child(0))?;
    }
    None
}

impl LanguageSpec for C {
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_c::LANGUAGE.into()
    }

    fn function(
        &self,
        node: Node,
        _ancestors: &[Node],
        src: &str,
    ) -> Option<(FunctionKind, String)> {
        if node.kind() != "function_definition" {
            return None;
        }
        let name = declarator_name(node)?;
        Some((FunctionKind::Function, text(name, src).to_string()))
    }

    fn scope(&self, _node: Node, _ancestors: &[Node], _src: &str) -> Option<String> {
        None
    }

    /// C has no nested functions: definitions sit at the top level, in preprocessor
    /// conditionals, or in `extern "C" { }` blocks.
    fn may_contain_functions(&self, node: Node, _src: &str) -> bool {
        matches!(
            node.kind(),
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

    fn docstring<'t>(&self, node: Node<'t>, src: &str) -> Option<Docstring<'t>> {
        let comments = leading_comments(node, |k| k == "comment");
        if comments.is_empty() {
            return None;
        }
        let parts: Vec<String> = comments
            .iter()
            .map(|c| tokens::strip_comment_delimiters(text(*c, src)))
            .collect();
        Some(Docstring {
            text: parts.join("\n").trim().to_string(),
            inner_node: None,
        })
    }

    fn atomic_token(&self, kind: &str) -> bool {
        matches!(
            kind,
            "string_literal" | "char_literal" | "system_lib_string"
        )
    }
}
