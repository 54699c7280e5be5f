//! Parameter names per language ([`codemine_syntax::extract::LanguageSpec::param_names`]):
//! what `--require-param-docs` compares with a docstring's documented parameters, spelled as
//! each language's signature writes them.

use codemine_syntax::extract::Extractor;

use crate::{Lang, Registry};

/// The parameter names of every function of `src`, in file order.
fn names(lang: Lang, src: &str) -> Vec<Vec<String>> {
    let out = Extractor::default().extract(lang, src).expect("parses");
    out.functions.into_iter().map(|f| f.param_names).collect()
}

fn strings(v: &[&[&str]]) -> Vec<Vec<String>> {
    v.iter()
        .map(|n| n.iter().map(|s| s.to_string()).collect())
        .collect()
}

#[test]
fn python() {
    let src = "def f(self, a, b: int, c=1, d: str = 'x', *args, e, **kwargs):\n    pass\n\n\
               def g(a, /, b, *, c):\n    pass\n\n\
               def h(*xs: int, **kw: str):\n    pass\n\n\
               def none():\n    pass\n";
    assert_eq!(
        names(Lang::Python, src),
        strings(&[
            &["self", "a", "b", "c", "d", "*args", "e", "**kwargs"],
            &["a", "b", "c"],
            &["*xs", "**kw"],
            &[],
        ])
    );
}

#[test]
fn java() {
    let src = "class A {\n  A(int x) {}\n  static <T> void m(final String s, T[] items, int... rest) {}\n  void none() {}\n}\n";
    assert_eq!(
        names(Lang::Java, src),
        strings(&[&["x"], &["s", "items", "rest"], &[]])
    );
}

#[test]
fn go() {
    let src = "package p\n\nfunc (c *C) Run(a, b int, s string, xs ...string) error { return nil }\n\nfunc Types(int, string) {}\n\nfunc None() {}\n";
    assert_eq!(
        names(Lang::Go, src),
        strings(&[&["a", "b", "s", "xs"], &[], &[]])
    );
}

#[test]
fn c() {
    let src = "static int f(int a, const char *name, int arr[], void (*cb)(int)) { return 0; }\n\
               int g(void) { return 0; }\n\
               int h(int n, ...) { return n; }\n";
    assert_eq!(
        names(Lang::C, src),
        strings(&[&["a", "name", "arr", "cb"], &[], &["n"]])
    );
}

#[test]
fn cpp() {
    let src = "int f(int& a, const std::string& s = \"x\", int) { return 0; }\n\
               template <typename... Args> void g(Args... args) {}\n\
               struct S { void m(double d) const {} };\n";
    assert_eq!(
        names(Lang::Cpp, src),
        strings(&[&["a", "s"], &["...args"], &["d"]])
    );
}

#[test]
fn javascript() {
    let src = "function f(a, b = 2, ...rest) {}\n\
               const g = x => x;\n\
               const h = ({ a, b }, [c], d) => d;\n\
               class K { m(p) {} }\n";
    assert_eq!(
        names(Lang::JavaScript, src),
        strings(&[&["a", "b", "...rest"], &["x"], &["d"], &["p"]])
    );
}

#[test]
fn typescript() {
    let src = "function f(this: Window, a: number, b?: string, c: number = 1, ...rest: string[]): void {}\n\
               class K { constructor(private readonly x: number) {} }\n";
    assert_eq!(
        names(Lang::TypeScript, src),
        strings(&[&["a", "b", "c", "...rest"], &["x"]])
    );
}

#[test]
fn php() {
    let src = "<?php\nfunction f(int $a, &$b, string $c = 'x', ...$rest) {}\n\
               class K { public function __construct(private int $x) {} }\n";
    assert_eq!(
        names(Lang::Php, src),
        strings(&[&["$a", "$b", "$c", "...$rest"], &["$x"]])
    );
}

#[test]
fn ruby() {
    let src = "def f(a, b = 1, *args, c:, d: 2, **opts, &block)\nend\n\n\
               def g((x, y), z)\nend\n\n\
               def h\nend\n";
    assert_eq!(
        names(Lang::Ruby, src),
        strings(&[
            &["a", "b", "*args", "c", "d", "**opts", "&block"],
            &["z"],
            &[],
        ])
    );
}
