//! Node kinds and field lookups without tree-sitter's per-call costs. `Node::kind` converts
//! the kind's C string on every call (`strlen` and UTF-8 validation), and
//! `Node::child_by_field_name` compares the name with each of the grammar's field names
//! (`strncmp`); the extraction hooks ask both at almost every node. Here each grammar's
//! kind names and field ids are read once, and a node's kind is an index by its kind id.
//!
//! ```
//! use codemine_syntax::extract::grammar::NodeExt;
//! let mut p = tree_sitter::Parser::new();
//! p.set_language(&tree_sitter_python::LANGUAGE.into()).unwrap();
//! let tree = p.parse("def f(): pass\n", None).unwrap();
//! let def = tree.root_node().child(0).unwrap();
//! assert_eq!(def.kind_str(), "function_definition");
//! assert_eq!(def.field("name").map(|n| n.kind_str()), Some("identifier"));
//! assert_eq!(def.field("no_such_field"), None);
//! ```

use std::cell::Cell;
use std::sync::Mutex;

use tree_sitter::{Language, Node};

/// What is read once per grammar.
pub struct Grammar {
    language: Language,
    /// Kind names by kind id.
    names: Box<[Box<str>]>,
    /// Field names and ids.
    fields: Box<[(Box<str>, u16)]>,
    /// An open-addressing hash table over `fields`: 1 + the index of a field, 0 for free.
    slots: Box<[u16]>,
}

/// FNV-1a: field names are a few bytes long, and this is cheaper than a memcmp per step
/// of a binary search.
fn hash(name: &str) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h as usize
}

impl Grammar {
    fn new(language: Language) -> Self {
        let names = (0..language.node_kind_count())
            .map(|id| {
                u16::try_from(id)
                    .ok()
                    .and_then(|id| language.node_kind_for_id(id))
                    .unwrap_or_default()
                    .into()
            })
            .collect();
        // Field ids run from 1 to the field count.
        let fields: Vec<(Box<str>, u16)> = (1..=language.field_count())
            .filter_map(|id| {
                let id = u16::try_from(id).ok()?;
                Some((language.field_name_for_id(id)?.into(), id))
            })
            .collect();
        // At most half full, so that a search stops soon at a free slot.
        let mask = (2 * fields.len() + 2).next_power_of_two() - 1;
        let mut slots = vec![0u16; mask + 1];
        for (i, (name, _)) in fields.iter().enumerate() {
            let mut h = hash(name) & mask;
            while slots[h] != 0 {
                h = (h + 1) & mask;
            }
            slots[h] = u16::try_from(i + 1).unwrap_or(0);
        }
        Grammar {
            language,
            names,
            fields: fields.into(),
            slots: slots.into(),
        }
    }

    /// The kind of `node`, a node of this grammar's trees (`Node::kind`).
    pub fn kind(&'static self, node: Node) -> &'static str {
        self.name(node.kind_id())
    }

    /// The name of the kind `id` (what [`Grammar::kind`] gives a node of that kind).
    pub fn name(&'static self, id: u16) -> &'static str {
        match self.names.get(usize::from(id)) {
            Some(name) => name,
            // Past the table lie only tree-sitter's own `ERROR` (`u16::MAX`, the id
            // `Node::is_error` checks) and `_ERROR`, which no node shows.
            None if id == u16::MAX => "ERROR",
            None => "_ERROR",
        }
    }

    /// How many kinds the grammar has (ids run below it; tree-sitter's `ERROR` is
    /// `u16::MAX`).
    pub fn kind_count(&self) -> usize {
        self.names.len()
    }

    /// The id of the field `name`, if the grammar has it.
    pub fn field_id(&self, name: &str) -> Option<u16> {
        let mask = self.slots.len() - 1;
        let mut h = hash(name) & mask;
        loop {
            let (f, id) = self
                .fields
                .get(usize::from(self.slots[h]).checked_sub(1)?)?;
            if **f == *name {
                return Some(*id);
            }
            h = (h + 1) & mask;
        }
    }
}

/// Every grammar seen so far; a handful, kept for the process's life.
static GRAMMARS: Mutex<Vec<&'static Grammar>> = Mutex::new(Vec::new());

thread_local! {
    /// The grammar last asked for on this thread: a file's nodes all share one.
    static LAST: Cell<Option<&'static Grammar>> = const { Cell::new(None) };
}

/// The grammar of `node`'s tree.
pub fn of(node: Node) -> &'static Grammar {
    let language = node.language();
    if let Some(g) = LAST.get().filter(|g| g.language == *language) {
        return g;
    }
    let g = {
        // A poisoned lock still holds a sound list: entries are only ever pushed whole.
        let mut all = GRAMMARS.lock().unwrap_or_else(|e| e.into_inner());
        match all.iter().find(|g| g.language == *language) {
            Some(g) => *g,
            None => {
                let g: &'static Grammar = Box::leak(Box::new(Grammar::new((*language).clone())));
                all.push(g);
                g
            }
        }
    };
    LAST.set(Some(g));
    g
}

/// Cheaper spellings of `Node::kind` and `Node::child_by_field_name`, with the same results.
pub trait NodeExt<'t> {
    /// `Node::kind`.
    fn kind_str(&self) -> &'static str;
    /// `Node::child_by_field_name`.
    fn field(&self, name: &str) -> Option<Node<'t>>;
}

impl<'t> NodeExt<'t> for Node<'t> {
    fn kind_str(&self) -> &'static str {
        of(*self).kind(*self)
    }

    fn field(&self, name: &str) -> Option<Node<'t>> {
        self.child_by_field_id(of(*self).field_id(name)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The grammars codemine's languages use, TSX among them.
    fn grammars() -> Vec<(&'static str, tree_sitter::Language)> {
        vec![
            ("python", tree_sitter_python::LANGUAGE.into()),
            ("java", tree_sitter_java::LANGUAGE.into()),
            ("c", tree_sitter_c::LANGUAGE.into()),
            ("cpp", tree_sitter_cpp::LANGUAGE.into()),
            ("go", tree_sitter_go::LANGUAGE.into()),
            ("javascript", tree_sitter_javascript::LANGUAGE.into()),
            (
                "typescript",
                tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            ),
            ("tsx", tree_sitter_typescript::LANGUAGE_TSX.into()),
            ("ruby", tree_sitter_ruby::LANGUAGE.into()),
            ("php", tree_sitter_php::LANGUAGE_PHP.into()),
        ]
    }

    /// Every grammar's table agrees with tree-sitter on every kind and every field, and on
    /// names that are no field.
    #[test]
    fn tables_agree_with_tree_sitter() {
        for (lang, language) in grammars() {
            {
                let g = Grammar::new(language.clone());
                for id in 0..language.node_kind_count() {
                    let id = u16::try_from(id).expect("kind id");
                    assert_eq!(
                        Some(&*g.names[usize::from(id)]),
                        language.node_kind_for_id(id).or(Some("")),
                        "{lang:?}"
                    );
                }
                for id in 1..=language.field_count() {
                    let id = u16::try_from(id).expect("field id");
                    let name = language.field_name_for_id(id).expect("field name");
                    assert_eq!(g.field_id(name), Some(id), "{lang:?} {name}");
                }
                for name in ["", "no_such_field", "bodyy", "bod"] {
                    assert_eq!(g.field_id(name), None, "{lang:?} {name}");
                }
            }
        }
    }

    /// `kind_str` and `field` give what `kind` and `child_by_field_name` give, node by node.
    #[test]
    fn nodes_agree_with_tree_sitter() {
        let src = "class A:\n    def f(self, x: int) -> int:\n        return g(x) +\n";
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_python::LANGUAGE.into())
            .expect("grammar");
        let tree = p.parse(src, None).expect("tree");
        let mut stack = vec![tree.root_node()];
        let mut errors = 0;
        while let Some(n) = stack.pop() {
            assert_eq!(n.kind_str(), n.kind());
            errors += usize::from(n.is_error());
            for f in [
                "name",
                "body",
                "parameters",
                "return_type",
                "left",
                "nothing",
            ] {
                assert_eq!(n.field(f), n.child_by_field_name(f));
            }
            let mut c = n.walk();
            stack.extend(n.children(&mut c));
        }
        assert!(errors > 0, "the sample has a syntax error");
    }
}
