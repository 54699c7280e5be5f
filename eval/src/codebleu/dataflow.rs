//! The data-flow match: the reference's data-flow graph extraction (`parser/DFG.py`, from
//! GraphCodeBERT), `get_data_flow`'s filtering and merging, `normalize_dataflow` and the
//! matching, ported without recursion.
//!
//! The reference walks the tree with one recursive function per language, threading a map
//! from variable name to the token indexes that last defined it. Here each call is a frame on
//! an explicit stack; a frame is a list of steps (calls into children and edge-building
//! steps) fixed when it is created, since which children are visited, in which order and
//! with which states never depends on the data. C and C++ use the reference's C# walker
//! (`"c": DFG_csharp, "cpp": DFG_csharp`), as XLCoST's CodeBLEU did.
//!
//! Quirks reproduced:
//! - token text comes from slicing the code's lines by tree-sitter's *byte* columns as if they
//!   were character indexes (they differ on lines with non-ASCII text), and a token spanning
//!   lines is glued without its newlines;
//! - tokens are keyed by their (start, end) points; a later token with the same points
//!   overwrites an earlier one;
//! - any error in the walk (in the reference, an exception such as a missing field) leaves
//!   the code with no data flow at all;
//! - merged parent lists are `list(set(...))` of strings, whose order is that of a CPython
//!   set under the configured `PYTHONHASHSEED` (see [`super::pyrt::set_order`]); the
//!   normalised variable names, hence the matches, depend on it.

use tree_sitter::{Node, Tree};

use super::compat;
use super::pyrt::{self, FxHashMap, FxHashSet, HashKey};
use super::Language;

/// Interned token text.
type Sym = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Rel {
    ComesFrom,
    ComputedFrom,
}

/// One data-flow edge set: (name, token index, relation, parent names, parent indexes).
#[derive(Clone, Debug)]
struct Entry {
    name: Sym,
    idx: u32,
    rel: Rel,
    names: Vec<Sym>,
    idxs: Vec<u32>,
}

/// A normalised data flow: (variable, relation, parent variables), names replaced by their
/// order of first appearance in the code's data flow.
pub(crate) type NormFlow = (u32, Rel, Vec<u32>);

/// (start row, start column, end row, end column), columns in bytes.
type Key = (usize, usize, usize, usize);

fn key(node: Node<'_>) -> Key {
    let (s, e) = (node.start_position(), node.end_position());
    (s.row, s.column, e.row, e.column)
}

/// What the reference treats as a token: a leaf, or a whole string or character literal,
/// but not a comment.
fn is_token(node: Node<'_>) -> bool {
    let kind = node.kind();
    (node.child_count() == 0 || matches!(kind, "string_literal" | "string" | "character_literal"))
        && kind != "comment"
}

/// The tokens under `node` in order (`tree_to_token_index`), without recursion.
fn tokens_under<'t>(node: Node<'t>, mut visit: impl FnMut(Node<'t>)) {
    let mut cursor = node.walk();
    let mut depth = 0usize;
    loop {
        let n = cursor.node();
        if is_token(n) {
            visit(n);
        } else if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if depth == 0 {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            cursor.goto_parent();
            depth -= 1;
        }
    }
}

/// The code's tokens: text (interned) and index by position.
struct Tokens<'a> {
    texts: Vec<String>,
    hashes: Vec<u64>,
    ids: FxHashMap<String, Sym>,
    by_key: FxHashMap<Key, (u32, Sym)>,
    hash_key: &'a HashKey,
    lang: Language,
}

impl<'a> Tokens<'a> {
    fn new(root: Node<'_>, code: &str, lang: Language, hash_key: &'a HashKey) -> Self {
        let lines: Vec<&str> = code.split('\n').collect();
        let mut t = Tokens {
            texts: Vec::new(),
            hashes: Vec::new(),
            ids: FxHashMap::default(),
            by_key: FxHashMap::default(),
            hash_key,
            lang,
        };
        let mut idx = 0u32;
        tokens_under(root, |n| {
            let k = key(n);
            let text = token_text(&lines, k);
            let sym = t.intern(text);
            t.by_key.insert(k, (idx, sym));
            idx += 1;
        });
        t
    }

    fn intern(&mut self, text: String) -> Sym {
        if let Some(&s) = self.ids.get(&text) {
            return s;
        }
        let s = self.texts.len() as Sym;
        self.hashes.push(self.hash_key.hash_str(&text));
        self.texts.push(text.clone());
        self.ids.insert(text, s);
        s
    }

    fn text(&self, s: Sym) -> &str {
        &self.texts[s as usize]
    }

    fn lookup(&self, node: Node<'_>) -> Result<(u32, Sym), Abort> {
        self.by_key.get(&key(node)).copied().ok_or(Abort)
    }

    /// `tree_to_variable_index` + lookups: the tokens under `node` whose text differs from
    /// their node type (so not keywords or punctuation).
    fn variables(&self, node: Node<'_>) -> Result<Vec<(u32, Sym)>, Abort> {
        let mut out = Vec::new();
        let mut missing = false;
        tokens_under(node, |n| match self.by_key.get(&key(n)) {
            Some(&(idx, sym)) => {
                if compat::kind(n, self.lang) != self.text(sym) {
                    out.push((idx, sym));
                }
            }
            None => missing = true,
        });
        if missing {
            Err(Abort)
        } else {
            Ok(out)
        }
    }

    /// `list(set(names))` in CPython's order.
    fn set_order(&self, names: &[Sym]) -> Vec<Sym> {
        pyrt::set_order(names, |s| self.hashes[s as usize])
    }
}

/// `index_to_code_token`: the lines sliced by the points' columns as character indexes.
fn token_text(lines: &[&str], (sr, sc, er, ec): Key) -> String {
    let line = |r: usize| lines.get(r).copied().unwrap_or("");
    if sr == er {
        return pyrt::char_slice(line(sr), sc, Some(ec)).to_string();
    }
    let mut s = pyrt::char_slice(line(sr), sc, None).to_string();
    for r in sr + 1..er {
        s.push_str(line(r));
    }
    s.push_str(pyrt::char_slice(line(er), 0, Some(ec)));
    s
}

/// The reference's walk raised: the code gets no data flow.
#[derive(Debug)]
struct Abort;

type States = FxHashMap<Sym, Vec<u32>>;

/// Which of a frame's state maps a child call reads and replaces.
#[derive(Clone, Copy)]
enum Mode {
    /// The frame's states (most calls).
    Thread,
    /// An if statement's running states (the condition and the consequence).
    Current,
    /// An if statement's alternative: starts from the states before the statement, its
    /// result is kept for the merge.
    Branch,
}

enum Step<'t> {
    Call(Node<'t>, Mode),
    /// Each variable of `left` comes from / is computed from each variable of `right`, one
    /// edge per pair (Java and C# declarators and assignments, for-each loops).
    Pairwise {
        left: Node<'t>,
        right: Node<'t>,
        rel: Rel,
    },
    /// Each variable of `left` is computed from all variables of `right` (Python
    /// assignments and for loops).
    AllRight {
        left: Node<'t>,
        right: Node<'t>,
    },
    /// Each variable of `name` is declared with no parent.
    Declare(Node<'t>),
    /// Each variable of the node is computed from each (`i++`).
    Increment(Node<'t>),
}

#[derive(Clone, Copy, PartialEq)]
enum Finish {
    Sort,
    /// Merge the branches' states; `tag` if an else branch exists (otherwise the states
    /// before the statement are a branch too).
    If {
        tag: bool,
    },
    /// Loops are walked twice; merge the duplicate edges.
    Loop,
}

struct Frame<'t> {
    steps: Vec<Step<'t>>,
    next: usize,
    finish: Finish,
    dfg: Vec<Entry>,
    states: States,
    current: States,
    others: Vec<States>,
    /// The mode of the call in flight.
    waiting: Mode,
}

/// What calling the walker on a node gives: a finished result or a frame to run.
enum Start<'t> {
    Done(Vec<Entry>, States),
    Frame(Box<Frame<'t>>),
}

/// `get_data_flow` followed by `normalize_dataflow`.
pub(crate) fn data_flow(
    tree: &Tree,
    code: &str,
    lang: Language,
    hash_key: &HashKey,
) -> Vec<NormFlow> {
    let root = tree.root_node();
    let tokens = Tokens::new(root, code, lang, hash_key);
    let mut dfg = walk(root, lang, &tokens).unwrap_or_default();
    dfg.sort_by_key(|d| d.idx);
    let mut used: FxHashSet<u32> = FxHashSet::default();
    for d in &dfg {
        if !d.idxs.is_empty() {
            used.insert(d.idx);
        }
        used.extend(d.idxs.iter().copied());
    }
    // Keep the edges that touch another token; merge those of the same token.
    let mut merged: Vec<Entry> = Vec::new();
    let mut at: FxHashMap<u32, usize> = FxHashMap::default();
    for d in dfg.into_iter().filter(|d| used.contains(&d.idx)) {
        match at.get(&d.idx) {
            None => {
                at.insert(d.idx, merged.len());
                merged.push(d);
            }
            Some(&i) => {
                let prev = &mut merged[i];
                let mut names = std::mem::take(&mut prev.names);
                names.extend_from_slice(&d.names);
                prev.names = tokens.set_order(&names);
                prev.idxs.extend_from_slice(&d.idxs);
                prev.name = d.name;
                prev.rel = d.rel;
            }
        }
    }
    normalize(&merged)
}

/// `normalize_dataflow`: variables renamed `var_0, var_1, …` in order of appearance.
fn normalize(dfg: &[Entry]) -> Vec<NormFlow> {
    let mut vars: FxHashMap<Sym, u32> = FxHashMap::default();
    let mut var = |s: Sym| {
        let n = vars.len() as u32;
        *vars.entry(s).or_insert(n)
    };
    dfg.iter()
        .map(|d| {
            let parents: Vec<u32> = d.names.iter().map(|&n| var(n)).collect();
            (var(d.name), d.rel, parents)
        })
        .collect()
}

/// How many of the reference's flows the candidate has (each candidate flow used once).
pub(crate) fn matches(candidate: &[NormFlow], reference: &[NormFlow]) -> u64 {
    let mut left: FxHashMap<&NormFlow, u32> = FxHashMap::default();
    for f in candidate {
        *left.entry(f).or_insert(0) += 1;
    }
    let mut n = 0;
    for f in reference {
        if let Some(c) = left.get_mut(f) {
            if *c > 0 {
                *c -= 1;
                n += 1;
            }
        }
    }
    n
}

/// The language's walker on the whole tree.
fn walk(root: Node<'_>, lang: Language, tokens: &Tokens<'_>) -> Result<Vec<Entry>, Abort> {
    let mut stack: Vec<Box<Frame<'_>>> = Vec::new();
    let mut result = match start(root, States::default(), lang, tokens)? {
        Start::Done(dfg, _) => return Ok(dfg),
        Start::Frame(f) => {
            stack.push(f);
            None
        }
    };
    loop {
        let Some(frame) = stack.last_mut() else {
            return Ok(result.map(|(dfg, _)| dfg).unwrap_or_default());
        };
        if let Some((dfg, states)) = result.take() {
            frame.dfg.extend(dfg);
            match frame.waiting {
                Mode::Thread => frame.states = states,
                Mode::Current => frame.current = states,
                Mode::Branch => frame.others.push(states),
            }
        }
        if frame.next == frame.steps.len() {
            let done = stack.pop().ok_or(Abort)?;
            result = Some(finish(*done, tokens));
            if stack.is_empty() {
                return Ok(result.map(|(dfg, _)| dfg).unwrap_or_default());
            }
            continue;
        }
        let step_index = frame.next;
        frame.next += 1;
        match frame.steps[step_index] {
            Step::Call(child, mode) => {
                // The callee works on a copy of the states; a Thread or Current call's
                // result replaces the map it was given, so that one can be moved.
                let given = match mode {
                    Mode::Thread => std::mem::take(&mut frame.states),
                    Mode::Current => std::mem::take(&mut frame.current),
                    Mode::Branch => frame.states.clone(),
                };
                frame.waiting = mode;
                match start(child, given, lang, tokens)? {
                    Start::Done(dfg, states) => result = Some((dfg, states)),
                    Start::Frame(f) => stack.push(f),
                }
            }
            Step::Pairwise { left, right, rel } => {
                let names = tokens.variables(left)?;
                let values = tokens.variables(right)?;
                for &(idx1, code1) in &names {
                    for &(idx2, code2) in &values {
                        frame.dfg.push(Entry {
                            name: code1,
                            idx: idx1,
                            rel,
                            names: vec![code2],
                            idxs: vec![idx2],
                        });
                    }
                    frame.states.insert(code1, vec![idx1]);
                }
            }
            Step::AllRight { left, right } => {
                let names = tokens.variables(left)?;
                let values = tokens.variables(right)?;
                let value_names: Vec<Sym> = values.iter().map(|v| v.1).collect();
                let value_idxs: Vec<u32> = values.iter().map(|v| v.0).collect();
                for &(idx1, code1) in &names {
                    frame.dfg.push(Entry {
                        name: code1,
                        idx: idx1,
                        rel: Rel::ComputedFrom,
                        names: value_names.clone(),
                        idxs: value_idxs.clone(),
                    });
                    frame.states.insert(code1, vec![idx1]);
                }
            }
            Step::Declare(name) => {
                for (idx, code) in tokens.variables(name)? {
                    frame.dfg.push(Entry {
                        name: code,
                        idx,
                        rel: Rel::ComesFrom,
                        names: Vec::new(),
                        idxs: Vec::new(),
                    });
                    frame.states.insert(code, vec![idx]);
                }
            }
            Step::Increment(node) => {
                let vars = tokens.variables(node)?;
                for &(idx1, code1) in &vars {
                    for &(idx2, code2) in &vars {
                        frame.dfg.push(Entry {
                            name: code1,
                            idx: idx1,
                            rel: Rel::ComputedFrom,
                            names: vec![code2],
                            idxs: vec![idx2],
                        });
                    }
                    frame.states.insert(code1, vec![idx1]);
                }
            }
        }
    }
}

/// The end of a walker call: sort its edges by token index (stably), merging states or
/// duplicate edges first where the reference does.
fn finish(frame: Frame<'_>, tokens: &Tokens<'_>) -> (Vec<Entry>, States) {
    let Frame {
        finish,
        mut dfg,
        states,
        current,
        mut others,
        ..
    } = frame;
    match finish {
        Finish::Sort => {
            dfg.sort_by_key(|d| d.idx);
            (dfg, states)
        }
        Finish::If { tag } => {
            others.push(current);
            if !tag {
                others.push(states);
            }
            let mut merged: States = States::default();
            for branch in others {
                for (k, v) in branch {
                    merged.entry(k).or_default().extend(v);
                }
            }
            for v in merged.values_mut() {
                v.sort_unstable();
                v.dedup();
            }
            dfg.sort_by_key(|d| d.idx);
            (dfg, merged)
        }
        Finish::Loop => {
            let mut out: Vec<Entry> = Vec::new();
            let mut at: FxHashMap<(Sym, u32, Rel), usize> = FxHashMap::default();
            for d in dfg {
                match at.get(&(d.name, d.idx, d.rel)) {
                    None => {
                        at.insert((d.name, d.idx, d.rel), out.len());
                        out.push(d);
                    }
                    Some(&i) => {
                        let prev = &mut out[i];
                        let mut names = std::mem::take(&mut prev.names);
                        names.extend_from_slice(&d.names);
                        prev.names = tokens.set_order(&names);
                        prev.idxs.extend_from_slice(&d.idxs);
                        prev.idxs.sort_unstable();
                        prev.idxs.dedup();
                    }
                }
            }
            out.sort_by_key(|d| d.idx);
            (out, states)
        }
    }
}

fn children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

fn field<'t>(node: Node<'t>, name: &str) -> Result<Node<'t>, Abort> {
    node.child_by_field_name(name).ok_or(Abort)
}

/// The walker's entry into `node` with `states`: a token is handled at once, anything else
/// becomes a frame whose steps follow the language's function.
fn start<'t>(
    node: Node<'t>,
    mut states: States,
    lang: Language,
    tokens: &Tokens<'_>,
) -> Result<Start<'t>, Abort> {
    if is_token(node) {
        let (idx, code) = tokens.lookup(node)?;
        let kind = compat::kind(node, lang);
        if kind == tokens.text(code) {
            return Ok(Start::Done(Vec::new(), states));
        }
        let entry = if let Some(prev) = states.get(&code) {
            Entry {
                name: code,
                idx,
                rel: Rel::ComesFrom,
                names: vec![code],
                idxs: prev.clone(),
            }
        } else {
            if kind == "identifier" {
                states.insert(code, vec![idx]);
            }
            Entry {
                name: code,
                idx,
                rel: Rel::ComesFrom,
                names: Vec::new(),
                idxs: Vec::new(),
            }
        };
        return Ok(Start::Done(vec![entry], states));
    }
    let plan = match lang {
        Language::Python => plan_python(node)?,
        Language::Java | Language::C | Language::Cpp => plan_java_like(node, lang)?,
    };
    let Some((steps, finish)) = plan else {
        // An assignment with no right-hand side (`x: int`).
        return Ok(Start::Done(Vec::new(), states));
    };
    let current = if matches!(finish, Finish::If { .. }) {
        states.clone()
    } else {
        States::default()
    };
    Ok(Start::Frame(Box::new(Frame {
        steps,
        next: 0,
        finish,
        dfg: Vec::new(),
        states,
        current,
        others: Vec::new(),
        waiting: Mode::Thread,
    })))
}

type Plan<'t> = Option<(Vec<Step<'t>>, Finish)>;

/// Python's left/right node lists of an assignment or a for loop: the comma-separated
/// elements when both sides have as many, else the two sides whole.
fn python_sides<'t>(left: Node<'t>, right: Node<'t>) -> (Vec<Node<'t>>, Vec<Node<'t>>) {
    let elements = |n: Node<'t>| -> Vec<Node<'t>> {
        children(n)
            .into_iter()
            .filter(|c| c.kind() != ",")
            .collect()
    };
    let (mut l, mut r) = (elements(left), elements(right));
    if l.len() != r.len() {
        l = vec![left];
        r = vec![right];
    }
    if l.is_empty() {
        l = vec![left];
    }
    if r.is_empty() {
        r = vec![right];
    }
    (l, r)
}

/// `DFG_python`.
fn plan_python(node: Node<'_>) -> Result<Plan<'_>, Abort> {
    let kids = children(node);
    let mut steps = Vec::new();
    let finish = match node.kind() {
        "default_parameter" => {
            let name = field(node, "name")?;
            match node.child_by_field_name("value") {
                None => steps.push(Step::Declare(name)),
                Some(value) => {
                    steps.push(Step::Call(value, Mode::Thread));
                    steps.push(Step::Pairwise {
                        left: name,
                        right: value,
                        rel: Rel::ComesFrom,
                    });
                }
            }
            Finish::Sort
        }
        "assignment" | "augmented_assignment" | "for_in_clause" => {
            let (lefts, rights) = if node.kind() == "for_in_clause" {
                let last = *kids.last().ok_or(Abort)?;
                (vec![field(node, "left")?], vec![last])
            } else {
                let Some(right) = node.child_by_field_name("right") else {
                    return Ok(None);
                };
                python_sides(field(node, "left")?, right)
            };
            steps.extend(rights.iter().map(|&r| Step::Call(r, Mode::Thread)));
            steps.extend(
                lefts
                    .iter()
                    .zip(&rights)
                    .map(|(&left, &right)| Step::AllRight { left, right }),
            );
            Finish::Sort
        }
        "if_statement" => {
            let mut tag = node.kind().contains("else");
            for &c in &kids {
                tag |= c.kind().contains("else");
                let mode = if matches!(c.kind(), "elif_clause" | "else_clause") {
                    Mode::Branch
                } else {
                    Mode::Current
                };
                steps.push(Step::Call(c, mode));
            }
            Finish::If { tag }
        }
        "for_statement" => {
            let (lefts, rights) = python_sides(field(node, "left")?, field(node, "right")?);
            let body = kids.last().copied().filter(|b| b.kind() == "block");
            for _ in 0..2 {
                steps.extend(rights.iter().map(|&r| Step::Call(r, Mode::Thread)));
                steps.extend(
                    lefts
                        .iter()
                        .zip(&rights)
                        .map(|(&left, &right)| Step::AllRight { left, right }),
                );
                if let Some(b) = body {
                    steps.push(Step::Call(b, Mode::Thread));
                }
            }
            Finish::Loop
        }
        "while_statement" => {
            for _ in 0..2 {
                steps.extend(kids.iter().map(|&c| Step::Call(c, Mode::Thread)));
            }
            Finish::Loop
        }
        _ => {
            // Comprehension clauses first.
            let (first, rest): (Vec<Node<'_>>, Vec<Node<'_>>) = kids
                .iter()
                .copied()
                .partition(|c| c.kind() == "for_in_clause");
            steps.extend(
                first
                    .into_iter()
                    .chain(rest)
                    .map(|c| Step::Call(c, Mode::Thread)),
            );
            Finish::Sort
        }
    };
    Ok(Some((steps, finish)))
}

/// `DFG_java`, and `DFG_csharp` for C and C++ (which differs in the node types and in
/// reading a declarator's name and value as its two children).
fn plan_java_like(node: Node<'_>, lang: Language) -> Result<Plan<'_>, Abort> {
    let java = lang == Language::Java;
    let kids = children(node);
    let mut steps = Vec::new();
    let finish;
    let kind = node.kind();
    let increment = if java {
        "update_expression"
    } else {
        "postfix_unary_expression"
    };
    let for_each = if java {
        "enhanced_for_statement"
    } else {
        "for_each_statement"
    };
    if kind == "variable_declarator" {
        let (name, value) = if java {
            (field(node, "name")?, node.child_by_field_name("value"))
        } else if kids.len() == 2 {
            (kids[0], Some(kids[1]))
        } else {
            (*kids.first().ok_or(Abort)?, None)
        };
        match value {
            None => steps.push(Step::Declare(name)),
            Some(value) => {
                steps.push(Step::Call(value, Mode::Thread));
                steps.push(Step::Pairwise {
                    left: name,
                    right: value,
                    rel: Rel::ComesFrom,
                });
            }
        }
        finish = Finish::Sort;
    } else if kind == "assignment_expression" {
        let (left, right) = (field(node, "left")?, field(node, "right")?);
        steps.push(Step::Call(right, Mode::Thread));
        steps.push(Step::Pairwise {
            left,
            right,
            rel: Rel::ComputedFrom,
        });
        finish = Finish::Sort;
    } else if kind == increment {
        steps.push(Step::Increment(node));
        finish = Finish::Sort;
    } else if matches!(kind, "if_statement" | "else") {
        let mut tag = kind.contains("else");
        let mut branching = false;
        for &c in &kids {
            tag |= c.kind().contains("else");
            let mode = if !matches!(c.kind(), "if_statement" | "else") && !branching {
                Mode::Current
            } else {
                branching = true;
                Mode::Branch
            };
            steps.push(Step::Call(c, mode));
        }
        finish = Finish::If { tag };
    } else if kind == "for_statement" {
        steps.extend(kids.iter().map(|&c| Step::Call(c, Mode::Thread)));
        // Then again everything after the initialising declaration.
        let mut after = false;
        for &c in &kids {
            if after {
                steps.push(Step::Call(c, Mode::Thread));
            } else if c.kind() == "local_variable_declaration" {
                after = true;
            }
        }
        finish = Finish::Loop;
    } else if kind == for_each {
        let (name_field, value_field) = if java {
            ("name", "value")
        } else {
            ("left", "right")
        };
        let value = field(node, value_field)?;
        let name = field(node, name_field)?;
        let body = field(node, "body")?;
        for _ in 0..2 {
            steps.push(Step::Call(value, Mode::Thread));
            steps.push(Step::Pairwise {
                left: name,
                right: value,
                rel: Rel::ComputedFrom,
            });
            steps.push(Step::Call(body, Mode::Thread));
        }
        finish = Finish::Loop;
    } else if kind == "while_statement" {
        for _ in 0..2 {
            steps.extend(kids.iter().map(|&c| Step::Call(c, Mode::Thread)));
        }
        finish = Finish::Loop;
    } else {
        steps.extend(kids.iter().map(|&c| Step::Call(c, Mode::Thread)));
        finish = Finish::Sort;
    }
    Ok(Some((steps, finish)))
}
