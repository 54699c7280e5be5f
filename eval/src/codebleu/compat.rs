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
//! Differences that change the tree's shape are not reproduced: C and C++ `short const`
//! (`sized_type_specifier` now holds the qualifier), C++ lambda captures (`&x`, `x = 1`),
//! Python union types such as `type[E] | None` and `except*` clauses. On 1,500 real
//! functions per language (CPython's standard library, the JDK, C crates' sources,
//! libstdc++ headers) predicted identically, renamed or with a line deleted, they made
//! 1 Python and 1 C example of those that parse score differently, and none in Java and C++.
//! Error recovery also differs between versions, so code that does not parse can score
//! differently (2–5% of those examples there).

use super::tree::{Flat, FlatNode, NONE};
use super::Language;

/// Python's two-keyword comparison operators.
fn is_composite_operator(n: &FlatNode<'_>) -> bool {
    !n.named && matches!(n.kind, "not in" | "is not")
}

/// The type the package's grammar gave node `i` (which differs for the keywords of Python's
/// composite operators).
pub(crate) fn kind<'t>(flat: &Flat<'t>, i: u32, lang: Language) -> &'t str {
    let n = flat.get(i);
    if lang == Language::Python
        && !n.named
        && matches!(n.kind, "not" | "in" | "is")
        && n.parent != NONE
    {
        let parent = flat.get(n.parent);
        if is_composite_operator(parent) {
            return parent.kind;
        }
    }
    n.kind
}

/// A node that the package's grammar did not have (its children were the parent's).
pub(crate) fn is_transparent(n: &FlatNode<'_>, lang: Language) -> bool {
    lang == Language::Python && is_composite_operator(n)
}

/// Whether the node appears in s-expressions (named or missing, or named in the old grammar).
pub(crate) fn is_printed(n: &FlatNode<'_>, lang: Language) -> bool {
    n.named || n.missing || (lang == Language::Cpp && n.kind == "virtual")
}

/// Whether the node's children are printed without their field names.
pub(crate) fn drops_fields(n: &FlatNode<'_>, lang: Language) -> bool {
    lang == Language::Python && matches!(n.kind, "except_clause" | "type_alias_statement")
}
