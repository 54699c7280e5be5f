//! What each line of a repository uses: the resolved calls on it ([`uses`]) and the
//! imported names it mentions without calling them ([`probes`], resolved by the same
//! resolvers as the calls), as definitions of other files, of this file, the standard
//! library or third-party code.

use std::collections::{BTreeMap, HashSet};

use super::{line_starts, line_text};
use crate::extract::{CallKind, CallSite};
use crate::resolve::{Category, Edge, FnRef, Reach, SourceUnit};

/// A definition of another file that a line uses.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Def {
    Function(FnRef),
    /// A class (struct, interface, ...) or a module-level value of that file, by its name
    /// as the line writes it: what a call or a name reaches there without a function node.
    Declared(u32, String),
}

/// What a line uses, from the resolved calls on it and the imported names it mentions.
#[derive(Debug, Default, Clone)]
pub struct LineUses {
    /// Definitions of other files, in the order the line uses them.
    pub cross_file: Vec<Def>,
    /// The names the line uses them by (`InvalidURL` for an inherited constructor):
    /// "first use" is of a name, as RepoBench's is of an imported name.
    pub cross_file_names: Vec<String>,
    pub same_file: bool,
    pub stdlib: bool,
    pub external: bool,
    /// A call nothing resolves, or an imported name that nothing resolves.
    pub uncertain: bool,
}

impl LineUses {
    fn add(&mut self, file: usize, name: &str, reach: Reach, call: bool) {
        // `new Foo` and `Foo` are one name.
        let name = name.strip_prefix("new ").unwrap_or(name);
        match (reach.category, reach.callee, reach.file) {
            // A macro call stands for its expansion, whose calls are edges of their own.
            (Category::Macro, _, _) => {}
            // A name that is not a call may well be a local: only calls count.
            (Category::Unresolved, _, _) => self.uncertain |= call,
            (Category::Stdlib, _, _) => self.stdlib = true,
            (Category::ExternalBinaries, _, _) => self.external = true,
            (_, _, Some(f)) if f as usize != file => {
                let def = match reach.callee {
                    Some(c) => Def::Function(c),
                    None => Def::Declared(f, last_name(name).to_string()),
                };
                if !self.cross_file.contains(&def) {
                    self.cross_file.push(def);
                }
                if !self.cross_file_names.iter().any(|n| n == name) {
                    self.cross_file_names.push(name.to_string());
                }
            }
            (_, _, Some(_)) => self.same_file = true,
            // A repository category without a file: cannot say which.
            (_, _, None) => self.uncertain |= call,
        }
    }
}

/// The last identifier of a name as written (`Foo` of `pkg.Foo`, `a::Foo`, `new Foo`).
pub(super) fn last_name(name: &str) -> &str {
    name.rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .find(|w| !w.is_empty())
        .unwrap_or(name)
}

/// Per file (unit index): the uses of each line with a call or an imported name, by line.
pub type Uses = Vec<BTreeMap<u32, LineUses>>;

/// The per-line uses of a repository's edges (before the call graph consumes them) and of
/// its probes ([`probes`] and what the resolvers said of them).
pub fn uses(units: &[SourceUnit], edges: &[Edge], probes: &Probes, reached: &[Reach]) -> Uses {
    let mut out: Uses = vec![BTreeMap::new(); units.len()];
    let to_extra = |e: &Edge| {
        e.callee.is_some_and(|c| {
            units
                .get(c.file as usize)
                .is_some_and(|u| u.is_extra(c.func))
        })
    };
    // One call site's edges are adjacent. A lambda is no definition to show: the site's
    // edges into lambda nodes are left out, and a site that reaches only lambdas is as
    // unresolved here as it was before lambdas were nodes.
    let sites = edges.chunk_by(|a, b| (a.caller, a.line, &a.name) == (b.caller, b.line, &b.name));
    for site in sites {
        let file = site[0].caller.file as usize;
        let Some(map) = out.get_mut(file) else {
            continue;
        };
        let uses = map.entry(site[0].line).or_default();
        if site.iter().all(to_extra) {
            let unresolved = Reach {
                callee: None,
                file: None,
                category: Category::Unresolved,
            };
            uses.add(file, &site[0].name, unresolved, true);
            continue;
        }
        for e in site.iter().filter(|e| !to_extra(e)) {
            let reach = Reach {
                callee: e.callee,
                file: e.target_file,
                category: e.category,
            };
            uses.add(file, &e.name, reach, true);
        }
    }
    // The probes of one name (as a plain name, as a constructor) are adjacent: an imported
    // name that none of them resolves is code of elsewhere that the line's kind cannot
    // place.
    let all: Vec<(&(FnRef, CallSite), &Reach, u32)> = probes
        .sites
        .iter()
        .zip(reached)
        .zip(&probes.group)
        .map(|((s, r), g)| (s, r, *g))
        .collect();
    for group in all.chunk_by(|a, b| a.2 == b.2) {
        let ((caller, call), _, _) = group[0];
        let file = caller.file as usize;
        let Some(map) = out.get_mut(file) else {
            continue;
        };
        let u = map.entry(call.line).or_default();
        let mut found = false;
        for (_, reach, _) in group {
            if reach.category == Category::Unresolved {
                continue;
            }
            // A class named without a call (`except E:`, `isinstance(x, C)`, an annotation)
            // is the class, not its constructor, which may be a base class's.
            let Some(reach) = named_class(units, &call.text, **reach) else {
                continue;
            };
            found = true;
            u.add(file, &call.text, reach, false);
        }
        u.uncertain |= !found;
    }
    out
}

/// What a name mentioned without a call reaches: when a resolver answered with a
/// constructor (as it answers a call of the class), the class's own declaration instead
/// (a callee-less reach of the file declaring it), found by the name: in the
/// constructor's file when its class has that name, else the one file of the repository
/// that declares a class of that name. `None` when several do (which one is unknown).
fn named_class(units: &[SourceUnit], text: &str, reach: Reach) -> Option<Reach> {
    let Some(c) = reach.callee else {
        return Some(reach);
    };
    let f = units.get(c.file as usize)?.node(c.func);
    if f.kind != crate::extract::FunctionKind::Constructor {
        return Some(reach);
    }
    let name = last_name(text);
    let declares = |u: &SourceUnit| u.info.classes.iter().any(|k| last_name(&k.name) == name);
    let file = if last_name(&f.scope) == name {
        c.file
    } else {
        let mut files = units
            .iter()
            .enumerate()
            .filter(|(_, u)| declares(u))
            .map(|(i, _)| i as u32);
        let first = files.next()?;
        if files.next().is_some() {
            return None;
        }
        first
    };
    Some(Reach {
        callee: None,
        file: Some(file),
        category: reach.category,
    })
}

/// The names a file's imports bind (what a probe may find): the alias, else the imported
/// member, else the module's first and last segments.
fn bound_names(info: &crate::extract::FileInfo) -> HashSet<&str> {
    let mut out = HashSet::new();
    for i in info.imports.iter().filter(|i| !i.wildcard && !i.reexport) {
        if let Some(n) = i.alias.as_deref().or(i.name.as_deref()) {
            out.insert(n);
            continue;
        }
        let parts: Vec<&str> = i
            .module
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|p| !p.is_empty())
            .collect();
        out.extend(parts.first().into_iter().chain(parts.last()).copied());
    }
    out
}

/// A chain of names on a line (`a.b.c`, `A::B`), and whether a call follows it.
struct Chain<'t> {
    parts: Vec<&'t str>,
    scoped: bool,
    called: bool,
}

/// The name chains of a line's code, outside string literals and line comments.
fn chains<'t>(line: &'t str, hash_comments: bool) -> Vec<Chain<'t>> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    while i < b.len() {
        let c = b[i];
        if c == b'"' || c == b'\'' || c == b'`' {
            // Skip the literal (to the line's end when it is not closed here).
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            continue;
        }
        if (c == b'#' && hash_comments) || line[i..].starts_with("//") {
            break;
        }
        if !word(c) || c.is_ascii_digit() || (i > 0 && (b[i - 1] == b'$' || word(b[i - 1]))) {
            i += 1;
            continue;
        }
        let mut parts = Vec::new();
        let mut scoped = false;
        loop {
            let s = i;
            while i < b.len() && word(b[i]) {
                i += 1;
            }
            parts.push(&line[s..i]);
            let rest = &line[i..];
            let sep = [".", "::", "->", "\\"]
                .into_iter()
                .find(|p| rest.starts_with(p) && rest[p.len()..].bytes().next().is_some_and(word));
            match sep {
                Some(p) => {
                    scoped |= p == "::" || p == "\\";
                    i += p.len();
                }
                None => break,
            }
        }
        let called = line[i..].trim_start().starts_with('(');
        out.push(Chain {
            parts,
            scoped,
            called,
        });
    }
    out
}

/// Call sites made of the imported names that the body lines of a repository's functions
/// mention without calling them, with the function each is in: a resolver answers them as
/// it would a call (a function passed as a value, a class named as a type). A name is
/// asked as a plain name and, in languages with `new`, as a constructor: `group` numbers
/// the sites of one name.
#[derive(Debug, Default)]
pub struct Probes {
    pub sites: Vec<(FnRef, CallSite)>,
    pub group: Vec<u32>,
}

/// The [`Probes`] of a repository.
pub fn probes(units: &[SourceUnit], texts: &[Option<String>]) -> Probes {
    let mut out = Probes::default();
    let mut group = 0u32;
    for (fi, u) in units.iter().enumerate() {
        let Some(Some(text)) = texts.get(fi) else {
            continue;
        };
        let bound = bound_names(&u.info);
        if bound.is_empty() {
            continue;
        }
        let lang = u.lang.name();
        let hash_comments = matches!(lang, "python" | "ruby" | "php");
        let constructors = matches!(lang, "java" | "cpp" | "php" | "javascript" | "typescript");
        let owner = owners(u, text);
        let starts = line_starts(text);
        let prose = super::prose::text_lines(text, lang);
        for (l, func) in owner.iter().enumerate().skip(1) {
            let (Some(func), Some(line)) = (func, line_text(text, &starts, l as u32)) else {
                continue;
            };
            // Names in a docstring or a comment block are no uses.
            if prose.get(l).copied().unwrap_or(false) {
                continue;
            }
            let caller = FnRef {
                file: fi as u32,
                func: *func,
            };
            for ch in chains(line, hash_comments) {
                if ch.called || !bound.contains(ch.parts[0]) {
                    continue;
                }
                let text = ch.parts.join(if ch.scoped { "::" } else { "." });
                let mut push = |kind, name: &str, text: String| {
                    let site = CallSite {
                        text,
                        name: name.to_string(),
                        kind,
                        line: l as u32,
                        args: 0,
                    };
                    out.sites.push((caller, site));
                    out.group.push(group);
                };
                match ch.parts.split_last() {
                    Some((name, [])) => {
                        push(CallKind::Plain, name, text.clone());
                        if constructors {
                            // As a constructor call writes it.
                            push(CallKind::New, name, format!("new {text}"));
                        }
                    }
                    Some((name, recv)) => {
                        let kind = if ch.scoped {
                            CallKind::Scoped(recv.join("::"))
                        } else {
                            CallKind::Member(recv.join("."))
                        };
                        push(kind, name, text);
                    }
                    None => {}
                }
                group += 1;
            }
        }
    }
    out
}

/// Per line of a file (index = 1-based line): the innermost function whose body has it.
pub(super) fn owners(unit: &SourceUnit, text: &str) -> Vec<Option<u32>> {
    let n = line_starts(text).len();
    let mut owner: Vec<Option<u32>> = vec![None; n + 1];
    let mut order: Vec<usize> = (0..unit.functions.len()).collect();
    // Outer functions first, so inner ones overwrite their lines.
    order.sort_by_key(|&g| {
        let f = &unit.functions[g];
        std::cmp::Reverse(f.end_line.saturating_sub(f.start_line))
    });
    for g in order {
        let f = &unit.functions[g];
        // The body: after the signature (which may span lines of parameters).
        let first = f.signature_end_line.max(f.start_line).saturating_add(1);
        for l in first..=f.end_line {
            if let Some(o) = owner.get_mut(l as usize) {
                *o = Some(g as u32);
            }
        }
    }
    owner
}
