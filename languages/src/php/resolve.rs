//! The PHP resolver.
//!
//! Names are resolved as PHP does at compile time: a class name through the file's `use`
//! imports (aliases, and namespace prefixes for qualified names) or else in the file's
//! namespace; a function name through `use function`, else in the namespace, then, for an
//! unqualified name, PHP's fallback to the global function. Class and function names are
//! matched without regard to case, as PHP does. The class of a name is found from the
//! declarations of the whole repository (namespace plus class name), so a PSR-4 layout is
//! followed without reading `composer.json`.
//!
//! Methods are looked up in the class, its parent, interfaces and used traits:
//! `$this->m()`, `self::m()`, `static::m()`, `parent::m()`, `C::m()`, `new C()` (its
//! `__construct`, inherited or not), receivers typed by a parameter (`Foo $x`), by
//! `$x = new Foo()`, or by a typed or promoted property (`$this->client->m()`).
//! Internal functions and classes (and `isset`, `empty`) are `stdlib`; code under a
//! `vendor/` folder, and names in namespaces that no file of the repository declares (a
//! composer package's), are `external_binaries`. A name missing from a namespace the
//! repository declares stays unresolved.

use std::collections::{HashMap, HashSet};

use super::extract::last_segment;
use super::stdlib;
use crate::extract::{CallKind, CallSite, ClassInfo, FunctionKind, Import};
use crate::{Lang, Registry};
use crate::resolve::{func, pick, FnRef, SourceUnit, Target};

pub(crate) struct Index<'u> {
    units: &'u [SourceUnit],
    /// Lower-case fully qualified class name to its file and class.
    types: HashMap<String, (u32, &'u ClassInfo)>,
    /// Per file: classes by their scope name (`C`, `C.m.class@anonymous`).
    classes: Vec<HashMap<&'u str, &'u ClassInfo>>,
    /// Methods by (file, class scope, lower-case name).
    methods: HashMap<(u32, &'u str, String), Vec<FnRef>>,
    /// Lower-case fully qualified function name to its definitions.
    functions: HashMap<String, Vec<FnRef>>,
    /// Lower-case namespaces that files of the repository (outside `vendor/`) declare.
    namespaces: HashSet<String>,
}

/// Language constructs that the grammar parses as function calls; `get_defined_functions`
/// does not list them.
const LANGUAGE_CONSTRUCTS: [&str; 4] = ["isset", "empty", "eval", "die"];

#[derive(Debug, Clone, Copy)]
enum Ty<'u> {
    Repo(u32, &'u ClassInfo),
    Stdlib,
    External,
}

/// Whether a repository path lies in a `vendor/` folder (composer's installed packages).
fn is_vendored(path: &str) -> bool {
    path.starts_with("vendor/") || path.contains("/vendor/")
}

/// `ns\name`, or `name` in the global namespace.
fn join(ns: &str, name: &str) -> String {
    if ns.is_empty() {
        name.to_string()
    } else {
        format!("{ns}\\{name}")
    }
}

impl<'u> Index<'u> {
    pub(crate) fn new(units: &'u [SourceUnit]) -> Self {
        let mut types = HashMap::new();
        let mut classes = Vec::with_capacity(units.len());
        let mut methods: HashMap<(u32, &str, String), Vec<FnRef>> = HashMap::new();
        let mut functions: HashMap<String, Vec<FnRef>> = HashMap::new();
        let mut namespaces = HashSet::new();
        for (fi, u) in units.iter().enumerate() {
            let mut c = HashMap::new();
            if u.lang == Lang::Php {
                let ns = u.info.package.as_deref().unwrap_or("");
                if !is_vendored(&u.path) {
                    namespaces.insert(ns.to_ascii_lowercase());
                }
                for class in &u.info.classes {
                    c.insert(class.name.as_str(), class);
                    // Anonymous classes (scoped inside a function) have no global name.
                    if !class.name.contains('.') {
                        types
                            .entry(join(ns, &class.name).to_ascii_lowercase())
                            .or_insert((fi as u32, class));
                    }
                }
                for (gi, f) in u.functions.iter().enumerate() {
                    let r = FnRef {
                        file: fi as u32,
                        func: gi as u32,
                    };
                    if f.kind == FunctionKind::Function {
                        // A named function is global wherever it is defined.
                        functions
                            .entry(join(ns, &f.name).to_ascii_lowercase())
                            .or_default()
                            .push(r);
                    } else {
                        methods
                            .entry((fi as u32, f.scope.as_str(), f.name.to_ascii_lowercase()))
                            .or_default()
                            .push(r);
                    }
                }
            }
            classes.push(c);
        }
        Self {
            units,
            types,
            classes,
            methods,
            functions,
            namespaces,
        }
    }

    fn namespace(&self, file: u32) -> &'u str {
        self.units[file as usize]
            .info
            .package
            .as_deref()
            .unwrap_or("")
    }

    fn imports(&self, file: u32) -> &'u [Import] {
        &self.units[file as usize].info.imports
    }

    /// The fully qualified name (no leading `\`) that the class name `t`, written in
    /// `file`, denotes.
    fn qualify_class(&self, file: u32, t: &str) -> String {
        if let Some(fq) = t.strip_prefix('\\') {
            return fq.to_string();
        }
        let ns = self.namespace(file);
        if let Some(rest) = t
            .strip_prefix("namespace\\")
            .or_else(|| t.strip_prefix("Namespace\\"))
        {
            return join(ns, rest);
        }
        let (first, rest) = match t.split_once('\\') {
            Some((f, r)) => (f, Some(r)),
            None => (t, None),
        };
        for imp in self.imports(file).iter().filter(|i| !i.is_static) {
            let alias = imp
                .alias
                .as_deref()
                .unwrap_or_else(|| last_segment(&imp.module));
            if alias.eq_ignore_ascii_case(first) {
                return match rest {
                    Some(r) => format!("{}\\{r}", imp.module),
                    None => imp.module.clone(),
                };
            }
        }
        join(ns, t)
    }

    /// Whether a lower-case fully qualified name lies in a namespace that no file of the
    /// repository declares: a composer package's (`GuzzleHttp\Psr7\Utils` in guzzle,
    /// which declares `GuzzleHttp` but not `GuzzleHttp\Psr7`). A global name is not.
    fn foreign(&self, key: &str) -> bool {
        key.rsplit_once('\\')
            .is_some_and(|(ns, _)| !self.namespaces.contains(ns))
    }

    /// The class a fully qualified name denotes: the repository's, an internal one, or a
    /// third party's (in a namespace the repository does not declare).
    fn class_fqn(&self, fqn: &str) -> Option<Ty<'u>> {
        let key = fqn.to_ascii_lowercase();
        if let Some((f, c)) = self.types.get(&key) {
            if is_vendored(&self.units[*f as usize].path) {
                return Some(Ty::External);
            }
            return Some(Ty::Repo(*f, c));
        }
        if stdlib::is_class(&key) {
            return Some(Ty::Stdlib);
        }
        self.foreign(&key).then_some(Ty::External)
    }

    /// The class that `t` denotes in `file`, inside the class `own` (for `self`, `static`
    /// and `parent`).
    fn resolve_type(&self, file: u32, own: Option<&'u ClassInfo>, t: &str) -> Option<Ty<'u>> {
        match t.to_ascii_lowercase().as_str() {
            "self" | "static" => own.map(|c| Ty::Repo(file, c)),
            "parent" => {
                let c = own?;
                let base = c.bases.first()?;
                self.resolve_type(file, None, base)
            }
            _ => self.class_fqn(&self.qualify_class(file, t)),
        }
    }

    /// The class whose scope name encloses `scope` most closely (a function nested in a
    /// method belongs to the method's class).
    fn enclosing_class(&self, file: u32, scope: &str) -> Option<&'u ClassInfo> {
        let classes = &self.classes[file as usize];
        let mut s = scope;
        loop {
            if let Some(c) = classes.get(s) {
                return Some(c);
            }
            s = &s[..s.rfind('.')?];
        }
    }

    /// Method `name` of class `c` (declared in `file`) or of its parent, interfaces and
    /// traits, breadth first; `skip_self` starts at the supertypes (`parent::m()`).
    fn find_method(
        &self,
        file: u32,
        c: &'u ClassInfo,
        name: &str,
        skip_self: bool,
    ) -> Option<Target> {
        let name = name.to_ascii_lowercase();
        let mut queue: Vec<(u32, &ClassInfo, bool)> = vec![(file, c, skip_self)];
        let mut seen: HashSet<(u32, &str)> = HashSet::new();
        let mut outside = None;
        let mut i = 0;
        while i < queue.len() {
            let (f, class, skip) = queue[i];
            i += 1;
            if !seen.insert((f, class.name.as_str())) || seen.len() > 64 {
                continue;
            }
            if !skip {
                if let Some(all) = self.methods.get(&(f, class.name.as_str(), name.clone())) {
                    if let Some(t) = pick(self.units, all.clone()) {
                        return Some(t);
                    }
                }
            }
            for b in &class.bases {
                match self.resolve_type(f, None, b) {
                    Some(Ty::Repo(bf, bc)) => queue.push((bf, bc, false)),
                    Some(Ty::Stdlib) => {
                        outside.get_or_insert(Target::Stdlib);
                    }
                    Some(Ty::External) => {
                        outside.get_or_insert(Target::External);
                    }
                    None => {}
                }
            }
        }
        outside
    }

    fn ty_target(&self, ty: Option<Ty<'u>>, name: &str) -> Target {
        match ty {
            Some(Ty::Repo(f, c)) => self
                .find_method(f, c, name, false)
                .unwrap_or(Target::Unresolved),
            Some(Ty::Stdlib) => Target::Stdlib,
            Some(Ty::External) => Target::External,
            None => Target::Unresolved,
        }
    }

    /// The declared type of property `name` of class `c` or its supertypes, resolved in
    /// the file that declares it.
    fn property_type(&self, file: u32, c: &'u ClassInfo, name: &str) -> Option<Ty<'u>> {
        let mut queue: Vec<(u32, &ClassInfo)> = vec![(file, c)];
        let mut seen = HashSet::new();
        while let Some((f, c)) = queue.pop() {
            if !seen.insert((f, c.name.as_str())) || seen.len() > 64 {
                continue;
            }
            if let Some((_, t)) = c.fields.iter().find(|(n, _)| n == name) {
                return self.resolve_type(f, Some(c), t);
            }
            for b in &c.bases {
                if let Some(Ty::Repo(bf, bc)) = self.resolve_type(f, None, b) {
                    queue.push((bf, bc));
                }
            }
        }
        None
    }

    /// A function call by name: `use function` imports, the namespace, then the global
    /// function PHP falls back to for an unqualified name.
    fn function(&self, file: u32, written: &str) -> Target {
        if written.starts_with('$') || !written.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'\\' || b >= 0x80) {
            return Target::Unresolved;
        }
        let ns = self.namespace(file);
        let (fqn, fallback) = if let Some(fq) = written.strip_prefix('\\') {
            (fq.to_string(), false)
        } else if let Some(rest) = written.strip_prefix("namespace\\") {
            (join(ns, rest), false)
        } else if written.contains('\\') {
            (self.qualify_class(file, written), false)
        } else {
            let imported = self.imports(file).iter().find(|i| {
                i.is_static
                    && i.alias
                        .as_deref()
                        .unwrap_or_else(|| last_segment(&i.module))
                        .eq_ignore_ascii_case(written)
            });
            match imported {
                Some(i) => (i.module.clone(), false),
                None => (join(ns, written), true),
            }
        };
        let key = fqn.to_ascii_lowercase();
        let found = |key: &str| -> Option<Target> {
            let all = self.functions.get(key)?;
            let t = pick(self.units, all.clone())?;
            match t {
                Target::Function(r, _) if is_vendored(&self.units[r.file as usize].path) => {
                    Some(Target::External)
                }
                t => Some(t),
            }
        };
        if let Some(t) = found(&key) {
            return t;
        }
        let global = last_segment(&key);
        if fallback {
            if let Some(t) = found(global) {
                return t;
            }
        }
        if (fallback || !key.contains('\\'))
            && (stdlib::is_function(global) || LANGUAGE_CONSTRUCTS.contains(&global))
        {
            return Target::Stdlib;
        }
        if !fallback && self.foreign(&key) {
            return Target::External;
        }
        Target::Unresolved
    }

    pub(crate) fn resolve_call(&self, caller: FnRef, call: &CallSite) -> Target {
        self.resolve_at(caller, call, 0)
    }

    /// `depth` counts the calls whose return type types a receiver on the way here.
    fn resolve_at(&self, caller: FnRef, call: &CallSite, depth: u32) -> Target {
        let f = func(self.units, caller);
        let file = caller.file;
        let own = self.enclosing_class(file, &f.scope);
        let name = call.name.as_str();
        match &call.kind {
            CallKind::Plain => self.function(file, &call.text),
            CallKind::New => {
                let t = call.text.strip_prefix("new ").unwrap_or(&call.text);
                if t.starts_with('$') || t.starts_with('(') {
                    return Target::Unresolved;
                }
                match self.resolve_type(file, own, t) {
                    Some(Ty::Repo(cf, c)) => self
                        .find_method(cf, c, "__construct", false)
                        .unwrap_or(Target::RepoFile(cf)),
                    Some(Ty::Stdlib) => Target::Stdlib,
                    Some(Ty::External) => Target::External,
                    None => Target::Unresolved,
                }
            }
            CallKind::Scoped(scope) => {
                if scope.eq_ignore_ascii_case("parent") {
                    return own
                        .and_then(|c| self.find_method(file, c, name, true))
                        .unwrap_or(Target::Unresolved);
                }
                if scope.starts_with('$') {
                    let ty = self.local_type(caller, own, scope, depth);
                    return self.ty_target(ty, name);
                }
                self.ty_target(self.resolve_type(file, own, scope), name)
            }
            CallKind::Member(recv) => {
                if recv == "$this" {
                    return own
                        .and_then(|c| self.find_method(file, c, name, false))
                        .unwrap_or(Target::Unresolved);
                }
                let ty = self.local_type(caller, own, recv, depth);
                self.ty_target(ty, name)
            }
        }
    }

    /// The class of a receiver: a typed parameter or a local assigned `new Foo()` or a call
    /// (`$x`), a typed property of the caller's class (`$this->x`, `$this?->x`), or a
    /// call whose callee declares its return type (`$this->client()->m()`).
    fn local_type(
        &self,
        caller: FnRef,
        own: Option<&'u ClassInfo>,
        recv: &str,
        depth: u32,
    ) -> Option<Ty<'u>> {
        if depth > 3 {
            return None;
        }
        let f = func(self.units, caller);
        let file = caller.file;
        if recv.ends_with(')') {
            return self.returned(caller, &split_call(recv)?, depth);
        }
        if let Some(prop) = recv
            .strip_prefix("$this->")
            .or_else(|| recv.strip_prefix("$this?->"))
        {
            if !is_identifier(prop) {
                return None;
            }
            return self.property_type(file, own?, prop);
        }
        if !recv.strip_prefix('$').is_some_and(is_identifier) {
            return None;
        }
        let (_, t) = f.locals.iter().rev().find(|(n, _)| n == recv)?;
        if t.ends_with(')') {
            return self.local_type(caller, own, t, depth + 1);
        }
        self.resolve_type(file, own, t)
    }

    /// The class that `call` returns: the declared return type of the repository function
    /// it reaches, resolved where that function is declared; an internal or third-party
    /// callee returns an internal or third-party object.
    fn returned(&self, caller: FnRef, call: &CallSite, depth: u32) -> Option<Ty<'u>> {
        match self.resolve_at(caller, call, depth + 1) {
            Target::Function(r, _) => {
                let g = func(self.units, r);
                let ty = return_type(&g.signature)?;
                let class = self.enclosing_class(r.file, &g.scope);
                self.resolve_type(r.file, class, &ty)
            }
            Target::Stdlib => Some(Ty::Stdlib),
            Target::External => Some(Ty::External),
            _ => None,
        }
    }
}

/// The call that an expression ending in `)` makes, from its text without whitespace:
/// `$a->b($c)` is `b` on `$a`, `A::b()` is `b` scoped by `A`, `f()` is `f`.
fn split_call(expr: &str) -> Option<CallSite> {
    if !expr.ends_with(')') {
        return None;
    }
    let b = expr.as_bytes();
    let mut depth = 0i32;
    let mut open = None;
    for i in (0..b.len()).rev() {
        match b[i] {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let callee = &expr[..open?];
    // The last `->` or `::` outside brackets separates the receiver from the name.
    let cb = callee.as_bytes();
    let mut depth = 0i32;
    let mut i = cb.len();
    while i > 1 {
        i -= 1;
        match cb[i] {
            b')' | b']' | b'}' => depth += 1,
            b'(' | b'[' | b'{' => depth -= 1,
            b'>' if depth == 0 && cb[i - 1] == b'-' => {
                let name = &callee[i + 1..];
                let recv = callee[..i - 1].trim_end_matches('?');
                return is_identifier(name).then(|| CallSite {
                    text: callee.to_string(),
                    name: name.to_string(),
                    kind: CallKind::Member(recv.to_string()),
                    line: 0,
                    args: 0,
                });
            }
            b':' if depth == 0 && cb[i - 1] == b':' => {
                let name = &callee[i + 1..];
                return is_identifier(name).then(|| CallSite {
                    text: callee.to_string(),
                    name: name.to_string(),
                    kind: CallKind::Scoped(callee[..i - 1].to_string()),
                    line: 0,
                    args: 0,
                });
            }
            _ => {}
        }
    }
    let plain = !callee.is_empty()
        && callee
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'\\' || b >= 0x80);
    plain.then(|| CallSite {
        text: callee.to_string(),
        name: last_segment(callee).to_string(),
        kind: CallKind::Plain,
        line: 0,
        args: 0,
    })
}

/// The one class a function's signature declares it returns (`: Foo`, `: ?Foo`,
/// `: Foo|null`, `: static`); `None` for primitive types and unions of classes.
fn return_type(signature: &str) -> Option<String> {
    let close = signature.rfind(')')?;
    let rest = signature[close + 1..].trim_start().strip_prefix(':')?.trim();
    let rest = rest.strip_prefix('?').unwrap_or(rest);
    let mut found = None;
    for part in rest.split('|').map(str::trim) {
        if part.eq_ignore_ascii_case("null") {
            continue;
        }
        if found.replace(part).is_some() {
            return None;
        }
    }
    let t = found?;
    let primitive = [
        "array", "bool", "callable", "float", "int", "iterable", "mixed", "object", "string",
        "void", "never", "false", "true",
    ];
    (!t.is_empty() && !primitive.iter().any(|p| p.eq_ignore_ascii_case(t))).then(|| t.to_string())
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80)
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
    fn calls_split_from_receiver_text() {
        let c = split_call("$this->client($a->b())->get").is_none();
        assert!(c, "not a call");
        let c = split_call("$this->client($a->b(1))").unwrap();
        assert_eq!((c.name.as_str(), c.kind), ("client", CallKind::Member("$this".into())));
        let c = split_call("$x?->y()->z([1,2])").unwrap();
        assert_eq!((c.name.as_str(), c.kind), ("z", CallKind::Member("$x?->y()".into())));
        let c = split_call("A\\B::make($q)").unwrap();
        assert_eq!((c.name.as_str(), c.kind), ("make", CallKind::Scoped("A\\B".into())));
        let c = split_call("\\A\\f()").unwrap();
        assert_eq!((c.name.as_str(), c.text.as_str()), ("f", "\\A\\f"));
        assert!(split_call("$f()()").is_none());
    }

    #[test]
    fn return_types_from_signatures() {
        let r = |s: &str| return_type(s);
        assert_eq!(r("public function a(int $x): Foo").as_deref(), Some("Foo"));
        assert_eq!(r("function a(): ?\\A\\Foo").as_deref(), Some("\\A\\Foo"));
        assert_eq!(r("function a(): Foo|null").as_deref(), Some("Foo"));
        assert_eq!(r("function a(): static").as_deref(), Some("static"));
        assert_eq!(r("function a(): Foo|Bar"), None);
        assert_eq!(r("function a(): string"), None);
        assert_eq!(r("function a()"), None);
    }
}
