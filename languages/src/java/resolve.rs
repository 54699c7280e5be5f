//! The Java resolver.
//!
//! Types are resolved as javac does, statically: classes nested in the caller's enclosing
//! classes, classes of the file, single-type imports, the file's package, on-demand
//! imports, then `java.lang`. Methods are looked up in the class and its superclasses and
//! interfaces in the repository, overloads told apart by argument count (varargs taking
//! any count from the fixed ones up). Unqualified calls also search the enclosing classes
//! and static imports; `this.`/`super.` calls, static calls `Type.m()`, receivers with a
//! declared type (local, parameter, field), `new T()` and `this()`/`super()` are resolved.
//! Types in the JDK's packages are `stdlib` (which leaves `javax.servlet` and the like
//! outside); other imported types are `external_binaries`.

use std::collections::{HashMap, HashSet};

use super::stdlib;
use crate::resolve::{func, pick, FnRef, SourceUnit, Target};
use crate::extract::{CallKind, CallSite, ClassInfo, FunctionKind};
use crate::{Lang, Registry};

/// Methods every class inherits from `java.lang.Object`.
const OBJECT_METHODS: [&str; 11] = [
    "clone",
    "equals",
    "finalize",
    "getClass",
    "hashCode",
    "notify",
    "notifyAll",
    "toString",
    "wait",
    "name",
    "ordinal",
];

pub(crate) struct Index<'u> {
    units: &'u [SourceUnit],
    /// Fully qualified type name to its class.
    types: HashMap<String, (u32, &'u ClassInfo)>,
    /// Per file: classes by name within the file (`Outer.Inner`).
    classes: Vec<HashMap<&'u str, &'u ClassInfo>>,
    /// Methods and constructors by (file, class within the file, name).
    methods: HashMap<(u32, &'u str, &'u str), Vec<FnRef>>,
    /// Packages that have a class in the repository.
    packages: HashSet<&'u str>,
}

#[derive(Debug, Clone, Copy)]
enum Ty<'u> {
    Repo(u32, &'u ClassInfo),
    Stdlib,
    External,
}

impl<'u> Index<'u> {
    pub(crate) fn new(units: &'u [SourceUnit]) -> Self {
        let mut types = HashMap::new();
        let mut classes = Vec::with_capacity(units.len());
        let mut methods: HashMap<(u32, &str, &str), Vec<FnRef>> = HashMap::new();
        let mut packages = HashSet::new();
        for (fi, u) in units.iter().enumerate() {
            let mut c = HashMap::new();
            if u.lang == Lang::Java {
                let pkg = u.info.package.as_deref().unwrap_or("");
                packages.insert(pkg);
                for class in &u.info.classes {
                    c.insert(class.name.as_str(), class);
                    let fqn = if pkg.is_empty() {
                        class.name.clone()
                    } else {
                        format!("{pkg}.{}", class.name)
                    };
                    // Two files declaring one type: the first path wins.
                    types.entry(fqn).or_insert((fi as u32, class));
                }
                for (gi, f) in u.functions.iter().enumerate() {
                    methods
                        .entry((fi as u32, f.scope.as_str(), f.name.as_str()))
                        .or_default()
                        .push(FnRef {
                            file: fi as u32,
                            func: gi as u32,
                        });
                }
            }
            classes.push(c);
        }
        Self {
            units,
            types,
            classes,
            methods,
            packages,
        }
    }

    fn package(&self, file: u32) -> &'u str {
        self.units[file as usize]
            .info
            .package
            .as_deref()
            .unwrap_or("")
    }

    /// A fully qualified name that is a type of the repository or, by its package, of the
    /// JDK or a third party.
    fn qualified(&self, fqn: &str) -> Option<Ty<'u>> {
        if let Some((f, c)) = self.types.get(fqn) {
            return Some(Ty::Repo(*f, c));
        }
        // `a.b.C` or `a.b.C.Inner`: the longest prefix that is a JDK package.
        let mut prefix = fqn;
        while let Some((p, _)) = prefix.rsplit_once('.') {
            if stdlib::is_jdk_package(p) {
                return Some(Ty::Stdlib);
            }
            if self.packages.contains(p) {
                return None;
            }
            prefix = p;
        }
        None
    }

    /// The type that the name `t` denotes in `file`, inside class `from` (file-relative).
    fn resolve_type(&self, file: u32, from: &str, t: &str) -> Option<Ty<'u>> {
        if let Some((first, rest)) = t.split_once('.') {
            if let Some(Ty::Repo(f, c)) = self.resolve_type(file, from, first) {
                let nested = format!("{}.{rest}", c.name);
                return self.classes[f as usize]
                    .get(nested.as_str())
                    .map(|n| Ty::Repo(f, n));
            }
            if let Some(ty) = self.qualified(t) {
                return Some(ty);
            }
            // A lower-case first segment is a package: third party if not ours.
            return first
                .starts_with(|c: char| c.is_ascii_lowercase())
                .then_some(Ty::External);
        }
        let classes = &self.classes[file as usize];
        // Nested classes of the enclosing classes, innermost first, then the file's.
        let mut scope = from;
        loop {
            if !scope.is_empty() {
                if let Some(c) = classes.get(format!("{scope}.{t}").as_str()) {
                    return Some(Ty::Repo(file, c));
                }
                if scope.rsplit('.').next() == Some(t) {
                    if let Some(c) = classes.get(scope) {
                        return Some(Ty::Repo(file, c));
                    }
                }
            }
            match scope.rfind('.') {
                Some(i) => scope = &scope[..i],
                None if !scope.is_empty() => scope = "",
                None => break,
            }
        }
        if let Some(c) = classes.get(t) {
            return Some(Ty::Repo(file, c));
        }
        let imports = &self.units[file as usize].info.imports;
        for imp in imports.iter().filter(|i| !i.is_static && !i.wildcard) {
            if imp.module.rsplit('.').next() == Some(t) {
                return Some(self.qualified(&imp.module).unwrap_or(Ty::External));
            }
        }
        let pkg = self.package(file);
        let same_pkg = if pkg.is_empty() {
            t.to_string()
        } else {
            format!("{pkg}.{t}")
        };
        if let Some((f, c)) = self.types.get(&same_pkg) {
            return Some(Ty::Repo(*f, c));
        }
        let mut outside = None;
        for imp in imports.iter().filter(|i| !i.is_static && i.wildcard) {
            let fqn = format!("{}.{t}", imp.module);
            if let Some((f, c)) = self.types.get(&fqn) {
                return Some(Ty::Repo(*f, c));
            }
            if !self.packages.contains(imp.module.as_str()) && !stdlib::is_jdk_package(&imp.module)
            {
                outside = Some(Ty::External);
            }
        }
        if stdlib::is_java_lang_type(t) {
            return Some(Ty::Stdlib);
        }
        if outside.is_some() {
            return outside;
        }
        imports
            .iter()
            .any(|i| i.wildcard && !i.is_static && stdlib::is_jdk_package(&i.module))
            .then_some(Ty::Stdlib)
    }

    /// Methods named `name` of class `c` (in `file`) and its supertypes, by arity.
    fn find_method(
        &self,
        file: u32,
        c: &'u ClassInfo,
        name: &str,
        args: u32,
        skip_self: bool,
    ) -> Option<Target> {
        let mut queue: Vec<(u32, &ClassInfo, bool)> = vec![(file, c, skip_self)];
        let mut seen: HashSet<(u32, &str)> = HashSet::new();
        let mut outside = None;
        let mut i = 0;
        // Breadth first: a class's own methods before its supertypes'.
        while i < queue.len() {
            let (f, class, skip) = queue[i];
            i += 1;
            if !seen.insert((f, class.name.as_str())) || seen.len() > 64 {
                continue;
            }
            if !skip {
                if let Some(t) = self.overload(f, &class.name, name, args, false) {
                    return Some(t);
                }
            }
            for b in &class.bases {
                match self.resolve_type(f, &class.name, b) {
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
        outside.or_else(|| OBJECT_METHODS.contains(&name).then_some(Target::Stdlib))
    }

    /// The overload of `name` in one class that takes `args` arguments.
    fn overload(
        &self,
        file: u32,
        class: &str,
        name: &str,
        args: u32,
        ctor: bool,
    ) -> Option<Target> {
        let all = self.methods.get(&(file, class, name))?;
        let all: Vec<FnRef> = all
            .iter()
            .copied()
            .filter(|r| (func(self.units, *r).kind == FunctionKind::Constructor) == ctor)
            .collect();
        let fits: Vec<FnRef> = all
            .iter()
            .copied()
            .filter(|r| {
                let d = func(self.units, *r).details;
                d.params == args || d.variadic && args + 1 >= d.params
            })
            .collect();
        if fits.is_empty() {
            // An arity we cannot match (a lambda or generic quirk): all overloads compete.
            return pick(self.units, all);
        }
        pick(self.units, fits)
    }

    fn ty_target(&self, ty: Option<Ty<'u>>, name: &str, args: u32) -> Target {
        match ty {
            Some(Ty::Repo(f, c)) => self
                .find_method(f, c, name, args, false)
                .unwrap_or(Target::Unresolved),
            Some(Ty::Stdlib) => Target::Stdlib,
            Some(Ty::External) => Target::External,
            None => Target::Unresolved,
        }
    }

    /// The declared type of field `name` seen from class `class` (its supertypes, then the
    /// enclosing classes).
    fn field_type(&self, file: u32, class: &str, name: &str) -> Option<Ty<'u>> {
        let mut scope = class;
        loop {
            if let Some(c) = self.classes[file as usize].get(scope) {
                let mut queue: Vec<(u32, &ClassInfo)> = vec![(file, c)];
                let mut seen = HashSet::new();
                while let Some((f, c)) = queue.pop() {
                    if !seen.insert((f, c.name.as_str())) || seen.len() > 64 {
                        continue;
                    }
                    if let Some((_, t)) = c.fields.iter().find(|(n, _)| n == name) {
                        return self.resolve_type(f, &c.name, t);
                    }
                    for b in &c.bases {
                        if let Some(Ty::Repo(bf, bc)) = self.resolve_type(f, &c.name, b) {
                            queue.push((bf, bc));
                        }
                    }
                }
            }
            scope = &scope[..scope.rfind('.')?];
        }
    }

    pub(crate) fn resolve_call(&self, caller: FnRef, call: &CallSite) -> Target {
        let f = func(self.units, caller);
        let file = caller.file;
        let class = f.scope.as_str();
        let own = self.classes[file as usize].get(class).copied();
        match &call.kind {
            CallKind::Plain => self.plain(caller, call),
            CallKind::New => {
                let ty =
                    self.resolve_type(file, class, &call.text["new ".len().min(call.text.len())..]);
                match ty {
                    Some(Ty::Repo(cf, c)) => self
                        .overload(cf, &c.name, &call.name, call.args, true)
                        .unwrap_or(Target::RepoFile(cf)),
                    Some(Ty::Stdlib) => Target::Stdlib,
                    Some(Ty::External) => Target::External,
                    None => Target::Unresolved,
                }
            }
            CallKind::Member(recv) if call.name == "<init>" => {
                // `this(...)` or `super(...)`.
                let Some(c) = own else {
                    return Target::Unresolved;
                };
                if recv == "this" {
                    let simple = c.name.rsplit('.').next().unwrap_or(&c.name);
                    return self
                        .overload(file, &c.name, simple, call.args, true)
                        .unwrap_or(Target::Unresolved);
                }
                let Some(base) = c.bases.first() else {
                    return Target::Stdlib; // Object()
                };
                match self.resolve_type(file, class, base) {
                    Some(Ty::Repo(bf, bc)) => {
                        let simple = bc.name.rsplit('.').next().unwrap_or(&bc.name);
                        self.overload(bf, &bc.name, simple, call.args, true)
                            .unwrap_or(Target::RepoFile(bf))
                    }
                    Some(Ty::Stdlib) => Target::Stdlib,
                    Some(Ty::External) => Target::External,
                    None => Target::Unresolved,
                }
            }
            CallKind::Member(recv) => {
                let (name, args) = (call.name.as_str(), call.args);
                match recv.as_str() {
                    "this" => own
                        .and_then(|c| self.find_method(file, c, name, args, false))
                        .unwrap_or(Target::Unresolved),
                    "super" => own
                        .and_then(|c| self.find_method(file, c, name, args, true))
                        .unwrap_or(Target::Unresolved),
                    r => {
                        if let Some(field) = r.strip_prefix("this.").filter(|x| is_identifier(x)) {
                            return self.ty_target(self.field_type(file, class, field), name, args);
                        }
                        if is_identifier(r) {
                            if let Some((_, t)) = f.locals.iter().rev().find(|(n, _)| n == r) {
                                let ty = self.resolve_type(file, class, t);
                                return self.ty_target(ty, name, args);
                            }
                            if let Some(ty) = self.field_type(file, class, r) {
                                return self.ty_target(Some(ty), name, args);
                            }
                        }
                        if r.bytes().all(|b| {
                            b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$'
                        }) {
                            // A static call on a type name (`Util.m()`, `java.util.Objects.equals()`).
                            let ty = self.resolve_type(file, class, r);
                            if ty.is_none() {
                                // A method of a static field of a JDK type
                                // (`System.out.println()`): the JDK's code.
                                if let Some((head, _)) = r.split_once('.') {
                                    if let Some(Ty::Stdlib) = self.resolve_type(file, class, head) {
                                        return Target::Stdlib;
                                    }
                                }
                            }
                            return self.ty_target(ty, name, args);
                        }
                        Target::Unresolved
                    }
                }
            }
            CallKind::Scoped(_) => Target::Unresolved,
        }
    }

    fn plain(&self, caller: FnRef, call: &CallSite) -> Target {
        let f = func(self.units, caller);
        let file = caller.file;
        let (name, args) = (call.name.as_str(), call.args);
        // The caller's class and its supertypes, then each enclosing class.
        let mut scope = f.scope.as_str();
        let mut outside = None;
        loop {
            if let Some(c) = self.classes[file as usize].get(scope) {
                match self.find_method(file, c, name, args, false) {
                    Some(t @ Target::Function(..)) => return t,
                    Some(t) => {
                        outside.get_or_insert(t);
                    }
                    None => {}
                }
            }
            match scope.rfind('.') {
                Some(i) => scope = &scope[..i],
                None => break,
            }
        }
        let imports = &self.units[file as usize].info.imports;
        for imp in imports.iter().filter(|i| i.is_static) {
            if imp.wildcard || imp.name.as_deref() == Some(name) {
                match self.resolve_type(file, "", &imp.module) {
                    Some(Ty::Repo(tf, tc)) => {
                        if let Some(t @ Target::Function(..)) =
                            self.overload(tf, &tc.name, name, args, false)
                        {
                            return t;
                        }
                    }
                    Some(Ty::Stdlib) if !imp.wildcard => return Target::Stdlib,
                    Some(Ty::External) if !imp.wildcard => return Target::External,
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
        outside.unwrap_or(Target::Unresolved)
    }
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

impl crate::resolve::Resolver for Index<'_> {
    fn resolve(&self, caller: FnRef, call: &CallSite) -> Target {
        self.resolve_call(caller, call)
    }
}
