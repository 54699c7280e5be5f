//! A parsed tree flattened once into an array in preorder, for the syntax and data-flow
//! matches, which visit nodes many times (the data-flow walk goes twice through every loop
//! and re-reads the variables under assignments): indexing an array is much cheaper than
//! moving a tree-sitter cursor and asking each node its type again.
//!
//! Only the nodes a tree-sitter cursor visits are kept (named and anonymous, not hidden
//! ones), so children are what `Node::children` gives. The subtree of node `i` is the range
//! `i..nodes[i].end`.

use std::sync::OnceLock;

use tree_sitter::{Node, Tree};

use super::Language;

/// No node.
pub(crate) const NONE: u32 = u32::MAX;

#[derive(Clone, Copy)]
pub(crate) struct FlatNode<'t> {
    pub(crate) node: Node<'t>,
    pub(crate) kind: &'t str,
    pub(crate) kind_id: u16,
    /// The field this node is under in its parent (tree-sitter's id), 0 for none.
    pub(crate) field: u16,
    pub(crate) named: bool,
    pub(crate) missing: bool,
    pub(crate) has_error: bool,
    pub(crate) child_count: u32,
    pub(crate) parent: u32,
    pub(crate) first_child: u32,
    pub(crate) next_sibling: u32,
    /// One past the last node of this node's subtree.
    pub(crate) end: u32,
}

pub(crate) struct Flat<'t> {
    pub(crate) nodes: Vec<FlatNode<'t>>,
}

/// The names of a language's node types by id, read once.
fn kind_names(lang: Language) -> &'static [String] {
    static NAMES: [OnceLock<Vec<String>>; 4] = [const { OnceLock::new() }; 4];
    let slot = match lang {
        Language::Python => 0,
        Language::Java => 1,
        Language::C => 2,
        Language::Cpp => 3,
    };
    NAMES[slot].get_or_init(|| {
        let grammar = lang.grammar();
        (0..grammar.node_kind_count())
            .map(|id| {
                u16::try_from(id)
                    .ok()
                    .and_then(|id| grammar.node_kind_for_id(id))
                    .unwrap_or_default()
                    .to_string()
            })
            .collect()
    })
}

impl<'t> Flat<'t> {
    pub(crate) fn new(tree: &'t Tree, lang: Language) -> Self {
        let names = kind_names(lang);
        let mut nodes: Vec<FlatNode<'t>> = Vec::new();
        let mut cursor = tree.walk();
        // The node the cursor is on and its parent's index.
        let mut parent = NONE;
        let mut last_child: Vec<u32> = Vec::new();
        loop {
            let node = cursor.node();
            let index = nodes.len() as u32;
            let kind_id = node.kind_id();
            let kind: &'t str = match names.get(usize::from(kind_id)) {
                Some(name) if !name.is_empty() => name.as_str(),
                // ERROR and other built-in symbols past the table.
                _ => node.kind(),
            };
            nodes.push(FlatNode {
                node,
                kind,
                kind_id,
                field: cursor.field_id().map_or(0, |f| f.get()),
                named: node.is_named(),
                missing: node.is_missing(),
                has_error: node.has_error(),
                child_count: node.child_count(),
                parent,
                first_child: NONE,
                next_sibling: NONE,
                end: NONE,
            });
            if parent != NONE {
                match last_child.last_mut() {
                    Some(last) if *last != NONE => nodes[*last as usize].next_sibling = index,
                    _ => nodes[parent as usize].first_child = index,
                }
                if let Some(last) = last_child.last_mut() {
                    *last = index;
                }
            }
            if cursor.goto_first_child() {
                parent = index;
                last_child.push(NONE);
                continue;
            }
            // Close the finished nodes until one has a next sibling.
            nodes[index as usize].end = index + 1;
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return Flat { nodes };
                }
                last_child.pop();
                let done = parent;
                nodes[done as usize].end = nodes.len() as u32;
                parent = nodes[done as usize].parent;
            }
        }
    }

    pub(crate) fn get(&self, i: u32) -> &FlatNode<'t> {
        &self.nodes[i as usize]
    }

    /// The children of node `i`, in order.
    pub(crate) fn children(&self, i: u32) -> Children<'_, 't> {
        Children {
            flat: self,
            next: self.get(i).first_child,
        }
    }

    /// The index of `child`, a child of node `parent` (as `Node::child_by_field_name`
    /// returns).
    pub(crate) fn index_of_child(&self, parent: u32, child: Node<'_>) -> Option<u32> {
        self.children(parent)
            .find(|&c| self.get(c).node.id() == child.id())
    }

    /// `node.child_by_field_name(name)` as an index.
    pub(crate) fn field(&self, i: u32, name: &str) -> Option<u32> {
        let child = self.get(i).node.child_by_field_name(name)?;
        self.index_of_child(i, child)
    }
}

pub(crate) struct Children<'f, 't> {
    flat: &'f Flat<'t>,
    next: u32,
}

impl Iterator for Children<'_, '_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.next == NONE {
            return None;
        }
        let i = self.next;
        self.next = self.flat.get(i).next_sibling;
        Some(i)
    }
}
