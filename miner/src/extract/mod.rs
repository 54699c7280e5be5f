//! The extract stage: parses a source file with tree-sitter and emits one [`Function`] per
//! function or method, with its qualified name, signature, code, docstring, code tokens
//! and span.
//!
//! The walk is grammar-agnostic; what differs between languages lives behind
//! [`LanguageSpec`], one module per language. Adding a language is a new module, a variant
//! of [`Lang`] and a row in [`Lang::from_path`]; no stage needs editing.
//!
//! ```
//! use miner::extract::{Extractor, Lang};
//! let mut x = Extractor::default();
//! let out = x.extract(Lang::Python, "def add(a, b):\n    \"\"\"Adds.\"\"\"\n    return a + b\n").unwrap();
//! assert_eq!(out.functions[0].qualified_name, "add");
//! assert_eq!(out.functions[0].docstring.as_deref(), Some("Adds."));
//! ```

mod c;
mod java;
mod python;
pub mod tokens;

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::{Node, Parser, Tree};

/// A supported source language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Python,
    Java,
    C,
}

impl Lang {
    /// The language's name in output rows (`python`, `java`, `c`).
    pub fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Java => "java",
            Lang::C => "c",
        }
    }

    /// The language of a file, from its extension.
    pub fn from_path(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.')?.1;
        match ext {
            "py" => Some(Lang::Python),
            "java" => Some(Lang::Java),
            "c" | "h" => Some(Lang::C),
            _ => None,
        }
    }

    pub fn spec(self) -> &'static dyn LanguageSpec {
        match self {
            Lang::Python => &python::Python,
            Lang::Java => &java::Java,
            Lang::C => &c::C,
        }
    }
}

/// What kind of callable a function record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FunctionKind {
    Function,
    Method,
    Constructor,
}

/// A docstring found for a function: its cleaned text, and the node holding it when that
/// node lies inside the function (Python), so it can be left out of the code tokens.
pub struct Docstring<'t> {
    pub text: String,
    pub inner_node: Option<Node<'t>>,
}

/// Everything that differs between languages. Methods have defaults where most grammars agree.
pub trait LanguageSpec: Send + Sync {
    fn grammar(&self) -> tree_sitter::Language;

    /// Joins scope names into qualified names.
    fn separator(&self) -> &'static str {
        "."
    }

    /// If `node` is a function definition (with a body), its kind and name. `ancestors`
    /// are the enclosing nodes, innermost last (cheaper than `Node::parent`, which
    /// tree-sitter computes by descending from the root).
    fn function(&self, node: Node, ancestors: &[Node], src: &str)
        -> Option<(FunctionKind, String)>;

    /// If `node` opens a naming scope for what it contains (a class, say), the scope's name.
    /// Functions are scopes of their own name without saying so here.
    fn scope(&self, node: Node, ancestors: &[Node], src: &str) -> Option<String>;

    /// Whether a function can be found below `node`; the walk skips the subtrees where
    /// none can (expressions, say), which is most of a syntax tree.
    fn may_contain_functions(&self, _node: Node, _src: &str) -> bool {
        true
    }

    /// The docstring of the function `node`.
    fn docstring<'t>(&self, node: Node<'t>, src: &str) -> Option<Docstring<'t>>;

    /// Node kinds that are a single code token although they have children (string
    /// literals, as function_parser treats them).
    fn atomic_token(&self, kind: &str) -> bool;

    /// The body of the function `node`; the signature is what comes before it.
    fn body<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        node.child_by_field_name("body")
    }
}

/// One function or method found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// Enclosing scopes and the name, joined by the language's separator (`Class.method`).
    pub qualified_name: String,
    pub kind: FunctionKind,
    /// The text from the start of the definition to the start of its body, trimmed.
    pub signature: String,
    /// The definition's source text, from its first line's start column.
    pub code: String,
    pub docstring: Option<String>,
    /// Leaf tokens of the definition, the docstring excluded.
    pub code_tokens: Vec<String>,
    /// 1-based, inclusive.
    pub start_line: u32,
    pub end_line: u32,
    pub byte_range: Range<usize>,
}

/// The functions of one file, and those dropped because they overlap a syntax error.
#[derive(Debug, Default)]
pub struct FileFunctions {
    pub functions: Vec<Function>,
    pub dropped_syntax_error: usize,
    /// Whether the file's syntax tree has any error at all.
    pub has_errors: bool,
}

/// Why a file could not be extracted.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    #[error("the {0} grammar could not be loaded: {1}")]
    Grammar(&'static str, String),
    #[error("tree-sitter gave no tree")]
    NoTree,
}

/// Holds one tree-sitter parser per language; create one per thread and reuse it.
#[derive(Default)]
pub struct Extractor {
    parsers: HashMap<Lang, Parser>,
}

impl Extractor {
    /// Parses `src` as `lang` without extracting anything (what the benchmark calls bare
    /// parsing).
    pub fn parse(&mut self, lang: Lang, src: &str) -> Result<Tree, ExtractError> {
        let parser = match self.parsers.entry(lang) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                let mut p = Parser::new();
                p.set_language(&lang.spec().grammar())
                    .map_err(|e| ExtractError::Grammar(lang.name(), e.to_string()))?;
                v.insert(p)
            }
        };
        parser.parse(src, None).ok_or(ExtractError::NoTree)
    }

    pub fn extract(&mut self, lang: Lang, src: &str) -> Result<FileFunctions, ExtractError> {
        let tree = self.parse(lang, src)?;
        Ok(functions_of(lang.spec(), &tree, src))
    }
}

struct Found<'t> {
    node: Node<'t>,
    kind: FunctionKind,
    name: String,
    qualified_name: String,
}

/// Walks the tree once, without recursion, keeping a stack of enclosing scope names and
/// of ancestor nodes. A function inside an ERROR node, or with an error inside it, is
/// dropped: in a tree, those are the only ways a function can overlap an error.
pub fn functions_of(spec: &dyn LanguageSpec, tree: &Tree, src: &str) -> FileFunctions {
    let mut out = FileFunctions {
        has_errors: tree.root_node().has_error(),
        ..Default::default()
    };
    let mut scopes: Vec<(usize, String)> = Vec::new();
    let mut ancestors: Vec<Node> = Vec::new();
    let mut in_error = 0usize; // ERROR ancestors of the current node
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        let depth = ancestors.len();
        if let Some((kind, name)) = spec.function(node, &ancestors, src) {
            if in_error > 0 || node.has_error() {
                out.dropped_syntax_error += 1;
            } else {
                let mut qualified: Vec<&str> = scopes.iter().map(|(_, s)| s.as_str()).collect();
                qualified.push(&name);
                let qualified_name = qualified.join(spec.separator());
                out.functions.push(build(
                    spec,
                    Found {
                        node,
                        kind,
                        name: name.clone(),
                        qualified_name,
                    },
                    src,
                ));
            }
            scopes.push((depth, name));
        } else if let Some(scope) = spec.scope(node, &ancestors, src) {
            scopes.push((depth, scope));
        }
        let descend = node.is_error()
            || (out.has_errors && node.has_error())
            || spec.may_contain_functions(node, src);
        if descend && cursor.goto_first_child() {
            in_error += usize::from(node.is_error());
            ancestors.push(node);
            continue;
        }
        loop {
            let depth = ancestors.len();
            while scopes.last().is_some_and(|(d, _)| *d >= depth) {
                scopes.pop();
            }
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
            if let Some(parent) = ancestors.pop() {
                in_error -= usize::from(parent.is_error());
            }
        }
    }
    out
}

fn build(spec: &dyn LanguageSpec, f: Found, src: &str) -> Function {
    let node = f.node;
    let range = node.byte_range();
    let doc = spec.docstring(node, src);
    let skip = doc.as_ref().and_then(|d| d.inner_node).map(|n| n.id());
    let body_start = spec.body(node).map_or(range.end, |b| b.start_byte());
    Function {
        name: f.name,
        qualified_name: f.qualified_name,
        kind: f.kind,
        signature: src[range.start..body_start].trim_end().to_string(),
        code: src[range.clone()].to_string(),
        docstring: doc.map(|d| d.text).filter(|t| !t.is_empty()),
        code_tokens: code_tokens(spec, node, src, skip),
        start_line: node.start_position().row as u32 + 1,
        end_line: node.end_position().row as u32 + 1,
        byte_range: range,
    }
}

/// Leaf tokens under `node` in source order (function_parser's `tokenize_code`), with
/// string literals as single tokens and the `skip` node (the docstring) left out.
fn code_tokens(spec: &dyn LanguageSpec, node: Node, src: &str, skip: Option<usize>) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut cursor = node.walk();
    loop {
        let n = cursor.node();
        let atomic = n.child_count() == 0 || spec.atomic_token(n.kind());
        if Some(n.id()) != skip && atomic {
            let text = &src[n.byte_range()];
            if !text.is_empty() {
                tokens.push(text.to_string());
            }
        }
        if Some(n.id()) != skip && !atomic && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node() == node {
                return tokens;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return tokens;
            }
        }
    }
}

/// The text of `node`.
pub(crate) fn text<'s>(node: Node, src: &'s str) -> &'s str {
    &src[node.byte_range()]
}

/// The comments directly before `node` (no blank line, no code between), oldest first.
/// A comment that trails code on the same line is not taken.
pub(crate) fn leading_comments<'t>(
    node: Node<'t>,
    is_comment: impl Fn(&str) -> bool,
) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut next_start_row = node.start_position().row;
    let mut prev = node.prev_sibling();
    while let Some(p) = prev {
        if !is_comment(p.kind()) || p.end_position().row + 1 < next_start_row {
            break;
        }
        let before = p.prev_sibling();
        if before.is_some_and(|b| {
            b.end_position().row == p.start_position().row && !is_comment(b.kind())
        }) {
            break;
        }
        out.push(p);
        next_start_row = p.start_position().row;
        prev = before;
    }
    out.reverse();
    out
}
