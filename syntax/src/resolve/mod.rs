//! The resolve stage: turns the call sites of a repository's functions into call-graph
//! edges, each with a dependency category (docs/design.md, "YABLoCo shape"), using the whole
//! repository's symbol table. Each language brings its [`Resolver`] (through its
//! [`Language`] definition, in its folder of the language registry); this module is the
//! grammar-agnostic core that turns their decisions into edges, categories and counts. It
//! names no language: [`language`] says what the core asks of one, and the languages
//! implement it (they depend on this module, never the reverse).
//!
//! Every call site becomes an edge. A call that reaches a function of the repository has
//! its callee; calls into the standard library or third-party code have a category but no
//! callee; function-like macros of the repository are [`Category::Macro`]; what cannot be
//! resolved is [`Category::Unresolved`], with the name as written. When several definitions
//! fit equally well, the first by (path, line) is taken and the edge is counted as
//! ambiguous, so the result never depends on thread count or input order.
//!
//! A macro call is also followed into its expansion: each function its body calls (macros
//! within macros too) becomes an edge from the caller, marked with the macro (`via_macro`),
//! because that is the call the compiled code makes (`#define xfree(p) util_free(p)`).

pub mod language;

use std::collections::BTreeMap;

use crate::extract::{CallSite, FileInfo, Function};
pub use language::{Lang, Language};

/// The dependency category of a call edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Stdlib,
    SameFile,
    SamePackage,
    Project,
    ExternalBinaries,
    /// A function-like macro of the repository (C, C++): not a function edge.
    Macro,
    /// Not resolved: a call through a pointer or an expression, or a name found nowhere.
    Unresolved,
}

impl Category {
    pub const ALL: [Category; 7] = [
        Category::Stdlib,
        Category::SameFile,
        Category::SamePackage,
        Category::Project,
        Category::ExternalBinaries,
        Category::Macro,
        Category::Unresolved,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Stdlib => "stdlib",
            Category::SameFile => "same_file",
            Category::SamePackage => "same_package",
            Category::Project => "project",
            Category::ExternalBinaries => "external_binaries",
            Category::Macro => "macro",
            Category::Unresolved => "unresolved",
        }
    }

    /// Whether the edge counts as a dependency (`dep_num` and the five YABLoCo counts).
    pub fn is_dependency(self) -> bool {
        !matches!(self, Category::Macro | Category::Unresolved)
    }
}

/// The parsed files of one repository, as the resolve stage sees them.
pub struct SourceUnit {
    pub path: String,
    pub lang: Lang,
    pub info: FileInfo,
    pub functions: Vec<Function>,
    /// Call-graph nodes that are no function rows: a Python module's top-level code and
    /// its lambdas ([`Language::code_nodes`]). A [`FnRef`] whose `func` is
    /// `functions.len() + k` is `extra.nodes[k]`.
    pub extra: CodeNodes,
}

/// The call-graph nodes of a file that are no functions ([`SourceUnit::extra`]).
#[derive(Debug, Default)]
pub struct CodeNodes {
    pub nodes: Vec<Function>,
    /// Per node, the function written around it (an index into the file's functions): a
    /// lambda's calls count for that function in YABLoCo's counts.
    pub hosts: Vec<Option<u32>>,
}

impl SourceUnit {
    /// The function or extra node `func` ([`SourceUnit::extra`]).
    pub fn node(&self, func: u32) -> &Function {
        let k = func as usize;
        match self.functions.get(k) {
            Some(f) => f,
            None => &self.extra.nodes[k - self.functions.len()],
        }
    }

    /// Whether `func` is one of [`SourceUnit::extra`]'s nodes rather than a function.
    pub fn is_extra(&self, func: u32) -> bool {
        func as usize >= self.functions.len()
    }

    /// Functions, then extra nodes, each with its index.
    pub fn nodes(&self) -> impl Iterator<Item = (u32, &Function)> {
        self.functions
            .iter()
            .chain(&self.extra.nodes)
            .enumerate()
            .map(|(k, f)| (k as u32, f))
    }
}

/// A function of the repository: indices into the units and their functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FnRef {
    pub file: u32,
    pub func: u32,
}

/// What a name denotes in the module-based resolvers (Python, JavaScript and TypeScript).
#[derive(Debug, Clone, Copy)]
pub enum Sym<'u> {
    Function(FnRef),
    Class(u32, &'u crate::extract::ClassInfo),
    /// A module object (`import m`, a namespace import, `require` of a whole module).
    Module(u32),
    Stdlib,
    External,
}

/// One call site turned into an edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    pub caller: FnRef,
    pub callee: Option<FnRef>,
    /// The callee as written at the call site.
    pub name: String,
    pub category: Category,
    pub line: u32,
    /// How many definitions fitted equally well (more than 1: ambiguous, the first by
    /// path and line was taken).
    pub candidates: u32,
    /// For a call that a macro's expansion makes (C, C++): the macro called at the site.
    /// The macro call itself is an edge of category `macro`; each call in its expansion
    /// is an edge of its own, at the same line.
    pub via_macro: Option<String>,
    /// The file the call reaches, when it is code of the repository (also for a class
    /// without a function node, which has no callee).
    pub target_file: Option<u32>,
    /// Found only by a value-flow analysis (Python), not by the names at the call site.
    pub via_flow: bool,
    /// A call that no call site spells ([`Resolver::implicit_calls`]); a caller's come
    /// after its call sites' edges.
    pub implicit: bool,
}

/// Counts of one repository's resolution, per language.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ResolveCounts {
    pub calls: usize,
    /// Call sites with a category other than `unresolved`.
    pub resolved: usize,
    /// Call sites whose callee is a function of the repository.
    pub to_repository: usize,
    pub ambiguous: usize,
    #[serde(deserialize_with = "codemine_schemas::intern::de_map")]
    pub by_category: BTreeMap<&'static str, usize>,
    /// Edges found only by value flow (Python; a site's first edge counts among the
    /// call sites above, its further callees only here), and how far that analysis went: its graph
    /// nodes and worklist steps, values dropped at the per-node bound, repositories stopped
    /// by the step bound (`codemine-lang`'s `python/flow.rs`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub value_flow: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flow_nodes: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flow_steps: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flow_truncated: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flow_step_limit: usize,
    /// Call-graph nodes that are no functions ([`SourceUnit::extra`]): module code, lambdas.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub module_nodes: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lambda_nodes: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// How far a resolver's value-flow analysis went on one repository.
#[derive(Debug, Clone, Copy, Default)]
pub struct FlowCounts {
    pub flow_nodes: usize,
    pub flow_steps: usize,
    pub flow_truncated: usize,
    pub flow_step_limit: usize,
}

impl ResolveCounts {
    pub fn add(&mut self, o: &ResolveCounts) {
        self.calls += o.calls;
        self.resolved += o.resolved;
        self.to_repository += o.to_repository;
        self.ambiguous += o.ambiguous;
        for (k, v) in &o.by_category {
            *self.by_category.entry(k).or_default() += v;
        }
        self.value_flow += o.value_flow;
        self.flow_nodes += o.flow_nodes;
        self.flow_steps += o.flow_steps;
        self.flow_truncated += o.flow_truncated;
        self.flow_step_limit += o.flow_step_limit;
        self.module_nodes += o.module_nodes;
        self.lambda_nodes += o.lambda_nodes;
    }

    fn count(&mut self, e: &Edge) {
        self.calls += 1;
        self.resolved += usize::from(e.category != Category::Unresolved);
        self.to_repository += usize::from(e.callee.is_some());
        self.ambiguous += usize::from(e.candidates > 1);
        *self.by_category.entry(e.category.as_str()).or_default() += 1;
        self.value_flow += usize::from(e.via_flow);
    }
}

/// One language's (or language family's) name resolution over a repository: built once
/// per repository from all its units, then asked about each call site of its languages.
pub trait Resolver {
    /// What the call site `call` of the function `caller` reaches.
    fn resolve(&self, caller: FnRef, call: &CallSite) -> Target;

    /// What a name that a line mentions without calling it reaches: as a call would, or a
    /// module-level value of the repository ([`Target::RepoFile`] of its file) where the
    /// language records them (Python's `FileInfo::constants`).
    fn resolve_name(&self, caller: FnRef, call: &CallSite) -> Target {
        self.resolve(caller, call)
    }

    /// For a call to a macro (what [`Resolver::resolve`] called [`Target::Macro`]): the
    /// calls its expansion makes, each with its target.
    fn expand(&self, _caller: FnRef, _macro_name: &str) -> Vec<(String, Target)> {
        Vec::new()
    }

    /// Functions of the repository that a value-flow analysis finds the call site may
    /// reach (Python); each one that the name-based answer is not becomes an edge of its
    /// own, marked [`Edge::via_flow`].
    fn flow_targets(&self, _caller: FnRef, _call: &CallSite) -> Vec<FnRef> {
        Vec::new()
    }

    /// Calls of `caller` that no call site spells, found by value flow (Python: `for`
    /// calls `__iter__`, `with` calls `__enter__`, `@d` calls `d`): (name, line, callee).
    fn implicit_calls(&self, _caller: FnRef) -> Vec<(String, u32, FnRef)> {
        Vec::new()
    }

    /// How far the value-flow analysis went (counted in stats.json).
    fn flow_counts(&self) -> FlowCounts {
        FlowCounts::default()
    }
}

/// What a resolver decided for one call site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A function of the repository; the number of equally good candidates.
    Function(FnRef, u32),
    /// Code of the repository that is not a function node (a class without an explicit
    /// constructor): the category comes from its file.
    RepoFile(u32),
    Stdlib,
    External,
    Macro,
    Unresolved,
}

/// The edges of a repository, in caller order then call-site order.
pub fn resolve(units: &[SourceUnit]) -> (Vec<Edge>, BTreeMap<&'static str, ResolveCounts>) {
    resolve_with(units, &[])
}

/// [`resolve`] with the project files that languages' resolvers read (path and text, see
/// [`Language::project_files`]).
pub fn resolve_with(
    units: &[SourceUnit],
    files: &[(String, String)],
) -> (Vec<Edge>, BTreeMap<&'static str, ResolveCounts>) {
    let (edges, counts, _) = resolve_with_probes(units, files, &[]);
    (edges, counts)
}

/// What the resolvers reach from a repository's call sites.
pub type Resolved = (Vec<Edge>, BTreeMap<&'static str, ResolveCounts>, Vec<Reach>);

/// [`resolve_with`], and with the same resolvers (built once: Python's value flow is
/// solved when its resolver is built) names that are not call sites, resolved as if they
/// were (`probes`: the function they are in and a call site made of the name), for the
/// uses of a line that no call shows (a function passed as a value, a class named in an
/// annotation). Probes expand no macro and add no edge.
pub fn resolve_with_probes(
    units: &[SourceUnit],
    files: &[(String, String)],
    probes: &[(FnRef, CallSite)],
) -> Resolved {
    // One edge per call site (macro expansions add a few): sized once, as a file of many
    // functions makes this one of the largest vectors of a run.
    let sites: usize = units
        .iter()
        .flat_map(|u| u.functions.iter().chain(&u.extra.nodes))
        .map(|f| f.calls.len())
        .sum();
    let mut edges = Vec::with_capacity(sites);
    let (resolvers, by_lang) = resolvers(units, files);
    for (fi, unit) in units.iter().enumerate() {
        let resolver = by_lang.get(&unit.lang).map(|&i| &resolvers[i]);
        for (gi, f) in unit.nodes() {
            let caller = FnRef {
                file: fi as u32,
                func: gi,
            };
            // An edge of this caller to what `target` says; the markers are set below.
            let edge = |target: Target, name: String, line: u32| {
                let (callee, candidates, category) = classify(units, fi, target);
                Edge {
                    caller,
                    callee,
                    name,
                    category,
                    line,
                    candidates,
                    via_macro: None,
                    target_file: target_file(target),
                    via_flow: false,
                    implicit: false,
                }
            };
            for call in &f.calls {
                let mut target = resolver.map_or(Target::Unresolved, |r| r.resolve(caller, call));
                let mut more = resolver.map_or_else(Vec::new, |r| r.flow_targets(caller, call));
                more.retain(|m| !matches!(target, Target::Function(r, _) if r == *m));
                // A site the names leave unresolved takes the first function the values reach.
                let first_by_flow = target == Target::Unresolved && !more.is_empty();
                if first_by_flow {
                    target = Target::Function(more.remove(0), 1);
                }
                edges.push(Edge {
                    via_flow: first_by_flow,
                    ..edge(target, call.text.clone(), call.line)
                });
                for m in more {
                    edges.push(Edge {
                        via_flow: true,
                        ..edge(Target::Function(m, 1), call.text.clone(), call.line)
                    });
                }
                if let (Target::Macro, Some(r)) = (target, resolver) {
                    for (name, t) in r.expand(caller, &call.name) {
                        edges.push(Edge {
                            via_macro: Some(call.name.clone()),
                            ..edge(t, name, call.line)
                        });
                    }
                }
            }
            // Implicit calls: counted as value-flow edges, not as call sites.
            for (name, line, callee) in resolver.map_or_else(Vec::new, |r| r.implicit_calls(caller))
            {
                edges.push(Edge {
                    via_flow: true,
                    implicit: true,
                    ..edge(Target::Function(callee, 1), name, line)
                });
            }
        }
    }
    let mut counts: BTreeMap<&'static str, ResolveCounts> = BTreeMap::new();
    let mut prev: Option<&Edge> = None;
    for e in &edges {
        let lang = units[e.caller.file as usize].lang.name();
        let c = counts.entry(lang).or_default();
        // A site's further value-flow callees, and implicit calls, are edges, not call sites.
        let extra = e.implicit
            || e.via_flow
                && prev
                    .is_some_and(|p| p.caller == e.caller && p.line == e.line && p.name == e.name);
        if extra {
            c.value_flow += 1;
        } else {
            c.count(e);
        }
        prev = Some(e);
    }
    for u in units.iter().filter(|u| !u.extra.nodes.is_empty()) {
        let c = counts.entry(u.lang.name()).or_default();
        for f in &u.extra.nodes {
            match f.kind {
                crate::extract::FunctionKind::Module => c.module_nodes += 1,
                _ => c.lambda_nodes += 1,
            }
        }
    }
    for (lang, i) in &by_lang {
        let f = resolvers[*i].flow_counts();
        if f.flow_nodes > 0 {
            let c = counts.entry(lang.name()).or_default();
            c.flow_nodes += f.flow_nodes;
            c.flow_steps += f.flow_steps;
            c.flow_truncated += f.flow_truncated;
            c.flow_step_limit += f.flow_step_limit;
        }
    }
    let reached = probes
        .iter()
        .map(|(caller, call)| {
            let fi = caller.file as usize;
            let resolver = units
                .get(fi)
                .and_then(|u| by_lang.get(&u.lang))
                .map(|&i| &resolvers[i]);
            let target = resolver.map_or(Target::Unresolved, |r| r.resolve_name(*caller, call));
            let (callee, _, category) = classify(units, fi, target);
            Reach {
                callee,
                file: target_file(target),
                category,
            }
        })
        .collect();
    (edges, counts, reached)
}

type Resolvers<'u> = (Vec<Box<dyn Resolver + 'u>>, BTreeMap<Lang, usize>);

/// One resolver per family present (C and C++ share one), built in language order, and
/// the resolver of each language.
fn resolvers<'u>(units: &'u [SourceUnit], files: &'u [(String, String)]) -> Resolvers<'u> {
    let mut families: Vec<&'static str> = Vec::new();
    let mut resolvers: Vec<Box<dyn Resolver + 'u>> = Vec::new();
    let mut by_lang: BTreeMap<Lang, usize> = BTreeMap::new();
    for unit in units {
        if by_lang.contains_key(&unit.lang) {
            continue;
        }
        let def = unit.lang.def();
        let family = def.resolver_family();
        let i = match families.iter().position(|f| *f == family) {
            Some(i) => i,
            None => {
                families.push(family);
                resolvers.push(def.resolver_with(units, files));
                resolvers.len() - 1
            }
        };
        by_lang.insert(unit.lang, i);
    }
    (resolvers, by_lang)
}

/// What a resolved name reaches: its callee, the file it is in, its category.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    pub callee: Option<FnRef>,
    pub file: Option<u32>,
    pub category: Category,
}

fn target_file(target: Target) -> Option<u32> {
    match target {
        Target::Function(r, _) => Some(r.file),
        Target::RepoFile(f) => Some(f),
        _ => None,
    }
}

fn classify(units: &[SourceUnit], from: usize, target: Target) -> (Option<FnRef>, u32, Category) {
    match target {
        Target::Function(r, n) => (Some(r), n, locate(units, from, r.file as usize)),
        Target::RepoFile(file) => (None, 1, locate(units, from, file as usize)),
        Target::Stdlib => (None, 0, Category::Stdlib),
        Target::External => (None, 0, Category::ExternalBinaries),
        Target::Macro => (None, 0, Category::Macro),
        Target::Unresolved => (None, 0, Category::Unresolved),
    }
}

/// The category of an edge from a function in file `from` to one in file `to`: same file,
/// same package (as the caller's language defines it: by default the same directory), or
/// elsewhere in the project.
fn locate(units: &[SourceUnit], from: usize, to: usize) -> Category {
    if from == to {
        return Category::SameFile;
    }
    let (a, b) = (&units[from], &units[to]);
    let same = if a.lang.def().resolver_family() == b.lang.def().resolver_family() {
        a.lang.def().same_package(a, b)
    } else {
        dir_of(&a.path) == dir_of(&b.path)
    };
    if same {
        Category::SamePackage
    } else {
        Category::Project
    }
}

/// Resolves `.` and `..` in a `/`-separated path (`a/b/../c/./d` gives `a/c/d`); `None`
/// when it climbs above the root. Includes and imports of every language go through it.
pub fn normalize_path(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The directory part of a `/`-separated path (empty at the root).
pub fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The function `name` defined directly inside the function `caller` (its scope is the
/// caller's qualified name): a nested or local function, which shadows the names around.
pub fn nested_in(units: &[SourceUnit], caller: FnRef, name: &str) -> Option<FnRef> {
    let unit = units.get(caller.file as usize)?;
    let f = unit.functions.get(caller.func as usize)?;
    let gi = unit
        .functions
        .iter()
        .position(|g| g.name == name && g.scope == f.qualified_name)?;
    Some(FnRef {
        file: caller.file,
        func: gi as u32,
    })
}

/// Picks the first candidate by (path, start line) and counts them.
pub fn pick(units: &[SourceUnit], mut cands: Vec<FnRef>) -> Option<Target> {
    if cands.is_empty() {
        return None;
    }
    cands.sort_by(|a, b| {
        let fa = &units[a.file as usize];
        let fb = &units[b.file as usize];
        (fa.path.as_str(), fa.node(a.func).start_line)
            .cmp(&(fb.path.as_str(), fb.node(b.func).start_line))
    });
    cands.dedup();
    Some(Target::Function(cands[0], cands.len() as u32))
}

pub fn func(units: &[SourceUnit], r: FnRef) -> &Function {
    units[r.file as usize].node(r.func)
}
