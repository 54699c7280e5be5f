//! The .NET base class library: the public type names of its `System.*` namespaces,
//! generated from Mono's reference assemblies (`data/generate.sh`).

crate::stdlib::list!(types, "dotnet_bcl_types.txt");

/// A type of the base class library (`List`, `Console`, `HttpClient`).
pub fn is_bcl_type(name: &str) -> bool {
    types().contains(name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn list_loads() {
        assert!(super::is_bcl_type("List") && super::is_bcl_type("Console"));
        assert!(super::is_bcl_type("HttpClient") && super::is_bcl_type("StringBuilder"));
        assert!(!super::is_bcl_type("JsonConvert") && !super::is_bcl_type("Store"));
    }
}
