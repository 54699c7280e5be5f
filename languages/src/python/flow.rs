//! A flow-insensitive value-flow (points-to) analysis of a Python repository, in the spirit
//! of PyCG (Salis et al., ICSE 2021): the facts of every file (`facts.rs`) become an
//! assignment graph over names, attributes, parameters, return values, container entries and
//! class members, solved to a fixpoint with a worklist. A call site then reaches every
//! function whose value can flow into its callee expression.
//!
//! Abstract values are the repository's functions (plain, or bound to a receiver), lambdas,
//! classes, instances (one per class), modules, containers (one per display) and generators
//! (one per generator function). Attribute reads on instances and classes follow the C3
//! method resolution order; `super()` searches after the enclosing class in the receiver's
//! order; `Class(...)` makes an instance and calls `__init__`, calling an instance calls
//! `__call__`; `for` reads container entries, a generator's yields or `__iter__`/`__next__`;
//! `with` binds the result of `__enter__`. A decorator is called with the function it
//! decorates and the name gets what it returns; a decorator whose value is unknown (outside
//! the repository) leaves the function itself. `getattr(o, "name")` with a literal name is an
//! attribute read; other dynamic accesses are not followed.
//!
//! The analysis is bounded: at most [`MAX_SET`] values per graph node and [`MAX_STEPS`]
//! worklist steps; [`FlowStats`] says when a bound was reached.

use std::collections::VecDeque;

// A fast hasher: the graph's maps are looked up on every step of the solver.
use foldhash::{HashMap, HashSet};

use super::facts::{CallEx, Ex, Facts, Param, Protocol, Stmt};
use super::nodes;
use super::resolve::Index;
use crate::extract::{CallSite, ClassInfo, Import};
use crate::{Lang, Registry};
use crate::resolve::{FnRef, SourceUnit, Sym};

/// Values one graph node may hold; more are dropped (counted in [`FlowStats::truncated`]).
pub(crate) const MAX_SET: usize = 64;
/// Worklist steps per repository.
pub(crate) const MAX_STEPS: usize = 20_000_000;
/// Rounds of the decorator fallback (each re-solves).
const MAX_ROUNDS: usize = 8;
/// Classes followed in one method resolution order.
const MAX_MRO: usize = 64;
const NONE: u32 = u32::MAX;

/// What one repository's analysis did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FlowStats {
    pub nodes: usize,
    pub steps: usize,
    /// Insertions dropped because a node held [`MAX_SET`] values.
    pub truncated: usize,
    /// The step bound stopped the solver.
    pub step_limit: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Obj {
    Func(FnRef),
    /// A function read through an instance or class (receiver object id).
    Bound(FnRef, u32),
    Lambda(u32, u32),
    Class(u32),
    Inst(u32),
    Module(u32),
    Coll(u32, u32),
    /// The generator a call of this callable returns.
    Gen(u32),
    /// `super()` of class `.0` with receiver object `.1`.
    Super(u32, u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Cons {
    /// Values go to `.0`; a function is bound to object `.1` unless `.1` is NONE.
    Copy(u32, u32),
    /// Attribute `.0` (a name id) of each value goes to `.1`.
    Load(u32, u32),
    /// `.1` goes to attribute `.0` of each value.
    Store(u32, u32),
    /// Each value is called by call record `.0`.
    Call(u32),
    /// Each class is instantiated by call record `.0` (`raise E`); other values are not.
    Instantiate(u32),
    /// `super()` in a method of class `.0`: each receiver makes a super object in `.1`.
    Super(u32, u32),
    /// A container method call (record `.0`) on each value.
    Container(u32),
    /// `with`: each value's `__enter__` result (or a generator's yield) goes to `.0`.
    Enter(u32),
    /// An implicit call at site `.0` of each instance's method `.1`; with `.2` (a site),
    /// also `__next__` of what that method returns.
    Implicit(u32, u32, u32),
    /// Each function is a callee of site `.0`.
    Record(u32),
}

struct Call {
    args: Vec<u32>,
    kwargs: Vec<(u32, u32)>,
    result: u32,
    site: u32,
}

struct ContainerCall {
    method: ContainerOp,
    args: Vec<u32>,
    result: u32,
}

#[derive(Clone, Copy)]
enum ContainerOp {
    /// The last argument becomes an entry (`append`, `add`, `insert`, `setdefault`).
    Put,
    /// The first argument's entries become entries (`extend`, `update`).
    Extend,
    /// Returns an entry (`get`, `pop`).
    Get,
    /// Returns the container (views and copies).
    View,
}

fn container_op(m: &str) -> Option<ContainerOp> {
    Some(match m {
        "append" | "add" | "insert" | "setdefault" | "appendleft" | "put" | "push" => {
            ContainerOp::Put
        }
        "extend" | "update" | "extendleft" => ContainerOp::Extend,
        "get" | "pop" | "popleft" | "popitem" | "get_nowait" => ContainerOp::Get,
        "values" | "items" | "keys" | "copy" => ContainerOp::View,
        _ => return None,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Binding {
    Normal,
    Static,
    ClassMethod,
}

/// A function or lambda the analysis can call.
struct Callable {
    fn_ref: Option<FnRef>,
    params: Vec<(u32, u32, bool, bool)>,
    ret: u32,
    /// Parameters returned as they are (`return f`): each call returns its own argument,
    /// not every argument any call passed (a registering decorator stays precise).
    ret_params: Vec<usize>,
    binding: Binding,
}

/// Per file: scopes and the names bound in them.
struct FileScopes {
    ids: HashMap<String, u32>,
    names: Vec<String>,
    parent: Vec<u32>,
    is_class: Vec<bool>,
    module: u32,
}

impl FileScopes {
    /// The id of scope `s`, interning it and its enclosing scopes (a loop over the
    /// dotted prefixes, outermost first, not recursion).
    fn id(&mut self, s: &str) -> u32 {
        if let Some(i) = self.ids.get(s) {
            return *i;
        }
        let mut parent = match self.ids.get("") {
            Some(m) => *m,
            None => self.push("", NONE),
        };
        if s.is_empty() {
            return parent;
        }
        let ends = s.match_indices('.').map(|(k, _)| k).chain(std::iter::once(s.len()));
        for end in ends {
            let prefix = &s[..end];
            parent = match self.ids.get(prefix) {
                Some(i) => *i,
                None => self.push(prefix, parent),
            };
        }
        parent
    }

    fn push(&mut self, s: &str, parent: u32) -> u32 {
        let i = self.names.len() as u32;
        self.ids.insert(s.to_string(), i);
        self.names.push(s.to_string());
        self.parent.push(parent);
        self.is_class.push(false);
        i
    }
}

/// The call sites of one caller on one line: (callee text, functions reached).
type SitesAt = Vec<(String, Vec<FnRef>)>;

/// The analysis' result: for each call site of a function, the functions it reaches.
#[derive(Default)]
pub(crate) struct Flow {
    /// By caller and line: (callee text, functions reached).
    targets: HashMap<(FnRef, u32), SitesAt>,
    /// Per caller: calls no call site spells (method or decorator, line, callee).
    implicit: HashMap<FnRef, Vec<(String, u32, FnRef)>>,
    /// Decorated functions whose name their decorators bind to other values.
    redirected: HashSet<FnRef>,
    pub stats: FlowStats,
}

impl Flow {
    /// The functions the call site `call` of `caller` may reach, by value flow.
    pub(crate) fn targets(&self, caller: FnRef, call: &CallSite) -> &[FnRef] {
        self.targets
            .get(&(caller, call.line))
            .and_then(|v| v.iter().find(|(t, _)| *t == call.text))
            .map_or(&[], |(_, v)| v.as_slice())
    }

    /// The calls of `caller` that no call site spells: `__iter__`/`__next__` of a `for`,
    /// `__enter__`/`__exit__` of a `with`, a decorator applied by `@`.
    pub(crate) fn implicit(&self, caller: FnRef) -> &[(String, u32, FnRef)] {
        self.implicit.get(&caller).map_or(&[], |v| v.as_slice())
    }

    /// Whether a decorator rebinds the name of `f` to something else.
    pub(crate) fn redirected(&self, f: FnRef) -> bool {
        self.redirected.contains(&f)
    }

    pub(crate) fn build(units: &[SourceUnit], index: &Index) -> Flow {
        let mut a = Analysis::new(units, index);
        a.setup();
        a.solve();
        // Decorators outside the repository first: what they leave may fill the results
        // of the repository's own decorators.
        for _ in 0..MAX_ROUNDS {
            if !a.decorator_fallback(false) && !a.decorator_fallback(true) {
                break;
            }
            a.solve();
        }
        a.finish()
    }
}

struct Analysis<'a, 'u> {
    units: &'u [SourceUnit],
    index: &'a Index<'u>,
    facts: Vec<Option<&'u Facts>>,
    scopes: Vec<FileScopes>,
    names: HashMap<String, u32>,
    name_str: Vec<String>,
    vars: HashMap<(u32, u32, u32), u32>,
    globals: HashSet<(u32, u32, u32)>,
    /// Per file: `__all__` when the module declares one.
    all: Vec<Option<HashSet<u32>>>,
    classes: Vec<(u32, &'u ClassInfo)>,
    class_ids: HashMap<(u32, &'u str), u32>,
    class_scope: Vec<u32>,
    mro: Vec<Vec<u32>>,
    fn_by_name: Vec<HashMap<&'u str, Vec<u32>>>,
    callables: Vec<Callable>,
    callable_of_fn: HashMap<FnRef, u32>,
    callable_of_scope: HashMap<(u32, u32), u32>,
    /// The call-graph node of each lambda, by (file, scope) (`nodes.rs`).
    lambda_nodes: HashMap<(u32, u32), FnRef>,
    objs: Vec<Obj>,
    obj_ids: HashMap<Obj, u32>,
    pts: Vec<Vec<u32>>,
    cons: Vec<Vec<Cons>>,
    seen_cons: HashSet<(u32, Cons)>,
    fields: HashMap<(u32, u32), u32>,
    implicit: HashMap<(u32, u32), u32>,
    forwarded: HashSet<(u32, u32, u32)>,
    calls: Vec<Call>,
    containers: Vec<ContainerCall>,
    sites: Vec<(FnRef, u32, String)>,
    site_targets: Vec<Vec<FnRef>>,
    /// The sites of implicit calls (`for`, `with`, `@decorator`).
    implicit_sites: Vec<usize>,
    /// Decorator applications: (callee node, argument node, result node).
    decorators: Vec<(u32, u32, u32)>,
    fallen_back: HashSet<usize>,
    work: VecDeque<(u32, u32)>,
    stats: FlowStats,
    /// `[]`: entries stored under a key that is not a literal.
    empty_name: u32,
    /// `[*]`: every entry (iteration, unknown keys).
    all_name: u32,
    /// Decorated functions and the node of what their decorators make of them.
    decorated: Vec<(FnRef, u32)>,
}

impl<'a, 'u> Analysis<'a, 'u> {
    fn new(units: &'u [SourceUnit], index: &'a Index<'u>) -> Self {
        let facts: Vec<Option<&Facts>> = units
            .iter()
            .map(|u| {
                (u.lang == Lang::Python)
                    .then_some(u.info.payload::<Facts>())
                    .flatten()
            })
            .collect();
        let mut scopes = Vec::with_capacity(units.len());
        let mut classes = Vec::new();
        let mut class_ids = HashMap::default();
        let mut class_scope = Vec::new();
        let mut fn_by_name = Vec::with_capacity(units.len());
        for (fi, u) in units.iter().enumerate() {
            let mut s = FileScopes {
                ids: HashMap::default(),
                names: Vec::new(),
                parent: Vec::new(),
                is_class: Vec::new(),
                module: 0,
            };
            let mut by_name: HashMap<&str, Vec<u32>> = HashMap::default();
            if let Some(f) = facts[fi] {
                // The facts' scope indices stay ids here: their scopes first, in order, and
                // parents computed after (a parent interned late gets a new id).
                for sc in &f.scopes {
                    if !s.ids.contains_key(sc.as_str()) {
                        s.ids.insert(sc.clone(), s.names.len() as u32);
                        s.names.push(sc.clone());
                        s.parent.push(NONE);
                        s.is_class.push(false);
                    }
                }
                for i in 0..f.scopes.len() {
                    let name = s.names[i].clone();
                    let parent = match name.rfind('.') {
                        Some(k) => s.id(&name[..k]),
                        None if name.is_empty() => NONE,
                        None => s.id(""),
                    };
                    s.parent[i] = parent;
                }
            }
            s.module = s.id("");
            if u.lang == Lang::Python {
                for c in &u.info.classes {
                    let id = s.id(&c.name);
                    s.is_class[id as usize] = true;
                    class_ids.insert((fi as u32, c.name.as_str()), classes.len() as u32);
                    classes.push((fi as u32, c));
                    class_scope.push(id);
                }
                for (gi, f) in u.functions.iter().enumerate() {
                    by_name
                        .entry(f.qualified_name.as_str())
                        .or_default()
                        .push(gi as u32);
                }
            }
            scopes.push(s);
            fn_by_name.push(by_name);
        }
        let mut lambda_nodes = HashMap::default();
        for (fi, u) in units.iter().enumerate() {
            let (Some(f), true) = (facts[fi], nodes::has_nodes(u)) else {
                continue;
            };
            for (i, l) in f.lambdas.iter().enumerate() {
                let func = (u.functions.len() + nodes::lambda(i)) as u32;
                let file = fi as u32;
                lambda_nodes.insert((file, l.scope), FnRef { file, func });
            }
        }
        let mut a = Analysis {
            lambda_nodes,
            units,
            index,
            all: vec![None; units.len()],
            facts,
            scopes,
            names: HashMap::default(),
            name_str: Vec::new(),
            vars: HashMap::default(),
            globals: HashSet::default(),
            classes,
            class_ids,
            class_scope,
            mro: Vec::new(),
            fn_by_name,
            callables: Vec::new(),
            callable_of_fn: HashMap::default(),
            callable_of_scope: HashMap::default(),
            objs: Vec::new(),
            obj_ids: HashMap::default(),
            pts: Vec::new(),
            cons: Vec::new(),
            seen_cons: HashSet::default(),
            fields: HashMap::default(),
            implicit: HashMap::default(),
            forwarded: HashSet::default(),
            calls: Vec::new(),
            containers: Vec::new(),
            sites: Vec::new(),
            site_targets: Vec::new(),
            implicit_sites: Vec::new(),
            decorators: Vec::new(),
            fallen_back: HashSet::default(),
            work: VecDeque::new(),
            stats: FlowStats::default(),
            empty_name: 0,
            all_name: 0,
            decorated: Vec::new(),
        };
        a.empty_name = a.name("[]");
        a.all_name = a.name("[*]");
        a.compute_mro();
        a
    }

    fn name(&mut self, s: &str) -> u32 {
        if let Some(i) = self.names.get(s) {
            return *i;
        }
        let i = self.names.len() as u32;
        self.names.insert(s.to_string(), i);
        self.name_str.push(s.to_string());
        i
    }

    fn node(&mut self) -> u32 {
        self.pts.push(Vec::new());
        self.cons.push(Vec::new());
        (self.pts.len() - 1) as u32
    }

    fn obj(&mut self, o: Obj) -> u32 {
        if let Some(i) = self.obj_ids.get(&o) {
            return *i;
        }
        let i = self.objs.len() as u32;
        self.objs.push(o);
        self.obj_ids.insert(o, i);
        i
    }

    fn add(&mut self, node: u32, obj: u32) {
        if node == NONE {
            return;
        }
        let set = &mut self.pts[node as usize];
        if let Err(at) = set.binary_search(&obj) {
            if set.len() >= MAX_SET {
                self.stats.truncated += 1;
                return;
            }
            set.insert(at, obj);
            self.work.push_back((node, obj));
        }
    }

    fn constrain(&mut self, node: u32, c: Cons) {
        if node == NONE || !self.seen_cons.insert((node, c)) {
            return;
        }
        self.cons[node as usize].push(c);
        let objs = self.pts[node as usize].clone();
        for o in objs {
            self.apply(c, o);
        }
    }

    fn copy(&mut self, from: u32, to: u32) {
        if to != NONE {
            self.constrain(from, Cons::Copy(to, NONE));
        }
    }

    // ---- classes ----

    /// C3 linearisation of every class of the repository (bases outside it are left out);
    /// a hierarchy C3 rejects falls back to depth-first order.
    fn compute_mro(&mut self) {
        let n = self.classes.len();
        let bases: Vec<Vec<u32>> = (0..n)
            .map(|c| {
                let (file, info) = self.classes[c];
                info.bases
                    .iter()
                    .filter_map(|b| match self.index.base(file, info, b) {
                        Some(Sym::Class(f, ci)) => {
                            self.class_ids.get(&(f, ci.name.as_str())).copied()
                        }
                        _ => None,
                    })
                    .filter(|&b| b as usize != c)
                    .collect()
            })
            .collect();
        let mut mro: Vec<Option<Vec<u32>>> = vec![None; n];
        // Passes until every class whose bases are done is done (a cycle never is).
        for _ in 0..MAX_MRO {
            let mut progress = false;
            for c in 0..n {
                if mro[c].is_some() || bases[c].iter().any(|b| mro[*b as usize].is_none()) {
                    continue;
                }
                let mut seqs: Vec<Vec<u32>> =
                    bases[c].iter().filter_map(|b| mro[*b as usize].clone()).collect();
                seqs.push(bases[c].clone());
                let mut out = vec![c as u32];
                let merged = loop {
                    seqs.retain(|s| !s.is_empty());
                    if seqs.is_empty() {
                        break true;
                    }
                    let head = seqs.iter().map(|s| s[0]).find(|h| {
                        seqs.iter().all(|s| !s[1..].contains(h))
                    });
                    let Some(h) = head else {
                        break false;
                    };
                    out.push(h);
                    for s in &mut seqs {
                        if s[0] == h {
                            s.remove(0);
                        }
                    }
                    if out.len() > MAX_MRO {
                        break true;
                    }
                };
                mro[c] = Some(if merged { out } else { dfs(c as u32, &bases) });
                progress = true;
            }
            if !progress {
                break;
            }
        }
        self.mro = mro
            .into_iter()
            .enumerate()
            .map(|(c, m)| m.unwrap_or_else(|| dfs(c as u32, &bases)))
            .collect();
    }

    /// The class-body binding of `name` first in the MRO of `cid` (from position `skip`).
    fn class_attr(&self, cid: u32, name: u32, skip: usize) -> Option<u32> {
        let mro = self.mro.get(cid as usize)?;
        mro.iter().skip(skip).find_map(|k| {
            let (file, _) = self.classes[*k as usize];
            self.vars
                .get(&(file, self.class_scope[*k as usize], name))
                .copied()
        })
    }

    // ---- scopes and names ----

    fn declare(&mut self, file: u32, scope: u32, name: u32) -> u32 {
        let scope = if self.globals.contains(&(file, scope, name)) {
            self.scopes[file as usize].module
        } else {
            scope
        };
        if let Some(v) = self.vars.get(&(file, scope, name)) {
            return *v;
        }
        let v = self.node();
        self.vars.insert((file, scope, name), v);
        v
    }

    /// The variable `name` denotes in `scope` of `file` (Python's static scoping: the
    /// scope itself, enclosing function scopes, the module, its star imports).
    fn lookup(&self, file: u32, scope: u32, name: u32) -> Option<u32> {
        let s = &self.scopes[file as usize];
        let mut cur = scope;
        if self.globals.contains(&(file, scope, name)) {
            cur = s.module;
        }
        loop {
            if cur == scope || !s.is_class[cur as usize] {
                if let Some(v) = self.vars.get(&(file, cur, name)) {
                    return Some(*v);
                }
            }
            if cur == s.module || cur == NONE {
                break;
            }
            cur = s.parent[cur as usize];
        }
        self.star_lookup(file, name, 0)
    }

    /// `name` through the `from m import *` of `file` (the module's `__all__` if it has one,
    /// else its names without a leading underscore).
    fn star_lookup(&self, file: u32, name: u32, hops: usize) -> Option<u32> {
        if hops > 8 {
            return None;
        }
        let u = &self.units[file as usize];
        for imp in u.info.imports.iter().filter(|i| i.wildcard) {
            let module = self.index.absolute(file, &imp.module, imp.level);
            let Some(m) = self.index.module(&module) else {
                continue;
            };
            if m == file {
                continue;
            }
            let exported = match &self.all[m as usize] {
                Some(all) => all.contains(&name),
                None => self
                    .name_str
                    .get(name as usize)
                    .is_some_and(|k| !k.starts_with('_')),
            };
            if !exported {
                continue;
            }
            let module_scope = self.scopes[m as usize].module;
            if let Some(v) = self.vars.get(&(m, module_scope, name)) {
                return Some(*v);
            }
            if let Some(v) = self.star_lookup(m, name, hops + 1) {
                return Some(v);
            }
        }
        None
    }

    /// The call-graph node that makes a call of `scope` at `line`: its lambda, the
    /// function the scope (or the scope of the class it is in) names, else the module
    /// (`nodes.rs` decides the same way).
    fn enclosing_fn(&self, file: u32, scope: u32, line: u32) -> Option<FnRef> {
        if let Some(r) = self.lambda_nodes.get(&(file, scope)) {
            return Some(*r);
        }
        let s = &self.scopes[file as usize];
        let mut cur = scope;
        while cur != NONE && cur != s.module && s.is_class[cur as usize] {
            cur = s.parent[cur as usize];
        }
        if cur == NONE || cur == s.module {
            let u = &self.units[file as usize];
            return nodes::has_nodes(u).then(|| FnRef {
                file,
                func: (u.functions.len() + nodes::MODULE) as u32,
            });
        }
        let fns = self.fn_by_name[file as usize].get(s.names[cur as usize].as_str())?;
        let funcs = &self.units[file as usize].functions;
        fns.iter()
            .filter(|g| {
                let f = &funcs[**g as usize];
                f.start_line <= line && line <= f.end_line
            })
            .max_by_key(|g| funcs[**g as usize].start_line)
            .map(|g| FnRef { file, func: *g })
    }

    fn qualify(&self, file: u32, scope: u32, name: &str) -> String {
        let s = &self.scopes[file as usize].names[scope as usize];
        if s.is_empty() {
            name.to_string()
        } else {
            format!("{s}.{name}")
        }
    }

    // ---- setup ----

    fn setup(&mut self) {
        let n = self.units.len() as u32;
        // `global` first: the names it lists are bound at module level.
        for file in 0..n {
            let Some(f) = self.facts[file as usize] else {
                continue;
            };
            for st in &f.stmts {
                match st {
                    Stmt::Global { scope, names } => {
                        for nm in names {
                            let id = self.name(nm);
                            self.globals.insert((file, *scope, id));
                        }
                    }
                    Stmt::All(names) => {
                        let ids = names.iter().map(|nm| self.name(nm)).collect();
                        self.all[file as usize] = Some(ids);
                    }
                    _ => {}
                }
            }
        }
        for file in 0..n {
            self.declare_file(file);
        }
        for file in 0..n {
            self.imports(file);
        }
        // Callables before any call: `super()` and `return` look up the enclosing
        // function's, and a call may reach a function of a file not yet constrained.
        for file in 0..n {
            let Some(f) = self.facts[file as usize] else {
                continue;
            };
            for st in &f.stmts {
                if let Stmt::Def {
                    scope,
                    name,
                    line,
                    params,
                    decorators,
                } = st
                {
                    self.def_callable(file, *scope, name, *line, params, decorators, f);
                }
            }
        }
        for file in 0..n {
            let Some(f) = self.facts[file as usize] else {
                continue;
            };
            for st in &f.stmts {
                if let Stmt::Return { scope, value } = st {
                    if let Some(k) = self.returned_param(file, f, *scope, *value) {
                        if let Some(c) = self.callable_of_scope.get(&(file, *scope)).copied() {
                            self.callables[c as usize].ret_params.push(k);
                        }
                    }
                }
            }
        }
        for file in 0..n {
            self.constrain_file(file);
        }
    }

    /// Declares every name a file binds (targets, definitions, parameters, imports).
    fn declare_file(&mut self, file: u32) {
        if self.units[file as usize].lang != Lang::Python {
            return;
        }
        let module = self.scopes[file as usize].module;
        let imports: Vec<&str> = self.units[file as usize]
            .info
            .imports
            .iter()
            .filter(|i| !i.wildcard)
            .map(bound_name)
            .collect();
        for b in imports {
            let id = self.name(b);
            self.declare(file, module, id);
        }
        let Some(f) = self.facts[file as usize] else {
            return;
        };
        for st in &f.stmts {
            match st {
                Stmt::Assign { target, .. } | Stmt::For { target, .. } => {
                    self.declare_target(file, f, *target)
                }
                Stmt::With {
                    target: Some(t), ..
                } => self.declare_target(file, f, *t),
                Stmt::Def {
                    scope,
                    name,
                    params,
                    ..
                } => {
                    let id = self.name(name);
                    self.declare(file, *scope, id);
                    let body = self.qualify(file, *scope, name);
                    let body = self.scopes[file as usize].id(&body);
                    for p in params {
                        let id = self.name(&p.name);
                        self.declare(file, body, id);
                    }
                }
                Stmt::Class { scope, name, .. } => {
                    let id = self.name(name);
                    self.declare(file, *scope, id);
                }
                _ => {}
            }
        }
        for ex in &f.exprs {
            if let Ex::Lambda { scope, params, .. } = ex {
                for p in params {
                    let id = self.name(&p.name);
                    self.declare(file, *scope, id);
                }
            }
        }
    }

    fn declare_target(&mut self, file: u32, f: &Facts, target: u32) {
        let mut stack = vec![target];
        while let Some(t) = stack.pop() {
            match f.exprs.get(t as usize) {
                Some(Ex::Name(sc, n)) => {
                    let id = self.name(n);
                    self.declare(file, *sc, id);
                }
                Some(Ex::Coll(items) | Ex::Join(items)) => stack.extend(items),
                Some(Ex::Keyed(items)) => stack.extend(items.iter().map(|(_, x)| *x)),
                _ => {}
            }
        }
    }

    /// Import bindings: the imported module's variable when the repository has it, else
    /// what the name resolver says the import denotes.
    fn imports(&mut self, file: u32) {
        // A file may bind names by its imports alone (a package's `__init__.py` that
        // re-exports), with no statement the facts record.
        if self.units[file as usize].lang != Lang::Python {
            return;
        }
        let module_scope = self.scopes[file as usize].module;
        let imports: Vec<&'u Import> = self.units[file as usize]
            .info
            .imports
            .iter()
            .filter(|i| !i.wildcard)
            .collect();
        for imp in imports {
            let b = self.name(bound_name(imp));
            let var = self.declare(file, module_scope, b);
            let module = self.index.absolute(file, &imp.module, imp.level);
            match &imp.name {
                None => {
                    // `import a.b` binds `a`; `import a.b as c` binds a.b.
                    let target = if imp.alias.is_some() {
                        module.clone()
                    } else {
                        module.split('.').next().unwrap_or_default().to_string()
                    };
                    if let Some(m) = self.index.module(&target) {
                        let o = self.obj(Obj::Module(m));
                        self.add(var, o);
                    }
                }
                Some(name) => {
                    let from = self.index.module(&module);
                    let nid = self.name(name);
                    let source = from.and_then(|m| {
                        let ms = self.scopes[m as usize].module;
                        self.vars.get(&(m, ms, nid)).copied()
                    });
                    match source {
                        Some(src) if from != Some(file) => self.copy(src, var),
                        _ => {
                            let o = match self.index.import_sym(file, imp, 0) {
                                Some(Sym::Function(r)) => Some(Obj::Func(r)),
                                Some(Sym::Class(f, c)) => self
                                    .class_ids
                                    .get(&(f, c.name.as_str()))
                                    .map(|id| Obj::Class(*id)),
                                Some(Sym::Module(m)) => Some(Obj::Module(m)),
                                _ => None,
                            };
                            if let Some(o) = o {
                                let o = self.obj(o);
                                self.add(var, o);
                            }
                        }
                    }
                }
            }
        }
    }

    fn constrain_file(&mut self, file: u32) {
        let Some(f) = self.facts[file as usize] else {
            return;
        };
        let mut at: Vec<u32> = Vec::with_capacity(f.exprs.len());
        for (i, ex) in f.exprs.iter().enumerate() {
            let n = self.expression(file, f, i as u32, ex, &at);
            at.push(n);
        }
        let node = |x: u32| at.get(x as usize).copied().unwrap_or(NONE);
        for st in &f.stmts {
            match st {
                Stmt::Assign { target, value } => self.store(file, f, &at, *target, node(*value)),
                Stmt::Return { scope, value } => {
                    if self.returned_param(file, f, *scope, *value).is_some() {
                        continue; // bound per call by `invoke`
                    }
                    if let Some(c) = self.callable_of_scope.get(&(file, *scope)) {
                        let ret = self.callables[*c as usize].ret;
                        self.copy(node(*value), ret);
                    }
                }
                Stmt::Yield { scope, value } => {
                    if let Some(c) = self.callable_of_scope.get(&(file, *scope)).copied() {
                        let ret = self.callables[c as usize].ret;
                        let g = self.obj(Obj::Gen(c));
                        self.add(ret, g);
                        let entries = self.field(g, self.empty_name);
                        self.copy(node(*value), entries);
                    }
                }
                Stmt::For { target, iter } => {
                    let elem = self.node();
                    self.constrain(node(*iter), Cons::Load(self.all_name, elem));
                    self.store(file, f, &at, *target, elem);
                }
                Stmt::With { ctx, target } => {
                    if let Some(t) = target {
                        let entered = self.node();
                        self.constrain(node(*ctx), Cons::Enter(entered));
                        self.store(file, f, &at, *t, entered);
                    }
                }
                Stmt::Def {
                    scope,
                    name,
                    line,
                    params,
                    decorators,
                } => self.def(file, &at, *scope, name, *line, params, decorators, f),
                Stmt::Class {
                    scope,
                    name,
                    decorators: _,
                } => {
                    let qualified = self.qualify(file, *scope, name);
                    if let Some(cid) = self.class_ids.get(&(file, qualified.as_str())).copied() {
                        let nid = self.name(name);
                        let var = self.declare(file, *scope, nid);
                        let o = self.obj(Obj::Class(cid));
                        self.add(var, o);
                    }
                }
                Stmt::Implicit {
                    scope,
                    line,
                    value,
                    kind,
                    text,
                } => {
                    let site =
                        |a: &mut Self, name: &str| a.site(file, *scope, *line, name.to_string(), true);
                    let v = node(*value);
                    match kind {
                        Protocol::For => {
                            let (it, next) = (site(self, "__iter__"), site(self, "__next__"));
                            if it != NONE {
                                let n = self.name("__iter__");
                                self.constrain(v, Cons::Implicit(it, n, next));
                            }
                        }
                        Protocol::With => {
                            for m in ["__enter__", "__exit__"] {
                                let s = site(self, m);
                                if s != NONE {
                                    let n = self.name(m);
                                    self.constrain(v, Cons::Implicit(s, n, NONE));
                                }
                            }
                        }
                        Protocol::Decorator => {
                            let s = site(self, text);
                            if s != NONE {
                                self.constrain(v, Cons::Record(s));
                            }
                        }
                        Protocol::Raise => {
                            let site = site(self, text);
                            let id = self.calls.len() as u32;
                            let result = self.node();
                            self.calls.push(Call {
                                args: Vec::new(),
                                kwargs: Vec::new(),
                                result,
                                site,
                            });
                            self.constrain(v, Cons::Instantiate(id));
                        }
                    }
                }
                Stmt::Eval(_) | Stmt::Global { .. } | Stmt::All(_) => {}
            }
        }
    }

    /// The function of a `def` statement (its parameters bound in its body's scope).
    #[allow(clippy::too_many_arguments)]
    fn def_callable(
        &mut self,
        file: u32,
        scope: u32,
        name: &str,
        line: u32,
        params: &[Param],
        decorators: &[u32],
        f: &Facts,
    ) {
        let qualified = self.qualify(file, scope, name);
        let body = self.scopes[file as usize].id(&qualified);
        let fn_ref = self.fn_by_name[file as usize]
            .get(qualified.as_str())
            .and_then(|v| {
                v.iter()
                    .find(|g| self.units[file as usize].functions[**g as usize].start_line == line)
            })
            .map(|g| FnRef { file, func: *g });
        let mut binding = Binding::Normal;
        for d in decorators {
            if let Some(Ex::Name(_, n)) = f.exprs.get(*d as usize) {
                match n.as_str() {
                    "staticmethod" => binding = Binding::Static,
                    "classmethod" => binding = Binding::ClassMethod,
                    _ => {}
                }
            }
        }
        let c = self.callable(file, body, params, fn_ref, binding);
        self.callable_of_scope.insert((file, body), c);
        if let Some(r) = fn_ref {
            self.callable_of_fn.insert(r, c);
        }
    }

    /// A `def` statement: defaults flow to parameters, and the name is bound to the
    /// function, or to what its decorators make of it.
    #[allow(clippy::too_many_arguments)]
    fn def(
        &mut self,
        file: u32,
        at: &[u32],
        scope: u32,
        name: &str,
        _line: u32,
        params: &[Param],
        decorators: &[u32],
        f: &Facts,
    ) {
        let qualified = self.qualify(file, scope, name);
        let body = self.scopes[file as usize].id(&qualified);
        let Some(c) = self.callable_of_scope.get(&(file, body)).copied() else {
            return;
        };
        self.defaults(c, params, at);
        let Some(fn_ref) = self.callables[c as usize].fn_ref else {
            return;
        };
        let nid = self.name(name);
        let var = self.declare(file, scope, nid);
        let mut cur = self.node();
        let o = self.obj(Obj::Func(fn_ref));
        self.add(cur, o);
        for d in decorators.iter().rev() {
            let builtin = matches!(
                f.exprs.get(*d as usize),
                Some(Ex::Name(_, n)) if matches!(n.as_str(), "staticmethod" | "classmethod" | "property")
            );
            let callee = at.get(*d as usize).copied().unwrap_or(NONE);
            if builtin || callee == NONE {
                continue;
            }
            let result = self.node();
            let call = self.calls.len() as u32;
            self.calls.push(Call {
                args: vec![cur],
                kwargs: Vec::new(),
                result,
                site: NONE,
            });
            self.decorators.push((callee, cur, result));
            self.constrain(callee, Cons::Call(call));
            cur = result;
        }
        if !decorators.is_empty() {
            self.decorated.push((fn_ref, cur));
        }
        self.copy(cur, var);
    }

    fn callable(
        &mut self,
        file: u32,
        body: u32,
        params: &[Param],
        fn_ref: Option<FnRef>,
        binding: Binding,
    ) -> u32 {
        let mut ps = Vec::with_capacity(params.len());
        for p in params {
            let id = self.name(&p.name);
            let var = self.declare(file, body, id);
            ps.push((id, var, p.splat, p.keyword_only));
        }
        let ret = self.node();
        self.callables.push(Callable {
            fn_ref,
            params: ps,
            ret,
            ret_params: Vec::new(),
            binding,
        });
        (self.callables.len() - 1) as u32
    }

    /// Default values flow to their parameters.
    fn defaults(&mut self, c: u32, params: &[Param], at: &[u32]) {
        for (k, p) in params.iter().enumerate() {
            let Some(d) = p.default else {
                continue;
            };
            let dn = at.get(d as usize).copied().unwrap_or(NONE);
            if let Some(&(_, var, _, _)) = self.callables[c as usize].params.get(k) {
                self.copy(dn, var);
            }
        }
    }

    /// The position of the parameter that `return value` in `scope` returns as it is.
    fn returned_param(&mut self, file: u32, f: &Facts, scope: u32, value: u32) -> Option<usize> {
        let Some(Ex::Name(sc, n)) = f.exprs.get(value as usize) else {
            return None;
        };
        let c = *self.callable_of_scope.get(&(file, scope))?;
        let id = self.name(n);
        let var = self.lookup(file, *sc, id)?;
        self.callables[c as usize]
            .params
            .iter()
            .position(|p| p.1 == var && !p.2)
    }

    /// The graph node of expression `i` (NONE when it carries nothing we follow).
    fn expression(&mut self, file: u32, f: &Facts, i: u32, ex: &Ex, at: &[u32]) -> u32 {
        let node = |x: u32| at.get(x as usize).copied().unwrap_or(NONE);
        match ex {
            Ex::Name(sc, n) => {
                let id = self.name(n);
                self.lookup(file, *sc, id).unwrap_or(NONE)
            }
            Ex::Attr(b, a) => {
                let d = self.node();
                let id = self.name(a);
                self.constrain(node(*b), Cons::Load(id, d));
                d
            }
            Ex::Sub(b, key) => {
                let d = self.node();
                let name = match key {
                    Some(_) => self.key_name(key),
                    None => self.all_name,
                };
                self.constrain(node(*b), Cons::Load(name, d));
                d
            }
            Ex::Call(c) => self.call(file, f, c, at),
            Ex::Coll(items) => {
                let d = self.node();
                let o = self.obj(Obj::Coll(file, i));
                self.add(d, o);
                let entries = self.field(o, self.empty_name);
                for it in items {
                    self.copy(node(*it), entries);
                }
                d
            }
            Ex::Keyed(items) => {
                let d = self.node();
                let o = self.obj(Obj::Coll(file, i));
                self.add(d, o);
                for (k, it) in items {
                    let name = self.key_name(k);
                    let entries = self.field(o, name);
                    self.copy(node(*it), entries);
                }
                d
            }
            Ex::Lambda {
                scope,
                params,
                body,
            } => {
                let lambda_node = self.lambda_nodes.get(&(file, *scope)).copied();
                let c = self.callable(file, *scope, params, lambda_node, Binding::Normal);
                self.defaults(c, params, at);
                let ret = self.callables[c as usize].ret;
                self.callable_of_scope.insert((file, *scope), c);
                match self.returned_param(file, f, *scope, *body) {
                    Some(k) => self.callables[c as usize].ret_params.push(k),
                    None => self.copy(node(*body), ret),
                }
                let d = self.node();
                let o = self.obj(Obj::Lambda(file, c));
                self.add(d, o);
                d
            }
            Ex::Super(sc) => self.super_of(file, *sc),
            Ex::Join(items) => {
                let d = self.node();
                for it in items {
                    self.copy(node(*it), d);
                }
                d
            }
            Ex::Str(_) | Ex::Opaque => NONE,
        }
    }

    /// `super()` in scope `sc`: the enclosing method's class and its first parameter.
    fn super_of(&mut self, file: u32, sc: u32) -> u32 {
        let s = &self.scopes[file as usize];
        let mut cur = sc;
        while cur != NONE && cur != s.module {
            let parent = s.parent[cur as usize];
            if parent != NONE && s.is_class[parent as usize] {
                let class = s.names[parent as usize].clone();
                let Some(cid) = self.class_ids.get(&(file, class.as_str())).copied() else {
                    return NONE;
                };
                let Some(c) = self.callable_of_scope.get(&(file, cur)).copied() else {
                    return NONE;
                };
                let Some(&(_, self_var, _, _)) = self.callables[c as usize].params.first() else {
                    return NONE;
                };
                let d = self.node();
                self.constrain(self_var, Cons::Super(cid, d));
                return d;
            }
            cur = parent;
        }
        NONE
    }

    fn call(&mut self, file: u32, f: &Facts, c: &CallEx, at: &[u32]) -> u32 {
        let node = |x: u32| at.get(x as usize).copied().unwrap_or(NONE);
        let result = self.node();
        let callee = node(c.func);
        let args: Vec<u32> = c.args.iter().map(|a| node(*a)).collect();
        // Builtins that move values: `getattr(o, "name")`, `functools.partial(f, ...)`.
        if let Some(Ex::Name(sc, n)) = f.exprs.get(c.func as usize) {
            let nid = self.name(n);
            if self.lookup(file, *sc, nid).is_none() {
                match (n.as_str(), c.args.get(1).and_then(|a| f.exprs.get(*a as usize))) {
                    ("getattr", Some(Ex::Str(attr))) => {
                        let id = self.name(attr);
                        self.constrain(args[0], Cons::Load(id, result));
                    }
                    ("partial", _) if !args.is_empty() => self.copy(args[0], result),
                    // Builtins that give back their argument's entries as a container.
                    ("iter" | "list" | "tuple" | "sorted" | "reversed" | "set" | "frozenset",
                        _) if !args.is_empty() => {
                        let o = self.obj(Obj::Coll(file, c.func));
                        self.add(result, o);
                        let entries = self.field(o, self.empty_name);
                        self.constrain(args[0], Cons::Load(self.all_name, entries));
                    }
                    ("next", _) if !args.is_empty() => {
                        self.constrain(args[0], Cons::Load(self.all_name, result));
                    }
                    _ => {}
                }
            }
        }
        // `functools.partial(f, ...)` calls f. (`typing.cast` and `update_wrapper` are
        // left unknown on purpose: a decorator that returns one wraps every function it
        // decorates in one shared wrapper, whose results the analysis would merge, so the
        // decorated names keep their functions instead; see `decorator_fallback`.)
        if c.text == "functools.partial" && !args.is_empty() {
            self.copy(args[0], result);
        }
        if let Some(Ex::Attr(base, m)) = f.exprs.get(c.func as usize) {
            if let Some(op) = container_op(m) {
                let id = self.containers.len() as u32;
                self.containers.push(ContainerCall {
                    method: op,
                    args: args.clone(),
                    result,
                });
                self.constrain(node(*base), Cons::Container(id));
            }
        }
        if let Some((callback, inputs, returns)) = self.callback_of(file, f, c) {
            // The edge is named as the function is written where it is passed (`helper` of
            // `map(helper, xs)`, `Item.size`), else as the builtin.
            let name = dotted(f, callback).unwrap_or_else(|| c.text.clone());
            let inputs: Vec<Vec<u32>> = inputs
                .iter()
                .map(|xs| xs.iter().map(|x| node(*x)).collect())
                .collect();
            let returns = returns.then_some(result);
            self.builtin_callback(file, c, name, node(callback), &inputs, returns);
        }
        let site = self.site(file, c.scope, c.line, c.text.clone(), false);
        let kwargs = c
            .kwargs
            .iter()
            .map(|(k, v)| (self.name(k), node(*v)))
            .collect();
        let id = self.calls.len() as u32;
        self.calls.push(Call {
            args,
            kwargs,
            result,
            site,
        });
        self.constrain(callee, Cons::Call(id));
        result
    }

    /// A builtin that calls a function it is given, with the entries of iterables:
    /// `map(f, xs, ...)` (one entry of each; what `f` returns are the entries of the
    /// result), `filter(f, xs)`, `sorted(xs, key=f)`, `min`/`max(xs, key=f)` (or of several
    /// arguments) and `xs.sort(key=f)`. Gives the function's expression, per parameter the
    /// expressions holding what it is called with, and whether the call returns the
    /// function's results.
    fn callback_of(&mut self, file: u32, f: &Facts, c: &CallEx) -> Option<(u32, Vec<Vec<u32>>, bool)> {
        let key = c.kwargs.iter().find(|(k, _)| k == "key").map(|(_, v)| *v);
        let each = |xs: &[u32]| xs.iter().map(|x| vec![*x]).collect::<Vec<_>>();
        match f.exprs.get(c.func as usize)? {
            Ex::Name(sc, n) => {
                let id = self.name(n);
                if self.lookup(file, *sc, id).is_some() {
                    return None; // the repository's own `map`
                }
                match (n.as_str(), c.args.split_first()) {
                    ("map", Some((g, xs))) if !xs.is_empty() => Some((*g, each(xs), true)),
                    ("filter", Some((g, xs))) if xs.len() == 1 => Some((*g, each(xs), false)),
                    ("sorted" | "min" | "max", Some(_)) if c.args.len() == 1 => {
                        Some((key?, each(&c.args), false))
                    }
                    // `min(a, b, key=f)`: the arguments themselves, not their entries.
                    ("min" | "max", Some(_)) => {
                        Some((key?, vec![c.args.clone()], false))
                    }
                    _ => None,
                }
            }
            Ex::Attr(base, m) if m == "sort" => Some((key?, each(&[*base]), false)),
            _ => None,
        }
    }

    /// The call a builtin makes of `callback` ([`Analysis::callback_of`]): an implicit call
    /// at the builtin's site, each parameter given the entries of its input (an input of
    /// several nodes: their values themselves); with `result`, the callback's results are
    /// the entries of the builtin's result.
    fn builtin_callback(
        &mut self,
        file: u32,
        c: &CallEx,
        name: String,
        callback: u32,
        inputs: &[Vec<u32>],
        result: Option<u32>,
    ) {
        let mut args = Vec::with_capacity(inputs.len());
        for input in inputs {
            let arg = self.node();
            match input.as_slice() {
                [one] => self.constrain(*one, Cons::Load(self.all_name, arg)),
                several => several.iter().for_each(|x| self.copy(*x, arg)),
            }
            args.push(arg);
        }
        let site = self.site(file, c.scope, c.line, name, true);
        let returned = self.node();
        let id = self.calls.len() as u32;
        self.calls.push(Call {
            args,
            kwargs: Vec::new(),
            result: returned,
            site,
        });
        self.constrain(callback, Cons::Call(id));
        if let Some(r) = result {
            let o = self.obj(Obj::Coll(file, c.func));
            self.add(r, o);
            let entries = self.field(o, self.empty_name);
            self.copy(returned, entries);
        }
    }

    /// A call site of the node that makes calls of `scope` at `line` (NONE when there is
    /// none), named `name`; an `implicit` one is a call no call site of the code spells.
    fn site(&mut self, file: u32, scope: u32, line: u32, name: String, implicit: bool) -> u32 {
        let Some(caller) = self.enclosing_fn(file, scope, line) else {
            return NONE;
        };
        self.sites.push((caller, line, name));
        self.site_targets.push(Vec::new());
        if implicit {
            self.implicit_sites.push(self.sites.len() - 1);
        }
        (self.sites.len() - 1) as u32
    }

    /// Stores the value of node `src` into target expression `t` (a name, attribute,
    /// subscript, or tuple of them).
    fn store(&mut self, file: u32, f: &Facts, at: &[u32], t: u32, src: u32) {
        if src == NONE {
            return;
        }
        let mut stack = vec![(t, src)];
        while let Some((t, src)) = stack.pop() {
            let node = |x: u32| at.get(x as usize).copied().unwrap_or(NONE);
            match f.exprs.get(t as usize) {
                Some(Ex::Name(sc, n)) => {
                    let id = self.name(n);
                    if let Some(v) = self.lookup(file, *sc, id) {
                        self.copy(src, v);
                    }
                }
                Some(Ex::Attr(b, a)) => {
                    let id = self.name(a);
                    self.constrain(node(*b), Cons::Store(id, src));
                }
                Some(Ex::Sub(b, key)) => {
                    let name = self.key_name(key);
                    self.constrain(node(*b), Cons::Store(name, src));
                }
                Some(Ex::Coll(items)) => {
                    // Unpacking: the i-th target gets the entries at i.
                    for (i, t) in items.iter().enumerate() {
                        let elem = self.node();
                        let name = self.key_name(&Some(format!("i:{i}")));
                        self.constrain(src, Cons::Load(name, elem));
                        stack.push((*t, elem));
                    }
                }
                Some(Ex::Keyed(items)) => {
                    for (i, (_, t)) in items.iter().enumerate() {
                        let elem = self.node();
                        let name = self.key_name(&Some(format!("i:{i}")));
                        self.constrain(src, Cons::Load(name, elem));
                        stack.push((*t, elem));
                    }
                }
                Some(Ex::Join(items)) => stack.extend(items.iter().map(|i| (*i, src))),
                _ => {}
            }
        }
    }

    /// The generic attribute node of an object (instance fields, container entries).
    fn field(&mut self, obj: u32, name: u32) -> u32 {
        if let Some(n) = self.fields.get(&(obj, name)) {
            return *n;
        }
        let n = self.node();
        self.fields.insert((obj, name), n);
        // Every keyed entry is also an entry.
        if name != self.all_name && self.is_key(name) {
            let all = self.field(obj, self.all_name);
            self.copy(n, all);
        }
        n
    }

    /// `[]` or a literal key `[s:..]`.
    fn is_key(&self, name: u32) -> bool {
        self.name_str
            .get(name as usize)
            .is_some_and(|s| s.starts_with('['))
    }

    fn key_name(&mut self, key: &Option<String>) -> u32 {
        match key {
            Some(k) => self.name(&format!("[{k}]")),
            None => self.empty_name,
        }
    }

    // ---- solving ----

    fn solve(&mut self) {
        while let Some((node, obj)) = self.work.pop_front() {
            if self.stats.steps >= MAX_STEPS {
                self.stats.step_limit = true;
                self.work.clear();
                break;
            }
            self.stats.steps += 1;
            let mut k = 0;
            // Constraints added while applying are applied to `obj` by `constrain`.
            while let Some(c) = self.cons[node as usize].get(k).copied() {
                self.apply(c, obj);
                k += 1;
            }
        }
    }

    fn apply(&mut self, c: Cons, obj: u32) {
        match c {
            Cons::Copy(dst, bind) => {
                let o = self.bind(obj, bind);
                self.add(dst, o);
            }
            Cons::Load(name, dst) => {
                for (src, bind) in self.load_sources(obj, name) {
                    self.constrain(src, Cons::Copy(dst, bind));
                }
            }
            Cons::Store(name, src) => {
                if let Some(t) = self.store_target(obj, name) {
                    self.copy(src, t);
                }
            }
            Cons::Call(call) => self.call_obj(call, obj),
            Cons::Instantiate(call) => {
                if matches!(self.objs[obj as usize], Obj::Class(_)) {
                    self.call_obj(call, obj)
                }
            }
            Cons::Super(cid, dst) => {
                let o = self.obj(Obj::Super(cid, obj));
                self.add(dst, o);
            }
            Cons::Container(id) => self.container_call(id, obj),
            Cons::Implicit(site, name, next) => {
                let Obj::Inst(cid) = self.objs[obj as usize] else {
                    return;
                };
                if let Some(m) = self.class_attr(cid, name, 0) {
                    self.constrain(m, Cons::Record(site));
                }
                if next != NONE {
                    if let Some(r) = self.implicit_call(obj, name) {
                        let n = self.name("__next__");
                        self.constrain(r, Cons::Implicit(next, n, NONE));
                    }
                }
            }
            Cons::Record(site) => match self.objs[obj as usize] {
                Obj::Func(f) | Obj::Bound(f, _) => self.record_site(site, f),
                _ => {}
            },
            Cons::Enter(dst) => match self.objs[obj as usize] {
                Obj::Inst(_) => {
                    let name = self.name("__enter__");
                    if let Some(r) = self.implicit_call(obj, name) {
                        self.copy(r, dst);
                    }
                }
                Obj::Gen(_) => {
                    let entries = self.field(obj, self.all_name);
                    self.copy(entries, dst);
                }
                _ => {}
            },
        }
    }

    /// A function read through receiver `bind` becomes a bound method (not a static one;
    /// a class method binds the class).
    fn bind(&mut self, obj: u32, bind: u32) -> u32 {
        if bind == NONE {
            return obj;
        }
        let Obj::Func(f) = self.objs[obj as usize] else {
            return obj;
        };
        let binding = self
            .callable_of_fn
            .get(&f)
            .map_or(Binding::Normal, |c| self.callables[*c as usize].binding);
        let recv = self.objs[bind as usize];
        match (binding, recv) {
            (Binding::Static, _) => obj,
            (Binding::ClassMethod, Obj::Inst(c)) => {
                let cls = self.obj(Obj::Class(c));
                self.obj(Obj::Bound(f, cls))
            }
            (Binding::ClassMethod, _) => self.obj(Obj::Bound(f, bind)),
            (Binding::Normal, Obj::Class(_)) => obj,
            (Binding::Normal, _) => self.obj(Obj::Bound(f, bind)),
        }
    }

    fn load_sources(&mut self, obj: u32, name: u32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        match self.objs[obj as usize] {
            Obj::Inst(cid) => {
                if name == self.all_name {
                    // Iteration: `__next__` results, or the entries of what `__iter__` gives.
                    let next = self.name("__next__");
                    if let Some(r) = self.implicit_call(obj, next) {
                        out.push((r, NONE));
                    }
                    let iter = self.name("__iter__");
                    if let Some(r) = self.implicit_call(obj, iter) {
                        let elem = self.field(obj, self.all_name);
                        self.constrain(r, Cons::Load(self.all_name, elem));
                        out.push((elem, NONE));
                    }
                    return out;
                }
                if self.is_key(name) {
                    let get = self.name("__getitem__");
                    if let Some(r) = self.implicit_call(obj, get) {
                        out.push((r, NONE));
                    }
                    return out;
                }
                out.push((self.field(obj, name), NONE));
                if let Some(v) = self.class_attr(cid, name, 0) {
                    out.push((v, obj));
                }
            }
            Obj::Class(cid) => {
                if let Some(v) = self.class_attr(cid, name, 0) {
                    out.push((v, obj));
                }
            }
            Obj::Super(cid, recv) => {
                let of = match self.objs[recv as usize] {
                    Obj::Inst(c) | Obj::Class(c) => c,
                    _ => return out,
                };
                let pos = self
                    .mro
                    .get(of as usize)
                    .and_then(|m| m.iter().position(|k| *k == cid));
                if let Some(p) = pos {
                    if let Some(v) = self.class_attr(of, name, p + 1) {
                        out.push((v, recv));
                    }
                }
            }
            Obj::Module(m) => {
                let ms = self.scopes[m as usize].module;
                if let Some(v) = self.vars.get(&(m, ms, name)).copied() {
                    out.push((v, NONE));
                } else if let Some(v) = self.star_lookup(m, name, 0) {
                    out.push((v, NONE));
                } else {
                    // A submodule of a package.
                    let attr = self.name_str.get(name as usize).cloned();
                    let sub = attr.and_then(|a| {
                        let pkg = super::resolve::module_of(&self.units[m as usize].path)?.0;
                        self.index.module(&format!("{pkg}.{a}"))
                    });
                    if let Some(s) = sub {
                        let n = self.field(obj, name);
                        let o = self.obj(Obj::Module(s));
                        self.add(n, o);
                        out.push((n, NONE));
                    }
                }
            }
            _ => {
                out.push((self.field(obj, name), NONE));
                // A literal key also reads the entries stored under unknown keys.
                if name != self.all_name && name != self.empty_name && self.is_key(name) {
                    out.push((self.field(obj, self.empty_name), NONE));
                }
            }
        }
        out
    }

    fn store_target(&mut self, obj: u32, name: u32) -> Option<u32> {
        match self.objs[obj as usize] {
            Obj::Class(cid) => {
                let (file, _) = self.classes[cid as usize];
                let scope = self.class_scope[cid as usize];
                Some(self.declare(file, scope, name))
            }
            Obj::Module(m) => {
                let ms = self.scopes[m as usize].module;
                Some(self.declare(m, ms, name))
            }
            Obj::Super(..) => None,
            _ => Some(self.field(obj, name)),
        }
    }

    /// The result node of calling method `name` of instance `obj` implicitly (`__iter__`,
    /// `__next__`, `__enter__`, `__init__`, `__call__`), once per (object, name).
    fn implicit_call(&mut self, obj: u32, name: u32) -> Option<u32> {
        if let Some(r) = self.implicit.get(&(obj, name)) {
            return Some(*r);
        }
        let Obj::Inst(cid) = self.objs[obj as usize] else {
            return None;
        };
        let method = self.class_attr(cid, name, 0)?;
        let result = self.node();
        self.implicit.insert((obj, name), result);
        let callee = self.node();
        let id = self.calls.len() as u32;
        self.calls.push(Call {
            args: Vec::new(),
            kwargs: Vec::new(),
            result,
            site: NONE,
        });
        self.constrain(callee, Cons::Call(id));
        self.constrain(method, Cons::Copy(callee, obj));
        Some(result)
    }

    fn call_obj(&mut self, call: u32, obj: u32) {
        match self.objs[obj as usize] {
            Obj::Func(f) => {
                if let Some(c) = self.callable_of_fn.get(&f).copied() {
                    self.invoke(call, c, NONE);
                } else {
                    self.record(call, f);
                }
            }
            Obj::Bound(f, recv) => {
                if let Some(c) = self.callable_of_fn.get(&f).copied() {
                    self.invoke(call, c, recv);
                } else {
                    self.record(call, f);
                }
            }
            Obj::Lambda(_, c) => self.invoke(call, c, NONE),
            Obj::Class(cid) => {
                let inst = self.obj(Obj::Inst(cid));
                let result = self.calls[call as usize].result;
                self.add(result, inst);
                let init = self.name("__init__");
                self.forward(call, inst, init, false);
            }
            Obj::Inst(_) => {
                let name = self.name("__call__");
                self.forward(call, obj, name, true);
            }
            _ => {}
        }
    }

    /// Calls method `name` of instance `inst` with the arguments of `call` (its site too);
    /// the result goes to the call's result when `keep_result`.
    fn forward(&mut self, call: u32, inst: u32, name: u32, keep_result: bool) {
        if !self.forwarded.insert((inst, name, call)) {
            return;
        }
        let Obj::Inst(cid) = self.objs[inst as usize] else {
            return;
        };
        let Some(method) = self.class_attr(cid, name, 0) else {
            return;
        };
        let c = &self.calls[call as usize];
        let fwd = Call {
            args: c.args.clone(),
            kwargs: c.kwargs.clone(),
            result: if keep_result { c.result } else { NONE },
            site: c.site,
        };
        let id = self.calls.len() as u32;
        self.calls.push(fwd);
        let callee = self.node();
        self.constrain(callee, Cons::Call(id));
        self.constrain(method, Cons::Copy(callee, inst));
    }

    fn record(&mut self, call: u32, f: FnRef) {
        let site = self.calls[call as usize].site;
        self.record_site(site, f);
    }

    fn record_site(&mut self, site: u32, f: FnRef) {
        if site == NONE {
            return;
        }
        let t = &mut self.site_targets[site as usize];
        if !t.contains(&f) && t.len() < MAX_SET {
            t.push(f);
        }
    }

    /// Binds the arguments of `call` to the parameters of callable `c` (a receiver first
    /// when `recv` is set) and its return value to the call's result.
    fn invoke(&mut self, call: u32, c: u32, recv: u32) {
        if let Some(f) = self.callables[c as usize].fn_ref {
            self.record(call, f);
        }
        let params = self.callables[c as usize].params.clone();
        let ret = self.callables[c as usize].ret;
        let mut skip = 0;
        if recv != NONE {
            if let Some((_, p, _, _)) = params.first() {
                self.add(*p, recv);
            }
            skip = 1;
        }
        let (args, kwargs, result) = {
            let c = &self.calls[call as usize];
            (c.args.clone(), c.kwargs.clone(), c.result)
        };
        for (i, a) in args.iter().enumerate() {
            match params.get(i + skip) {
                Some((_, p, false, false)) => self.copy(*a, *p),
                _ => break,
            }
        }
        for (k, a) in &kwargs {
            if let Some((_, p, false, _)) = params.iter().skip(skip).find(|p| p.0 == *k) {
                self.copy(*a, *p);
            }
        }
        self.copy(ret, result);
        // A returned parameter gives back this call's argument (or the default).
        let ret_params = self.callables[c as usize].ret_params.clone();
        for k in ret_params {
            if k == 0 && recv != NONE {
                self.add(result, recv);
                continue;
            }
            let by_position = k.checked_sub(skip).and_then(|i| args.get(i)).copied();
            let by_name = params
                .get(k)
                .and_then(|p| kwargs.iter().find(|(n, _)| *n == p.0))
                .map(|(_, a)| *a);
            match by_position.or(by_name) {
                Some(a) => self.copy(a, result),
                None => {
                    if let Some((_, p, _, _)) = params.get(k) {
                        self.copy(*p, result);
                    }
                }
            }
        }
    }

    fn container_call(&mut self, id: u32, obj: u32) {
        if !matches!(self.objs[obj as usize], Obj::Coll(..) | Obj::Gen(_)) {
            return;
        }
        let (op, args, result) = {
            let c = &self.containers[id as usize];
            (c.method, c.args.clone(), c.result)
        };
        let entries = self.field(obj, self.empty_name);
        match op {
            ContainerOp::Put => {
                if let Some(a) = args.last() {
                    self.copy(*a, entries);
                }
            }
            ContainerOp::Extend => {
                if let Some(a) = args.first() {
                    self.constrain(*a, Cons::Load(self.all_name, entries));
                }
            }
            ContainerOp::Get => {
                let all = self.field(obj, self.all_name);
                self.copy(all, result)
            }
            ContainerOp::View => self.add(result, obj),
        }
    }

    /// A decorator whose value holds nothing callable (it is outside the repository, or
    /// unknown), or with `empty_results` one whose result holds nothing, leaves the
    /// function it decorates. True when a fallback was added.
    fn decorator_fallback(&mut self, empty_results: bool) -> bool {
        let mut any = false;
        for i in 0..self.decorators.len() {
            if self.fallen_back.contains(&i) {
                continue;
            }
            let (callee, arg, result) = self.decorators[i];
            let callable = self.pts[callee as usize].iter().any(|o| {
                matches!(
                    self.objs[*o as usize],
                    Obj::Func(_) | Obj::Bound(..) | Obj::Lambda(..) | Obj::Class(_) | Obj::Inst(_)
                )
            });
            // A decorator of the repository whose result is unknown (it returns what a
            // library call made) is taken to keep the function too.
            if !callable || empty_results && self.pts[result as usize].is_empty() {
                self.fallen_back.insert(i);
                self.copy(arg, result);
                any = true;
            }
        }
        any
    }

    fn finish(mut self) -> Flow {
        let mut implicit: HashMap<FnRef, Vec<(String, u32, FnRef)>> = HashMap::default();
        for &i in &self.implicit_sites {
            let (caller, line, text) = &self.sites[i];
            let mut t = std::mem::take(&mut self.site_targets[i]);
            t.sort();
            let at = implicit.entry(*caller).or_default();
            for f in t {
                let e = (text.clone(), *line, f);
                if !at.contains(&e) {
                    at.push(e);
                }
            }
        }
        for v in implicit.values_mut() {
            v.sort_by_key(|(_, line, _)| *line);
        }
        let mut targets: HashMap<(FnRef, u32), SitesAt> = HashMap::default();
        for ((caller, line, text), t) in self.sites.into_iter().zip(self.site_targets) {
            if t.is_empty() {
                continue;
            }
            let at = targets.entry((caller, line)).or_default();
            let k = match at.iter().position(|(x, _)| *x == text) {
                Some(k) => k,
                None => {
                    at.push((text, Vec::new()));
                    at.len() - 1
                }
            };
            let e = &mut at[k].1;
            for f in t {
                if !e.contains(&f) {
                    e.push(f);
                }
            }
            e.sort();
        }
        let mut stats = self.stats;
        stats.nodes = self.pts.len();
        // A decorator that returns something else than the function rebinds its name.
        let redirected = self
            .decorated
            .iter()
            .filter(|(f, node)| {
                let set = &self.pts[*node as usize];
                !set.is_empty()
                    && self
                        .obj_ids
                        .get(&Obj::Func(*f))
                        .is_none_or(|o| !set.contains(o))
            })
            .map(|(f, _)| *f)
            .collect();
        Flow {
            targets,
            implicit,
            redirected,
            stats,
        }
    }
}

/// A name or attribute chain as written (`helper`, `Item.size`); `None` for other
/// expressions.
fn dotted(f: &Facts, mut x: u32) -> Option<String> {
    let mut parts = Vec::new();
    loop {
        match f.exprs.get(x as usize)? {
            Ex::Name(_, n) => {
                parts.push(n.as_str());
                break;
            }
            Ex::Attr(base, a) => {
                parts.push(a.as_str());
                x = *base;
            }
            _ => return None,
        }
    }
    parts.reverse();
    Some(parts.join("."))
}

/// The name an import binds in its module.
fn bound_name(imp: &Import) -> &str {
    match (&imp.alias, &imp.name) {
        (Some(a), _) => a.as_str(),
        (None, Some(n)) => n.as_str(),
        (None, None) => imp.module.split('.').next().unwrap_or_default(),
    }
}

/// Depth-first, left-to-right order of a class and its bases (no repeats).
fn dfs(c: u32, bases: &[Vec<u32>]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut stack = vec![c];
    while let Some(k) = stack.pop() {
        if out.contains(&k) || out.len() > MAX_MRO {
            continue;
        }
        out.push(k);
        if let Some(b) = bases.get(k as usize) {
            stack.extend(b.iter().rev());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::{Lang, Registry};
    use crate::resolve::{resolve, SourceUnit};

    fn edges(x: &mut Extractor, src: &str) -> Vec<(String, Option<String>, bool)> {
        let mut out = x.extract(Lang::Python, src).expect("parses");
        let extra = Lang::Python
            .def()
            .code_nodes(&mut out.functions, &out.info, src);
        let units = vec![SourceUnit {
            path: "m.py".into(),
            lang: Lang::Python,
            info: out.info,
            functions: out.functions,
            extra,
        }];
        let (edges, _) = resolve(&units);
        edges
            .iter()
            .map(|e| {
                let caller = &units[0].node(e.caller.func).qualified_name;
                let callee = e
                    .callee
                    .map(|c| units[0].node(c.func).qualified_name.clone());
                (format!("{caller}:{}", e.name), callee, e.via_flow)
            })
            .collect()
    }

    /// A file parsed in windows (huge files) gives the analysis the same facts as whole.
    #[test]
    fn windowed_extraction_gives_the_same_value_flow() {
        let src = "def a():\n    pass\n\n\
                   class K:\n    def m(self, f):\n        self.f = f\n\n\
                   \x20   def n(self):\n        self.f()\n\n\
                   def b(f):\n    f()\n\n\
                   def c():\n    b(a)\n    K().m(lambda: a())\n\n\
                   TABLE = {\"x\": a}\n\n\
                   def d():\n    TABLE[\"x\"]()\n";
        let whole = edges(&mut Extractor::default(), src);
        let mut x = Extractor::with_windows(16, 16);
        let windowed = edges(&mut x, src);
        assert!(x.windowed_files() == 1, "the file was cut into windows");
        assert_eq!(whole, windowed);
        for want in [
            ("b:f", Some("a")),
            ("d:TABLE[\"x\"]", Some("a")),
            ("K.n:self.f", None),
        ] {
            assert!(
                whole
                    .iter()
                    .any(|(s, c, vf)| s == want.0 && c.as_deref() == want.1 && (*vf || c.is_none())),
                "{want:?} in {whole:?}"
            );
        }
    }
}
