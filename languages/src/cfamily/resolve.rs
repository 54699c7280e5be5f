//! The C and C++ resolver.
//!
//! A call by name goes to a function defined in the repository when there is one: `static`
//! functions (and those in anonymous namespaces) are visible in their own file only, and when
//! several files define the name, the same file wins, then a file whose header the caller
//! includes (or the header itself, for `static inline` definitions), then the same directory,
//! then the rest. A name that is a function-like macro of the repository, defined in the file
//! or a header it includes, is a macro call. C++ adds the class of the caller (and its bases)
//! for unqualified and `this->` calls, declared receivers (`Foo f; f.m()`), qualified calls
//! (`ns::f`, `Class::f`) and `new T`. Names of the C standard library and POSIX, and `std::`,
//! are `stdlib`; other names in a file that includes headers from outside the repository are
//! `external_binaries`.

use std::collections::{HashMap, HashSet};

use super::extract::{last_component, ANONYMOUS_NAMESPACE};
use super::stdlib;
use crate::extract::{CallKind, CallSite, ClassInfo, FunctionKind, Macro};
use crate::resolve::{dir_of, func, normalize_path, pick, FnRef, SourceUnit, Target};
use crate::{Lang, Registry};

/// Most files an include closure follows; guards against pathological include graphs.
const MAX_CLOSURE: usize = 4096;

pub(crate) struct Index<'u> {
    units: &'u [SourceUnit],
    /// Free functions (and any function for C) by simple name.
    by_name: HashMap<&'u str, Vec<FnRef>>,
    /// Every C++ function by simple name, for qualified lookups.
    any_by_name: HashMap<&'u str, Vec<FnRef>>,
    /// Function-like macros: name to the files that define it, and the definition.
    macros: HashMap<&'u str, Vec<(u32, &'u Macro)>>,
    /// C++ classes by last name component: (file, class).
    classes: HashMap<&'u str, Vec<(u32, &'u ClassInfo)>>,
    /// Per file: the repository files it includes, directly or not (itself excluded).
    closure: Vec<HashSet<u32>>,
    /// Per file: the path stems (`src/util` for `src/util.h`) of the files in its closure,
    /// to find the source file whose header it includes.
    included_stems: Vec<HashSet<&'u str>>,
    /// Per file: whether it (or what it includes) includes a header from outside both the
    /// repository and the standard library.
    external: Vec<bool>,
    /// Per file: names declared `static` by a prototype.
    static_protos: Vec<HashSet<&'u str>>,
}

impl<'u> Index<'u> {
    pub(crate) fn new(units: &'u [SourceUnit]) -> Self {
        let mut by_name: HashMap<&str, Vec<FnRef>> = HashMap::new();
        let mut any_by_name: HashMap<&str, Vec<FnRef>> = HashMap::new();
        let mut macros: HashMap<&str, Vec<(u32, &Macro)>> = HashMap::new();
        let mut classes: HashMap<&str, Vec<(u32, &ClassInfo)>> = HashMap::new();
        let mut static_protos = Vec::with_capacity(units.len());
        for (fi, u) in units.iter().enumerate() {
            let mut statics = HashSet::new();
            if !u.lang.is_c_family() {
                static_protos.push(statics);
                continue;
            }
            for (gi, f) in u.functions.iter().enumerate() {
                let r = FnRef {
                    file: fi as u32,
                    func: gi as u32,
                };
                any_by_name.entry(f.name.as_str()).or_default().push(r);
                if u.lang == Lang::C || f.kind == FunctionKind::Function {
                    by_name.entry(f.name.as_str()).or_default().push(r);
                }
            }
            for m in &u.info.macros {
                macros
                    .entry(m.name.as_str())
                    .or_default()
                    .push((fi as u32, m));
            }
            for c in &u.info.classes {
                classes
                    .entry(last_component(&c.name))
                    .or_default()
                    .push((fi as u32, c));
            }
            for (name, is_static) in &u.info.prototypes {
                if *is_static {
                    statics.insert(name.as_str());
                }
            }
            static_protos.push(statics);
        }
        let (closure, external) = include_closures(units);
        let included_stems = closure
            .iter()
            .map(|c| c.iter().map(|f| stem(&units[*f as usize].path)).collect())
            .collect();
        Self {
            units,
            by_name,
            any_by_name,
            macros,
            classes,
            closure,
            included_stems,
            external,
            static_protos,
        }
    }

    fn is_file_local(&self, r: FnRef) -> bool {
        let f = func(self.units, r);
        f.details.is_static && f.kind == FunctionKind::Function
            || f.scope.contains(ANONYMOUS_NAMESPACE)
            || self.static_protos[r.file as usize].contains(f.name.as_str())
    }

    /// Whether `file` can call `r`: file-local functions only from their own file or from
    /// files that include it (a `static inline` function of a header).
    fn visible(&self, file: u32, r: FnRef) -> bool {
        r.file == file || !self.is_file_local(r) || self.closure[file as usize].contains(&r.file)
    }

    /// The definition of the function-like macro `name` that `file` sees: its own, one in a
    /// header it includes, else (with `anywhere`) the first by path.
    fn macro_def(&self, file: u32, name: &str, anywhere: bool) -> Option<&'u Macro> {
        let defs = self.macros.get(name)?;
        defs.iter()
            .find(|(f, _)| *f == file)
            .or_else(|| {
                defs.iter()
                    .find(|(f, _)| self.closure[file as usize].contains(f))
            })
            .or_else(|| {
                anywhere
                    .then(|| {
                        defs.iter()
                            .min_by_key(|(f, _)| &self.units[*f as usize].path)
                    })
                    .flatten()
            })
            .map(|(_, m)| *m)
    }

    /// The calls a macro call expands to, macros within macros followed (depth first,
    /// each macro once): (name called, what it resolves to) in the caller's context.
    pub(crate) fn expand_macro(&self, caller: FnRef, name: &str) -> Vec<(String, Target)> {
        let mut out = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        let mut stack: Vec<&str> = vec![name];
        let cpp = self.units[caller.file as usize].lang == Lang::Cpp;
        while let Some(m) = stack.pop() {
            if !seen.insert(m) || seen.len() > 64 {
                continue;
            }
            let Some(def) = self.macro_def(caller.file, m, true) else {
                continue;
            };
            for callee in def.calls.iter().rev() {
                if self.macro_def(caller.file, callee, true).is_some() {
                    stack.push(callee);
                } else {
                    let call = CallSite {
                        text: callee.clone(),
                        name: callee.clone(),
                        kind: CallKind::Plain,
                        line: 0,
                        args: 0,
                    };
                    out.push((callee.clone(), self.plain(caller, &call, cpp)));
                }
            }
        }
        out
    }

    pub(crate) fn resolve_call(&self, caller: FnRef, call: &CallSite) -> Target {
        let unit = &self.units[caller.file as usize];
        let cpp = unit.lang == Lang::Cpp;
        match &call.kind {
            CallKind::Plain => self.plain(caller, call, cpp),
            CallKind::Member(recv) if cpp => self.member(caller, recv, &call.name),
            // C: a call through a function pointer in a struct.
            CallKind::Member(_) => Target::Unresolved,
            CallKind::Scoped(scope) => self.scoped(caller, scope, &call.name),
            CallKind::New => self.construct(caller, &call.name),
        }
    }

    fn plain(&self, caller: FnRef, call: &CallSite, cpp: bool) -> Target {
        let name = call.name.as_str();
        if call.line > 0
            && func(self.units, caller)
                .locals
                .iter()
                .any(|(n, _)| n == name)
        {
            // A call through a variable (a function pointer, a lambda).
            return Target::Unresolved;
        }
        if self.macro_def(caller.file, name, false).is_some() {
            return Target::Macro;
        }
        let f = func(self.units, caller);
        if cpp && !f.scope.is_empty() {
            // Methods of the caller's class and its bases, then enclosing namespaces.
            if let Some(t) = self.in_class_chain(caller.file, &f.scope, name) {
                return t;
            }
            let mut scope = f.scope.as_str();
            loop {
                let hits = self.qualified(&format!("{scope}::{name}"));
                if let Some(t) = self.best(caller.file, hits) {
                    return t;
                }
                match scope.rfind("::") {
                    Some(i) => scope = &scope[..i],
                    None => break,
                }
            }
        }
        let cands: Vec<FnRef> = self
            .by_name
            .get(name)
            .map(|v| {
                v.iter()
                    .copied()
                    .filter(|r| {
                        let g = func(self.units, *r);
                        // A C++ call by plain name does not reach into a namespace
                        // unless the caller is in it or uses it (handled above).
                        (!cpp
                            || !g.scope.contains("::")
                                && (g.scope.is_empty() || self.uses(caller.file, &g.scope)))
                            && self.visible(caller.file, *r)
                    })
                    .collect()
            })
            .unwrap_or_default();
        if let Some(t) = self.best(caller.file, cands) {
            return t;
        }
        if self.macros.contains_key(name) {
            return Target::Macro;
        }
        if stdlib::is_c_function(name)
            || cpp && self.uses_std(caller.file)
            || name.starts_with("__builtin_")
        {
            return Target::Stdlib;
        }
        self.outside(caller.file)
    }

    /// Whether `file` has `using namespace {ns}` (C++).
    fn uses(&self, file: u32, ns: &str) -> bool {
        self.units[file as usize]
            .info
            .using_namespaces
            .iter()
            .any(|u| u == ns)
    }

    fn uses_std(&self, file: u32) -> bool {
        self.units[file as usize]
            .info
            .using_namespaces
            .iter()
            .any(|u| u == "std" || u.starts_with("std::"))
    }

    /// Not found in the repository: third-party when the file includes third-party headers.
    fn outside(&self, file: u32) -> Target {
        if self.external[file as usize] {
            Target::External
        } else {
            Target::Unresolved
        }
    }

    /// Functions whose qualified name is `q` or ends with `::q`.
    fn qualified(&self, q: &str) -> Vec<FnRef> {
        let name = last_component(q);
        let Some(v) = self.any_by_name.get(name) else {
            return Vec::new();
        };
        v.iter()
            .copied()
            .filter(|r| {
                let qn = &func(self.units, *r).qualified_name;
                qn == q || qn.ends_with(q) && qn[..qn.len() - q.len()].ends_with("::")
            })
            .collect()
    }

    /// The best of several definitions: same file, then included, then same directory,
    /// then the rest; file-local ones of other files never.
    fn best(&self, file: u32, cands: Vec<FnRef>) -> Option<Target> {
        let cands: Vec<FnRef> = cands
            .into_iter()
            .filter(|r| self.visible(file, *r))
            .collect();
        if cands.is_empty() {
            return None;
        }
        let closure = &self.closure[file as usize];
        let dir = dir_of(&self.units[file as usize].path);
        // The header of the callee's file (`util.h` for `util.c`) is included.
        let stems = &self.included_stems[file as usize];
        let header_included = |r: &FnRef| stems.contains(stem(&self.units[r.file as usize].path));
        let tiers: [&dyn Fn(&FnRef) -> bool; 4] = [
            &|r| r.file == file,
            // Defined in an included header (`static inline`).
            &|r| closure.contains(&r.file),
            &header_included,
            &|r| dir_of(&self.units[r.file as usize].path) == dir,
        ];
        for tier in tiers {
            let hit: Vec<FnRef> = cands.iter().copied().filter(|r| tier(r)).collect();
            if !hit.is_empty() {
                return pick(self.units, hit);
            }
        }
        pick(self.units, cands)
    }

    /// Looks `name` up as a method of `class` (a qualified class name) and its bases.
    fn in_class_chain(&self, file: u32, class: &str, name: &str) -> Option<Target> {
        let mut queue = vec![class.to_string()];
        let mut seen = HashSet::new();
        while let Some(c) = queue.pop() {
            if !seen.insert(c.clone()) || seen.len() > 64 {
                continue;
            }
            let hits: Vec<FnRef> = self
                .qualified(&format!("{c}::{name}"))
                .into_iter()
                .filter(|r| func(self.units, *r).kind != FunctionKind::Function)
                .collect();
            if let Some(t) = self.best(file, hits) {
                return Some(t);
            }
            // Bases, in declaration order (the queue is a stack).
            for info in self.class_info(&c) {
                for b in info.bases.iter().rev() {
                    if b.starts_with("std::") {
                        continue;
                    }
                    queue.push(b.clone());
                }
            }
        }
        None
    }

    /// The classes a (possibly qualified) class name may denote.
    fn class_info(&self, class: &str) -> Vec<&'u ClassInfo> {
        let last = last_component(class);
        self.classes
            .get(last)
            .map(|v| {
                v.iter()
                    .filter(|(_, c)| {
                        c.name == class
                            || c.name.ends_with(class)
                                && c.name[..c.name.len() - class.len()].ends_with("::")
                            || class.ends_with(&c.name)
                    })
                    .map(|(_, c)| *c)
                    .collect()
            })
            .unwrap_or_default()
    }

    fn member(&self, caller: FnRef, recv: &str, name: &str) -> Target {
        let f = func(self.units, caller);
        let recv = recv
            .trim_start_matches('*')
            .trim_start_matches('(')
            .trim_end_matches(')');
        let class = if recv == "this" {
            Some(f.scope.clone())
        } else if is_identifier(recv) {
            f.locals
                .iter()
                .rev()
                .find(|(n, _)| n == recv)
                .map(|(_, t)| t.clone())
                .or_else(|| self.field_type(&f.scope, recv))
        } else {
            recv.strip_prefix("this->")
                .filter(|r| is_identifier(r))
                .and_then(|field| self.field_type(&f.scope, field))
        };
        match class {
            Some(c) if c.starts_with("std::") => Target::Stdlib,
            Some(c) if !c.is_empty() => {
                self.in_class_chain(caller.file, &c, name)
                    .unwrap_or_else(|| {
                        if self.class_info(&c).is_empty() {
                            self.outside(caller.file)
                        } else {
                            Target::Unresolved
                        }
                    })
            }
            _ => Target::Unresolved,
        }
    }

    /// The declared type of a field of `class` (or of its bases).
    fn field_type(&self, class: &str, field: &str) -> Option<String> {
        if class.is_empty() {
            return None;
        }
        let mut queue = vec![class.to_string()];
        let mut seen = HashSet::new();
        while let Some(c) = queue.pop() {
            if !seen.insert(c.clone()) || seen.len() > 64 {
                continue;
            }
            for info in self.class_info(&c) {
                if let Some((_, t)) = info.fields.iter().find(|(n, _)| n == field) {
                    return Some(t.clone());
                }
                queue.extend(info.bases.iter().cloned());
            }
        }
        None
    }

    fn scoped(&self, caller: FnRef, scope: &str, name: &str) -> Target {
        if scope == "std" || scope.starts_with("std::") || scope.starts_with("::std::") {
            return Target::Stdlib;
        }
        let scope = scope.trim_start_matches("::");
        if scope.is_empty() {
            // `::f()`: the global f.
            let call = CallSite {
                text: name.to_string(),
                name: name.to_string(),
                kind: CallKind::Plain,
                line: 0,
                args: 0,
            };
            return self.plain(caller, &call, true);
        }
        if let Some(t) = self.best(caller.file, self.qualified(&format!("{scope}::{name}"))) {
            return t;
        }
        // `Base::m()` for a method the base inherits, or `Class::Class` constructors.
        if let Some(t) = self.in_class_chain(caller.file, scope, name) {
            return t;
        }
        if self.class_info(scope).is_empty() && !self.any_by_name.contains_key(name) {
            return self.outside(caller.file);
        }
        Target::Unresolved
    }

    fn construct(&self, caller: FnRef, ty: &str) -> Target {
        let simple = last_component(ty);
        let hits: Vec<FnRef> = self
            .qualified(&format!("{simple}::{simple}"))
            .into_iter()
            .filter(|r| func(self.units, *r).kind == FunctionKind::Constructor)
            .collect();
        if let Some(t) = self.best(caller.file, hits) {
            return t;
        }
        let classes = self.classes.get(simple);
        if let Some((file, _)) = classes.and_then(|v| v.first()) {
            // A class of the repository without a user-written constructor.
            return Target::RepoFile(*file);
        }
        if ty.starts_with("std::") || self.uses_std(caller.file) {
            return Target::Stdlib;
        }
        self.outside(caller.file)
    }
}

/// A path without its extension.
fn stem(path: &str) -> &str {
    path.rsplit_once('.').map_or(path, |(s, _)| s)
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// For every file, the repository files it includes transitively, and whether any of them
/// includes a header that is neither in the repository nor a standard one.
fn include_closures(units: &[SourceUnit]) -> (Vec<HashSet<u32>>, Vec<bool>) {
    let mut by_path: HashMap<&str, u32> = HashMap::new();
    let mut by_base: HashMap<&str, Vec<u32>> = HashMap::new();
    for (i, u) in units.iter().enumerate() {
        if u.lang.is_c_family() {
            by_path.insert(u.path.as_str(), i as u32);
            let base = u.path.rsplit('/').next().unwrap_or(&u.path);
            by_base.entry(base).or_default().push(i as u32);
        }
    }
    // Direct includes resolved to repository files.
    let mut direct: Vec<Vec<u32>> = vec![Vec::new(); units.len()];
    let mut ext_direct = vec![false; units.len()];
    for (i, u) in units.iter().enumerate() {
        if !u.lang.is_c_family() {
            continue;
        }
        let dir = dir_of(&u.path);
        for inc in &u.info.includes {
            let std = stdlib::is_std_header(&inc.path);
            if inc.system && std {
                continue;
            }
            let found = resolve_include(dir, &inc.path, &by_path, &by_base, units);
            match found {
                Some(f) => direct[i].push(f),
                None if !std => ext_direct[i] = true,
                None => {}
            }
        }
    }
    let mut closures = Vec::with_capacity(units.len());
    let mut external = vec![false; units.len()];
    for i in 0..units.len() {
        let mut seen: HashSet<u32> = HashSet::new();
        let mut stack: Vec<u32> = direct[i].clone();
        let mut ext = ext_direct[i];
        while let Some(f) = stack.pop() {
            if f as usize == i || !seen.insert(f) || seen.len() > MAX_CLOSURE {
                continue;
            }
            ext |= ext_direct[f as usize];
            stack.extend(&direct[f as usize]);
        }
        external[i] = ext;
        closures.push(seen);
    }
    (closures, external)
}

/// The repository file an `#include` names: relative to the including file first, then the
/// file whose path ends with the include path (the shortest such path, then the first).
fn resolve_include(
    dir: &str,
    inc: &str,
    by_path: &HashMap<&str, u32>,
    by_base: &HashMap<&str, Vec<u32>>,
    units: &[SourceUnit],
) -> Option<u32> {
    let joined = normalize_path(&if dir.is_empty() {
        inc.to_string()
    } else {
        format!("{dir}/{inc}")
    });
    if let Some(f) = joined.as_deref().and_then(|p| by_path.get(p)) {
        return Some(*f);
    }
    let base = inc.rsplit('/').next().unwrap_or(inc);
    let want = inc.trim_start_matches("./");
    by_base.get(base).and_then(|cands| {
        cands
            .iter()
            .filter(|c| {
                let p = units[**c as usize].path.as_str();
                p == want || p.ends_with(want) && p[..p.len() - want.len()].ends_with('/')
            })
            .min_by_key(|c| {
                (
                    units[**c as usize].path.len(),
                    units[**c as usize].path.as_str(),
                )
            })
            .copied()
    })
}

impl crate::resolve::Resolver for Index<'_> {
    fn resolve(&self, caller: FnRef, call: &CallSite) -> Target {
        self.resolve_call(caller, call)
    }

    fn expand(&self, caller: FnRef, name: &str) -> Vec<(String, Target)> {
        self.expand_macro(caller, name)
    }
}
