//! Extraction of a file with syntax errors: a syntax error costs at most the top-level item
//! it is in.
//!
//! tree-sitter's error recovery does not always resume after a broken item. After an
//! unclosed parameter list (`int broken( {` in C, `function broken( {` in JavaScript) the
//! rest of the file lands in one ERROR node, or inside the broken item, and every later
//! function was lost. Here, where the tree has an error at its top level, the text after the
//! error is parsed again from the next line that starts a top-level item: a line whose first
//! token starts at column 0 and starts an item by the rule the window splitter confirms its
//! cuts with ([`LanguageSpec::starts_item`]), together with the comment lines right before it (they
//! hold the item's docstring). The lines come from the tokens of the first parse: tree-sitter
//! has lexed strings, comments and heredocs already, where the splitter's byte scanners exist
//! for four languages only and lose their count of brackets at an unclosed one.
//!
//! What a tree's top level holds is read child by child:
//! - a child without error is an item, kept as in any file (when the whole root is an ERROR
//!   node, only a child that starts a line and has children counts as one: loose tokens do
//!   not);
//! - an ERROR node, or a run of loose tokens of an ERROR root, is the broken item up to the
//!   first restart line after its first line: that part is parsed alone (its functions kept
//!   or flagged or dropped and counted by the usual rules), and the text from the restart
//!   line on is parsed again;
//! - an item with an error inside (a function with a broken body, a class with a broken
//!   method) stays as the first parse has it, unless a restart line comes inside the item
//!   after the error and tree-sitter took the next items into the broken one: the item is a
//!   function with a broken signature (dropped, so that what it holds would be named inside
//!   it), or it ends with a MISSING token (it swallowed the rest), or the restart line starts
//!   a function. It is then split as above. A C++ namespace, `extern "C"` block or `#ifdef`
//!   whose contents are at column 0 is not split where tree-sitter found functions in it
//!   after the error (they are named within it as they should be).
//!
//! Work is bounded: after a restart, the rest of the file is parsed in windows that end where
//! an item starts, each twice as many items as the last when that one parsed cleanly and one
//! item after an error, so that a byte is parsed a bounded number of times however many
//! broken items the file has. A window whose last item is cut short (the restart line was
//! inside an item, a `#if` in a C function, say) is parsed again with more items.
//!
//! Known limit: an unclosed brace (`int f(void) {` without its `}`) makes tree-sitter read
//! the next functions as nested in the broken one, which is kept and flagged: they are kept,
//! named inside it.

use std::ops::Range;
use std::rc::Rc;

use tree_sitter::{Node, Point, Tree};

use super::grammar::NodeExt;
use super::{
    functions_of, walk_file, ExtractError, Extractor, FileFunctions, LanguageSpec, Spec, Top,
};

/// Where top-level items may start, in order: each line whose first token starts at column 0
/// and starts an item, at the first of the comment and blank lines right before it.
struct Restarts {
    /// (byte, row) of the place (column 0), and the row of the item's own line.
    at: Vec<(usize, usize, usize)>,
}

impl Restarts {
    /// Reads the leaves of `tree` in order.
    fn of(spec: Spec, tree: &Tree, src: &str) -> Self {
        let mut at = Vec::new();
        // The row the last leaf ended on: a leaf that starts on a later row starts its line.
        let mut last_end_row: Option<usize> = None;
        // The first of the comment lines right before the current line: (byte, row).
        let mut comments: Option<(usize, usize)> = None;
        // The previous line was an annotation or decorator: no restart between it and what
        // it annotates.
        let mut after_decorator = false;
        // In C and C++ a line starts an item only after one ended: the last token before it
        // (comments aside) is `;`, `{` or `}`, or ends a directive's line. GNU style puts
        // the return type on a line of its own (`static int` then `f(void) {`).
        let c_family = spec.items_follow_an_end();
        let mut ended = true;
        // The current line starts with a directive (`#define`, `#endif`).
        let mut directive = false;
        let mut cursor = tree.walk();
        loop {
            let n = cursor.node();
            let kind = n.kind_str();
            let leaf = n.child_count() == 0 || spec.atomic_token(kind);
            if leaf && n.end_byte() > n.start_byte() {
                let p = n.start_position();
                let starts_line = last_end_row.is_none_or(|r| p.row > r);
                let comment = kind.contains("comment");
                if starts_line && comment {
                    comments.get_or_insert((n.start_byte() - p.column, p.row));
                } else if starts_line {
                    let rest = &src.as_bytes()[n.start_byte()..];
                    // (Named nodes only: C++'s keyword `template` is no literal.)
                    let literal = n.is_named()
                        && ["string", "heredoc", "content", "text", "template"]
                            .iter()
                            .any(|k| kind.contains(k));
                    if p.column == 0
                        && !literal
                        && !after_decorator
                        && (!c_family || ended || directive)
                        && spec.starts_item(rest)
                    {
                        let (byte, row) = comments.unwrap_or((n.start_byte(), p.row));
                        at.push((byte, row, p.row));
                    }
                    after_decorator = rest.starts_with(b"@") || rest.starts_with(b"#[");
                    directive = rest.starts_with(b"#");
                    comments = None;
                } else if !comment {
                    comments = None;
                }
                if !comment {
                    // (A leaf of an ERROR node may hold several tokens: `( {`.)
                    ended = src[n.byte_range()].trim_end().ends_with([';', '{', '}']);
                }
                last_end_row = Some(n.end_position().row);
            }
            if !leaf && cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return Restarts { at };
                }
            }
        }
    }

    /// The first restart whose item line comes after row `row`, if it starts before byte
    /// `before`; the comment lines before it are cut at `row` (they cannot reach back into
    /// the broken item's first line).
    fn after_row(&self, row: usize, before: usize, src: &str) -> Option<(usize, Point)> {
        let k = self.at.partition_point(|&(_, _, item_row)| item_row <= row);
        let &(mut byte, at_row, _) = self.at.get(k)?;
        if at_row <= row {
            for _ in at_row..=row {
                byte = line_start_after(src, byte)?;
            }
        }
        (byte < before).then_some((byte, Point::new(at_row.max(row + 1), 0)))
    }

    /// The `n`th restart after byte `pos` (1 for the next), or none.
    fn nth_after(&self, pos: usize, n: usize) -> Option<(usize, Point)> {
        let k = self.at.partition_point(|&(b, _, _)| b <= pos);
        let &(byte, row, _) = self.at.get(k + n.max(1) - 1)?;
        Some((byte, Point::new(row, 0)))
    }
}

/// The start of the line after the one that holds byte `b`.
fn line_start_after(src: &str, b: usize) -> Option<usize> {
    src.as_bytes()
        .get(b..)?
        .iter()
        .position(|&c| c == b'\n')
        .map(|k| b + k + 1)
}

/// Parses parts of one file.
struct Parts<'e, 's> {
    ex: &'e mut Extractor,
    lang: Spec,
    dialect: u8,
    src: &'s str,
    /// What every part needs before it ([`LanguageSpec::fragment_prefix`]).
    prefix: Option<tree_sitter::Range>,
    /// Read from the whole file's tree when first needed (a file whose errors stay inside
    /// their items never needs them).
    restarts: Option<Rc<Restarts>>,
}

impl Parts<'_, '_> {
    /// The restarts; `tree` is the whole file's (the first tree planned: a window is parsed
    /// only after a restart, which needed them).
    fn restarts(&mut self, tree: &Tree) -> Rc<Restarts> {
        let (lang, src) = (self.lang, self.src);
        Rc::clone(
            self.restarts
                .get_or_insert_with(|| Rc::new(Restarts::of(lang, tree, src))),
        )
    }

    fn parse(&mut self, part: tree_sitter::Range) -> Result<Tree, ExtractError> {
        let ranges: Vec<tree_sitter::Range> = self
            .prefix
            .filter(|p| p.end_byte <= part.start_byte)
            .into_iter()
            .chain(std::iter::once(part))
            .collect();
        self.ex
            .parse_ranges(self.lang, self.dialect, self.src, &ranges)
    }
}

/// A range of the file with its points.
fn range(start: (usize, Point), end: (usize, Point)) -> tree_sitter::Range {
    tree_sitter::Range {
        start_byte: start.0,
        end_byte: end.0,
        start_point: start.1,
        end_point: end.1,
    }
}

/// The start of the first error inside `node` (an ERROR or MISSING node), or `node`'s start.
fn first_error(node: Node) -> (usize, Point) {
    let mut n = node;
    'down: loop {
        if n.is_error() || n.is_missing() {
            break;
        }
        let mut c = n.walk();
        if c.goto_first_child() {
            loop {
                let child = c.node();
                if child.has_error() || child.is_missing() || child.is_error() {
                    n = child;
                    continue 'down;
                }
                if !c.goto_next_sibling() {
                    break;
                }
            }
        }
        break;
    }
    (n.start_byte(), n.start_position())
}

/// Whether the walk would keep a function below `item` (a top-level child of `root`) that
/// starts on a row after `row`: tree-sitter resumed inside the item after its error.
fn keeps_function_after(
    spec: &dyn LanguageSpec,
    root: Node,
    item: Node,
    row: usize,
    src: &str,
) -> bool {
    spec.new_tree();
    let mut ancestors = vec![root];
    let mut cursor = item.walk();
    loop {
        let n = cursor.node();
        let after = n.end_position().row > row;
        if after
            && n.start_position().row > row
            && !n.has_error()
            && spec.function(n, &ancestors, src).is_some()
        {
            return true;
        }
        let enter = after && !n.is_error() && (n.has_error() || spec.may_contain_functions(n, src));
        if enter && cursor.goto_first_child() {
            ancestors.push(n);
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() || cursor.node() == item {
                return false;
            }
            ancestors.pop();
        }
    }
}

/// Whether a line after the one holding byte `from` and before byte `to` starts with an item
/// ([`LanguageSpec::starts_item`]): a byte check before the restarts are read.
fn may_restart(lang: Spec, src: &str, from: usize, to: usize) -> bool {
    let b = src.as_bytes();
    let to = to.min(b.len());
    let mut i = from.min(to);
    while let Some(k) = b[i..to].iter().position(|&c| c == b'\n') {
        i += k + 1;
        if i < to && lang.starts_item(&b[i..]) {
            return true;
        }
    }
    false
}

/// What to do with a tree's top level.
struct Plan {
    /// Top-level children the tree's walk leaves out, in order.
    skip: Vec<Range<usize>>,
    /// Parts of the file to parse alone (broken items), in order.
    pieces: Vec<tree_sitter::Range>,
    next: Next,
}

enum Next {
    /// The tree is read to its end.
    End,
    /// Parse again from this place (a restart after a broken item).
    From(usize, Point),
    /// The window's last item was cut short: parse it again with more items.
    Longer,
}

/// How a top-level child is read.
#[derive(PartialEq)]
enum Child {
    /// An item without error.
    Item,
    /// A comment.
    Extra,
    /// An ERROR node, a MISSING token, or a loose token of an ERROR root.
    Loose,
    /// An item with an error inside.
    Broken,
}

fn child_kind(n: Node, root_error: bool) -> Child {
    let errored = n.is_error() || n.has_error() || n.is_missing();
    if n.is_extra() && !errored {
        Child::Extra
    } else if !errored && (!root_error || n.child_count() > 0 && n.start_position().column == 0) {
        Child::Item
    } else if root_error || n.is_error() || n.is_missing() {
        Child::Loose
    } else {
        Child::Broken
    }
}

/// Reads the top level of `tree`, a window of the file that starts at byte `start` (`last`
/// when it reaches the file's end).
fn plan(parts: &mut Parts, tree: &Tree, start: usize, last: bool) -> Plan {
    let spec = parts.lang;
    let src = parts.src;
    let root = tree.root_node();
    let window_end = root.end_byte();
    let root_error = root.is_error();
    let mut plan = Plan {
        skip: Vec::new(),
        pieces: Vec::new(),
        next: Next::End,
    };
    let mut cursor = root.walk();
    let mut more = cursor.goto_first_child();
    // The run of loose children being read: its first and last.
    let mut run: Option<(Node, Node)> = None;
    while more {
        let child = cursor.node();
        more = cursor.goto_next_sibling();
        let kind = child_kind(child, root_error);
        // The prefix parsed before the window (PHP's tag) is no part of it.
        let prefix = parts
            .prefix
            .is_some_and(|p| child.end_byte() <= p.end_byte.max(start));
        if kind == Child::Extra || prefix {
            // A comment inside a run is parsed with it; one after it stays with the tree.
            continue;
        }
        if kind == Child::Loose {
            run = Some((run.map_or(child, |(first, _)| first), child));
            if more {
                continue;
            }
        }
        if let Some((first, end)) = run.take() {
            let start = (first.start_byte(), first.start_position());
            let stop = (end.end_byte(), end.end_position());
            let restarts = parts.restarts(tree);
            if let Some(at) = restarts
                .after_row(start.1.row, stop.0, src)
                .filter(|at| at.0 > start.0)
            {
                plan.pieces.push(range(start, at));
                plan.skip.push(start.0..window_end);
                plan.next = Next::From(at.0, at.1);
                return plan;
            }
            if !last && reaches(src, stop.0, window_end) {
                plan.next = Next::Longer;
                return plan;
            }
            plan.pieces.push(range(start, stop));
            plan.skip.push(start.0..stop.0);
        }
        if kind != Child::Broken {
            continue;
        }
        // Split at the next restart line inside the item after the error, where
        // tree-sitter took the next items into the broken one: the item is a function with
        // a broken signature (dropped, and what it holds would be named inside it; the
        // restart may come right after its first line), or tree-sitter closed it with a
        // MISSING token at the window's end (it swallowed the rest), or the restart line
        // starts a function, unless the item is one whose contents need not be indented
        // (a C++ namespace, `extern "C"`, `#ifdef`) and tree-sitter found functions in it
        // after the error: they are named within it as they should be.
        spec.new_tree();
        let dropped =
            spec.function(child, &[root], src).is_some() && super::signature_has_error(spec, child);
        // The restart may be the line of the error itself when that is not the item's
        // first line (`class K {` read as the rest of `const x = {`).
        let (e0, p0) = if dropped {
            (child.start_byte(), child.start_position())
        } else {
            let (b, p) = first_error(child);
            let row = p.row.saturating_sub(1).max(child.start_position().row);
            let line = src[..b].rfind('\n').map_or(0, |k| k + 1);
            let b = if row < p.row {
                line.saturating_sub(1)
            } else {
                b
            };
            (b.max(child.start_byte()), Point::new(row, 0))
        };
        let end = (child.end_byte(), child.end_position());
        let split = may_restart(parts.lang, src, e0, end.0)
            .then(|| parts.restarts(tree))
            .and_then(|restarts| restarts.after_row(p0.row, end.0, src))
            .filter(|at| at.0 > start)
            .filter(|&at| {
                dropped
                    || ends_missing(child)
                    || !(transparent(child) && keeps_function_after(spec, root, child, p0.row, src))
                        && starts_function(parts, tree, at, end)
            });
        if let Some(at) = split {
            plan.pieces
                .push(range((child.start_byte(), child.start_position()), at));
            plan.skip.push(child.start_byte()..window_end);
            plan.next = Next::From(at.0, at.1);
            return plan;
        }
        if !last && reaches(src, end.0, window_end) {
            plan.next = Next::Longer;
            return plan;
        }
    }
    plan
}

/// Whether an item that ends at `end` reaches the window's end: only blanks come after it
/// (tree-sitter may end an item that it closed with a MISSING token before the last line
/// break).
fn reaches(src: &str, end: usize, window_end: usize) -> bool {
    src.as_bytes()
        .get(end..window_end)
        .is_none_or(|rest| rest.iter().all(u8::is_ascii_whitespace))
}

/// Whether `node` is an item whose contents are often not indented, so that a line at
/// column 0 inside it is no sign that a new top-level item starts.
fn transparent(node: Node) -> bool {
    let kind = node.kind_str();
    kind.starts_with("preproc_") || matches!(kind, "namespace_definition" | "linkage_specification")
}

/// Whether `node` ends with a MISSING token (tree-sitter closed it where the text ended).
fn ends_missing(node: Node) -> bool {
    let mut n = node;
    loop {
        if n.is_missing() {
            return true;
        }
        match n.child_count().checked_sub(1).and_then(|k| n.child(k)) {
            Some(last) => n = last,
            None => return false,
        }
    }
}

/// Whether the text from `at` to the next restart (or to `end`) holds a function: the
/// restart line found inside an item with an error starts one (it is not a `#if` or a label
/// of a C function's body, say).
fn starts_function(
    parts: &mut Parts,
    tree: &Tree,
    at: (usize, Point),
    end: (usize, Point),
) -> bool {
    let stop = parts
        .restarts(tree)
        .nth_after(at.0, 1)
        .filter(|(b, _)| *b < end.0)
        .unwrap_or(end);
    let (spec, src) = (parts.lang, parts.src);
    parts
        .parse(range(at, stop))
        .is_ok_and(|t| !functions_of(spec, &t, src).functions.is_empty())
}

/// Extracts `src`, whose parse `whole` has errors, recovering the items after broken ones
/// (see the module's documentation).
pub(super) fn recover(
    ex: &mut Extractor,
    lang: Spec,
    dialect: u8,
    src: &str,
    whole: Tree,
) -> Result<FileFunctions, ExtractError> {
    let spec = lang;
    let mut parts = Parts {
        ex,
        lang,
        dialect,
        src,
        prefix: spec.fragment_prefix(whole.root_node()),
        restarts: None,
    };
    let mut out = FileFunctions {
        has_errors: true,
        ..Default::default()
    };
    let file_end = (src.len(), super::end_of(src));
    let mut first = Some(whole);
    let mut pos = (0usize, Point::new(0, 0));
    // Items in the next window.
    let mut items = 1usize;
    loop {
        let (tree, last) = match first.take() {
            Some(t) => (t, true),
            None => {
                // A window follows a restart, which read the restarts.
                let Some(restarts) = parts.restarts.clone() else {
                    break;
                };
                let end = restarts.nth_after(pos.0, items).unwrap_or(file_end);
                let tree = parts.parse(range(pos, end))?;
                (tree, end.0 >= src.len())
            }
        };
        let plan = plan(&mut parts, &tree, pos.0, last);
        if matches!(plan.next, Next::Longer) {
            items = items.saturating_mul(2);
            continue;
        }
        let top = Top {
            skip: &plan.skip,
            trust_root_error: tree.root_node().is_error(),
        };
        let mut found = vec![walk_file(spec, &tree, src, true, &top)];
        drop(tree);
        for piece in &plan.pieces {
            let t = parts.parse(*piece)?;
            found.push(functions_of(spec, &t, src));
        }
        // The pieces' functions among the tree's, in source order.
        let mut functions = Vec::new();
        for part in found {
            functions.extend(part.functions);
            out.dropped_syntax_error += part.dropped_syntax_error;
            out.dropped_nesting += part.dropped_nesting;
            out.info.append(part.info);
        }
        functions.sort_by_key(|f| f.byte_range.start);
        out.functions.extend(functions);
        match plan.next {
            Next::From(byte, point) => {
                pos = (byte, point);
                items = 1;
            }
            _ if last => break,
            _ => {
                pos = parts
                    .restarts
                    .as_ref()
                    .and_then(|r| r.nth_after(pos.0, items))
                    .unwrap_or(file_end);
                items = items.saturating_mul(2);
            }
        }
    }
    out.functions.shrink_to_fit();
    Ok(out)
}
