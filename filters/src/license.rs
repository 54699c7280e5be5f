//! The `license` rule: keep a function only when its file's license (an SPDX expression,
//! see the miner's license step) is allowed. `A OR B` passes when either is allowed, `A AND
//! B` when both are; an unknown license (no expression) never passes such a filter.

use std::collections::BTreeSet;

use spdx::{Expression, LicenseItem, ParseMode};

/// Licenses that ask only for attribution (The Stack's permissive set, as SPDX ids).
pub const PERMISSIVE: &[&str] = &[
    "0BSD",
    "AFL-3.0",
    "Apache-1.1",
    "Apache-2.0",
    "Artistic-2.0",
    "BlueOak-1.0.0",
    "BSD-1-Clause",
    "BSD-2-Clause",
    "BSD-2-Clause-Patent",
    "BSD-3-Clause",
    "BSD-3-Clause-Clear",
    "BSD-4-Clause",
    "BSL-1.0",
    "CC0-1.0",
    "CC-BY-4.0",
    "ECL-2.0",
    "ISC",
    "MIT",
    "MIT-0",
    "MS-PL",
    "MulanPSL-2.0",
    "NCSA",
    "PostgreSQL",
    "PSF-2.0",
    "Python-2.0",
    "Unlicense",
    "UPL-1.0",
    "WTFPL",
    "X11",
    "Zlib",
];

/// The allowed licenses of a `licenses` setting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowed {
    /// What the user wrote, for stats.json.
    pub names: Vec<String>,
    ids: BTreeSet<&'static str>,
    copyleft: bool,
}

impl Allowed {
    /// SPDX ids (any case) and the group names `permissive` ([`PERMISSIVE`]) and `copyleft`
    /// (every SPDX license the list marks copyleft). An unknown name is an error naming it.
    pub fn parse(names: &[String]) -> Result<Self, String> {
        if names.is_empty() {
            return Err("the list is empty".into());
        }
        let mut ids = BTreeSet::new();
        let mut copyleft = false;
        for n in names {
            match n.trim().to_ascii_lowercase().as_str() {
                "permissive" => ids.extend(
                    PERMISSIVE
                        .iter()
                        .filter_map(|p| spdx::license_id(p).map(|id| id.name)),
                ),
                "copyleft" => copyleft = true,
                _ => {
                    let id = spdx::license_id(n.trim())
                        .or_else(|| spdx::imprecise_license_id(n.trim()).map(|(id, _)| id))
                        .ok_or_else(|| {
                            format!(
                                "'{n}' is not an SPDX license id (nor `permissive` or `copyleft`)"
                            )
                        })?;
                    ids.insert(id.name);
                }
            }
        }
        Ok(Self {
            names: names.to_vec(),
            ids,
            copyleft,
        })
    }

    /// Whether a file under `expression` passes.
    pub fn keeps(&self, expression: Option<&str>) -> bool {
        let Some(Ok(expr)) = expression.map(|e| Expression::parse_mode(e, ParseMode::LAX)) else {
            return false;
        };
        expr.evaluate(|req| match &req.license {
            LicenseItem::Spdx { id, .. } => {
                self.ids.contains(id.name) || (self.copyleft && id.is_copyleft())
            }
            LicenseItem::Other(_) => false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(names: &[&str]) -> Allowed {
        Allowed::parse(&names.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn expressions_are_evaluated_as_spdx_says() {
        let p = allowed(&["permissive"]);
        assert!(p.keeps(Some("MIT")));
        assert!(p.keeps(Some("Apache-2.0 OR GPL-3.0-only")));
        assert!(!p.keeps(Some("Apache-2.0 AND GPL-3.0-only")));
        assert!(!p.keeps(Some("GPL-3.0-or-later")));
        assert!(!p.keeps(None));
        let c = allowed(&["copyleft"]);
        assert!(c.keeps(Some("GPL-3.0-only")) && c.keeps(Some("LGPL-2.1-or-later")));
        assert!(c.keeps(Some("MPL-2.0")) && !c.keeps(Some("MIT")));
        let one = allowed(&["mit", "BSD-3-Clause"]);
        assert!(one.keeps(Some("MIT")) && one.keeps(Some("BSD-3-Clause")));
        assert!(!one.keeps(Some("Apache-2.0")));
        assert!(Allowed::parse(&["not-a-license".into()]).is_err());
        assert!(Allowed::parse(&[]).is_err());
    }
}
