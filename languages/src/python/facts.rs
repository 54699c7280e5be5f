//! What the Python value-flow analysis (`flow.rs`) needs from a file, recorded during
//! extraction: the file's expressions that move values (names, attributes, subscripts,
//! calls, containers, lambdas) and the statements that connect them (assignments, returns,
//! yields, `for`, `with`, definitions with their parameters and decorators, `global`).
//!
//! Expressions live in one arena per file, each after its operands, so that the analysis
//! reads them in one pass. Every walk here is iterative (an explicit stack), never recursive.

use tree_sitter::Node;

use crate::extract::grammar::NodeExt;
use crate::extract::{named, squash, text};

/// An expression that may carry a value the analysis follows. Operands are indices into
/// [`Facts::exprs`], always smaller than the expression's own index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ex {
    /// A name looked up from scope `.0` (an index into [`Facts::scopes`]).
    Name(u32, String),
    Attr(u32, String),
    /// `base[key]`: the key when it is a string or integer literal.
    Sub(u32, Option<String>),
    Call(Box<CallEx>),
    /// A set display, a comprehension, or a target tuple or list (`a, b = ...`).
    Coll(Vec<u32>),
    /// A dict display (values, with their key when it is a literal: `s:text`, `i:123`),
    /// or a list or tuple display (keys `i:0`, `i:1`, ... unless it has a `*` item).
    Keyed(Vec<(Option<String>, u32)>),
    /// A lambda: its own scope (parameters are bound there) and its body.
    Lambda {
        scope: u32,
        params: Vec<Param>,
        body: u32,
    },
    /// `super()` (or `super(C, self)`) in scope `.0`.
    Super(u32),
    /// A string literal (for `getattr(o, "name")`).
    Str(String),
    /// The values of several operands (`a or b`, `x if c else y`, `(x)`, `await x`).
    Join(Vec<u32>),
    /// A value the analysis does not follow (numbers, operators).
    Opaque,
}

/// A call expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallEx {
    pub func: u32,
    pub args: Vec<u32>,
    pub kwargs: Vec<(String, u32)>,
    /// The scope the call is made from.
    pub scope: u32,
    /// As the extracted call site has them: 1-based line and callee text.
    pub line: u32,
    pub text: String,
    /// Where the call is (call sites of module code and lambdas are put in source order).
    pub bytes: std::ops::Range<usize>,
}

/// A parameter of a function or lambda.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub default: Option<u32>,
    /// `*args` or `**kwargs`: never bound from a positional or keyword argument by name.
    pub splat: bool,
    /// Only by keyword (after `*` or `*args`).
    pub keyword_only: bool,
}

/// A statement that connects values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stmt {
    /// `target = value` (the target is a name, attribute, subscript or a tuple of them).
    Assign { target: u32, value: u32 },
    Return { scope: u32, value: u32 },
    Yield { scope: u32, value: u32 },
    /// An expression evaluated for its calls.
    Eval(u32),
    /// `for target in iter` (also comprehensions).
    For { target: u32, iter: u32 },
    /// `with ctx as target`.
    With { ctx: u32, target: Option<u32> },
    /// A call that no call site spells, made at `line` of `scope`: `for` over `value`
    /// (`__iter__`, `__next__`), `with value` (`__enter__`, `__exit__`), the decorator
    /// `value` applied by `@` (`text` is the decorator as written), or `raise value` of a
    /// class (`text` is the class as written).
    Implicit {
        scope: u32,
        line: u32,
        value: u32,
        kind: Protocol,
        text: String,
    },
    /// A function definition in `scope` (its body's scope is `scope.name`).
    Def {
        scope: u32,
        name: String,
        line: u32,
        params: Vec<Param>,
        /// Outermost first, as written.
        decorators: Vec<u32>,
    },
    /// A class definition in `scope`.
    Class {
        scope: u32,
        name: String,
        decorators: Vec<u32>,
    },
    /// `global names` in `scope`.
    Global { scope: u32, names: Vec<String> },
    /// The module's `__all__` (a list or tuple of string literals).
    All(Vec<String>),
}

/// Where a lambda is: its scope (an index into [`Facts::scopes`]), 1-based lines and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LambdaSpan {
    pub scope: u32,
    pub start_line: u32,
    pub end_line: u32,
    pub bytes: std::ops::Range<usize>,
}

/// What an implicit call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    For,
    With,
    Decorator,
    /// `raise E`: a class raised bare is instantiated.
    Raise,
}

/// The value-flow facts of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// Scopes as qualified names within the file (`""` is the module, `C.m`, `f.<lambda@3:8>`).
    pub scopes: Vec<String>,
    pub exprs: Vec<Ex>,
    pub stmts: Vec<Stmt>,
    /// Every lambda of the file, in the order the walk met them: each is a call-graph node
    /// of its own (`nodes.rs`).
    pub lambdas: Vec<LambdaSpan>,
    /// The start byte of the definition a `decorated_definition` just recorded (the walk
    /// visits it next; `Node::parent` would search from the root for every definition).
    decorated_at: Option<usize>,
    /// Each scope's index in `scopes` (a file of many functions and lambdas has as many
    /// scopes, and a search through them for every statement grew with their square).
    scope_ids: foldhash::HashMap<String, u32>,
    /// The module's scope id, once it has one (set where scopes are added, so that equal
    /// facts stay equal however they were built).
    module: Option<u32>,
    /// The arguments of the calls whose operands are being read, and how many each call
    /// has (see [`Arg`]); empty between statements.
    args: Vec<Arg>,
    arg_counts: Vec<usize>,
}

/// What a call's argument gives the call: read once, with the call's operands.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Arg {
    /// `name=value`.
    Keyword {
        name: Option<String>,
        has_value: bool,
    },
    /// `*xs`, `**kw` (not matched to parameters), or `(x)` (positional).
    Inner { positional: bool, has_value: bool },
    Plain,
}

/// The node kinds of the file walk that [`Facts::statement`] reads.
pub(crate) const STATEMENTS: [&str; 14] = [
    "expression_statement",
    "return_statement",
    "if_statement",
    "elif_clause",
    "while_statement",
    "raise_statement",
    "assert_statement",
    "delete_statement",
    "for_statement",
    "with_statement",
    "global_statement",
    "decorated_definition",
    "function_definition",
    "class_definition",
];

pub(crate) fn is_statement(kind: &str) -> bool {
    STATEMENTS.contains(&kind)
}

/// Expressions deeper than this are left opaque (a pathological file cannot run away).
const MAX_EXPR_NODES: usize = 1 << 20;

/// The Python payload of a file's [`crate::extract::FileInfo`].
impl crate::extract::FilePayload for Facts {
    fn append(&mut self, later: Box<dyn crate::extract::FilePayload>) {
        let later: Box<dyn std::any::Any> = later;
        if let Ok(later) = later.downcast::<Facts>() {
            Facts::append(self, *later);
        }
    }

    fn clone_box(&self) -> Box<dyn crate::extract::FilePayload> {
        Box::new(self.clone())
    }

    fn same(&self, other: &dyn crate::extract::FilePayload) -> bool {
        let other: &dyn std::any::Any = other;
        other.downcast_ref::<Facts>() == Some(self)
    }
}

impl Facts {
    /// Appends a later part of the same file (windowed extraction).
    pub fn append(&mut self, later: Facts) {
        let scopes: Vec<u32> = later.scopes.iter().map(|s| self.scope_id(s)).collect();
        let base = self.exprs.len() as u32;
        let s = |i: u32| scopes.get(i as usize).copied().unwrap_or(0);
        let e = |i: u32| i + base;
        self.lambdas
            .extend(later.lambdas.into_iter().map(|l| LambdaSpan {
                scope: s(l.scope),
                ..l
            }));
        for ex in later.exprs {
            self.exprs.push(match ex {
                Ex::Name(sc, n) => Ex::Name(s(sc), n),
                Ex::Attr(b, a) => Ex::Attr(e(b), a),
                Ex::Sub(b, k) => Ex::Sub(e(b), k),
                Ex::Call(mut c) => {
                    c.func = e(c.func);
                    c.args.iter_mut().for_each(|a| *a = e(*a));
                    c.kwargs.iter_mut().for_each(|(_, a)| *a = e(*a));
                    c.scope = s(c.scope);
                    Ex::Call(c)
                }
                Ex::Coll(v) => Ex::Coll(v.into_iter().map(e).collect()),
                Ex::Keyed(v) => Ex::Keyed(v.into_iter().map(|(k, x)| (k, e(x))).collect()),
                Ex::Lambda {
                    scope,
                    mut params,
                    body,
                } => {
                    for p in &mut params {
                        p.default = p.default.map(e);
                    }
                    Ex::Lambda {
                        scope: s(scope),
                        params,
                        body: e(body),
                    }
                }
                Ex::Super(sc) => Ex::Super(s(sc)),
                Ex::Join(v) => Ex::Join(v.into_iter().map(e).collect()),
                other => other,
            });
        }
        for st in later.stmts {
            self.stmts.push(match st {
                Stmt::Assign { target, value } => Stmt::Assign {
                    target: e(target),
                    value: e(value),
                },
                Stmt::Return { scope, value } => Stmt::Return {
                    scope: s(scope),
                    value: e(value),
                },
                Stmt::Yield { scope, value } => Stmt::Yield {
                    scope: s(scope),
                    value: e(value),
                },
                Stmt::Eval(x) => Stmt::Eval(e(x)),
                Stmt::For { target, iter } => Stmt::For {
                    target: e(target),
                    iter: e(iter),
                },
                Stmt::With { ctx, target } => Stmt::With {
                    ctx: e(ctx),
                    target: target.map(e),
                },
                Stmt::Def {
                    scope,
                    name,
                    line,
                    mut params,
                    decorators,
                } => {
                    for p in &mut params {
                        p.default = p.default.map(e);
                    }
                    Stmt::Def {
                        scope: s(scope),
                        name,
                        line,
                        params,
                        decorators: decorators.into_iter().map(e).collect(),
                    }
                }
                Stmt::Class {
                    scope,
                    name,
                    decorators,
                } => Stmt::Class {
                    scope: s(scope),
                    name,
                    decorators: decorators.into_iter().map(e).collect(),
                },
                Stmt::Global { scope, names } => Stmt::Global {
                    scope: s(scope),
                    names,
                },
                Stmt::All(v) => Stmt::All(v),
                Stmt::Implicit {
                    scope,
                    line,
                    value,
                    kind,
                    text,
                } => Stmt::Implicit {
                    scope: s(scope),
                    line,
                    value: e(value),
                    kind,
                    text,
                },
            });
        }
    }

    fn scope_id(&mut self, scope: &str) -> u32 {
        // Most lookups are of the scope met last.
        if self.scopes.last().is_some_and(|s| s == scope) {
            return self.scopes.len() as u32 - 1;
        }
        if let Some(&i) = self.scope_ids.get(scope) {
            return i;
        }
        let i = self.scopes.len() as u32;
        self.scopes.push(scope.to_string());
        self.scope_ids.insert(scope.to_string(), i);
        if scope.is_empty() {
            self.module = Some(i);
        }
        i
    }

    fn push(&mut self, e: Ex) -> u32 {
        self.exprs.push(e);
        (self.exprs.len() - 1) as u32
    }

    /// Records what a statement-level node of the file walk moves. `scope` is the
    /// enclosing scope's qualified name.
    pub(crate) fn statement(&mut self, node: Node, scope: &str, src: &str) {
        match node.kind_str() {
            "expression_statement" => {
                let sc = self.scope_id(scope);
                for c in kids(node) {
                    self.expression_statement(c, sc, src);
                }
            }
            "return_statement" => {
                if let Some(v) = named(node).next() {
                    let sc = self.scope_id(scope);
                    let value = self.expr(v, sc, src);
                    self.stmts.push(Stmt::Return { scope: sc, value });
                }
            }
            "if_statement" | "elif_clause" | "while_statement" => {
                if let Some(c) = node.field("condition") {
                    let sc = self.scope_id(scope);
                    let x = self.expr(c, sc, src);
                    self.stmts.push(Stmt::Eval(x));
                }
            }
            "raise_statement" | "assert_statement" | "delete_statement" => {
                let sc = self.scope_id(scope);
                for (k, c) in kids(node).enumerate() {
                    let x = self.expr(c, sc, src);
                    self.stmts.push(Stmt::Eval(x));
                    // `raise E` with a class instantiates it (`raise E()` is a call site).
                    let bare = matches!(c.kind_str(), "identifier" | "attribute");
                    if k == 0 && bare && node.kind_str() == "raise_statement" {
                        self.stmts.push(Stmt::Implicit {
                            scope: sc,
                            line: node.start_position().row as u32 + 1,
                            value: x,
                            kind: Protocol::Raise,
                            text: squash(text(c, src)),
                        });
                    }
                }
            }
            "for_statement" => {
                let (Some(l), Some(r)) = (node.field("left"), node.field("right")) else {
                    return;
                };
                let sc = self.scope_id(scope);
                let iter = self.expr(r, sc, src);
                let target = self.expr(l, sc, src);
                self.stmts.push(Stmt::For { target, iter });
                self.stmts.push(Stmt::Implicit {
                    scope: sc,
                    line: node.start_position().row as u32 + 1,
                    value: iter,
                    kind: Protocol::For,
                    text: String::new(),
                });
            }
            "with_statement" => {
                let sc = self.scope_id(scope);
                for clause in kids(node).filter(|c| c.kind_str() == "with_clause") {
                    for item in kids(clause).filter(|c| c.kind_str() == "with_item") {
                        let Some(v) = item.field("value") else {
                            continue;
                        };
                        let (ctx, alias) = if v.kind_str() == "as_pattern" {
                            let alias = kids(v)
                                .find(|c| c.kind_str() == "as_pattern_target")
                                .and_then(|t| named(t).next());
                            (named(v).next(), alias)
                        } else {
                            (Some(v), None)
                        };
                        let Some(ctx) = ctx else {
                            continue;
                        };
                        let line = ctx.start_position().row as u32 + 1;
                        let ctx = self.expr(ctx, sc, src);
                        let target = alias.map(|a| self.expr(a, sc, src));
                        self.stmts.push(Stmt::With { ctx, target });
                        self.stmts.push(Stmt::Implicit {
                            scope: sc,
                            line,
                            value: ctx,
                            kind: Protocol::With,
                            text: String::new(),
                        });
                    }
                }
            }
            "global_statement" => {
                let sc = self.scope_id(scope);
                let names = kids(node).map(|n| text(n, src).to_string()).collect();
                self.stmts.push(Stmt::Global { scope: sc, names });
            }
            "decorated_definition" => {
                let Some(def) = node.field("definition") else {
                    return;
                };
                self.decorated_at = Some(def.start_byte());
                let sc = self.scope_id(scope);
                let mut decorators = Vec::new();
                for d in kids(node).filter(|c| c.kind_str() == "decorator") {
                    let Some(x) = named(d).next() else {
                        continue;
                    };
                    let value = self.expr(x, sc, src);
                    decorators.push(value);
                    self.stmts.push(Stmt::Implicit {
                        scope: sc,
                        line: d.start_position().row as u32 + 1,
                        value,
                        kind: Protocol::Decorator,
                        text: format!("@{}", squash(text(x, src))),
                    });
                }
                self.definition(def, sc, decorators, src);
            }
            "function_definition" | "class_definition" => {
                if self.decorated_at.take() == Some(node.start_byte()) {
                    return; // recorded with its decorators
                }
                let sc = self.scope_id(scope);
                self.definition(node, sc, Vec::new(), src);
            }
            _ => {}
        }
    }

    fn expression_statement(&mut self, c: Node, sc: u32, src: &str) {
        match c.kind_str() {
            "assignment" | "augmented_assignment" => {
                // `a = b = v`: every target gets v.
                let mut targets = Vec::new();
                let mut cur = c;
                loop {
                    if let Some(l) = cur.field("left") {
                        targets.push(l);
                    }
                    match cur.field("right") {
                        Some(r) if matches!(r.kind_str(), "assignment" | "augmented_assignment") => {
                            cur = r
                        }
                        Some(r) => {
                            let value = self.expr(r, sc, src);
                            if sc == self.module_scope() && targets.len() == 1 {
                                self.dunder_all(targets[0], r, src);
                            }
                            for t in targets {
                                let target = self.expr(t, sc, src);
                                self.stmts.push(Stmt::Assign { target, value });
                            }
                            return;
                        }
                        None => return,
                    }
                }
            }
            // A docstring or other bare literal moves nothing.
            "string" | "integer" | "float" | "comment" => {}
            "yield" => {
                if let Some(v) = named(c).next() {
                    let value = self.expr(v, sc, src);
                    self.stmts.push(Stmt::Yield { scope: sc, value });
                } else {
                    let value = self.push(Ex::Opaque);
                    self.stmts.push(Stmt::Yield { scope: sc, value });
                }
            }
            _ => {
                let x = self.expr(c, sc, src);
                self.stmts.push(Stmt::Eval(x));
            }
        }
    }

    fn module_scope(&mut self) -> u32 {
        // Asked at every assignment: a lookup by name each time showed in profiles.
        match self.module {
            Some(i) => i,
            None => self.scope_id(""),
        }
    }

    fn dunder_all(&mut self, target: Node, value: Node, src: &str) {
        if text(target, src) != "__all__" || !matches!(value.kind_str(), "list" | "tuple") {
            return;
        }
        let names = kids(value)
            .filter(|n| n.kind_str() == "string")
            .filter_map(|n| string_literal(n, src))
            .collect();
        self.stmts.push(Stmt::All(names));
    }

    fn definition(&mut self, def: Node, sc: u32, decorators: Vec<u32>, src: &str) {
        let Some(name) = def.field("name").map(|n| text(n, src).to_string()) else {
            return;
        };
        if def.kind_str() == "class_definition" {
            self.stmts.push(Stmt::Class {
                scope: sc,
                name,
                decorators,
            });
            // Base-class expressions may call (`class A(make_base()):`).
            if let Some(sup) = def.field("superclasses") {
                for b in kids(sup) {
                    let x = self.expr(b, sc, src);
                    self.stmts.push(Stmt::Eval(x));
                }
            }
            return;
        }
        let params = match def.field("parameters") {
            Some(p) => self.params(p, sc, src),
            None => Vec::new(),
        };
        self.stmts.push(Stmt::Def {
            scope: sc,
            name,
            line: def.start_position().row as u32 + 1,
            params,
            decorators,
        });
    }

    /// Parameters; defaults are evaluated in the defining scope `sc`.
    fn params(&mut self, list: Node, sc: u32, src: &str) -> Vec<Param> {
        let mut out = Vec::new();
        let mut keyword_only = false;
        for p in kids(list) {
            let (name, default, splat) = match p.kind_str() {
                "identifier" => (Some(p), None, false),
                "typed_parameter" => (kids(p).find(|c| c.kind_str() == "identifier"), None, false),
                "default_parameter" | "typed_default_parameter" => {
                    (p.field("name"), p.field("value"), false)
                }
                "list_splat_pattern" | "dictionary_splat_pattern" => {
                    (kids(p).find(|c| c.kind_str() == "identifier"), None, true)
                }
                "keyword_separator" => {
                    keyword_only = true;
                    continue;
                }
                _ => continue,
            };
            let Some(name) = name else {
                continue;
            };
            let default = default.map(|d| self.expr(d, sc, src));
            out.push(Param {
                name: text(name, src).to_string(),
                default,
                splat,
                keyword_only,
            });
            if splat && p.kind_str() == "list_splat_pattern" {
                keyword_only = true;
            }
        }
        out
    }

    /// The arena index of expression `root` seen from scope `sc`, its operands first; an
    /// explicit stack, no recursion. Lambdas and comprehensions record their own statements.
    fn expr(&mut self, root: Node, sc: u32, src: &str) -> u32 {
        enum Frame<'t> {
            Enter(Node<'t>, u32),
            // The node's kind, read once for `operands` and `build`.
            Exit(Node<'t>, &'static str, u32, usize),
        }
        let mut stack = vec![Frame::Enter(root, sc)];
        let mut done: Vec<u32> = Vec::new();
        while let Some(frame) = stack.pop() {
            match frame {
                Frame::Enter(n, sc) => {
                    if self.exprs.len() >= MAX_EXPR_NODES {
                        done.push(self.push(Ex::Opaque));
                        continue;
                    }
                    let kind = n.kind_str();
                    let (inner_sc, kids) = self.operands(n, kind, sc, src);
                    stack.push(Frame::Exit(n, kind, sc, kids.len()));
                    for k in kids.into_iter().rev() {
                        stack.push(Frame::Enter(k, inner_sc));
                    }
                }
                Frame::Exit(n, kind, sc, k) => {
                    let at = done.len().saturating_sub(k);
                    let e = self.build(n, kind, sc, &done[at..], src);
                    done.truncate(at);
                    done.push(e);
                }
            }
        }
        done.pop().unwrap_or_else(|| self.push(Ex::Opaque))
    }

    /// The operand nodes of `n` in evaluation order, and the scope they are seen from.
    fn operands<'t>(
        &mut self,
        n: Node<'t>,
        kind: &str,
        sc: u32,
        src: &str,
    ) -> (u32, Vec<Node<'t>>) {
        let kids = match kind {
            "attribute" => n.field("object").into_iter().collect(),
            "subscript" => n.field("value").into_iter().collect(),
            "call" => {
                // What `call` needs of each argument is read here, with the operands.
                let mut v: Vec<Node> = n.field("function").into_iter().collect();
                let first = self.args.len();
                if let Some(a) = n.field("arguments") {
                    for c in kids(a) {
                        let arg = match c.kind_str() {
                            "keyword_argument" => {
                                let value = c.field("value");
                                v.extend(value);
                                Arg::Keyword {
                                    name: c.field("name").map(|k| text(k, src).to_string()),
                                    has_value: value.is_some(),
                                }
                            }
                            kind @ ("list_splat" | "dictionary_splat"
                            | "parenthesized_expression") => {
                                let value = named(c).next();
                                v.extend(value);
                                Arg::Inner {
                                    positional: kind == "parenthesized_expression",
                                    has_value: value.is_some(),
                                }
                            }
                            _ => {
                                v.push(c);
                                Arg::Plain
                            }
                        };
                        self.args.push(arg);
                    }
                }
                self.arg_counts.push(self.args.len() - first);
                v
            }
            "list" | "tuple" | "set" | "expression_list" | "pattern_list" | "tuple_pattern"
            | "list_pattern" => kids(n)
                .map(|c| match c.kind_str() {
                    "list_splat" | "list_splat_pattern" => named(c).next().unwrap_or(c),
                    _ => c,
                })
                .collect(),
            "dictionary" => kids(n)
                .filter_map(|p| match p.kind_str() {
                    "pair" => p.field("value"),
                    "dictionary_splat" => named(p).next(),
                    _ => None,
                })
                .collect(),
            "parenthesized_expression" | "await" | "not_operator" => kids(n).collect(),
            "conditional_expression" => kids(n).take(3).collect(),
            "boolean_operator" => n
                .field("left")
                .into_iter()
                .chain(n.field("right"))
                .collect(),
            "named_expression" => n.field("value").into_iter().collect(),
            "list_comprehension" | "set_comprehension" | "generator_expression"
            | "dictionary_comprehension" => {
                // Iteration first: the loop variables are bound for the body.
                for clause in kids(n).filter(|c| c.kind_str() == "for_in_clause") {
                    let (Some(l), Some(r)) = (clause.field("left"), clause.field("right")) else {
                        continue;
                    };
                    let iter = self.expr(r, sc, src);
                    let target = self.expr(l, sc, src);
                    self.stmts.push(Stmt::For { target, iter });
                }
                // Conditions are evaluated for their calls, with the loop variables bound.
                for clause in kids(n).filter(|c| c.kind_str() == "if_clause") {
                    for c in kids(clause) {
                        let x = self.expr(c, sc, src);
                        self.stmts.push(Stmt::Eval(x));
                    }
                }
                let body = n.field("body");
                match body {
                    Some(b) if b.kind_str() == "pair" => b.field("value").into_iter().collect(),
                    other => other.into_iter().collect(),
                }
            }
            "lambda" => {
                let p = n.start_position();
                let parent = self.scopes.get(sc as usize).cloned().unwrap_or_default();
                let name = format!("<lambda@{}:{}>", p.row + 1, p.column);
                let inner = if parent.is_empty() {
                    name
                } else {
                    format!("{parent}.{name}")
                };
                let inner = self.scope_id(&inner);
                return (inner, n.field("body").into_iter().collect());
            }
            _ => Vec::new(),
        };
        (sc, kids)
    }

    /// The expression `n` from its operands' arena indices (as [`Facts::operands`] listed).
    fn build(&mut self, n: Node, kind: &str, sc: u32, ops: &[u32], src: &str) -> u32 {
        let first = ops.first().copied();
        let e = match kind {
            "identifier" => Ex::Name(sc, text(n, src).to_string()),
            "attribute" => match (first, n.field("attribute")) {
                (Some(b), Some(a)) => Ex::Attr(b, text(a, src).to_string()),
                _ => Ex::Opaque,
            },
            "subscript" => match first {
                Some(b) => {
                    let key = n.field("subscript").and_then(|k| match k.kind_str() {
                        "string" => string_literal(k, src).map(|s| format!("s:{s}")),
                        "integer" => Some(format!("i:{}", text(k, src))),
                        _ => None,
                    });
                    Ex::Sub(b, key)
                }
                None => Ex::Opaque,
            },
            "call" => self.call(n, sc, ops, src),
            "dictionary" => {
                let keys = kids(n).filter_map(|p| match p.kind_str() {
                    "pair" => Some(p.field("key").and_then(|k| match k.kind_str() {
                        "string" => string_literal(k, src).map(|s| format!("s:{s}")),
                        "integer" => Some(format!("i:{}", text(k, src))),
                        _ => None,
                    })),
                    "dictionary_splat" => Some(None),
                    _ => None,
                });
                Ex::Keyed(keys.zip(ops.iter().copied()).collect())
            }
            "list" | "tuple" | "expression_list"
                if !kids(n).any(|c| c.kind_str() == "list_splat") =>
            {
                Ex::Keyed(
                    ops.iter()
                        .enumerate()
                        .map(|(i, x)| (Some(format!("i:{i}")), *x))
                        .collect(),
                )
            }
            "list" | "tuple" | "set" | "expression_list" | "pattern_list"
            | "tuple_pattern" | "list_pattern" | "list_comprehension" | "set_comprehension"
            | "generator_expression" | "dictionary_comprehension" => Ex::Coll(ops.to_vec()),
            "parenthesized_expression" | "await" | "conditional_expression"
            | "boolean_operator" | "named_expression" => {
                if kind == "named_expression" {
                    if let (Some(name), Some(v)) = (n.field("name"), first) {
                        let target = self.push(Ex::Name(sc, text(name, src).to_string()));
                        self.stmts.push(Stmt::Assign { target, value: v });
                    }
                }
                Ex::Join(ops.to_vec())
            }
            "string" => match string_literal(n, src) {
                Some(s) => Ex::Str(s),
                None => Ex::Opaque,
            },
            "lambda" => {
                let p = n.start_position();
                let parent = self.scopes.get(sc as usize).cloned().unwrap_or_default();
                let name = format!("<lambda@{}:{}>", p.row + 1, p.column);
                let inner = if parent.is_empty() {
                    name
                } else {
                    format!("{parent}.{name}")
                };
                let inner = self.scope_id(&inner);
                let params = match n.field("parameters") {
                    Some(p) => self.params(p, sc, src),
                    None => Vec::new(),
                };
                self.lambdas.push(LambdaSpan {
                    scope: inner,
                    start_line: p.row as u32 + 1,
                    end_line: n.end_position().row as u32 + 1,
                    bytes: n.byte_range(),
                });
                match first {
                    Some(body) => Ex::Lambda {
                        scope: inner,
                        params,
                        body,
                    },
                    None => Ex::Opaque,
                }
            }
            _ => Ex::Opaque,
        };
        self.push(e)
    }

    fn call(&mut self, n: Node, sc: u32, ops: &[u32], src: &str) -> Ex {
        // The arguments `operands` read for this call (those of calls inside them, read
        // later, are gone already).
        let count = self.arg_counts.pop().unwrap_or(0);
        let at = self.args.len().saturating_sub(count);
        let read: Vec<Arg> = self.args.drain(at..).collect();
        let (Some(f), Some(&func)) = (n.field("function"), ops.first()) else {
            return Ex::Opaque;
        };
        if f.kind_str() == "identifier" && text(f, src) == "super" {
            return Ex::Super(sc);
        }
        // Operands after the callee, in the order `operands` listed them; an argument that
        // is a keyword, a splat or in parentheses takes one whether it gave one or not.
        let mut rest = ops[1..].iter().copied();
        let mut args = Vec::new();
        let mut kwargs = Vec::new();
        for arg in read {
            match arg {
                Arg::Keyword { name, has_value } => {
                    let v = rest.next().filter(|_| has_value);
                    if let (Some(name), Some(v)) = (name, v) {
                        kwargs.push((name, v));
                    }
                }
                // A splat's elements are not matched to parameters.
                Arg::Inner {
                    positional,
                    has_value,
                } => {
                    let v = rest.next().filter(|_| has_value);
                    if positional {
                        args.extend(v);
                    }
                }
                Arg::Plain => args.extend(rest.next()),
            }
        }
        Ex::Call(Box::new(CallEx {
            func,
            args,
            kwargs,
            scope: sc,
            line: n.start_position().row as u32 + 1,
            bytes: n.start_byte()..n.end_byte(),
            text: squash(text(f, src)),
        }))
    }
}

/// The value of a plain string literal (no f-string, no concatenation).
fn string_literal(n: Node, src: &str) -> Option<String> {
    let mut content = String::new();
    for c in kids(n) {
        match c.kind_str() {
            "interpolation" => return None,
            "string_content" => content.push_str(text(c, src)),
            _ => {}
        }
    }
    Some(content)
}

/// Up to this many named children are found by index (tree-sitter walks from the first
/// each time, but a step is cheap); more are gathered in one pass of a cursor (which
/// allocates its stack), so that a list of a million items is not quadratic.
const BY_INDEX: usize = 12;

/// The named children of `n` that are not comments, in order.
fn kids<'t>(n: Node<'t>) -> Kids<'t> {
    let count = n.named_child_count();
    if count <= BY_INDEX {
        Kids::ByIndex { n, next: 0, count }
    } else {
        let mut cursor = n.walk();
        let v: Vec<Node<'t>> = n.named_children(&mut cursor).collect();
        Kids::Gathered(v.into_iter())
    }
}

/// The iterator of [`kids`]: no allocation for the usual few children.
enum Kids<'t> {
    ByIndex { n: Node<'t>, next: usize, count: usize },
    Gathered(std::vec::IntoIter<Node<'t>>),
}

impl<'t> Iterator for Kids<'t> {
    type Item = Node<'t>;

    fn next(&mut self) -> Option<Node<'t>> {
        loop {
            let k = match self {
                Kids::ByIndex { n, next, count } => {
                    if *next >= *count {
                        return None;
                    }
                    *next += 1;
                    n.named_child(*next as u32 - 1)
                }
                Kids::Gathered(v) => Some(v.next()?),
            };
            // Comments are extras: tree-sitter flags them, no name to compare.
            if let Some(k) = k.filter(|k| !k.is_extra()) {
                return Some(k);
            }
        }
    }
}
