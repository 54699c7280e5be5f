//! Loading of the standard-library symbol lists that each language keeps in its `data/`
//! folder, generated from maintained sources (each data file's header says how).

use std::collections::HashSet;

/// The entries of a list file: one per line, `#` comments and blank lines skipped.
pub(crate) fn set(data: &'static str) -> HashSet<&'static str> {
    data.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// `list!(name, "file.txt")` defines `fn name() -> &'static HashSet<&'static str>`, the
/// entries of `data/file.txt` next to the calling module, loaded once.
macro_rules! list {
    ($name:ident, $file:literal) => {
        fn $name() -> &'static std::collections::HashSet<&'static str> {
            static SET: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
                std::sync::OnceLock::new();
            SET.get_or_init(|| $crate::stdlib::set(include_str!(concat!("data/", $file))))
        }
    };
}
pub(crate) use list;
