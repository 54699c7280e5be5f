//! The Python resolver.
//!
//! Each file is a module (`a/b/c.py` is `a.b.c`, `a/b/__init__.py` is `a.b`; an absolute
//! import also matches a module path that ends with it, for `src/` layouts). Names are
//! looked up as Python does, statically: functions nested in the caller, module-level
//! functions and classes of the file, then its imports (`import a.b as c`, `from x import
//! y`, relative imports, re-exports through `__init__.py`), then builtins. `self.m()` and
//! `cls.m()` go through the caller's class and its bases in the repository (depth first, in
//! declaration order), `super().m()` through the bases only, `Class.m()` and `Class()` (its
//! `__init__`) through the class; `x.m()` when `x = Class(...)` or `x: Class` in the
//! function. Modules in `sys.stdlib_module_names` and builtins are `stdlib`; other imports
//! are `external_binaries`.

use std::collections::{HashMap, HashSet};

use super::stdlib;
use crate::resolve::{FnRef, SourceUnit, Sym, Target};
use crate::extract::{CallKind, CallSite, ClassInfo, Import};
use crate::{Lang, Registry};

/// How deep re-exports and base classes are followed.
const MAX_HOPS: usize = 16;

pub(crate) struct Index<'u> {
    units: &'u [SourceUnit],
    /// Module name to file.
    modules: HashMap<String, u32>,
    /// Every dotted suffix of a module name to the files that have it (`b.c` for `a.b.c`).
    suffixes: HashMap<String, Vec<u32>>,
    /// Per file: the module's package (for relative imports) and its name.
    package: Vec<String>,
    /// Per file: top-level functions and functions of classes, by (scope, name).
    defs: Vec<HashMap<(&'u str, &'u str), Vec<FnRef>>>,
    /// Per file: classes by qualified name within the file.
    classes: Vec<HashMap<&'u str, &'u ClassInfo>>,
    /// Per file: names bound by imports.
    bindings: Vec<HashMap<&'u str, &'u Import>>,
    /// What the value-flow analysis adds to the names.
    flow: super::flow::Flow,
}

pub(super) fn module_of(path: &str) -> Option<(String, bool)> {
    let stem = path.strip_suffix(".py")?;
    let (module, is_init) = match stem.strip_suffix("/__init__") {
        Some(pkg) => (pkg.to_string(), true),
        None if stem == "__init__" => (String::new(), true),
        None => (stem.to_string(), false),
    };
    Some((module.replace('/', "."), is_init))
}

impl<'u> Index<'u> {
    pub(crate) fn new(units: &'u [SourceUnit]) -> Self {
        let mut modules = HashMap::new();
        let mut suffixes: HashMap<String, Vec<u32>> = HashMap::new();
        let mut package = Vec::with_capacity(units.len());
        let mut defs = Vec::with_capacity(units.len());
        let mut classes = Vec::with_capacity(units.len());
        let mut bindings = Vec::with_capacity(units.len());
        for (fi, u) in units.iter().enumerate() {
            let mut d: HashMap<(&str, &str), Vec<FnRef>> = HashMap::new();
            let mut c = HashMap::new();
            let mut b = HashMap::new();
            let mut pkg = String::new();
            if u.lang == Lang::Python {
                if let Some((module, is_init)) = module_of(&u.path) {
                    pkg = if is_init {
                        module.clone()
                    } else {
                        module
                            .rsplit_once('.')
                            .map_or(String::new(), |(p, _)| p.to_string())
                    };
                    let parts: Vec<&str> = module.split('.').collect();
                    for i in 1..parts.len() {
                        suffixes
                            .entry(parts[i..].join("."))
                            .or_default()
                            .push(fi as u32);
                    }
                    modules.insert(module, fi as u32);
                }
                for (gi, f) in u.functions.iter().enumerate() {
                    d.entry((f.scope.as_str(), f.name.as_str()))
                        .or_default()
                        .push(FnRef {
                            file: fi as u32,
                            func: gi as u32,
                        });
                }
                for class in &u.info.classes {
                    c.insert(class.name.as_str(), class);
                }
                for imp in &u.info.imports {
                    if imp.wildcard {
                        continue;
                    }
                    let bound = match (&imp.alias, &imp.name) {
                        (Some(a), _) => a.as_str(),
                        (None, Some(n)) => n.as_str(),
                        // `import a.b` binds `a`.
                        (None, None) => imp.module.split('.').next().unwrap_or_default(),
                    };
                    b.insert(bound, imp);
                }
            }
            package.push(pkg);
            defs.push(d);
            classes.push(c);
            bindings.push(b);
        }
        let mut index = Self {
            units,
            modules,
            suffixes,
            package,
            defs,
            classes,
            bindings,
            flow: Default::default(),
        };
        index.flow = super::flow::Flow::build(units, &index);
        index
    }

    /// The file of an absolute module name: an exact match, else the shortest path whose
    /// module name ends with it.
    pub(super) fn module(&self, name: &str) -> Option<u32> {
        if let Some(f) = self.modules.get(name) {
            return Some(*f);
        }
        self.suffixes.get(name).and_then(|v| {
            v.iter()
                .min_by_key(|f| {
                    let p = &self.units[**f as usize].path;
                    (p.len(), p.as_str())
                })
                .copied()
        })
    }

    /// The absolute module name an import refers to from `file`.
    pub(super) fn absolute(&self, file: u32, imp_module: &str, level: u32) -> String {
        if level == 0 {
            return imp_module.to_string();
        }
        let mut base: Vec<&str> = self.package[file as usize]
            .split('.')
            .filter(|s| !s.is_empty())
            .collect();
        for _ in 1..level {
            base.pop();
        }
        if !imp_module.is_empty() {
            base.push(imp_module);
        }
        base.join(".")
    }

    /// What `module` (absolute) is: a file of the repository, else stdlib or third party.
    fn module_sym(&self, module: &str, relative: bool) -> Sym<'u> {
        if let Some(f) = self.module(module) {
            return Sym::Module(f);
        }
        let top = module.split('.').next().unwrap_or_default();
        if !relative && stdlib::is_python_module(top) {
            Sym::Stdlib
        } else {
            Sym::External
        }
    }

    /// What an import binding denotes.
    pub(super) fn import_sym(&self, file: u32, imp: &Import, hops: usize) -> Option<Sym<'u>> {
        let module = self.absolute(file, &imp.module, imp.level);
        match &imp.name {
            None => Some(self.module_sym(&module, imp.level > 0)),
            Some(name) => {
                // `from pkg import sub` may name a submodule.
                let sub = if module.is_empty() {
                    name.clone()
                } else {
                    format!("{module}.{name}")
                };
                match self.module_sym(&module, imp.level > 0) {
                    Sym::Module(f) => self
                        .member(f, name, hops + 1)
                        .or_else(|| self.module(&sub).map(Sym::Module)),
                    other => Some(self.module(&sub).map_or(other, Sym::Module)),
                }
            }
        }
    }

    /// What `name` denotes at the top level of module `file`: a function, a class, or a
    /// name it imports (re-exports).
    fn member(&self, file: u32, name: &str, hops: usize) -> Option<Sym<'u>> {
        if hops > MAX_HOPS {
            return None;
        }
        let f = file as usize;
        if let Some(v) = self.defs[f].get(&("", name)) {
            // The last definition wins at run time.
            return v.last().map(|r| Sym::Function(*r));
        }
        if let Some(c) = self.classes[f].get(name) {
            return Some(Sym::Class(file, c));
        }
        if let Some(imp) = self.bindings[f].get(name) {
            return self.import_sym(file, imp, hops);
        }
        // `from m import *` of a module of the repository.
        for imp in self.units[f].info.imports.iter().filter(|i| i.wildcard) {
            let module = self.absolute(file, &imp.module, imp.level);
            if let Some(m) = self.module(&module) {
                if m != file {
                    if let Some(s) = self.member(m, name, hops + 1) {
                        return Some(s);
                    }
                }
            }
        }
        None
    }

    /// A name as the function `caller` sees it.
    fn lookup(&self, caller: FnRef, name: &str) -> Option<Sym<'u>> {
        let u = &self.units[caller.file as usize];
        let f = u.node(caller.func);
        // Functions nested in the caller or in its enclosing functions, and classes of
        // enclosing scopes.
        let mut scope = f.qualified_name.as_str();
        loop {
            if let Some(v) = self.defs[caller.file as usize].get(&(scope, name)) {
                if !scope.is_empty() && !self.classes[caller.file as usize].contains_key(scope) {
                    return v.last().map(|r| Sym::Function(*r));
                }
            }
            match scope.rfind('.') {
                Some(i) => scope = &scope[..i],
                None => break,
            }
        }
        if let Some(s) = self.member(caller.file, name, 0) {
            return Some(s);
        }
        if stdlib::is_python_builtin(name) {
            return Some(Sym::Stdlib);
        }
        // An external wildcard import may provide it.
        let external_star = u.info.imports.iter().any(|i| {
            i.wildcard
                && self
                    .module(&self.absolute(caller.file, &i.module, i.level))
                    .is_none()
        });
        external_star.then_some(Sym::External)
    }

    /// `name` as an attribute of class `c` (defined in `file`) or its bases.
    fn method(&self, file: u32, c: &'u ClassInfo, name: &str, skip_self: bool) -> Option<Target> {
        let mut stack: Vec<(u32, &ClassInfo, bool)> = vec![(file, c, skip_self)];
        let mut seen: HashSet<(u32, &str)> = HashSet::new();
        let mut outside: Option<Target> = None;
        while let Some((f, class, skip)) = stack.pop() {
            if !seen.insert((f, class.name.as_str())) || seen.len() > MAX_HOPS * 4 {
                continue;
            }
            if !skip {
                // The last definition in the class body wins, as at run time.
                if let Some(r) = self.defs[f as usize]
                    .get(&(class.name.as_str(), name))
                    .and_then(|v| v.last())
                {
                    return Some(Target::Function(*r, 1));
                }
            }
            for b in class.bases.iter().rev() {
                match self.base(f, class, b) {
                    Some(Sym::Class(bf, bc)) => stack.push((bf, bc, false)),
                    Some(Sym::Stdlib) => {
                        outside.get_or_insert(Target::Stdlib);
                    }
                    Some(Sym::External) => {
                        outside.get_or_insert(Target::External);
                    }
                    _ => {}
                }
            }
        }
        // Dunder methods not defined in the repository come from `object`.
        outside
            .or_else(|| (name.starts_with("__") && name.ends_with("__")).then_some(Target::Stdlib))
    }

    /// The class a base-class expression names, seen from the file of `class`.
    pub(super) fn base(&self, file: u32, class: &ClassInfo, base: &str) -> Option<Sym<'u>> {
        if base == "object" {
            return Some(Sym::Stdlib);
        }
        // A sibling class in the same enclosing scope, then module level.
        if let Some((outer, _)) = class.name.rsplit_once('.') {
            if let Some(c) = self.classes[file as usize].get(format!("{outer}.{base}").as_str()) {
                return Some(Sym::Class(file, c));
            }
        }
        self.dotted(file, base)
    }

    /// A possibly dotted name (`mod.Class`) at module level of `file`.
    fn dotted(&self, file: u32, name: &str) -> Option<Sym<'u>> {
        let mut parts = name.split('.');
        let first = parts.next()?;
        let mut sym = self
            .member(file, first, 0)
            .or_else(|| stdlib::is_python_builtin(first).then_some(Sym::Stdlib))?;
        // `import a.b` binds `a` but `a.b` is the module a.b.
        let mut path = first.to_string();
        for p in parts {
            path.push('.');
            path.push_str(p);
            sym = match sym {
                Sym::Module(m) => {
                    let by_binding = self.bindings[file as usize]
                        .get(first)
                        .filter(|i| i.name.is_none() && i.alias.is_none())
                        .and_then(|_| self.module(&path));
                    match by_binding.or_else(|| {
                        let sub = format!("{}.{p}", self.module_name(m)?);
                        self.module(&sub)
                    }) {
                        Some(sub) => Sym::Module(sub),
                        None => self.member(m, p, 0)?,
                    }
                }
                Sym::Class(f, c) => {
                    let nested = format!("{}.{p}", c.name);
                    Sym::Class(f, *self.classes[f as usize].get(nested.as_str())?)
                }
                s @ (Sym::Stdlib | Sym::External) => s,
                Sym::Function(_) => return None,
            };
        }
        Some(sym)
    }

    fn module_name(&self, file: u32) -> Option<String> {
        module_of(&self.units[file as usize].path).map(|(m, _)| m)
    }

    /// The class enclosing the function `caller` (for `self`, `cls`, `super()`).
    fn own_class(&self, caller: FnRef) -> Option<&'u ClassInfo> {
        let f = self.units[caller.file as usize].node(caller.func);
        let classes = &self.classes[caller.file as usize];
        let mut scope = f.scope.as_str();
        loop {
            if let Some(c) = classes.get(scope) {
                return Some(c);
            }
            scope = &scope[..scope.rfind('.')?];
        }
    }

    fn call_sym(&self, sym: Sym<'u>, name: Option<&str>) -> Target {
        match (sym, name) {
            (Sym::Function(r), None) => Target::Function(r, 1),
            (Sym::Class(f, c), None) => self
                .method(f, c, "__init__", false)
                .filter(|t| matches!(t, Target::Function(..)))
                .unwrap_or(Target::RepoFile(f)),
            (Sym::Class(f, c), Some(m)) => {
                self.method(f, c, m, false).unwrap_or(Target::Unresolved)
            }
            (Sym::Module(f), Some(m)) => match self.member(f, m, 0) {
                Some(s) => self.call_sym(s, None),
                None => Target::Unresolved,
            },
            (Sym::Stdlib, _) => Target::Stdlib,
            (Sym::External, _) => Target::External,
            _ => Target::Unresolved,
        }
    }

    pub(crate) fn resolve_call(&self, caller: FnRef, call: &CallSite) -> Target {
        match &call.kind {
            CallKind::Plain => match self.lookup(caller, &call.name) {
                Some(s) => self.call_sym(s, None),
                None => Target::Unresolved,
            },
            CallKind::Member(recv) => self.member_call(caller, recv, &call.name),
            _ => Target::Unresolved,
        }
    }

    fn member_call(&self, caller: FnRef, recv: &str, name: &str) -> Target {
        if recv == "self" || recv == "cls" {
            return match self.own_class(caller) {
                Some(c) => self
                    .method(caller.file, c, name, false)
                    .unwrap_or(Target::Unresolved),
                None => Target::Unresolved,
            };
        }
        if recv == "super()" {
            return match self.own_class(caller) {
                Some(c) => self
                    .method(caller.file, c, name, true)
                    .unwrap_or(Target::Unresolved),
                None => Target::Unresolved,
            };
        }
        let f = self.units[caller.file as usize].node(caller.func);
        let first = recv.split('.').next().unwrap_or(recv);
        // A local variable whose class is known.
        if !recv.contains('.') {
            if let Some((_, ty)) = f.locals.iter().rev().find(|(n, _)| n == recv) {
                return match self.dotted_from(caller, ty) {
                    Some(s @ Sym::Class(..)) => self.call_sym(s, Some(name)),
                    Some(Sym::Stdlib) => Target::Stdlib,
                    Some(Sym::External) => Target::External,
                    _ => Target::Unresolved,
                };
            }
            if f.locals.iter().any(|(n, _)| n == first) {
                return Target::Unresolved;
            }
        }
        if !recv
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        {
            // A call, subscript or literal receiver: its type is unknown.
            return Target::Unresolved;
        }
        match self.dotted_from(caller, recv) {
            Some(s) => self.call_sym(s, Some(name)),
            None => Target::Unresolved,
        }
    }

    /// A dotted name seen from inside `caller` (enclosing classes first).
    fn dotted_from(&self, caller: FnRef, name: &str) -> Option<Sym<'u>> {
        let first = name.split('.').next().unwrap_or(name);
        match self.lookup(caller, first) {
            Some(Sym::Function(_)) | None => None,
            Some(_) => self.dotted(caller.file, name),
        }
    }
}

impl Index<'_> {
    /// The file whose module-level `name = ...` a name of `caller` denotes: the caller's
    /// own module, a name imported from a module of the repository, or `module.name` for
    /// an imported module `recv`.
    fn constant(&self, caller: FnRef, recv: Option<&str>, name: &str) -> Option<u32> {
        let file = caller.file;
        let has = |f: u32, n: &str| {
            self.units[f as usize]
                .info
                .constants
                .iter()
                .any(|(c, _)| c == n)
        };
        let imported = |imp: &Import| {
            let module = self.absolute(file, &imp.module, imp.level);
            self.module(&module)
        };
        match recv {
            None => {
                if let Some(imp) = self.bindings[file as usize].get(name) {
                    let m = imported(imp)?;
                    let n = imp.name.as_deref()?;
                    return has(m, n).then_some(m);
                }
                has(file, name).then_some(file)
            }
            Some(r) => {
                let imp = self.bindings[file as usize].get(r)?;
                if imp.name.is_some() {
                    return None;
                }
                let m = imported(imp)?;
                has(m, name).then_some(m)
            }
        }
    }
}

impl crate::resolve::Resolver for Index<'_> {
    fn resolve_name(&self, caller: FnRef, call: &CallSite) -> Target {
        match self.resolve(caller, call) {
            Target::Unresolved => {
                let recv = match &call.kind {
                    CallKind::Plain => None,
                    CallKind::Member(r) => Some(r.as_str()),
                    _ => return Target::Unresolved,
                };
                self.constant(caller, recv, &call.name)
                    .map_or(Target::Unresolved, Target::RepoFile)
            }
            t => t,
        }
    }

    fn resolve(&self, caller: FnRef, call: &CallSite) -> Target {
        let t = self.resolve_call(caller, call);
        // A decorated name bound to what its decorator returned: the value flow answers.
        match t {
            Target::Function(r, _)
                if self.flow.redirected(r) && !self.flow.targets(caller, call).is_empty() =>
            {
                Target::Unresolved
            }
            t => t,
        }
    }

    fn flow_targets(&self, caller: FnRef, call: &CallSite) -> Vec<FnRef> {
        self.flow.targets(caller, call).to_vec()
    }

    fn implicit_calls(&self, caller: FnRef) -> Vec<(String, u32, FnRef)> {
        self.flow.implicit(caller).to_vec()
    }

    fn flow_counts(&self) -> crate::resolve::FlowCounts {
        let s = &self.flow.stats;
        crate::resolve::FlowCounts {
            flow_nodes: s.nodes,
            flow_steps: s.steps,
            flow_truncated: s.truncated,
            flow_step_limit: usize::from(s.step_limit),
        }
    }
}
