//! The syntax match: the share of the reference's subtrees (the root and every node with
//! children) found among the prediction's subtrees, two subtrees being the same when their
//! tree-sitter s-expressions are (node types and field names, not the leaves' text).
//!
//! The reference builds the s-expression string of every subtree, which costs the subtree's
//! size each time (quadratic in the depth). Here each subtree gets an id instead: nodes are
//! hash-consed bottom-up on (label, [(field, child id)]), the structure `ts_node_string`
//! prints (type and field ids stand for their names), so two ids are equal exactly when the
//! strings are. The printing rules followed:
//! only named nodes are printed; the children of an unprinted node are spliced into its
//! parent's list and inherit its field name. Subtrees with syntax errors (which print
//! things the public API does not show, such as missing hidden tokens) and unprinted nodes
//! with children (which print in their own way as a root) take their string from
//! `Node::to_sexp`; they are rare in code that parses.

use super::compat;
use super::pyrt::FxHashMap;
use super::tree::Flat;
use super::Language;

/// Marks a key whose label is a whole s-expression from `Node::to_sexp`.
const RAW: u32 = u32::MAX;

/// Subtree ids shared by the codes of one example (so they can be compared).
#[derive(Default)]
pub(crate) struct Interner {
    raw: FxHashMap<String, u32>,
    nodes: FxHashMap<Vec<u32>, u32>,
    key: Vec<u32>,
}

impl Interner {
    pub(crate) fn clear(&mut self) {
        self.raw.clear();
        self.nodes.clear();
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

    /// The id of a subtree known by its s-expression.
    fn raw(&mut self, sexp: String) -> u32 {
        let n = self.raw.len() as u32;
        let label = *self.raw.entry(sexp).or_insert(n);
        self.key.clear();
        self.key.extend([RAW, label]);
        self.node()
    }
}

/// `get_all_sub_trees` of the reference: one id per subtree (the root, and every node with
/// children), in no particular order.
pub(crate) fn subtrees(flat: &Flat<'_>, lang: Language, ids: &mut Interner) -> Vec<u32> {
    let mut out = Vec::new();
    walk(flat, lang, ids, |_, id| out.push(id));
    out
}

/// Calls `subtree` with every subtree's node index and id. Children come before their
/// parent (reverse preorder); each node leaves what it puts in its parent's s-expression,
/// (field, id) pairs, in `items` at `placed[node]`.
fn walk(flat: &Flat<'_>, lang: Language, ids: &mut Interner, mut subtree: impl FnMut(u32, u32)) {
    let count = flat.nodes.len();
    let mut items: Vec<(u32, u32)> = Vec::with_capacity(count);
    let mut placed: Vec<(usize, usize)> = vec![(0, 0); count];
    let mut inner: Vec<(u32, u32)> = Vec::new();
    for i in (0..count as u32).rev() {
        let n = flat.get(i);
        inner.clear();
        for c in flat.children(i) {
            let (from, to) = placed[c as usize];
            inner.extend_from_slice(&items[from..to]);
        }
        let from = items.len();
        if compat::is_printed(n, lang) {
            let id = if n.has_error {
                // Error recovery prints things the public API does not show (missing hidden
                // tokens, the character an error leaf stopped at): take the string itself.
                // No error-free subtree prints the same, since its string has no ERROR,
                // MISSING or UNEXPECTED in it.
                ids.raw(n.node.to_sexp())
            } else {
                let drop = compat::drops_fields(n, lang);
                ids.key.clear();
                ids.key.push(u32::from(n.kind_id));
                for &(f, c) in &inner {
                    ids.key.extend([if drop { 0 } else { f }, c]);
                }
                ids.node()
            };
            if n.child_count != 0 || i == 0 {
                subtree(i, id);
            }
            items.push((u32::from(n.field), id));
        } else {
            if n.child_count != 0 && !compat::is_transparent(n, lang) {
                let id = ids.raw(n.node.to_sexp());
                subtree(i, id);
            }
            // Spliced into the parent, inheriting this node's field.
            let field = u32::from(n.field);
            items.extend(
                inner
                    .iter()
                    .map(|&(f, c)| (if f == 0 { field } else { f }, c)),
            );
        }
        placed[i as usize] = (from, items.len());
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
                let flat = Flat::new(&tree, lang);
                let mut count = 0;
                walk(&flat, lang, &mut ids, |i, id| {
                    count += 1;
                    let sexp = flat.get(i).node.to_sexp();
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
