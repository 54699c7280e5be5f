//! PHP: methods of classes, traits, interfaces, enums and anonymous classes (a method
//! without a body is no function), and named functions, top-level, conditional or nested.
//! Closures and arrow functions have no name and are not extracted (their calls belong to
//! the enclosing function).
//!
//! The docstring follows function_parser's `php_parser.py`: the comment node directly
//! before the declaration among its siblings, whatever its style (`/** */`, `/* */`,
//! `//`, `#`), delimiters stripped line by line. A comment that trails code on its own
//! line is not taken. String literals, heredocs and nowdocs are single code tokens, as
//! the grammar function_parser used had them (one `string` token).

use tree_sitter::Node;

use crate::extract::grammar::NodeExt;

use crate::extract::{
    count_named, named, text, tokens, CallKind, CallSite, ClassInfo, Around, Details, Docstring, FileInfo,
    FunctionKind, Import, LanguageSpec,
};

use super::Php;

/// The name PHP gives an anonymous class, used as its scope.
pub(crate) const ANONYMOUS_CLASS: &str = "class@anonymous";

/// `squash` without its char-by-char copy in the usual case of text without whitespace.
fn squash(s: &str) -> String {
    if s.bytes().any(|b| b.is_ascii_whitespace()) {
        crate::extract::squash(s)
    } else {
        s.to_string()
    }
}

/// The children of `node`, through a cursor: `named` asks for each child by index, which
/// tree-sitter finds by walking from the first, so a long class body costs its square.
fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|c| c.kind_str() != "comment")
        .collect()
}

/// A written class name (`Foo`, `\A\Foo`, `namespace\Foo`) with whitespace removed.
fn class_name(node: Node, src: &str) -> Option<String> {
    match node.kind_str() {
        "name" | "qualified_name" | "relative_name" => Some(squash(text(node, src))),
        _ => None,
    }
}

/// The class a declared type names: `Foo`, `?Foo`, and the one class of a union such as
/// `Foo|null`; `None` for primitive types and unions of several classes.
pub(crate) fn type_name(ty: Node, src: &str) -> Option<String> {
    let mut found = None;
    let mut stack = vec![ty];
    while let Some(n) = stack.pop() {
        match n.kind_str() {
            "named_type" => {
                let name = named(n).find_map(|c| class_name(c, src))?;
                if found.replace(name).is_some() {
                    return None;
                }
            }
            "optional_type" | "union_type" => stack.extend(named(n)),
            _ => {}
        }
    }
    found
}

/// The last segment of a namespaced name (`A\B\c` gives `c`).
pub(crate) fn last_segment(name: &str) -> &str {
    name.rsplit('\\').next().unwrap_or(name)
}

/// Grammar ids of the node kinds the walk asks about at every node: comparing ids is far
/// cheaper than `Node::kind`, which converts the kind's C string each time.
struct Kinds {
    method: u16,
    function: u16,
    class: u16,
    interface: u16,
    trait_: u16,
    enum_: u16,
    anonymous_class: u16,
    namespace: u16,
    namespace_use: u16,
    program: u16,
    declaration_list: u16,
    enum_declaration_list: u16,
}

fn kinds() -> &'static Kinds {
    static KINDS: std::sync::OnceLock<Kinds> = std::sync::OnceLock::new();
    KINDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_php::LANGUAGE_PHP.into();
        let id = |k: &str| lang.id_for_node_kind(k, true);
        Kinds {
            method: id("method_declaration"),
            function: id("function_definition"),
            class: id("class_declaration"),
            interface: id("interface_declaration"),
            trait_: id("trait_declaration"),
            enum_: id("enum_declaration"),
            anonymous_class: id("anonymous_class"),
            namespace: id("namespace_definition"),
            namespace_use: id("namespace_use_declaration"),
            program: id("program"),
            declaration_list: id("declaration_list"),
            enum_declaration_list: id("enum_declaration_list"),
        }
    })
}

impl Kinds {
    /// A named class-like declaration (not an anonymous class).
    fn is_declaration(&self, id: u16) -> bool {
        id == self.class || id == self.interface || id == self.trait_ || id == self.enum_
    }
}

fn has_child_kind(node: Node, kind: &str) -> bool {
    named(node).any(|c| c.kind_str() == kind)
}

impl LanguageSpec for Php {
    fn name(&self) -> &'static str {
        "php"
    }
    /// `$` starts an item too.
    fn starts_item(&self, rest: &[u8]) -> bool {
        crate::extract::window::starts_named_item(rest, true)
    }
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_php::LANGUAGE_PHP.into()
    }

    fn function(
        &self,
        node: Node,
        _ancestors: &[Node],
        src: &str,
    ) -> Option<(FunctionKind, String)> {
        let k = kinds();
        let id = node.kind_id();
        let kind = if id == k.method {
            FunctionKind::Method
        } else if id == k.function {
            FunctionKind::Function
        } else {
            return None;
        };
        // Abstract and interface methods have no body.
        node.field("body")?;
        let name = text(node.field("name")?, src).to_string();
        let kind = if kind == FunctionKind::Method && name.eq_ignore_ascii_case("__construct") {
            FunctionKind::Constructor
        } else {
            kind
        };
        Some((kind, name))
    }

    fn function_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&["method_declaration", "function_definition"])
    }

    fn scope_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "class_declaration",
            "interface_declaration",
            "trait_declaration",
            "enum_declaration",
            "anonymous_class",
        ])
    }

    fn file_item_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "namespace_definition",
            "namespace_use_declaration",
            "class_declaration",
            "interface_declaration",
            "trait_declaration",
            "enum_declaration",
            "anonymous_class",
        ])
    }

    fn visit_kinds(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "function_call_expression",
            "member_call_expression",
            "nullsafe_member_call_expression",
            "scoped_call_expression",
            "object_creation_expression",
            "catch_clause",
            "simple_parameter",
            "variadic_parameter",
            "property_promotion_parameter",
            "assignment_expression",
        ])
    }

    fn scope(&self, node: Node, _ancestors: &[Node], src: &str) -> Option<String> {
        let k = kinds();
        let id = node.kind_id();
        if k.is_declaration(id) {
            Some(text(node.field("name")?, src).to_string())
        } else if id == k.anonymous_class {
            Some(ANONYMOUS_CLASS.to_string())
        } else {
            None
        }
    }

    /// Functions and methods are statements or class members, and each is written with
    /// the `function` keyword: a node whose text lacks it (most statements of a method
    /// body) cannot hold one. A byte search is far cheaper than walking the subtree.
    fn may_contain_functions(&self, node: Node, src: &str) -> bool {
        let k = kinds();
        let id = node.kind_id();
        if id == k.program
            || id == k.declaration_list
            || id == k.enum_declaration_list
            || id == k.namespace
            || k.is_declaration(id)
        {
            return true;
        }
        if node.child_count() == 0 {
            return false;
        }
        // A function's own keyword does not count: only its body can hold another.
        let range = if id == k.method || id == k.function {
            match node.field("body") {
                Some(b) => b.byte_range(),
                None => return false,
            }
        } else {
            node.byte_range()
        };
        // Keywords are case-blind: `function`, `Function`, `FUNCTION`.
        src.get(range)
            .is_none_or(|t| t.contains("unction") || t.contains("UNCTION"))
    }

    fn docstring<'t>(
        &self,
        _node: Node<'t>,
        around: &Around<'_, 't>,
        src: &str,
    ) -> Option<Docstring<'t>> {
        let (&prev, earlier) = around.before().split_last()?;
        if prev.kind_str() != "comment" {
            return None;
        }
        // `$x = 1; // note` on the line before is about that line, not the function.
        if let Some(&before) = earlier.last() {
            if before.kind_str() != "comment" && before.end_position().row == prev.start_position().row
            {
                return None;
            }
        }
        let comment = text(prev, src);
        let text = match comment.strip_prefix('#') {
            Some(rest) => rest.trim().to_string(),
            None => tokens::strip_comment_delimiters(comment),
        };
        // Published as function_parser cleaned it: a `#` stays, so does `/*`.
        let published = tokens::py_strip(&tokens::fp_strip_c_style(comment)).to_string();
        Some(Docstring::with_published(text, published))
    }

    /// The file's opening `<?php` tag.
    fn fragment_prefix(&self, root: Node) -> Option<tree_sitter::Range> {
        let first = root.child(0)?;
        (first.kind_str() == "php_tag").then(|| first.range())
    }

    /// The `function` keyword opens a function in text that tree-sitter could not parse.
    fn opens_function(&self, text: &str, _before: [Option<&str>; 2]) -> bool {
        text == "function"
    }

    fn atomic_token(&self, kind: &str) -> bool {
        matches!(
            kind,
            "string" | "encapsed_string" | "heredoc" | "nowdoc" | "shell_command_expression"
        )
    }

    fn file_item(&self, node: Node, scope: &dyn Fn() -> String, src: &str, info: &mut FileInfo) {
        let k = kinds();
        let id = node.kind_id();
        if !(id == k.namespace
            || id == k.namespace_use
            || id == k.anonymous_class
            || k.is_declaration(id))
        {
            return;
        }
        match node.kind_str() {
            "namespace_definition" => {
                // `namespace { ... }` is the global namespace.
                info.package = node
                    .field("name")
                    .map(|n| squash(text(n, src)));
            }
            "namespace_use_declaration" => use_declaration(node, src, &mut info.imports),
            "class_declaration"
            | "interface_declaration"
            | "trait_declaration"
            | "enum_declaration"
            | "anonymous_class" => {
                let name = if node.kind_str() == "anonymous_class" {
                    ANONYMOUS_CLASS.to_string()
                } else {
                    match node.field("name") {
                        Some(n) => text(n, src).to_string(),
                        None => return,
                    }
                };
                let mut class = ClassInfo {
                    name: crate::extract::qualify(&scope(), ".", &name),
                    lines: crate::extract::lines_of(node),
                    ..Default::default()
                };
                for c in named(node) {
                    if matches!(c.kind_str(), "base_clause" | "class_interface_clause") {
                        class
                            .bases
                            .extend(named(c).filter_map(|b| class_name(b, src)));
                    }
                }
                if let Some(body) = node.field("body") {
                    members(body, src, &mut class);
                }
                info.classes.push(class);
            }
            _ => {}
        }
    }

    /// `f()`, `A\f()`, `$obj->m()`, `$obj?->m()`, `C::m()`, `self::m()`, `parent::m()`,
    /// `static::m()` and `new C()`; calls through variables and expressions (`$f()`,
    /// `$obj->$m()`) are kept as written and never resolved.
    fn call(&self, node: Node, kind: &str, src: &str) -> Option<CallSite> {
        let line = node.start_position().row as u32 + 1;
        let args_of = |n: Node| {
            n.field("arguments")
                .or_else(|| named(n).find(|c| c.kind_str() == "arguments"))
                .map_or(0, |a| count_named(a, src, b"/#"))
        };
        match kind {
            "function_call_expression" => {
                let args = args_of(node);
                let f = node.field("function")?;
                let written = squash(text(f, src));
                let name = match f.kind_str() {
                    "name" | "qualified_name" | "relative_name" => {
                        last_segment(&written).to_string()
                    }
                    _ => written.clone(),
                };
                Some(CallSite {
                    text: written,
                    name,
                    kind: CallKind::Plain,
                    line,
                    args,
                })
            }
            "member_call_expression" | "nullsafe_member_call_expression" => {
                let args = args_of(node);
                let recv = squash(text(node.field("object")?, src));
                let name = squash(text(node.field("name")?, src));
                let arrow = if kind == "member_call_expression" {
                    "->"
                } else {
                    "?->"
                };
                Some(CallSite {
                    text: format!("{recv}{arrow}{name}"),
                    name,
                    kind: CallKind::Member(recv),
                    line,
                    args,
                })
            }
            "scoped_call_expression" => {
                let args = args_of(node);
                let scope = squash(text(node.field("scope")?, src));
                let name = squash(text(node.field("name")?, src));
                Some(CallSite {
                    text: format!("{scope}::{name}"),
                    name,
                    kind: CallKind::Scoped(scope),
                    line,
                    args,
                })
            }
            "object_creation_expression" => {
                let args = args_of(node);
                // `new class { ... }` constructs no named class.
                let ty = named(node)
                    .filter(|c| c.kind_str() != "attribute_list")
                    .find(|c| c.kind_str() != "arguments")?;
                let written = match ty.kind_str() {
                    "name" | "qualified_name" | "relative_name" => squash(text(ty, src)),
                    "anonymous_class" => return None,
                    _ => squash(text(ty, src)),
                };
                Some(CallSite {
                    text: format!("new {written}"),
                    name: last_segment(&written).to_string(),
                    kind: CallKind::New,
                    line,
                    args,
                })
            }
            _ => None,
        }
    }

    /// Typed parameters (`Foo $x`, promoted `private Foo $x`), `catch (E $e)`,
    /// `$x = new Foo(...)`, and `$x = call(...)` with the call's text as the type (the
    /// resolver follows the callee's return type); the names keep their `$`, as receivers
    /// are written.
    fn locals(&self, node: Node, kind: &str, src: &str, out: &mut Vec<(String, String)>) {
        match kind {
            "catch_clause" => {
                let (Some(types), Some(name)) = (
                    node.field("type"),
                    node.field("name"),
                ) else {
                    return;
                };
                // `catch (A | B $e)`: the first type.
                if let Some(ty) = named(types)
                    .find(|t| t.kind_str() == "named_type")
                    .and_then(|t| named(t).find_map(|c| class_name(c, src)))
                {
                    out.push((text(name, src).to_string(), ty));
                }
            }
            "simple_parameter" | "variadic_parameter" | "property_promotion_parameter" => {
                let (Some(ty), Some(name)) = (
                    node.field("type"),
                    node.field("name"),
                ) else {
                    return;
                };
                if let Some(ty) = type_name(ty, src) {
                    out.push((squash(text(name, src)), ty));
                }
            }
            "assignment_expression" => {
                let (Some(left), Some(right)) = (
                    node.field("left"),
                    node.field("right"),
                ) else {
                    return;
                };
                if left.kind_str() != "variable_name" {
                    return;
                }
                match right.kind_str() {
                    "object_creation_expression" => {
                        if let Some(ty) = named(right).find_map(|c| class_name(c, src)) {
                            out.push((text(left, src).to_string(), ty));
                        }
                    }
                    // The resolver types the variable by the callee's return type.
                    "member_call_expression"
                    | "nullsafe_member_call_expression"
                    | "scoped_call_expression"
                    | "function_call_expression" => {
                        out.push((text(left, src).to_string(), squash(text(right, src))));
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn details(&self, node: Node, _src: &str) -> Details {
        let mut d = Details {
            is_static: has_child_kind(node, "static_modifier"),
            ..Default::default()
        };
        if let Some(params) = node.field("parameters") {
            for p in named(params) {
                match p.kind_str() {
                    "simple_parameter" | "property_promotion_parameter" => d.params += 1,
                    "variadic_parameter" => {
                        d.params += 1;
                        d.variadic = true;
                    }
                    _ => {}
                }
            }
        }
        d
    }

    /// `$x` (by value or by reference: the name is the variable), `...$rest`.
    fn param_names(&self, node: Node, src: &str) -> Vec<String> {
        let Some(params) = node.field("parameters") else {
            return Vec::new();
        };
        named(params)
            .filter_map(|p| {
                let name = text(p.field("name")?, src);
                match p.kind_str() {
                    "simple_parameter" | "property_promotion_parameter" => Some(name.to_string()),
                    "variadic_parameter" => Some(format!("...{name}")),
                    _ => None,
                }
            })
            .collect()
    }
}

/// The traits a class body uses, and its typed properties (typed `private Foo $x;`
/// declarations and promoted constructor parameters), names without the `$`.
fn members(body: Node, src: &str, class: &mut ClassInfo) {
    for m in children(body) {
        match m.kind_str() {
            "use_declaration" => class
                .bases
                .extend(named(m).filter_map(|b| class_name(b, src))),
            "property_declaration" => {
                let Some(ty) = m
                    .field("type")
                    .and_then(|t| type_name(t, src))
                else {
                    continue;
                };
                for p in named(m).filter(|c| c.kind_str() == "property_element") {
                    if let Some(n) = p.field("name") {
                        let n = text(n, src).trim_start_matches('$').to_string();
                        class.fields.push((n, ty.clone()));
                    }
                }
            }
            "method_declaration" => {
                let Some(params) = m.field("parameters") else {
                    continue;
                };
                for p in named(params).filter(|c| c.kind_str() == "property_promotion_parameter") {
                    let (Some(ty), Some(n)) = (
                        p.field("type")
                            .and_then(|t| type_name(t, src)),
                        p.field("name"),
                    ) else {
                        continue;
                    };
                    let n = squash(text(n, src)).trim_start_matches(['&', '$']).to_string();
                    class.fields.push((n, ty));
                }
            }
            _ => {}
        }
    }
}

/// `use A\B;`, `use A\B as C, D;`, `use function A\f;`, `use A\{B, function f};`.
/// Function imports are `is_static` (they import a member, not a class); constant imports
/// are left out.
fn use_declaration(node: Node, src: &str, out: &mut Vec<Import>) {
    /// `function` or `const` written before a clause or a group.
    fn use_type(node: Node, src: &str) -> Option<&'static str> {
        let mut cursor = node.walk();
        let t = node.field("type").or_else(|| {
            node.children(&mut cursor)
                .find(|c| !c.is_named() && matches!(c.kind_str(), "function" | "const"))
        })?;
        match text(t, src).to_ascii_lowercase().as_str() {
            "function" => Some("function"),
            "const" => Some("const"),
            _ => None,
        }
    }
    let outer = use_type(node, src);
    let prefix = named(node)
        .find(|c| c.kind_str() == "namespace_name")
        .map(|n| squash(text(n, src)));
    let clauses: Vec<Node> = match named(node).find(|c| c.kind_str() == "namespace_use_group") {
        Some(g) => named(g)
            .filter(|c| c.kind_str() == "namespace_use_clause")
            .collect(),
        None => named(node)
            .filter(|c| c.kind_str() == "namespace_use_clause")
            .collect(),
    };
    for c in clauses {
        let kind = use_type(c, src).or(outer);
        if kind == Some("const") {
            continue;
        }
        let Some(path) = named(c).find_map(|n| class_name(n, src)) else {
            continue;
        };
        let path = path.trim_start_matches('\\');
        let module = match &prefix {
            Some(p) => format!("{}\\{path}", p.trim_start_matches('\\')),
            None => path.to_string(),
        };
        out.push(Import {
            module,
            alias: c
                .field("alias")
                .map(|a| text(a, src).to_string()),
            is_static: kind == Some("function"),
            ..Default::default()
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::{CallKind, Extractor, FunctionKind};
    use crate::{Lang, Registry};

    fn extract(src: &str) -> crate::extract::FileFunctions {
        Extractor::default().extract(Lang::Php, src).expect("parses")
    }

    #[test]
    fn functions_methods_and_names() {
        let out = extract(
            "<?php\nnamespace A\\B;\n\nfunction free($a) { return $a; }\n\
             abstract class C extends Base implements I {\n  abstract function none();\n\
             public function __construct(private Dep $dep) {}\n\
             public static function s() { $f = function () { return 1; }; }\n}\n\
             interface I { function m(); }\n\
             trait T { function t() {} }\n\
             enum E: string { case X = 'x'; public function label(): string { return 'x'; } }\n\
             function outer() { function inner() {} }\n",
        );
        let names: Vec<(&str, FunctionKind)> = out
            .functions
            .iter()
            .map(|f| (f.qualified_name.as_str(), f.kind))
            .collect();
        assert_eq!(
            names,
            [
                ("free", FunctionKind::Function),
                ("C.__construct", FunctionKind::Constructor),
                ("C.s", FunctionKind::Method),
                ("T.t", FunctionKind::Method),
                ("E.label", FunctionKind::Method),
                ("outer", FunctionKind::Function),
                ("outer.inner", FunctionKind::Function),
            ]
        );
        assert_eq!(out.info.package.as_deref(), Some("A\\B"));
        let c = &out.info.classes[0];
        assert_eq!(c.name, "C");
        assert_eq!(c.bases, ["Base", "I"]);
        assert_eq!(c.fields, [("dep".to_string(), "Dep".to_string())]);
        assert!(out.functions[2].details.is_static);
    }

    #[test]
    fn docstrings_follow_function_parser() {
        let out = extract(
            "<?php\nclass C {\n  /**\n   * Gets it.\n   *\n   * @return int\n   */\n  function a() {}\n\
             // Line comment.\n  function b() {}\n\
             # Hash comment.\n  function c() {}\n\
             /* Block. */\n\n  function d() {}\n\
             private $x; // trailing\n  function e() {}\n\
             function f() {}\n}\n",
        );
        let docs: Vec<Option<&str>> = out
            .functions
            .iter()
            .map(|f| f.docstring.as_deref())
            .collect();
        assert_eq!(
            docs,
            [
                Some("Gets it.\n\n@return int"),
                Some("Line comment."),
                Some("Hash comment."),
                Some("Block."),
                None,
                None,
            ]
        );
    }

    #[test]
    fn strings_are_single_tokens_and_variables_two() {
        let out = extract(
            "<?php\nclass C {\n  function a($n) { return \"Hi $n\" . 'x' . <<<EOT\n  b {$n}\n  EOT; }\n}\n",
        );
        assert_eq!(
            out.functions[0].code_tokens.to_vec(),
            [
                "function",
                "a",
                "(",
                "$",
                "n",
                ")",
                "{",
                "return",
                "\"Hi $n\"",
                ".",
                "'x'",
                ".",
                "<<<EOT\n  b {$n}\n  EOT",
                ";",
                "}"
            ]
        );
    }

    #[test]
    fn calls_and_imports() {
        let out = extract(
            "<?php\nuse A\\B as X, C;\nuse function A\\f;\nuse const A\\K;\nuse A\\{D, function g};\n\
             function h(X $x) { $y = new \\A\\Y(1, 2); f(); \\strlen('a'); $x->m(); $x?->n(); self::s(); parent::p(); static::q(); $y->r(); $fn(); }\n",
        );
        let imports: Vec<(&str, Option<&str>, bool)> = out
            .info
            .imports
            .iter()
            .map(|i| (i.module.as_str(), i.alias.as_deref(), i.is_static))
            .collect();
        assert_eq!(
            imports,
            [
                ("A\\B", Some("X"), false),
                ("C", None, false),
                ("A\\f", None, true),
                ("A\\D", None, false),
                ("A\\g", None, true),
            ]
        );
        let f = &out.functions[0];
        let calls: Vec<(&str, &str, &CallKind, u32)> = f
            .calls
            .iter()
            .map(|c| (c.text.as_str(), c.name.as_str(), &c.kind, c.args))
            .collect();
        assert_eq!(
            calls,
            [
                ("new \\A\\Y", "Y", &CallKind::New, 2),
                ("f", "f", &CallKind::Plain, 0),
                ("\\strlen", "strlen", &CallKind::Plain, 1),
                ("$x->m", "m", &CallKind::Member("$x".into()), 0),
                ("$x?->n", "n", &CallKind::Member("$x".into()), 0),
                ("self::s", "s", &CallKind::Scoped("self".into()), 0),
                ("parent::p", "p", &CallKind::Scoped("parent".into()), 0),
                ("static::q", "q", &CallKind::Scoped("static".into()), 0),
                ("$y->r", "r", &CallKind::Member("$y".into()), 0),
                ("$fn", "$fn", &CallKind::Plain, 0),
            ]
        );
        assert_eq!(
            f.locals,
            [
                ("$x".to_string(), "X".to_string()),
                ("$y".to_string(), "\\A\\Y".to_string())
            ]
        );
    }
}
