//! Go's standard library: its importable packages and the predeclared (builtin) functions
//! and types.

crate::stdlib::list!(packages, "go_std_packages.txt");
crate::stdlib::list!(builtins, "go_builtins.txt");

/// An import path of the standard library (`fmt`, `net/http`).
pub fn is_go_package(path: &str) -> bool {
    packages().contains(path)
}

/// A predeclared function or type (`len`, `append`, `error`, `string`).
pub fn is_go_builtin(name: &str) -> bool {
    builtins().contains(name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn lists_load() {
        assert!(super::is_go_package("fmt") && super::is_go_package("net/http"));
        assert!(super::is_go_package("slices") && !super::is_go_package("internal/abi"));
        assert!(!super::is_go_package("github.com/spf13/cobra"));
        assert!(super::is_go_builtin("append") && super::is_go_builtin("error"));
        assert!(super::is_go_builtin("max") && !super::is_go_builtin("Type"));
    }
}
