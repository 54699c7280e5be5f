//! TypeScript's [`crate::extract::LanguageSpec`]: JavaScript's, with TypeScript's grammar,
//! and the TSX grammar for `.tsx` files (dialect 1).

use super::TypeScript;

crate::javascript::extract::ecma_spec!(
    TypeScript,
    "typescript",
    tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
    dialects: |path: &str| u8::from(path.ends_with(".tsx")),
    |dialect: u8| if dialect == 1 {
        tree_sitter_typescript::LANGUAGE_TSX.into()
    } else {
        tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
    }
);
