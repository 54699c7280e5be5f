//! The syntax match: the share of the reference's subtrees (the root and every node with
//! children, compared as tree-sitter s-expressions, which name node types and fields but not
//! the leaves' text) found among the prediction's subtrees.

use tree_sitter::Tree;

/// `get_all_sub_trees` of the reference: the s-expression of the root and of every node that
/// has children (anonymous nodes included), one per node. The order does not matter to the
/// match.
pub(crate) fn subtrees(tree: &Tree) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    let mut cursor = tree.walk();
    while let Some(node) = stack.pop() {
        out.push(node.to_sexp());
        stack.extend(node.children(&mut cursor).filter(|c| c.child_count() != 0));
    }
    out
}
