//! The Rust resolver.
//!
//! A crate is a folder with a `Cargo.toml` that names a `[package]`; its modules are the
//! files under its `src/` (`src/lib.rs` and `src/main.rs` the root, `src/a.rs` and
//! `src/a/mod.rs` module `a`, `src/a/b.rs` module `a::b`). Without a `Cargo.toml`, a folder
//! holding `src/` is taken for one. A Rust file outside every `src/` (`tests/`, `examples/`,
//! `benches/`, `build.rs`) is a crate root of its own. Inline modules (`mod m { }`) count
//! as part of their file's module.
//!
//! A path (`a::b::f`) starts at `crate`, `self`, `super` or `Self`, a name the file's
//! `use` declarations bind (followed as written, up to 8 steps), a crate of the workspace
//! (its `Cargo.toml` name, `-` read as `_`), a module below the caller's, or a type of the
//! repository; a path into `std`, `core` or `alloc` is `stdlib`, one into a dependency of
//! any `Cargo.toml` `external_binaries`. A plain call `f()` is a function of the caller's
//! module (or one nested in the caller), a name a `use` binds, one of a glob-imported module, a tuple struct of the
//! repository (its file), or the prelude's (`drop`, `Some`, `Ok`, `Err`). `self.m()` is a
//! method of the caller's `impl` type, `x.m()` one of `x`'s declared or obvious type
//! (`x: T`, `let x = T::new()`, `T { .. }`, `self.field` of a declared struct field); a
//! receiver of a standard type, or an untyped receiver with a standard method name, is
//! `stdlib`; an untyped receiver whose method name one function of the repository has
//! reaches it.

use std::collections::{HashMap, HashSet};

use super::stdlib;
use crate::extract::{CallKind, CallSite, ClassInfo, FunctionKind};
use crate::resolve::{nested_in, pick, FnRef, SourceUnit, Target};
use crate::{Lang, Registry};

/// How many `use` bindings a path is followed through.
const MAX_HOPS: usize = 8;

/// A place a path can lead to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ns {
    /// A module: the crate's index and the module path (`a::b`, empty at the root).
    Module(usize, String),
    /// A type or trait of the repository.
    Type(String),
    Stdlib,
    External,
}

/// One crate of the repository.
#[derive(Debug, Clone)]
struct Crate {
    /// The folder holding its `src/` (empty at the repository root), or the file itself
    /// for a lone crate root.
    root: String,
    /// The name paths use (`-` as `_`); empty for a lone file.
    name: String,
}

pub(crate) struct Index<'u> {
    units: &'u [SourceUnit],
    crates: Vec<Crate>,
    /// Per file: its crate and module path (`None` for other languages).
    places: Vec<Option<(usize, String)>>,
    /// Modules that exist, per crate.
    modules: HashSet<(usize, String)>,
    /// Free functions by (crate, module, name).
    free: HashMap<(usize, String, &'u str), Vec<FnRef>>,
    /// Methods by (type or trait, name).
    methods: HashMap<(&'u str, &'u str), Vec<FnRef>>,
    /// Methods by name alone.
    by_name: HashMap<&'u str, Vec<FnRef>>,
    /// Types of the repository: the file of the first declaration by path, and it.
    types: HashMap<&'u str, (u32, &'u ClassInfo)>,
    /// Crate names of the repository's dependencies (`-` as `_`).
    deps: HashSet<String>,
}

/// The crates that the repository's `Cargo.toml` files declare (folder, name), and the
/// dependencies they name.
fn manifests(files: &[(String, String)]) -> (Vec<Crate>, HashSet<String>) {
    let mut crates = Vec::new();
    let mut deps = HashSet::new();
    for (path, text) in files {
        if path != "Cargo.toml" && !path.ends_with("/Cargo.toml") {
            continue;
        }
        let Ok(table) = text.parse::<toml::Table>() else {
            continue;
        };
        let dir = path.strip_suffix("Cargo.toml").unwrap_or("").trim_end_matches('/');
        if let Some(name) = table
            .get("package")
            .and_then(|p| p.get("name"))
            .and_then(|n| n.as_str())
        {
            // `[lib] name` renames the library crate.
            let lib = table
                .get("lib")
                .and_then(|l| l.get("name"))
                .and_then(|n| n.as_str())
                .unwrap_or(name);
            crates.push(Crate {
                root: dir.to_string(),
                name: lib.replace('-', "_"),
            });
        }
        let mut tables = vec![&table];
        if let Some(ws) = table.get("workspace").and_then(|w| w.as_table()) {
            tables.push(ws);
        }
        // Target-specific dependencies (`[target.'cfg(unix)'.dependencies]`) too.
        let targets: Vec<&toml::Table> = table
            .get("target")
            .and_then(|t| t.as_table())
            .map(|t| t.values().filter_map(|v| v.as_table()).collect())
            .unwrap_or_default();
        tables.extend(targets);
        for t in tables {
            for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
                let Some(d) = t.get(key).and_then(|d| d.as_table()) else {
                    continue;
                };
                for (name, spec) in d {
                    // `foo = { package = "bar" }` is named `foo` in code.
                    let local = spec.get("path").is_some() || spec.get("workspace").is_some();
                    if !local {
                        deps.insert(name.replace('-', "_"));
                    }
                }
            }
        }
    }
    crates.sort_by(|a, b| b.root.len().cmp(&a.root.len()).then_with(|| a.root.cmp(&b.root)));
    (crates, deps)
}

/// The module path of a file below a crate's `src/` (`a/b.rs` gives `a::b`).
fn module_of(rel: &str) -> String {
    let stem = rel.strip_suffix(".rs").unwrap_or(rel);
    let stem = stem.strip_suffix("/mod").unwrap_or(stem);
    if matches!(stem, "lib" | "main" | "mod") {
        return String::new();
    }
    stem.replace('/', "::")
}

fn parent_module(m: &str) -> String {
    m.rsplit_once("::").map_or(String::new(), |(p, _)| p.to_string())
}

fn child(m: &str, name: &str) -> String {
    if m.is_empty() {
        name.to_string()
    } else {
        format!("{m}::{name}")
    }
}

impl<'u> Index<'u> {
    pub(crate) fn new(units: &'u [SourceUnit], files: &'u [(String, String)]) -> Self {
        let (mut crates, deps) = manifests(files);
        let mut places: Vec<Option<(usize, String)>> = vec![None; units.len()];
        let mut modules = HashSet::new();
        for (fi, u) in units.iter().enumerate() {
            if u.lang != Lang::Rust {
                continue;
            }
            let declared = crates.iter().position(|c| {
                let src = if c.root.is_empty() {
                    "src/".to_string()
                } else {
                    format!("{}/src/", c.root)
                };
                u.path.starts_with(&src)
            });
            let place = match declared {
                Some(ci) => {
                    let root = &crates[ci].root;
                    let skip = if root.is_empty() { 4 } else { root.len() + 5 };
                    (ci, module_of(&u.path[skip..]))
                }
                None => {
                    // No manifest says: a folder holding `src/` is a crate, else the file
                    // is a crate root of its own.
                    let (root, rel) = match u.path.rfind("src/") {
                        Some(i) if i == 0 || u.path.as_bytes()[i - 1] == b'/' => {
                            (u.path[..i].trim_end_matches('/').to_string(), &u.path[i + 4..])
                        }
                        _ => (u.path.clone(), ""),
                    };
                    let ci = match crates.iter().position(|c| c.root == root && c.name.is_empty()) {
                        Some(ci) => ci,
                        None => {
                            crates.push(Crate {
                                root,
                                name: String::new(),
                            });
                            crates.len() - 1
                        }
                    };
                    (ci, module_of(rel))
                }
            };
            // Every ancestor module exists too.
            let mut m = place.1.clone();
            loop {
                modules.insert((place.0, m.clone()));
                if m.is_empty() {
                    break;
                }
                m = parent_module(&m);
            }
            places[fi] = Some(place);
        }
        let mut free: HashMap<(usize, String, &str), Vec<FnRef>> = HashMap::new();
        let mut methods: HashMap<(&str, &str), Vec<FnRef>> = HashMap::new();
        let mut by_name: HashMap<&str, Vec<FnRef>> = HashMap::new();
        let mut types: HashMap<&str, (u32, &ClassInfo)> = HashMap::new();
        let mut order: Vec<usize> = (0..units.len()).collect();
        order.sort_by(|a, b| units[*a].path.cmp(&units[*b].path));
        for &fi in &order {
            let Some((ci, module)) = &places[fi] else {
                continue;
            };
            let u = &units[fi];
            for c in &u.info.classes {
                if !c.name.starts_with("mod ") {
                    types.entry(c.name.as_str()).or_insert((fi as u32, c));
                }
            }
            for (gi, f) in u.functions.iter().enumerate() {
                let r = FnRef {
                    file: fi as u32,
                    func: gi as u32,
                };
                match f.kind {
                    FunctionKind::Method => {
                        let owner = f.scope.rsplit('.').next().unwrap_or(&f.scope);
                        methods.entry((owner, f.name.as_str())).or_default().push(r);
                        by_name.entry(f.name.as_str()).or_default().push(r);
                    }
                    // Nested functions are local to the function around them.
                    _ if f.scope.is_empty() => {
                        free.entry((*ci, module.clone(), f.name.as_str()))
                            .or_default()
                            .push(r);
                    }
                    _ => {}
                }
            }
        }
        Index {
            units,
            crates,
            places,
            modules,
            free,
            methods,
            by_name,
            types,
            deps,
        }
    }

    fn place(&self, file: u32) -> Option<(usize, &str)> {
        self.places
            .get(file as usize)?
            .as_ref()
            .map(|(c, m)| (*c, m.as_str()))
    }

    /// The `impl` type or trait of a method (`None` for a function).
    fn owner(&self, caller: FnRef) -> Option<&'u str> {
        let f = self.units.get(caller.file as usize)?.functions.get(caller.func as usize)?;
        if f.kind != FunctionKind::Method {
            return None;
        }
        Some(f.scope.rsplit('.').next().unwrap_or(&f.scope))
    }

    /// The path a `use` of the caller's file binds `name` to, as written.
    fn binding(&self, file: u32, name: &str) -> Option<&'u str> {
        let u = self.units.get(file as usize)?;
        u.info.imports.iter().filter(|i| !i.wildcard).find_map(|i| {
            let last = i.module.rsplit("::").next().unwrap_or(&i.module);
            let bound = i.alias.as_deref().unwrap_or(last);
            (bound == name && bound != "_").then_some(i.module.as_str())
        })
    }

    /// Where the path `segs` leads, seen from `caller`.
    fn namespace(&self, caller: FnRef, segs: &[&str], hops: usize) -> Option<Ns> {
        let (ci, module) = self.place(caller.file)?;
        let (&first, rest) = segs.split_first()?;
        let mut ns = match first {
            "crate" => Ns::Module(ci, String::new()),
            "self" => Ns::Module(ci, module.to_string()),
            "super" => Ns::Module(ci, parent_module(module)),
            "Self" => Ns::Type(self.owner(caller)?.to_string()),
            s if stdlib::is_std_crate(s) => return Some(Ns::Stdlib),
            s => {
                if let Some(path) = self.binding(caller.file, s) {
                    if hops >= MAX_HOPS {
                        return None;
                    }
                    let mut expanded: Vec<&str> = path.split("::").collect();
                    expanded.extend_from_slice(rest);
                    // A `use` of the crate's own module (`use self::a`, `use a::b` in 2018
                    // style) resolves from the file's own place.
                    return self.namespace(caller, &expanded, hops + 1);
                }
                if let Some(c) = self.crates.iter().position(|c| !c.name.is_empty() && c.name == s) {
                    Ns::Module(c, String::new())
                } else if self.deps.contains(s) {
                    return Some(Ns::External);
                } else if self.modules.contains(&(ci, child(module, s))) {
                    Ns::Module(ci, child(module, s))
                } else if self.types.contains_key(s) {
                    Ns::Type(s.to_string())
                } else if stdlib::is_std_type(s) {
                    return Some(Ns::Stdlib);
                } else {
                    return None;
                }
            }
        };
        for &seg in rest {
            ns = match ns {
                Ns::Module(c, m) => {
                    if seg == "super" {
                        Ns::Module(c, parent_module(&m))
                    } else if self.modules.contains(&(c, child(&m, seg))) {
                        Ns::Module(c, child(&m, seg))
                    } else if self.types.contains_key(seg) {
                        Ns::Type(seg.to_string())
                    } else {
                        return None;
                    }
                }
                // An associated item of a type (`T::Assoc::f`) is not followed.
                _ => return None,
            };
        }
        Some(ns)
    }

    /// The function `name` in `ns`.
    fn in_namespace(&self, ns: &Ns, name: &str) -> Target {
        match ns {
            Ns::Stdlib => Target::Stdlib,
            Ns::External => Target::External,
            Ns::Module(c, m) => {
                if let Some(c) = self.free.get(&(*c, m.clone(), name)) {
                    return pick(self.units, c.clone()).unwrap_or(Target::Unresolved);
                }
                // A tuple struct or an enum of the module is no function: its file.
                match self.types.get(name) {
                    Some(&(file, _)) => Target::RepoFile(file),
                    None => Target::Unresolved,
                }
            }
            Ns::Type(t) => self.method(t, name),
        }
    }

    /// A method `name` of the repository's type or trait `ty`.
    fn method(&self, ty: &str, name: &str) -> Target {
        match self.methods.get(&(ty, name)) {
            Some(c) => pick(self.units, c.clone()).unwrap_or(Target::Unresolved),
            None => match self.types.get(ty) {
                // A variant or a derived method (`T::default()`): the type's file.
                Some(&(file, _)) => Target::RepoFile(file),
                None => Target::Unresolved,
            },
        }
    }

    /// The declared or obvious type of the receiver `recv` in `caller`.
    fn receiver_type(&self, caller: FnRef, recv: &str) -> Option<&'u str> {
        let f = self.units.get(caller.file as usize)?.functions.get(caller.func as usize)?;
        if recv == "self" {
            return self.owner(caller);
        }
        if let Some(field) = recv.strip_prefix("self.") {
            let owner = self.owner(caller)?;
            let (_, class) = self.types.get(owner)?;
            return class
                .fields
                .iter()
                .find(|(n, _)| n == field)
                .map(|(_, t)| t.as_str());
        }
        // The last declaration before the call wins; parameters come first.
        f.locals
            .iter()
            .rev()
            .find(|(n, _)| n == recv)
            .map(|(_, t)| t.as_str())
    }

    fn member_call(&self, caller: FnRef, recv: &str, name: &str) -> Target {
        if let Some(t) = self.receiver_type(caller, recv) {
            if self.types.contains_key(t) || self.methods.contains_key(&(t, name)) {
                return self.method(t, name);
            }
            if stdlib::is_std_type(t) {
                return Target::Stdlib;
            }
        }
        if stdlib::is_std_method(name) {
            return Target::Stdlib;
        }
        match self.by_name.get(name) {
            Some(c) if c.len() == 1 => Target::Function(c[0], 1),
            _ => Target::Unresolved,
        }
    }
}

impl crate::Resolver for Index<'_> {
    fn resolve(&self, caller: FnRef, call: &CallSite) -> Target {
        let Some((ci, module)) = self.place(caller.file) else {
            return Target::Unresolved;
        };
        match &call.kind {
            CallKind::Plain => {
                let name = call.name.as_str();
                // A function nested in the caller shadows the module's.
                if let Some(r) = nested_in(self.units, caller, name) {
                    return Target::Function(r, 1);
                }
                if let Some(c) = self.free.get(&(ci, module.to_string(), name)) {
                    return pick(self.units, c.clone()).unwrap_or(Target::Unresolved);
                }
                if let Some(path) = self.binding(caller.file, name) {
                    let segs: Vec<&str> = path.split("::").collect();
                    if let Some((last, prefix)) = segs.split_last() {
                        if prefix.is_empty() {
                            // `use foo;` of a crate or module is no function.
                            return Target::Unresolved;
                        }
                        return match self.namespace(caller, prefix, 1) {
                            Some(ns) => self.in_namespace(&ns, last),
                            None => Target::Unresolved,
                        };
                    }
                }
                let globs = self.units[caller.file as usize]
                    .info
                    .imports
                    .iter()
                    .filter(|i| i.wildcard);
                for g in globs {
                    let segs: Vec<&str> = g.module.split("::").collect();
                    if let Some(ns @ Ns::Module(..)) = self.namespace(caller, &segs, 1) {
                        if let t @ Target::Function(..) = self.in_namespace(&ns, name) {
                            return t;
                        }
                    }
                }
                if let Some(&(file, _)) = self.types.get(name) {
                    return Target::RepoFile(file);
                }
                if stdlib::is_prelude_call(name) {
                    return Target::Stdlib;
                }
                Target::Unresolved
            }
            CallKind::Scoped(path) => {
                let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
                // `Vec::<u8>::new`, `<T as Trait>::f`: generic arguments and qualified
                // paths are not followed past a standard type.
                if segs.iter().any(|s| s.contains('<') || s.contains('>')) {
                    let first = segs.first().map_or("", |s| s.split('<').next().unwrap_or(""));
                    return if stdlib::is_std_crate(first) || stdlib::is_std_type(first) {
                        Target::Stdlib
                    } else {
                        Target::Unresolved
                    };
                }
                match self.namespace(caller, &segs, 0) {
                    Some(ns) => self.in_namespace(&ns, &call.name),
                    None => Target::Unresolved,
                }
            }
            CallKind::Member(recv) => self.member_call(caller, recv, &call.name),
            CallKind::New => Target::Unresolved,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{manifests, module_of};

    #[test]
    fn modules_follow_the_file_tree() {
        assert_eq!(module_of("lib.rs"), "");
        assert_eq!(module_of("main.rs"), "");
        assert_eq!(module_of("a.rs"), "a");
        assert_eq!(module_of("a/mod.rs"), "a");
        assert_eq!(module_of("a/b.rs"), "a::b");
    }

    #[test]
    fn manifests_name_crates_and_dependencies() {
        let files = vec![
            (
                "Cargo.toml".to_string(),
                "[workspace]\nmembers = [\"core-lib\"]\n[workspace.dependencies]\nserde = \"1\"\n"
                    .to_string(),
            ),
            (
                "core-lib/Cargo.toml".to_string(),
                "[package]\nname = \"core-lib\"\n[dependencies]\nrand_core = \"0.6\"\nlocal = { path = \"../local\" }\n[target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n"
                    .to_string(),
            ),
        ];
        let (crates, deps) = manifests(&files);
        assert_eq!(crates.len(), 1);
        assert_eq!((crates[0].root.as_str(), crates[0].name.as_str()), ("core-lib", "core_lib"));
        let mut deps: Vec<_> = deps.into_iter().collect();
        deps.sort();
        assert_eq!(deps, vec!["libc", "rand_core", "serde"]);
    }
}
