//! Python's standard library: `sys.stdlib_module_names` and the builtins.

crate::stdlib::list!(modules, "python_stdlib_modules.txt");
crate::stdlib::list!(builtins, "python_builtins.txt");

/// A top-level module of Python's standard library.
pub fn is_python_module(top: &str) -> bool {
    modules().contains(top)
}

/// A Python builtin.
pub fn is_python_builtin(name: &str) -> bool {
    builtins().contains(name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn lists_load() {
        assert!(super::is_python_module("os") && !super::is_python_module("requests"));
        assert!(super::is_python_builtin("len") && !super::is_python_builtin("__name__"));
    }
}
