//! The JavaScript and TypeScript resolver (one family: TypeScript imports JavaScript and
//! the other way).
//!
//! Each file is a module named by its path. Relative specifiers (`./a`, `../b/c`) are
//! probed as written, with each extension (`.ts`, `.tsx`, `.js`, `.jsx`, `.mjs`, `.cjs`,
//! `.mts`, `.cts`; TypeScript's `./a.js` also finds `a.ts`) and as a folder's `index` file.
//! A bare specifier is a path alias of the nearest `tsconfig.json` or `jsconfig.json` above
//! the importing file (`compilerOptions.paths` patterns, then `baseUrl`), a Node.js
//! built-in module (`fs`, `node:fs`: `stdlib`), an alias into the repository that no
//! config declares (`@/x`, `~/x`, `src/x`: looked up from the root and from `src/`), or a
//! package (`external_binaries`). Configs' `extends` is not followed.
//!
//! Names are looked up as the module system binds them: functions nested in the caller,
//! the file's own functions and classes, ES imports (default, named, namespace) and
//! CommonJS `require` (whole module, destructured, `.member`), following re-exports
//! (`export ... from`, `export default x`, `module.exports = x`, `exports.a = b`), then the
//! JavaScript/DOM/Node globals (`stdlib`). `this.m()` goes through the caller's class and
//! its bases (or, outside a class, the object or prototype the caller is assigned to),
//! `super.m()` through the bases, `new C()` to `C`'s constructor, `x.m()` through `x`'s
//! class when `x = new C()` or `x: C`. A receiver rooted at a global (`console.log`,
//! `Object.keys(o).map`) or a literal (`'a'.split`, `[].map`) is `stdlib`.

use std::collections::{HashMap, HashSet};

use super::stdlib;
use crate::extract::{CallKind, CallSite, ClassInfo, Import};
use crate::{Lang, Registry};
use crate::resolve::{dir_of, normalize_path, FnRef, SourceUnit, Sym, Target};

/// How deep re-exports and base classes are followed.
const MAX_HOPS: usize = 16;

/// Extensions probed for a specifier without one, in TypeScript's order.
const EXTENSIONS: &[&str] = &["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"];

fn serves(lang: Lang) -> bool {
    lang == Lang::JavaScript || lang == Lang::TypeScript
}

/// The project files whose path aliases the resolver reads.
pub(crate) const CONFIG_FILES: &[&str] = &["tsconfig.json", "jsconfig.json"];

/// The module aliases of one `tsconfig.json`/`jsconfig.json`.
#[derive(Debug, Default, PartialEq)]
struct Aliases {
    /// The config's folder (`""` at the root): it applies to the files below it.
    dir: String,
    /// The folder `paths` targets are relative to: `baseUrl`, else the config's folder.
    base: String,
    /// Whether `baseUrl` is set (bare specifiers are then also looked up from it).
    has_base_url: bool,
    /// `paths`: a pattern with at most one `*`, and its targets.
    paths: Vec<(String, Vec<String>)>,
}

fn parse_config(path: &str, text: &str) -> Option<Aliases> {
    // JSON with comments and trailing commas, as `tsc` reads it.
    let v: serde_json::Value =
        jsonc_parser::parse_to_serde_value(text, &jsonc_parser::ParseOptions::default()).ok()?;
    let opts = v.get("compilerOptions")?;
    let dir = dir_of(path).to_string();
    let base_url = opts.get("baseUrl").and_then(|b| b.as_str());
    let base = match base_url {
        Some(b) => normalize_path(&format!("{dir}/{b}"))?,
        None => dir.clone(),
    };
    let mut paths = Vec::new();
    if let Some(p) = opts.get("paths").and_then(|p| p.as_object()) {
        for (pattern, targets) in p {
            let targets: Vec<String> = targets
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|t| t.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            paths.push((pattern.clone(), targets));
        }
    }
    Some(Aliases {
        dir,
        base,
        has_base_url: base_url.is_some(),
        paths,
    })
}

/// What a `paths` pattern captures from `spec` (`*` in `@app/*`), `Some("")` for an exact
/// pattern that equals it.
fn capture<'s>(pattern: &str, spec: &'s str) -> Option<&'s str> {
    match pattern.split_once('*') {
        None => (pattern == spec).then_some(""),
        Some((prefix, suffix)) => spec
            .strip_prefix(prefix)?
            .strip_suffix(suffix)
            .filter(|_| spec.len() >= prefix.len() + suffix.len()),
    }
}

pub(crate) struct Index<'u> {
    units: &'u [SourceUnit],
    /// Path aliases of the configs, nearest (deepest folder) first.
    aliases: Vec<Aliases>,
    files: HashMap<&'u str, u32>,
    /// Per file: functions by qualified name.
    defs: Vec<HashMap<&'u str, Vec<FnRef>>>,
    /// Per file: classes by qualified name within the file.
    classes: Vec<HashMap<&'u str, &'u ClassInfo>>,
    /// Per file: local names bound by imports and `require`.
    bindings: Vec<HashMap<&'u str, &'u Import>>,
    /// Per file: exported names that stand for something else (re-exports, `export default
    /// x`), and the modules whose every export is re-exported (`export * from`).
    exports: Vec<HashMap<&'u str, &'u Import>>,
    stars: Vec<Vec<&'u str>>,
}

/// Where a specifier leads.
enum Module {
    File(u32),
    Stdlib,
    External,
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

impl<'u> Index<'u> {
    pub(crate) fn new(units: &'u [SourceUnit]) -> Self {
        Self::with_config(units, &[])
    }

    /// The index with the path aliases of the repository's `tsconfig.json` and
    /// `jsconfig.json` files (path and text; other files are ignored).
    pub(crate) fn with_config(units: &'u [SourceUnit], files: &[(String, String)]) -> Self {
        let mut aliases: Vec<Aliases> = files
            .iter()
            .filter(|(p, _)| CONFIG_FILES.contains(&p.rsplit('/').next().unwrap_or(p)))
            .filter_map(|(p, t)| parse_config(p, t))
            .collect();
        // Deepest first; at one folder, tsconfig.json before jsconfig.json.
        aliases.sort_by(|a, b| {
            b.dir
                .matches('/')
                .count()
                .cmp(&a.dir.matches('/').count())
                .then(b.dir.len().cmp(&a.dir.len()))
        });
        let n = units.len();
        let mut ix = Index {
            units,
            aliases,
            files: HashMap::new(),
            defs: vec![HashMap::new(); n],
            classes: vec![HashMap::new(); n],
            bindings: vec![HashMap::new(); n],
            exports: vec![HashMap::new(); n],
            stars: vec![Vec::new(); n],
        };
        for (fi, u) in units.iter().enumerate() {
            if !serves(u.lang) {
                continue;
            }
            ix.files.insert(u.path.as_str(), fi as u32);
            for (gi, f) in u.functions.iter().enumerate() {
                ix.defs[fi]
                    .entry(f.qualified_name.as_str())
                    .or_default()
                    .push(FnRef {
                        file: fi as u32,
                        func: gi as u32,
                    });
            }
            for c in &u.info.classes {
                ix.classes[fi].entry(c.name.as_str()).or_insert(c);
            }
            for imp in &u.info.imports {
                if imp.reexport {
                    match (&imp.alias, &imp.name, imp.wildcard) {
                        (None, _, true) => ix.stars[fi].push(imp.module.as_str()),
                        (Some(a), _, _) => {
                            ix.exports[fi].insert(a.as_str(), imp);
                        }
                        (None, Some(n), _) => {
                            ix.exports[fi].insert(n.as_str(), imp);
                        }
                        _ => {}
                    }
                } else if let Some(a) = &imp.alias {
                    ix.bindings[fi].insert(a.as_str(), imp);
                }
            }
        }
        ix
    }

    /// The repository file at `path` probed with extensions and `index` files.
    fn probe(&self, path: &str) -> Option<u32> {
        if let Some(&f) = self.files.get(path) {
            return Some(f);
        }
        // TypeScript's ES module imports name the compiled `.js`: `./a.js` is `a.ts`.
        let stem = [".js", ".jsx", ".mjs", ".cjs"]
            .iter()
            .find_map(|e| path.strip_suffix(e))
            .unwrap_or(path);
        for base in [stem.to_string(), format!("{path}/index")] {
            let base = base.trim_start_matches('/');
            for e in EXTENSIONS {
                if let Some(&f) = self.files.get(format!("{base}.{e}").as_str()) {
                    return Some(f);
                }
            }
        }
        None
    }

    fn module(&self, from: u32, spec: &str) -> Module {
        if spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == ".." {
            let dir = dir_of(&self.units[from as usize].path);
            return match normalize_path(&format!("{dir}/{spec}")).and_then(|p| self.probe(&p)) {
                Some(f) => Module::File(f),
                // A relative file that is not in the repository (generated, or of another
                // language): nothing to call into.
                None => Module::External,
            };
        }
        if let Some(f) = self.alias(from, spec) {
            return Module::File(f);
        }
        if stdlib::is_node_module(spec) {
            return Module::Stdlib;
        }
        // Path aliases (`@/x`, `~/x`) and `baseUrl` imports (`src/x`, `utils/x`).
        let rest = spec
            .strip_prefix("@/")
            .or_else(|| spec.strip_prefix("~/"))
            .unwrap_or(spec);
        for root in ["", "src/"] {
            if let Some(f) = normalize_path(&format!("{root}{rest}")).and_then(|p| self.probe(&p)) {
                return Module::File(f);
            }
        }
        Module::External
    }

    /// A bare specifier through the path aliases of the nearest config above `from`.
    fn alias(&self, from: u32, spec: &str) -> Option<u32> {
        let path = &self.units[from as usize].path;
        let config = self.aliases.iter().find(|a| {
            a.dir.is_empty() || path.strip_prefix(a.dir.as_str()).is_some_and(|r| r.starts_with('/'))
        })?;
        // The longest matching pattern wins, as in TypeScript.
        let mut best: Option<(&str, &Vec<String>, &str)> = None;
        for (pattern, targets) in &config.paths {
            if let Some(cap) = capture(pattern, spec) {
                if best.is_none_or(|(p, _, _)| p.len() < pattern.len()) {
                    best = Some((pattern.as_str(), targets, cap));
                }
            }
        }
        if let Some((_, targets, cap)) = best {
            for t in targets {
                let t = t.replacen('*', cap, 1);
                if let Some(f) = normalize_path(&format!("{}/{t}", config.base)).and_then(|p| self.probe(&p)) {
                    return Some(f);
                }
            }
        }
        if config.has_base_url {
            return normalize_path(&format!("{}/{spec}", config.base)).and_then(|p| self.probe(&p));
        }
        None
    }

    fn import_sym(&self, file: u32, imp: &'u Import, hops: usize) -> Option<Sym<'u>> {
        if imp.module.is_empty() {
            // Something of this file exported under another name.
            return self.local(file, imp.name.as_deref()?, hops + 1);
        }
        match self.module(file, &imp.module) {
            Module::Stdlib => Some(Sym::Stdlib),
            Module::External => Some(Sym::External),
            Module::File(t) => match (&imp.name, imp.wildcard) {
                (_, true) => Some(Sym::Module(t)),
                (Some(n), false) => self.export(t, n, hops + 1),
                (None, false) => self.export(t, "default", hops + 1),
            },
        }
    }

    /// The function of `file` named `q`, or another name of it (`a.x = a.y = function`).
    fn def_or_alias(&self, file: u32, q: &str) -> Option<FnRef> {
        let defs = &self.defs[file as usize];
        if let Some(r) = defs.get(q).and_then(|v| v.last()) {
            return Some(*r);
        }
        let alias = self.exports[file as usize]
            .get(q)
            .filter(|i| i.module.is_empty())?;
        defs.get(alias.name.as_deref()?).and_then(|v| v.last()).copied()
    }

    /// A top-level name of `file`: its functions and classes, then its imports.
    fn local(&self, file: u32, name: &str, hops: usize) -> Option<Sym<'u>> {
        if hops > MAX_HOPS {
            return None;
        }
        let f = file as usize;
        if let Some(r) = self.defs[f].get(name).and_then(|v| v.last()) {
            return Some(Sym::Function(*r));
        }
        if let Some(c) = self.classes[f].get(name) {
            return Some(Sym::Class(file, c));
        }
        let imp = self.bindings[f].get(name)?;
        self.import_sym(file, imp, hops)
    }

    /// What module `file` exports as `name` (`default` for the default export).
    fn export(&self, file: u32, name: &str, hops: usize) -> Option<Sym<'u>> {
        if hops > MAX_HOPS {
            return None;
        }
        let f = file as usize;
        if let Some(imp) = self.exports[f].get(name) {
            return self.import_sym(file, imp, hops);
        }
        if name == "default" {
            for n in ["default", "module.exports"] {
                if let Some(r) = self.defs[f].get(n).and_then(|v| v.last()) {
                    return Some(Sym::Function(*r));
                }
            }
        } else {
            if let Some(s) = self.local_def(file, name) {
                return Some(s);
            }
            // `exports.a = function`, and a default export that is an object of the file
            // (`var app = module.exports = {}; app.a = function`).
            let object = self.exports[f]
                .get("default")
                .filter(|i| i.module.is_empty())
                .and_then(|i| i.name.as_deref());
            for prefix in ["exports", "module.exports"].into_iter().chain(object) {
                let q = format!("{prefix}.{name}");
                if let Some(r) = self.defs[f].get(q.as_str()).and_then(|v| v.last()) {
                    return Some(Sym::Function(*r));
                }
            }
        }
        for m in &self.stars[f] {
            if let Module::File(t) = self.module(file, m) {
                if let Some(s) = self.export(t, name, hops + 1) {
                    return Some(s);
                }
            }
        }
        None
    }

    /// A function or class declared at the top level of `file` (not an import).
    fn local_def(&self, file: u32, name: &str) -> Option<Sym<'u>> {
        let f = file as usize;
        if let Some(r) = self.defs[f].get(name).and_then(|v| v.last()) {
            return Some(Sym::Function(*r));
        }
        self.classes[f].get(name).map(|c| Sym::Class(file, c))
    }

    /// A name as the function `caller` sees it: functions nested in its enclosing
    /// functions, the file's top level, imports, globals.
    fn lookup(&self, caller: FnRef, name: &str) -> Option<Sym<'u>> {
        let f = &self.units[caller.file as usize].functions[caller.func as usize];
        let defs = &self.defs[caller.file as usize];
        let mut scope = f.qualified_name.as_str();
        loop {
            let q = format!("{scope}.{name}");
            if let Some(r) = defs.get(q.as_str()).and_then(|v| v.last()) {
                if !self.classes[caller.file as usize].contains_key(scope) {
                    return Some(Sym::Function(*r));
                }
            }
            match scope.rfind('.') {
                Some(i) => scope = &scope[..i],
                None => break,
            }
        }
        if let Some(s) = self.local(caller.file, name, 0) {
            return Some(s);
        }
        stdlib::is_global(name).then_some(Sym::Stdlib)
    }

    /// The class of a variable of the caller, or of a function it is nested in (an arrow
    /// function bound to a name sees its enclosing function's variables).
    fn local_type(&self, caller: FnRef, name: &str) -> Option<&'u str> {
        let u = &self.units[caller.file as usize];
        let f = &u.functions[caller.func as usize];
        if let Some((_, t)) = f.locals.iter().rev().find(|(n, _)| n == name) {
            return Some(t.as_str());
        }
        let defs = &self.defs[caller.file as usize];
        let mut scope = f.scope.as_str();
        while !scope.is_empty() {
            if let Some(r) = defs.get(scope).and_then(|v| v.last()) {
                let outer = &u.functions[r.func as usize];
                if let Some((_, t)) = outer.locals.iter().rev().find(|(n, _)| n == name) {
                    return Some(t.as_str());
                }
            }
            scope = scope.rfind('.').map_or("", |i| &scope[..i]);
        }
        None
    }

    /// The class enclosing the function `caller`.
    fn own_class(&self, caller: FnRef) -> Option<&'u ClassInfo> {
        let f = &self.units[caller.file as usize].functions[caller.func as usize];
        let classes = &self.classes[caller.file as usize];
        let mut scope = f.scope.as_str();
        loop {
            if let Some(c) = classes.get(scope) {
                return Some(c);
            }
            scope = &scope[..scope.rfind('.')?];
        }
    }

    /// A class name as written in `file` (a base class, a type annotation, `new` target).
    fn class_sym(&self, file: u32, name: &str) -> Option<Sym<'u>> {
        match name.split_once('.') {
            None => match self.local(file, name, 0) {
                Some(s) => Some(s),
                None => stdlib::is_global(name).then_some(Sym::Stdlib),
            },
            Some((first, rest)) => match self.local(file, first, 0) {
                Some(Sym::Module(t)) => self.export(t, rest, 0),
                Some(s @ (Sym::Stdlib | Sym::External)) => Some(s),
                None if stdlib::is_global(first) => Some(Sym::Stdlib),
                _ => self.classes[file as usize]
                    .get(name)
                    .map(|c| Sym::Class(file, c)),
            },
        }
    }

    /// Method `name` of class `c` (in `file`) or of its bases; `skip_self` starts at the
    /// bases (`super.m()`).
    fn method(&self, file: u32, c: &'u ClassInfo, name: &str, skip_self: bool) -> Option<Target> {
        let mut stack: Vec<(u32, &ClassInfo, bool)> = vec![(file, c, skip_self)];
        let mut seen: HashSet<(u32, &str)> = HashSet::new();
        let mut outside = None;
        while let Some((f, class, skip)) = stack.pop() {
            if !seen.insert((f, class.name.as_str())) || seen.len() > MAX_HOPS * 4 {
                continue;
            }
            if !skip {
                let q = format!("{}.{name}", class.name);
                if let Some(r) = self.defs[f as usize].get(q.as_str()).and_then(|v| v.last()) {
                    return Some(Target::Function(*r, 1));
                }
            }
            for b in class.bases.iter().rev() {
                match self.class_sym(f, b) {
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
        outside
    }

    /// What calling `sym` (or its member `member`) reaches.
    fn call_sym(&self, sym: Sym<'u>, member: Option<&str>) -> Target {
        match (sym, member) {
            (Sym::Function(r), None) => Target::Function(r, 1),
            (Sym::Class(f, c), None) => match self.method(f, c, "constructor", false) {
                Some(t @ Target::Function(..)) => t,
                _ => Target::RepoFile(f),
            },
            (Sym::Class(f, c), Some(m)) => self.method(f, c, m, false).unwrap_or(Target::Unresolved),
            (Sym::Module(t), None) => match self.export(t, "default", 0) {
                Some(s @ (Sym::Function(_) | Sym::Class(..))) => self.call_sym(s, None),
                _ => Target::Unresolved,
            },
            (Sym::Module(t), Some(m)) => match self.export(t, m, 0) {
                Some(s) => self.call_sym(s, None),
                None => {
                    // A CommonJS module whose `module.exports` is an object of methods.
                    match self.export(t, "default", 0) {
                        Some(Sym::Class(f, c)) => {
                            self.method(f, c, m, false).unwrap_or(Target::Unresolved)
                        }
                        _ => Target::Unresolved,
                    }
                }
            },
            (Sym::Function(r), Some(m)) => {
                // `f.call()`, `f.apply()`, `f.bind()` are Function.prototype's; a property
                // assigned to the function (`f.helper = function`) is the repository's.
                let u = &self.units[r.file as usize];
                let q = format!("{}.{m}", u.functions[r.func as usize].qualified_name);
                match self.defs[r.file as usize].get(q.as_str()).and_then(|v| v.last()) {
                    Some(g) => Target::Function(*g, 1),
                    None if matches!(m, "call" | "apply" | "bind") => Target::Stdlib,
                    None => Target::Unresolved,
                }
            }
            (Sym::Stdlib, _) => Target::Stdlib,
            (Sym::External, _) => Target::External,
        }
    }

    /// A type name as a symbol (classes of the repository, globals, imported types).
    fn type_target(&self, file: u32, ty: &str, member: &str) -> Target {
        match self.class_sym(file, ty) {
            Some(s) => self.call_sym(s, Some(member)),
            None => Target::Unresolved,
        }
    }

    fn member_call(&self, caller: FnRef, recv: &str, name: &str) -> Target {
        let file = caller.file;
        let f = &self.units[file as usize].functions[caller.func as usize];
        match recv {
            "this" => {
                if let Some(c) = self.own_class(caller) {
                    return self
                        .method(file, c, name, false)
                        .unwrap_or(Target::Unresolved);
                }
                // `obj.m = function () { this.n() }`, `Foo.prototype.m = ...`: a sibling of
                // the caller on the same object or prototype.
                let mut owners = vec![f.scope.clone()];
                if let Some(ctor) = f.scope.strip_suffix(".prototype") {
                    owners.push(ctor.to_string());
                } else if !f.scope.is_empty() {
                    owners.push(format!("{}.prototype", f.scope));
                }
                for o in owners.iter().filter(|o| !o.is_empty()) {
                    if let Some(r) = self.def_or_alias(file, &format!("{o}.{name}")) {
                        return Target::Function(r, 1);
                    }
                }
                return Target::Unresolved;
            }
            "super" => {
                return match self.own_class(caller) {
                    Some(c) => self.method(file, c, name, true).unwrap_or(Target::Unresolved),
                    None => Target::Unresolved,
                };
            }
            _ => {}
        }
        // Literals: strings, template strings, arrays, regular expressions.
        if recv.starts_with(['\'', '"', '`', '[', '/']) {
            return Target::Stdlib;
        }
        if let Some(field) = recv.strip_prefix("this.").filter(|r| is_identifier(r)) {
            let ty = self
                .own_class(caller)
                .and_then(|c| c.fields.iter().find(|(n, _)| n == field));
            return match ty {
                Some((_, t)) => self.type_target(file, t, name),
                None => Target::Unresolved,
            };
        }
        if let Some(ty) = recv.strip_prefix("new ") {
            // `new C(x).m()`.
            let ty = ty.split('(').next().unwrap_or(ty);
            return self.type_target(file, ty, name);
        }
        if is_identifier(recv) {
            if let Some(ty) = self.local_type(caller, recv) {
                return self.type_target(file, ty, name);
            }
        }
        // A function assigned to a property of an object, class or namespace of the file
        // (`api.get = function`, `Foo.create = ...`, `var api = { get() {} }`).
        if let Some(r) = self.def_or_alias(file, &format!("{recv}.{name}")) {
            return Target::Function(r, 1);
        }
        if is_identifier(recv) {
            return match self.lookup(caller, recv) {
                Some(s) => self.call_sym(s, Some(name)),
                None => Target::Unresolved,
            };
        }
        // `a.b.m()`, `f(x).m()`: known when rooted at a global that nothing shadows.
        let root_len = recv
            .bytes()
            .position(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'$'))
            .unwrap_or(recv.len());
        let root = &recv[..root_len];
        if is_identifier(root) && self.local_type(caller, root).is_none() {
            match self.lookup(caller, root) {
                Some(Sym::Stdlib) => return Target::Stdlib,
                Some(Sym::External) => return Target::External,
                Some(Sym::Module(t)) => {
                    // `ns.sub.m()`, `ns.Class.m()`.
                    let rest = &recv[root_len..];
                    if let Some(member) = rest.strip_prefix('.').filter(|r| is_identifier(r)) {
                        if let Some(s) = self.export(t, member, 0) {
                            return self.call_sym(s, Some(name));
                        }
                    }
                }
                _ => {}
            }
        }
        Target::Unresolved
    }

    pub(crate) fn resolve_call(&self, caller: FnRef, call: &CallSite) -> Target {
        match &call.kind {
            CallKind::Plain if is_identifier(&call.name) => {
                match self.lookup(caller, &call.name) {
                    Some(s) => self.call_sym(s, None),
                    None => Target::Unresolved,
                }
            }
            CallKind::Member(recv) => self.member_call(caller, recv, &call.name),
            CallKind::New => {
                let ty = call.text.strip_prefix("new ").unwrap_or(&call.text);
                let sym = match ty.split_once('.') {
                    None => self.lookup(caller, ty),
                    Some(_) => self.class_sym(caller.file, ty),
                };
                match sym {
                    Some(s) => self.call_sym(s, None),
                    None => Target::Unresolved,
                }
            }
            _ => Target::Unresolved,
        }
    }
}

impl crate::resolve::Resolver for Index<'_> {
    fn resolve(&self, caller: FnRef, call: &CallSite) -> Target {
        self.resolve_call(caller, call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_with_comments_and_trailing_commas_parse() {
        let text = r#"{
  // Comment.
  "compilerOptions": {
    /* Block */ "baseUrl": "./src",
    "paths": { "@app/*": ["app/*", "lib/*",], "~": ["index"], },
    "outDir": "http://not//a/comment",
  },
}"#;
        let a = parse_config("web/tsconfig.json", text).expect("parses");
        assert_eq!(a.dir, "web");
        assert_eq!(a.base, "web/src");
        assert!(a.has_base_url);
        assert_eq!(
            a.paths,
            vec![
                ("@app/*".to_string(), vec!["app/*".to_string(), "lib/*".to_string()]),
                ("~".to_string(), vec!["index".to_string()]),
            ]
        );
        assert_eq!(capture("@app/*", "@app/x/y"), Some("x/y"));
        assert_eq!(capture("@app/*", "@other/x"), None);
        assert_eq!(capture("~", "~"), Some(""));
        assert!(parse_config("tsconfig.json", "{ not json").is_none());
    }

    #[test]
    fn paths_normalize() {
        assert_eq!(normalize_path("src/a/../b/./c").as_deref(), Some("src/b/c"));
        assert_eq!(normalize_path("/x/y").as_deref(), Some("x/y"));
        assert_eq!(normalize_path("a/../../b"), None);
    }
}
