//! Go: top-level functions (`function_declaration`) and methods (`method_declaration`), as
//! CodeSearchNet's `function_parser` finds them. A method's name is `Type.Method`, the
//! receiver's type without `*` or type parameters. The docstring is the run of comments
//! directly before the declaration among the file's top-level nodes (function_parser's
//! comment buffer: any other node in between clears it; blank lines do not). Function
//! literals stay part of the function that holds them, as in function_parser. Code tokens
//! are the leaves of the grammar function_parser used (see [`LanguageSpec::hidden_leaf`]).

use tree_sitter::Node;

use crate::extract::grammar::NodeExt;

use crate::extract::{
    count_named, named, squash, text, tokens, CallKind, CallSite, ClassInfo, Around, Details, Docstring, FileInfo,
    FunctionKind, Import, LanguageSpec,
};

use super::Go;

/// The grammar's fields the rules read, with their ids looked up once:
/// `child_by_field_name` searches the grammar's field names one by one on every call.
const FIELDS: [&str; 15] = [
    "arguments", "body", "element", "field", "function", "left", "name", "operand",
    "parameters", "path", "receiver", "result", "right", "type", "value",
];

fn field_id(name: &str) -> Option<std::num::NonZeroU16> {
    static IDS: std::sync::OnceLock<Vec<Option<std::num::NonZeroU16>>> =
        std::sync::OnceLock::new();
    let ids = IDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_go::LANGUAGE.into();
        FIELDS.iter().map(|f| lang.field_id_for_name(f)).collect()
    });
    ids[FIELDS.iter().position(|f| *f == name)?]
}

/// The `name` children of `node` (a declaration may name several).
fn names(node: Node) -> Vec<Node> {
    let Some(id) = field_id("name") else {
        return Vec::new();
    };
    let mut cursor = node.walk();
    node.children_by_field_id(id, &mut cursor).collect()
}

/// [`squash`] without its per-character pass when the text has no whitespace, as most
/// callees and receivers have none.
fn squashed(s: &str) -> String {
    if s.is_ascii() && !s.bytes().any(|b| b.is_ascii_whitespace()) {
        s.to_string()
    } else {
        squash(s)
    }
}

/// A type as the resolver names it: `T` or `pkg.T`, without `*`, parentheses or type
/// arguments; `None` for slices, maps, channels, function and anonymous struct types.
pub(crate) fn type_name(ty: Node, src: &str) -> Option<String> {
    let mut ty = ty;
    // `*T`, `(T)`, `T[int]`: peel until a name (bounded: each step goes one node down).
    for _ in 0..16 {
        match ty.kind_str() {
            "type_identifier" | "identifier" => return Some(text(ty, src).to_string()),
            "qualified_type" => return Some(squashed(text(ty, src))),
            "pointer_type" | "parenthesized_type" => ty = named(ty).next()?,
            "generic_type" => ty = ty.field("type")?,
            _ => return None,
        }
    }
    None
}

/// The receiver's type name of a method (`(c *Command)` gives `Command`).
fn receiver_type(node: Node, src: &str) -> Option<String> {
    let recv = node.field("receiver")?;
    let param = named(recv).find(|c| c.kind_str() == "parameter_declaration")?;
    type_name(param.field("type")?, src)
}

/// The import path of an `import_spec`, without quotes.
fn import_path(spec: Node, src: &str) -> Option<String> {
    let p = text(spec.field("path")?, src);
    Some(p.trim_matches(|c| c == '"' || c == '`').to_string())
}

/// Longest expression kept as a variable's type, to be typed by the resolver.
const MAX_EXPR: usize = 200;

/// A type as written where its element type may be wanted: [`type_name`], or `[]T` for a
/// slice or array of a named type (what `range` gives elements of).
fn written_type(ty: Node, src: &str) -> Option<String> {
    match ty.kind_str() {
        "slice_type" | "array_type" => {
            let elem = ty.field("element")?;
            Some(format!("[]{}", type_name(elem, src)?))
        }
        _ => type_name(ty, src),
    }
}

/// The type of what `value` evaluates to, when it is obvious: `T{}`, `&T{}`, `new(T)`,
/// `x.(T)`; for another call, a variable or a selector, `=` and the expression as written
/// (`=c.Flags()`, `=pkg.NewT(x)`, `=c.parent`), which the resolver types (a call through
/// the callee's result type).
fn value_type(value: Node, src: &str) -> Option<String> {
    let mut v = value;
    if v.kind_str() == "unary_expression" && v.child(0).is_some_and(|o| o.kind_str() == "&") {
        v = v.field("operand")?;
    }
    match v.kind_str() {
        "composite_literal" => type_name(v.field("type")?, src),
        // `x.(T)`.
        "type_assertion_expression" => type_name(v.field("type")?, src),
        // `p := c`, `p := c.parent`: typed as the expression.
        "identifier" | "selector_expression" => expression(v, src),
        "call_expression" => {
            let f = v.field("function")?;
            let callee = squashed(text(f, src));
            if callee == "new" {
                let arg = named(v.field("arguments")?).next()?;
                return type_name(arg, src);
            }
            expression(v, src)
        }
        _ => None,
    }
}

/// `=` and `node`'s text without whitespace, if short and free of function literals.
fn expression(node: Node, src: &str) -> Option<String> {
    let t = text(node, src);
    (t.len() <= MAX_EXPR && !t.contains('{')).then(|| format!("={}", squashed(t)))
}

impl LanguageSpec for Go {
    fn name(&self) -> &'static str {
        "go"
    }
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_go::LANGUAGE.into()
    }

    fn function(
        &self,
        node: Node,
        _ancestors: &[Node],
        src: &str,
    ) -> Option<(FunctionKind, String)> {
        match node.kind_str() {
            // A declaration without a body (implemented in assembly) has no code to mine.
            "function_declaration" => {
                node.field("body")?;
                let name = text(node.field("name")?, src).to_string();
                Some((FunctionKind::Function, name))
            }
            "method_declaration" => {
                node.field("body")?;
                let name = text(node.field("name")?, src);
                let name = match receiver_type(node, src) {
                    Some(t) => format!("{t}.{name}"),
                    None => name.to_string(),
                };
                Some((FunctionKind::Method, name))
            }
            _ => None,
        }
    }

    fn function_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&["function_declaration", "method_declaration"])
    }

    fn scope_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[])
    }

    fn file_item_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "package_clause",
            "import_declaration",
            "const_declaration",
            "var_declaration",
            "type_declaration",
        ])
    }

    fn visit_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "call_expression",
            "function_declaration",
            "method_declaration",
            "range_clause",
            "parameter_declaration",
            "var_spec",
            "short_var_declaration",
        ])
    }

    fn scope(&self, _node: Node, _ancestors: &[Node], _src: &str) -> Option<String> {
        None
    }

    fn body<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        node.field("body")
    }

    /// function_parser names a method by its own name, without the receiver's type.
    fn function_parser_name(&self, node: Node, qualified: &str, src: &str) -> Option<String> {
        if node.kind_str() != "method_declaration" {
            return None;
        }
        let name = text(node.field("name")?, src);
        (name != qualified).then(|| name.to_string())
    }

    /// `Type.Method` names the method `Method`.
    fn simple_name<'a>(&self, name: &'a str) -> &'a str {
        name.rsplit('.').next().unwrap_or(name)
    }

    /// Functions and methods are declared at the top level only.
    fn may_contain_functions(&self, node: Node, _src: &str) -> bool {
        node.kind_str() == "source_file"
    }

    fn docstring<'t>(
        &self,
        _node: Node<'t>,
        around: &Around<'_, 't>,
        src: &str,
    ) -> Option<Docstring<'t>> {
        // function_parser looks at the file's top-level nodes only, and functions are found
        // there only (see `may_contain_functions`; those inside an ERROR node are dropped
        // before their docstring is asked for), so `node`'s siblings are top-level nodes.
        let before = around.before();
        let run = before
            .iter()
            .rev()
            .take_while(|p| p.kind_str() == "comment")
            .count();
        if run == 0 {
            return None;
        }
        let comments: Vec<&str> = before[before.len() - run..]
            .iter()
            .map(|p| text(*p, src))
            .collect();
        // CodeSearchNet published the comments' text as it is, `//` markers included.
        let raw = comments.join("\n");
        Some(Docstring::with_published(
            tokens::strip_comment_delimiters(&raw),
            tokens::py_strip(&raw).to_string(),
        ))
    }

    /// A raw string was one token in the grammar function_parser used (no Go node is of its
    /// atomic type `string`); tree-sitter-go 0.25 splits it into quotes and content.
    /// The `func` keyword opens a function in text that tree-sitter could not parse.
    fn opens_function(&self, text: &str, _before: [Option<&str>; 2]) -> bool {
        text == "func"
    }

    fn atomic_token(&self, kind: &str) -> bool {
        kind == "raw_string_literal"
    }

    /// The characters of an interpreted string were a hidden token in that grammar, so a
    /// literal gave its quotes and escape sequences only (`"`, `\n`, `"`): CodeSearchNet's
    /// published Go rows have them so. The code itself keeps the text.
    fn hidden_leaf(&self, kind: &str) -> bool {
        kind == "interpreted_string_literal_content"
    }

    fn file_item(&self, node: Node, _scope: &dyn Fn() -> String, src: &str, info: &mut FileInfo) {
        match node.kind_str() {
            "package_clause" => {
                if let Some(n) = named(node).next() {
                    info.package = Some(text(n, src).to_string());
                }
            }
            "import_declaration" => {
                let mut specs: Vec<Node> = Vec::new();
                for c in named(node) {
                    match c.kind_str() {
                        "import_spec" => specs.push(c),
                        "import_spec_list" => {
                            specs.extend(named(c).filter(|s| s.kind_str() == "import_spec"))
                        }
                        _ => {}
                    }
                }
                for spec in specs {
                    let Some(module) = import_path(spec, src) else {
                        continue;
                    };
                    let name = spec.field("name");
                    let wildcard = name.is_some_and(|n| n.kind_str() == "dot");
                    let alias = name
                        .filter(|n| n.kind_str() == "package_identifier" || n.kind_str() == "blank_identifier")
                        .map(|n| text(n, src).to_string());
                    info.imports.push(Import {
                        module,
                        alias,
                        wildcard,
                        ..Default::default()
                    });
                }
            }
            // Package-level variables with a declared or obvious type, as the fields of a
            // nameless class (a type needs a name, so the resolver tells them apart).
            "var_declaration" => {
                let mut specs: Vec<Node> = Vec::new();
                for c in named(node) {
                    match c.kind_str() {
                        "var_spec" => specs.push(c),
                        "var_spec_list" => specs.extend(named(c).filter(|s| s.kind_str() == "var_spec")),
                        _ => {}
                    }
                }
                let mut vars = ClassInfo::default();
                for spec in specs {
                    self.locals(spec, "var_spec", src, &mut vars.fields);
                    value_names(spec, src, &mut info.constants);
                }
                // An expression's type would need the package's own context: left out.
                vars.fields.retain(|(_, t)| !t.starts_with('='));
                if !vars.fields.is_empty() {
                    info.classes.push(vars);
                }
            }
            // Package-level constants: definitions a line may name (`pkg.Timeout`).
            "const_declaration" => {
                for c in named(node) {
                    match c.kind_str() {
                        "const_spec" => value_names(c, src, &mut info.constants),
                        "const_spec_list" => {
                            for s in named(c).filter(|s| s.kind_str() == "const_spec") {
                                value_names(s, src, &mut info.constants);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "type_declaration" => {
                for spec in named(node) {
                    if !matches!(spec.kind_str(), "type_spec" | "type_alias") {
                        continue;
                    }
                    let Some(name) = spec.field("name") else {
                        continue;
                    };
                    let mut class = ClassInfo {
                        name: text(name, src).to_string(),
                        lines: crate::extract::lines_of(spec),
                        ..Default::default()
                    };
                    if let Some(ty) = spec.field("type") {
                        type_members(ty, src, &mut class);
                    }
                    info.classes.push(class);
                }
            }
            _ => {}
        }
    }

    /// `f(x)`, `pkg.F(x)`, `recv.M(x)`, `a.b.M(x)`; other callees (`f()(x)`,
    /// `fs[i](x)`, `func(){...}()`) are kept as written and never resolved.
    fn call(&self, node: Node, kind: &str, src: &str) -> Option<CallSite> {
        if kind != "call_expression" {
            return None;
        }
        let f = node.field("function")?;
        let written = squashed(text(f, src));
        let (name, kind) = match f.kind_str() {
            "identifier" => (written.clone(), CallKind::Plain),
            "selector_expression" => (
                text(f.field("field")?, src).to_string(),
                CallKind::Member(squashed(text(f.field("operand")?, src))),
            ),
            _ => (written.clone(), CallKind::Plain),
        };
        let args = node
            .field("arguments")
            .map_or(0, |a| count_named(a, src, b"/"));
        Some(CallSite {
            text: written,
            name,
            kind,
            line: node.start_position().row as u32 + 1,
            args,
        })
    }

    /// Receivers and parameters with their types, `var x T`, `x := T{}` / `&T{}` /
    /// `new(T)` / a call (see [`value_type`]), `for _, x := range xs` (`range` and the
    /// expression), and the function's own (first) result type as `return`, a name no
    /// variable can have.
    fn locals(&self, node: Node, kind: &str, src: &str, out: &mut Vec<(String, String)>) {
        match kind {
            "function_declaration" | "method_declaration" => {
                let Some(result) = node.field("result") else {
                    return;
                };
                let ty = if result.kind_str() == "parameter_list" {
                    named(result)
                        .next()
                        .and_then(|p| p.field("type"))
                } else {
                    Some(result)
                };
                if let Some(t) = ty.and_then(|t| written_type(t, src)) {
                    out.push(("return".into(), t));
                }
            }
            "range_clause" => {
                let (Some(left), Some(right)) = (
                    node.field("left"),
                    node.field("right"),
                ) else {
                    return;
                };
                let Some(elem) = named(left).nth(1).filter(|n| n.kind_str() == "identifier") else {
                    return;
                };
                if let Some(e) = expression(right, src) {
                    out.push((text(elem, src).to_string(), format!("range {}", &e[1..])));
                }
            }
            "parameter_declaration" | "var_spec" => {
                let names = names(node);
                let declared = node
                    .field("type")
                    .and_then(|t| written_type(t, src));
                let values: Vec<Node> = node
                    .field("value")
                    .map(|v| named(v).collect())
                    .unwrap_or_default();
                for (i, n) in names.iter().enumerate() {
                    let ty = declared
                        .clone()
                        .or_else(|| values.get(i).and_then(|v| value_type(*v, src)));
                    if let Some(ty) = ty {
                        out.push((text(*n, src).to_string(), ty));
                    }
                }
            }
            "short_var_declaration" => {
                let (Some(left), Some(right)) = (
                    node.field("left"),
                    node.field("right"),
                ) else {
                    return;
                };
                let values: Vec<Node> = named(right).collect();
                // `x, err := f()`: the first variable has the call's (first) result type.
                for (i, n) in named(left).enumerate() {
                    if n.kind_str() != "identifier" {
                        continue;
                    }
                    if let Some(ty) = values.get(i).and_then(|v| value_type(*v, src)) {
                        out.push((text(n, src).to_string(), ty));
                    }
                }
            }
            _ => {}
        }
    }

    /// Go declares functions at the top level only, so a function's body never holds
    /// another (function literals are part of it): the walk need not look for one.
    fn nested_functions_extracted(&self) -> bool {
        false
    }

    fn details(&self, node: Node, _src: &str) -> Details {
        let mut d = Details::default();
        if let Some(params) = node.field("parameters") {
            for p in named(params) {
                let names = names(p).len().max(1) as u32;
                match p.kind_str() {
                    "parameter_declaration" => d.params += names,
                    "variadic_parameter_declaration" => {
                        d.params += 1;
                        d.variadic = true;
                    }
                    _ => {}
                }
            }
        }
        d
    }

    /// Go writes `...` on the type (`xs ...string`), so names are plain; a parameter list
    /// of types only (`func(int, string)`) has none.
    fn param_names(&self, node: Node, src: &str) -> Vec<String> {
        let Some(params) = node.field("parameters") else {
            return Vec::new();
        };
        named(params)
            .filter(|p| {
                matches!(
                    p.kind_str(),
                    "parameter_declaration" | "variadic_parameter_declaration"
                )
            })
            .flat_map(names)
            .map(|n| text(n, src).to_string())
            .collect()
    }
}

/// A declared type's members for the resolver: a struct's named fields with their types and
/// its embedded types (as `bases`, whose methods it promotes); an interface's methods (as
/// fields typed `func`) and embedded interfaces; a defined type's underlying named type
/// (`type A B`, as a base, so `A`'s conversions and fields resolve like `B`'s).
fn type_members(ty: Node, src: &str, class: &mut ClassInfo) {
    match ty.kind_str() {
        "struct_type" => {
            let Some(list) = named(ty).find(|c| c.kind_str() == "field_declaration_list") else {
                return;
            };
            for field in named(list).filter(|c| c.kind_str() == "field_declaration") {
                let Some(t) = field.field("type") else {
                    continue;
                };
                let t = written_type(t, src);
                let names = names(field);
                match (names.is_empty(), t) {
                    (true, Some(t)) => class.bases.push(t),
                    (false, Some(t)) => {
                        for n in names {
                            class.fields.push((text(n, src).to_string(), t.clone()));
                        }
                    }
                    _ => {}
                }
            }
        }
        "interface_type" => {
            for m in named(ty) {
                match m.kind_str() {
                    "method_elem" => {
                        if let Some(n) = m.field("name") {
                            class.fields.push((text(n, src).to_string(), "func".into()));
                        }
                    }
                    "type_elem" => {
                        if let Some(t) = named(m).next().and_then(|t| type_name(t, src)) {
                            class.bases.push(t);
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {
            if let Some(t) = type_name(ty, src) {
                class.bases.push(t);
            }
        }
    }
}

/// The names a `const_spec` or `var_spec` declares, each with the spec's lines.
fn value_names(spec: Node, src: &str, out: &mut Vec<(String, (u32, u32))>) {
    let mut cursor = spec.walk();
    for n in spec.children_by_field_name("name", &mut cursor) {
        if n.kind_str() == "identifier" {
            out.push((text(n, src).to_string(), crate::extract::lines_of(spec)));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::{Extractor, FunctionKind};
    use crate::{Lang, Registry};

    const SRC: &str = r#"// Package foo is a test.
package foo

import (
	"fmt"
	str "strings"
)

// Hello says hi.
//
// More text, @see x.
func Hello(name string) string {
	return fmt.Sprintf("hi %s\n", name) + `raw`
}

/* Block doc */
// and line

func (c *Cmd[T]) Run(a, b int, xs ...string) error { return nil }

var x = 1 // trailing
func NoDoc() { s := str.ToUpper("a"); _ = s }

// Not a doc: a type sits between.
type T struct{}
func (T) Value() {}

func Asm(x int) int
"#;

    #[test]
    fn functions_names_and_docstrings() {
        let out = Extractor::default().extract(Lang::Go, SRC).unwrap();
        type Row<'a> = (&'a str, &'a str, FunctionKind, Option<&'a str>, u32, u32);
        let got: Vec<Row> = out
            .functions
            .iter()
            .map(|f| {
                (
                    f.qualified_name.as_str(),
                    f.name.as_str(),
                    f.kind,
                    f.docstring.as_deref(),
                    f.start_line,
                    f.end_line,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "Hello",
                    "Hello",
                    FunctionKind::Function,
                    Some("Hello says hi.\n\nMore text, @see x."),
                    12,
                    14
                ),
                // Comments separated by a blank line still form the buffer.
                (
                    "Cmd.Run",
                    "Run",
                    FunctionKind::Method,
                    Some("Block doc\nand line"),
                    19,
                    19
                ),
                // A trailing comment of the line before is a top-level comment too.
                ("NoDoc", "NoDoc", FunctionKind::Function, Some("trailing"), 22, 22),
                ("T.Value", "Value", FunctionKind::Method, None, 26, 26),
            ]
        );
        assert_eq!(out.functions[1].scope, "Cmd");
        assert_eq!(out.functions[1].details.params, 3);
        assert!(out.functions[1].details.variadic);
    }

    #[test]
    fn code_tokens_keep_string_quotes_and_escapes() {
        let out = Extractor::default().extract(Lang::Go, SRC).unwrap();
        assert_eq!(
            out.functions[0].code_tokens.to_vec(),
            [
                "func", "Hello", "(", "name", "string", ")", "string", "{", "return", "fmt", ".",
                "Sprintf", "(", "\"", "\\n", "\"", ",", "name", ")", "+", "`raw`", "}"
            ]
        );
    }

    #[test]
    fn every_field_read_is_a_field_of_the_grammar() {
        for f in super::FIELDS {
            assert!(super::field_id(f).is_some(), "{f}");
        }
        assert!(super::field_id("no_such_field").is_none());
    }

    #[test]
    fn summary_ends_at_an_at_sign_only() {
        let def = Lang::Go.def();
        assert_eq!(
            def.docstring_summary("Hello says hi.\n\nMore text, @see x."),
            "Hello says hi.\n\nMore text, "
        );
    }

    #[test]
    fn calls_and_locals() {
        let src = "package p\nfunc F(c *Cmd, o pkg.Opt) {\n\tvar b Buf\n\td := &Cmd{}\n\te, g := NewThing(), pkg.NewOther(1)\n\tn := new(Node)\n\tc.Run(1, 2)\n\tfmt.Println(d)\n\tc.parent.Do()\n\tf()\n\tget()()\n}\n";
        let out = Extractor::default().extract(Lang::Go, src).unwrap();
        let f = &out.functions[0];
        let locals: Vec<(&str, &str)> = f
            .locals
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        assert_eq!(
            locals,
            [
                ("c", "Cmd"),
                ("o", "pkg.Opt"),
                ("b", "Buf"),
                ("d", "Cmd"),
                ("e", "=NewThing()"),
                ("g", "=pkg.NewOther(1)"),
                ("n", "Node")
            ]
        );
        let calls: Vec<(&str, &str, u32)> = f
            .calls
            .iter()
            .map(|c| (c.text.as_str(), c.name.as_str(), c.args))
            .collect();
        assert_eq!(
            calls,
            [
                ("NewThing", "NewThing", 0),
                ("pkg.NewOther", "NewOther", 1),
                ("new", "new", 1),
                ("c.Run", "Run", 2),
                ("fmt.Println", "Println", 1),
                ("c.parent.Do", "Do", 0),
                ("f", "f", 0),
                ("get()", "get()", 0),
                ("get", "get", 0),
            ]
        );
    }
}
