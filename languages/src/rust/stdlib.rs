//! Rust's standard library (std, with the core and alloc it re-exports): its type and
//! trait names and its method names, generated from its own documentation (`data/`), and
//! the crates and prelude functions every crate can name.

crate::stdlib::list!(types, "rust_std_types.txt");
crate::stdlib::list!(methods, "rust_std_methods.txt");

/// The crates of the standard distribution that a path can start with.
pub fn is_std_crate(name: &str) -> bool {
    matches!(name, "std" | "core" | "alloc" | "proc_macro" | "test")
}

/// A type or trait of the standard library (`HashMap`, `Vec`, `Iterator`), or a primitive.
pub fn is_std_type(name: &str) -> bool {
    types().contains(name)
        || matches!(
            name,
            "bool" | "char" | "str" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8"
                | "i16" | "i32" | "i64" | "i128" | "isize" | "f32" | "f64"
        )
}

/// A method of a type or trait of the standard library (`clone`, `push`, `unwrap`).
pub fn is_std_method(name: &str) -> bool {
    methods().contains(name)
}

/// What a plain call can name without a `use` (the prelude's functions and the variants of
/// `Option` and `Result`, which are called like functions).
pub fn is_prelude_call(name: &str) -> bool {
    matches!(name, "drop" | "Some" | "Ok" | "Err")
}

#[cfg(test)]
mod tests {
    #[test]
    fn lists_load() {
        assert!(super::is_std_type("HashMap") && super::is_std_type("Iterator"));
        assert!(super::is_std_type("u8") && !super::is_std_type("MyType"));
        assert!(super::is_std_method("unwrap") && super::is_std_method("push"));
        assert!(!super::is_std_method("frobnicate_widgets"));
    }
}
