//! codemine's syntax core: what every language shares, naming none of them.
//!
//! [`extract`] is the grammar-agnostic tree-sitter walk: it finds the functions of a file
//! (their names, spans, code, docstrings, tokens and calls) under the rules a language
//! implements ([`extract::LanguageSpec`]), cuts huge files into windows and recovers the
//! functions after a syntax error. [`resolve`] is the resolver core: call-graph edges,
//! dependency categories and counts over a repository's files, the [`resolve::Resolver`]
//! trait a language's resolver implements, and [`resolve::Language`] with its handle
//! [`resolve::Lang`]. The languages themselves live in the crate above, `codemine-lang`,
//! which implements these traits and keeps the registry; this crate is tested with a toy
//! language of its own (`tests/it/toy.rs`), as ast-grep tests its core.
//!
//! A language is its rules. A toy one, over Python's grammar, whose functions are the
//! `function_definition`s, with no scopes and no docstrings:
//!
//! ```
//! use codemine_syntax::extract::{Around, Docstring, Extractor, FunctionKind, LanguageSpec, Spec};
//! use tree_sitter::Node;
//!
//! struct Toy;
//! impl LanguageSpec for Toy {
//!     fn name(&self) -> &'static str {
//!         "toy"
//!     }
//!     fn grammar(&self) -> tree_sitter::Language {
//!         tree_sitter_python::LANGUAGE.into()
//!     }
//!     fn function(&self, n: Node, _: &[Node], src: &str) -> Option<(FunctionKind, String)> {
//!         let name = n.child_by_field_name("name").filter(|_| n.kind() == "function_definition")?;
//!         Some((FunctionKind::Function, src[name.byte_range()].to_string()))
//!     }
//!     fn scope(&self, _: Node, _: &[Node], _: &str) -> Option<String> {
//!         None
//!     }
//!     fn docstring<'t>(&self, _: Node<'t>, _: &Around<'_, 't>, _: &str) -> Option<Docstring<'t>> {
//!         None
//!     }
//!     fn atomic_token(&self, kind: &str) -> bool {
//!         kind == "string"
//!     }
//! }
//!
//! let toy: Spec = &Toy;
//! let out = Extractor::default().extract(toy, "def f(x):\n    return g(x)\n").unwrap();
//! assert_eq!(out.functions[0].name, "f");
//! assert_eq!(out.functions[0].code_tokens.to_vec()[..4], ["def", "f", "(", "x"]);
//! ```

pub mod extract;
pub mod resolve;
