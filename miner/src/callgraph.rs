//! Turns a repository's resolved call graph into output rows: the call-graph `nodes` and
//! `edges` tables and the YABLoCo shape (DESIGN.md), with YABLoCo's definitions:
//!
//! - `dep_num`: the distinct callees of a function that are dependencies (a function of the
//!   repository, or a stdlib or third-party name), as the published benchmark counts its
//!   call graph's out-edges; the five category counts add up to it. Macro calls and
//!   unresolved calls are not dependencies (they stay in the edges table).
//! - `calls_num`: the distinct functions of the repository that call this one.
//! - the function's category: the first non-zero of project > same_package > same_file >
//!   stdlib, else `none`.
//! - the oracle `context`: each distinct in-repository callee except the function itself,
//!   in order of first call, as `// File name: {file}\n// Comment: {docstring}\n{code}`,
//!   joined by blank lines (the layout of the benchmark's context builder; a multi-line
//!   docstring continues with `//` on each line).

use std::collections::HashSet;
use std::sync::Arc;

use codemine_schemas::callgraph::{EdgeRow, NodeRow};
use codemine_schemas::yabloco::{YablocoMeta, YablocoRow};

use crate::extract::{FunctionKind, Lang};
use crate::function_id;
use crate::resolve::{Category, Edge, FnRef, SourceUnit};

/// The default `instruction`: the benchmark's original template, in English.
pub const DEFAULT_INSTRUCTION: &str = "Write a function in {language} with the signature \
{signature} and the following description: {docstring}. Use the following context:\n\n{context}";

/// The placeholders an instruction template may use.
pub const PLACEHOLDERS: [&str; 4] = ["language", "signature", "docstring", "context"];

/// Checks an instruction template: Python `str.format` syntax with only the four
/// placeholders (literal braces doubled), so that `instruction.format(**inputs)` works.
pub fn check_template(t: &str) -> Result<(), String> {
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
            }
            '{' => {
                let name: String = chars.by_ref().take_while(|c| *c != '}').collect();
                if !PLACEHOLDERS.contains(&name.as_str()) {
                    return Err(format!(
                        "unknown placeholder {{{name}}} (allowed: {{language}}, {{signature}}, \
                         {{docstring}}, {{context}}; write literal braces as {{{{ and }}}})"
                    ));
                }
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
            }
            '}' => return Err("a single '}' (write a literal brace as }})".into()),
            _ => {}
        }
    }
    Ok(())
}

/// A repository's call graph: its nodes (one per function, in unit and function order) and
/// edges, and what YABLoCo rows are built from.
#[derive(Default)]
pub struct Graph {
    pub nodes: Vec<NodeRow>,
    pub edges: Vec<EdgeRow>,
    /// Per node: the repository functions it depends on, in first-call order.
    context: Vec<Vec<FnRef>>,
    /// Per node: the YABLoCo `meta` counts.
    counts: Vec<[i64; 9]>,
    /// Per node: where it is in the units.
    refs: Vec<FnRef>,
}

/// Distinct dependencies of one function: a repository function, or a name outside.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Dep<'a> {
    Function(FnRef),
    Outside(Category, &'a str),
}

const COUNTED: [Category; 5] = [
    Category::SameFile,
    Category::SamePackage,
    Category::Project,
    Category::Stdlib,
    Category::ExternalBinaries,
];

/// The YABLoCo name of a language (`inputs.language`).
pub fn language_label(lang: Lang) -> &'static str {
    lang.def().display_name()
}

/// The YABLoCo signature: the code before the first `{` with `\r`, `\n` and `\t` removed,
/// as the benchmark's `extract_signature` does; for languages whose bodies are not braced
/// (Python, Ruby), the text before the body.
fn signature(lang: Lang, code: &str, signature: &str) -> String {
    let head = if lang.def().braced_body() {
        code.split('{').next().unwrap_or(code)
    } else {
        signature
    };
    head.chars()
        .filter(|c| !matches!(c, '\r' | '\n' | '\t'))
        .collect()
}

/// The benchmark's docstring normalisation: blank lines and leading indentation go.
fn docstring(doc: &str) -> String {
    let mut out = String::with_capacity(doc.len());
    for (i, line) in doc.trim_matches('\n').split('\n').enumerate() {
        let line = if i == 0 { line } else { line.trim_start() };
        if i > 0 && line.is_empty() {
            continue;
        }
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line);
    }
    out
}

/// The short repository name (`redis` for `redis/redis`) used in `file` and `repository`.
fn short_name(repo: &str) -> &str {
    repo.rsplit('/').next().unwrap_or(repo)
}

/// Builds the nodes and edges of one repository from its resolved call sites (in
/// caller order, as [`crate::resolve::resolve`] gives them).
pub fn build(repo: &str, units: &[SourceUnit], edges: &[Edge]) -> Graph {
    let ids: Vec<Vec<u64>> = units
        .iter()
        .map(|u| {
            u.functions
                .iter()
                .map(|f| function_id(repo, &u.path, &f.qualified_name, f.start_line))
                .collect()
        })
        .collect();
    let id = |r: FnRef| ids[r.file as usize][r.func as usize];

    // Exact sizes: a file of many small functions makes these the largest vectors of a
    // run, and growth by doubling would leave up to half of each unused.
    let n: usize = units.iter().map(|u| u.functions.len()).sum();
    let mut rows = Graph {
        nodes: Vec::with_capacity(n),
        edges: Vec::with_capacity(edges.len()),
        context: Vec::with_capacity(n),
        counts: Vec::with_capacity(n),
        refs: Vec::with_capacity(n),
    };
    let repository: Arc<str> = Arc::from(repo);
    for e in edges {
        rows.edges.push(EdgeRow {
            repository: Arc::clone(&repository),
            caller_id: id(e.caller),
            callee_id: e.callee.map(id),
            callee_name: e.name.clone(),
            category: e.category.as_str(),
            line: i64::from(e.line),
            candidates: i64::from(e.candidates),
            via_macro: e.via_macro.clone(),
        });
    }

    // The edges of each caller, in node order: `resolve` emits them so.
    debug_assert!(edges.windows(2).all(|w| w[0].caller <= w[1].caller));
    let groups = || edges.chunk_by(|a, b| a.caller == b.caller);
    // Distinct callers of every function: each caller counts once per callee.
    let first: Vec<usize> = units
        .iter()
        .scan(0, |acc, u| {
            let at = *acc;
            *acc += u.functions.len();
            Some(at)
        })
        .collect();
    let index = |r: FnRef| first[r.file as usize] + r.func as usize;
    let mut calls_num = vec![0i64; n];
    let mut callees: HashSet<FnRef> = HashSet::new();
    for group in groups() {
        callees.clear();
        for e in group {
            if let (true, Some(c)) = (e.category.is_dependency(), e.callee) {
                if callees.insert(c) {
                    calls_num[index(c)] += 1;
                }
            }
        }
    }

    let mut groups = groups().peekable();
    let mut seen: HashSet<Dep> = HashSet::new();
    let mut my_deps: Vec<(Dep, Category)> = Vec::new();
    for (fi, u) in units.iter().enumerate() {
        let path: Arc<str> = Arc::from(u.path.as_str());
        for (gi, f) in u.functions.iter().enumerate() {
            let me = FnRef {
                file: fi as u32,
                func: gi as u32,
            };
            // Distinct dependencies, in first-call order.
            seen.clear();
            my_deps.clear();
            let mine = match groups.peek() {
                Some(g) if g.first().is_some_and(|e| e.caller == me) => groups.next(),
                _ => None,
            };
            for e in mine.into_iter().flatten() {
                if !e.category.is_dependency() {
                    continue;
                }
                let dep = match e.callee {
                    Some(c) => Dep::Function(c),
                    None => Dep::Outside(e.category, e.name.as_str()),
                };
                if seen.insert(dep) {
                    my_deps.push((dep, e.category));
                }
            }
            let mut counts = [0i64; 5];
            for (_, cat) in &my_deps {
                if let Some(i) = COUNTED.iter().position(|c| c == cat) {
                    counts[i] += 1;
                }
            }
            let [same_file, same_package, project, stdlib, external] = counts;
            let dep_num: i64 = counts.iter().sum();
            let category = if project > 0 {
                "project"
            } else if same_package > 0 {
                "same_package"
            } else if same_file > 0 {
                "same_file"
            } else if stdlib > 0 {
                "stdlib"
            } else {
                "none"
            };
            let calls_num = calls_num[index(me)];
            let code_length = i64::from(f.end_line - f.start_line);
            let fid = id(me);
            rows.nodes.push(NodeRow {
                id: fid,
                repository: Arc::clone(&repository),
                path: Arc::clone(&path),
                name: f.name.clone(),
                qualified_name: f.qualified_name.clone(),
                language: u.lang.name(),
                kind: match f.kind {
                    FunctionKind::Function => "function",
                    FunctionKind::Method => "method",
                    FunctionKind::Constructor => "constructor",
                },
                start_line: i64::from(f.start_line),
                end_line: i64::from(f.end_line),
                docstring: f.docstring.clone(),
                code_length,
                last_commit: None,
                last_commit_sha: None,
                last_commit_bounded: None,
                test_cov_hits: None,
                covered_lines: None,
                coverable_lines: None,
                calls_num,
                dep_num,
                category,
                syntax_error: f.syntax_error,
                dropped_by: None,
                cluster_id: None,
                duplicate_of: None,
                license: None,
                contaminated_by: None,
            });

            rows.context.push(
                my_deps
                    .iter()
                    .filter_map(|(d, _)| match d {
                        // The function itself would give the answer away.
                        Dep::Function(c) if *c != me => Some(*c),
                        _ => None,
                    })
                    .collect(),
            );
            rows.counts.push([
                calls_num,
                dep_num,
                same_file,
                same_package,
                project,
                stdlib,
                external,
                code_length,
                i64::from(f.start_line),
            ]);
            rows.refs.push(me);
        }
    }
    rows
}

/// What every YABLoCo row of a repository shares.
pub struct YablocoShared {
    pub instruction: Arc<str>,
    /// The short repository name (`redis` for `redis/redis`).
    pub repository: Arc<str>,
}

impl YablocoShared {
    pub fn new(repo: &str, instruction: &str) -> Self {
        YablocoShared {
            instruction: Arc::from(instruction),
            repository: Arc::from(short_name(repo)),
        }
    }
}

impl Graph {
    /// The YABLoCo row of node `k`, its meta dates and coverage taken from the node.
    /// `last_commit` is the day in `zone`. The instruction and the short repository name
    /// ([`YablocoShared`]) are shared by every row.
    pub fn yabloco_row(
        &self,
        units: &[SourceUnit],
        k: usize,
        shared: &YablocoShared,
        zone: &codemine_filters::DateZone,
    ) -> YablocoRow {
        let node = &self.nodes[k];
        let short: &str = &shared.repository;
        let me = self.refs[k];
        let u = &units[me.file as usize];
        let f = &u.functions[me.func as usize];
        let mut context = String::new();
        for c in &self.context[k] {
            let cu = &units[c.file as usize];
            let cf = &cu.functions[c.func as usize];
            if !context.is_empty() {
                context.push_str("\n\n");
            }
            let doc = cf.docstring.as_deref().map(docstring).unwrap_or_default();
            context.push_str(&format!(
                "// File name: {short}/{}\n// Comment: {}\n{}",
                cu.path,
                doc.replace('\n', "\n//"),
                cf.code
            ));
        }
        YablocoRow {
            instruction: Arc::clone(&shared.instruction),
            language: language_label(u.lang),
            signature: signature(u.lang, &f.code, &f.signature),
            docstring: f.docstring.as_deref().map(docstring).unwrap_or_default(),
            context,
            outputs: f.code.clone(),
            meta: YablocoMeta {
                id: node.id,
                original_id: format!("{:016X}", node.id),
                repository: Arc::clone(&shared.repository),
                fname: f.qualified_name.clone(),
                file: format!("{short}/{}", u.path),
                counts: self.counts[k],
                last_commit: match (node.last_commit, node.last_commit_bounded) {
                    // A bound is not a date: YABLoCo has no column to say so.
                    (Some(t), Some(false)) => zone.format_ddmmyyyy(t),
                    _ => None,
                },
                test_cov_hits: node.test_cov_hits,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates() {
        assert!(check_template(DEFAULT_INSTRUCTION).is_ok());
        assert!(check_template("{{literal}} {context}").is_ok());
        assert!(check_template("{code}").is_err());
        assert!(check_template("a } b").is_err());
    }

    #[test]
    fn docstring_normalisation_follows_the_benchmark() {
        // The published row's raw docstring and its value in the dataset.
        let raw = "\n The following function.\n Any previous.\n\n For callback.\n ";
        assert_eq!(
            docstring(raw),
            " The following function.\nAny previous.\nFor callback."
        );
    }

    #[test]
    fn signatures_follow_extract_signature() {
        let code = "static int\nf(int a,\tint b)\n{\n  return a;\n}";
        assert_eq!(signature(Lang::C, code, ""), "static intf(int a,int b)");
    }
}
