//! Ruby: instance methods (`def m`), singleton methods (`def self.m`, `def obj.m`, and
//! `def m` inside `class << self`), in classes, modules, blocks and at top level, nested
//! `def`s included. Blocks, procs and lambdas are anonymous and not extracted.
//!
//! The rules follow CodeSearchNet's `function_parser` (`ruby_parser.py`) where it has one:
//! `func_name` is the enclosing classes and modules joined by `.` as written (`A.B::C.m`),
//! the docstring is the run of `#` comments right before the `def` with each line stripped
//! of `#` (blank lines between comments and `def` do not break the run, as there), and string
//! literals are single code tokens. function_parser only took `def` methods directly inside a
//! class or module that is itself directly inside a top-level module; codemine takes every
//! method and singleton method. It differs on purpose in one place: an `=begin`/`=end` block
//! comment gives its inner lines, without the `=begin` and `=end` markers.

use tree_sitter::Node;

use crate::extract::grammar::NodeExt;

use crate::extract::{
    named, squash, text, tokens, Around, CallKind, CallSite, ClassInfo, Details, Docstring,
    FileInfo,
    FunctionKind, Import, LanguageSpec, Place,
};

use super::Ruby;

/// Receivers kept as written in a call's text; any other receiver spanning lines (a chain
/// with blocks, say) is written `(...)`, its type being unknown anyway.
const SIMPLE_RECEIVERS: [&str; 9] = [
    "identifier",
    "constant",
    "scope_resolution",
    "self",
    "instance_variable",
    "class_variable",
    "global_variable",
    "string",
    "simple_symbol",
];

/// Field ids of the grammar, looked up once: `child_by_field_name` searches the field
/// names on every call.
struct Fields {
    arguments: u16,
    block: u16,
    left: u16,
    method: u16,
    name: u16,
    operator: u16,
    parameters: u16,
    receiver: u16,
    right: u16,
    superclass: u16,
}

fn fields() -> &'static Fields {
    static FIELDS: std::sync::OnceLock<Fields> = std::sync::OnceLock::new();
    FIELDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_ruby::LANGUAGE.into();
        // An unknown name gives 0, which no child has: the lookups then find nothing.
        let id = |n: &str| lang.field_id_for_name(n).map_or(0, |f| f.get());
        Fields {
            arguments: id("arguments"),
            block: id("block"),
            left: id("left"),
            method: id("method"),
            name: id("name"),
            operator: id("operator"),
            parameters: id("parameters"),
            receiver: id("receiver"),
            right: id("right"),
            superclass: id("superclass"),
        }
    })
}

/// A class's [`ClassInfo::bases`] hold its superclass as `< Name`, the modules it `extend`s
/// as `extend Name` (a space cannot appear in a constant), and the modules it `include`s or
/// `prepend`s as written: each adds to a different side of the class.
pub(crate) const EXTEND_PREFIX: &str = "extend ";
/// See [`EXTEND_PREFIX`].
pub(crate) const SUPER_PREFIX: &str = "< ";

/// The methods that `attr_reader` and the like (and `define_method(:m)`) define in a class
/// body are [`ClassInfo::fields`] `(name, ATTR)`, or `(name, ATTR_SELF)` in `class << self`.
pub(crate) const ATTR: &str = "attr";
/// See [`ATTR`].
pub(crate) const ATTR_SELF: &str = "attr self";

/// A constant assigned a value that is not a class (`VERSION = "1.0"`) is recorded as a
/// [`ClassInfo`] with this field, so that calls on it are not taken for a gem's constant.
pub(crate) const VALUE_FIELD: (&str, &str) = ("=", "value");

/// If `node` is `Const = Class.new(Base) do ... end` (or `Struct.new`, `Module.new`,
/// `Data.define`), the constant and the class it derives from (`Base`, `Struct`; none for
/// `Module.new`). `Some((name, None))` for a constant assigned any other value.
fn constant_assignment<'s>(node: Node, src: &'s str) -> Option<(&'s str, Option<String>)> {
    let left = node.child_by_field_id(fields().left)?;
    if left.kind_str() != "constant" {
        return None;
    }
    let name = text(left, src);
    let Some(right) = node.child_by_field_id(fields().right).filter(|r| r.kind_str() == "call") else {
        return Some((name, None));
    };
    let recv = right.child_by_field_id(fields().receiver).map(|r| text(r, src));
    let method = right.child_by_field_id(fields().method).map(|m| text(m, src));
    match (recv, method) {
        // `Class.new` without a base derives from Object.
        (Some("Class" | "Struct"), Some("new")) | (Some("Data"), Some("define")) => Some((
            name,
            Some(superclass_name(right, src).filter(|b| b != "Class").unwrap_or_default()),
        )),
        (Some("Module"), Some("new")) => Some((name, Some(String::new()))),
        _ => Some((name, None)),
    }
}

/// Whether `node` is a constant assigned a class built with a block, whose `def`s are the
/// class's methods.
fn class_with_block(node: Node, src: &str) -> Option<String> {
    let (name, class) = constant_assignment(node, src)?;
    class?;
    let right = node.child_by_field_id(fields().right)?;
    right.child_by_field_id(fields().block)?;
    Some(name.to_string())
}

impl LanguageSpec for Ruby {
    fn name(&self) -> &'static str {
        "ruby"
    }
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_ruby::LANGUAGE.into()
    }

    fn function(
        &self,
        node: Node,
        ancestors: &[Node],
        src: &str,
    ) -> Option<(FunctionKind, String)> {
        let kind = node.kind_str();
        if kind != "method" && kind != "singleton_method" {
            return None;
        }
        let name = text(node.child_by_field_id(fields().name)?, src).to_string();
        if kind == "method" && !ancestors.is_empty() {
            // `details` asks next whether this `def` is in `class << self`; the ancestors
            // answer without `Node::parent`, which descends from the root.
            let mut up = ancestors.iter().rev();
            let mut p = up.next();
            if p.is_some_and(|a| a.kind_str() == "body_statement") {
                p = up.next();
            }
            let single = p.is_some_and(|a| a.kind_str() == "singleton_class");
            SINGLETON_DEF.with(|c| c.set(Some((node.id(), single))));
        }
        // A `def` in a block (`describe do`, `included do`) defines a method on the block's
        // self, not a top-level function visible everywhere.
        let in_class = in_class(ancestors, src);
        let kind = match (in_class || kind == "singleton_method", name.as_str()) {
            (true, "initialize") if kind == "method" => FunctionKind::Constructor,
            (true, _) => FunctionKind::Method,
            (false, _) => FunctionKind::Function,
        };
        Some((kind, name))
    }

    /// Node ids are addresses, reused by the next tree: [`in_class`]'s answers are forgotten.
    fn new_tree(&self) {
        IN_CLASS.with(|m| m.borrow_mut().clear());
    }

    fn scope(&self, node: Node, _ancestors: &[Node], src: &str) -> Option<String> {
        match node.kind_str() {
            "class" | "module" => Some(squash(text(node.child_by_field_id(fields().name)?, src))),
            "assignment" => class_with_block(node, src),
            _ => None,
        }
    }

    /// A `def` can sit in any statement (a block of a call, an `if`), never in a leaf and
    /// never in an expression that does not spell `def`: a byte scan is cheaper than
    /// walking the subtree.
    fn may_contain_functions(&self, node: Node, src: &str) -> bool {
        let spells_def = |from: usize| {
            src.as_bytes()[from.min(node.end_byte())..node.end_byte()]
                .windows(3)
                .any(|w| w == b"def")
        };
        match node.kind_str() {
            "program" | "body_statement" | "class" | "module" | "singleton_class" => true,
            // Past its own `def`: most methods hold no other, and their bodies are skipped.
            "method" | "singleton_method" => spells_def(node.start_byte() + 3),
            _ if node.child_count() == 0 => false,
            _ => spells_def(node.start_byte()),
        }
    }

    /// function_parser's rule: the comments right before the method among its siblings,
    /// however many blank lines lie between. Comments before a class body's first
    /// statement are children of the class, not of its body, so the run continues there.
    fn docstring<'t>(
        &self,
        _node: Node<'t>,
        around: &Around<'_, 't>,
        src: &str,
    ) -> Option<Docstring<'t>> {
        // The walk's lists of earlier siblings: `Node::parent` and a pass over the parent's
        // children for every method made a class of many methods quadratic.
        let mut comments: Vec<Node> = Vec::new();
        let mut at = *around;
        while let Some(parent) = at.parent() {
            let before = at.before();
            let run = before
                .iter()
                .rev()
                .take_while(|n| n.kind_str() == "comment")
                .count();
            // This level's run comes before the inner level's in the source.
            let mut all = before[before.len() - run..].to_vec();
            all.append(&mut comments);
            comments = all;
            if !(run == before.len() && parent.kind_str() == "body_statement") {
                break;
            }
            let Some(up) = at.up() else { break };
            at = up;
        }
        if comments.is_empty() {
            return None;
        }
        let lines: Vec<&str> = comments
            .iter()
            .flat_map(|c| comment_lines(text(*c, src)))
            .collect();
        // function_parser's text: each comment node stripped of whitespace and of `#` at
        // both ends, joined by newlines, then stripped (`process.py`), so continuation lines
        // keep the space after `#` and an `=begin` block keeps its markers.
        let published: Vec<&str> = comments
            .iter()
            .map(|c| tokens::py_strip(text(*c, src)).trim_matches('#'))
            .collect();
        Some(Docstring::with_published(
            lines.join("\n").trim().to_string(),
            tokens::py_strip(&published.join("\n")).to_string(),
        ))
    }

    /// The `def` keyword opens a function in text that tree-sitter could not parse.
    fn opens_function(&self, text: &str, _before: [Option<&str>; 2]) -> bool {
        text == "def"
    }

    /// A string literal is one token (function_parser's `string` rule), and so is a word
    /// of `%w()`/`%i()`: the grammar function_parser used had it as a node whose
    /// characters were hidden.
    fn atomic_token(&self, kind: &str) -> bool {
        matches!(kind, "string" | "bare_string" | "bare_symbol")
    }

    /// The characters of a quoted symbol, a regex, a backtick command or a heredoc were the
    /// scanner's hidden `_string_content`/`_heredoc_content` in that grammar (2019): such a
    /// literal gave its delimiters, escape sequences and interpolations only
    /// (`:"#{name}="` is `:"`, `#{`, `name`, `}`, `"`; `/^\d+$/` is `/`, `\d`, `/`).
    fn hidden_leaf(&self, kind: &str) -> bool {
        matches!(kind, "string_content" | "heredoc_content")
    }

    fn file_item(&self, node: Node, scope: &dyn Fn() -> String, src: &str, info: &mut FileInfo) {
        match node.kind_str() {
            "class" | "module" => {
                let Some(name) = node.child_by_field_id(fields().name) else {
                    return;
                };
                let mut class = ClassInfo {
                    name: crate::extract::qualify(&scope(), ".", &squash(text(name, src))),
                    lines: crate::extract::lines_of(node),
                    ..Default::default()
                };
                if let Some(sup) = node
                    .child_by_field_id(fields().superclass)
                    .and_then(|s| named(s).next())
                {
                    class
                        .bases
                        .extend(superclass_name(sup, src).map(|b| format!("{SUPER_PREFIX}{b}")));
                }
                info.classes.push(class);
            }
            "assignment" => {
                let Some((name, class)) = constant_assignment(node, src) else {
                    return;
                };
                let name = crate::extract::qualify(&scope(), ".", name);
                info.classes.push(match class {
                    Some(base) => ClassInfo {
                        name,
                        lines: crate::extract::lines_of(node),
                        bases: Some(base)
                            .filter(|b| !b.is_empty())
                            .map(|b| format!("{SUPER_PREFIX}{b}"))
                            .into_iter()
                            .collect(),
                        ..Default::default()
                    },
                    None => ClassInfo {
                        name,
                        lines: crate::extract::lines_of(node),
                        fields: vec![(VALUE_FIELD.0.to_string(), VALUE_FIELD.1.to_string())],
                        ..Default::default()
                    },
                });
            }
            "call" if node.child_by_field_id(fields().receiver).is_none() => {
                let Some(method) = node.child_by_field_id(fields().method) else {
                    return;
                };
                let args = node.child_by_field_id(fields().arguments);
                match text(method, src) {
                    m @ ("include" | "extend" | "prepend") => {
                        let Some(args) = args else { return };
                        let outer = scope();
                        // A top-level mixin goes into Object: not followed.
                        let Some(class) = info.classes.iter_mut().rev().find(|c| c.name == outer)
                        else {
                            return;
                        };
                        for a in named(args)
                            .filter(|a| matches!(a.kind_str(), "constant" | "scope_resolution"))
                        {
                            let name = squash(text(a, src));
                            class.bases.push(if m == "extend" {
                                format!("{EXTEND_PREFIX}{name}")
                            } else {
                                name
                            });
                        }
                    }
                    "attr_reader" | "attr_accessor" | "attr_writer" | "attr" | "define_method" => {
                        let Some(args) = args else { return };
                        let outer = scope();
                        let Some(class) = info.classes.iter_mut().rev().find(|c| c.name == outer)
                        else {
                            return;
                        };
                        let side = if in_singleton_class(node) {
                            ATTR_SELF
                        } else {
                            ATTR
                        };
                        let define = text(method, src) == "define_method";
                        for a in named(args).take(if define { 1 } else { usize::MAX }) {
                            let name = match a.kind_str() {
                                "simple_symbol" => text(a, src).trim_start_matches(':'),
                                _ => continue,
                            };
                            class.fields.push((name.to_string(), side.to_string()));
                        }
                    }
                    m @ ("require" | "require_relative" | "load" | "autoload") => {
                        let Some(args) = args else { return };
                        // `autoload :Const, "path"` names the file second.
                        let arg = if m == "autoload" {
                            named(args).nth(1)
                        } else {
                            named(args).next()
                        };
                        if let Some(path) = arg.and_then(|a| plain_string(a, src)) {
                            info.imports.push(Import {
                                module: path.to_string(),
                                level: u32::from(m == "require_relative"),
                                ..Default::default()
                            });
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// `m(x)`, `m x` (implicit self), `recv.m`, `Const::m`, `Const.new`, and `super`; a
    /// bare `m` without arguments or parentheses is no call site: tree-sitter cannot tell
    /// it from a local variable.
    fn call(&self, node: Node, kind: &str, src: &str) -> Option<CallSite> {
        let line = node.start_position().row as u32 + 1;
        if kind == "super" {
            return Some(CallSite {
                text: "super".to_string(),
                name: "super".to_string(),
                kind: CallKind::Plain,
                line,
                args: 0,
            });
        }
        if kind != "call" {
            return None;
        }
        let method = node.child_by_field_id(fields().method);
        // `super(x)`: the `super` child is the call site.
        if method.is_some_and(|m| m.kind_str() == "super") {
            return None;
        }
        let arguments = node.child_by_field_id(fields().arguments);
        let name = method.map_or_else(|| "call".to_string(), |m| text(m, src).to_string());
        let args = arguments.map_or(0, |a| named(a).count() as u32);
        let (kind, text) = match node.child_by_field_id(fields().receiver) {
            None => (CallKind::Plain, name.clone()),
            Some(r) => {
                let written = text(r, src);
                let recv = if SIMPLE_RECEIVERS.contains(&r.kind_str()) || !written.contains('\n') {
                    squash(written)
                } else {
                    "(...)".to_string()
                };
                let op = node
                    .child_by_field_id(fields().operator)
                    .map_or(".", |o| text(o, src));
                let text = match method {
                    Some(_) => format!("{recv}{op}{name}"),
                    None => format!("{recv}{op}()"),
                };
                (CallKind::Member(recv), text)
            }
        };
        Some(CallSite {
            text,
            name,
            kind,
            line,
            args,
        })
    }

    /// A bare identifier is a local variable when a parameter or an assignment declared it
    /// earlier in the function, as Ruby's parser decides; otherwise, in an expression, it
    /// is a call on `self` without arguments (`save`, `settings`).
    fn visit(
        &self,
        node: Node,
        kind: &str,
        src: &str,
        place: Place,
        calls: &mut Vec<CallSite>,
        locals: &mut Vec<(String, String)>,
    ) {
        if kind != "identifier" {
            if let Some(c) = self.call(node, kind, src) {
                calls.push(c);
            }
            self.locals(node, kind, src, locals);
            return;
        }
        let name = text(node, src);
        match identifier_role(place) {
            // `x = Const.new` recorded the class already.
            Role::Binding if locals.last().is_none_or(|(n, _)| n != name) => {
                locals.push((name.to_string(), String::new()));
            }
            Role::Expression if !locals.iter().any(|(n, _)| n == name) => {
                calls.push(CallSite {
                    text: name.to_string(),
                    name: name.to_string(),
                    kind: CallKind::Plain,
                    line: node.start_position().row as u32 + 1,
                    args: 0,
                });
            }
            _ => {}
        }
    }

    /// `x = Const.new(...)` (also `x ||= ...`): `x` holds an instance of `Const`.
    fn locals(&self, node: Node, kind: &str, src: &str, out: &mut Vec<(String, String)>) {
        if kind != "assignment" && kind != "operator_assignment" {
            return;
        }
        let (Some(left), Some(right)) = (
            node.child_by_field_id(fields().left),
            node.child_by_field_id(fields().right),
        ) else {
            return;
        };
        if left.kind_str() != "identifier" || right.kind_str() != "call" {
            return;
        }
        let (Some(recv), Some(method)) = (
            right.child_by_field_id(fields().receiver),
            right.child_by_field_id(fields().method),
        ) else {
            return;
        };
        if text(method, src) == "new" && matches!(recv.kind_str(), "constant" | "scope_resolution") {
            out.push((text(left, src).to_string(), squash(text(recv, src))));
        }
    }

    fn details(&self, node: Node, _src: &str) -> Details {
        let known = SINGLETON_DEF
            .with(|c| c.get())
            .filter(|(id, _)| *id == node.id());
        let is_static = node.kind_str() == "singleton_method"
            || known.map_or_else(|| in_singleton_class(node), |(_, single)| single);
        let mut d = Details {
            is_static,
            ..Default::default()
        };
        if let Some(params) = node.child_by_field_id(fields().parameters) {
            for p in named(params) {
                match p.kind_str() {
                    "identifier" | "optional_parameter" | "keyword_parameter"
                    | "destructured_parameter" => d.params += 1,
                    "splat_parameter" | "hash_splat_parameter" | "forward_parameter" => {
                        d.variadic = true
                    }
                    _ => {}
                }
            }
        }
        d
    }

    /// `x`, `x = 1`, `x:`, `*args`, `**opts`, `&block` (a splat's text is its sigil and
    /// name); destructuring `(a, b)` is left out.
    fn param_names(&self, node: Node, src: &str) -> Vec<String> {
        let Some(params) = node.child_by_field_id(fields().parameters) else {
            return Vec::new();
        };
        named(params)
            .filter_map(|p| match p.kind_str() {
                "identifier" | "splat_parameter" | "hash_splat_parameter" | "block_parameter"
                | "forward_parameter" => Some(text(p, src).to_string()),
                "optional_parameter" | "keyword_parameter" => {
                    p.field("name").map(|n| text(n, src).to_string())
                }
                _ => None,
            })
            .collect()
    }
}

/// What an identifier is where it stands.
enum Role {
    /// It declares a local variable (a parameter, an assignment's target, a pattern).
    Binding,
    /// It is read: a local variable, or else a method call.
    Expression,
    /// A name that is neither (a method's name in its call or definition, an alias).
    Name,
}

fn identifier_role(place: Place) -> Role {
    let Some(parent) = place.parent_kind() else {
        return Role::Expression;
    };
    match parent {
        "method_parameters" | "lambda_parameters" | "block_parameters" | "splat_parameter"
        | "hash_splat_parameter" | "block_parameter" | "destructured_parameter"
        | "left_assignment_list" | "destructured_left_assignment" | "rest_assignment"
        | "exception_variable" | "array_pattern" | "find_pattern" | "hash_pattern"
        | "alternative_pattern" | "keyword_pattern" => Role::Binding,
        "call" | "method" | "singleton_method" | "optional_parameter" | "keyword_parameter"
        | "assignment" | "operator_assignment" | "for" | "in_clause" | "as_pattern" => {
            match (parent, place.field_name()) {
                ("call", Some("method")) => Role::Name,
                ("method" | "singleton_method", Some("name" | "object")) => Role::Name,
                ("optional_parameter" | "keyword_parameter" | "as_pattern", Some("name")) => {
                    Role::Binding
                }
                ("assignment" | "operator_assignment", Some("left")) => Role::Binding,
                ("for" | "in_clause", Some("pattern")) => Role::Binding,
                _ => Role::Expression,
            }
        }
        "alias" | "undef" | "setter" | "scope_resolution" => Role::Name,
        _ => Role::Expression,
    }
}

/// Whether one of `ancestors` is a class, module or block (a `def` there defines a method).
/// Asked for every `def`, a scan of all the ancestors made functions nested `d` deep cost
/// time quadratic in `d`; the answer for each ancestor is kept for the next `def` of the
/// same tree ([`LanguageSpec::new_tree`] forgets them), whose ancestors share a prefix.
fn in_class(ancestors: &[Node], src: &str) -> bool {
    IN_CLASS.with(|cell| {
        let mut memo = cell.borrow_mut();
        // An entry at the same depth for the same node holds for the whole prefix: both
        // lists are paths down the same tree, with as many nodes above it.
        memo.truncate(ancestors.len());
        while let Some(&(id, _)) = memo.last() {
            if ancestors.get(memo.len() - 1).is_some_and(|a| a.id() == id) {
                break;
            }
            memo.pop();
        }
        for a in &ancestors[memo.len()..] {
            let here = match a.kind_str() {
                "class" | "module" | "singleton_class" | "block" | "do_block" => true,
                "assignment" => class_with_block(*a, src).is_some(),
                _ => false,
            };
            let above = memo.last().is_some_and(|&(_, v)| v);
            memo.push((a.id(), above || here));
        }
        memo.last().is_some_and(|&(_, v)| v)
    })
}

thread_local! {
    /// [`in_class`]'s answers for the ancestors of the last `def` asked about: (node id,
    /// whether it or a node above it is a class, module or block).
    static IN_CLASS: std::cell::RefCell<Vec<(usize, bool)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// The last `def` that [`LanguageSpec::function`] saw with its ancestors, and whether
    /// it sits in `class << self`.
    static SINGLETON_DEF: std::cell::Cell<Option<(usize, bool)>> =
        const { std::cell::Cell::new(None) };
}

/// Whether `node` (a `def`, an `attr_reader` call) sits directly in a `class << self` body.
fn in_singleton_class(node: Node) -> bool {
    let mut up = node.parent();
    if up.is_some_and(|p| p.kind_str() == "body_statement") {
        up = up.and_then(|p| p.parent());
    }
    up.is_some_and(|p| p.kind_str() == "singleton_class")
}

/// The class a superclass expression names: `Base`, `A::Base`, and the `Struct` or `Base`
/// of `Struct.new(:a)` and `Class.new(Base)`.
fn superclass_name(sup: Node, src: &str) -> Option<String> {
    match sup.kind_str() {
        "constant" | "scope_resolution" => Some(squash(text(sup, src))),
        "call" => {
            let recv = sup.child_by_field_id(fields().receiver)?;
            let first_arg = sup
                .child_by_field_id(fields().arguments)
                .and_then(|a| named(a).next())
                .filter(|a| matches!(a.kind_str(), "constant" | "scope_resolution"));
            match (text(recv, src), first_arg) {
                ("Class", Some(base)) => Some(squash(text(base, src))),
                _ if matches!(recv.kind_str(), "constant" | "scope_resolution") => {
                    Some(squash(text(recv, src)))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The text of a string literal without interpolation (`'json'`, `"a/b"`).
fn plain_string<'s>(node: Node, src: &'s str) -> Option<&'s str> {
    if node.kind_str() != "string" {
        return None;
    }
    let mut parts = named(node);
    let content = parts.next()?;
    (content.kind_str() == "string_content" && parts.next().is_none()).then(|| text(content, src))
}

/// The docstring lines of one comment: `# text` gives `text` (function_parser's
/// `strip().strip('#')`, then trimmed); an `=begin`/`=end` block gives its inner lines.
fn comment_lines(comment: &str) -> Vec<&str> {
    let t = comment.trim();
    if let Some(inner) = t.strip_prefix("=begin") {
        let mut lines: Vec<&str> = inner.lines().map(str::trim).collect();
        // The rest of the `=begin` line is a comment too; `=end` closes.
        if lines.last().is_some_and(|l| l.starts_with("=end")) {
            lines.pop();
        }
        return lines;
    }
    t.lines()
        .map(|l| l.trim().trim_matches('#').trim())
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::{Lang, Registry};

    fn extract(src: &str) -> crate::extract::FileFunctions {
        Extractor::default()
            .extract(Lang::Ruby, src)
            .expect("parses")
    }

    #[test]
    fn methods_and_singleton_methods_are_qualified_by_class_and_module() {
        let out = extract(
            "module A\n  class B::C < Base\n    def m; end\n    def self.s; end\n    \
             class << self\n      def t = 1\n    end\n  end\nend\ndef top; end\n",
        );
        let names: Vec<(&str, bool)> = out
            .functions
            .iter()
            .map(|f| (f.qualified_name.as_str(), f.details.is_static))
            .collect();
        assert_eq!(
            names,
            [
                ("A.B::C.m", false),
                ("A.B::C.s", true),
                ("A.B::C.t", true),
                ("top", false)
            ]
        );
        assert_eq!(out.info.classes[1].name, "A.B::C");
        assert_eq!(out.info.classes[1].bases, ["< Base"]);
    }

    #[test]
    fn docstring_is_the_comment_run_before_def_blank_lines_included() {
        let out = extract(
            "class K\n  # first\n  ## second ##\n\n  def a\n  end\n\n  x = 1 # not a doc\n  \
             def b; end\n  def c; end\n=begin\nBlock doc\n=end\n  def d; end\nend\n",
        );
        let docs: Vec<Option<&str>> = out
            .functions
            .iter()
            .map(|f| f.docstring.as_deref())
            .collect();
        // function_parser also takes a comment that trails the statement before (`b`).
        assert_eq!(
            docs,
            [
                Some("first\nsecond"),
                Some("not a doc"),
                None,
                Some("Block doc")
            ]
        );
    }

    #[test]
    fn strings_are_single_tokens_and_calls_are_found() {
        let out = extract(
            "def f(a)\n  puts \"x#{a}\"\n  Foo::Bar.new(1).run\n  super(a)\n  b = Baz.new\n  \
             b.go\n  a\nend\n",
        );
        let f = &out.functions[0];
        assert!(f.code_tokens.to_vec().contains(&"\"x#{a}\"".to_string()));
        let calls: Vec<(&str, &str)> = f
            .calls
            .iter()
            .map(|c| (c.text.as_str(), c.name.as_str()))
            .collect();
        assert_eq!(
            calls,
            [
                ("puts", "puts"),
                ("Foo::Bar.new(1).run", "run"),
                ("Foo::Bar.new", "new"),
                ("super", "super"),
                ("Baz.new", "new"),
                ("b.go", "go")
            ]
        );
        // The parameter is a local of unknown class, `b` one of class Baz.
        assert_eq!(
            f.locals,
            [
                ("a".to_string(), String::new()),
                ("b".to_string(), "Baz".to_string())
            ]
        );
    }

    #[test]
    fn requires_and_mixins_are_recorded() {
        let out = extract(
            "require 'json'\nrequire_relative \"lib/x\"\nrequire \"a#{b}\"\n\
             module M\n  include Comparable\n  extend Forwardable\nend\n",
        );
        let imports: Vec<(&str, u32)> = out
            .info
            .imports
            .iter()
            .map(|i| (i.module.as_str(), i.level))
            .collect();
        assert_eq!(imports, [("json", 0), ("lib/x", 1)]);
        assert_eq!(
            out.info.classes[0].bases,
            ["Comparable", "extend Forwardable"]
        );
    }

    #[test]
    fn kinds_follow_the_enclosing_class() {
        use crate::extract::FunctionKind::*;
        let out = extract(
            "def top; end
class K
  def initialize; end
  def self.new_k; end
end
             P = Struct.new(:x) do
  def dist; end
end
Q = Class.new(Base) do
               def q; end
end
describe do
  def helper; end
end
",
        );
        let kinds: Vec<(&str, crate::extract::FunctionKind)> = out
            .functions
            .iter()
            .map(|f| (f.qualified_name.as_str(), f.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("top", Function),
                ("K.initialize", Constructor),
                ("K.new_k", Method),
                ("P.dist", Method),
                ("Q.q", Method),
                ("helper", Method)
            ]
        );
        let q = out.info.classes.iter().find(|c| c.name == "Q").unwrap();
        assert_eq!(q.bases, ["< Base"]);
    }

    /// Issue 34, item 3: the tokens the 2019 grammar (tree-sitter-ruby 50eab32, the one
    /// function_parser ran) gave: `symbol`, `regex`, `subshell` and `heredoc_body` had their
    /// characters in the scanner's hidden `_string_content`/`_heredoc_content`, with
    /// escape sequences and interpolations visible; `%w()` words were leaves (`bare_string`
    /// aliased over hidden contents); a string is one token (function_parser's `string`).
    /// Worked out from that grammar.json and scanner.cc by hand.
    #[test]
    fn literal_tokens_follow_the_grammar_function_parser_used() {
        let src = "def m\n  a = :\"#{name}=\"\n  b = /^\\d+$/i\n  c = `ls #{d}`\n  e = %w(x y)\n  f = \"s #{t}\"\n  :sym\nend\n";
        let out = extract(src);
        let got: Vec<&str> = out.functions[0].code_tokens.iter().collect();
        assert_eq!(
            got,
            [
                "def", "m", "a", "=", ":\"", "#{", "name", "}", "\"", "b", "=", "/", "\\d", "/i",
                "c", "=", "`", "#{", "d", "}", "`", "e", "=", "%w(", "x", "y", ")", "f", "=",
                "\"s #{t}\"", ":sym", "end"
            ]
        );
    }
}
