//! Interned strings for stats read back from disk: stats use `&'static str` for their
//! small closed vocabularies (languages, failure kinds, categories, statuses), and a marker
//! file written by an earlier run or another rank is turned back into them here. Each
//! distinct string is leaked once, so memory is bounded by the vocabulary.

use std::collections::{BTreeMap, HashSet};
use std::sync::{LazyLock, Mutex};

use serde::{Deserialize, Deserializer};

/// A `&'static str` field read back with [`de_str`]. The alias keeps serde's derive from
/// treating the field as borrowed from the input (it does so for a literal `&str` type).
pub type Label = &'static str;

static STRINGS: LazyLock<Mutex<HashSet<&'static str>>> =
    LazyLock::new(|| Mutex::new(HashSet::new()));

/// The interned copy of `s`.
pub fn intern(s: &str) -> &'static str {
    let mut set = match STRINGS.lock() {
        Ok(set) => set,
        Err(poisoned) => poisoned.into_inner(),
    };
    if let Some(&found) = set.get(s) {
        return found;
    }
    let leaked: &'static str = Box::leak(s.to_string().into_boxed_str());
    set.insert(leaked);
    leaked
}

/// `deserialize_with` for a `&'static str` field.
pub fn de_str<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let s = String::deserialize(d)?;
    Ok(intern(&s))
}

/// `deserialize_with` for an `Option<&'static str>` field.
pub fn de_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'static str>, D::Error> {
    let s = Option::<String>::deserialize(d)?;
    Ok(s.map(|s| intern(&s)))
}

/// `deserialize_with` for a `BTreeMap<&'static str, V>` field.
pub fn de_map<'de, D, V>(d: D) -> Result<BTreeMap<&'static str, V>, D::Error>
where
    D: Deserializer<'de>,
    V: Deserialize<'de>,
{
    let m = BTreeMap::<String, V>::deserialize(d)?;
    Ok(m.into_iter().map(|(k, v)| (intern(&k), v)).collect())
}

/// `deserialize_with` for a `Vec<&'static str>` field.
pub fn de_vec<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<&'static str>, D::Error> {
    let v = Vec::<String>::deserialize(d)?;
    Ok(v.iter().map(|s| intern(s)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_copy_per_string() {
        let a = intern(&String::from("python"));
        let b = intern("python");
        assert!(std::ptr::eq(a, b));
        assert_eq!(a, "python");
    }
}
