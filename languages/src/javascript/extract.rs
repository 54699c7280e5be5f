//! JavaScript and TypeScript extraction, shared: TypeScript's spec
//! (the `typescript` module) calls these functions with its own grammars, whose node
//! kinds are a superset of JavaScript's.
//!
//! Functions: function declarations (and generators), function expressions and arrow
//! functions bound to a name (`var f = function`, `f = () => {}`, `obj.m = function`,
//! object-literal values `{ m: function }`, class fields `m = () => {}`, `export default`),
//! and methods of classes and object literals (`m() {}`, getters, setters, `constructor`).
//! Anonymous function expressions and arrows (callbacks, IIFEs) are part of the function
//! that contains them. Bodiless TypeScript signatures (overloads, interface and abstract
//! methods) are not functions.
//!
//! Names: `Class.method`; `Foo.prototype.bar` and `exports.f` as assigned; an object
//! literal bound to a name is a scope (`api.get` for `var api = { get: function () {} }`).
//!
//! The docstring is CodeSearchNet's `javascript_parser.py` rule: the comments right before
//! the function, or before its `var` declaration or object `pair`, joined by spaces with
//! C-style delimiters stripped. Beyond function_parser, the comment before an `export`
//! statement, an assignment statement (`obj.m = function`) or a class field also counts.

use tree_sitter::Node;

use crate::extract::grammar::NodeExt;

use crate::extract::{
    count_named, named, squash, text, tokens, Around, CallKind, CallSite, ClassInfo, Details,
    Docstring, FileInfo, FunctionKind, Import,
};

/// A specifier as written, without its quotes (`'./a'` gives `./a`).
fn unquote(s: &str) -> &str {
    s.trim_matches(|c| c == '\'' || c == '"' || c == '`')
}

/// The name a function expression, arrow function or class expression is bound to by its
/// parent: a variable, an assignment's left side, an object key, a class field, or
/// `export default`.
fn binding_name(node: Node, parent: Option<Node>, src: &str) -> Option<String> {
    let parent = parent?;
    match parent.kind_str() {
        "variable_declarator" => {
            let n = parent.field("name")?;
            (n.kind_str() == "identifier").then(|| text(n, src).to_string())
        }
        "assignment_expression" => {
            if parent.field("right")? != node {
                return None;
            }
            let left = parent.field("left")?;
            matches!(left.kind_str(), "identifier" | "member_expression")
                .then(|| squash(text(left, src)))
        }
        "pair" => {
            if parent.field("value")? != node {
                return None;
            }
            Some(key_name(parent.field("key")?, src))
        }
        "field_definition" | "public_field_definition" => {
            let key = parent
                .field("property")
                .or_else(|| parent.field("name"))?;
            Some(key_name(key, src))
        }
        "export_statement" => Some("default".to_string()),
        _ => None,
    }
}

/// An object key or method name: quotes dropped from string keys.
fn key_name(key: Node, src: &str) -> String {
    match key.kind_str() {
        "string" => unquote(text(key, src)).to_string(),
        _ => squash(text(key, src)),
    }
}

/// The kinds [`function`] can return a function for.
pub(crate) const FUNCTION_KINDS: &[&str] = &[
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "generator_function",
    "arrow_function",
    "method_definition",
];

/// The kinds [`scope`] can return a scope for.
pub(crate) const SCOPE_KINDS: &[&str] = &[
    "class_declaration",
    "abstract_class_declaration",
    "class",
    "internal_module",
    "module",
    "object",
];

/// The kinds [`file_item`] can record something for.
pub(crate) const FILE_ITEM_KINDS: &[&str] = &[
    "import_statement",
    "export_statement",
    "variable_declarator",
    "assignment_expression",
    "class_declaration",
    "abstract_class_declaration",
    "class",
];

/// The kinds [`call`] and [`locals`] can record something for.
pub(crate) const VISIT_KINDS: &[&str] = &[
    "call_expression",
    "new_expression",
    "variable_declarator",
    "required_parameter",
    "optional_parameter",
];

pub(crate) fn function(
    node: Node,
    ancestors: &[Node],
    src: &str,
) -> Option<(FunctionKind, String)> {
    match node.kind_str() {
        "function_declaration" | "generator_function_declaration" => {
            node.field("body")?;
            // `export default function () {}` has no name.
            let name = node
                .field("name")
                .map_or("default", |n| text(n, src));
            Some((FunctionKind::Function, name.to_string()))
        }
        "function_expression" | "generator_function" | "arrow_function" => {
            node.field("body")?;
            let parent = ancestors.last().copied();
            let in_class = parent.is_some_and(|p| {
                matches!(p.kind_str(), "field_definition" | "public_field_definition")
            });
            // A function that nothing binds (`f(function g() {})`, an IIFE) is a callback,
            // part of the function around it.
            let name = binding_name(node, parent, src)?;
            let kind = if in_class {
                FunctionKind::Method
            } else {
                FunctionKind::Function
            };
            Some((kind, name))
        }
        "method_definition" => {
            node.field("body")?;
            let parent = ancestors.last().copied();
            let name = key_name(node.field("name")?, src);
            let in_class = parent.is_some_and(|p| p.kind_str() == "class_body");
            let kind = if in_class && name == "constructor" {
                FunctionKind::Constructor
            } else {
                FunctionKind::Method
            };
            Some((kind, name))
        }
        _ => None,
    }
}

/// The last `.` component of a name as [`function`] returned it (`bar` for
/// `Foo.prototype.bar`).
pub(crate) fn simple_name(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

pub(crate) fn scope(node: Node, ancestors: &[Node], src: &str) -> Option<String> {
    match node.kind_str() {
        "class_declaration" | "abstract_class_declaration" | "class" => class_name(
            node,
            ancestors.last().copied(),
            src,
        ),
        "internal_module" | "module" => {
            Some(squash(text(node.field("name")?, src)))
        }
        "object" => binding_name(node, ancestors.last().copied(), src),
        _ => None,
    }
}

/// A class's own name, or for an anonymous class expression the name it is bound to.
fn class_name(node: Node, parent: Option<Node>, src: &str) -> Option<String> {
    match node.field("name") {
        Some(n) => Some(text(n, src).to_string()),
        None => binding_name(node, parent, src),
    }
}

/// Functions live in statements and expressions anywhere; every function has a `(` or an
/// `=>` in its text, so a subtree without either holds none (a byte scan is far cheaper
/// than walking the subtree). Declarations and assignments are entered anyway, for the
/// exports and classes [`file_item`] records (`module.exports = f`, `class A extends B {}`).
/// Either way, a subtree is entered only if its text has a word that something found
/// below needs (see [`may_hold_item`]): most statements of a body are plain calls.
pub(crate) fn may_contain_functions(node: Node, src: &str) -> bool {
    if node.child_count() == 0 {
        return false;
    }
    let text = &src[node.byte_range()];
    let entered = matches!(
        node.kind_str(),
        "expression_statement"
            | "assignment_expression"
            | "variable_declaration"
            | "lexical_declaration"
            | "variable_declarator"
            | "class_declaration"
            | "abstract_class_declaration"
            | "class"
    );
    (entered || text.as_bytes().contains(&b'(') || text.contains("=>")) && may_hold_item(text)
}

/// Whether `text` (a subtree without syntax errors) can hold anything that [`function`],
/// [`scope`] or [`file_item`] acts on: a function needs `function` or `=>`, a method its
/// body's `{`; an import `import` or `require`; an export `export` (`exports` too); a class
/// `class`. Scopes matter only for the functions and classes inside them.
fn may_hold_item(text: &str) -> bool {
    text.as_bytes().contains(&b'{')
        || ["function", "=>", "require", "export", "class", "import"]
            .iter()
            .any(|k| text.contains(k))
}

/// The node whose preceding comments document `node`: its `var` declaration, object `pair`
/// (function_parser's rule), and beyond it an `export` statement, an assignment statement
/// or a class field around it; and what the walk knows around that node. The text before
/// the node decides first whether a parent can matter (`=` or `:` before a bound function,
/// `export` or `default` before an exported one).
fn documented_node<'a, 't>(
    node: Node<'t>,
    around: &Around<'a, 't>,
    src: &str,
) -> (Node<'t>, Around<'a, 't>) {
    let before = |n: Node| src[..n.start_byte()].trim_end();
    let (mut base, mut at) = (node, *around);
    let bound = matches!(
        node.kind_str(),
        "function_expression" | "generator_function" | "arrow_function"
    ) && before(node).ends_with(['=', ':']);
    if let (true, Some(p), Some(up)) = (bound, at.parent(), at.up()) {
        match p.kind_str() {
            "variable_declarator" => {
                if let (Some(decl), Some(decl_at)) = (up.parent(), up.up()) {
                    (base, at) = (decl, decl_at);
                }
            }
            "pair" | "field_definition" | "public_field_definition" => (base, at) = (p, up),
            "assignment_expression" => {
                // `a.b = function` and `exports = module.exports = function`.
                let mut top = up;
                while let (Some(u), Some(u_at)) = (top.parent(), top.up()) {
                    if u.kind_str() != "assignment_expression" {
                        break;
                    }
                    top = u_at;
                }
                let stmt = top
                    .parent()
                    .filter(|s| s.kind_str() == "expression_statement");
                if let (Some(stmt), Some(stmt_at)) = (stmt, top.up()) {
                    (base, at) = (stmt, stmt_at);
                }
            }
            _ => {}
        }
    }
    let b = before(base);
    if b.ends_with("export") || b.ends_with("default") {
        let export = at.parent().filter(|p| p.kind_str() == "export_statement");
        if let (Some(p), Some(up)) = (export, at.up()) {
            (base, at) = (p, up);
        }
    }
    (base, at)
}

/// function_parser's `identifier`: the `identifier` child of the function node itself, so
/// an anonymous function expression (`var f = function () {}`, `obj.m = function () {}`)
/// and an arrow function have an empty name, a named one its own name (`var f = function
/// g() {}` is `g`), and no name is qualified by its scope. Methods, which function_parser
/// never took, keep their own name.
pub(crate) fn function_parser_name(node: Node, qualified: &str, src: &str) -> Option<String> {
    let own = match node.kind_str() {
        "function_declaration"
        | "generator_function_declaration"
        | "function_expression"
        | "generator_function"
        | "function" => node.field("name").map_or("", |n| text(n, src)),
        "arrow_function" => "",
        _ => simple_name(qualified),
    };
    (own != qualified).then(|| own.to_string())
}

/// function_parser's rule, quirks included: the comment right before the documented node
/// (even after a blank line), then the comments before that one, going back while no
/// blank line separates one taken comment from the node before it.
pub(crate) fn docstring<'t>(
    node: Node<'t>,
    around: &Around<'_, 't>,
    src: &str,
) -> Option<Docstring<'t>> {
    let (_, at) = documented_node(node, around, src);
    let before = at.before();
    // Decorators of a TypeScript method are its siblings in the class body.
    let mut k = before.len()
        - before
            .iter()
            .rev()
            .take_while(|p| p.kind_str() == "decorator")
            .count();
    let earlier = |k: usize| k.checked_sub(1).and_then(|i| before.get(i)).copied();
    let first = earlier(k).filter(|p| p.kind_str() == "comment")?;
    k -= 1;
    let mut all = vec![first];
    while let Some(p) = earlier(k).filter(|p| p.kind_str() == "comment") {
        all.push(p);
        k -= 1;
        let last_start = p.start_position().row;
        match earlier(k) {
            Some(b) if b.end_position().row + 1 < last_start => break,
            Some(_) => {}
            None => break,
        }
    }
    let parts: Vec<String> = all
        .iter()
        .rev()
        .map(|c| tokens::fp_strip_c_style(text(*c, src)))
        .collect();
    // The summary is taken from the text before `process.py`'s `.strip()` (a leading blank
    // line makes it empty); the published text is stripped.
    let text = parts.join(" ");
    let published = tokens::py_strip(&text).to_string();
    Some(Docstring::with_published(text, published))
}

/// A template string's characters: function_parser's grammar kept them in a hidden token,
/// so they made no code token (`` `hi ${x}` `` gives `` ` ``, `${`, `x`, `}`, `` ` ``).
/// Inside a plain string literal, which is one token, they are never reached.
pub(crate) fn hidden_leaf(kind: &str) -> bool {
    kind == "string_fragment"
}

pub(crate) fn atomic_token(kind: &str) -> bool {
    kind == "string"
}

/// The first argument of `require('x')` (`None` unless `node` is such a call).
fn require_of<'s>(node: Node, src: &'s str) -> Option<&'s str> {
    if node.kind_str() != "call_expression" {
        return None;
    }
    let f = node.field("function")?;
    if f.kind_str() != "identifier" || text(f, src) != "require" {
        return None;
    }
    let arg = named(node.field("arguments")?).next()?;
    (arg.kind_str() == "string").then(|| unquote(text(arg, src)))
}

fn is_module_exports(node: Node, src: &str) -> bool {
    matches!(squash(text(node, src)).as_str(), "module.exports" | "exports")
}

/// Records imports (`import`, `require`, TypeScript's `import x = require()`), exports that
/// name something else (`export ... from`, `export { a as b }`, `export default x`,
/// `module.exports = x`, `exports.a = b`; as [`Import`]s with `reexport` set, `module` empty
/// for the file itself; also the other names of a function assigned in a chain,
/// `a.x = a.y = function`) and classes.
pub(crate) fn file_item(node: Node, scope: &dyn Fn() -> String, src: &str, info: &mut FileInfo) {
    match node.kind_str() {
        "import_statement" => import_statement(node, src, info),
        "export_statement" => export_statement(node, src, info),
        "variable_declarator" => variable_declarator(node, src, info),
        "assignment_expression" => assignment_expression(node, src, info),
        "class_declaration" | "abstract_class_declaration" | "class" => {
            class_item(node, scope, src, info)
        }
        _ => {}
    }
}

/// A variable declarator of [`file_item`]: a default export through an assignment chain
/// (`var app = exports = module.exports = {}`) or a binding of `require` (`require('x').a`,
/// `require('debug')('x')`).
fn variable_declarator(node: Node, src: &str, info: &mut FileInfo) {
    let (Some(name), Some(value)) = (
        node.field("name"),
        node.field("value"),
    ) else {
        return;
    };
    // `var app = exports = module.exports = {}`: the variable is the default export.
    if value.kind_str() == "assignment_expression" && name.kind_str() == "identifier" {
        let mut v = value;
        while v.kind_str() == "assignment_expression" {
            if v.field("left")
                .is_some_and(|l| squash(text(l, src)) == "module.exports")
            {
                info.imports.push(Import {
                    name: Some(text(name, src).to_string()),
                    alias: Some("default".into()),
                    reexport: true,
                    ..Default::default()
                });
                return;
            }
            match v.field("right") {
                Some(r) => v = r,
                None => return,
            }
        }
    }
    // `require('x').a`.
    let (call, member) = match value.kind_str() {
        "member_expression" => match (
            value.field("object"),
            value.field("property"),
        ) {
            (Some(o), Some(p)) => (o, Some(text(p, src).to_string())),
            _ => return,
        },
        _ => (value, None),
    };
    let Some(module) = require_of(call, src) else {
        // `var debug = require('debug')('x')`: what a package's export returns is
        // the package's.
        if let Some(m) = (value.kind_str() == "call_expression")
            .then(|| value.field("function"))
            .flatten()
            .and_then(|f| require_of(f, src))
            .filter(|m| !m.starts_with('.'))
        {
            if name.kind_str() == "identifier" {
                info.imports.push(Import {
                    module: m.to_string(),
                    alias: Some(text(name, src).to_string()),
                    wildcard: true,
                    ..Default::default()
                });
            }
        }
        return;
    };
    match name.kind_str() {
        "identifier" => info.imports.push(Import {
            module: module.to_string(),
            wildcard: member.is_none(),
            name: member,
            alias: Some(text(name, src).to_string()),
            ..Default::default()
        }),
        "object_pattern" if member.is_none() => {
            for p in named(name) {
                let (imported, local) = match p.kind_str() {
                    "shorthand_property_identifier_pattern" => {
                        (text(p, src).to_string(), text(p, src).to_string())
                    }
                    "pair_pattern" => {
                        match (
                            p.field("key"),
                            p.field("value"),
                        ) {
                            (Some(k), Some(v)) if v.kind_str() == "identifier" => {
                                (key_name(k, src), text(v, src).to_string())
                            }
                            _ => continue,
                        }
                    }
                    _ => continue,
                };
                info.imports.push(Import {
                    module: module.to_string(),
                    name: Some(imported),
                    alias: Some(local),
                    ..Default::default()
                });
            }
        }
        _ => {}
    }
}

/// An assignment of [`file_item`]: exports (`module.exports = x`, `{ a, b: c }`,
/// `exports.a = b`) and the other names of a function assigned in a chain
/// (`res.set = res.header = function header() {}`).
fn assignment_expression(node: Node, src: &str, info: &mut FileInfo) {
    let (Some(left), Some(mut right)) = (
        node.field("left"),
        node.field("right"),
    ) else {
        return;
    };
    if is_module_exports(left, src) {
        // `exports = module.exports = x`: the innermost value.
        while right.kind_str() == "assignment_expression" {
            match right.field("right") {
                Some(r) => right = r,
                None => return,
            }
        }
        if right.kind_str() == "identifier" {
            info.imports.push(Import {
                name: Some(text(right, src).to_string()),
                alias: Some("default".into()),
                reexport: true,
                ..Default::default()
            });
        } else if right.kind_str() == "object" {
            // `module.exports = { a, b: c }`.
            for p in named(right) {
                let (alias, value) = match p.kind_str() {
                    "shorthand_property_identifier" => (text(p, src).to_string(), p),
                    "pair" => match (
                        p.field("key"),
                        p.field("value"),
                    ) {
                        (Some(k), Some(v)) if v.kind_str() == "identifier" => {
                            (key_name(k, src), v)
                        }
                        _ => continue,
                    },
                    _ => continue,
                };
                info.imports.push(Import {
                    name: Some(text(value, src).to_string()),
                    alias: Some(alias),
                    reexport: true,
                    ..Default::default()
                });
            }
        } else if let Some(m) = require_of(right, src) {
            info.imports.push(Import {
                module: m.to_string(),
                wildcard: true,
                reexport: true,
                ..Default::default()
            });
        }
    } else if left.kind_str() == "member_expression" && right.kind_str() == "assignment_expression"
    {
        // `res.set = res.header = function header() {}`: the function is named
        // `res.header`, and `res.set` is another name of it.
        let mut inner = right;
        while let Some(r) = inner
            .field("right")
            .filter(|r| r.kind_str() == "assignment_expression")
        {
            inner = r;
        }
        let bound = inner.field("right").is_some_and(|r| {
            matches!(
                r.kind_str(),
                "function_expression" | "generator_function" | "arrow_function"
            )
        });
        if let (true, Some(target)) = (bound, inner.field("left")) {
            info.imports.push(Import {
                name: Some(squash(text(target, src))),
                alias: Some(squash(text(left, src))),
                reexport: true,
                ..Default::default()
            });
        }
    } else if left.kind_str() == "member_expression" && right.kind_str() == "identifier" {
        // `exports.a = b`, `module.exports.a = b`.
        let (Some(o), Some(p)) = (
            left.field("object"),
            left.field("property"),
        ) else {
            return;
        };
        if is_module_exports(o, src) {
            info.imports.push(Import {
                name: Some(text(right, src).to_string()),
                alias: Some(text(p, src).to_string()),
                reexport: true,
                ..Default::default()
            });
        }
    }
}

/// A class of [`file_item`], with its bases and fields, named by its binding when anonymous.
fn class_item(node: Node, scope: &dyn Fn() -> String, src: &str, info: &mut FileInfo) {
    // A class without a name takes its binding's; `Node::parent` searches from the
    // root, so it is asked only then.
    let name = match node.field("name") {
        Some(n) => Some(text(n, src).to_string()),
        None => class_name(node, node.parent(), src),
    };
    let Some(name) = name else {
        return;
    };
    let mut class = ClassInfo {
        name: crate::extract::qualify(&scope(), ".", &name),
        lines: crate::extract::lines_of(node),
        ..Default::default()
    };
    if let Some(h) = named(node).find(|c| c.kind_str() == "class_heritage") {
        heritage(h, src, &mut class.bases);
    }
    if let Some(body) = node.field("body") {
        class_fields(body, src, &mut class.fields);
    }
    info.classes.push(class);
}

fn import_statement(node: Node, src: &str, info: &mut FileInfo) {
    let source = node.field("source");
    for c in named(node) {
        match c.kind_str() {
            "import_clause" => {
                let Some(source) = source else { return };
                let module = unquote(text(source, src)).to_string();
                for part in named(c) {
                    match part.kind_str() {
                        "identifier" => info.imports.push(Import {
                            module: module.clone(),
                            name: Some("default".into()),
                            alias: Some(text(part, src).to_string()),
                            ..Default::default()
                        }),
                        "namespace_import" => {
                            if let Some(id) = named(part).find(|n| n.kind_str() == "identifier") {
                                info.imports.push(Import {
                                    module: module.clone(),
                                    alias: Some(text(id, src).to_string()),
                                    wildcard: true,
                                    ..Default::default()
                                });
                            }
                        }
                        "named_imports" => {
                            for s in named(part).filter(|s| s.kind_str() == "import_specifier") {
                                let Some(n) = s.field("name") else {
                                    continue;
                                };
                                let local = s.field("alias").unwrap_or(n);
                                info.imports.push(Import {
                                    module: module.clone(),
                                    name: Some(key_name(n, src)),
                                    alias: Some(text(local, src).to_string()),
                                    ..Default::default()
                                });
                            }
                        }
                        _ => {}
                    }
                }
            }
            // TypeScript's `import x = require('y')`.
            "import_require_clause" => {
                let (Some(id), Some(s)) = (
                    named(c).find(|n| n.kind_str() == "identifier"),
                    c.field("source"),
                ) else {
                    continue;
                };
                info.imports.push(Import {
                    module: unquote(text(s, src)).to_string(),
                    alias: Some(text(id, src).to_string()),
                    wildcard: true,
                    ..Default::default()
                });
            }
            _ => {}
        }
    }
}

fn export_statement(node: Node, src: &str, info: &mut FileInfo) {
    let module = node
        .field("source")
        .map(|s| unquote(text(s, src)).to_string())
        .unwrap_or_default();
    let mut any = false;
    for c in named(node) {
        match c.kind_str() {
            "export_clause" => {
                any = true;
                for s in named(c).filter(|s| s.kind_str() == "export_specifier") {
                    let Some(n) = s.field("name") else {
                        continue;
                    };
                    let alias = s.field("alias").unwrap_or(n);
                    info.imports.push(Import {
                        module: module.clone(),
                        name: Some(key_name(n, src)),
                        alias: Some(key_name(alias, src)),
                        reexport: true,
                        ..Default::default()
                    });
                }
            }
            "namespace_export" => {
                any = true;
                let alias = named(c).last().map(|a| key_name(a, src));
                info.imports.push(Import {
                    module: module.clone(),
                    alias,
                    wildcard: true,
                    reexport: true,
                    ..Default::default()
                });
            }
            _ => {}
        }
    }
    if !any && !module.is_empty() {
        // `export * from './m'`.
        info.imports.push(Import {
            module,
            wildcard: true,
            reexport: true,
            ..Default::default()
        });
        return;
    }
    // `export default x`.
    if let Some(v) = node.field("value") {
        if v.kind_str() == "identifier" {
            info.imports.push(Import {
                name: Some(text(v, src).to_string()),
                alias: Some("default".into()),
                reexport: true,
                ..Default::default()
            });
        }
    }
    // `export default class Foo {}`.
    if let Some(d) = node.field("declaration") {
        let is_default = (0..node.child_count())
            .filter_map(|i| node.child(i))
            .any(|c| c.kind_str() == "default");
        let name = d.field("name");
        if let (true, Some(n)) = (is_default, name) {
            info.imports.push(Import {
                name: Some(text(n, src).to_string()),
                alias: Some("default".into()),
                reexport: true,
                ..Default::default()
            });
        }
    }
}

/// Base classes: JavaScript's `extends <expression>`, TypeScript's `extends` and
/// `implements` clauses.
fn heritage(h: Node, src: &str, out: &mut Vec<String>) {
    for c in named(h) {
        match c.kind_str() {
            "extends_clause" => {
                if let Some(v) = c.field("value") {
                    out.push(squash(text(v, src)));
                }
            }
            "implements_clause" => {
                for t in named(c) {
                    if let Some(t) = type_name(t, src) {
                        out.push(t);
                    }
                }
            }
            "identifier" | "member_expression" => out.push(squash(text(c, src))),
            _ => {}
        }
    }
}

/// A TypeScript type's name without generic arguments (`Map<K, V>` gives `Map`); `None` for
/// predefined, union, literal and other types without one name.
pub(crate) fn type_name(mut ty: Node, src: &str) -> Option<String> {
    // Down through annotations and generic types to the name (a loop, not recursion: each
    // step goes to a child).
    loop {
        match ty.kind_str() {
            "type_annotation" => ty = named(ty).next()?,
            "generic_type" => ty = ty.field("name")?,
            _ => break,
        }
    }
    match ty.kind_str() {
        "type_identifier" | "nested_type_identifier" | "identifier" => {
            Some(squash(text(ty, src)))
        }
        // Built-in types by their global's name, so their methods are `stdlib`.
        "predefined_type" => match text(ty, src) {
            "string" => Some("String".into()),
            "number" => Some("Number".into()),
            "boolean" => Some("Boolean".into()),
            "bigint" => Some("BigInt".into()),
            "symbol" => Some("Symbol".into()),
            _ => None,
        },
        "array_type" | "tuple_type" => Some("Array".into()),
        _ => None,
    }
}

/// The built-in class of a literal (`[]`, `'s'`, `` `t` ``, `/r/`), for `x = []; x.push()`.
fn literal_type(v: Node) -> Option<String> {
    match v.kind_str() {
        "array" => Some("Array".into()),
        "string" | "template_string" => Some("String".into()),
        "regex" => Some("RegExp".into()),
        _ => None,
    }
}

/// Typed class fields (TypeScript `x: Foo`, `x = new Foo()`) and constructor parameter
/// properties (`constructor(private x: Foo)`).
fn class_fields(body: Node, src: &str, out: &mut Vec<(String, String)>) {
    for m in named(body) {
        match m.kind_str() {
            "public_field_definition" | "field_definition" => {
                let Some(name) = m
                    .field("name")
                    .or_else(|| m.field("property"))
                else {
                    continue;
                };
                let ty = m
                    .field("type")
                    .and_then(|t| type_name(t, src))
                    .or_else(|| m.field("value").and_then(|v| new_type(v, src)));
                if let Some(ty) = ty {
                    out.push((key_name(name, src), ty));
                }
            }
            "method_definition" => {
                let is_ctor = m
                    .field("name")
                    .is_some_and(|n| text(n, src) == "constructor");
                let Some(params) = m.field("parameters").filter(|_| is_ctor) else {
                    continue;
                };
                for p in named(params) {
                    let has_modifier = named(p).any(|c| c.kind_str() == "accessibility_modifier")
                        || text(p, src).starts_with("readonly");
                    if !has_modifier {
                        continue;
                    }
                    if let (Some(pat), Some(ty)) = (
                        p.field("pattern"),
                        p.field("type").and_then(|t| type_name(t, src)),
                    ) {
                        out.push((text(pat, src).to_string(), ty));
                    }
                }
            }
            _ => {}
        }
    }
}

/// The class of `new C(...)`.
fn new_type(v: Node, src: &str) -> Option<String> {
    if v.kind_str() != "new_expression" {
        return None;
    }
    let c = v.field("constructor")?;
    matches!(c.kind_str(), "identifier" | "member_expression").then(|| squash(text(c, src)))
}

/// `f(x)`, `obj.m(x)`, `this.m(x)`, `super(x)`, `super.m(x)`, `new C(x)`. Other callees
/// (`f()(x)`, `a[k](x)`) are kept as written and never resolved; `import()` is no call.
pub(crate) fn call(node: Node, kind: &str, src: &str) -> Option<CallSite> {
    if kind != "call_expression" && kind != "new_expression" {
        return None;
    }
    let line = node.start_position().row as u32 + 1;
    let args = node
        .field("arguments")
        // `<!--` opens an HTML comment.
        .map_or(0, |a| count_named(a, src, b"/<"));
    match kind {
        "call_expression" => {
            let f = node.field("function")?;
            let mut written = squash(text(f, src));
            let (name, kind) = match f.kind_str() {
                "identifier" => (written.clone(), CallKind::Plain),
                "member_expression" => {
                    let o = f.field("object")?;
                    let mut recv = squash(text(o, src));
                    // `new C().m()`: keep the space that tells `new C` from `newC`.
                    if o.kind_str() == "new_expression" {
                        recv.insert(3, ' ');
                        written.insert(3, ' ');
                    }
                    (
                        text(f.field("property")?, src).to_string(),
                        CallKind::Member(recv),
                    )
                }
                "super" => ("constructor".to_string(), CallKind::Member("super".into())),
                "import" => return None,
                _ => (written.clone(), CallKind::Plain),
            };
            Some(CallSite {
                text: written,
                name,
                kind,
                line,
                args,
            })
        }
        "new_expression" => {
            let ty = new_type(node, src)?;
            Some(CallSite {
                text: format!("new {ty}"),
                name: simple_name(&ty).to_string(),
                kind: CallKind::New,
                line,
                args,
            })
        }
        _ => None,
    }
}

/// Variables of a known class: `x = new C()`, and TypeScript's typed variables and
/// parameters (`x: C`).
pub(crate) fn locals(node: Node, kind: &str, src: &str, out: &mut Vec<(String, String)>) {
    match kind {
        "variable_declarator" => {
            let Some(n) = node
                .field("name")
                .filter(|n| n.kind_str() == "identifier")
            else {
                return;
            };
            let ty = node
                .field("type")
                .and_then(|t| type_name(t, src))
                .or_else(|| {
                    let v = node.field("value")?;
                    new_type(v, src).or_else(|| literal_type(v))
                });
            if let Some(ty) = ty {
                out.push((text(n, src).to_string(), ty));
            }
        }
        "required_parameter" | "optional_parameter" => {
            if let (Some(p), Some(ty)) = (
                node.field("pattern")
                    .filter(|p| p.kind_str() == "identifier"),
                node.field("type")
                    .and_then(|t| type_name(t, src)),
            ) {
                out.push((text(p, src).to_string(), ty));
            }
        }
        _ => {}
    }
}

pub(crate) fn details(node: Node, src: &str) -> Details {
    let mut d = Details {
        is_static: (0..node.child_count())
            .filter_map(|i| node.child(i))
            .take_while(|c| c.kind_str() != "formal_parameters")
            .any(|c| c.kind_str() == "static"),
        ..Default::default()
    };
    let params = node
        .field("parameters")
        .or_else(|| node.field("parameter"));
    if let Some(params) = params {
        if params.kind_str() == "identifier" {
            d.params = 1;
        }
        for p in named(params) {
            d.params += 1;
            if p.kind_str() == "rest_pattern" || text(p, src).starts_with("...") {
                d.variadic = true;
            }
        }
    }
    d
}

/// The parameter names of a JavaScript or TypeScript function: identifiers, the target of
/// a default (`x = 1`), a rest parameter with its `...`; TypeScript's typed and optional
/// parameters by their pattern. Destructuring patterns and TypeScript's `this` are left out.
pub(crate) fn param_names(node: Node, src: &str) -> Vec<String> {
    let params = node
        .field("parameters")
        .or_else(|| node.field("parameter"));
    let Some(params) = params else {
        return Vec::new();
    };
    // An arrow function's one bare parameter (`x => x`).
    if params.kind_str() == "identifier" {
        return vec![text(params, src).to_string()];
    }
    named(params)
        .filter_map(|p| {
            let p = match p.kind_str() {
                "required_parameter" | "optional_parameter" => p.field("pattern")?,
                "assignment_pattern" => p.field("left")?,
                _ => p,
            };
            match p.kind_str() {
                "identifier" | "rest_pattern" => Some(text(p, src).to_string()),
                _ => None,
            }
        })
        .collect()
}

/// Implements [`crate::extract::LanguageSpec`] for a JavaScript-family language with the
/// shared functions above; `$grammar` is its main grammar.
/// `dialects: |path| ..., |dialect| ...` adds grammars chosen by path (TypeScript's TSX).
macro_rules! ecma_spec {
    ($ty:ty, $name:literal, $grammar:expr) => {
        $crate::javascript::extract::ecma_spec!(@impl $ty, $name, $grammar, {});
    };
    ($ty:ty, $name:literal, $grammar:expr, dialects: $dialect:expr, $dialect_grammar:expr) => {
        $crate::javascript::extract::ecma_spec!(@impl $ty, $name, $grammar, {
            fn dialect(&self, path: &str) -> u8 {
                ($dialect)(path)
            }
            fn dialect_grammar(&self, dialect: u8) -> tree_sitter::Language {
                ($dialect_grammar)(dialect)
            }
        });
    };
    (@impl $ty:ty, $name:literal, $grammar:expr, { $($extra:tt)* }) => {
        impl $crate::extract::LanguageSpec for $ty {
            $($extra)*
            fn name(&self) -> &'static str {
                $name
            }
            /// `$` starts an item too.
            fn starts_item(&self, rest: &[u8]) -> bool {
                $crate::extract::window::starts_named_item(rest, true)
            }
            fn grammar(&self) -> tree_sitter::Language {
                $grammar
            }
            fn function(
                &self,
                node: tree_sitter::Node,
                ancestors: &[tree_sitter::Node],
                src: &str,
            ) -> Option<($crate::extract::FunctionKind, String)> {
                $crate::javascript::extract::function(node, ancestors, src)
            }
            fn scope(
                &self,
                node: tree_sitter::Node,
                ancestors: &[tree_sitter::Node],
                src: &str,
            ) -> Option<String> {
                $crate::javascript::extract::scope(node, ancestors, src)
            }
            fn function_kinds(&self) -> Option<&'static [&'static str]> {
                Some($crate::javascript::extract::FUNCTION_KINDS)
            }
            fn scope_kinds(&self) -> Option<&'static [&'static str]> {
                Some($crate::javascript::extract::SCOPE_KINDS)
            }
            fn file_item_kinds(&self) -> Option<&'static [&'static str]> {
                Some($crate::javascript::extract::FILE_ITEM_KINDS)
            }
            fn visit_kinds(&self) -> Option<&'static [&'static str]> {
                Some($crate::javascript::extract::VISIT_KINDS)
            }
            fn may_contain_functions(&self, node: tree_sitter::Node, src: &str) -> bool {
                $crate::javascript::extract::may_contain_functions(node, src)
            }
            fn docstring<'t>(
                &self,
                node: tree_sitter::Node<'t>,
                around: &$crate::extract::Around<'_, 't>,
                src: &str,
            ) -> Option<$crate::extract::Docstring<'t>> {
                $crate::javascript::extract::docstring(node, around, src)
            }
            fn atomic_token(&self, kind: &str) -> bool {
                $crate::javascript::extract::atomic_token(kind)
            }
            fn opens_function(&self, text: &str, _before: [Option<&str>; 2]) -> bool {
                text == "function"
            }
            fn hidden_leaf(&self, kind: &str) -> bool {
                $crate::javascript::extract::hidden_leaf(kind)
            }
            fn simple_name<'a>(&self, name: &'a str) -> &'a str {
                $crate::javascript::extract::simple_name(name)
            }
            fn file_item(
                &self,
                node: tree_sitter::Node,
                scope: &dyn Fn() -> String,
                src: &str,
                info: &mut $crate::extract::FileInfo,
            ) {
                $crate::javascript::extract::file_item(node, scope, src, info)
            }
            fn call(
                &self,
                node: tree_sitter::Node,
                kind: &str,
                src: &str,
            ) -> Option<$crate::extract::CallSite> {
                $crate::javascript::extract::call(node, kind, src)
            }
            fn locals(
                &self,
                node: tree_sitter::Node,
                kind: &str,
                src: &str,
                out: &mut Vec<(String, String)>,
            ) {
                $crate::javascript::extract::locals(node, kind, src, out)
            }
            fn function_parser_name(
                &self,
                node: tree_sitter::Node,
                qualified: &str,
                src: &str,
            ) -> Option<String> {
                $crate::javascript::extract::function_parser_name(node, qualified, src)
            }
            fn details(&self, node: tree_sitter::Node, src: &str) -> $crate::extract::Details {
                $crate::javascript::extract::details(node, src)
            }
            fn param_names(&self, node: tree_sitter::Node, src: &str) -> Vec<String> {
                $crate::javascript::extract::param_names(node, src)
            }
        }
    };
}
pub(crate) use ecma_spec;

ecma_spec!(
    super::JavaScript,
    "javascript",
    tree_sitter_javascript::LANGUAGE.into()
);

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::{Lang, Registry};

    fn docs(src: &str) -> Vec<(String, Option<String>)> {
        let out = Extractor::default()
            .extract(Lang::JavaScript, src)
            .expect("parses");
        out.functions
            .into_iter()
            .map(|f| (f.qualified_name, f.docstring))
            .collect()
    }

    /// function_parser's comment rule, quirks included (worked out from
    /// `javascript_parser.py`'s loop by hand).
    #[test]
    fn comments_before_a_function_as_function_parser_takes_them() {
        // The comment right before counts even after a blank line; so does the one before
        // it; the walk back stops at the first blank line after that.
        let src = "// header\n\n// a\n\n/** b */\n\nfunction f() {}\n";
        assert_eq!(docs(src), [("f".into(), Some("a b".into()))]);
        // A comment that ends a line of code is a sibling like any other.
        let src = "x(); // t\nfunction h() {}\n";
        assert_eq!(docs(src), [("h".into(), Some("t".into()))]);
        // Function expressions: the comment before the declaration or the pair.
        let src = "/** v */\nvar v = function () {};\nvar o = {\n  // k\n  k: function () {},\n};\n";
        assert_eq!(
            docs(src),
            [("v".into(), Some("v".into())), ("o.k".into(), Some("k".into()))]
        );
        // A callback is no function of its own; a comment after code is no docstring.
        let src = "function g() {\n  run(function () {});\n}\n";
        assert_eq!(docs(src), [("g".into(), None)]);
    }

    /// A template string's characters are no tokens (function_parser's grammar hid them);
    /// a plain string literal is one token.
    #[test]
    fn template_characters_are_no_tokens() {
        let out = Extractor::default()
            .extract(Lang::JavaScript, "function t(n) { return `hi ${n}!` + 'x y'; }\n")
            .expect("parses");
        assert_eq!(
            out.functions[0].code_tokens.to_vec(),
            [
                "function", "t", "(", "n", ")", "{", "return", "`", "${", "n", "}", "`", "+",
                "'x y'", ";", "}"
            ]
        );
    }
}
