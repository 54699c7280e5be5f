//! The C++ standard library's headers.

crate::lang::stdlib::list!(headers, "cpp_std_headers.txt");

/// A header of the C++ standard library (`vector`, `cstdio`).
pub fn is_cpp_header(path: &str) -> bool {
    headers().contains(path)
}
