//! The call-graph nodes of a Python file that are no functions (issue 20): its module's
//! top-level code, `<module>` (the calls a module makes when it is imported or run, class
//! bodies included), and each lambda, `<lambda>` (the calls in its body, which leave the
//! function the lambda is written in: that function defines the lambda, the lambda makes
//! the calls). Both come from the value-flow facts (`facts.rs`), which know the scope of
//! every call. They are nodes of `callgraph/nodes` (kind `module`, `lambda`), never rows
//! of the CodeSearchNet or YABLoCo tables.
//!
//! Their order is fixed, because the value-flow analysis (`flow.rs`) finds them by it:
//! [`SourceUnit::extra`]`.nodes[0]` is the module, `[1 + i]` the lambda `Facts::lambdas[i]`.

use std::collections::HashSet;

use super::facts::{CallEx, Ex, Facts, LambdaSpan};
use crate::extract::{CallKind, CallSite, FileInfo, Function, FunctionKind};
use crate::resolve::{CodeNodes, SourceUnit};

/// The index in [`SourceUnit::extra`] of the module node.
pub(crate) const MODULE: usize = 0;

/// The index in [`SourceUnit::extra`] of the node of the `i`-th lambda of the facts.
pub(crate) fn lambda(i: usize) -> usize {
    1 + i
}

/// Whether `unit` has the nodes of this module (a Python file does, always).
pub(crate) fn has_nodes(unit: &SourceUnit) -> bool {
    !unit.extra.nodes.is_empty()
}

/// What owns a call: a function (it is in that function's calls already), a lambda
/// (`Facts::lambdas` index) or the module.
enum Owner {
    Function,
    Lambda(usize),
    Module,
}

/// The module node and a node per lambda; the calls in lambdas leave the innermost function
/// whose text holds the lambda (the walk gave them to it).
pub(crate) fn code_nodes(functions: &mut [Function], info: &FileInfo, src: &str) -> CodeNodes {
    let lines = src.lines().count().max(1) as u32;
    let mut out = CodeNodes {
        nodes: vec![node("<module>", "<module>", "", FunctionKind::Module, 1, lines)],
        hosts: vec![None],
    };
    let Some(facts) = info.payload::<super::Facts>() else {
        return out;
    };
    let classes: HashSet<&str> = info.classes.iter().map(|c| c.name.as_str()).collect();
    let mut lambda_of_scope = vec![None; facts.scopes.len()];
    let mut names: HashSet<(String, u32)> = HashSet::new();
    out.hosts.extend(hosts(functions, &facts.lambdas));
    for (i, l) in facts.lambdas.iter().enumerate() {
        if let Some(slot) = lambda_of_scope.get_mut(l.scope as usize) {
            *slot = Some(i);
        }
        let full = display(facts.scopes.get(l.scope as usize).map_or("", String::as_str));
        let scope = full.rsplit_once('.').map_or("", |(s, _)| s).to_string();
        // Two lambdas of one scope on one line would share an id: the later ones are `#2`...
        let mut qualified = full.clone();
        let mut k = 1;
        while !names.insert((qualified.clone(), l.start_line)) {
            k += 1;
            qualified = format!("{full}#{k}");
        }
        let mut f = node(
            "<lambda>",
            &qualified,
            &scope,
            FunctionKind::Lambda,
            l.start_line,
            l.end_line,
        );
        f.byte_range = l.bytes.clone();
        out.nodes.push(f);
    }
    // The facts list a call after its operands; call sites go in source order, a call
    // before the calls in its arguments, as the extractor's walk lists them.
    let mut calls: Vec<(&CallEx, usize)> = Vec::new();
    for ex in &facts.exprs {
        let Ex::Call(c) = ex else { continue };
        match owner(facts, &classes, &lambda_of_scope, c.scope) {
            Owner::Function => {}
            Owner::Module => calls.push((c, MODULE)),
            Owner::Lambda(i) => calls.push((c, lambda(i))),
        }
    }
    calls.sort_by_key(|(c, _)| (c.bytes.start, std::cmp::Reverse(c.bytes.end)));
    for (c, k) in calls {
        let site = site(facts, c);
        if let Some(Some(h)) = out.hosts.get(k) {
            leave(&mut functions[*h as usize], &site);
        }
        out.nodes[k].calls.push(site);
    }
    out
}

/// For each lambda, the innermost function whose text holds it: one sweep over both in
/// source order with the chain of functions open at each point (their texts nest).
fn hosts(functions: &[Function], lambdas: &[LambdaSpan]) -> Vec<Option<u32>> {
    let mut fns: Vec<usize> = (0..functions.len()).collect();
    fns.sort_by_key(|&k| {
        let r = &functions[k].byte_range;
        (r.start, std::cmp::Reverse(r.end))
    });
    let mut order: Vec<usize> = (0..lambdas.len()).collect();
    order.sort_by_key(|&i| lambdas[i].bytes.start);
    let mut out = vec![None; lambdas.len()];
    let mut open: Vec<usize> = Vec::new();
    let mut next = fns.iter().peekable();
    for i in order {
        let b = &lambdas[i].bytes;
        while let Some(&k) = next.next_if(|&&k| functions[k].byte_range.start <= b.start) {
            let start = functions[k].byte_range.start;
            while open.last().is_some_and(|&t| functions[t].byte_range.end <= start) {
                open.pop();
            }
            open.push(k);
        }
        while open.last().is_some_and(|&t| functions[t].byte_range.end < b.end) {
            open.pop();
        }
        out[i] = open.last().map(|&k| k as u32);
    }
    out
}

fn node(
    name: &str,
    qualified: &str,
    scope: &str,
    kind: FunctionKind,
    start: u32,
    end: u32,
) -> Function {
    Function {
        name: name.to_string(),
        qualified_name: qualified.to_string(),
        kind,
        signature: String::new(),
        code: String::new(),
        docstring: None,
        csn_docstring: None,
        function_parser_name: None,
        code_tokens: Default::default(),
        scope: scope.to_string(),
        details: Default::default(),
        param_names: Vec::new(),
        calls: Vec::new(),
        locals: Vec::new(),
        syntax_error: false,
        signature_end_line: start,
        start_line: start,
        end_line: end,
        byte_range: 0..0,
    }
}

/// A facts scope as node names spell it: `f.<lambda@3:8>` is `f.<lambda>`.
fn display(scope: &str) -> String {
    scope
        .split('.')
        .map(|s| match s.starts_with("<lambda@") {
            true => "<lambda>",
            false => s,
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// Who makes a call of scope `sc`: its lambda, else the function its scope (or the scope
/// of the class it is in) names, else the module. `flow.rs`'s `enclosing_fn` decides the
/// same way.
fn owner(facts: &Facts, classes: &HashSet<&str>, lambdas: &[Option<usize>], sc: u32) -> Owner {
    if let Some(Some(i)) = lambdas.get(sc as usize) {
        return Owner::Lambda(*i);
    }
    let mut scope = facts.scopes.get(sc as usize).map_or("", String::as_str);
    loop {
        if scope.is_empty() {
            return Owner::Module;
        }
        if !classes.contains(scope) {
            return Owner::Function;
        }
        scope = scope.rsplit_once('.').map_or("", |(s, _)| s);
    }
}

/// The call site of a recorded call, as the extractor's call hook makes it.
fn site(facts: &Facts, c: &CallEx) -> CallSite {
    let (name, kind) = match facts.exprs.get(c.func as usize) {
        Some(Ex::Name(_, n)) => (n.clone(), CallKind::Plain),
        Some(Ex::Attr(_, a)) => match c.text.strip_suffix(a.as_str()) {
            Some(recv) if recv.ends_with('.') && recv.len() > 1 => (
                a.clone(),
                CallKind::Member(recv[..recv.len() - 1].to_string()),
            ),
            _ => (c.text.clone(), CallKind::Plain),
        },
        _ => (c.text.clone(), CallKind::Plain),
    };
    CallSite {
        text: c.text.clone(),
        name,
        kind,
        line: c.line,
        args: (c.args.len() + c.kwargs.len()) as u32,
    }
}

/// Takes `site` out of the calls of `host` (the last that matches: a lambda's calls come
/// after the call it is passed to).
fn leave(host: &mut Function, site: &CallSite) {
    if let Some(k) = host
        .calls
        .iter()
        .rposition(|c| c.line == site.line && c.text == site.text)
    {
        host.calls.remove(k);
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::{CallKind, Extractor};
    use crate::{Lang, Registry};

    /// (qualified name, kind, lines, calls as `line:text`) of every extra node, and the
    /// calls left to the functions.
    fn nodes(src: &str) -> (Vec<String>, Vec<String>, Vec<Option<u32>>) {
        let mut x = Extractor::default();
        let mut out = x.extract(Lang::Python, src).expect("parses");
        let extra = super::code_nodes(&mut out.functions, &out.info, src);
        let show = |f: &crate::extract::Function| {
            let calls: Vec<String> = f
                .calls
                .iter()
                .map(|c| format!("{}:{}", c.line, c.text))
                .collect();
            format!(
                "{} {} {}-{} [{}]",
                f.qualified_name,
                f.kind.as_str(),
                f.start_line,
                f.end_line,
                calls.join(" ")
            )
        };
        (
            extra.nodes.iter().map(show).collect(),
            out.functions.iter().map(show).collect(),
            extra.hosts,
        )
    }

    #[test]
    fn module_code_and_lambdas_are_nodes_with_their_own_calls() {
        let src = "import os\n\
                   setup()\n\
                   class C:\n    x = make()\n    def m(self):\n        return run(lambda: go(1))\n\
                   def f(cb=lambda: dflt()):\n    g = lambda a: (h(a), k())\n    return g(2)\n\
                   main(lambda: f(), lambda: f())\n";
        let (extra, functions, hosts) = nodes(src);
        assert_eq!(
            extra,
            [
                "<module> module 1-10 [2:setup 4:make 10:main]",
                "C.m.<lambda> lambda 6-6 [6:go]",
                "<lambda> lambda 7-7 [7:dflt]",
                "f.<lambda> lambda 8-8 [8:h 8:k]",
                "<lambda> lambda 10-10 [10:f]",
                "<lambda>#2 lambda 10-10 [10:f]",
            ]
        );
        // The function written around each (`C.m` is function 0, `f` function 1; a default
        // value is in the function's text).
        assert_eq!(hosts, [None, Some(0), Some(1), Some(1), None, None]);
        // The lambdas' calls left the functions they are written in; `g(2)` stays.
        assert_eq!(
            functions,
            ["C.m method 5-6 [6:run]", "f function 7-9 [9:g]"]
        );
    }

    #[test]
    fn call_sites_spell_the_receiver_as_the_extractor_does() {
        let src = "a.b.c(1, x=2)\nsuper().m()\nd['k']()\n";
        let mut x = Extractor::default();
        let mut out = x.extract(Lang::Python, src).expect("parses");
        let extra = super::code_nodes(&mut out.functions, &out.info, src);
        let kinds: Vec<(String, String, CallKind, u32)> = extra.nodes[0]
            .calls
            .iter()
            .map(|c| (c.text.clone(), c.name.clone(), c.kind.clone(), c.args))
            .collect();
        assert_eq!(
            kinds,
            [
                ("a.b.c".into(), "c".into(), CallKind::Member("a.b".into()), 2),
                ("super().m".into(), "m".into(), CallKind::Member("super()".into()), 0),
                ("d['k']".into(), "d['k']".into(), CallKind::Plain, 0),
            ]
        );
    }
}
