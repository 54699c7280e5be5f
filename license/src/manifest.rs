//! License fields of package manifests, as SPDX expressions:
//!
//! | file | field |
//! |---|---|
//! | `package.json` | `license` (a string, or the deprecated `{"type": ...}` / `licenses: [{"type": ...}]`, joined with OR) |
//! | `composer.json` | `license` (a string, or an array meaning any of them: OR) |
//! | `Cargo.toml` | `package.license` |
//! | `pyproject.toml` | `project.license` (a PEP 639 expression, or the older `{text = ...}`) |
//! | `setup.cfg` | `license` of `[metadata]` |
//!
//! A value that is no SPDX expression (free text such as "BSD License", `SEE LICENSE IN
//! ...`, `UNLICENSED`) is not taken; the folder's license files decide then.

/// The manifests read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    PackageJson,
    ComposerJson,
    CargoToml,
    PyprojectToml,
    SetupCfg,
}

impl Kind {
    pub fn of(file_name: &str) -> Option<Self> {
        Some(match file_name {
            "package.json" => Kind::PackageJson,
            "composer.json" => Kind::ComposerJson,
            "Cargo.toml" => Kind::CargoToml,
            "pyproject.toml" => Kind::PyprojectToml,
            "setup.cfg" => Kind::SetupCfg,
            _ => return None,
        })
    }

    /// The license expression a manifest declares, if it declares a valid one.
    pub fn license(self, text: &str) -> Option<spdx::Expression> {
        let raw = match self {
            Kind::PackageJson | Kind::ComposerJson => {
                let v: serde_json::Value = serde_json::from_str(text).ok()?;
                json_license(&v)?
            }
            Kind::CargoToml => {
                let v: toml::Table = toml::from_str(text).ok()?;
                v.get("package")?.get("license")?.as_str()?.to_string()
            }
            Kind::PyprojectToml => {
                let v: toml::Table = toml::from_str(text).ok()?;
                let l = v.get("project")?.get("license")?;
                match l {
                    toml::Value::String(s) => s.clone(),
                    toml::Value::Table(t) => t.get("text")?.as_str()?.to_string(),
                    _ => return None,
                }
            }
            Kind::SetupCfg => setup_cfg_license(text)?,
        };
        parse(&raw)
    }
}

/// `license` as npm and Composer write it.
fn json_license(v: &serde_json::Value) -> Option<String> {
    let of = |x: &serde_json::Value| -> Option<String> {
        match x {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Object(o) => o.get("type")?.as_str().map(str::to_string),
            _ => None,
        }
    };
    let any_of = |items: &Vec<serde_json::Value>| -> Option<String> {
        let names: Vec<String> = items.iter().filter_map(of).collect();
        match names.len() {
            0 => None,
            1 => names.into_iter().next(),
            _ => Some(
                names
                    .iter()
                    .map(|n| {
                        if n.contains(' ') {
                            format!("({n})")
                        } else {
                            n.clone()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" OR "),
            ),
        }
    };
    match v.get("license") {
        Some(serde_json::Value::Array(items)) => any_of(items),
        Some(x) => of(x),
        None => match v.get("licenses") {
            Some(serde_json::Value::Array(items)) => any_of(items),
            _ => None,
        },
    }
}

/// `license = ...` in the `[metadata]` section of an INI file.
fn setup_cfg_license(text: &str) -> Option<String> {
    let mut in_metadata = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_metadata = t == "[metadata]";
        } else if in_metadata {
            if let Some((k, v)) = t.split_once(['=', ':']) {
                if k.trim() == "license" {
                    return Some(v.trim().to_string());
                }
            }
        }
    }
    None
}

/// An SPDX expression in its canonical form, read leniently (`GPL-2.0+` becomes
/// `GPL-2.0-or-later`, `Apache 2.0` `Apache-2.0`, `/` OR, as the `spdx` crate canonicalises).
pub fn parse(raw: &str) -> Option<spdx::Expression> {
    let raw = raw.trim();
    if raw.is_empty() {
        return None;
    }
    let canonical = spdx::Expression::canonicalize(raw).ok()?;
    spdx::Expression::parse(canonical.as_deref().unwrap_or(raw)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lic(kind: Kind, text: &str) -> Option<String> {
        kind.license(text).map(|e| e.to_string())
    }

    #[test]
    fn manifest_fields() {
        assert_eq!(
            lic(Kind::PackageJson, r#"{"license": "MIT"}"#).as_deref(),
            Some("MIT")
        );
        assert_eq!(
            lic(
                Kind::PackageJson,
                r#"{"licenses": [{"type": "MIT"}, {"type": "Apache-2.0"}]}"#
            )
            .as_deref(),
            Some("MIT OR Apache-2.0")
        );
        assert_eq!(
            lic(Kind::PackageJson, r#"{"license": "SEE LICENSE IN x.txt"}"#),
            None
        );
        assert_eq!(
            lic(
                Kind::ComposerJson,
                r#"{"license": ["LGPL-2.1-only", "GPL-3.0-or-later"]}"#
            )
            .as_deref(),
            Some("LGPL-2.1-only OR GPL-3.0-or-later")
        );
        assert_eq!(
            lic(
                Kind::CargoToml,
                "[package]\nname = \"x\"\nlicense = \"MIT OR Apache-2.0\"\n"
            )
            .as_deref(),
            Some("MIT OR Apache-2.0")
        );
        assert_eq!(
            lic(
                Kind::PyprojectToml,
                "[project]\nlicense = {text = \"BSD-3-Clause\"}\n"
            )
            .as_deref(),
            Some("BSD-3-Clause")
        );
        assert_eq!(
            lic(
                Kind::SetupCfg,
                "[metadata]\nname = x\nlicense = Apache-2.0\n[options]\n"
            )
            .as_deref(),
            Some("Apache-2.0")
        );
        assert_eq!(lic(Kind::SetupCfg, "[options]\nlicense = MIT\n"), None);
        assert_eq!(
            lic(Kind::PackageJson, r#"{"license": "GPL-2.0+"}"#).as_deref(),
            Some("GPL-2.0-or-later")
        );
    }
}
