//! The extract stage: parses a source file with tree-sitter and emits one [`Function`] per
//! function or method, with its qualified name, signature, code, docstring, code tokens
//! and span.
//!
//! The walk is grammar-agnostic and names no language: what differs between languages
//! lives behind [`LanguageSpec`], implemented in each language's folder of the registry
//! (the crate `codemine-lang`), and what a language keeps of a file besides the neutral
//! lists of [`FileInfo`] goes in its [`FilePayload`]. This module and the resolver core
//! (`resolve`) are the core; the languages depend on them, never the reverse.
//!
//! With `toy`, a [`LanguageSpec`] over Python's grammar whose functions are the
//! `function_definition`s (the crate's front page shows one; `codemine_lang::Lang::Python`
//! is the real one):
//!
//! ```
//! # use codemine_syntax::extract::{Around, Docstring, FunctionKind, LanguageSpec, Spec};
//! # use tree_sitter::Node;
//! # struct Toy;
//! # impl LanguageSpec for Toy {
//! #     fn name(&self) -> &'static str { "toy" }
//! #     fn grammar(&self) -> tree_sitter::Language { tree_sitter_python::LANGUAGE.into() }
//! #     fn function(&self, n: Node, _: &[Node], src: &str) -> Option<(FunctionKind, String)> {
//! #         let name = n.child_by_field_name("name").filter(|_| n.kind() == "function_definition")?;
//! #         Some((FunctionKind::Function, src[name.byte_range()].to_string()))
//! #     }
//! #     fn scope(&self, _: Node, _: &[Node], _: &str) -> Option<String> { None }
//! #     fn docstring<'t>(&self, _: Node<'t>, _: &Around<'_, 't>, _: &str) -> Option<Docstring<'t>> { None }
//! #     fn atomic_token(&self, kind: &str) -> bool { kind == "string" }
//! #     fn window_scanner(&self) -> Option<codemine_syntax::extract::window::Scanner> {
//! #         Some(codemine_syntax::extract::window::Scanner::Indentation)
//! #     }
//! #     fn starts_item(&self, rest: &[u8]) -> bool { rest.starts_with(b"def ") }
//! # }
//! # let toy: Spec = &Toy;
//! use codemine_syntax::extract::Extractor;
//! let mut x = Extractor::default();
//! let out = x.extract(toy, "def add(a, b):\n    return a + b\n").unwrap();
//! assert_eq!(out.functions[0].qualified_name, "add");
//! assert_eq!(out.functions[0].code_tokens.to_vec()[..3], ["def", "add", "("]);
//! ```

pub mod grammar;
mod recover;
pub mod tokens;
pub mod window;

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::{Node, Parser, Tree};

use grammar::NodeExt;

pub use codemine_schemas::tokens::Tokens;

/// A language as the walker takes it: its rules (the registry's `Lang` turns into one).
pub type Spec = &'static dyn LanguageSpec;

/// Whether `path` is a `.h` header, which may be C or C++ depending on the repository.
pub fn is_ambiguous_header(path: &str) -> bool {
    path.ends_with(".h")
}

/// How a call names its callee.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallKind {
    /// `f(x)`.
    Plain,
    /// `recv.f(x)`, `recv->f(x)`: the receiver expression's text (`self`, `this`, `super`,
    /// `super()`, `obj`, `this.field`, `a.b`).
    Member(String),
    /// `ns::f(x)`, `Class::f(x)`: the scope as written.
    Scoped(String),
    /// A constructor call: `new T(x)` (Java, C++); the name is the type. Java's `this(x)` and
    /// `super(x)` are `Member("this")` / `Member("super")` calls named `<init>`.
    New,
}

/// One call in a function body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallSite {
    /// The callee as written, whitespace removed: `f`, `obj.m`, `ns::f`, `new Foo`.
    pub text: String,
    /// The called name: the last identifier (`m` for `obj.m`), or the type for [`CallKind::New`].
    pub name: String,
    pub kind: CallKind,
    /// 1-based line of the call.
    pub line: u32,
    /// Number of arguments (Java tells overloads apart by it).
    pub args: u32,
}

/// A `#include` of a C or C++ file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Include {
    pub path: String,
    /// `<...>` rather than `"..."`.
    pub system: bool,
}

/// An import of a Python, Java, JavaScript or TypeScript file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Import {
    /// Python: the module (`a.b`, or `` for `from . import x`); Java: the imported type or,
    /// for on-demand imports, the package or type whose members are imported.
    pub module: String,
    /// The imported member: Python `from m import name`; Java static imports' member.
    pub name: Option<String>,
    /// `as alias` (Python).
    pub alias: Option<String>,
    /// Python relative-import level (the number of leading dots).
    pub level: u32,
    /// Java `import static`.
    pub is_static: bool,
    /// `*`.
    pub wildcard: bool,
    /// JavaScript/TypeScript: an export of something imported or declared under another
    /// name (`export { a as b } from './m'`, `export default x`), not an import.
    pub reexport: bool,
}

/// A function-like macro (C, C++) and the names its body calls (`f` in `#define M(x) f(x)`),
/// or an object-like macro that aliases a name (`#define s_malloc hi_malloc`: calls `[hi_malloc]`),
/// so the resolve stage can follow the calls that the expansion makes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Macro {
    pub name: String,
    pub calls: Vec<String>,
}

/// The 1-based first and last line of a node.
pub fn lines_of(node: Node) -> (u32, u32) {
    (
        node.start_position().row as u32 + 1,
        node.end_position().row as u32 + 1,
    )
}

/// A class (struct, interface, enum, record) declared in a file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClassInfo {
    /// Qualified within the file with the language's separator (`Outer.Inner`, `ns::Foo`).
    pub name: String,
    /// Base classes and implemented interfaces, as written (generic arguments removed).
    pub bases: Vec<String>,
    /// Fields with a declared type: (name, type name).
    pub fields: Vec<(String, String)>,
    /// 1-based first and last line of the declaration; (0, 0) where the language does not
    /// record them.
    pub lines: (u32, u32),
}

/// What a file declares besides its functions, for the resolve stage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileInfo {
    /// Java: the package.
    pub package: Option<String>,
    pub imports: Vec<Import>,
    pub includes: Vec<Include>,
    /// Function-like macros defined in the file (C, C++).
    pub macros: Vec<Macro>,
    pub classes: Vec<ClassInfo>,
    /// C++ `using namespace N;` directives.
    pub using_namespaces: Vec<String>,
    /// Functions declared without a body (C, C++ prototypes): name, and whether the
    /// declaration says `static` (which makes a later definition file-local too).
    pub prototypes: Vec<(String, bool)>,
    /// What the file's language keeps besides these lists (Python: what its value-flow
    /// analysis reads); see [`FilePayload`].
    pub payload: Option<Box<dyn FilePayload>>,
    /// Names the module binds to a value at its top level (Python `NAME = ...`), with the
    /// lines of the statement: definitions that are neither functions nor classes.
    pub constants: Vec<(String, (u32, u32))>,
}

/// What a language keeps of a file besides [`FileInfo`]'s neutral lists: Python's
/// value-flow facts. A trait object rather than a type parameter of [`FileInfo`]: the
/// files of one repository, of several languages, go to the resolve stage in one list,
/// and the core that holds them must not name the languages' types. The language that
/// made a payload is the one that reads it back ([`FileInfo::payload`]).
pub trait FilePayload: std::any::Any + std::fmt::Debug + Send + Sync {
    /// Appends what a later part of the same file holds (a file extracted in windows: the
    /// parts in source order). `later` was made by the same language.
    fn append(&mut self, later: Box<dyn FilePayload>);

    /// A copy ([`FileInfo`] is `Clone`).
    fn clone_box(&self) -> Box<dyn FilePayload>;

    /// Whether `other` holds the same ([`FileInfo`] is `Eq`).
    fn same(&self, other: &dyn FilePayload) -> bool;
}

impl Clone for Box<dyn FilePayload> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

impl PartialEq for dyn FilePayload {
    fn eq(&self, other: &dyn FilePayload) -> bool {
        self.same(other)
    }
}

impl Eq for dyn FilePayload {}

impl FileInfo {
    /// The language's payload, if it is a `T`.
    pub fn payload<T: FilePayload>(&self) -> Option<&T> {
        let p: &dyn std::any::Any = self.payload.as_deref()?;
        p.downcast_ref()
    }

    /// The language's payload, made by `make` if the file has none yet; `None` if it holds
    /// another type (another language's, which one file never has).
    pub fn payload_or_insert<T: FilePayload>(
        &mut self,
        make: impl FnOnce() -> T,
    ) -> Option<&mut T> {
        let p: &mut dyn std::any::Any = self
            .payload
            .get_or_insert_with(|| Box::new(make()))
            .as_mut();
        p.downcast_mut()
    }
}

/// What kind of callable a function record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FunctionKind {
    Function,
    Method,
    Constructor,
    /// A lambda: a call-graph node, never a function row (Python, `<lambda>`).
    Lambda,
    /// A module's top-level code: a call-graph node, never a function row (Python,
    /// `<module>`).
    Module,
}

impl FunctionKind {
    /// The name the call-graph `nodes` table's `kind` column gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            FunctionKind::Function => "function",
            FunctionKind::Method => "method",
            FunctionKind::Constructor => "constructor",
            FunctionKind::Lambda => "lambda",
            FunctionKind::Module => "module",
        }
    }

    /// The kinds of the call-graph nodes that are not functions: no function row, and not
    /// counted among stats.json's `functions` (nor in the figures that count functions).
    pub const NODE_ONLY: [FunctionKind; 2] = [FunctionKind::Lambda, FunctionKind::Module];
}

/// A docstring found for a function: its cleaned text, the text CodeSearchNet published for
/// it when that differs, and the node holding it when that node lies inside the function
/// (Python), so it can be left out of the code tokens.
pub struct Docstring<'t> {
    /// Comment delimiters stripped: what the filters, YABLoCo's `inputs.docstring`, the
    /// call-graph nodes and the docstring summary (`docstring_tokens`) read.
    pub text: String,
    /// function_parser's `docstring` after `process.py`'s `.strip()` (Go keeps its `//`
    /// markers, Ruby the space after `#`): the CSN `docstring` column. `None` when it is
    /// `text` itself.
    pub published: Option<String>,
    pub inner_node: Option<Node<'t>>,
}

impl Docstring<'_> {
    /// A docstring whose published text is `published`, kept only where it differs.
    pub fn with_published(text: String, published: String) -> Self {
        Docstring {
            published: (published != text).then_some(published),
            text,
            inner_node: None,
        }
    }
}

/// Everything that differs between languages. Methods have defaults where most grammars agree.
pub trait LanguageSpec: Send + Sync {
    /// The name in output rows, stats and `--languages` (`python`, `cpp`).
    fn name(&self) -> &'static str;

    fn grammar(&self) -> tree_sitter::Language;

    /// The text the grammar parses in place of `src`, of the same length byte for byte, so
    /// that every node's range (and the text taken from `src` by it) is the file's: C# blanks
    /// its preprocessor directive lines, which tree-sitter-c-sharp parses as nodes that must
    /// enclose whole constructs, where an `#if`..`#else` cuts through a statement. `None`
    /// (the default): `src` itself.
    fn parse_text(&self, _src: &str) -> Option<String> {
        None
    }

    /// Which of the language's grammars parses the file at `path`: 0 (the default) is
    /// [`LanguageSpec::grammar`], others are [`LanguageSpec::dialect_grammar`]'s. TypeScript's
    /// `.tsx` files need the TSX grammar, in which `<T>x` is JSX rather than a cast.
    fn dialect(&self, _path: &str) -> u8 {
        0
    }

    /// The grammar of a dialect that [`LanguageSpec::dialect`] returned.
    fn dialect_grammar(&self, _dialect: u8) -> tree_sitter::Language {
        self.grammar()
    }

    /// Joins scope names into qualified names.
    fn separator(&self) -> &'static str {
        "."
    }

    /// If `node` is a function definition (with a body), its kind and name. `ancestors`
    /// are the enclosing nodes, innermost last (cheaper than `Node::parent`, which
    /// tree-sitter computes by descending from the root); when the walk over a function's
    /// body asks (is this a nested function?), they start at that function.
    fn function(&self, node: Node, ancestors: &[Node], src: &str)
        -> Option<(FunctionKind, String)>;

    /// If `node` opens a naming scope for what it contains (a class, say), the scope's name.
    /// Functions are scopes of their own name without saying so here.
    fn scope(&self, node: Node, ancestors: &[Node], src: &str) -> Option<String>;

    /// The node kinds for which [`LanguageSpec::function`] can return a function; `None`
    /// (the default) for any kind. The walks call the hook for these kinds only: a lookup by
    /// kind id is far cheaper than the hook's own match on the kind's name at every node.
    fn function_kinds(&self) -> Option<&'static [&'static str]> {
        None
    }

    /// The node kinds for which [`LanguageSpec::scope`] can return a scope; `None` (the
    /// default) for any kind.
    fn scope_kinds(&self) -> Option<&'static [&'static str]> {
        None
    }

    /// The node kinds for which [`LanguageSpec::file_item`] can record something; `None`
    /// (the default) for any kind.
    fn file_item_kinds(&self) -> Option<&'static [&'static str]> {
        None
    }

    /// The node kinds for which [`LanguageSpec::visit`] can record a call or a local;
    /// `None` (the default) for any kind.
    fn visit_kinds(&self) -> Option<&'static [&'static str]> {
        None
    }

    /// Whether a function can be found below `node`; the walk skips the subtrees where
    /// none can (expressions, say), which is most of a syntax tree.
    fn may_contain_functions(&self, _node: Node, _src: &str) -> bool {
        true
    }

    /// The docstring of the function `node`; `around` gives the siblings before it and its
    /// ancestors, as the walk met them (`Node::prev_sibling` and `Node::parent` search from
    /// the root: asked for each of many functions, they cost time quadratic in their number).
    fn docstring<'t>(
        &self,
        node: Node<'t>,
        around: &Around<'_, 't>,
        src: &str,
    ) -> Option<Docstring<'t>>;

    /// Node kinds that are a single code token although they have children (string
    /// literals, as function_parser treats them).
    fn atomic_token(&self, kind: &str) -> bool;

    /// The tokens that the grammar function_parser used gave for a leaf of this kind, where
    /// it was a node of fixed visible children (Java's character literal was `'`, hidden
    /// characters, `'`). `None` (the default): the leaf's text.
    fn leaf_tokens(&self, _kind: &str) -> Option<&'static [&'static str]> {
        None
    }

    /// Leaf kinds that are not code tokens: extras that the grammar function_parser used
    /// kept anonymous (hidden) and a newer grammar exposes as named leaves, such as Python's
    /// `line_continuation`. Comments are extras too, but function_parser's grammars exposed
    /// them, so they stay tokens.
    fn hidden_leaf(&self, _kind: &str) -> bool {
        false
    }

    /// The body of the function `node`; the signature is what comes before it.
    fn body<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        node.field("body")
    }

    /// The simple name within a name that [`LanguageSpec::function`] returned qualified
    /// (C++ `ns::Foo::bar` defined out of class gives `bar`).
    fn simple_name<'a>(&self, name: &'a str) -> &'a str {
        name
    }

    /// Records what `node` declares for the resolve stage (imports, includes, macros,
    /// classes, prototypes). Called for every node the walk visits, before its own scope
    /// opens; `scope` gives the enclosing scopes' qualified name.
    fn file_item(
        &self,
        _node: Node,
        _scope: &dyn Fn() -> String,
        _src: &str,
        _info: &mut FileInfo,
    ) {
    }

    /// If `node` (of kind `kind`, computed once per node by the caller: `Node::kind` is not
    /// free) is a call, the call site.
    fn call(&self, _node: Node, _kind: &str, _src: &str) -> Option<CallSite> {
        None
    }

    /// The variables that `node` declares with a type, if it is a parameter or a local
    /// declaration: (name, type name).
    fn locals(&self, _node: Node, _kind: &str, _src: &str, _out: &mut Vec<(String, String)>) {}

    /// The call site and local declarations of `node` where they depend on its [`Place`]
    /// and on the locals declared before it in the function (Ruby's bare `m` is a call
    /// unless `m` is a local variable). By default [`LanguageSpec::call`] and
    /// [`LanguageSpec::locals`].
    fn visit(
        &self,
        node: Node,
        kind: &str,
        src: &str,
        _place: Place,
        calls: &mut Vec<CallSite>,
        locals: &mut Vec<(String, String)>,
    ) {
        if let Some(c) = self.call(node, kind, src) {
            calls.push(c);
        }
        self.locals(node, kind, src, locals);
    }

    /// The name CodeSearchNet's function_parser gives the function `node` (its
    /// `identifier`), when that is not `qualified`, the name codemine gives it: a Go method
    /// without its receiver type, an anonymous JavaScript function expression's empty name.
    /// `None` by default. Written as CSN's `func_name` with `--csn-names function-parser`.
    fn function_parser_name(&self, _node: Node, _qualified: &str, _src: &str) -> Option<String> {
        None
    }

    /// Linkage and arity of the function `node`.
    fn details(&self, _node: Node, _src: &str) -> Details {
        Details::default()
    }

    /// The names of the function `node`'s parameters as its parameter nodes spell them, in
    /// order: with the sigils the language writes on the name (`*args`, `**kwargs`,
    /// `...rest`, `$x`, `&block`), without types or defaults; unnamed parameters (a C
    /// prototype's `int`) and destructuring patterns are left out. What
    /// `--require-param-docs` compares a docstring's documented parameters with. None by
    /// default.
    fn param_names(&self, _node: Node, _src: &str) -> Vec<String> {
        Vec::new()
    }

    /// Called before a walk of a new tree asks [`LanguageSpec::function`] about its nodes:
    /// what a language keeps about the nodes of the last tree (by their ids, which are
    /// addresses) is forgotten here. Nothing by default.
    fn new_tree(&self) {}

    /// Whether a function defined inside another is extracted on its own, so that its calls
    /// are its own rather than the enclosing function's.
    fn nested_functions_extracted(&self) -> bool {
        true
    }

    /// What a part of a file parsed alone needs before it, found in the parse of the whole
    /// file (`root`): PHP's `<?php` tag, without which the part would be HTML. None by
    /// default.
    fn fragment_prefix(&self, _root: Node) -> Option<tree_sitter::Range> {
        None
    }

    /// Whether the leaf token `text`, after the leaves `before` on its line (the nearest
    /// first), opens a function definition: how the functions of text that tree-sitter could
    /// not parse (an ERROR node, where no function node shows them) are counted. By default
    /// the C-family shape, a name and `(` after a type or another name
    /// ([`c_like_opens_function`]); languages with a keyword (`def`, `function`, `func`)
    /// take it.
    fn opens_function(&self, text: &str, before: [Option<&str>; 2]) -> bool {
        c_like_opens_function(text, before)
    }

    /// How big files are cut into windows that parse alone (see [`window`]); `None` parses
    /// every file whole.
    fn window_scanner(&self) -> Option<window::Scanner> {
        None
    }

    /// Whether a top-level item can start with `rest`, the text from its first byte on:
    /// where the window scanners confirm a cut and where extraction starts again after a
    /// syntax error. By default a name or keyword, a directive, an annotation or decorator,
    /// other than the words that continue a statement ([`window::starts_named_item`]).
    fn starts_item(&self, rest: &[u8]) -> bool {
        window::starts_named_item(rest, false)
    }

    /// Whether a line starts an item only after one ended (its last token before is `;`,
    /// `{` or `}`, or ends a directive's line), as in C and C++, where GNU style puts the
    /// return type on a line of its own (`static int` then `f(void) {`). No by default.
    fn items_follow_an_end(&self) -> bool {
        false
    }
}

/// A name and `(` after a type (`int f(`, `static T *f(`, `List<T> f(`, `int[] f(`): a
/// function's start in C, C++ and Java, unless the words are a statement's (`return f(`,
/// `else if (`, `new T(`).
pub fn c_like_opens_function(text: &str, before: [Option<&str>; 2]) -> bool {
    const NOT_TYPES: &[&str] = &[
        "return",
        "else",
        "new",
        "case",
        "throw",
        "goto",
        "sizeof",
        "typeof",
        "delete",
        "do",
        "if",
        "while",
        "for",
        "switch",
        "catch",
        "synchronized",
        "defined",
        "and",
        "or",
        "not",
    ];
    let word = |w: &str| {
        w.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    let (Some(name), Some(ty)) = (before[0], before[1]) else {
        return false;
    };
    text == "("
        && word(name)
        && !NOT_TYPES.contains(&name)
        && (word(ty) && !NOT_TYPES.contains(&ty) || matches!(ty, "*" | "&" | "&&" | ">" | "]"))
}

/// Where a node sits in a function's walk: its parent, and its index among the parent's
/// children.
#[derive(Clone, Copy)]
pub struct Place<'t> {
    parent: Option<Node<'t>>,
    index: u32,
}

impl<'t> Place<'t> {
    /// The place of a child of `parent` (none at the root) at `index` among its children.
    pub fn new(parent: Option<Node<'t>>, index: u32) -> Self {
        Place { parent, index }
    }

    /// The parent's kind (asked only by the hooks that need it: not at every call site).
    pub fn parent_kind(&self) -> Option<&'static str> {
        self.parent.map(|p| p.kind_str())
    }

    /// The node's field in its parent (what a tree cursor's `field_name` gives).
    pub fn field_name(&self) -> Option<&'t str> {
        self.parent?.field_name_for_child(self.index)
    }
}

/// What the file walk knows around a node: the siblings before it, and its ancestors with
/// the siblings before each. Hooks ask it instead of `Node::prev_sibling` and `Node::parent`,
/// which tree-sitter answers by searching from the root down through every earlier sibling:
/// asked for each function of a long class or file, they made extraction quadratic.
#[derive(Clone, Copy)]
pub struct Around<'a, 't> {
    /// The earlier siblings of every level from the root down, concatenated.
    before: &'a [Node<'t>],
    /// Where each level's earlier siblings start in `before`, the root's level first; one
    /// more than `ancestors`.
    starts: &'a [usize],
    /// The enclosing nodes, innermost last.
    ancestors: &'a [Node<'t>],
}

impl<'a, 't> Around<'a, 't> {
    /// The node's earlier siblings, in source order (the previous one last).
    pub fn before(&self) -> &'a [Node<'t>] {
        let from = self.starts.last().copied().unwrap_or(0);
        self.before.get(from..).unwrap_or_default()
    }

    /// The sibling right before the node.
    pub fn prev(&self) -> Option<Node<'t>> {
        self.before().last().copied()
    }

    /// The node's parent.
    pub fn parent(&self) -> Option<Node<'t>> {
        self.ancestors.last().copied()
    }

    /// The same around the parent; `None` at the root.
    pub fn up(&self) -> Option<Around<'a, 't>> {
        let (&from, starts) = self.starts.split_last()?;
        let (_, ancestors) = self.ancestors.split_last()?;
        Some(Around {
            before: self.before.get(..from)?,
            starts,
            ancestors,
        })
    }
}

/// Linkage and arity of a function.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Details {
    /// C/C++ `static` (or in an anonymous namespace): visible in its file only. Java and C++
    /// `static` methods too.
    pub is_static: bool,
    /// Declared parameters (Python counts `self`/`cls`).
    pub params: u32,
    /// Takes a variable number of arguments (`...`, `*args`, varargs).
    pub variadic: bool,
}

/// One function or method found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// Enclosing scopes and the name, joined by the language's separator (`Class.method`).
    pub qualified_name: String,
    pub kind: FunctionKind,
    /// The text from the start of the definition to the start of its body, trimmed.
    pub signature: String,
    /// The definition's source text, from its first line's start column.
    pub code: String,
    /// The cleaned docstring ([`Docstring::text`]).
    pub docstring: Option<String>,
    /// The docstring as CodeSearchNet published it ([`Docstring::published`]), when that
    /// differs from `docstring`: the CSN `docstring` column.
    pub csn_docstring: Option<String>,
    /// function_parser's name for the function when it is not `qualified_name`
    /// ([`LanguageSpec::function_parser_name`]).
    pub function_parser_name: Option<String>,
    /// Leaf tokens of the definition, the docstring excluded.
    pub code_tokens: Tokens,
    /// The enclosing scopes' qualified name (`Outer.Inner` for a method of `Inner`,
    /// `ns::Foo` for a C++ method defined out of class); empty at top level.
    pub scope: String,
    pub details: Details,
    /// The parameters' names as the signature spells them ([`LanguageSpec::param_names`]).
    pub param_names: Vec<String>,
    /// Calls in the body, in source order (calls inside nested functions that are extracted
    /// on their own belong to those).
    pub calls: Vec<CallSite>,
    /// Parameters and local variables declared with a type: (name, type name).
    pub locals: Vec<(String, String)>,
    /// The body holds a syntax error (the function is kept; its name and span are sound).
    pub syntax_error: bool,
    /// 1-based, inclusive.
    /// The line the signature ends on (the body's lines come after it).
    pub signature_end_line: u32,
    pub start_line: u32,
    pub end_line: u32,
    pub byte_range: Range<usize>,
}

/// The functions of one file, and those dropped because they overlap a syntax error.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct FileFunctions {
    pub functions: Vec<Function>,
    pub info: FileInfo,
    /// Functions lost to syntax errors: those with a broken name or parameter list or inside
    /// an ERROR node, and in an ERROR node without function nodes, the functions that its
    /// text opens ([`LanguageSpec::opens_function`]).
    pub dropped_syntax_error: usize,
    /// Functions nested more than [`MAX_FUNCTION_NESTING`] deep, not extracted on their own.
    pub dropped_nesting: usize,
    /// Whether the file's syntax tree has any error at all.
    pub has_errors: bool,
}

/// Why a file could not be extracted.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    #[error("the {0} grammar could not be loaded: {1}")]
    Grammar(&'static str, String),
    #[error("tree-sitter gave no tree")]
    NoTree,
}

/// Files of at least this many bytes are parsed in windows (see [`window`]).
pub const WINDOW_THRESHOLD: usize = 4 << 20;
/// The size a window aims at: its syntax tree takes about 43 bytes per byte, 45 MB here.
pub const WINDOW_BYTES: usize = 1 << 20;

/// Holds one tree-sitter parser per language; create one per thread and reuse it.
pub struct Extractor {
    /// By language name and dialect.
    parsers: HashMap<(&'static str, u8), Parser>,
    window_threshold: usize,
    window_bytes: usize,
    windowed: usize,
}

impl Default for Extractor {
    fn default() -> Self {
        Extractor {
            parsers: HashMap::new(),
            window_threshold: WINDOW_THRESHOLD,
            window_bytes: WINDOW_BYTES,
            windowed: 0,
        }
    }
}

impl Extractor {
    /// An extractor that parses files of `threshold` bytes or more in windows of about
    /// `window` bytes (tests force windows on small files with it).
    #[doc(hidden)]
    pub fn with_windows(threshold: usize, window: usize) -> Self {
        Extractor {
            window_threshold: threshold,
            window_bytes: window,
            ..Default::default()
        }
    }

    /// How many files this extractor has extracted in windows (a file whose windows did not
    /// all parse cleanly, and was parsed whole instead, is not counted).
    pub fn windowed_files(&self) -> usize {
        self.windowed
    }

    fn parser(&mut self, lang: Spec, dialect: u8) -> Result<&mut Parser, ExtractError> {
        Ok(match self.parsers.entry((lang.name(), dialect)) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                let mut p = Parser::new();
                let grammar = match dialect {
                    0 => lang.grammar(),
                    d => lang.dialect_grammar(d),
                };
                p.set_language(&grammar)
                    .map_err(|e| ExtractError::Grammar(lang.name(), e.to_string()))?;
                v.insert(p)
            }
        })
    }

    /// Parses `src` as `lang` without extracting anything (what the benchmark calls bare
    /// parsing).
    pub fn parse(&mut self, lang: impl Into<Spec>, src: &str) -> Result<Tree, ExtractError> {
        self.parse_dialect(lang.into(), 0, src)
    }

    /// [`Extractor::parse`] with the grammar the file at `path` needs (see
    /// [`LanguageSpec::dialect`]).
    pub fn parse_path(
        &mut self,
        lang: impl Into<Spec>,
        path: &str,
        src: &str,
    ) -> Result<Tree, ExtractError> {
        let lang = lang.into();
        self.parse_dialect(lang, lang.dialect(path), src)
    }

    fn parse_dialect(&mut self, lang: Spec, dialect: u8, src: &str) -> Result<Tree, ExtractError> {
        let parser = self.parser(lang, dialect)?;
        // An empty list is the whole text (a windowed parse leaves its last range behind).
        parser
            .set_included_ranges(&[])
            .map_err(|_| ExtractError::NoTree)?;
        let text = lang.parse_text(src);
        parser
            .parse(text.as_deref().unwrap_or(src), None)
            .ok_or(ExtractError::NoTree)
    }

    /// Every leaf token of `src` parsed as `lang`, in source order, as a function's
    /// `code_tokens` are taken (string literals whole, hidden leaves left out): the tokens of
    /// a snippet that holds no whole function (decontamination's benchmark items).
    pub fn leaf_tokens(
        &mut self,
        lang: impl Into<Spec>,
        src: &str,
    ) -> Result<Vec<String>, ExtractError> {
        let spec = lang.into();
        let tree = self.parse(spec, src)?;
        let mut out = Vec::new();
        let mut cursor = tree.walk();
        loop {
            let n = cursor.node();
            let atomic = n.child_count() == 0 || spec.atomic_token(n.kind_str());
            if atomic && !spec.hidden_leaf(n.kind_str()) {
                if let Some(parts) = spec.leaf_tokens(n.kind_str()) {
                    out.extend(parts.iter().map(|t| t.to_string()));
                } else {
                    let t = &src[n.byte_range()];
                    if !t.is_empty() {
                        out.push(t.to_string());
                    }
                }
            }
            if !atomic && cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return Ok(out);
                }
            }
        }
    }

    pub fn extract(
        &mut self,
        lang: impl Into<Spec>,
        src: &str,
    ) -> Result<FileFunctions, ExtractError> {
        self.extract_dialect(lang.into(), 0, src)
    }

    /// [`Extractor::extract`] with the grammar the file at `path` needs (see
    /// [`LanguageSpec::dialect`]).
    pub fn extract_path(
        &mut self,
        lang: impl Into<Spec>,
        path: &str,
        src: &str,
    ) -> Result<FileFunctions, ExtractError> {
        let lang = lang.into();
        self.extract_dialect(lang, lang.dialect(path), src)
    }

    fn extract_dialect(
        &mut self,
        lang: Spec,
        dialect: u8,
        src: &str,
    ) -> Result<FileFunctions, ExtractError> {
        if src.len() >= self.window_threshold {
            let cuts = window::cuts(lang, src, self.window_bytes);
            if !cuts.is_empty() {
                if let Some(out) = self.extract_windows(lang, dialect, src, &cuts)? {
                    self.windowed += 1;
                    return Ok(out);
                }
            }
        }
        let tree = self.parse_dialect(lang, dialect, src)?;
        if tree.root_node().has_error() {
            return recover::recover(self, lang, dialect, src, tree);
        }
        Ok(functions_of(lang, &tree, src))
    }

    /// Parses the parts `ranges` of `src` (byte offsets, rows and columns stay the file's).
    fn parse_ranges(
        &mut self,
        lang: Spec,
        dialect: u8,
        src: &str,
        ranges: &[tree_sitter::Range],
    ) -> Result<Tree, ExtractError> {
        let parser = self.parser(lang, dialect)?;
        parser
            .set_included_ranges(ranges)
            .map_err(|_| ExtractError::NoTree)?;
        let text = lang.parse_text(src);
        parser
            .parse(text.as_deref().unwrap_or(src), None)
            .ok_or(ExtractError::NoTree)
    }

    /// Extracts `src` one window at a time, each parsed as an included range of the whole
    /// text so that byte offsets, rows and columns stay the file's, and dropped before the
    /// next. `None` when a window does not parse cleanly: a cut the scanner got wrong, or a
    /// file with syntax errors, whose error recovery may reach across a cut, so the caller
    /// parses the whole file as usual.
    fn extract_windows(
        &mut self,
        lang: Spec,
        dialect: u8,
        src: &str,
        cuts: &[window::Cut],
    ) -> Result<Option<FileFunctions>, ExtractError> {
        let spec = lang;
        let end = window::Cut {
            byte: src.len(),
            row: 0,
            column: 0,
        };
        let end_point = end_of(src);
        let text = lang.parse_text(src);
        let parsed = text.as_deref().unwrap_or(src);
        let parser = self.parser(lang, dialect)?;
        let mut out = FileFunctions::default();
        let mut start = window::Cut {
            byte: 0,
            row: 0,
            column: 0,
        };
        for (k, cut) in cuts.iter().chain(std::iter::once(&end)).enumerate() {
            let end_point = if k == cuts.len() {
                end_point
            } else {
                tree_sitter::Point::new(cut.row, cut.column)
            };
            let range = tree_sitter::Range {
                start_byte: start.byte,
                end_byte: cut.byte,
                start_point: tree_sitter::Point::new(start.row, start.column),
                end_point,
            };
            parser
                .set_included_ranges(&[range])
                .map_err(|_| ExtractError::NoTree)?;
            let tree = parser.parse(parsed, None).ok_or(ExtractError::NoTree)?;
            if tree.root_node().has_error() {
                return Ok(None);
            }
            let part = functions_of(spec, &tree, src);
            drop(tree);
            out.functions.extend(part.functions);
            out.dropped_syntax_error += part.dropped_syntax_error;
            out.dropped_nesting += part.dropped_nesting;
            out.info.append(part.info);
            start = *cut;
        }
        // The parts' vectors grew by doubling; a huge file holds the slack to the end.
        out.functions.shrink_to_fit();
        Ok(Some(out))
    }
}

/// The row and byte column just past the end of `src`.
fn end_of(src: &str) -> tree_sitter::Point {
    let row = src.bytes().filter(|&b| b == b'\n').count();
    let line_start = src.rfind('\n').map_or(0, |i| i + 1);
    tree_sitter::Point::new(row, src.len() - line_start)
}

impl FileInfo {
    /// Appends what a later part of the same file declares (the parts in source order give
    /// the whole file's lists, in the whole file's order).
    fn append(&mut self, later: FileInfo) {
        // A later `package` line wins, as it does in one walk of the whole file.
        if later.package.is_some() {
            self.package = later.package;
        }
        self.imports.extend(later.imports);
        self.includes.extend(later.includes);
        self.macros.extend(later.macros);
        self.classes.extend(later.classes);
        self.using_namespaces.extend(later.using_namespaces);
        self.prototypes.extend(later.prototypes);
        self.constants.extend(later.constants);
        match (&mut self.payload, later.payload) {
            (Some(f), Some(l)) => f.append(l),
            (f @ None, l) => *f = l,
            _ => {}
        }
    }
}

struct Found<'t> {
    node: Node<'t>,
    kind: FunctionKind,
    name: String,
    qualified_name: String,
    scope: String,
}

/// Whether the part of a function that names it (its declarator, name or parameters) holds a
/// syntax error. Errors elsewhere before the body are tolerated: in C they are mostly macro
/// decorations such as `LUA_API void f(...)`, which leave the name and parameters sound.
fn signature_has_error(_spec: &dyn LanguageSpec, node: Node) -> bool {
    let mut cursor = node.walk();
    if !cursor.goto_first_child() {
        return false;
    }
    loop {
        let named = matches!(
            cursor.field_name(),
            Some("declarator" | "name" | "parameters")
        );
        if named && cursor.node().has_error() {
            return true;
        }
        if !cursor.goto_next_sibling() {
            return false;
        }
    }
}

/// Removes whitespace (a callee or type written over several lines keeps one spelling).
pub fn squash(s: &str) -> String {
    // Most callees and types are printable ASCII without spaces: one copy, no char pass.
    if s.bytes().all(|b| b.is_ascii_graphic()) {
        return s.to_string();
    }
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Named children of `node` that are not comments (`comment`, `line_comment`,
/// `block_comment`).
pub fn named<'t>(node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    (0..node.named_child_count())
        .filter_map(move |i| node.named_child(i as u32))
        .filter(|c| !c.kind_str().ends_with("comment"))
}

/// How many [`named`] children `node` has, for a language whose comments all start with
/// one of the bytes `openers`: without any in the text there is no comment among the
/// children, and tree-sitter's count is the answer (`named` asks for each child by index,
/// which tree-sitter finds by walking from the first).
pub fn count_named(node: Node, src: &str, openers: &[u8]) -> u32 {
    let text = src.as_bytes().get(node.byte_range()).unwrap_or_default();
    if text.iter().any(|b| openers.contains(b)) {
        named(node).count() as u32
    } else {
        node.named_child_count() as u32
    }
}

/// `outer{sep}name`, or `name` at top level.
pub fn qualify(outer: &str, sep: &str, name: &str) -> String {
    if outer.is_empty() {
        name.to_string()
    } else {
        format!("{outer}{sep}{name}")
    }
}

fn join_scopes(scopes: &[(usize, String)], sep: &str) -> String {
    let mut out = String::new();
    for (i, (_, s)) in scopes.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(s);
    }
    out
}

/// What the walks need to know of a node kind, read from the spec once per kind and file.
mod flag {
    pub const KNOWN: u8 = 1;
    pub const ATOMIC: u8 = 2;
    pub const HIDDEN: u8 = 4;
    pub const FUNCTION: u8 = 8;
    pub const SCOPE: u8 = 16;
    pub const FILE_ITEM: u8 = 32;
    pub const VISIT: u8 = 64;
    /// [`super::LanguageSpec::leaf_tokens`] has tokens for the kind.
    pub const SPLIT: u8 = 128;
}

/// [`flag`]s by kind id, filled in as kinds are met.
struct KindFlags<'s> {
    spec: &'s dyn LanguageSpec,
    grammar: &'static grammar::Grammar,
    /// By kind id; the last entry is `ERROR`'s (`u16::MAX`). 0: not read yet.
    flags: Vec<u8>,
}

impl<'s> KindFlags<'s> {
    fn new(spec: &'s dyn LanguageSpec, grammar: &'static grammar::Grammar) -> Self {
        KindFlags {
            spec,
            grammar,
            flags: vec![0; grammar.kind_count() + 1],
        }
    }

    #[inline]
    fn get(&mut self, id: u16) -> u8 {
        let i = if id == u16::MAX {
            self.flags.len() - 1
        } else {
            usize::from(id)
        };
        match self.flags.get(i) {
            Some(&f) if f != 0 => f,
            Some(_) => {
                let f = self.read(id);
                self.flags[i] = f;
                f
            }
            None => self.read(id),
        }
    }

    fn read(&self, id: u16) -> u8 {
        let name = self.grammar.name(id);
        let listed = |kinds: Option<&[&str]>| kinds.is_none_or(|k| k.contains(&name));
        let spec = self.spec;
        let mut f = flag::KNOWN;
        for (yes, bit) in [
            (spec.atomic_token(name), flag::ATOMIC),
            (spec.hidden_leaf(name), flag::HIDDEN),
            (listed(spec.function_kinds()), flag::FUNCTION),
            (listed(spec.scope_kinds()), flag::SCOPE),
            (listed(spec.file_item_kinds()), flag::FILE_ITEM),
            (listed(spec.visit_kinds()), flag::VISIT),
            (spec.leaf_tokens(name).is_some(), flag::SPLIT),
        ] {
            if yes {
                f |= bit;
            }
        }
        f
    }
}

/// Walks the tree once, without recursion, keeping a stack of enclosing scope names and
/// of ancestor nodes. A function inside an ERROR node, or with an error inside it, is
/// dropped: in a tree, those are the only ways a function can overlap an error. (A file
/// with syntax errors is extracted through [`recover`], which calls the same walk.)
pub fn functions_of(spec: &dyn LanguageSpec, tree: &Tree, src: &str) -> FileFunctions {
    walk_file(spec, tree, src, true, &Top::default())
}

/// [`functions_of`] without the walk's shortcut (a function's own walk finding the file items
/// of its body, [`LanguageSpec::file_item`]): the reference the shortcut must agree with. A
/// language's tests compare the two on its fixtures; mining never calls it.
pub fn functions_of_reference(spec: &dyn LanguageSpec, tree: &Tree, src: &str) -> FileFunctions {
    walk_file(spec, tree, src, false, &Top::default())
}

/// Functions nested in more functions than this are not extracted on their own: they stay
/// in the code of the function this deep that holds them, and are counted
/// ([`FileFunctions::dropped_nesting`]). Each function's code holds the code of those nested
/// in it, so the rows of a file nested `d` deep hold `d` times its text: bounded here (real
/// code nests named functions 3 deep at most in the repositories measured).
pub const MAX_FUNCTION_NESTING: usize = 16;

/// What a walk leaves out of its tree's top level, for the recovery from syntax errors
/// ([`recover`]); the default walks everything.
#[derive(Default)]
pub(crate) struct Top<'a> {
    /// Top-level children that start in these byte ranges (in order, disjoint) are left out.
    pub skip: &'a [Range<usize>],
    /// The root is an ERROR node whose children that are left in are sound items: their
    /// functions are kept (by default everything inside an ERROR node is dropped).
    pub trust_root_error: bool,
}

/// [`functions_of`]; `items_from_functions` lets a function's own walk find the file items
/// of its body (the tests compare with the file walk going down itself).
fn walk_file(
    spec: &dyn LanguageSpec,
    tree: &Tree,
    src: &str,
    items_from_functions: bool,
    top: &Top,
) -> FileFunctions {
    spec.new_tree();
    let mut out = FileFunctions {
        has_errors: tree.root_node().has_error(),
        ..Default::default()
    };
    let mut scopes: Vec<(usize, String)> = Vec::new();
    let mut ancestors: Vec<Node> = Vec::new();
    let mut in_error = 0usize; // ERROR ancestors of the current node
                               // The outermost ERROR node or dropped function being walked outside any kept function:
                               // what it holds is counted as at least as many functions as their shapes say
                               // ([`LanguageSpec::opens_function`]; tree-sitter may not show them as function nodes).
    let mut lost: Option<Lost> = None;
    // The depths of the kept functions above the current node.
    let mut kept: Vec<usize> = Vec::new();
    let mut skip = top.skip.iter().peekable();
    let mut cursor = tree.walk();
    // Cursors the functions' own walks reuse (a new one allocates its stack).
    let mut function_cursors = Vec::new();
    let mut kinds = KindFlags::new(spec, grammar::of(tree.root_node()));
    // The earlier siblings of the current node and of each of its ancestors, and where
    // each level's start ([`Around`]).
    let mut before: Vec<Node> = Vec::new();
    let mut starts: Vec<usize> = vec![0];
    'walk: loop {
        let node = cursor.node();
        let depth = ancestors.len();
        let left_out = depth == 1 && {
            let at = node.start_byte();
            while skip.next_if(|r| r.end <= at).is_some() {}
            skip.peek().is_some_and(|r| r.start <= at)
        };
        let id = node.kind_id();
        let flags = kinds.get(id);
        // `Node::is_error`, without asking tree-sitter again.
        let is_error = id == u16::MAX;
        let counted_error = is_error && !(depth == 0 && top.trust_root_error);
        let dropped_before = out.dropped_syntax_error;
        // Classes and other items inside functions nested beyond the limit are not recorded
        // either: each holds its scope's qualified name, which grows with the depth.
        if in_error == 0
            && flags & flag::FILE_ITEM != 0
            && !left_out
            && kept.len() < MAX_FUNCTION_NESTING
        {
            let scope = || join_scopes(&scopes, spec.separator());
            spec.file_item(node, &scope, src, &mut out.info);
        }
        let function = if flags & flag::FUNCTION != 0 && !left_out {
            spec.function(node, &ancestors, src)
        } else {
            None
        };
        // Whether the walk goes below this node: asked once, before a function is built.
        let mut descend = !left_out
            && (is_error
                || (out.has_errors && node.has_error())
                || spec.may_contain_functions(node, src));
        let is_function = function.is_some();
        let mut is_scope = false;
        if let Some((kind, name)) = function {
            // An error that does not touch the name or parameters (in C, mostly a macro that
            // tree-sitter cannot parse, such as `va_arg(ap, char *)` or `LUA_API void f()`)
            // leaves the name and span reliable: the function is kept and flagged. Inside an
            // ERROR node, or with a broken name or parameter list, it is dropped.
            let body_only =
                node.has_error() && spec.body(node).is_some() && !signature_has_error(spec, node);
            if in_error > 0 || node.has_error() && !body_only {
                out.dropped_syntax_error += 1;
                scopes.push((depth, name));
            } else if kept.len() >= MAX_FUNCTION_NESTING {
                out.dropped_nesting += 1;
                scopes.push((depth, name));
            } else {
                let outer = join_scopes(&scopes, spec.separator());
                let sep = spec.separator();
                let qualified_name = qualify(&outer, sep, &name);
                let simple = spec.simple_name(&name).to_string();
                let scope = qualified_name
                    .strip_suffix(simple.as_str())
                    .and_then(|s| s.strip_suffix(sep))
                    .unwrap_or_default()
                    .to_string();
                // The function's own walk visits every node of its body: where the body
                // holds no function or scope, it also finds the file items this walk would
                // meet below, and this walk need not go down there at all.
                let mut inner =
                    (items_from_functions && descend && !node.has_error()).then(Inner::default);
                // The deepest function extracted takes the calls of those nested in it.
                let nested =
                    spec.nested_functions_extracted() && kept.len() + 1 < MAX_FUNCTION_NESTING;
                let mut f = build(
                    spec,
                    Found {
                        node,
                        kind,
                        name: simple,
                        qualified_name,
                        scope,
                    },
                    src,
                    &Around {
                        before: &before,
                        starts: &starts,
                        ancestors: &ancestors,
                    },
                    &mut function_cursors,
                    &mut kinds,
                    inner.as_mut(),
                    nested,
                );
                f.syntax_error = body_only;
                out.functions.push(f);
                scopes.push((depth, name));
                kept.push(depth);
                if let Some(inner) = inner.filter(|i| !i.descend) {
                    descend = false;
                    if !inner.items.is_empty() {
                        let scope = join_scopes(&scopes, sep);
                        for item in inner.items {
                            spec.file_item(item, &|| scope.clone(), src, &mut out.info);
                        }
                    }
                }
            }
        } else if flags & flag::SCOPE != 0 && !left_out {
            if let Some(scope) = spec.scope(node, &ancestors, src) {
                scopes.push((depth, scope));
                is_scope = true;
            }
        }
        let dropped_here = out.dropped_syntax_error > dropped_before;
        // A top-level declaration with an error that is neither a function nor a scope
        // (`int broken( {` read as a prototype whose parameters run on): what it holds is
        // counted by its shapes too. Scopes and `#if` blocks hold whole items, counted as
        // such.
        let broken_item = depth == 1
            && out.has_errors
            && !is_function
            && !is_scope
            && !node.kind_str().starts_with("preproc_")
            && node.has_error();
        if lost.is_none()
            && kept.is_empty()
            && (counted_error || dropped_here || broken_item)
            && !left_out
        {
            lost = Some(Lost {
                node: node.id(),
                shapes: function_shapes(spec, node, src),
                dropped: dropped_before,
                functions: out.functions.len(),
            });
        }
        if descend && cursor.goto_first_child() {
            in_error += usize::from(counted_error);
            ancestors.push(node);
            starts.push(before.len());
            continue;
        }
        if let Some(l) = lost.take_if(|l| l.node == node.id()) {
            l.settle(&mut out);
        }
        let mut here = node;
        loop {
            let depth = ancestors.len();
            while scopes.last().is_some_and(|(d, _)| *d >= depth) {
                scopes.pop();
            }
            while kept.last().is_some_and(|d| *d >= depth) {
                kept.pop();
            }
            if cursor.goto_next_sibling() {
                before.push(here);
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
            if let Some(parent) = ancestors.pop() {
                let counted =
                    parent.kind_id() == u16::MAX && !(ancestors.is_empty() && top.trust_root_error);
                in_error -= usize::from(counted);
                if let Some(l) = lost.take_if(|l| l.node == parent.id()) {
                    l.settle(&mut out);
                }
                here = parent;
            }
            if let Some(from) = starts.pop() {
                before.truncate(from);
            }
        }
    }
    out
}

/// A region of the tree that lost functions to a syntax error: an ERROR node or a dropped
/// function.
struct Lost {
    node: usize,
    /// The functions its leaves open ([`function_shapes`]).
    shapes: usize,
    /// The drop count and the functions kept when the walk met it.
    dropped: usize,
    functions: usize,
}

impl Lost {
    /// Counts the functions the region's shapes show beyond those the walk found in it.
    fn settle(self, out: &mut FileFunctions) {
        let found =
            (out.dropped_syntax_error - self.dropped) + (out.functions.len() - self.functions);
        out.dropped_syntax_error += self.shapes.saturating_sub(found);
    }
}

/// How many functions the leaves below `node` open by their shape
/// ([`LanguageSpec::opens_function`]; for `name(` after a type, when a `{` follows before a
/// `;`): the functions of text that tree-sitter could not parse, where no function node
/// shows them. Leaves are looked at in order, with the two
/// leaves before each on the same line.
fn function_shapes(spec: &dyn LanguageSpec, node: Node, src: &str) -> usize {
    let mut count = 0;
    let mut cursor = node.walk();
    // The last two leaves: (row, text).
    let mut last: [Option<(usize, &str)>; 2] = [None, None];
    // A `name(` after a type was seen, and no `{` or `;` since.
    let mut pending = false;
    loop {
        let n = cursor.node();
        let leaf = n.child_count() == 0 || spec.atomic_token(n.kind_str());
        if leaf && !n.is_extra() && n.end_byte() > n.start_byte() {
            let row = n.start_position().row;
            let text = &src[n.byte_range()];
            let same = |k: usize| last[k].filter(|(r, _)| *r == row).map(|(_, t)| t);
            if spec.opens_function(text, [same(0), same(1)]) {
                // `int f(` opens a definition only if a `{` comes before a `;`: a
                // prototype (`int f(int);`) is none. A keyword (`def`) opens one at once.
                if text == "(" {
                    pending = true;
                } else {
                    count += 1;
                }
            } else if pending && text.contains('{') {
                count += 1;
                pending = false;
            } else if pending && text.contains(';') {
                pending = false;
            }
            last = [Some((row, text)), last[0]];
        }
        if !leaf && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() || cursor.node() == node {
                return count;
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn build<'t>(
    spec: &dyn LanguageSpec,
    f: Found<'t>,
    src: &str,
    around: &Around<'_, 't>,
    cursors: &mut Vec<tree_sitter::TreeCursor<'t>>,
    kinds: &mut KindFlags,
    inner: Option<&mut Inner<'t>>,
    nested: bool,
) -> Function {
    let node = f.node;
    let range = node.byte_range();
    let doc = spec.docstring(node, around, src);
    let skip = doc.as_ref().and_then(|d| d.inner_node).map(|n| n.id());
    let body_start = spec.body(node).map_or(range.end, |b| b.start_byte());
    let walked = walk_function(spec, node, cursors, src, skip, kinds, inner, nested);
    let signature = src[range.start..body_start].trim_end();
    let start_line = node.start_position().row as u32 + 1;
    let (docstring, csn_docstring) = match doc {
        Some(d) if !d.text.is_empty() => (Some(d.text), d.published),
        _ => (None, None),
    };
    let function_parser_name = spec.function_parser_name(node, &f.qualified_name, src);
    Function {
        name: f.name,
        qualified_name: f.qualified_name,
        function_parser_name,
        kind: f.kind,
        signature: signature.to_string(),
        signature_end_line: start_line + signature.matches('\n').count() as u32,
        code: src[range.clone()].to_string(),
        docstring,
        csn_docstring,
        code_tokens: walked.tokens,
        scope: f.scope,
        details: spec.details(node, src),
        param_names: spec.param_names(node, src),
        calls: walked.calls,
        locals: walked.locals,
        syntax_error: false,
        start_line,
        end_line: node.end_position().row as u32 + 1,
        byte_range: range,
    }
}

#[derive(Default)]
struct Walked {
    tokens: Tokens,
    calls: Vec<CallSite>,
    locals: Vec<(String, String)>,
}

/// One pass over a function's subtree: the leaf tokens in source order (function_parser's
/// `tokenize_code`, string literals as single tokens, the `skip` node, the docstring, left
/// out), the call sites and the typed local declarations. Calls and locals inside a nested
/// function that is extracted on its own (`nested`) are left to that function.
#[allow(clippy::too_many_arguments)]
fn walk_function<'t>(
    spec: &dyn LanguageSpec,
    node: Node<'t>,
    cursors: &mut Vec<tree_sitter::TreeCursor<'t>>,
    src: &str,
    skip: Option<usize>,
    kinds: &mut KindFlags,
    mut inner: Option<&mut Inner<'t>>,
    nested: bool,
) -> Walked {
    // Token text is at most the function's text; the spare room is given back at the end.
    let mut out = Walked {
        tokens: Tokens::with_capacity(node.byte_range().len()),
        ..Default::default()
    };
    // Depth of the nested function being passed, if any.
    let mut nested_at: Option<usize> = None;
    // The nodes above the current one, from the function down: `function` gets them as its
    // ancestors (cheaper than `Node::parent`, which descends from the root every time).
    let mut parents: Vec<Node> = Vec::new();
    // The children still to visit of each of `parents`.
    let mut frames: Vec<Children> = Vec::new();
    // For `inner`: whether the file walk would go below each of `parents`, as far as asked.
    let mut reach: Vec<bool> = Vec::new();
    let g = kinds.grammar;
    let (mut n, mut index) = (node, 0u32);
    'walk: loop {
        let depth = parents.len();
        if nested_at.is_some_and(|d| depth <= d) {
            nested_at = None;
        }
        let id = n.kind_id();
        let flags = kinds.get(id);
        let atomic = flags & flag::ATOMIC != 0;
        let skipped = Some(n.id()) == skip;
        let token = !skipped && flags & flag::HIDDEN == 0;
        if let Some(inner) = inner.as_deref_mut().filter(|i| depth > 0 && !i.descend) {
            if flags & (flag::FUNCTION | flag::SCOPE) != 0 {
                inner.descend = true;
            } else {
                if flags & flag::FILE_ITEM != 0
                    && file_walk_reaches(spec, &parents, &mut reach, src)
                {
                    inner.items.push(n);
                }
                // Below a node this walk does not enter, the file walk might find what this
                // one cannot see.
                if (skipped || atomic)
                    && n.child_count() > 0
                    && spec.may_contain_functions(n, src)
                    && file_walk_reaches(spec, &parents, &mut reach, src)
                {
                    inner.descend = true;
                }
            }
        }
        if token && atomic {
            push_leaf(spec, flags, &mut out.tokens, n, src);
        }
        if nested_at.is_none() && !skipped {
            if depth > 0
                && nested
                && flags & flag::FUNCTION != 0
                && spec.function(n, &parents, src).is_some()
            {
                nested_at = Some(depth);
            } else if flags & flag::VISIT != 0 && n.is_named() {
                let place = Place {
                    parent: parents.last().copied(),
                    index,
                };
                let kind = g.name(id);
                spec.visit(n, kind, src, place, &mut out.calls, &mut out.locals);
            }
        }
        if !skipped && !atomic {
            let count = n.child_count();
            if count == 0 {
                if token {
                    push_leaf(spec, flags, &mut out.tokens, n, src);
                }
            } else {
                parents.push(n);
                frames.push(if count <= CHILDREN_BY_INDEX {
                    Children::ByIndex { next: 0, count }
                } else {
                    let mut c = cursors.pop().unwrap_or_else(|| n.walk());
                    c.reset(n);
                    Children::Cursor(c, None)
                });
            }
        }
        // The next node: the next child of the innermost parent that has one left.
        loop {
            let (Some(parent), Some(frame)) = (parents.last(), frames.last_mut()) else {
                break 'walk;
            };
            if let Some((child, i)) = frame.next(*parent) {
                (n, index) = (child, i);
                break;
            }
            if let Some(Children::Cursor(c, _)) = frames.pop() {
                cursors.push(c);
            }
            parents.pop();
            reach.truncate(parents.len());
        }
    }
    // A function's lists live as long as the repository's run: no spare capacity.
    out.tokens.shrink_to_fit();
    out.calls.shrink_to_fit();
    out.locals.shrink_to_fit();
    out
}

/// Up to this many children, a function's walk finds each by its index (tree-sitter's
/// steps from child to child are cheap, a cursor's moves are not); past it, with a cursor
/// (indexing walks from the first child every time).
const CHILDREN_BY_INDEX: u32 = 12;

/// The children of a node that a function's walk has still to visit.
enum Children<'t> {
    ByIndex {
        next: u32,
        count: u32,
    },
    /// A cursor on the parent, then on the child last given, with its index.
    Cursor(tree_sitter::TreeCursor<'t>, Option<u32>),
}

impl<'t> Children<'t> {
    /// The next child of `parent` (the node these are the children of), and its index.
    fn next(&mut self, parent: Node<'t>) -> Option<(Node<'t>, u32)> {
        match self {
            Children::ByIndex { next, count } => {
                while *next < *count {
                    let i = *next;
                    *next += 1;
                    if let Some(c) = parent.child(i) {
                        return Some((c, i));
                    }
                }
                None
            }
            Children::Cursor(c, at) => {
                let i = match at {
                    None => c.goto_first_child().then_some(0)?,
                    Some(i) => c.goto_next_sibling().then_some(*i + 1)?,
                };
                *at = Some(i);
                Some((c.node(), i))
            }
        }
    }
}

/// What a function's own walk found for the file walk (`functions_of`) below the function.
#[derive(Default)]
struct Inner<'t> {
    /// The file items the file walk would meet below the function, in its order.
    items: Vec<Node<'t>>,
    /// The file walk has to go down itself: a function or scope kind is below (or a
    /// subtree the function's walk does not enter).
    descend: bool,
}

/// Whether the file walk reaches the children of the last of `parents` (the first is the
/// function, which it enters): it enters a node where the spec says a function may be
/// below. `reach[i]` caches the answer for `parents[i]`.
fn file_walk_reaches(
    spec: &dyn LanguageSpec,
    parents: &[Node],
    reach: &mut Vec<bool>,
    src: &str,
) -> bool {
    while reach.len() < parents.len() {
        let i = reach.len();
        let yes = i == 0 || reach[i - 1] && spec.may_contain_functions(parents[i], src);
        reach.push(yes);
    }
    reach.last().copied().unwrap_or(true)
}

/// Appends the tokens of the leaf or atomic node `n`: its text, or the tokens the old
/// grammar gave for its kind ([`LanguageSpec::leaf_tokens`]).
fn push_leaf(spec: &dyn LanguageSpec, flags: u8, tokens: &mut Tokens, n: Node, src: &str) {
    match (flags & flag::SPLIT != 0)
        .then(|| spec.leaf_tokens(n.kind_str()))
        .flatten()
    {
        Some(parts) => parts.iter().for_each(|t| tokens.push(t)),
        None => push_token(tokens, n, src),
    }
}

/// Appends the text of the leaf or atomic node `n` to `tokens`, unless empty.
fn push_token(tokens: &mut Tokens, n: Node, src: &str) {
    let text = &src[n.byte_range()];
    if !text.is_empty() {
        tokens.push(text);
    }
}

/// The text of `node`.
pub fn text<'s>(node: Node, src: &'s str) -> &'s str {
    &src[node.byte_range()]
}

/// The comments directly before `node` (no blank line, no code between), oldest first;
/// `before` are its earlier siblings ([`Around::before`]). A comment that trails code on the
/// same line is not taken.
pub fn leading_comments<'t>(
    node: Node<'t>,
    before: &[Node<'t>],
    is_comment: impl Fn(&str) -> bool,
) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut next_start_row = node.start_position().row;
    let mut k = before.len();
    while let Some(&p) = k.checked_sub(1).and_then(|i| before.get(i)) {
        if !is_comment(p.kind_str()) || p.end_position().row + 1 < next_start_row {
            break;
        }
        k -= 1;
        let earlier = k.checked_sub(1).and_then(|i| before.get(i));
        if earlier.is_some_and(|b| {
            b.end_position().row == p.start_position().row && !is_comment(b.kind_str())
        }) {
            break;
        }
        out.push(p);
        next_start_row = p.start_position().row;
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A language the registry does not know: the Python grammar, functions are
    /// `function_definition`s named by their `name` field, no scopes, no docstrings, items
    /// start with `def `. The walker, the windows and error recovery take it as they take
    /// the registry's languages: the core needs nothing of a language but its spec.
    struct Toy;

    impl LanguageSpec for Toy {
        fn name(&self) -> &'static str {
            "toy"
        }
        fn grammar(&self) -> tree_sitter::Language {
            tree_sitter_python::LANGUAGE.into()
        }
        fn function(&self, node: Node, _: &[Node], src: &str) -> Option<(FunctionKind, String)> {
            if node.kind() != "function_definition" {
                return None;
            }
            let name = text(node.child_by_field_name("name")?, src);
            Some((FunctionKind::Function, name.to_string()))
        }
        fn scope(&self, _: Node, _: &[Node], _: &str) -> Option<String> {
            None
        }
        fn docstring<'t>(&self, _: Node<'t>, _: &Around<'_, 't>, _: &str) -> Option<Docstring<'t>> {
            None
        }
        fn atomic_token(&self, kind: &str) -> bool {
            kind == "string"
        }
        fn window_scanner(&self) -> Option<window::Scanner> {
            Some(window::Scanner::Indentation)
        }
        fn starts_item(&self, rest: &[u8]) -> bool {
            rest.starts_with(b"def ")
        }
    }

    #[test]
    fn the_core_walks_a_language_the_registry_does_not_know() {
        let toy: Spec = &Toy;
        let src = "def a(x):\n    return b(x)\n\ndef b(y):\n    return 'y'\n";
        let whole = Extractor::default().extract(toy, src).expect("parses");
        let names: Vec<&str> = whole.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(
            whole.functions[1].code_tokens.to_vec()[..4],
            ["def", "b", "(", "y"]
        );
        assert!(whole.functions[1]
            .code_tokens
            .to_vec()
            .contains(&"'y'".to_string()));
        // Cut before `def b`, by the toy's own item rule, and parsed window by window.
        assert_eq!(window::cuts(toy, src, 1).len(), 1);
        let mut ex = Extractor::with_windows(1, 1);
        assert_eq!(ex.extract(toy, src).expect("parses"), whole);
        assert_eq!(ex.windowed_files(), 1);
        // A broken item costs only itself: recovery restarts at the toy's next item.
        let broken =
            "def a(x):\n    return b(x)\n\ndef broken(:\n    pass\n\ndef b(y):\n    return 'y'\n";
        let got = Extractor::default().extract(toy, broken).expect("parses");
        let names: Vec<&str> = got.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert!(got.has_errors);
    }
}
