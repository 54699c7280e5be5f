//! Where the workspace's grammars (tree-sitter-python 0.25, -java 0.23, -c 0.24, -cpp 0.23)
//! build different trees from the ones the package runs with (its tree-sitter 0.22 binding
//! only loads tree-sitter-python 0.21, -java 0.21, -c 0.21 and -cpp 0.22), the older trees
//! are reproduced when it is a matter of names:
//!
//! - Python `not in` and `is not` are now a node with two keyword children; they were two
//!   leaves both typed `not in` (`is not`). The node is not a subtree, and its leaves take its
//!   type (so they count as variables in the data flow, as they did).
//! - Python `except_clause` children gained the fields `value` and `alias`, and
//!   `type_alias_statement` children `left` and `right`; the s-expressions leave them out.
//! - C++ `virtual` became an anonymous keyword; it is printed as the named leaf it was.
//!
//! Differences that are changes of tree shape are not reproduced; measured on real functions
//! (`codebleu_survey` in the tests' documentation) they are rare: C and C++ `unsigned const
//! int` (`sized_type_specifier` now holds the qualifier), C++ lambda captures (`&x`,
//! `x = 1`), Python generic types in some positions and `except*` clauses. Error recovery
//! also differs between versions, so code that does not parse can score differently.

use tree_sitter::Node;

use super::Language;

/// Python's two-keyword comparison operators.
fn is_composite_operator(node: Node<'_>) -> bool {
    !node.is_named() && matches!(node.kind(), "not in" | "is not")
}

/// The node's type as the package's grammar named it.
pub(crate) fn kind(node: Node<'_>, lang: Language) -> &str {
    let kind = node.kind();
    if lang == Language::Python && !node.is_named() && matches!(kind, "not" | "in" | "is") {
        if let Some(parent) = node.parent().filter(|p| is_composite_operator(*p)) {
            return parent.kind();
        }
    }
    kind
}

/// A node that the package's grammar did not have (its children were the parent's).
pub(crate) fn is_transparent(node: Node<'_>, lang: Language) -> bool {
    lang == Language::Python && is_composite_operator(node)
}

/// Whether the node appears in s-expressions (named or missing, or named in the old grammar).
pub(crate) fn is_printed(node: Node<'_>, lang: Language) -> bool {
    node.is_named() || node.is_missing() || (lang == Language::Cpp && node.kind() == "virtual")
}

/// Whether the node's children are printed without their field names.
pub(crate) fn drops_fields(node: Node<'_>, lang: Language) -> bool {
    lang == Language::Python && matches!(node.kind(), "except_clause" | "type_alias_statement")
}
