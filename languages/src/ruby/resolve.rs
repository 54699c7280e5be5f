//! The Ruby resolver.
//!
//! Ruby loads code by `require` but finds methods through constants, and a class or module
//! is the union of all its definitions, in any file. So classes and modules are indexed by
//! their constant path (`A::B::C`, from `module A; class B::C`) over the whole repository,
//! each with the union of its superclass, `include`d/`prepend`ed and `extend`ed modules.
//!
//! - `m(x)`, `m` (a bare name that is no local variable), `self.m`: the caller's class (its singleton side for `def self.x` and
//!   `class << self` methods) and its ancestors; then top-level `def`s of the repository
//!   (private methods of Object), preferring the caller's file and the files it requires;
//!   then Kernel/Object/Module methods (`stdlib`); then an ancestor outside the repository
//!   (its category). In a module's instance method, the classes that include the module
//!   are searched too. `attr_reader`/`attr_accessor`/`attr_writer` and `define_method(:m)`
//!   define methods without a function node: a call to one reaches its class's file.
//! - `super`: the same name in the ancestors of the caller's class.
//! - `Const.new`: `initialize` of the class or its ancestors (the class's file when it has
//!   none); `Const.m`: singleton methods (`def self.m`, `class << self`, `extend`ed modules,
//!   inherited class methods), then the module's own methods (`module_function`).
//!   Constants are looked up lexically from the caller's class outward; a constant not
//!   defined in the repository is `stdlib` when Ruby's core or standard library defines it,
//!   else a gem's (`external_binaries`).
//! - `x.m` where `x = Const.new` in the function: instance methods of `Const`.
//! - A literal receiver (`"s".m`, `[1].m`), or any receiver when no method of that name is
//!   defined in the repository at all: `stdlib` when the name is a core method.
//!
//! `require_relative` paths resolve to files of the repository; `require 'x'` to `x.rb`
//! under a `lib/` folder of the repository (or at its root) when there is one, else to
//! Ruby's standard library when it has `x`, else to a gem. Constants that neither the
//! repository nor Ruby defines are a gem's only when the repository requires some gem.

use std::collections::{HashMap, HashSet};

use super::extract::{ATTR, ATTR_SELF, EXTEND_PREFIX, SUPER_PREFIX, VALUE_FIELD};
use super::stdlib;
use crate::extract::{CallKind, CallSite, ClassInfo, FunctionKind};
use crate::{Lang, Registry};
use crate::resolve::{dir_of, func, normalize_path, pick, FnRef, SourceUnit, Target};

/// How many ancestors are followed.
const MAX_ANCESTORS: usize = 64;

/// A class or module path (`A::B::C`) from a scope (`A.B::C`) or a constant as written
/// (`::A::B`: the leading `::` is dropped).
fn canon(scope: &str) -> String {
    let mut out = String::with_capacity(scope.len() + 4);
    for part in scope.split('.').flat_map(|s| s.split("::")) {
        if part.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str("::");
        }
        out.push_str(part);
    }
    out
}

/// The enclosing namespace of a path (`A::B` for `A::B::C`, empty at top level).
fn parent_path(path: &str) -> &str {
    path.rsplit_once("::").map_or("", |(p, _)| p)
}

#[derive(Default)]
struct Methods {
    instance: Vec<FnRef>,
    singleton: Vec<FnRef>,
}

/// What a constant denotes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Const {
    /// A class or module of the repository, by path.
    Repo(String),
    /// A constant of the repository holding a value that is not a class.
    Value,
    Stdlib,
    External,
    /// Defined nowhere we know of, in a repository that requires no gem.
    Unknown,
}

/// Where a method lookup through a class's ancestors ended.
#[derive(Debug, Default)]
struct Found {
    repo: Vec<FnRef>,
    /// An attribute method (`attr_reader`, `define_method`) of a class in this file.
    attr: Option<u32>,
    /// An ancestor outside the repository: a gem's, or Ruby's.
    external: bool,
    stdlib: bool,
}

impl Found {
    /// The repository's method or attribute.
    fn target(&self, units: &[SourceUnit]) -> Option<Target> {
        pick(units, self.repo.clone()).or(self.attr.map(Target::RepoFile))
    }

    fn outside(&self) -> Option<Target> {
        if self.external {
            Some(Target::External)
        } else if self.stdlib {
            Some(Target::Stdlib)
        } else {
            None
        }
    }
}

pub(crate) struct Index<'u> {
    units: &'u [SourceUnit],
    /// Class or module path to its definitions (a reopened class has several).
    classes: HashMap<String, Vec<(u32, &'u ClassInfo)>>,
    /// Paths of constants holding values.
    values: HashSet<String>,
    /// Methods by (class path, name).
    methods: HashMap<(String, &'u str), Methods>,
    /// Attribute methods by (class path, name, singleton side): the file declaring them.
    attrs: HashMap<(String, &'u str, bool), u32>,
    /// Modules to the classes and modules that include them.
    includers: HashMap<String, Vec<String>>,
    /// Top-level `def`s by name.
    globals: HashMap<&'u str, Vec<FnRef>>,
    /// Every method name defined in the repository.
    names: HashSet<&'u str>,
    /// Per file: the class path of each function (empty at top level).
    owner: Vec<Vec<String>>,
    /// Per file: the files of the repository it requires.
    requires: Vec<HashSet<u32>>,
    /// Some file requires a library that is neither in the repository nor in Ruby's
    /// standard library: a gem, whose constants are then `external_binaries`.
    uses_gems: bool,
}

impl<'u> Index<'u> {
    pub(crate) fn new(units: &'u [SourceUnit]) -> Self {
        let mut classes: HashMap<String, Vec<(u32, &ClassInfo)>> = HashMap::new();
        let mut values = HashSet::new();
        let mut attrs = HashMap::new();
        let mut files: HashMap<&str, u32> = HashMap::new();
        for (fi, u) in units.iter().enumerate() {
            if u.lang != Lang::Ruby {
                continue;
            }
            files.insert(u.path.as_str(), fi as u32);
            for c in &u.info.classes {
                let is_value = c.fields.iter().any(|(n, t)| (n.as_str(), t.as_str()) == VALUE_FIELD);
                if is_value {
                    values.insert(canon(&c.name));
                    continue;
                }
                let path = canon(&c.name);
                for (name, side) in &c.fields {
                    if side == ATTR || side == ATTR_SELF {
                        attrs
                            .entry((path.clone(), name.as_str(), side == ATTR_SELF))
                            .or_insert(fi as u32);
                    }
                }
                classes.entry(path).or_default().push((fi as u32, c));
            }
        }
        let mut methods: HashMap<(String, &str), Methods> = HashMap::new();
        let mut globals: HashMap<&str, Vec<FnRef>> = HashMap::new();
        let mut names = HashSet::new();
        let mut owner = Vec::with_capacity(units.len());
        let mut requires = Vec::with_capacity(units.len());
        let mut uses_gems = false;
        for (fi, u) in units.iter().enumerate() {
            let mut own = Vec::new();
            let mut req = HashSet::new();
            if u.lang == Lang::Ruby {
                for (gi, f) in u.functions.iter().enumerate() {
                    let r = FnRef {
                        file: fi as u32,
                        func: gi as u32,
                    };
                    // The innermost enclosing class (a `def` nested in a `def` belongs to
                    // the outer one's class).
                    let mut path = canon(&f.scope);
                    while !path.is_empty() && !classes.contains_key(&path) {
                        path = parent_path(&path).to_string();
                    }
                    names.insert(f.name.as_str());
                    if path.is_empty() {
                        // Top-level `def`s only: one in a block belongs to the block's self.
                        if f.kind == FunctionKind::Function {
                            globals.entry(f.name.as_str()).or_default().push(r);
                        }
                    } else {
                        let m = methods.entry((path.clone(), f.name.as_str())).or_default();
                        if f.details.is_static {
                            m.singleton.push(r);
                        } else {
                            m.instance.push(r);
                        }
                    }
                    own.push(path);
                }
                for imp in &u.info.imports {
                    match required_file(&files, &u.path, &imp.module, imp.level > 0) {
                        Some(f) => {
                            req.insert(f);
                        }
                        None if imp.level == 0 => {
                            let lib = imp.module.strip_suffix(".rb").unwrap_or(&imp.module);
                            uses_gems |= !stdlib::is_stdlib_library(lib);
                        }
                        None => {}
                    }
                }
            }
            owner.push(own);
            requires.push(req);
        }
        let mut index = Self {
            units,
            classes,
            values,
            methods,
            attrs,
            includers: HashMap::new(),
            globals,
            names,
            owner,
            requires,
            uses_gems,
        };
        let mut includers: HashMap<String, Vec<String>> = HashMap::new();
        for (path, defs) in &index.classes {
            for (_, class) in defs {
                for base in &class.bases {
                    if base.starts_with(SUPER_PREFIX) || base.starts_with(EXTEND_PREFIX) {
                        continue;
                    }
                    if let Const::Repo(m) = index.constant(path, base) {
                        includers.entry(m).or_default().push(path.clone());
                    }
                }
            }
        }
        for v in includers.values_mut() {
            v.sort();
            v.dedup();
        }
        index.includers = includers;
        index
    }

    /// A constant as written (`Foo`, `A::Foo`, `::Foo`), seen from class path `ctx`: each
    /// enclosing namespace outward, then top level.
    fn constant(&self, ctx: &str, name: &str) -> Const {
        let absolute = name.starts_with("::");
        let name = canon(name);
        let mut prefix = if absolute { "" } else { ctx };
        loop {
            let path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}::{name}")
            };
            if self.classes.contains_key(&path) {
                return Const::Repo(path);
            }
            if self.values.contains(&path) {
                return Const::Value;
            }
            if prefix.is_empty() {
                break;
            }
            prefix = parent_path(prefix);
        }
        let first = name.split("::").next().unwrap_or_default();
        if stdlib::is_stdlib_constant(first) {
            Const::Stdlib
        } else if self.uses_gems {
            Const::External
        } else {
            Const::Unknown
        }
    }

    /// The ancestors of class `path` (itself first), depth first: later mixins before
    /// earlier ones and the superclass, as Ruby's method lookup goes. `singleton` follows
    /// the class's singleton side: `extend`ed modules (whose instance methods become the
    /// class's) and the superclass's singleton side. Each entry says whether its instance
    /// (false) or singleton (true) methods apply.
    fn ancestors(&self, path: &str, singleton: bool, found: &mut Found) -> Vec<(String, bool)> {
        let mut out: Vec<(String, bool)> = Vec::new();
        let mut seen: HashSet<(String, bool)> = HashSet::new();
        let mut stack = vec![(path.to_string(), singleton)];
        while let Some((p, single)) = stack.pop() {
            if out.len() >= MAX_ANCESTORS || !seen.insert((p.clone(), single)) {
                continue;
            }
            let Some(defs) = self.classes.get(&p) else {
                continue;
            };
            let mut next = Vec::new();
            for (_, class) in defs {
                for base in &class.bases {
                    // A superclass serves both sides; `extend` adds a module's instance
                    // methods to the singleton side, `include` to the instance side.
                    let (name, side) = if let Some(b) = base.strip_prefix(SUPER_PREFIX) {
                        (b, single)
                    } else if let Some(b) = base.strip_prefix(EXTEND_PREFIX) {
                        if !single {
                            continue;
                        }
                        (b, false)
                    } else {
                        if single {
                            continue;
                        }
                        (base.as_str(), false)
                    };
                    match self.constant(&p, name) {
                        Const::Repo(b) if b != p => next.push((b, side)),
                        Const::Stdlib => found.stdlib = true,
                        Const::External => found.external = true,
                        _ => {}
                    }
                }
            }
            out.push((p, single));
            // Popped last-pushed first: later mixins are searched before earlier ones.
            stack.extend(next);
        }
        out
    }

    /// Methods named `name` of class `path` and its ancestors: the first ancestor that
    /// defines one wins. `skip_self` starts at the ancestors (`super`).
    fn lookup(&self, path: &str, name: &str, singleton: bool, skip_self: bool) -> Found {
        let mut found = Found::default();
        let chain = self.ancestors(path, singleton, &mut found);
        for (p, single) in chain.iter().skip(usize::from(skip_self)) {
            if let Some(m) = self.methods.get(&(p.clone(), name)) {
                let v = if *single { &m.singleton } else { &m.instance };
                if !v.is_empty() {
                    found.repo = v.clone();
                    return found;
                }
            }
            if let Some(f) = self.attrs.get(&(p.clone(), name, *single)) {
                found.attr = Some(*f);
                return found;
            }
        }
        found
    }

    fn pick(&self, cands: Vec<FnRef>) -> Option<Target> {
        pick(self.units, cands)
    }

    /// A top-level `def` of the repository: in the caller's file, else in the files it
    /// requires, else anywhere.
    fn global(&self, caller: FnRef, name: &str) -> Option<Target> {
        let v = self.globals.get(name)?;
        let same: Vec<FnRef> = v.iter().copied().filter(|r| r.file == caller.file).collect();
        if !same.is_empty() {
            return self.pick(same);
        }
        let req = &self.requires[caller.file as usize];
        let required: Vec<FnRef> = v.iter().copied().filter(|r| req.contains(&r.file)).collect();
        if !required.is_empty() {
            return self.pick(required);
        }
        self.pick(v.clone())
    }

    /// A call on the implicit or explicit `self` of `caller`.
    fn self_call(&self, caller: FnRef, name: &str) -> Target {
        let f = func(self.units, caller);
        let path = &self.owner[caller.file as usize][caller.func as usize];
        let mut outside = None;
        // `new(...)` in a class method builds an instance of the class.
        if name == "new" && f.details.is_static && !path.is_empty() {
            return self.class_call(path, name);
        }
        if !path.is_empty() {
            let found = self.lookup(path, name, f.details.is_static, false);
            if let Some(t) = found.target(self.units) {
                return t;
            }
            // `module_function` and `extend self`: a module's own methods serve both sides.
            if let Some(m) = self.methods.get(&(path.clone(), name)) {
                let other = if f.details.is_static {
                    &m.instance
                } else {
                    &m.singleton
                };
                if let Some(t) = self.pick(other.clone()) {
                    return t;
                }
            }
            // In a mixin's method, self is an instance of a class that includes it.
            if !f.details.is_static {
                if let Some(t) = self.through_includers(path, name) {
                    return t;
                }
            }
            outside = found.outside();
        }
        if let Some(t) = self.global(caller, name) {
            return t;
        }
        if stdlib::is_kernel_method(name) {
            return Target::Stdlib;
        }
        outside.unwrap_or(Target::Unresolved)
    }

    /// `name` in the classes that include the module `path` (and their ancestors): the
    /// candidates of all of them.
    fn through_includers(&self, path: &str, name: &str) -> Option<Target> {
        let mut cands = Vec::new();
        let mut attr = None;
        for inc in self.includers.get(path)?.iter().take(MAX_ANCESTORS) {
            let found = self.lookup(inc, name, false, false);
            cands.extend(found.repo);
            attr = attr.or(found.attr);
        }
        self.pick(cands).or(attr.map(Target::RepoFile))
    }

    /// `super` in `caller`: its own name in the ancestors of its class.
    fn super_call(&self, caller: FnRef) -> Target {
        let f = func(self.units, caller);
        let path = &self.owner[caller.file as usize][caller.func as usize];
        if path.is_empty() {
            return Target::Unresolved;
        }
        let found = self.lookup(path, &f.name, f.details.is_static, true);
        if let Some(t) = self.pick(found.repo.clone()) {
            return t;
        }
        // Object's `initialize`, `method_missing`, `respond_to_missing?`, ...
        let kernel = (stdlib::is_kernel_method(&f.name) || f.name == "initialize")
            .then_some(Target::Stdlib);
        found.outside().or(kernel).unwrap_or(Target::Unresolved)
    }

    /// `Const.name` where `Const` is the repository's class or module `path`.
    fn class_call(&self, path: &str, name: &str) -> Target {
        if name == "new" {
            let found = self.lookup(path, "initialize", false, false);
            if let Some(t) = self.pick(found.repo.clone()) {
                return t;
            }
            if let Some(t) = found.outside() {
                return t;
            }
            // No `initialize` anywhere: Object's, run for the class in its file.
            return match self.classes.get(path).and_then(|d| d.first()) {
                Some((file, _)) => Target::RepoFile(*file),
                None => Target::Unresolved,
            };
        }
        let found = self.lookup(path, name, true, false);
        if let Some(t) = found.target(self.units) {
            return t;
        }
        if let Some(m) = self.methods.get(&(path.to_string(), name)) {
            if let Some(t) = self.pick(m.instance.clone()) {
                return t;
            }
        }
        if stdlib::is_kernel_method(name) {
            return Target::Stdlib;
        }
        found.outside().unwrap_or(Target::Unresolved)
    }

    /// An instance of the repository's class `path` receives `name`.
    fn instance_call(&self, path: &str, name: &str) -> Target {
        let found = self.lookup(path, name, false, false);
        if let Some(t) = found.target(self.units) {
            return t;
        }
        if stdlib::is_kernel_method(name) {
            return Target::Stdlib;
        }
        found.outside().unwrap_or(Target::Unresolved)
    }

    /// A receiver whose class is unknown: only a name that no method of the repository
    /// has, and that a core class has, is decided (`stdlib`).
    fn unknown_receiver(&self, name: &str) -> Target {
        if !self.names.contains(name)
            && (stdlib::is_core_method(name) || stdlib::is_kernel_method(name))
        {
            Target::Stdlib
        } else {
            Target::Unresolved
        }
    }

    fn member_call(&self, caller: FnRef, recv: &str, name: &str) -> Target {
        if recv == "self" {
            return self.self_call(caller, name);
        }
        let path = &self.owner[caller.file as usize][caller.func as usize];
        let first = recv.trim_start_matches(':').chars().next().unwrap_or(' ');
        if first.is_ascii_uppercase() && is_constant_path(recv) {
            return match self.constant(path, recv) {
                Const::Repo(p) => self.class_call(&p, name),
                Const::Value => self.unknown_receiver(name),
                Const::Stdlib => Target::Stdlib,
                Const::External => Target::External,
                Const::Unknown => Target::Unresolved,
            };
        }
        let f = func(self.units, caller);
        // The variable's last assignment, when it was `Const.new`.
        if let Some((_, ty)) = f
            .locals
            .iter()
            .rev()
            .find(|(n, _)| n == recv)
            .filter(|(_, t)| !t.is_empty())
        {
            return match self.constant(path, ty) {
                Const::Repo(p) => self.instance_call(&p, name),
                Const::Stdlib => Target::Stdlib,
                Const::External => Target::External,
                Const::Value | Const::Unknown => Target::Unresolved,
            };
        }
        // Literals: strings, symbols, arrays, hashes, numbers, ranges.
        let literal = recv.starts_with(['"', '\'', ':', '[', '{', '%', '('])
            || recv.starts_with(|c: char| c.is_ascii_digit());
        if literal && (stdlib::is_core_method(name) || stdlib::is_kernel_method(name)) {
            return Target::Stdlib;
        }
        self.unknown_receiver(name)
    }
}

/// `Foo`, `A::B`, `::A`: a constant path and nothing else.
fn is_constant_path(s: &str) -> bool {
    s.split("::")
        .enumerate()
        .all(|(i, p)| (i == 0 && p.is_empty()) || is_constant(p))
}

fn is_constant(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase())
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The file of the repository that `require`/`require_relative` loads: relative to the
/// requiring file's folder, or for `require`, `x.rb` under a `lib/` folder (the shortest
/// such path) or at the root.
fn required_file(files: &HashMap<&str, u32>, from: &str, path: &str, relative: bool) -> Option<u32> {
    let with_ext = if path.ends_with(".rb") {
        path.to_string()
    } else {
        format!("{path}.rb")
    };
    if relative {
        let path = normalize_path(&format!("{}/{with_ext}", dir_of(from)))?;
        return files.get(path.as_str()).copied();
    }
    if let Some(f) = files.get(with_ext.as_str()) {
        return Some(*f);
    }
    let suffix = format!("lib/{with_ext}");
    files
        .iter()
        .filter(|(p, _)| **p == suffix || p.ends_with(&format!("/{suffix}")))
        .min_by_key(|(p, _)| (p.len(), **p))
        .map(|(_, f)| *f)
}

impl crate::resolve::Resolver for Index<'_> {
    fn resolve(&self, caller: FnRef, call: &CallSite) -> Target {
        match &call.kind {
            CallKind::Plain if call.name == "super" => self.super_call(caller),
            CallKind::Plain => self.self_call(caller, &call.name),
            CallKind::Member(recv) => self.member_call(caller, recv, &call.name),
            _ => Target::Unresolved,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_canonical() {
        assert_eq!(canon("A.B::C"), "A::B::C");
        assert_eq!(canon("::Foo"), "Foo");
        assert_eq!(parent_path("A::B::C"), "A::B");
        assert!(is_constant_path("::A::B_c") && !is_constant_path("A.b") && !is_constant_path("a"));
    }

    #[test]
    fn requires_find_files() {
        let files: HashMap<&str, u32> = [("lib/app/x.rb", 0), ("lib/app.rb", 1), ("gems/a/lib/b.rb", 2)]
            .into_iter()
            .collect();
        assert_eq!(required_file(&files, "lib/app.rb", "app/x", true), Some(0));
        assert_eq!(required_file(&files, "lib/app/y.rb", "../app", true), Some(1));
        assert_eq!(required_file(&files, "bin/run.rb", "app/x", false), Some(0));
        assert_eq!(required_file(&files, "bin/run.rb", "b", false), Some(2));
        assert_eq!(required_file(&files, "bin/run.rb", "json", false), None);
        assert_eq!(required_file(&files, "x.rb", "../../y", true), None);
    }
}
