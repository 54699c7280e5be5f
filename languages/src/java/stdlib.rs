//! The JDK: its packages and the `java.lang` types.

crate::stdlib::list!(jdk_packages, "java_jdk_packages.txt");
crate::stdlib::list!(java_lang, "java_lang_types.txt");

/// A package of the JDK (exported by a `java.*` or `jdk.*` module).
pub fn is_jdk_package(package: &str) -> bool {
    jdk_packages().contains(package)
}

/// A public top-level type of `java.lang` (implicitly imported).
pub fn is_java_lang_type(name: &str) -> bool {
    java_lang().contains(name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn lists_load() {
        assert!(super::is_jdk_package("java.util") && super::is_jdk_package("javax.swing"));
        assert!(!super::is_jdk_package("javax.servlet"));
        assert!(super::is_java_lang_type("String") && !super::is_java_lang_type("List"));
    }
}
