//! C: function definitions, `static` and `inline` included; prototypes are not functions.
//! The docstring is the comment block directly before the definition. The rules C shares
//! with C++ are in [`crate::cfamily::extract`].

use tree_sitter::Node;

use crate::extract::grammar::NodeExt;
use crate::extract::{
    text, Around, CallSite, Details, Docstring, FileInfo, FunctionKind, LanguageSpec,
};
use crate::cfamily::extract::{
    c_call, c_details, c_file_item, c_locals, c_may_contain_functions, comment_docstring,
    declarator_name,
};

use super::C;

impl LanguageSpec for C {
    fn name(&self) -> &'static str {
        "c"
    }
    fn window_scanner(&self) -> Option<crate::extract::window::Scanner> {
        Some(crate::extract::window::Scanner::Braces(
            crate::extract::window::Braces {
                preprocessor: true,
                trailing_comments: true,
                ..Default::default()
            },
        ))
    }
    fn items_follow_an_end(&self) -> bool {
        true
    }
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_c::LANGUAGE.into()
    }

    fn function(
        &self,
        node: Node,
        _ancestors: &[Node],
        src: &str,
    ) -> Option<(FunctionKind, String)> {
        if node.kind_str() != "function_definition" {
            return None;
        }
        let name = declarator_name(node)?;
        Some((FunctionKind::Function, text(name, src).to_string()))
    }

    fn scope(&self, _node: Node, _ancestors: &[Node], _src: &str) -> Option<String> {
        None
    }

    /// C has no nested functions: definitions sit at the top level, in preprocessor
    /// conditionals, or in `extern "C" { }` blocks.
    fn may_contain_functions(&self, node: Node, _src: &str) -> bool {
        c_may_contain_functions(node)
    }

    fn docstring<'t>(
        &self,
        node: Node<'t>,
        around: &Around<'_, 't>,
        src: &str,
    ) -> Option<Docstring<'t>> {
        comment_docstring(node, around.before(), src)
    }

    fn atomic_token(&self, kind: &str) -> bool {
        matches!(
            kind,
            "string_literal" | "char_literal" | "system_lib_string"
        )
    }

    fn file_item(&self, node: Node, _scope: &dyn Fn() -> String, src: &str, info: &mut FileInfo) {
        c_file_item(node, src, info);
    }

    fn call(&self, node: Node, kind: &str, src: &str) -> Option<CallSite> {
        c_call(node, kind, src)
    }

    fn details(&self, node: Node, src: &str) -> Details {
        c_details(node, src)
    }

    fn param_names(&self, node: Node, src: &str) -> Vec<String> {
        crate::cfamily::extract::c_param_names(node, src)
    }

    fn locals(&self, node: Node, kind: &str, src: &str, out: &mut Vec<(String, String)>) {
        c_locals(node, kind, src, out);
    }

    fn nested_functions_extracted(&self) -> bool {
        false
    }
}
