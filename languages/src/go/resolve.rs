//! The Go resolver.
//!
//! A package is a directory. An import path names a directory of the repository when it is
//! the path of a module of the repository followed by a folder under its `go.mod` (every
//! `go.mod` of the repository counts, nested modules too: [`modules`]). Without a `go.mod`,
//! the module path is inferred from the imports themselves: each import path that ends with `/` and a directory of Go files of the repository votes
//! for the prefix before it, and one that ends with the root package's name votes for
//! itself; the prefix with most votes wins. Standard packages come from
//! [`super::stdlib`]; every other import (other modules, `vendor/`, `C`) is
//! `external_binaries`.
//!
//! A plain call `f()` is a function of the caller's package, a conversion to a type of it
//! (`T(x)`), a builtin, or a name of a dot-imported package. `pkg.F()` goes through the
//! file's imports (the name is the alias, the declared package name of a repository
//! directory, or the path's last element without `go-`/`-go`/`.vN`). `x.M()` goes through
//! the type of `x` when it is declared or obvious (receiver, parameter, `var x T`, `x :=
//! T{}`, `&T{}`, `new(T)`, `NewT()`), fields along `x.a.b.M()`, methods promoted from
//! embedded types, and interface methods (an edge to the interface's file). Methods of
//! standard or third-party types are `stdlib` / `external_binaries`.

use std::collections::{HashMap, HashSet};

use super::stdlib;
use crate::extract::{CallKind, CallSite, ClassInfo};
use crate::{Lang, Registry};
use crate::resolve::{dir_of, pick, FnRef, SourceUnit, Target};

/// How many embedded types and fields are followed.
const MAX_HOPS: usize = 16;

/// What an import path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pkg<'u> {
    /// A directory of the repository.
    Repo(&'u str),
    Stdlib,
    External,
    /// Under the module path, but no directory of Go files has it.
    Missing,
}

/// A type as far as the resolver knows it.
#[derive(Debug, Clone, Copy)]
enum Ty<'u> {
    /// Declared in the repository: the file and the declaration.
    Repo(u32, &'u ClassInfo),
    /// A slice or array of a type of the repository (what `range` gives elements of).
    Elems(u32, &'u ClassInfo),
    Stdlib,
    External,
}

/// What a receiver expression denotes: a package (`pkg.F()`) or a value of a type.
#[derive(Debug, Clone, Copy)]
enum Val<'u> {
    Pkg(Pkg<'u>),
    Ty(Ty<'u>),
}

/// How deep variables typed by expressions are followed (`a := b.C(); b := ...`).
const MAX_DEPTH: usize = 8;

/// The segments of a selector chain as written (`c.Flags().Lookup("x")`): each a name and
/// whether it is called. `None` for other expressions (index, literals, conversions to
/// unnamed types, calls of calls).
fn chain(expr: &str) -> Option<Vec<(&str, bool)>> {
    let b = expr.as_bytes();
    let mut segs = Vec::new();
    let (mut depth, mut start, mut quote) = (0usize, 0usize, None::<u8>);
    // Per segment: where its first `(` opened and its last top-level `)` closed, and how
    // many parenthesised groups it has.
    let (mut open, mut close, mut groups) = (None::<usize>, 0usize, 0usize);
    let mut i = 0;
    while i <= b.len() {
        let c = b.get(i).copied();
        match (quote, c) {
            (Some(q), Some(c)) => {
                if c == b'\\' && q != b'`' {
                    i += 1;
                } else if c == q {
                    quote = None;
                }
            }
            (Some(_), None) => return None,
            (None, Some(q @ (b'"' | b'\'' | b'`'))) if depth > 0 => quote = Some(q),
            (None, Some(b'(')) => {
                if depth == 0 {
                    open.get_or_insert(i);
                    groups += 1;
                }
                depth += 1;
            }
            (None, Some(b')')) => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    close = i;
                }
            }
            (None, Some(b'[' | b']' | b'{' | b'}' | b'"' | b'\'' | b'`')) if depth == 0 => {
                return None
            }
            (None, Some(b'.') | None) if depth == 0 => {
                let (name, call) = match open {
                    // One call, whose parentheses end the segment.
                    Some(p) if groups == 1 && close + 1 == i => (&expr[start..p], true),
                    Some(_) => return None,
                    None => (&expr[start..i], false),
                };
                if name.is_empty()
                    || !name
                        .bytes()
                        .all(|c| c.is_ascii_alphanumeric() || c == b'_')
                {
                    return None;
                }
                segs.push((name, call));
                start = i + 1;
                (open, groups) = (None, 0);
            }
            _ => {}
        }
        i += 1;
    }
    (depth == 0).then_some(segs)
}

pub(crate) struct Index<'u> {
    units: &'u [SourceUnit],
    /// Top-level functions by (directory, name).
    funcs: HashMap<(&'u str, &'u str), Vec<FnRef>>,
    /// Methods by (directory, receiver type, name).
    methods: HashMap<(&'u str, &'u str, &'u str), Vec<FnRef>>,
    /// Declared types by (directory, name): the first file by path.
    types: HashMap<(&'u str, &'u str), (u32, &'u ClassInfo)>,
    /// Package-level variables with a known type by (directory, name): file and type.
    vars: HashMap<(&'u str, &'u str), (u32, &'u str)>,
    /// Per file: import bindings (name to package) and dot-imported packages.
    bindings: Vec<HashMap<String, Pkg<'u>>>,
    dots: Vec<Vec<Pkg<'u>>>,
    /// Package-level constants and variables by (directory, name): the first file by path.
    values: HashMap<(&'u str, &'u str), u32>,
}

/// The package name Go code uses for an import path it does not declare here: the last
/// element, without a major-version element (`/v2`), a `.vN` suffix (`gopkg.in/yaml.v3`)
/// or a `go-` prefix / `-go` suffix; `-` and `.` become `_`.
fn default_name(path: &str) -> String {
    let mut parts = path.rsplit('/');
    let mut last = parts.next().unwrap_or(path);
    let is_major = |s: &str| {
        s.len() > 1 && s.starts_with('v') && s[1..].bytes().all(|b| b.is_ascii_digit())
    };
    if is_major(last) {
        last = parts.next().unwrap_or(last);
    }
    if let Some((stem, v)) = last.rsplit_once('.') {
        if is_major(v) {
            last = stem;
        }
    }
    let last = last.strip_prefix("go-").unwrap_or(last);
    let last = last.strip_suffix("-go").unwrap_or(last);
    last.replace(['-', '.'], "_")
}

/// The modules declared by the repository's `go.mod` files: (module path, the folder of
/// its `go.mod`), the longest module path first so a nested module wins over its parent.
pub(crate) fn modules(files: &[(String, String)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = files
        .iter()
        .filter(|(path, _)| path == "go.mod" || path.ends_with("/go.mod"))
        .filter_map(|(path, text)| Some((module_line(text)?, dir_of(path).to_string())))
        .collect();
    out.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.1.cmp(&b.1)));
    out
}

/// The path of `go.mod`'s `module` directive (`module example.com/x`, quoted or not,
/// comments after it ignored).
fn module_line(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let line = line.split("//").next().unwrap_or("").trim();
        let rest = line.strip_prefix("module")?;
        if !rest.starts_with([' ', '\t', '"']) {
            return None;
        }
        let m = rest.trim().trim_matches(|c| c == '"' || c == '`');
        (!m.is_empty()).then(|| m.to_string())
    })
}

impl<'u> Index<'u> {
    pub(crate) fn new(units: &'u [SourceUnit]) -> Self {
        Self::with_modules(units, Vec::new())
    }

    /// The resolver with the modules of the repository's `go.mod` files ([`modules`]);
    /// without any, the module path is inferred from the imports.
    pub(crate) fn with_modules(units: &'u [SourceUnit], declared: Vec<(String, String)>) -> Self {
        let mut funcs: HashMap<(&str, &str), Vec<FnRef>> = HashMap::new();
        let mut methods: HashMap<(&str, &str, &str), Vec<FnRef>> = HashMap::new();
        let mut types: HashMap<(&str, &str), (u32, &ClassInfo)> = HashMap::new();
        let mut vars: HashMap<(&str, &str), (u32, &str)> = HashMap::new();
        let mut values: HashMap<(&str, &str), u32> = HashMap::new();
        let mut dirs: HashSet<&str> = HashSet::new();
        // Package names declared per directory, test packages (`x_test`) aside.
        let mut names: HashMap<&str, &str> = HashMap::new();
        let mut order: Vec<usize> = (0..units.len()).collect();
        order.sort_by(|a, b| units[*a].path.cmp(&units[*b].path));
        for &fi in &order {
            let u = &units[fi];
            if u.lang != Lang::Go {
                continue;
            }
            let dir = dir_of(&u.path);
            dirs.insert(dir);
            if let Some(p) = u.info.package.as_deref() {
                if !p.ends_with("_test") {
                    names.entry(dir).or_insert(p);
                }
            }
            for (gi, f) in u.functions.iter().enumerate() {
                let r = FnRef {
                    file: fi as u32,
                    func: gi as u32,
                };
                if f.scope.is_empty() {
                    funcs.entry((dir, f.name.as_str())).or_default().push(r);
                } else {
                    methods
                        .entry((dir, f.scope.as_str(), f.name.as_str()))
                        .or_default()
                        .push(r);
                }
            }
            for (name, _) in &u.info.constants {
                values.entry((dir, name.as_str())).or_insert(fi as u32);
            }
            for c in &u.info.classes {
                if c.name.is_empty() {
                    for (v, t) in &c.fields {
                        vars.entry((dir, v.as_str())).or_insert((fi as u32, t.as_str()));
                    }
                } else {
                    types.entry((dir, c.name.as_str())).or_insert((fi as u32, c));
                }
            }
        }
        // Declared modules first (each maps its path onto its folder), else the inferred one
        // at the root.
        let modules: Vec<(String, String)> = if declared.is_empty() {
            infer_module(units, &dirs, &names)
                .map(|m| vec![(m, String::new())])
                .unwrap_or_default()
        } else {
            declared
        };
        let classify = |path: &str| -> Pkg<'u> {
            for (m, folder) in &modules {
                let rest = if path == m {
                    Some("")
                } else {
                    path.strip_prefix(m).and_then(|r| r.strip_prefix('/'))
                };
                if let Some(rest) = rest {
                    let dir = match (folder.is_empty(), rest.is_empty()) {
                        (true, _) => rest.to_string(),
                        (false, true) => folder.clone(),
                        (false, false) => format!("{folder}/{rest}"),
                    };
                    return match dirs.get(dir.as_str()) {
                        Some(d) => Pkg::Repo(d),
                        None => Pkg::Missing,
                    };
                }
            }
            if stdlib::is_go_package(path) {
                Pkg::Stdlib
            } else {
                // Other modules, vendored or not, and cgo's `C`.
                Pkg::External
            }
        };
        let mut bindings = Vec::with_capacity(units.len());
        let mut dots = Vec::with_capacity(units.len());
        for u in units {
            let mut b = HashMap::new();
            let mut d = Vec::new();
            if u.lang == Lang::Go {
                for imp in &u.info.imports {
                    let pkg = classify(&imp.module);
                    if imp.wildcard {
                        d.push(pkg);
                        continue;
                    }
                    let name = match (&imp.alias, pkg) {
                        (Some(a), _) if a == "_" => continue,
                        (Some(a), _) => a.clone(),
                        (None, Pkg::Repo(dir)) => names
                            .get(dir)
                            .map_or_else(|| default_name(&imp.module), |n| n.to_string()),
                        (None, _) => default_name(&imp.module),
                    };
                    b.insert(name, pkg);
                }
            }
            bindings.push(b);
            dots.push(d);
        }
        Self {
            units,
            funcs,
            methods,
            types,
            vars,
            bindings,
            dots,
            values,
        }
    }

    fn dir(&self, file: u32) -> &'u str {
        dir_of(&self.units[file as usize].path)
    }

    /// A package-level name of the directory `dir`: a function or a type (a conversion).
    fn in_package(&self, dir: &'u str, name: &str) -> Option<Target> {
        if let Some(v) = self.funcs.get(&(dir, name)) {
            return pick(self.units, v.clone());
        }
        self.types
            .get(&(dir, name))
            .map(|(f, _)| Target::RepoFile(*f))
    }

    fn pkg_target(&self, pkg: Pkg<'u>, name: &str) -> Target {
        match pkg {
            Pkg::Repo(dir) => self.in_package(dir, name).unwrap_or(Target::Unresolved),
            Pkg::Stdlib => Target::Stdlib,
            Pkg::External => Target::External,
            Pkg::Missing => Target::Unresolved,
        }
    }

    /// A type written in `file` (`T`, `pkg.T`).
    fn ty(&self, file: u32, written: &str) -> Option<Ty<'u>> {
        if let Some(elem) = written.strip_prefix("[]") {
            return match self.ty(file, elem)? {
                Ty::Repo(f, c) => Some(Ty::Elems(f, c)),
                t => Some(t),
            };
        }
        match written.split_once('.') {
            Some((pkg, name)) => match self.bindings[file as usize].get(pkg)? {
                Pkg::Repo(dir) => self.types.get(&(*dir, name)).map(|(f, c)| Ty::Repo(*f, c)),
                Pkg::Stdlib => Some(Ty::Stdlib),
                Pkg::External => Some(Ty::External),
                Pkg::Missing => None,
            },
            None => {
                if let Some((f, c)) = self.types.get(&(self.dir(file), written)) {
                    return Some(Ty::Repo(*f, c));
                }
                if stdlib::is_go_builtin(written) {
                    return Some(Ty::Stdlib);
                }
                for pkg in &self.dots[file as usize] {
                    match pkg {
                        Pkg::Repo(dir) => {
                            if let Some((f, c)) = self.types.get(&(*dir, written)) {
                                return Some(Ty::Repo(*f, c));
                            }
                        }
                        Pkg::Stdlib => return Some(Ty::Stdlib),
                        Pkg::External => return Some(Ty::External),
                        Pkg::Missing => {}
                    }
                }
                None
            }
        }
    }

    /// The method `name` of `ty`: declared on it, on an interface it is (an edge to the
    /// interface's file), or promoted from an embedded type (breadth first).
    fn method(&self, ty: Ty<'u>, name: &str) -> Target {
        let mut queue = std::collections::VecDeque::from([ty]);
        let mut seen = 0usize;
        let mut outside = None;
        while let Some(t) = queue.pop_front() {
            seen += 1;
            if seen > MAX_HOPS {
                break;
            }
            let (file, class) = match t {
                Ty::Repo(f, c) => (f, c),
                Ty::Elems(..) => continue,
                Ty::Stdlib => {
                    outside.get_or_insert(Target::Stdlib);
                    continue;
                }
                Ty::External => {
                    outside.get_or_insert(Target::External);
                    continue;
                }
            };
            let dir = self.dir(file);
            if let Some(v) = self.methods.get(&(dir, class.name.as_str(), name)) {
                if let Some(t) = pick(self.units, v.clone()) {
                    return t;
                }
            }
            if class.fields.iter().any(|(n, t)| n == name && t == "func") {
                return Target::RepoFile(file);
            }
            for b in &class.bases {
                if let Some(bt) = self.ty(file, b) {
                    queue.push_back(bt);
                }
            }
        }
        outside.unwrap_or(Target::Unresolved)
    }

    /// The type of the field `name` of `ty`, promoted fields included.
    fn field(&self, ty: Ty<'u>, name: &str) -> Option<Ty<'u>> {
        let mut queue = std::collections::VecDeque::from([ty]);
        let mut seen = 0usize;
        while let Some(t) = queue.pop_front() {
            seen += 1;
            if seen > MAX_HOPS {
                return None;
            }
            let (file, class) = match t {
                Ty::Repo(f, c) => (f, c),
                Ty::Elems(..) => return None,
                // A field of a standard or third-party type has a type from there too.
                Ty::Stdlib | Ty::External => return Some(t),
            };
            if let Some((_, ft)) = class.fields.iter().find(|(n, _)| n == name) {
                return self.ty(file, ft);
            }
            for b in &class.bases {
                // An embedded type is a field named after it.
                let simple = b.rsplit('.').next().unwrap_or(b);
                let bt = self.ty(file, b);
                if simple == name {
                    return bt;
                }
                queue.extend(bt);
            }
        }
        None
    }

    /// The (first) result type of the function `r`.
    fn result(&self, r: FnRef) -> Option<Ty<'u>> {
        let f = crate::resolve::func(self.units, r);
        let (_, w) = f.locals.iter().find(|(n, _)| n == "return")?;
        self.ty(r.file, w)
    }

    /// The type of a value that a call of `t` (a [`Target`]) returns.
    fn returned(&self, t: Target) -> Option<Ty<'u>> {
        match t {
            Target::Function(r, _) => self.result(r),
            Target::Stdlib => Some(Ty::Stdlib),
            Target::External => Some(Ty::External),
            _ => None,
        }
    }

    /// The type of a variable of `caller` as the extractor wrote it: a type, `=expr` or
    /// `range expr`.
    fn local_ty(&self, caller: FnRef, written: &str, depth: usize) -> Option<Ty<'u>> {
        if let Some(e) = written.strip_prefix('=') {
            return match self.eval(caller, e, depth + 1)? {
                Val::Ty(t) => Some(t),
                Val::Pkg(_) => None,
            };
        }
        if let Some(e) = written.strip_prefix("range ") {
            return match self.eval(caller, e, depth + 1)? {
                Val::Ty(Ty::Elems(f, c)) => Some(Ty::Repo(f, c)),
                Val::Ty(t @ (Ty::Stdlib | Ty::External)) => Some(t),
                _ => None,
            };
        }
        self.ty(caller.file, written)
    }

    /// A name called or converted to in package `dir`: the result type.
    fn call_result(&self, dir: &'u str, name: &str) -> Option<Ty<'u>> {
        if let Some((f, c)) = self.types.get(&(dir, name)) {
            return Some(Ty::Repo(*f, c));
        }
        self.returned(self.in_package(dir, name)?)
    }

    /// What the selector chain `expr` denotes, seen from `caller`.
    fn eval(&self, caller: FnRef, expr: &str, depth: usize) -> Option<Val<'u>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let segs = chain(expr)?;
        let (&(first, called), rest) = segs.split_first()?;
        let file = caller.file;
        let dir = self.dir(file);
        let f = crate::resolve::func(self.units, caller);
        let mut cur = if called {
            Val::Ty(self.call_result(dir, first)?)
        } else if let Some((_, w)) = f
            .locals
            .iter()
            .rev()
            .find(|(n, _)| n == first && n != "return")
        {
            Val::Ty(self.local_ty(caller, w, depth)?)
        } else if let Some((vf, w)) = self.vars.get(&(dir, first)) {
            Val::Ty(self.ty(*vf, w)?)
        } else {
            Val::Pkg(*self.bindings[file as usize].get(first)?)
        };
        for &(seg, called) in rest {
            cur = Val::Ty(match cur {
                Val::Pkg(Pkg::Repo(d)) if called => self.call_result(d, seg)?,
                Val::Pkg(Pkg::Repo(d)) => {
                    let (vf, w) = self.vars.get(&(d, seg))?;
                    self.ty(*vf, w)?
                }
                Val::Pkg(Pkg::Stdlib) => Ty::Stdlib,
                Val::Pkg(Pkg::External) => Ty::External,
                Val::Pkg(Pkg::Missing) => return None,
                Val::Ty(t) if called => self.returned(self.method(t, seg))?,
                Val::Ty(t) => self.field(t, seg)?,
            });
        }
        Some(cur)
    }

    fn member_call(&self, caller: FnRef, recv: &str, name: &str) -> Target {
        match self.eval(caller, recv, 0) {
            Some(Val::Ty(t)) => return self.method(t, name),
            Some(Val::Pkg(p)) => return self.pkg_target(p, name),
            None => {}
        }
        // An error value whose declaration gave no type (`x, err := f()`).
        if name == "Error" && (recv == "err" || recv.ends_with("Err")) {
            return Target::Stdlib;
        }
        // `pkg.Var[i].M()`, `pkg.F()(x).M()`: a method of a standard or third-party type.
        let end = recv
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(recv.len());
        let first = &recv[..end];
        let f = crate::resolve::func(self.units, caller);
        if f.locals.iter().any(|(n, _)| n == first) {
            return Target::Unresolved;
        }
        match self.bindings[caller.file as usize].get(first) {
            Some(Pkg::Stdlib) => Target::Stdlib,
            Some(Pkg::External) => Target::External,
            _ => Target::Unresolved,
        }
    }
}

/// The repository's module path, from its import paths (see the module docs).
fn infer_module(
    units: &[SourceUnit],
    dirs: &HashSet<&str>,
    names: &HashMap<&str, &str>,
) -> Option<String> {
    let mut votes: HashMap<&str, usize> = HashMap::new();
    let root_name = names.get("").copied();
    for u in units.iter().filter(|u| u.lang == Lang::Go) {
        for imp in &u.info.imports {
            let path = imp.module.as_str();
            if path == "C" || stdlib::is_go_package(path) {
                continue;
            }
            // Every way of reading `path` as `module/dir` with a directory of the repository.
            let mut voted = false;
            for (i, _) in path.match_indices('/') {
                let (m, d) = (&path[..i], &path[i + 1..]);
                if dirs.contains(d) && !d.starts_with("vendor/") && !d.contains("/vendor/") {
                    *votes.entry(m).or_default() += 1;
                    voted = true;
                    break;
                }
            }
            if !voted && root_name.is_some_and(|n| default_name(path) == n) {
                *votes.entry(path).or_default() += 1;
            }
        }
    }
    votes
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(a.0.len().cmp(&b.0.len())).then(b.0.cmp(a.0)))
        .map(|(m, _)| m.to_string())
}

impl crate::resolve::Resolver for Index<'_> {
    /// A name a line mentions without calling it may also be a package-level constant or
    /// variable: of the caller's package, or `pkg.Name` of an imported one.
    fn resolve_name(&self, caller: FnRef, call: &CallSite) -> Target {
        match self.resolve(caller, call) {
            Target::Unresolved => {
                let dir = match &call.kind {
                    CallKind::Plain => Some(self.dir(caller.file)),
                    CallKind::Member(recv) => match self.bindings[caller.file as usize].get(recv) {
                        Some(Pkg::Repo(d)) => Some(*d),
                        _ => None,
                    },
                    _ => None,
                };
                dir.and_then(|d| self.values.get(&(d, call.name.as_str())))
                    .map_or(Target::Unresolved, |&f| Target::RepoFile(f))
            }
            t => t,
        }
    }

    fn resolve(&self, caller: FnRef, call: &CallSite) -> Target {
        match &call.kind {
            CallKind::Plain => {
                let dir = self.dir(caller.file);
                if let Some(t) = self.in_package(dir, &call.name) {
                    return t;
                }
                if stdlib::is_go_builtin(&call.name) {
                    return Target::Stdlib;
                }
                for &pkg in &self.dots[caller.file as usize] {
                    match self.pkg_target(pkg, &call.name) {
                        Target::Unresolved => {}
                        t => return t,
                    }
                }
                Target::Unresolved
            }
            CallKind::Member(recv) => self.member_call(caller, recv, &call.name),
            _ => Target::Unresolved,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{chain, default_name, modules};

    /// `go.mod` files map module paths onto folders, a nested module before its parent.
    #[test]
    fn modules_of_go_mod_files() {
        let files = vec![
            ("go.mod".to_string(), "// c\nmodule example.com/shop // x\n\ngo 1.21\n".to_string()),
            ("tools/go.mod".to_string(), "module \"example.com/shop/tools\"\n".to_string()),
            ("docs/go.mod".to_string(), "go 1.21\n".to_string()),
            ("tsconfig.json".to_string(), "{}".to_string()),
            ("modules/go.mod".to_string(), "modulex example.com/no\n".to_string()),
        ];
        assert_eq!(
            modules(&files),
            vec![
                ("example.com/shop/tools".to_string(), "tools".to_string()),
                ("example.com/shop".to_string(), String::new()),
            ]
        );
    }

    #[test]
    fn selector_chains() {
        assert_eq!(chain("c"), Some(vec![("c", false)]));
        assert_eq!(
            chain("c.Flags().Lookup(\"a.b)\")"),
            Some(vec![("c", false), ("Flags", true), ("Lookup", true)])
        );
        assert_eq!(
            chain("pkg.New(f(x),y).Run"),
            Some(vec![("pkg", false), ("New", true), ("Run", false)])
        );
        assert_eq!(chain("xs[0].M"), None);
        assert_eq!(chain("f()()"), None);
        assert_eq!(chain("(*T).M"), None);
        assert_eq!(chain("a..b"), None);
    }

    #[test]
    fn default_package_names() {
        assert_eq!(default_name("github.com/spf13/pflag"), "pflag");
        assert_eq!(default_name("github.com/mattn/go-isatty"), "isatty");
        assert_eq!(default_name("gopkg.in/yaml.v3"), "yaml");
        assert_eq!(default_name("github.com/cpuguy83/go-md2man/v2"), "md2man");
        assert_eq!(default_name("github.com/x/protobuf-go"), "protobuf");
        assert_eq!(default_name("net/http"), "http");
    }
}
