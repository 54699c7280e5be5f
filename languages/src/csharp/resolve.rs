//! The C# resolver.
//!
//! Types are found by their simple name among the repository's declarations, preferring
//! the caller's namespace, then the namespaces its file's `using` directives name, then
//! any. `M()` is a local function of the caller, a method of the caller's type or of its
//! base types (through the repository's declarations, up to 8 steps), or of a type named
//! by `using static`. `this.M()` and `base.M()` go through the caller's type; `T.M()`
//! through a type of the repository; `x.M()` through the declared type of `x` (a
//! parameter, a local `T x` or `var x = new T()`, a field or property of the caller's
//! type, `this.x`); `new T()` to `T`'s constructor (its file when it declares none).
//! Among overloads, those whose parameter count fits the call's arguments are the
//! candidates (all of them when none fits).
//!
//! Names outside the repository: `System` and its sub-namespaces are the .NET base class
//! library (`stdlib`), as are C#'s predefined types (`int`, `string`) and the types of its
//! generated list ([`super::stdlib`]). Another type the repository does not declare is
//! `stdlib` when the caller's file imports no namespace but `System.*` and the
//! repository's own (a newer library type than the list knows), else `external_binaries`
//! (a NuGet package's namespace is imported).

use std::collections::{HashMap, HashSet};

use crate::extract::{CallKind, CallSite, ClassInfo, FunctionKind};
use crate::resolve::{nested_in, pick, FnRef, SourceUnit, Target};
use crate::{Lang, Registry};

const MAX_HOPS: usize = 8;

const PREDEFINED: [&str; 17] = [
    "bool", "byte", "sbyte", "char", "decimal", "double", "float", "int", "uint", "nint",
    "nuint", "long", "ulong", "short", "ushort", "object", "string",
];

fn is_system(ns: &str) -> bool {
    ns == "System" || ns.starts_with("System.")
}

pub(crate) struct Index<'u> {
    units: &'u [SourceUnit],
    /// Types by simple name: (file, declaration).
    types: HashMap<&'u str, Vec<(u32, &'u ClassInfo)>>,
    /// Methods, constructors and properties by (type's simple name, name).
    members: HashMap<(&'u str, &'u str), Vec<FnRef>>,
    /// Member names with the functions that have them.
    by_name: HashMap<&'u str, Vec<FnRef>>,
    /// Namespaces the repository declares.
    namespaces: HashSet<&'u str>,
}

impl<'u> Index<'u> {
    pub(crate) fn new(units: &'u [SourceUnit]) -> Self {
        let mut types: HashMap<&str, Vec<(u32, &ClassInfo)>> = HashMap::new();
        let mut members: HashMap<(&str, &str), Vec<FnRef>> = HashMap::new();
        let mut by_name: HashMap<&str, Vec<FnRef>> = HashMap::new();
        let mut namespaces = HashSet::new();
        let mut order: Vec<usize> = (0..units.len()).collect();
        order.sort_by(|a, b| units[*a].path.cmp(&units[*b].path));
        for &fi in &order {
            let u = &units[fi];
            if u.lang != Lang::CSharp {
                continue;
            }
            if let Some(ns) = u.info.package.as_deref() {
                namespaces.insert(ns);
            }
            for c in &u.info.classes {
                let simple = c.name.rsplit('.').next().unwrap_or(&c.name);
                types.entry(simple).or_default().push((fi as u32, c));
            }
            for (gi, f) in u.functions.iter().enumerate() {
                let r = FnRef {
                    file: fi as u32,
                    func: gi as u32,
                };
                if f.kind == FunctionKind::Function {
                    continue;
                }
                let owner = f.scope.rsplit('.').next().unwrap_or(&f.scope);
                members.entry((owner, f.name.as_str())).or_default().push(r);
                by_name.entry(f.name.as_str()).or_default().push(r);
            }
        }
        Index {
            units,
            types,
            members,
            by_name,
            namespaces,
        }
    }

    fn unit(&self, file: u32) -> &'u SourceUnit {
        &self.units[file as usize]
    }

    /// The type the caller is a member of (for a local function, its method's type).
    fn own_type(&self, caller: FnRef) -> Option<&'u str> {
        let u = self.unit(caller.file);
        let f = u.functions.get(caller.func as usize)?;
        f.scope
            .split('.')
            .rev()
            .find(|seg| u.info.classes.iter().any(|c| c.name.rsplit('.').next() == Some(*seg)))
    }

    /// The declaration a type name means in `file`.
    fn find_type(&self, file: u32, name: &str) -> Option<(u32, &'u ClassInfo)> {
        let cands = self.types.get(name)?;
        let u = self.unit(file);
        let ns_of = |f: u32| self.unit(f).info.package.as_deref();
        let mine = u.info.package.as_deref();
        cands
            .iter()
            .find(|(f, _)| ns_of(*f) == mine)
            .or_else(|| {
                cands.iter().find(|(f, _)| {
                    u.info
                        .imports
                        .iter()
                        .any(|i| Some(i.module.as_str()) == ns_of(*f))
                })
            })
            .or_else(|| cands.first())
            .copied()
    }

    /// Overloads that take `args` arguments (a `params` array takes any number at or
    /// above its fixed ones), or all of them when none does.
    fn by_arity(&self, cands: &[FnRef], args: Option<u32>) -> Vec<FnRef> {
        let Some(args) = args else {
            return cands.to_vec();
        };
        let fits: Vec<FnRef> = cands
            .iter()
            .copied()
            .filter(|r| {
                let d = &self.units[r.file as usize].functions[r.func as usize].details;
                d.params == args || (d.variadic && args + 1 >= d.params)
            })
            .collect();
        if fits.is_empty() {
            cands.to_vec()
        } else {
            fits
        }
    }

    /// A member `name` of the type `ty` or of its bases, taking `args` arguments when
    /// known.
    fn member(&self, file: u32, ty: &str, name: &str) -> Option<Target> {
        self.member_with(file, ty, name, None)
    }

    fn member_with(&self, file: u32, ty: &str, name: &str, args: Option<u32>) -> Option<Target> {
        let mut ty = ty.to_string();
        let mut file = file;
        for _ in 0..MAX_HOPS {
            if let Some(c) = self.members.get(&(ty.as_str(), name)) {
                return pick(self.units, self.by_arity(c, args));
            }
            let (f, class) = self.find_type(file, &ty)?;
            let base = class.bases.iter().find(|b| self.types.contains_key(b.as_str()))?;
            ty = base.clone();
            file = f;
        }
        None
    }

    /// Whether the file imports a namespace that is neither the base class library's nor
    /// the repository's.
    fn imports_packages(&self, file: u32) -> bool {
        self.unit(file).info.imports.iter().any(|i| {
            !i.is_static
                && i.alias.is_none()
                && !is_system(&i.module)
                && !self
                    .namespaces
                    .iter()
                    .any(|ns| *ns == i.module || ns.starts_with(&format!("{}.", i.module)))
        })
    }

    /// What a call on a type the repository does not declare reaches.
    fn foreign(&self, file: u32, ty: &str) -> Target {
        if PREDEFINED.contains(&ty) || is_system(ty) || super::stdlib::is_bcl_type(ty) {
            return Target::Stdlib;
        }
        if self.imports_packages(file) {
            Target::External
        } else {
            Target::Stdlib
        }
    }

    fn on_type(&self, caller: FnRef, ty: &str, name: &str, args: u32) -> Target {
        if self.types.contains_key(ty) {
            return self.member_with(caller.file, ty, name, Some(args)).unwrap_or_else(|| {
                self.find_type(caller.file, ty)
                    .map_or(Target::Unresolved, |(f, _)| Target::RepoFile(f))
            });
        }
        self.foreign(caller.file, ty)
    }

    /// The declared type of `recv` in `caller`: a local or parameter, then a field or
    /// property of the caller's type.
    fn typed(&self, caller: FnRef, recv: &str) -> Option<String> {
        let u = self.unit(caller.file);
        let f = u.functions.get(caller.func as usize)?;
        let recv = recv.strip_prefix("this.").unwrap_or(recv);
        if let Some((_, t)) = f.locals.iter().rev().find(|(n, _)| n == recv) {
            return Some(t.clone());
        }
        let own = self.own_type(caller)?;
        let (_, class) = self.find_type(caller.file, own)?;
        class
            .fields
            .iter()
            .find(|(n, _)| n == recv)
            .map(|(_, t)| t.clone())
    }
}

impl crate::Resolver for Index<'_> {
    fn resolve(&self, caller: FnRef, call: &CallSite) -> Target {
        let name = call.name.as_str();
        match &call.kind {
            CallKind::Plain => {
                let u = self.unit(caller.file);
                if let Some(r) = nested_in(self.units, caller, name) {
                    return Target::Function(r, 1);
                }
                if let Some(own) = self.own_type(caller) {
                    if let Some(t) = self.member_with(caller.file, own, name, Some(call.args)) {
                        return t;
                    }
                }
                for i in u.info.imports.iter().filter(|i| i.is_static) {
                    let ty = i.module.rsplit('.').next().unwrap_or(&i.module);
                    if self.types.contains_key(ty) {
                        if let Some(t) = self.member(caller.file, ty, name) {
                            return t;
                        }
                    } else if is_system(&i.module) {
                        return Target::Stdlib;
                    }
                }
                Target::Unresolved
            }
            CallKind::New => self.on_type(caller, name, name, call.args),
            CallKind::Member(recv) => {
                let recv = recv.as_str();
                if recv == "this" || recv == "base" {
                    let Some(own) = self.own_type(caller) else {
                        return Target::Unresolved;
                    };
                    let start = if recv == "base" {
                        match self
                            .find_type(caller.file, own)
                            .and_then(|(_, c)| c.bases.first().cloned())
                        {
                            Some(b) => b,
                            None => return Target::Unresolved,
                        }
                    } else {
                        own.to_string()
                    };
                    return self.on_type(caller, &start, name, call.args);
                }
                if let Some(t) = self.typed(caller, recv) {
                    return self.on_type(caller, &t, name, call.args);
                }
                // `Type.M()`: a static call.
                let last = recv.rsplit('.').next().unwrap_or(recv);
                if is_system(recv) {
                    return Target::Stdlib;
                }
                if last.starts_with(|c: char| c.is_ascii_uppercase()) && !recv.contains('(') {
                    return self.on_type(caller, last, name, call.args);
                }
                match self.by_name.get(name) {
                    Some(c) if c.len() == 1 => Target::Function(c[0], 1),
                    _ => Target::Unresolved,
                }
            }
            CallKind::Scoped(_) => Target::Unresolved,
        }
    }
}
