//! Turns a repository's resolved call graph into output rows: the call-graph `nodes` and
//! `edges` tables and the YABLoCo shape (docs/design.md), with YABLoCo's definitions:
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

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arrow_array::RecordBatch;
use codemine_schemas::callgraph::{EdgeRow, EdgesTable, NodeRow, NodesTable};
use codemine_schemas::yabloco::{YablocoMeta, YablocoRow};
use codemine_schemas::{encode, ENCODE_BATCH_ROWS};

use crate::extract::Function;
use crate::function_id;
use crate::lang::Lang;
use crate::resolve::{Category, Edge, FnRef, SourceUnit};

/// Which definitions YABLoCo's counts (`dep_num`, the categories, `calls_num`, the
/// function's category and its context) follow (`--callgraph-compat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CallgraphCompat {
    /// codemine's (docs/callgraph.md): a call made by a macro's expansion is a dependency
    /// of the function that wrote the macro call.
    #[default]
    Codemine,
    /// The published YABLoCo tables': its pipeline asks clang's index for the call graph
    /// with `"macros": false`, so a call that a macro's expansion makes is neither a
    /// dependency of the function nor makes it a caller.
    Yabloco,
}

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

/// A repository's call graph: its nodes (one per function, in unit and function order),
/// its edges (encoded by [`build`]), and what YABLoCo rows are built from. The enrich steps
/// set the nodes' columns; then [`Graph::seal`] encodes the node rows.
#[derive(Default)]
pub struct Graph {
    pub nodes: Vec<NodeRow>,
    /// The rows of the nodes that are no functions (`SourceUnit::extra`: module code,
    /// lambdas), named already; written after the functions' rows, in no other table.
    pub extra_nodes: Vec<NodeRow>,
    edges: Vec<RecordBatch>,
    edge_count: usize,
    /// The repository functions each node depends on, in first-call order: node `k`'s
    /// are `context[context_end[k - 1]..context_end[k]]` (one vector for all, not one
    /// each: issue 22, item 5).
    context: Vec<FnRef>,
    context_end: Vec<usize>,
    /// Per node: the YABLoCo `meta` counts.
    counts: Vec<[u32; 9]>,
    /// Per node: where it is in the units.
    refs: Vec<FnRef>,
}

/// What is still read of a node once its row is encoded: its id and the facts of its
/// YABLoCo row.
#[derive(Debug, Clone, Copy)]
pub struct NodeFacts {
    pub id: u64,
    pub last_commit: Option<i64>,
    pub last_commit_bounded: Option<bool>,
    pub test_cov_hits: Option<i64>,
}

/// A call graph whose node and edge rows are Arrow batches ready for the staging writer.
/// Row structs cost several times their columns (a node row is 370 bytes before its
/// strings): a file of many small functions made them the largest part of a run's memory
/// (issue 22, item 5).
#[derive(Default)]
pub struct SealedGraph {
    /// Per node, in node order.
    pub facts: Vec<NodeFacts>,
    pub nodes: Vec<RecordBatch>,
    pub edges: Vec<RecordBatch>,
    pub edge_count: usize,
    /// Per node: its `covering_tests` (`mine --run-tests`), for its YABLoCo row.
    covering_tests: Vec<Option<Vec<Arc<str>>>>,
    context: Vec<FnRef>,
    context_end: Vec<usize>,
    counts: Vec<[u32; 9]>,
    refs: Vec<FnRef>,
}

impl Graph {
    /// Encodes the node rows once the enrich and filter steps have set them. Their names
    /// and docstrings are taken from `units` here (the rows leave them empty until then,
    /// so that they are not held twice).
    pub fn seal(self, units: &[SourceUnit]) -> Result<SealedGraph, codemine_schemas::Error> {
        let facts = self
            .nodes
            .iter()
            .map(|n| NodeFacts {
                id: n.id,
                last_commit: n.last_commit,
                last_commit_bounded: n.last_commit_bounded,
                test_cov_hits: n.test_cov_hits,
            })
            .collect();
        let covering_tests = self
            .nodes
            .iter()
            .map(|n| n.covering_tests.clone())
            .collect();
        let functions: Vec<&Function> = units.iter().flat_map(|u| &u.functions).collect();
        // Batches from the last rows back, the row vector shrunk after each: it is given
        // back while the batches grow instead of being held whole until the end.
        let mut rows = self.nodes;
        let mut nodes = Vec::new();
        while !rows.is_empty() {
            let at = rows.len().saturating_sub(ENCODE_BATCH_ROWS);
            let tail = rows.split_off(at);
            rows.shrink_to_fit();
            let named = tail.into_iter().zip(&functions[at..]).map(|(mut n, f)| {
                n.name.clone_from(&f.name);
                n.qualified_name.clone_from(&f.qualified_name);
                n.docstring.clone_from(&f.docstring);
                n
            });
            nodes.extend(encode::<NodesTable>(named, ENCODE_BATCH_ROWS)?);
        }
        nodes.reverse();
        nodes.extend(encode::<NodesTable>(self.extra_nodes, ENCODE_BATCH_ROWS)?);
        Ok(SealedGraph {
            facts,
            nodes,
            edges: self.edges,
            edge_count: self.edge_count,
            covering_tests,
            context: self.context,
            context_end: self.context_end,
            counts: self.counts,
            refs: self.refs,
        })
    }
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

/// The function's category from its YABLoCo counts: the first non-zero of project >
/// same_package > same_file > stdlib, else `none`.
fn category_of(counts: &[u32; 9]) -> &'static str {
    let [_, _, same_file, same_package, project, stdlib, ..] = *counts;
    if project > 0 {
        "project"
    } else if same_package > 0 {
        "same_package"
    } else if same_file > 0 {
        "same_file"
    } else if stdlib > 0 {
        "stdlib"
    } else {
        "none"
    }
}

/// Builds the nodes and edges of one repository from its resolved call sites (in
/// caller order, as [`crate::resolve::resolve`] gives them). The call sites are consumed
/// and their rows encoded before the node rows exist: a file of many small functions
/// holds its call sites in one shape at a time (issue 22, item 5).
pub fn build(
    repo: &str,
    units: &[SourceUnit],
    edges: Vec<Edge>,
    compat: CallgraphCompat,
) -> Result<Graph, codemine_schemas::Error> {
    let ids: Vec<Vec<u64>> = units
        .iter()
        .map(|u| {
            u.functions
                .iter()
                .chain(&u.extra.nodes)
                .map(|f| function_id(repo, &u.path, &f.qualified_name, f.start_line))
                .collect()
        })
        .collect();
    let id = |r: FnRef| ids[r.file as usize][r.func as usize];
    let is_extra = |r: FnRef| units[r.file as usize].is_extra(r.func);

    // Exact sizes: a file of many small functions makes these the largest vectors of a
    // run, and growth by doubling would leave up to half of each unused.
    let n: usize = units.iter().map(|u| u.functions.len()).sum();
    let mut graph = Graph {
        nodes: Vec::new(),
        extra_nodes: Vec::new(),
        edges: Vec::new(),
        edge_count: edges.len(),
        context: Vec::new(),
        context_end: Vec::with_capacity(n),
        counts: Vec::with_capacity(n),
        refs: Vec::with_capacity(n),
    };

    // The edges of each caller, in node order: `resolve` emits them so.
    debug_assert!(edges.windows(2).all(|w| w[0].caller <= w[1].caller));
    let groups = Groups::new(units, &edges);
    let index = |r: FnRef| groups.index(r);
    // Distinct callers of every function: each caller counts once per callee.
    let mut calls_num = vec![0u32; n];
    let mut callees: HashSet<FnRef> = HashSet::new();
    let mut mine: Vec<&Edge> = Vec::new();
    let functions = units.iter().enumerate().flat_map(|(fi, u)| {
        (0..u.functions.len() as u32).map(move |func| FnRef {
            file: fi as u32,
            func,
        })
    });
    // YABLoCo's definitions leave the calls of macro expansions out of the counts.
    let counted = |mine: &mut Vec<&Edge>| {
        if compat == CallgraphCompat::Yabloco {
            mine.retain(|e| e.via_macro.is_none());
        }
    };
    for me in functions {
        groups.function_edges(me, &mut mine);
        counted(&mut mine);
        callees.clear();
        for e in &mine {
            if let (true, Some(c)) = (e.category.is_dependency(), e.callee) {
                if !is_extra(c) && callees.insert(c) {
                    calls_num[index(c)] = calls_num[index(c)].saturating_add(1);
                }
            }
        }
    }

    // Each function's distinct dependencies, its counts and its context.
    let mut seen: HashSet<Dep> = HashSet::new();
    let mut my_deps: Vec<(Dep, Category)> = Vec::new();
    for (fi, u) in units.iter().enumerate() {
        for (gi, f) in u.functions.iter().enumerate() {
            let me = FnRef {
                file: fi as u32,
                func: gi as u32,
            };
            groups.function_edges(me, &mut mine);
            counted(&mut mine);
            let counts = dependencies(&mine, is_extra, &mut seen, &mut my_deps);
            graph
                .context
                .extend(my_deps.iter().filter_map(|(d, _)| match d {
                    // The function itself would give the answer away.
                    Dep::Function(c) if *c != me => Some(*c),
                    _ => None,
                }));
            graph.context_end.push(graph.context.len());
            graph
                .counts
                .push(node_counts(calls_num[index(me)], counts, f));
            graph.refs.push(me);
        }
    }
    graph.context.shrink_to_fit();

    // The extra nodes (module code, lambdas): their own calls, and the distinct nodes
    // calling each.
    let mut extra_callers: HashMap<FnRef, u32> = HashMap::new();
    for g in &groups.groups {
        callees.clear();
        for e in g.iter() {
            if let Some(c) = e.callee.filter(|c| is_extra(*c)) {
                if callees.insert(c) {
                    *extra_callers.entry(c).or_default() += 1;
                }
            }
        }
    }
    let repository: Arc<str> = Arc::from(repo);
    for (fi, u) in units.iter().enumerate() {
        let path: Arc<str> = Arc::from(u.path.as_str());
        for (k, f) in u.extra.nodes.iter().enumerate() {
            let me = FnRef {
                file: fi as u32,
                func: (u.functions.len() + k) as u32,
            };
            mine.clear();
            if let Some(&g) = groups.extra.get(&me) {
                mine.extend(groups.groups[g].iter());
            }
            let counts = dependencies(&mine, is_extra, &mut seen, &mut my_deps);
            let counts = node_counts(extra_callers.get(&me).copied().unwrap_or(0), counts, f);
            let mut row = node_row(id(me), &repository, &path, u.lang, f, &counts);
            row.name.clone_from(&f.name);
            row.qualified_name.clone_from(&f.qualified_name);
            graph.extra_nodes.push(row);
        }
    }
    drop(groups);
    drop(seen);
    drop(my_deps);
    drop(mine);

    let rows = edges.into_iter().map(|e| EdgeRow {
        repository: Arc::clone(&repository),
        caller_id: id(e.caller),
        callee_id: e.callee.map(id),
        callee_name: e.name,
        category: e.category.as_str(),
        line: i64::from(e.line),
        candidates: i64::from(e.candidates),
        via_macro: e.via_macro,
        via: e.via_flow.then_some("value_flow"),
    });
    graph.edges = encode::<EdgesTable>(rows, ENCODE_BATCH_ROWS)?;

    // Names and docstrings are filled in by `seal`: until then the units hold them.
    graph.nodes.reserve_exact(n);
    let mut k = 0;
    for u in units {
        let path: Arc<str> = Arc::from(u.path.as_str());
        for f in &u.functions {
            let r = graph.refs[k];
            graph.nodes.push(node_row(
                id(r),
                &repository,
                &path,
                u.lang,
                f,
                &graph.counts[k],
            ));
            k += 1;
        }
    }
    Ok(graph)
}

const NO_GROUP: u32 = u32::MAX;

/// The edges of each caller (`groups`, in node order), and which group is whose.
struct Groups<'e> {
    groups: Vec<&'e [Edge]>,
    /// Where each file's functions start in node order.
    first: Vec<usize>,
    /// Per function, in node order: its own group, or `NO_GROUP`.
    own: Vec<u32>,
    /// An extra node's group.
    extra: HashMap<FnRef, usize>,
    /// The groups of the lambdas written in a function.
    hosted: HashMap<FnRef, Vec<usize>>,
}

impl<'e> Groups<'e> {
    fn new(units: &[SourceUnit], edges: &'e [Edge]) -> Self {
        let first: Vec<usize> = units
            .iter()
            .scan(0, |acc, u| {
                let at = *acc;
                *acc += u.functions.len();
                Some(at)
            })
            .collect();
        let n = units.iter().map(|u| u.functions.len()).sum();
        let mut g = Groups {
            groups: edges.chunk_by(|a, b| a.caller == b.caller).collect(),
            first,
            own: vec![NO_GROUP; n],
            extra: HashMap::new(),
            hosted: HashMap::new(),
        };
        for (k, group) in g.groups.iter().enumerate() {
            let caller = group[0].caller;
            if !units[caller.file as usize].is_extra(caller.func) {
                let i = g.index(caller);
                g.own[i] = k as u32;
                continue;
            }
            g.extra.insert(caller, k);
            // YABLoCo's counts and context are of functions: a lambda's calls count for
            // the function written around it (its code holds them, as it did before
            // lambdas were nodes), the module's for none.
            if let Some(h) = host(units, caller) {
                g.hosted.entry(h).or_default().push(k);
            }
        }
        g
    }

    /// The node-order index of function `r`.
    fn index(&self, r: FnRef) -> usize {
        self.first[r.file as usize] + r.func as usize
    }

    /// A function's edges for YABLoCo: its own, with its lambdas' merged in.
    fn function_edges(&self, me: FnRef, out: &mut Vec<&'e Edge>) {
        out.clear();
        let own: &[Edge] = match self.own[self.index(me)] {
            NO_GROUP => &[],
            k => self.groups[k as usize],
        };
        let Some(ls) = self.hosted.get(&me) else {
            out.extend(own.iter());
            return;
        };
        let lambdas = || ls.iter().flat_map(|&k| self.groups[k].iter());
        // The lambdas' call sites go where the walk met them: after the function's call
        // sites of the same line and before its later ones (a lambda's calls follow the
        // call it is passed to); implicit calls stay last, as `resolve` puts them.
        let mut sites: Vec<&Edge> = lambdas().filter(|e| !e.implicit).collect();
        sites.sort_by_key(|e| e.line);
        let mut sites = sites.into_iter().peekable();
        for e in own.iter().filter(|e| !e.implicit) {
            while let Some(l) = sites.next_if(|l| l.line < e.line) {
                out.push(l);
            }
            out.push(e);
        }
        out.extend(sites);
        out.extend(own.iter().filter(|e| e.implicit));
        out.extend(lambdas().filter(|e| e.implicit));
    }
}

/// The function written around lambda node `r` (the innermost whose text holds it), for
/// YABLoCo's counts; none for the module node or a lambda outside functions.
fn host(units: &[SourceUnit], r: FnRef) -> Option<FnRef> {
    let u = &units[r.file as usize];
    let k = (r.func as usize).checked_sub(u.functions.len())?;
    let func = (*u.extra.hosts.get(k)?)?;
    Some(FnRef { file: r.file, func })
}

/// The distinct dependencies of a node's edges, in first-call order (into `deps`), and
/// their counts per counted category. An edge into a lambda or module node is no
/// dependency (as a call through a variable, it was unresolved before they were nodes).
fn dependencies<'e>(
    edges: &[&'e Edge],
    is_extra: impl Fn(FnRef) -> bool,
    seen: &mut HashSet<Dep<'e>>,
    deps: &mut Vec<(Dep<'e>, Category)>,
) -> [u32; 5] {
    seen.clear();
    deps.clear();
    for e in edges {
        if !e.category.is_dependency() || e.callee.is_some_and(&is_extra) {
            continue;
        }
        let dep = match e.callee {
            Some(c) => Dep::Function(c),
            None => Dep::Outside(e.category, e.name.as_str()),
        };
        if seen.insert(dep) {
            deps.push((dep, e.category));
        }
    }
    let mut counts = [0u32; 5];
    for (_, cat) in deps.iter() {
        if let Some(i) = COUNTED.iter().position(|c| c == cat) {
            counts[i] += 1;
        }
    }
    counts
}

/// A node's YABLoCo `meta` counts: calls_num, dep_num, the five categories, body length,
/// start line.
fn node_counts(calls_num: u32, counts: [u32; 5], f: &Function) -> [u32; 9] {
    let [same_file, same_package, project, stdlib, external] = counts;
    [
        calls_num,
        counts.iter().sum(),
        same_file,
        same_package,
        project,
        stdlib,
        external,
        f.end_line - f.start_line,
        f.start_line,
    ]
}

/// A node row without its name, qualified name and docstring (see [`Graph::seal`]); the
/// enrich and filter steps set the rest.
fn node_row(
    id: u64,
    repository: &Arc<str>,
    path: &Arc<str>,
    lang: Lang,
    f: &Function,
    counts: &[u32; 9],
) -> NodeRow {
    NodeRow {
        id,
        repository: Arc::clone(repository),
        path: Arc::clone(path),
        name: String::new(),
        qualified_name: String::new(),
        language: lang.name(),
        kind: f.kind.as_str(),
        start_line: i64::from(f.start_line),
        end_line: i64::from(f.end_line),
        docstring: None,
        code_length: i64::from(counts[7]),
        last_commit: None,
        last_commit_sha: None,
        last_commit_bounded: None,
        test_cov_hits: None,
        covered_lines: None,
        coverable_lines: None,
        calls_num: i64::from(counts[0]),
        dep_num: i64::from(counts[1]),
        category: category_of(counts),
        syntax_error: f.syntax_error,
        dropped_by: None,
        cluster_id: None,
        duplicate_of: None,
        license: None,
        contaminated_by: None,
        covering_tests: None,
    }
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

impl SealedGraph {
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
        let node = &self.facts[k];
        let short: &str = &shared.repository;
        let me = self.refs[k];
        let u = &units[me.file as usize];
        let f = &u.functions[me.func as usize];
        let mut context = String::new();
        let start = k.checked_sub(1).map_or(0, |p| self.context_end[p]);
        for c in &self.context[start..self.context_end[k]] {
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
                counts: self.counts[k].map(i64::from),
                last_commit: match (node.last_commit, node.last_commit_bounded) {
                    // A bound is not a date: YABLoCo has no column to say so.
                    (Some(t), Some(false)) => zone.format_ddmmyyyy(t),
                    _ => None,
                },
                test_cov_hits: node.test_cov_hits,
                covering_tests: self.covering_tests.get(k).cloned().flatten(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Registry;

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
