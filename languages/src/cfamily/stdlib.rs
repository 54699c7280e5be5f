//! The C standard library, POSIX, the system headers and the C++ standard headers: the
//! C-family resolver serves both languages.

crate::stdlib::list!(functions, "c_stdlib_functions.txt");
crate::stdlib::list!(headers, "c_std_headers.txt");
crate::stdlib::list!(cpp_headers, "cpp_std_headers.txt");

/// A function (or function-like macro) of the C standard library or POSIX.
pub fn is_c_function(name: &str) -> bool {
    functions().contains(name)
}

/// A header of the C or C++ standard library, POSIX or the system (`linux/...`).
pub fn is_std_header(path: &str) -> bool {
    if headers().contains(path) || is_cpp_header(path) {
        return true;
    }
    // Lines ending in '/' are prefixes.
    path.split_inclusive('/')
        .next()
        .is_some_and(|first| first.ends_with('/') && headers().contains(first))
}

/// A header of the C++ standard library (`vector`, `cstdio`).
pub fn is_cpp_header(path: &str) -> bool {
    cpp_headers().contains(path)
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
    }
}
