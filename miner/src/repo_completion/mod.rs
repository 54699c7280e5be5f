//! Repository-level completion examples (RepoBench, CrossCodeEval, Long Code Arena's
//! project-level completion), built on the resolved call graph.
//!
//! A cursor sits at the first non-blank character of a line inside a function body; the
//! example asks for the rest of that line (`gt`), given the file before it (`prefix`) and
//! after it (`suffix`). What the line uses comes from the resolver: every call on it
//! reaches a function of this file, a function of another file, the standard library or
//! third-party code. That decides the line's kind:
//! - `cross_file_first`: it calls a function defined in another file of the repository by
//!   a name (as written: `helper`, `utils.helper`) that no earlier line of this file
//!   called; `cross_file_random`: every such name was called on an earlier line;
//! - else `external` when it calls third-party code, else `stdlib` when it calls the
//!   standard library, else `in_file` (calls of this file only, or no call).
//!
//! Lines are left out when their kind is uncertain: a call nothing resolves, or a call into
//! another file that reaches no function node (a class without a constructor, whose span
//! the call graph does not have). `gold_context` lists the other-file functions of a cross-
//! file line (path, qualified name, lines, code) by path and line. Retrieval is
//! [`retrieve`]'s.

pub mod retrieve;

use std::collections::{BTreeMap, HashSet};

use codemine_schemas::repo_completion::{GoldItem, RepoFile, RepoRow, RetrievedItem};
use serde::{Deserialize, Serialize};

use crate::completion::line::SplitMix;
use crate::extract::{CallKind, CallSite};
use crate::resolve::{Category, Edge, FnRef, Reach, SourceUnit};

/// The kinds of RepoBench and Long Code Arena, plus where a line's key name comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    CrossFileFirst,
    CrossFileRandom,
    InFile,
    Stdlib,
    External,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::CrossFileFirst,
        Kind::CrossFileRandom,
        Kind::InFile,
        Kind::Stdlib,
        Kind::External,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::CrossFileFirst => "cross_file_first",
            Kind::CrossFileRandom => "cross_file_random",
            Kind::InFile => "in_file",
            Kind::Stdlib => "stdlib",
            Kind::External => "external",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// `--emit repo-completion`'s settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Options {
    /// Examples per file, at most.
    pub lines_per_file: usize,
    /// Lines the prefix must have before the cursor's line.
    pub min_prefix_lines: usize,
    /// The kinds wanted and their shares (weights of the draw per example).
    pub kinds: Vec<(Kind, f64)>,
    /// Only lines whose last commit is at or after this time (Unix seconds).
    pub since: Option<i64>,
    /// Chunks per retriever.
    pub top_k: usize,
    /// Non-empty lines before the cursor that make the retrieval query.
    pub query_lines: usize,
    pub chunk_lines: usize,
    pub chunk_stride: usize,
    /// Also write the snapshot's files.
    pub snapshot: bool,
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            lines_per_file: 3,
            min_prefix_lines: 10,
            kinds: Kind::ALL.iter().map(|&k| (k, 1.0)).collect(),
            since: None,
            // CrossCodeEval's retrieval: 10-line windows every 5 lines, the last 10 lines
            // as the query, 5 chunks.
            top_k: 5,
            query_lines: 10,
            chunk_lines: 10,
            chunk_stride: 5,
            snapshot: false,
            seed: 42,
        }
    }
}

impl Options {
    /// Parses `--repo-completion-kinds`: `kind[=share],...`.
    pub fn parse_kinds(s: &str) -> Result<Vec<(Kind, f64)>, String> {
        let mut out: Vec<(Kind, f64)> = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, share) = match part.split_once('=') {
                Some((n, v)) => {
                    let v: f64 = v
                        .trim()
                        .parse()
                        .map_err(|_| format!("{part}: the share is not a number"))?;
                    (n.trim(), v)
                }
                None => (part, 1.0),
            };
            let kind = Kind::parse(name).ok_or_else(|| {
                format!(
                    "{name}: unknown kind (known: {})",
                    Kind::ALL.map(Kind::as_str).join(", ")
                )
            })?;
            if !(share.is_finite() && share > 0.0) {
                return Err(format!("{part}: a share must be a positive number"));
            }
            if out.iter().any(|(k, _)| *k == kind) {
                return Err(format!("{name}: named twice"));
            }
            out.push((kind, share));
        }
        if out.is_empty() {
            return Err("no kind named".into());
        }
        Ok(out)
    }
}

/// A definition of another file that a line uses.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Def {
    Function(FnRef),
    /// A class (struct, interface, ...) of that file, by its name as the line writes it;
    /// a class without a function node reached by a call or a name.
    Class(u32, String),
}

/// What a line uses, from the resolved calls on it and the imported names it mentions.
#[derive(Debug, Default, Clone)]
pub struct LineUses {
    /// Definitions of other files, in the order the line uses them.
    pub cross_file: Vec<Def>,
    /// The names the line uses them by (`InvalidURL` for an inherited constructor):
    /// "first use" is of a name, as RepoBench's is of an imported name.
    pub cross_file_names: Vec<String>,
    pub same_file: bool,
    pub stdlib: bool,
    pub external: bool,
    /// A call nothing resolves, or an imported name that nothing resolves.
    pub uncertain: bool,
}

impl LineUses {
    fn add(&mut self, file: usize, name: &str, reach: Reach, call: bool) {
        // `new Foo` and `Foo` are one name.
        let name = name.strip_prefix("new ").unwrap_or(name);
        match (reach.category, reach.callee, reach.file) {
            // A macro call stands for its expansion, whose calls are edges of their own.
            (Category::Macro, _, _) => {}
            // A name that is not a call may well be a local: only calls count.
            (Category::Unresolved, _, _) => self.uncertain |= call,
            (Category::Stdlib, _, _) => self.stdlib = true,
            (Category::ExternalBinaries, _, _) => self.external = true,
            (_, _, Some(f)) if f as usize != file => {
                let def = match reach.callee {
                    Some(c) => Def::Function(c),
                    None => Def::Class(f, last_name(name).to_string()),
                };
                if !self.cross_file.contains(&def) {
                    self.cross_file.push(def);
                }
                if !self.cross_file_names.iter().any(|n| n == name) {
                    self.cross_file_names.push(name.to_string());
                }
            }
            (_, _, Some(_)) => self.same_file = true,
            // A repository category without a file: cannot say which.
            (_, _, None) => self.uncertain |= call,
        }
    }
}

/// The last identifier of a name as written (`Foo` of `pkg.Foo`, `a::Foo`, `new Foo`).
fn last_name(name: &str) -> &str {
    name.rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .find(|w| !w.is_empty())
        .unwrap_or(name)
}

/// Per file (unit index): the uses of each line with a call or an imported name, by line.
pub type Uses = Vec<BTreeMap<u32, LineUses>>;

/// The per-line uses of a repository's edges (before the call graph consumes them) and of
/// its probes ([`probes`] and what the resolvers said of them).
pub fn uses(units: &[SourceUnit], edges: &[Edge], probes: &Probes, reached: &[Reach]) -> Uses {
    let mut out: Uses = vec![BTreeMap::new(); units.len()];
    for e in edges {
        let file = e.caller.file as usize;
        if let Some(map) = out.get_mut(file) {
            let reach = Reach {
                callee: e.callee,
                file: e.target_file,
                category: e.category,
            };
            map.entry(e.line)
                .or_default()
                .add(file, &e.name, reach, true);
        }
    }
    // The probes of one name (as a plain name, as a constructor) are adjacent: an imported
    // name that none of them resolves is code of elsewhere that the line's kind cannot
    // place.
    let all: Vec<(&(FnRef, CallSite), &Reach, u32)> = probes
        .sites
        .iter()
        .zip(reached)
        .zip(&probes.group)
        .map(|((s, r), g)| (s, r, *g))
        .collect();
    for group in all.chunk_by(|a, b| a.2 == b.2) {
        let ((caller, call), _, _) = group[0];
        let file = caller.file as usize;
        let Some(map) = out.get_mut(file) else {
            continue;
        };
        let u = map.entry(call.line).or_default();
        let mut found = false;
        for (_, reach, _) in group {
            if reach.category != Category::Unresolved {
                found = true;
                u.add(file, &call.text, **reach, false);
            }
        }
        u.uncertain |= !found;
    }
    out
}

/// The names a file's imports bind (what a probe may find): the alias, else the imported
/// member, else the module's first and last segments.
fn bound_names(info: &crate::extract::FileInfo) -> HashSet<&str> {
    let mut out = HashSet::new();
    for i in info.imports.iter().filter(|i| !i.wildcard && !i.reexport) {
        if let Some(n) = i.alias.as_deref().or(i.name.as_deref()) {
            out.insert(n);
            continue;
        }
        let parts: Vec<&str> = i
            .module
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|p| !p.is_empty())
            .collect();
        out.extend(parts.first().into_iter().chain(parts.last()).copied());
    }
    out
}

/// A chain of names on a line (`a.b.c`, `A::B`), and whether a call follows it.
struct Chain<'t> {
    parts: Vec<&'t str>,
    scoped: bool,
    called: bool,
}

/// The name chains of a line's code, outside string literals and line comments.
fn chains<'t>(line: &'t str, hash_comments: bool) -> Vec<Chain<'t>> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    while i < b.len() {
        let c = b[i];
        if c == b'"' || c == b'\'' || c == b'`' {
            // Skip the literal (to the line's end when it is not closed here).
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            continue;
        }
        if (c == b'#' && hash_comments) || line[i..].starts_with("//") {
            break;
        }
        if !word(c) || c.is_ascii_digit() || (i > 0 && (b[i - 1] == b'$' || word(b[i - 1]))) {
            i += 1;
            continue;
        }
        let mut parts = Vec::new();
        let mut scoped = false;
        loop {
            let s = i;
            while i < b.len() && word(b[i]) {
                i += 1;
            }
            parts.push(&line[s..i]);
            let rest = &line[i..];
            let sep = [".", "::", "->", "\\"]
                .into_iter()
                .find(|p| rest.starts_with(p) && rest[p.len()..].bytes().next().is_some_and(word));
            match sep {
                Some(p) => {
                    scoped |= p == "::" || p == "\\";
                    i += p.len();
                }
                None => break,
            }
        }
        let called = line[i..].trim_start().starts_with('(');
        out.push(Chain {
            parts,
            scoped,
            called,
        });
    }
    out
}

/// Call sites made of the imported names that the body lines of a repository's functions
/// mention without calling them, with the function each is in: a resolver answers them as
/// it would a call (a function passed as a value, a class named as a type). A name is
/// asked as a plain name and, in languages with `new`, as a constructor: `group` numbers
/// the sites of one name.
#[derive(Debug, Default)]
pub struct Probes {
    pub sites: Vec<(FnRef, CallSite)>,
    pub group: Vec<u32>,
}

/// The [`Probes`] of a repository.
pub fn probes(units: &[SourceUnit], texts: &[Option<String>]) -> Probes {
    let mut out = Probes::default();
    let mut group = 0u32;
    for (fi, u) in units.iter().enumerate() {
        let Some(Some(text)) = texts.get(fi) else {
            continue;
        };
        let bound = bound_names(&u.info);
        if bound.is_empty() {
            continue;
        }
        let lang = u.lang.name();
        let hash_comments = matches!(lang, "python" | "ruby" | "php");
        let constructors = matches!(lang, "java" | "cpp" | "php" | "javascript" | "typescript");
        let owner = owners(u, text);
        let starts = line_starts(text);
        for (l, func) in owner.iter().enumerate().skip(1) {
            let (Some(func), Some(line)) = (func, line_text(text, &starts, l as u32)) else {
                continue;
            };
            let caller = FnRef {
                file: fi as u32,
                func: *func,
            };
            for ch in chains(line, hash_comments) {
                if ch.called || !bound.contains(ch.parts[0]) {
                    continue;
                }
                let text = ch.parts.join(if ch.scoped { "::" } else { "." });
                let mut push = |kind, name: &str, text: String| {
                    let site = CallSite {
                        text,
                        name: name.to_string(),
                        kind,
                        line: l as u32,
                        args: 0,
                    };
                    out.sites.push((caller, site));
                    out.group.push(group);
                };
                match ch.parts.split_last() {
                    Some((name, [])) => {
                        push(CallKind::Plain, name, text.clone());
                        if constructors {
                            // As a constructor call writes it.
                            push(CallKind::New, name, format!("new {text}"));
                        }
                    }
                    Some((name, recv)) => {
                        let kind = if ch.scoped {
                            CallKind::Scoped(recv.join("::"))
                        } else {
                            CallKind::Member(recv.join("."))
                        };
                        push(kind, name, text);
                    }
                    None => {}
                }
                group += 1;
            }
        }
    }
    out
}

/// Per line of a file (index = 1-based line): the innermost function whose body has it.
fn owners(unit: &SourceUnit, text: &str) -> Vec<Option<u32>> {
    let n = line_starts(text).len();
    let mut owner: Vec<Option<u32>> = vec![None; n + 1];
    let mut order: Vec<usize> = (0..unit.functions.len()).collect();
    // Outer functions first, so inner ones overwrite their lines.
    order.sort_by_key(|&g| {
        let f = &unit.functions[g];
        std::cmp::Reverse(f.end_line.saturating_sub(f.start_line))
    });
    for g in order {
        let f = &unit.functions[g];
        // The body: after the signature (which may span lines of parameters).
        let first = f.signature_end_line.max(f.start_line).saturating_add(1);
        for l in first..=f.end_line {
            if let Some(o) = owner.get_mut(l as usize) {
                *o = Some(g as u32);
            }
        }
    }
    owner
}

/// Why candidate lines were left out, and what was chosen (stats.json).
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    pub files: usize,
    /// Lines inside function bodies with a word on them.
    pub lines: usize,
    /// Left out: a call of uncertain target on the line.
    pub uncertain: usize,
    /// Left out: fewer prefix lines than asked.
    pub short_prefix: usize,
    /// Left out: last changed before `--since` (or undated).
    pub before_since: usize,
    /// Candidates and chosen examples, per kind.
    pub candidates: BTreeMap<String, usize>,
    pub rows: BTreeMap<String, usize>,
    /// Gold definitions over the cross-file examples.
    pub gold_items: usize,
    pub snapshot_files: usize,
    /// Time in the step (workers' time summed over repositories).
    pub seconds: f64,
}

impl Counts {
    pub fn add(&mut self, o: &Counts) {
        self.files += o.files;
        self.lines += o.lines;
        self.uncertain += o.uncertain;
        self.short_prefix += o.short_prefix;
        self.before_since += o.before_since;
        for (k, v) in &o.candidates {
            *self.candidates.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.rows {
            *self.rows.entry(k.clone()).or_default() += v;
        }
        self.gold_items += o.gold_items;
        self.snapshot_files += o.snapshot_files;
        self.seconds += o.seconds;
    }
}

/// A candidate line of a file.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub line: u32,
    pub kind: Kind,
    pub cross_file: Vec<Def>,
}

/// The declaration of class `name` in file `file`, when its lines are known.
fn class_of<'u>(
    units: &'u [SourceUnit],
    file: u32,
    name: &str,
) -> Option<&'u crate::extract::ClassInfo> {
    units
        .get(file as usize)?
        .info
        .classes
        .iter()
        .find(|c| last_name(&c.name) == name && c.lines.0 > 0)
}

/// Byte offsets of the starts of a text's lines (line `n` starts at `starts[n - 1]`).
pub fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0usize];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    starts
}

fn line_text<'t>(text: &'t str, starts: &[usize], line: u32) -> Option<&'t str> {
    let i = (line as usize).checked_sub(1)?;
    let s = *starts.get(i)?;
    let e = starts.get(i + 1).map_or(text.len(), |&e| e - 1);
    text.get(s..e).map(|l| l.trim_end_matches('\r'))
}

/// Words that make a line trivial when they are all it has (`end`, `} else {`, `pass`).
const TRIVIAL: &[&str] = &[
    "begin", "break", "continue", "default", "do", "else", "end", "ensure", "finally", "pass",
    "rescue", "return", "then", "try",
];

/// Whether a line is worth completing: not a comment, and a word on it other than a block
/// keyword.
fn substantive(line: &str) -> bool {
    let t = line.trim();
    let comment = ["#", "//", "/*", "*", "\"\"\"", "'''", "=begin"]
        .iter()
        .any(|c| t.starts_with(c));
    !comment && retrieve::words(t).any(|w| !TRIVIAL.contains(&w))
}

/// The candidate lines of one file, in line order, with their kinds (every line inside a
/// function body; the caller filters by prefix length and date).
pub fn candidates(
    units: &[SourceUnit],
    unit: &SourceUnit,
    text: &str,
    uses: &BTreeMap<u32, LineUses>,
    min_prefix_lines: usize,
    counts: &mut Counts,
) -> Vec<Candidate> {
    let starts = line_starts(text);
    let body = owners(unit, text);
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for line in 1..=starts.len() as u32 {
        let u = uses.get(&line);
        let first = u.is_some_and(|u| {
            u.cross_file_names
                .iter()
                .any(|n| !seen.contains(n.as_str()))
        });
        if let Some(u) = u {
            seen.extend(u.cross_file_names.iter().map(String::as_str));
        }
        if body[line as usize].is_none() || !line_text(text, &starts, line).is_some_and(substantive)
        {
            continue;
        }
        counts.lines += 1;
        let u = u.cloned().unwrap_or_default();
        let unknown_class = u.cross_file.iter().any(|d| match d {
            Def::Class(f, name) => class_of(units, *f, name).is_none(),
            Def::Function(_) => false,
        });
        if u.uncertain || unknown_class {
            counts.uncertain += 1;
            continue;
        }
        if (line as usize - 1) < min_prefix_lines {
            counts.short_prefix += 1;
            continue;
        }
        let kind = if !u.cross_file.is_empty() {
            if first {
                Kind::CrossFileFirst
            } else {
                Kind::CrossFileRandom
            }
        } else if u.external {
            Kind::External
        } else if u.stdlib {
            Kind::Stdlib
        } else {
            Kind::InFile
        };
        out.push(Candidate {
            line,
            kind,
            cross_file: u.cross_file,
        });
    }
    out
}

/// Chooses up to `opts.lines_per_file` candidates: each draw picks a kind by its share
/// among the wanted kinds that still have candidates, then a candidate of that kind, with
/// a generator seeded by the seed and `key`. The result is in line order.
pub fn choose(cands: Vec<Candidate>, opts: &Options, key: &str) -> Vec<Candidate> {
    let mut pools: Vec<(f64, Vec<Candidate>)> = opts
        .kinds
        .iter()
        .map(|&(k, share)| {
            (
                share,
                cands.iter().filter(|c| c.kind == k).cloned().collect(),
            )
        })
        .collect();
    let mut rng = SplitMix(opts.seed ^ xxhash_rust::xxh3::xxh3_64(key.as_bytes()));
    let mut chosen = Vec::new();
    for _ in 0..opts.lines_per_file {
        let total: f64 = pools
            .iter()
            .filter(|(_, p)| !p.is_empty())
            .map(|(s, _)| s)
            .sum();
        if total <= 0.0 {
            break;
        }
        // A uniform draw in [0, total) from 53 bits.
        let mut x = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * total;
        let mut pick = None;
        for (i, (s, p)) in pools.iter().enumerate() {
            if p.is_empty() {
                continue;
            }
            pick = Some(i);
            if x < *s {
                break;
            }
            x -= s;
        }
        let Some(i) = pick else { break };
        let pool = &mut pools[i].1;
        let j = rng.below(pool.len());
        chosen.push(pool.swap_remove(j));
    }
    chosen.sort_by_key(|c| c.line);
    chosen
}

/// The id of an example: the file's key and the cursor's byte offset, 16 hex digits each.
pub fn example_id(file: &RepoFile, offset: usize) -> String {
    let key = format!("{}\0{}\0{}", file.repo, file.sha, file.path);
    format!(
        "{:016x}-{offset:016x}",
        xxhash_rust::xxh3::xxh3_64(key.as_bytes())
    )
}

/// A repository as the rows see it: its units, their texts, the retrieval index and its
/// chunks' texts.
pub struct RepoView<'a> {
    pub units: &'a [SourceUnit],
    pub texts: &'a [Option<String>],
    pub index: Option<&'a (retrieve::Index, Vec<&'a str>)>,
}

/// The row of a chosen line of unit `file_index`: text around the cursor, gold context
/// and retrieval.
pub fn row(
    repo: &RepoView<'_>,
    file: RepoFile,
    file_index: u32,
    cand: &Candidate,
    opts: &Options,
    scratch: Option<&mut retrieve::Scratch>,
) -> Option<RepoRow> {
    let (units, texts, index) = (repo.units, repo.texts, repo.index);
    let text = texts.get(file_index as usize)?.as_deref()?;
    let starts = line_starts(text);
    let i = (cand.line as usize).checked_sub(1)?;
    let line = line_text(text, &starts, cand.line)?;
    let indent = line.len() - line.trim_start().len();
    let cursor = starts[i] + indent;
    let next = starts.get(i + 1).copied().unwrap_or(text.len());
    let mut gold: Vec<GoldItem> = cand
        .cross_file
        .iter()
        .filter_map(|d| match d {
            Def::Function(r) => {
                let u = units.get(r.file as usize)?;
                let f = u.functions.get(r.func as usize)?;
                Some(GoldItem {
                    path: u.path.clone(),
                    name: f.qualified_name.clone(),
                    start_line: f.start_line,
                    end_line: f.end_line,
                    code: f.code.clone(),
                })
            }
            Def::Class(file, name) => {
                let c = class_of(units, *file, name)?;
                let text = texts.get(*file as usize)?.as_deref()?;
                let starts = line_starts(text);
                let s = *starts.get(c.lines.0 as usize - 1)?;
                let e = starts
                    .get(c.lines.1 as usize)
                    .map_or(text.len(), |&e| e - 1);
                Some(GoldItem {
                    path: units.get(*file as usize)?.path.clone(),
                    name: c.name.clone(),
                    start_line: c.lines.0,
                    end_line: c.lines.1,
                    code: text.get(s..e)?.to_string(),
                })
            }
        })
        .collect();
    gold.sort_by(|a, b| (&a.path, a.start_line, &a.name).cmp(&(&b.path, b.start_line, &b.name)));
    gold.dedup();
    let prefix = text.get(..cursor)?;
    let mut retrieved = Vec::new();
    if let (Some((index, codes)), Some(scratch)) = (index, scratch) {
        let q = retrieve::query(prefix, opts.query_lines);
        let (bm25, jaccard) = index.search(&q, file_index, opts.top_k, scratch);
        for (name, hits) in [("bm25", bm25), ("jaccard", jaccard)] {
            for (rank, hit) in hits.iter().enumerate() {
                let c = &index.chunks[hit.chunk];
                retrieved.push(RetrievedItem {
                    retriever: name,
                    rank: rank as u32 + 1,
                    path: units
                        .get(c.file as usize)
                        .map(|u| u.path.clone())
                        .unwrap_or_default(),
                    start_line: c.start_line,
                    end_line: c.end_line,
                    code: codes
                        .get(hit.chunk)
                        .copied()
                        .unwrap_or_default()
                        .to_string(),
                    score: hit.score,
                });
            }
        }
    }
    Some(RepoRow {
        id: example_id(&file, cursor),
        file,
        line: cand.line,
        prefix: prefix.to_string(),
        suffix: text.get(next..)?.to_string(),
        gt: line.trim().to_string(),
        kind: cand.kind.as_str(),
        gold,
        retrieved,
    })
}

/// The retrieval index of a repository: every file's chunks, files in path order.
pub fn index<'t>(
    units: &[SourceUnit],
    texts: &'t [Option<String>],
    opts: &Options,
) -> (retrieve::Index, Vec<&'t str>) {
    let mut order: Vec<usize> = (0..units.len()).collect();
    order.sort_by(|&a, &b| units[a].path.cmp(&units[b].path));
    let mut chunks = Vec::new();
    for fi in order {
        let Some(Some(text)) = texts.get(fi) else {
            continue;
        };
        for (s, e, code) in retrieve::chunk_lines(text, opts.chunk_lines, opts.chunk_stride) {
            chunks.push((
                retrieve::Chunk {
                    file: fi as u32,
                    start_line: s,
                    end_line: e,
                },
                code,
            ));
        }
    }
    let codes = chunks.iter().map(|(_, c)| *c).collect();
    (retrieve::Index::new(chunks), codes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_with_shares() {
        assert_eq!(
            Options::parse_kinds("cross_file_first=2, in_file"),
            Ok(vec![(Kind::CrossFileFirst, 2.0), (Kind::InFile, 1.0)])
        );
        assert!(Options::parse_kinds("nope").is_err());
        assert!(Options::parse_kinds("in_file=0").is_err());
        assert!(Options::parse_kinds("in_file,in_file").is_err());
    }

    fn cand(line: u32, kind: Kind) -> Candidate {
        Candidate {
            line,
            kind,
            cross_file: Vec::new(),
        }
    }

    #[test]
    fn choice_follows_the_wanted_kinds_and_the_seed() {
        let cands: Vec<Candidate> = (1..=40)
            .map(|l| {
                cand(
                    l,
                    if l % 2 == 0 {
                        Kind::InFile
                    } else {
                        Kind::Stdlib
                    },
                )
            })
            .collect();
        let opts = Options {
            lines_per_file: 5,
            kinds: vec![(Kind::InFile, 1.0)],
            ..Default::default()
        };
        let a = choose(cands.clone(), &opts, "r/a.py");
        assert_eq!(a.len(), 5);
        assert!(a.iter().all(|c| c.kind == Kind::InFile));
        assert!(a.windows(2).all(|w| w[0].line < w[1].line));
        let b = choose(cands.clone(), &opts, "r/a.py");
        assert_eq!(
            a.iter().map(|c| c.line).collect::<Vec<_>>(),
            b.iter().map(|c| c.line).collect::<Vec<_>>()
        );
        // Fewer candidates than asked: all of them.
        let few = choose(cands[..3].to_vec(), &opts, "r/a.py");
        assert_eq!(few.len(), 1);
    }

    #[test]
    fn a_line_is_the_rest_after_its_indentation() {
        let text = "a\n  bb = 1\nc\n";
        let starts = line_starts(text);
        assert_eq!(line_text(text, &starts, 2), Some("  bb = 1"));
        assert_eq!(line_text(text, &starts, 3), Some("c"));
        assert!(substantive("  x = 1"));
        assert!(!substantive("  # x = 1"));
        assert!(!substantive("  }"));
        assert!(!substantive("  end"));
        assert!(!substantive("} else {"));
        assert!(!substantive("    return;"));
        assert!(substantive("    return x;"));
    }
}
