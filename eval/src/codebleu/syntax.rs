//! The syntax match: the share of the reference's subtrees (the root and every node with
//! children) found among the prediction's subtrees, two subtrees being the same when their
//! tree-sitter s-expressions are (node types and field names, not the leaves' text).
//!
//! The reference builds the s-expression string of every subtree, which costs the subtree's
//! size each time (quadratic in the depth). Here each subtree gets an id instead: nodes are
//! hash-consed bottom-up on (label, [(field, child id)]), the structure `ts_node_string`
//! prints, so two ids are equal exactly when the strings are. The printing rules followed:
//! only named nodes are printed; the children of an unprinted node are spliced into its
//! parent's list and inherit its field name. Subtrees with syntax errors (which print
//! things the public API does not show, such as missing hidden tokens) and unprinted nodes
//! with children (which print in their own way as a root) take their string from
//! `Node::to_sexp`; they are rare in code that parses.

use tree_sitter::{Node, Tree};

use super::compat;
use super::pyrt::FxHashMap;
use super::Language;

/// Marks a key whose label is a whole s-expression from `Node::to_sexp`.
const RAW: u32 = u32::MAX;

/// Subtree ids shared by the codes of one example (so they can be compared).
#[derive(Default)]
pub(crate) struct Interner {
    labels: FxHashMap<String, u32>,
    nodes: FxHashMap<Vec<u32>, u32>,
    key: Vec<u32>,
}

impl Interner {
    pub(crate) fn clear(&mut self) {
        self.labels.clear();
        self.nodes.clear();
    }

    fn label(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.labels.get(s) {
            return id;
        }
        let id = self.labels.len() as u32;
        self.labels.insert(s.to_string(), id);
        id
    }

    /// The id of the node whose key is in `self.key`.
    fn node(&mut self) -> u32 {
        if let Some(&id) = self.nodes.get(self.key.as_slice()) {
            return id;
        }
        let id = self.nodes.len() as u32;
        self.nodes.insert(self.key.clone(), id);
        id
    }

    fn raw(&mut self, sexp: &str) -> u32 {
        let label = self.label(sexp);
        self.key.clear();
        self.key.extend([RAW, label]);
        self.node()
    }
}

/// A node being walked: its field name (label id + 1, 0 for none) and what its children put
/// in its s-expression, as (field, id) pairs.
struct Frame<'t> {
    node: Node<'t>,
    field: u32,
    items: Vec<(u32, u32)>,
}

/// `get_all_sub_trees` of the reference: one id per subtree (the root, and every node with
/// children), in no particular order.
pub(crate) fn subtrees(tree: &Tree, lang: Language, ids: &mut Interner) -> Vec<u32> {
    let mut out = Vec::new();
    walk(tree, lang, ids, |_, id| out.push(id));
    out
}

/// Calls `subtree` with every subtree's node and id.
fn walk<'t>(
    tree: &'t Tree,
    lang: Language,
    ids: &mut Interner,
    mut subtree: impl FnMut(Node<'t>, u32),
) {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let mut frames = vec![Frame {
        node: root,
        field: 0,
        items: Vec::new(),
    }];
    'walk: loop {
        if cursor.goto_first_child() {
            let field = cursor.field_name().map_or(0, |f| ids.label(f) + 1);
            frames.push(Frame {
                node: cursor.node(),
                field,
                items: Vec::new(),
            });
            continue;
        }
        loop {
            let Some(frame) = frames.pop() else {
                break 'walk;
            };
            let is_root = frames.is_empty();
            let items = close(frame, lang, ids, is_root, &mut subtree);
            let Some(parent) = frames.last_mut() else {
                break 'walk;
            };
            parent.items.extend(items);
            if cursor.goto_next_sibling() {
                let field = cursor.field_name().map_or(0, |f| ids.label(f) + 1);
                frames.push(Frame {
                    node: cursor.node(),
                    field,
                    items: Vec::new(),
                });
                continue 'walk;
            }
            cursor.goto_parent();
        }
    }
}

/// A node whose children are done: records its subtree id and gives what it puts in its
/// parent's s-expression.
fn close<'t>(
    frame: Frame<'t>,
    lang: Language,
    ids: &mut Interner,
    is_root: bool,
    subtree: &mut impl FnMut(Node<'t>, u32),
) -> Vec<(u32, u32)> {
    let Frame {
        node,
        field,
        mut items,
    } = frame;
    let has_children = node.child_count() != 0;
    if compat::is_printed(node, lang) {
        let id = if node.has_error() {
            // Error recovery prints things the public API does not show (missing hidden
            // tokens, the character an error leaf stopped at): take the string itself. No
            // error-free subtree prints the same, since its string has no ERROR, MISSING or
            // UNEXPECTED in it.
            ids.raw(&node.to_sexp())
        } else {
            let label = ids.label(node.kind());
            if compat::drops_fields(node, lang) {
                for item in &mut items {
                    item.0 = 0;
                }
            }
            ids.key.clear();
            ids.key.push(label);
            for &(f, c) in &items {
                ids.key.extend([f, c]);
            }
            ids.node()
        };
        if has_children || is_root {
            subtree(node, id);
        }
        vec![(field, id)]
    } else {
        if has_children && !compat::is_transparent(node, lang) {
            let id = ids.raw(&node.to_sexp());
            subtree(node, id);
        }
        for item in &mut items {
            if item.0 == 0 {
                item.0 = field;
            }
        }
        items
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Code in which no grammar-compatibility rule applies (they change the strings on
    /// purpose), with comments, strings, unicode and, cut short, syntax errors.
    const CODES: [(Language, &str); 4] = [
        (
            Language::Python,
            "def f(a, b=2, *args, **kw):\n    \"\"\"Doc.\"\"\"\n    x = [i * 2 for i in a if i]\n    # c\n    for k, v in kw.items():\n        b += v\n    while b > 0:\n        b -= 1\n    if a:\n        s = f'{a} héllo'\n    elif b:\n        s = lambda y: y + 1\n    else:\n        s = {'k': (1, 2.5)}\n    with open(a) as h:\n        pass\n    return s[0:2], x\n",
        ),
        (
            Language::Java,
            "class A { /** d */ public static int f(int[] a, String s) { int t = 0, u; for (int i = 0; i < a.length; i++) { t += a[i]; } for (int v : a) t = t + v; while (t > 10) t--; if (t > 1) { u = 2; } else if (t < 0) u = 3; else u = 4; char c = 'ä'; String z = \"héllo\"; try { g(); } catch (Exception e) { } return t > 0 ? u : -u; } }",
        ),
        (
            Language::C,
            "#include <stdio.h>\nstatic int f(int *a, int n) { int s = 0, t; /* c */ for (int i = 0; i < n; i++) s += a[i]; while (s > 10) s--; if (s) { t = 2; } else t = 3; struct p q = {1, 2}; char c = '\\n'; printf(\"%d h\u{e9}\\n\", s + t); switch (s) { case 1: break; default: return -1; } return s; }",
        ),
        (
            Language::Cpp,
            "template <typename T> class K : public B { public: int g(const std::vector<T>& v) const { int s = 0; for (auto x : v) { s += x; } auto l = [&](int y) { return y * 2; }; std::string t = \"h\u{e9}\"; return l(s); } };",
        ),
    ];

    #[test]
    fn ids_partition_subtrees_like_their_strings() {
        for (lang, code) in CODES {
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&lang.grammar())
                .unwrap_or_else(|e| panic!("{e}"));
            let mut ids = Interner::default();
            let mut by_id: HashMap<u32, String> = HashMap::new();
            let mut by_sexp: HashMap<String, u32> = HashMap::new();
            let chars: Vec<usize> = code.char_indices().map(|(i, _)| i).collect();
            // The whole code and every prefix of it (most of them with syntax errors).
            for &cut in chars.iter().chain([&code.len()]) {
                let tree = parser
                    .parse(&code[..cut], None)
                    .unwrap_or_else(|| panic!("no tree"));
                let mut count = 0;
                walk(&tree, lang, &mut ids, |node, id| {
                    count += 1;
                    let sexp = node.to_sexp();
                    let prev = by_id.entry(id).or_insert_with(|| sexp.clone());
                    assert_eq!(*prev, sexp, "one id, two strings");
                    let prev = by_sexp.entry(sexp.clone()).or_insert(id);
                    assert_eq!(*prev, id, "one string, two ids: {sexp}");
                });
                // As many subtrees as the reference's walk finds.
                let mut want = 0;
                let mut stack = vec![tree.root_node()];
                let mut cursor = tree.walk();
                while let Some(n) = stack.pop() {
                    want += 1;
                    stack.extend(n.children(&mut cursor).filter(|c| c.child_count() != 0));
                }
                assert_eq!(count, want, "{lang}: subtrees of {:?}", &code[..cut]);
            }
        }
    }
}
