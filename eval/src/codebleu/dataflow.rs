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
//! - any error in the walk (in the reference, an exception such as a missing field, or a
//!   `KeyError` when a Python assignment pairs `a.b = "s"` element by element and reaches the
//!   leaves inside the string) leaves the code with no data flow at all;
//! - merged parent lists are `list(set(...))` of strings, whose order is that of a CPython
//!   set under the configured `PYTHONHASHSEED` (see [`super::pyrt::set_order`]); the
//!   normalised variable names, hence the matches, depend on it.
//!
//! Differences: the reference recurses (one Python frame per tree level) and so gives no
//! data flow for trees deeper than Python's recursion limit (about 990 levels, depending on
//! the caller's stack); this walk has no depth limit. It does have a limit on work
//! ([`WALK_LIMIT`] node visits), which only nested loops reach since each loop is walked
//! twice.

use std::borrow::Cow;

use super::compat;
use super::pyrt::{self, FxHashMap, FxHashSet, HashKey};
use super::tree::Flat;
use super::Language;

/// Interned token text.
type Sym = u32;

/// A node: its index in the flattened tree.
type Ix = u32;

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
    names: List,
    idxs: List,
}

/// A list of numbers kept inline while it has at most three (most edges have one parent),
/// sparing an allocation per edge.
#[derive(Clone, Debug, Default)]
struct List {
    len: u32,
    inline: [u32; 3],
    heap: Vec<u32>,
}

impl List {
    fn one(x: u32) -> Self {
        List {
            len: 1,
            inline: [x, 0, 0],
            heap: Vec::new(),
        }
    }

    fn from_slice(xs: &[u32]) -> Self {
        let mut l = List::default();
        l.extend(xs);
        l
    }

    fn as_slice(&self) -> &[u32] {
        if self.len as usize <= self.inline.len() {
            &self.inline[..self.len as usize]
        } else {
            &self.heap
        }
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn extend(&mut self, xs: &[u32]) {
        let len = self.len as usize;
        if len + xs.len() <= self.inline.len() {
            self.inline[len..len + xs.len()].copy_from_slice(xs);
        } else {
            if len <= self.inline.len() {
                self.heap.clear();
                self.heap.extend_from_slice(&self.inline[..len]);
            }
            self.heap.extend_from_slice(xs);
        }
        self.len += xs.len() as u32;
    }

    /// Sorted, without duplicates (`sorted(set(...))` of numbers).
    fn sort_dedup(&mut self) {
        let mut v = self.as_slice().to_vec();
        v.sort_unstable();
        v.dedup();
        *self = List::from_slice(&v);
    }
}

/// A normalised data flow: (variable, relation, parent variables), names replaced by their
/// order of first appearance in the code's data flow.
pub(crate) type NormFlow = (u32, Rel, Vec<u32>);

/// (start row, start column, end row, end column), columns in bytes.
type Key = (usize, usize, usize, usize);

/// The code's tree with its tokens: what the walker reads.
struct Code<'a, 't> {
    flat: &'a Flat<'t>,
    lang: Language,
    /// Each token node's (token index, text), as looked up by its position (so a later token
    /// at the same position stands for both).
    token: Vec<Option<(u32, Sym)>>,
    by_key: FxHashMap<Key, (u32, Sym)>,
    texts: Vec<String>,
    hashes: Vec<u64>,
}

impl<'a, 't> Code<'a, 't> {
    fn new(flat: &'a Flat<'t>, code: &str, lang: Language, hash_key: &HashKey) -> Self {
        let lines: Vec<pyrt::CharLine<'_>> = code.split('\n').map(pyrt::CharLine::new).collect();
        let mut c = Code {
            flat,
            lang,
            token: vec![None; flat.nodes.len()],
            by_key: FxHashMap::default(),
            texts: Vec::new(),
            hashes: Vec::new(),
        };
        let mut ids: FxHashMap<String, Sym> = FxHashMap::default();
        let mut by_key: FxHashMap<Key, (u32, Sym)> = FxHashMap::default();
        let mut tokens: Vec<(Ix, Key)> = Vec::new();
        c.tokens_under(0, |i| tokens.push((i, key(flat, i))));
        for (idx, &(_, k)) in tokens.iter().enumerate() {
            let text = token_text(&lines, k);
            let sym = match ids.get(text.as_ref()) {
                Some(&s) => s,
                None => {
                    let s = c.texts.len() as Sym;
                    let text = text.into_owned();
                    c.hashes.push(hash_key.hash_str(&text));
                    c.texts.push(text.clone());
                    ids.insert(text, s);
                    s
                }
            };
            by_key.insert(k, (idx as u32, sym));
        }
        for (i, k) in tokens {
            c.token[i as usize] = by_key.get(&k).copied();
        }
        c.by_key = by_key;
        c
    }

    /// `index_to_code[(start, end)]` for node `i`. The walker can reach leaves that are not
    /// tokens (inside a string literal, when a Python assignment pairs the elements of its
    /// sides): the reference then raises `KeyError`, unless another token has the same
    /// position.
    fn lookup(&self, i: Ix) -> Result<(u32, Sym), Abort> {
        match self.token[i as usize] {
            Some(t) => Ok(t),
            None => self
                .by_key
                .get(&key(self.flat, i))
                .copied()
                .ok_or(Abort::Raised),
        }
    }

    fn kind(&self, i: Ix) -> &'t str {
        self.flat.get(i).kind
    }

    /// What the reference treats as a token: a leaf, or a whole string or character
    /// literal, but not a comment.
    fn is_token(&self, i: Ix) -> bool {
        let n = self.flat.get(i);
        (n.child_count == 0 || matches!(n.kind, "string_literal" | "string" | "character_literal"))
            && n.kind != "comment"
    }

    /// The type the package's grammar gave the token (see [`super::compat`]).
    fn token_kind(&self, i: Ix) -> &'t str {
        compat::kind(self.flat, i, self.lang)
    }

    /// The tokens under node `i` in order (`tree_to_token_index`).
    fn tokens_under(&self, i: Ix, mut visit: impl FnMut(Ix)) {
        let end = self.flat.get(i).end;
        let mut j = i;
        while j < end {
            if self.is_token(j) {
                visit(j);
                j = self.flat.get(j).end;
            } else {
                j += 1;
            }
        }
    }

    fn text(&self, s: Sym) -> &str {
        &self.texts[s as usize]
    }

    /// `tree_to_variable_index` + lookups: the tokens under node `i` whose text differs
    /// from their type (so not keywords or punctuation).
    fn variables(&self, i: Ix) -> Result<Vec<(u32, Sym)>, Abort> {
        let mut out = Vec::new();
        let mut missing = false;
        self.tokens_under(i, |j| match self.lookup(j) {
            Ok((idx, sym)) => {
                if self.token_kind(j) != self.text(sym) {
                    out.push((idx, sym));
                }
            }
            Err(_) => missing = true,
        });
        if missing {
            Err(Abort::Raised)
        } else {
            Ok(out)
        }
    }

    /// `list(set(names))` in CPython's order.
    fn set_order(&self, names: &[Sym]) -> Vec<Sym> {
        pyrt::set_order(names, |s| self.hashes[s as usize])
    }

    fn children(&self, i: Ix) -> Vec<Ix> {
        self.flat.children(i).collect()
    }

    fn field(&self, i: Ix, name: &str) -> Result<Ix, Abort> {
        self.flat.field(i, name).ok_or(Abort::Raised)
    }
}

/// Node `i`'s (start row, start column, end row, end column).
fn key(flat: &Flat<'_>, i: Ix) -> Key {
    let node = flat.get(i).node;
    let (s, e) = (node.start_position(), node.end_position());
    (s.row, s.column, e.row, e.column)
}

/// `index_to_code_token`: the lines sliced by the points' columns as character indexes.
fn token_text<'c>(lines: &[pyrt::CharLine<'c>], (sr, sc, er, ec): Key) -> Cow<'c, str> {
    let empty = pyrt::CharLine::new("");
    let line = |r: usize| lines.get(r).unwrap_or(&empty);
    if sr == er {
        return Cow::Borrowed(line(sr).slice(sc, Some(ec)));
    }
    let mut s = line(sr).slice(sc, None).to_string();
    for r in sr + 1..er {
        s.push_str(line(r).text());
    }
    s.push_str(line(er).slice(0, Some(ec)));
    Cow::Owned(s)
}

/// Why the walk stopped: the code gets no data flow.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Abort {
    /// The reference's walk raises here (a missing field or token).
    Raised,
    /// More than [`WALK_LIMIT`] node visits.
    Limit,
}

type States = FxHashMap<Sym, List>;

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

enum Step {
    Call(Ix, Mode),
    /// Each variable of `left` comes from / is computed from each variable of `right`, one
    /// edge per pair (Java and C# declarators and assignments, for-each loops).
    Pairwise {
        left: Ix,
        right: Ix,
        rel: Rel,
    },
    /// Each variable of `left` is computed from all variables of `right` (Python
    /// assignments and for loops).
    AllRight {
        left: Ix,
        right: Ix,
    },
    /// Each variable of `name` is declared with no parent.
    Declare(Ix),
    /// Each variable of the node is computed from each (`i++`).
    Increment(Ix),
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

#[derive(Default)]
struct Frame {
    steps: Vec<Step>,
    next: usize,
    finish: Option<Finish>,
    /// Where this call's edges start in the walk's edge list (a call's edges are the list's
    /// tail while it runs).
    start: usize,
    /// Whether its edges are in token order so far, and the last one's token: the reference
    /// sorts at the end of every call, which is quadratic on deep trees unless most sorts
    /// can be skipped.
    sorted: bool,
    last: u32,
    states: States,
    current: States,
    others: Vec<States>,
    /// The mode of the call in flight.
    waiting: Option<Mode>,
}

impl Frame {
    /// Notes edges from token `first` to token `last` appended in order.
    fn appended(&mut self, first: u32, last: u32) {
        if first < self.last {
            self.sorted = false;
        }
        self.last = self.last.max(last);
    }
}

/// What calling the walker on a node gives: a token is handled at once (its edge added to
/// the caller's list), anything else needs a frame.
enum Start {
    Done(States),
    Frame,
}

/// A code's normalised data flow.
pub(crate) struct DataFlow {
    pub(crate) flows: Vec<NormFlow>,
    /// The walk hit [`WALK_LIMIT`] (the flows are then empty).
    pub(crate) gave_up: bool,
}

/// `get_data_flow` followed by `normalize_dataflow`.
pub(crate) fn data_flow(
    flat: &Flat<'_>,
    code: &str,
    lang: Language,
    hash_key: &HashKey,
) -> DataFlow {
    let tokens = Code::new(flat, code, lang, hash_key);
    let walked = walk(&tokens);
    let gave_up = walked.as_ref().err() == Some(&Abort::Limit);
    let mut dfg = walked.unwrap_or_default();
    dfg.sort_by_key(|d| d.idx);
    let mut used: FxHashSet<u32> = FxHashSet::default();
    for d in &dfg {
        if !d.idxs.is_empty() {
            used.insert(d.idx);
        }
        used.extend(d.idxs.as_slice().iter().copied());
    }
    // Keep the edges that touch another token; merge those of the same token (the last
    // one's name and relation win).
    let merged = merge_by(
        dfg.into_iter().filter(|d| used.contains(&d.idx)),
        &tokens,
        |d| d.idx,
        |prev, d| {
            prev.name = d.name;
            prev.rel = d.rel;
        },
    );
    DataFlow {
        flows: normalize(&merged),
        gave_up,
    }
}

/// Merges the entries that share a key, in first-seen order: a repeat's parent names join
/// the first's (in the package's set order), its parent indexes are appended, then
/// `finish(first, repeat)` runs.
fn merge_by<K: std::hash::Hash + Eq>(
    entries: impl IntoIterator<Item = Entry>,
    code: &Code<'_, '_>,
    key: impl Fn(&Entry) -> K,
    mut finish: impl FnMut(&mut Entry, &Entry),
) -> Vec<Entry> {
    let mut merged: Vec<Entry> = Vec::new();
    let mut at: FxHashMap<K, usize> = FxHashMap::default();
    for d in entries {
        match at.get(&key(&d)) {
            None => {
                at.insert(key(&d), merged.len());
                merged.push(d);
            }
            Some(&i) => {
                let prev = &mut merged[i];
                let mut names = prev.names.as_slice().to_vec();
                names.extend_from_slice(d.names.as_slice());
                prev.names = List::from_slice(&code.set_order(&names));
                prev.idxs.extend(d.idxs.as_slice());
                finish(prev, &d);
            }
        }
    }
    merged
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
            let parents: Vec<u32> = d.names.as_slice().iter().map(|&n| var(n)).collect();
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

/// How many node visits the walk may make before giving up on the code's data flow. The
/// walk goes through each loop twice, so nested loops cost 2^depth: 18 nested `while`s take
/// seconds here and minutes in the reference (which has no limit and would finish).
const WALK_LIMIT: usize = 1 << 22;

/// The language's walker on the whole tree.
fn walk(code: &Code<'_, '_>) -> Result<Vec<Entry>, Abort> {
    let mut visits = 0usize;
    let mut out: Vec<Entry> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    // Finished frames, kept for their buffers.
    let mut pool: Vec<Frame> = Vec::new();
    match start(0, States::default(), code, &mut out, &mut stack, &mut pool)? {
        Start::Done(_) => return Ok(out),
        Start::Frame => {}
    }
    // The states a finished call hands back to the frame below it.
    let mut result: Option<States> = None;
    loop {
        let depth = stack.len();
        let Some(frame) = stack.last_mut() else {
            return Ok(out);
        };
        if let Some(states) = result.take() {
            match frame.waiting.take() {
                Some(Mode::Thread) | None => frame.states = states,
                Some(Mode::Current) => frame.current = states,
                Some(Mode::Branch) => frame.others.push(states),
            }
        }
        if frame.next == frame.steps.len() {
            let mut done = stack.pop().ok_or(Abort::Raised)?;
            let states = finish(&mut done, code, &mut out);
            if let (Some(below), Some(first), Some(last)) =
                (stack.last_mut(), out.get(done.start), out.last())
            {
                below.appended(first.idx, last.idx);
            }
            result = Some(states);
            pool.push(done);
            continue;
        }
        let step = frame.next;
        frame.next += 1;
        let from = out.len();
        match frame.steps[step] {
            Step::Call(child, mode) => {
                visits += 1;
                if visits > WALK_LIMIT {
                    return Err(Abort::Limit);
                }
                // The callee works on a copy of the states; a Thread or Current call's
                // result replaces the map it was given, so that one can be moved.
                let given = match mode {
                    Mode::Thread => std::mem::take(&mut frame.states),
                    Mode::Current => std::mem::take(&mut frame.current),
                    Mode::Branch => frame.states.clone(),
                };
                frame.waiting = Some(mode);
                if let Start::Done(states) =
                    start(child, given, code, &mut out, &mut stack, &mut pool)?
                {
                    result = Some(states);
                }
            }
            Step::Pairwise { left, right, rel } => {
                let names = code.variables(left)?;
                let values = code.variables(right)?;
                for &(idx1, code1) in &names {
                    for &(idx2, code2) in &values {
                        out.push(Entry {
                            name: code1,
                            idx: idx1,
                            rel,
                            names: List::one(code2),
                            idxs: List::one(idx2),
                        });
                    }
                    frame.states.insert(code1, List::one(idx1));
                }
            }
            Step::AllRight { left, right } => {
                let names = code.variables(left)?;
                let values = code.variables(right)?;
                let value_names: Vec<Sym> = values.iter().map(|v| v.1).collect();
                let value_idxs: Vec<u32> = values.iter().map(|v| v.0).collect();
                for &(idx1, code1) in &names {
                    out.push(Entry {
                        name: code1,
                        idx: idx1,
                        rel: Rel::ComputedFrom,
                        names: List::from_slice(&value_names),
                        idxs: List::from_slice(&value_idxs),
                    });
                    frame.states.insert(code1, List::one(idx1));
                }
            }
            Step::Declare(name) => {
                for (idx, sym) in code.variables(name)? {
                    out.push(Entry {
                        name: sym,
                        idx,
                        rel: Rel::ComesFrom,
                        names: List::default(),
                        idxs: List::default(),
                    });
                    frame.states.insert(sym, List::one(idx));
                }
            }
            Step::Increment(node) => {
                let vars = code.variables(node)?;
                for &(idx1, code1) in &vars {
                    for &(idx2, code2) in &vars {
                        out.push(Entry {
                            name: code1,
                            idx: idx1,
                            rel: Rel::ComputedFrom,
                            names: List::one(code2),
                            idxs: List::one(idx2),
                        });
                    }
                    frame.states.insert(code1, List::one(idx1));
                }
            }
        }
        // Edges this step added itself (a token's, or the steps that make edges), unless it
        // started a call that is still running.
        if stack.len() == depth {
            if let Some(frame) = stack.last_mut() {
                for e in &out[from..] {
                    frame.appended(e.idx, e.idx);
                }
            }
        }
    }
}

/// The end of a walker call, whose edges are `out[frame.start..]`: they are sorted by token
/// index (stably), after merging states or duplicate edges where the reference does; gives
/// the states it returns.
fn finish(frame: &mut Frame, code: &Code<'_, '_>, out: &mut Vec<Entry>) -> States {
    let states = std::mem::take(&mut frame.states);
    let start = frame.start;
    match frame.finish.take() {
        Some(Finish::Sort) | None => {
            if !frame.sorted {
                out[start..].sort_by_key(|d| d.idx);
            }
            states
        }
        Some(Finish::If { tag }) => {
            let mut others = std::mem::take(&mut frame.others);
            others.push(std::mem::take(&mut frame.current));
            if !tag {
                others.push(states);
            }
            let mut merged: States = States::default();
            for branch in others.drain(..) {
                for (k, v) in branch {
                    merged.entry(k).or_default().extend(v.as_slice());
                }
            }
            frame.others = others;
            for v in merged.values_mut() {
                v.sort_dedup();
            }
            if !frame.sorted {
                out[start..].sort_by_key(|d| d.idx);
            }
            merged
        }
        Some(Finish::Loop) => {
            let mut merged = merge_by(
                out.drain(start..),
                code,
                |d| (d.name, d.idx, d.rel),
                |prev, _| prev.idxs.sort_dedup(),
            );
            merged.sort_by_key(|d| d.idx);
            out.extend(merged);
            states
        }
    }
}

/// The walker's entry into `node` with `states`: a token's edge goes to `out` at once;
/// anything else gets a frame (from `pool`) on `stack` whose steps follow the language's
/// function.
fn start(
    node: Ix,
    mut states: States,
    code: &Code<'_, '_>,
    out: &mut Vec<Entry>,
    stack: &mut Vec<Frame>,
    pool: &mut Vec<Frame>,
) -> Result<Start, Abort> {
    if code.is_token(node) {
        let (idx, sym) = code.lookup(node)?;
        let kind = code.token_kind(node);
        if kind == code.text(sym) {
            return Ok(Start::Done(states));
        }
        let entry = if let Some(prev) = states.get(&sym) {
            Entry {
                name: sym,
                idx,
                rel: Rel::ComesFrom,
                names: List::one(sym),
                idxs: prev.clone(),
            }
        } else {
            if kind == "identifier" {
                states.insert(sym, List::one(idx));
            }
            Entry {
                name: sym,
                idx,
                rel: Rel::ComesFrom,
                names: List::default(),
                idxs: List::default(),
            }
        };
        out.push(entry);
        return Ok(Start::Done(states));
    }
    let mut frame = pool.pop().unwrap_or_default();
    frame.steps.clear();
    frame.next = 0;
    frame.start = out.len();
    frame.sorted = true;
    frame.last = 0;
    frame.others.clear();
    frame.waiting = None;
    let finish = match code.lang {
        Language::Python => plan_python(node, code, &mut frame.steps)?,
        Language::Java | Language::C | Language::Cpp => {
            plan_java_like(node, code, &mut frame.steps)?
        }
    };
    let Some(finish) = finish else {
        // An assignment with no right-hand side (`x: int`).
        pool.push(frame);
        return Ok(Start::Done(states));
    };
    frame.current = if matches!(finish, Finish::If { .. }) {
        states.clone()
    } else {
        States::default()
    };
    frame.states = states;
    frame.finish = Some(finish);
    stack.push(frame);
    Ok(Start::Frame)
}

/// Python's left/right node lists of an assignment or a for loop: the comma-separated
/// elements when both sides have as many, else the two sides whole.
fn python_sides(left: Ix, right: Ix, code: &Code<'_, '_>) -> (Vec<Ix>, Vec<Ix>) {
    let elements = |n: Ix| -> Vec<Ix> {
        code.flat
            .children(n)
            .filter(|&c| code.kind(c) != ",")
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

/// A name declared without a value, or given one: the value's own flow is threaded first,
/// then the name comes from it.
fn declare_or_assign(steps: &mut Vec<Step>, name: Ix, value: Option<Ix>) {
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
}

/// `DFG_python`.
fn plan_python(
    node: Ix,
    code: &Code<'_, '_>,
    steps: &mut Vec<Step>,
) -> Result<Option<Finish>, Abort> {
    let kids = code.children(node);
    let finish = match code.kind(node) {
        "default_parameter" => {
            let name = code.field(node, "name")?;
            declare_or_assign(steps, name, code.flat.field(node, "value"));
            Finish::Sort
        }
        "assignment" | "augmented_assignment" | "for_in_clause" => {
            let (lefts, rights) = if code.kind(node) == "for_in_clause" {
                let last = *kids.last().ok_or(Abort::Raised)?;
                (vec![code.field(node, "left")?], vec![last])
            } else {
                let Some(right) = code.flat.field(node, "right") else {
                    return Ok(None);
                };
                python_sides(code.field(node, "left")?, right, code)
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
            let mut tag = code.kind(node).contains("else");
            for &c in &kids {
                tag |= code.kind(c).contains("else");
                let mode = if matches!(code.kind(c), "elif_clause" | "else_clause") {
                    Mode::Branch
                } else {
                    Mode::Current
                };
                steps.push(Step::Call(c, mode));
            }
            Finish::If { tag }
        }
        "for_statement" => {
            let (lefts, rights) =
                python_sides(code.field(node, "left")?, code.field(node, "right")?, code);
            let body = kids.last().copied().filter(|&b| code.kind(b) == "block");
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
            let (first, rest): (Vec<Ix>, Vec<Ix>) = kids
                .iter()
                .copied()
                .partition(|&c| code.kind(c) == "for_in_clause");
            steps.extend(
                first
                    .into_iter()
                    .chain(rest)
                    .map(|c| Step::Call(c, Mode::Thread)),
            );
            Finish::Sort
        }
    };
    Ok(Some(finish))
}

/// `DFG_java`, and `DFG_csharp` for C and C++ (which differs in the node types and in
/// reading a declarator's name and value as its two children).
fn plan_java_like(
    node: Ix,
    code: &Code<'_, '_>,
    steps: &mut Vec<Step>,
) -> Result<Option<Finish>, Abort> {
    let java = code.lang == Language::Java;
    let kids = code.children(node);
    let finish;
    let kind = code.kind(node);
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
            (code.field(node, "name")?, code.flat.field(node, "value"))
        } else if kids.len() == 2 {
            (kids[0], Some(kids[1]))
        } else {
            (*kids.first().ok_or(Abort::Raised)?, None)
        };
        declare_or_assign(steps, name, value);
        finish = Finish::Sort;
    } else if kind == "assignment_expression" {
        let (left, right) = (code.field(node, "left")?, code.field(node, "right")?);
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
            tag |= code.kind(c).contains("else");
            let mode = if !matches!(code.kind(c), "if_statement" | "else") && !branching {
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
            } else if code.kind(c) == "local_variable_declaration" {
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
        let value = code.field(node, value_field)?;
        let name = code.field(node, name_field)?;
        let body = code.field(node, "body")?;
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
    Ok(Some(finish))
}
