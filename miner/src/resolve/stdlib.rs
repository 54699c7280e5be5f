//! Standard-library symbol lists, generated from maintained sources (each data file's header
//! says how): C standard library and POSIX functions and headers, C++ standard headers, the
//! JDK's packages and `java.lang` types, Python's `sys.stdlib_module_names` and builtins.

use std::collections::HashSet;
use std::sync::OnceLock;

fn set(data: &'static str) -> HashSet<&'static str> {
    data.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

macro_rules! list {
    ($name:ident, $file:literal) => {
        fn $name() -> &'static HashSet<&'static str> {
            static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
            SET.get_or_init(|| set(include_str!(concat!("data/", $file))))
        }
    };
}

list!(c_functions, "c_stdlib_functions.txt");
list!(c_headers, "c_std_headers.txt");
list!(cpp_headers, "cpp_std_headers.txt");
list!(jdk_packages, "java_jdk_packages.txt");
list!(java_lang, "java_lang_types.txt");
list!(py_modules, "python_stdlib_modules.txt");
list!(py_builtins, "python_builtins.txt");

/// A function (or function-like macro) of the C standard library or POSIX.
pub fn is_c_function(name: &str) -> bool {
    c_functions().contains(name)
}

/// A header of the C or C++ standard library, POSIX or the system (`linux/...`).
pub fn is_std_header(path: &str) -> bool {
    if c_headers().contains(path) || cpp_headers().contains(path) {
        return true;
    }
    // Lines ending in '/' are prefixes.
    path.split_inclusive('/')
        .next()
        .is_some_and(|first| first.ends_with('/') && c_headers().contains(first))
}

/// A package of the JDK (exported by a `java.*` or `jdk.*` module).
pub fn is_jdk_package(package: &str) -> bool {
    jdk_packages().contains(package)
}

/// A public top-level type of `java.lang` (implicitly imported).
pub fn is_java_lang_type(name: &str) -> bool {
    java_lang().contains(name)
}

/// A top-level module of Python's standard library.
pub fn is_python_module(top: &str) -> bool {
    py_modules().contains(top)
}

/// A Python builtin.
pub fn is_python_builtin(name: &str) -> bool {
    py_builtins().contains(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_load() {
        assert!(is_c_function("printf") && is_c_function("pthread_create"));
        assert!(!is_c_function("errno") && !is_c_function("main"));
        assert!(is_std_header("stdio.h") && is_std_header("linux/if.h") && is_std_header("vector"));
        assert!(!is_std_header("openssl/ssl.h"));
        assert!(is_jdk_package("java.util") && is_jdk_package("javax.swing"));
        assert!(!is_jdk_package("javax.servlet"));
        assert!(is_java_lang_type("String") && !is_java_lang_type("List"));
        assert!(is_python_module("os") && !is_python_module("requests"));
        assert!(is_python_builtin("len") && !is_python_builtin("__name__"));
    }
}
