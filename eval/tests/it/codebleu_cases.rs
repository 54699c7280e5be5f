#![allow(dead_code)] // Shared by the agreement test and the benchmark, which use different parts.
//! Generated CodeBLEU test cases: real-looking functions in Python, Java, C and C++ built
//! from a random statement tree, and predictions made from them by controlled edits.
//! Deterministic for a given seed.

use codemine_eval::codebleu::Language;

/// splitmix64: a small deterministic generator.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const VARS: &[&str] = &[
    "total", "count", "idx", "value", "result", "acc", "tmp", "data", "n", "i", "j", "k", "x", "y",
    "name", "buf", "flag", "score", "limit", "left", "right", "step", "size", "offset",
];
const UNICODE_VARS: &[&str] = &["größe", "naïve", "résultat", "длина", "变量"];
const FUNCS: &[&str] = &[
    "compute",
    "process",
    "helper",
    "transform",
    "update",
    "check",
    "merge",
    "parse",
];
const TEXTS: &[&str] = &[
    "hello world",
    "héllo wörld",
    "naïve café",
    "Привет, мир",
    "你好，世界",
    "emoji 😀 ok",
    "tab\\tand\\nnewline",
    "quote \\\" inside",
    "// not a comment",
    "/* not a comment */",
    "# not a comment",
    "",
];
const COMMENTS: &[&str] = &[
    "update the running total",
    "édge case: empty input",
    "TODO: handle overflow",
    "see issue #12",
    "注释 with unicode",
    "x = y + 1 // looks like code",
];

#[derive(Clone, Debug)]
pub enum Expr {
    Var(String),
    Int(i64),
    Float(String),
    Str(String),
    Bin(Box<Expr>, &'static str, Box<Expr>),
    Call(String, Vec<Expr>),
    Index(String, Box<Expr>),
    Len(String),
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Decl(String, Option<Expr>),
    Assign(String, Expr),
    AugAssign(String, &'static str, Expr),
    Swap(String, String),
    Incr(String, bool),
    If(Expr, Vec<Stmt>, Vec<(Expr, Vec<Stmt>)>, Option<Vec<Stmt>>),
    For(String, Expr, Vec<Stmt>),
    ForEach(String, String, Vec<Stmt>),
    While(Expr, Vec<Stmt>),
    Print(Expr),
    Append(String, Expr),
    Return(Expr),
    Comment(String),
    StrDecl(String, String),
    Comprehension(String, String),
    Try(Vec<Stmt>, String, Vec<Stmt>),
}

pub struct Gen<'a> {
    pub rng: &'a mut Rng,
    pub unicode_idents: bool,
}

impl Gen<'_> {
    fn op(&mut self, ops: &[&'static str]) -> &'static str {
        ops[self.rng.below(ops.len())]
    }

    fn var(&mut self) -> String {
        if self.unicode_idents && self.rng.chance(10) {
            self.rng.pick(UNICODE_VARS).to_string()
        } else {
            self.rng.pick(VARS).to_string()
        }
    }

    pub fn expr(&mut self, depth: usize) -> Expr {
        let roll = if depth == 0 {
            self.rng.below(4)
        } else {
            self.rng.below(9)
        };
        match roll {
            0 | 1 => Expr::Var(self.var()),
            2 => Expr::Int(self.rng.below(100) as i64),
            3 => {
                if self.rng.chance(50) {
                    Expr::Float(format!("{}.{}", self.rng.below(10), self.rng.below(100)))
                } else {
                    Expr::Var(self.var())
                }
            }
            4 | 5 => Expr::Bin(
                Box::new(self.expr(depth - 1)),
                self.op(&["+", "-", "*", "/", "%"]),
                Box::new(self.expr(depth - 1)),
            ),
            6 => {
                let f = self.rng.pick(FUNCS).to_string();
                let n = self.rng.below(3);
                Expr::Call(f, (0..n).map(|_| self.expr(depth - 1)).collect())
            }
            7 => Expr::Index(self.var(), Box::new(self.expr(depth - 1))),
            _ => Expr::Len(self.var()),
        }
    }

    pub fn cond(&mut self) -> Expr {
        if self.rng.chance(20) {
            // Python's two-word operators (rendered as calls elsewhere).
            let op = self.rng.pick(&["is not", "not in", "is", "in"]);
            return Expr::Bin(
                Box::new(Expr::Var(self.var())),
                op,
                Box::new(Expr::Var(self.var())),
            );
        }
        let l = self.expr(1);
        let r = self.expr(1);
        Expr::Bin(
            Box::new(l),
            self.op(&["<", ">", "==", "!=", "<=", ">="]),
            Box::new(r),
        )
    }

    pub fn block(&mut self, depth: usize, len: usize) -> Vec<Stmt> {
        (0..len).map(|_| self.stmt(depth)).collect()
    }

    pub fn stmt(&mut self, depth: usize) -> Stmt {
        let roll = if depth == 0 {
            self.rng.below(11)
        } else {
            self.rng.below(17)
        };
        match roll {
            0 | 1 => Stmt::Decl(self.var(), (!self.rng.chance(15)).then(|| self.expr(2))),
            2 | 3 => Stmt::Assign(self.var(), self.expr(2)),
            4 => Stmt::AugAssign(self.var(), self.op(&["+=", "-=", "*="]), self.expr(1)),
            5 => Stmt::Incr(self.var(), self.rng.chance(70)),
            6 => Stmt::Print(self.expr(1)),
            7 => Stmt::Append(self.var(), self.expr(1)),
            8 => Stmt::Comment(self.rng.pick(COMMENTS).to_string()),
            9 => Stmt::StrDecl(self.var(), self.rng.pick(TEXTS).to_string()),
            10 => Stmt::Swap(self.var(), self.var()),
            11 | 12 => {
                let c = self.cond();
                let n = 1 + self.rng.below(3);
                let then = self.block(depth - 1, n);
                let elifs = (0..self.rng.below(3))
                    .map(|_| {
                        let c = self.cond();
                        let n = 1 + self.rng.below(2);
                        (c, self.block(depth - 1, n))
                    })
                    .collect();
                let otherwise = self.rng.chance(50).then(|| {
                    let n = 1 + self.rng.below(2);
                    self.block(depth - 1, n)
                });
                Stmt::If(c, then, elifs, otherwise)
            }
            13 => {
                let v = self.var();
                let e = self.expr(1);
                let n = 1 + self.rng.below(3);
                Stmt::For(v, e, self.block(depth - 1, n))
            }
            14 => {
                let v = self.var();
                let coll = self.var();
                let n = 1 + self.rng.below(3);
                Stmt::ForEach(v, coll, self.block(depth - 1, n))
            }
            15 => {
                let c = self.cond();
                let n = 1 + self.rng.below(3);
                Stmt::While(c, self.block(depth - 1, n))
            }
            16 if self.rng.chance(50) => {
                let n = 1 + self.rng.below(2);
                let body = self.block(depth - 1, n);
                let e = self.var();
                let n = 1 + self.rng.below(2);
                Stmt::Try(body, e, self.block(depth - 1, n))
            }
            _ => Stmt::Comprehension(self.var(), self.var()),
        }
    }
}

/// A function: name, parameters, body (ends with a return).
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub params: Vec<(String, Option<Expr>)>,
    pub doc: Option<String>,
    pub body: Vec<Stmt>,
    /// C++: a virtual member of a class.
    pub in_class: bool,
}

pub fn function(rng: &mut Rng, lang: Language) -> Function {
    let mut g = Gen {
        rng,
        unicode_idents: matches!(lang, Language::Python | Language::Java),
    };
    let name = format!("{}_{}", g.rng.pick(FUNCS), g.rng.below(50));
    let params = (0..1 + g.rng.below(3))
        .map(|_| {
            let v = g.var();
            let default = (lang == Language::Python && g.rng.chance(30)).then(|| g.expr(0));
            (v, default)
        })
        .collect();
    let doc = g.rng.chance(40).then(|| g.rng.pick(COMMENTS).to_string());
    let n = 2 + g.rng.below(6);
    let mut body = g.block(2, n);
    body.push(Stmt::Return(g.expr(2)));
    let in_class = lang == Language::Cpp && g.rng.chance(33);
    Function {
        name,
        params,
        doc,
        body,
        in_class,
    }
}

/// Renders code; `indent` is the indentation unit.
pub struct Render {
    pub lang: Language,
    pub indent: String,
    out: Vec<String>,
}

impl Render {
    pub fn new(lang: Language, indent: &str) -> Self {
        Render {
            lang,
            indent: indent.to_string(),
            out: Vec::new(),
        }
    }

    fn py(&self) -> bool {
        self.lang == Language::Python
    }

    fn expr(&self, e: &Expr) -> String {
        match e {
            Expr::Var(v) => v.clone(),
            Expr::Int(i) => i.to_string(),
            Expr::Float(f) => f.clone(),
            Expr::Str(s) => format!("\"{s}\""),
            Expr::Bin(l, op, r) => match (*op, self.py()) {
                ("is not" | "not in" | "is" | "in", false) => {
                    format!("contains({}, {})", self.expr(l), self.expr(r))
                }
                (op, _) => format!("{} {op} {}", self.expr(l), self.expr(r)),
            },
            Expr::Call(f, args) => format!(
                "{f}({})",
                args.iter()
                    .map(|a| self.expr(a))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Expr::Index(v, i) => format!("{v}[{}]", self.expr(i)),
            Expr::Len(v) => match self.lang {
                Language::Python => format!("len({v})"),
                Language::Java => format!("{v}.length"),
                Language::C => format!("sizeof({v})"),
                Language::Cpp => format!("{v}.size()"),
            },
        }
    }

    fn line(&mut self, depth: usize, s: String) {
        self.out.push(format!("{}{s}", self.indent.repeat(depth)));
    }

    fn open(&mut self, depth: usize, head: String) {
        if self.py() {
            self.line(depth, format!("{head}:"));
        } else {
            self.line(depth, format!("{head} {{"));
        }
    }

    fn close(&mut self, depth: usize) {
        if !self.py() {
            self.line(depth, "}".to_string());
        }
    }

    fn ty(&self) -> &'static str {
        "int"
    }

    fn end(&self) -> &'static str {
        if self.py() {
            ""
        } else {
            ";"
        }
    }

    pub fn stmts(&mut self, depth: usize, body: &[Stmt]) {
        for s in body {
            self.stmt(depth, s);
        }
        if self.py() && body.is_empty() {
            self.line(depth, "pass".to_string());
        }
    }

    pub fn stmt(&mut self, d: usize, s: &Stmt) {
        let py = self.py();
        let end = self.end();
        match s {
            Stmt::Decl(v, init) => match (py, init) {
                (true, Some(e)) => {
                    let e = self.expr(e);
                    self.line(d, format!("{v} = {e}"));
                }
                (true, None) => self.line(d, format!("{v}: int")),
                (false, Some(e)) => {
                    let ty = if self.lang == Language::Cpp && v.len() % 3 == 0 {
                        "auto"
                    } else {
                        self.ty()
                    };
                    let e = self.expr(e);
                    self.line(d, format!("{ty} {v} = {e};"));
                }
                (false, None) => {
                    let ty = self.ty();
                    self.line(d, format!("{ty} {v};"));
                }
            },
            Stmt::Assign(v, e) => {
                let e = self.expr(e);
                // Python: long lines continued with a backslash.
                if py && e.contains(" + ") && v.len() % 2 == 0 {
                    let e = e.replacen(" + ", " + \\\n        ", 1);
                    self.line(d, format!("{v} = {e}"));
                } else {
                    self.line(d, format!("{v} = {e}{end}"));
                }
            }
            Stmt::AugAssign(v, op, e) => {
                let e = self.expr(e);
                self.line(d, format!("{v} {op} {e}{end}"));
            }
            Stmt::Swap(a, b) => {
                if py {
                    self.line(d, format!("{a}, {b} = {b}, {a}"));
                } else {
                    let ty = self.ty();
                    self.line(d, format!("{ty} t = {a}; {a} = {b}; {b} = t;"));
                }
            }
            Stmt::Incr(v, post) => match (py, post) {
                (true, _) => self.line(d, format!("{v} += 1")),
                (false, true) => self.line(d, format!("{v}++;")),
                (false, false) => self.line(d, format!("--{v};")),
            },
            Stmt::If(c, then, elifs, otherwise) => {
                let c = self.expr(c);
                if py {
                    self.open(d, format!("if {c}"));
                } else {
                    self.open(d, format!("if ({c})"));
                }
                self.stmts(d + 1, then);
                for (c, b) in elifs {
                    let c = self.expr(c);
                    if py {
                        self.line(d, format!("elif {c}:"));
                    } else {
                        self.close(d);
                        self.open(d, format!("else if ({c})"));
                    }
                    self.stmts(d + 1, b);
                }
                if let Some(b) = otherwise {
                    if py {
                        self.line(d, "else:".to_string());
                    } else {
                        self.close(d);
                        self.open(d, "else".to_string());
                    }
                    self.stmts(d + 1, b);
                }
                self.close(d);
            }
            Stmt::For(v, n, body) => {
                let n = self.expr(n);
                let head = match self.lang {
                    Language::Python => format!("for {v} in range({n})"),
                    Language::C => format!("for ({v} = 0; {v} < {n}; {v}++)"),
                    _ => format!("for (int {v} = 0; {v} < {n}; {v}++)"),
                };
                self.open(d, head);
                self.stmts(d + 1, body);
                self.close(d);
            }
            Stmt::ForEach(v, coll, body) => {
                let head = match self.lang {
                    Language::Python => format!("for {v} in {coll}"),
                    Language::Java => format!("for (int {v} : {coll})"),
                    Language::C => "for (int q = 0; q < n; q++)".to_string(),
                    Language::Cpp => format!("for (auto {v} : {coll})"),
                };
                self.open(d, head);
                if self.lang == Language::C {
                    self.line(d + 1, format!("int {v} = {coll}[q];"));
                }
                self.stmts(d + 1, body);
                self.close(d);
            }
            Stmt::While(c, body) => {
                let c = self.expr(c);
                if py {
                    self.open(d, format!("while {c}"));
                } else {
                    self.open(d, format!("while ({c})"));
                }
                self.stmts(d + 1, body);
                self.close(d);
            }
            Stmt::Print(e) => {
                let e = self.expr(e);
                let s = match self.lang {
                    Language::Python => format!("print({e})"),
                    Language::Java => format!("System.out.println({e});"),
                    Language::C => format!("printf(\"%d\\n\", {e});"),
                    Language::Cpp => format!("std::cout << {e} << std::endl;"),
                };
                self.line(d, s);
            }
            Stmt::Append(v, e) => {
                let e = self.expr(e);
                let s = match self.lang {
                    Language::Python => format!("{v}.append({e})"),
                    Language::Java => format!("{v}.add({e});"),
                    Language::C => format!("{v}[n++] = {e};"),
                    Language::Cpp => format!("{v}.push_back({e});"),
                };
                self.line(d, s);
            }
            Stmt::Return(e) => {
                let e = self.expr(e);
                self.line(d, format!("return {e}{end}"));
            }
            Stmt::Comment(c) => {
                if py {
                    self.line(d, format!("# {c}"));
                } else if c.len() % 2 == 0 {
                    self.line(d, format!("// {c}"));
                } else {
                    self.line(d, format!("/* {c} */"));
                }
            }
            Stmt::StrDecl(v, text) => {
                let s = match self.lang {
                    Language::Python => match text.len() % 4 {
                        0 => format!("{v} = '{text}'"),
                        1 => format!("{v} = f\"{{{v}}} {text}\""),
                        // An attribute and a string both have three children: the package
                        // pairs them up and gives up on the data flow.
                        2 => format!("self.{v} = \"{text}\""),
                        // A triple-quoted string over two lines (not a docstring).
                        _ if text.len() % 8 == 3 => {
                            format!("{v} = x + \"\"\"{text}\n  second line\"\"\"")
                        }
                        _ => format!("{v} = \"{text}\""),
                    },
                    Language::Java => format!("String {v} = \"{text}\";"),
                    Language::C => format!("const char *{v} = \"{text}\";"),
                    Language::Cpp => format!("std::string {v} = \"{text}\";"),
                };
                self.line(d, s);
                if !py && text.len() % 4 == 0 {
                    let ch = if text.is_empty() { "\\0" } else { "a" };
                    self.line(d, format!("char c = '{ch}';"));
                }
            }
            Stmt::Try(body, e, handler) => {
                let (head, catch) = match self.lang {
                    Language::Python => (
                        "try".to_string(),
                        format!("except (ValueError, KeyError) as {e}"),
                    ),
                    Language::Java => ("try".to_string(), format!("catch (Exception {e})")),
                    Language::Cpp => (
                        "try".to_string(),
                        format!("catch (const std::exception& {e})"),
                    ),
                    Language::C => ("do".to_string(), "if (errno)".to_string()),
                };
                if py {
                    self.line(d, format!("{head}:"));
                } else {
                    self.line(d, format!("{head} {{"));
                }
                self.stmts(d + 1, body);
                match self.lang {
                    Language::Python => self.line(d, format!("{catch}:")),
                    Language::C => {
                        self.line(d, "} while (0);".to_string());
                        self.line(d, format!("{catch} {{"));
                    }
                    _ => self.line(d, format!("}} {catch} {{")),
                }
                self.stmts(d + 1, handler);
                self.close(d);
            }
            Stmt::Comprehension(v, coll) => {
                let s = match self.lang {
                    Language::Python => format!("{v} = [x * 2 for x in {coll} if x > 0]"),
                    Language::Java => format!("int {v} = {coll} > 0 ? {coll} * 2 : -{coll};"),
                    _ => format!("int {v} = {coll} > 0 ? {coll} * 2 : -{coll};"),
                };
                self.line(d, s);
            }
        }
    }

    pub fn function(mut self, f: &Function) -> String {
        let params: Vec<String> = f
            .params
            .iter()
            .map(|(v, default)| match (self.lang, default) {
                (Language::Python, Some(e)) => format!("{v}={}", self.expr(e)),
                (Language::Python, None) => v.clone(),
                _ => format!("int {v}"),
            })
            .collect();
        let params = params.join(", ");
        match self.lang {
            Language::Python => {
                self.line(0, format!("def {}({params}):", f.name));
                if let Some(doc) = &f.doc {
                    self.line(1, format!("\"\"\"{doc}\"\"\""));
                }
            }
            _ => {
                if let Some(doc) = &f.doc {
                    self.line(0, format!("/** {doc} */"));
                }
                let head = match self.lang {
                    Language::Java => format!("public static int {}({params}) {{", f.name),
                    // Some C++ methods are virtual members of a class.
                    Language::Cpp if f.in_class => {
                        format!(
                            "class K {{ public: virtual int {}({params}) const {{",
                            f.name
                        )
                    }
                    _ => format!("int {}({params}) {{", f.name),
                };
                self.line(0, head);
            }
        }
        self.stmts(1, &f.body);
        self.close(0);
        if self.lang == Language::Cpp && f.in_class {
            self.line(0, "};".to_string());
        }
        self.out.join("\n") + "\n"
    }
}

pub fn render(lang: Language, f: &Function, indent: &str) -> String {
    Render::new(lang, indent).function(f)
}

/// Replaces whole-word occurrences of `from` with `to`.
pub fn rename(code: &str, from: &str, to: &str) -> String {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(pos) = rest.find(from) {
        let before = rest[..pos].chars().next_back();
        let after = rest[pos + from.len()..].chars().next();
        out.push_str(&rest[..pos]);
        if before.is_some_and(is_word) || after.is_some_and(is_word) {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = &rest[pos + from.len()..];
    }
    out.push_str(rest);
    out
}

/// One test case: references and a prediction, with what was done.
pub struct Case {
    pub refs: Vec<String>,
    pub pred: String,
    pub edit: &'static str,
}

/// Variables that appear in the function's code.
fn vars_in(code: &str) -> Vec<&'static str> {
    VARS.iter()
        .chain(UNICODE_VARS)
        .copied()
        .filter(|v| rename(code, v, "\u{1}") != code)
        .collect()
}

/// `count` cases for `lang`.
pub fn cases(lang: Language, seed: u64, count: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(count);
    for n in 0..count {
        let f = function(&mut rng, lang);
        let indent = if lang == Language::Python && rng.chance(10) {
            "\t"
        } else {
            *rng.pick(&["    ", "  ", "    "])
        };
        let reference = render(lang, &f, indent);
        let (pred, what) = edit(&mut rng, lang, &f, &reference, n);
        let mut refs = vec![reference.clone()];
        if rng.chance(12) {
            // A second (and third) reference: other edits of the same function.
            for _ in 0..1 + rng.below(2) {
                refs.push(edit(&mut rng, lang, &f, &reference, n + 1).0);
            }
        }
        if rng.chance(3) {
            refs[0] = String::new();
        }
        out.push(Case {
            refs,
            pred,
            edit: what,
        });
    }
    out
}

fn edit(
    rng: &mut Rng,
    lang: Language,
    f: &Function,
    reference: &str,
    n: usize,
) -> (String, &'static str) {
    let lines: Vec<&str> = reference.lines().collect();
    match n % 17 {
        0 => (reference.to_string(), "identical"),
        1 | 2 => {
            let vars = vars_in(reference);
            let mut code = reference.to_string();
            for _ in 0..1 + rng.below(3) {
                if vars.is_empty() {
                    break;
                }
                let from = *rng.pick(&vars);
                let to = format!(
                    "{}_{}",
                    rng.pick(&["renamed", "v", "tmp", "ñew"]),
                    rng.below(9)
                );
                code = rename(&code, from, &to);
            }
            (code, "renamed variables")
        }
        3 | 4 => {
            let mut g = f.clone();
            if g.body.len() > 2 {
                let i = rng.below(g.body.len() - 2);
                g.body.swap(i, i + 1);
            }
            (render(lang, &g, "    "), "reordered statements")
        }
        5 | 6 => {
            let mut l = lines.clone();
            for _ in 0..1 + rng.below(2) {
                if l.len() > 2 {
                    let i = 1 + rng.below(l.len() - 2);
                    l.remove(i);
                }
            }
            (l.join("\n"), "deleted lines")
        }
        7 => {
            let mut g = f.clone();
            let mut gen = Gen {
                rng,
                unicode_idents: lang == Language::Python,
            };
            let s = gen.stmt(1);
            let i = gen.rng.below(g.body.len());
            g.body.insert(i, s);
            (render(lang, &g, "    "), "inserted statement")
        }
        8 => {
            let ops = [" + ", " - ", " * ", " < ", " > ", "0", "1"];
            let mut code = reference.to_string();
            for _ in 0..3 {
                let from = *rng.pick(&ops);
                let to = *rng.pick(&ops);
                code = code.replacen(from, to, 1);
            }
            (code, "changed operators")
        }
        9 => (
            ["", "   \n\t", "return", "x", "}"][rng.below(5)].to_string(),
            "empty or one token",
        ),
        10 => {
            let other = function(rng, lang);
            (render(lang, &other, "    "), "other function")
        }
        11 => {
            let cut = rng.below(reference.chars().count().max(1));
            (reference.chars().take(cut).collect(), "truncated")
        }
        12 => {
            let code = match lang {
                Language::Python => lines
                    .iter()
                    .filter(|l| !l.trim_start().starts_with('#'))
                    .map(|l| format!("{l}  # ünïcode note"))
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => lines
                    .iter()
                    .map(|l| format!("{l} /* c */"))
                    .collect::<Vec<_>>()
                    .join("\n"),
            };
            (code, "comments changed")
        }
        13 => {
            let code = match lang {
                Language::Python => reference
                    .replace("    ", "\t")
                    .replace(" = ", "=")
                    .replace(", ", ","),
                _ => lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" "),
            };
            (code, "reformatted")
        }
        14 => {
            let mut g = f.clone();
            g.body
                .insert(0, Stmt::StrDecl("msg".into(), rng.pick(TEXTS).to_string()));
            g.body
                .insert(1, Stmt::Comment(rng.pick(COMMENTS).to_string()));
            (render(lang, &g, "    "), "unicode strings")
        }
        15 => {
            let mut g = f.clone();
            let vars = vars_in(reference);
            if let Some(v) = vars.first() {
                g.body.retain(|s| !matches!(s, Stmt::Decl(x, _) if x == v));
            }
            g.body.pop();
            let code = render(lang, &g, "    ");
            let code = vars.first().map_or(code.clone(), |v| rename(&code, v, "ζ"));
            (code, "several edits")
        }
        _ => {
            // Windows line endings and trailing spaces.
            (reference.replace('\n', " \r\n"), "crlf")
        }
    }
}
