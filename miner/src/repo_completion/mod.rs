//! Repository-level completion examples (RepoBench, CrossCodeEval, Long Code Arena's
//! project-level completion), built on the resolved call graph.
//!
//! A cursor sits at the first non-blank character of a line inside a function body (after
//! its signature); the example asks for the rest of that line (`gt`), given the file before
//! it (`prefix`) and after it (`suffix`). What the line uses comes from the resolvers
//! ([`uses`]): every call on it, and every imported name it mentions without calling it,
//! reaches a definition of this file, of another file, the standard library or third-party
//! code. That decides the line's kind:
//! - `cross_file_first`: it uses a definition of another file of the repository by a name
//!   (as written: `helper`, `utils.helper`) that no earlier line of this file used;
//!   `cross_file_random`: every such name was used on an earlier line;
//! - else `external` when it uses third-party code, else `stdlib` when it uses the
//!   standard library, else `in_file` (names of this file only, or none).
//!
//! Lines are left out when their kind is uncertain: a call or an imported name nothing
//! resolves, or a class of another file whose declaration's lines are unknown.
//! `gold_context` lists the other-file definitions of a cross-file line (functions and
//! methods with their code, classes without a constructor with their declaration) by path
//! and line. The draw is [`choose`]'s; retrieval is [`retrieve`]'s.

mod prose;
pub mod retrieve;
mod uses;

pub use uses::{probes, uses, Def, LineUses, Probes, Uses};

use std::collections::{BTreeMap, HashSet};

use codemine_schemas::repo_completion::{GoldItem, RepoFile, RepoRow, RetrievedItem};
use serde::{Deserialize, Serialize};

use crate::completion::line::SplitMix;
use crate::resolve::SourceUnit;
use uses::{last_name, owners};

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

/// The declaration of `name` in file `file`, when its lines are known: a class, else a
/// module-level value (its name and 1-based first and last line).
fn declaration_of<'u>(
    units: &'u [SourceUnit],
    file: u32,
    name: &str,
) -> Option<(&'u str, (u32, u32))> {
    let info = &units.get(file as usize)?.info;
    if let Some(c) = info
        .classes
        .iter()
        .find(|c| last_name(&c.name) == name && c.lines.0 > 0)
    {
        return Some((&c.name, c.lines));
    }
    info.constants
        .iter()
        .rev()
        .find(|(c, lines)| c == name && lines.0 > 0)
        .map(|(c, lines)| (c.as_str(), *lines))
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
    // A line inside a string or a comment (a docstring's doctest) is text, not code.
    let prose = prose::text_lines(text, unit.lang.name());
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
        if body[line as usize].is_none()
            || prose.get(line as usize).copied().unwrap_or(false)
            || !line_text(text, &starts, line).is_some_and(substantive)
        {
            continue;
        }
        counts.lines += 1;
        let u = u.cloned().unwrap_or_default();
        let unknown_class = u.cross_file.iter().any(|d| match d {
            Def::Declared(f, name) => declaration_of(units, *f, name).is_none(),
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
            Def::Declared(file, name) => {
                let (name, lines) = declaration_of(units, *file, name)?;
                let text = texts.get(*file as usize)?.as_deref()?;
                let starts = line_starts(text);
                let s = *starts.get(lines.0 as usize - 1)?;
                let e = starts.get(lines.1 as usize).map_or(text.len(), |&e| e - 1);
                Some(GoldItem {
                    path: units.get(*file as usize)?.path.clone(),
                    name: name.to_string(),
                    start_line: lines.0,
                    end_line: lines.1,
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
