//! Licenses at the mined commit, offline: every folder's license files (`LICENSE*`,
//! `LICENCE*`, `COPYING*`, `UNLICENSE`) matched against the SPDX license list with
//! askalono's detector (the `spdx` crate, license texts built in), and the license fields of
//! its package manifests ([`manifest`]); a file's own `SPDX-License-Identifier:` header
//! overrides both. A file takes the license of the nearest folder above it that has one, so a
//! vendored folder with its own `LICENSE` keeps it.
//!
//! Several licenses in one folder give one SPDX expression: the manifest's own expression
//! when it names the same licenses, else `A OR B` for the dual-licensing convention of
//! per-license files (`LICENSE-MIT`, `LICENSE-APACHE`), else `A AND B`.
//!
//! ```
//! use codemine_license::Licenses;
//! let lic = Licenses::detect([("package.json", br#"{"name": "x", "license": "MIT"}"#.as_slice())]);
//! assert_eq!(lic.repository().unwrap().expression, "MIT");
//! assert_eq!(lic.for_file("src/a.py", b"# SPDX-License-Identifier: Apache-2.0\n").unwrap().expression, "Apache-2.0");
//! ```

pub mod manifest;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use spdx::detection::{scan::Scanner, Store, TextData};

/// A license found for a folder or a file.
#[derive(Clone, Debug, PartialEq)]
pub struct License {
    /// An SPDX license expression (`MIT`, `Apache-2.0 OR MIT`, `GPL-3.0-only`).
    pub expression: String,
    /// How sure the text match is (0-1); 1 for a declared expression (manifest, header).
    pub confidence: f32,
    /// Where it comes from: the license file, manifest or source file, repository-relative.
    pub file: String,
}

/// The least text-match score taken as a license (askalono's own default is 0.9; license
/// files with a different copyright line or a preamble score lower).
pub const MIN_CONFIDENCE: f32 = 0.8;

/// askalono's store of SPDX license texts, loaded once.
static STORE: LazyLock<Option<Store>> = LazyLock::new(|| Store::load_inline().ok());

/// The SPDX id of a license text and the match score, if it matches one well enough.
pub fn identify(text: &str) -> Option<(String, f32)> {
    let store = STORE.as_ref()?;
    let scanner = Scanner::new(store).confidence_threshold(MIN_CONFIDENCE);
    let result = scanner.scan(&TextData::new(text));
    let found = result.license?;
    // The store keeps deprecated ids (`GPL-2.0+`): give the current one.
    let id = manifest::parse(found.name).map_or_else(|| found.name.to_string(), |e| e.to_string());
    Some((base_license(&id, text).unwrap_or(id), result.score))
}

/// Licenses that are a common license's text with a clause changed: askalono can score the
/// variant higher when a file leaves out a part of the common text (Apache-2.0 without its
/// appendix matches Pixar's modified Apache-2.0 better), so the common license is taken when
/// the text has the clause only it has. (variant, common license, its clause)
const VARIANTS: &[(&str, &str, &str)] = &[(
    "Pixar",
    "Apache-2.0",
    "except as required for reasonable and customary use",
)];

fn base_license(id: &str, text: &str) -> Option<String> {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    VARIANTS
        .iter()
        .find(|(variant, _, clause)| *variant == id && flat.contains(clause))
        .map(|(_, base, _)| base.to_string())
}

/// Whether a file name is a license file: `LICENSE`, `LICENCE`, `COPYING` with any suffix
/// (`LICENSE.md`, `LICENSE-MIT`, `COPYING.LESSER`), or `UNLICENSE`, in any case.
pub fn is_license_file(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper == "UNLICENSE"
        || ["LICENSE", "LICENCE", "COPYING"]
            .iter()
            .any(|p| upper.starts_with(p))
}

/// Whether a file is one whose license fields are read ([`manifest`]).
pub fn is_manifest(name: &str) -> bool {
    manifest::Kind::of(name).is_some()
}

/// A file the detector reads: a license file or a manifest.
pub fn wanted(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    is_license_file(name) || is_manifest(name)
}

/// The licenses of one commit's folders.
#[derive(Clone, Debug, Default)]
pub struct Licenses {
    /// Folder (`""` for the root, else `a/b`) to its license.
    by_folder: BTreeMap<String, License>,
}

impl Licenses {
    /// Detects the licenses of a tree from its license files and manifests, given as
    /// (repository-relative path, content); other files are ignored.
    pub fn detect<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Self {
        #[derive(Default)]
        struct Folder {
            /// (file, SPDX id, score) of each recognised license file.
            texts: Vec<(String, String, f32)>,
            /// (file, expression) of each manifest license field.
            declared: Vec<(String, spdx::Expression)>,
        }
        let mut folders: BTreeMap<String, Folder> = BTreeMap::new();
        for (path, bytes) in files {
            let (dir, name) = match path.rfind('/') {
                Some(i) => (&path[..i], &path[i + 1..]),
                None => ("", path),
            };
            let text = String::from_utf8_lossy(bytes);
            if is_license_file(name) {
                if let Some((id, score)) = identify(&text) {
                    folders.entry(dir.to_string()).or_default().texts.push((
                        path.to_string(),
                        id,
                        score,
                    ));
                }
            } else if let Some(kind) = manifest::Kind::of(name) {
                if let Some(expr) = kind.license(&text) {
                    folders
                        .entry(dir.to_string())
                        .or_default()
                        .declared
                        .push((path.to_string(), expr));
                }
            }
        }
        let mut by_folder = BTreeMap::new();
        for (dir, f) in folders {
            if let Some(l) = combine(&f.texts, &f.declared) {
                by_folder.insert(dir, l);
            }
        }
        Self { by_folder }
    }

    /// The repository's own license (its root folder's).
    pub fn repository(&self) -> Option<&License> {
        self.by_folder.get("")
    }

    /// The license of a source file: its own `SPDX-License-Identifier:` header (looked for
    /// in `head`, its first bytes), else the nearest folder's.
    pub fn for_file(&self, path: &str, head: &[u8]) -> Option<License> {
        if let Some(expr) = spdx_header(head) {
            return Some(License {
                expression: expr,
                confidence: 1.0,
                file: path.to_string(),
            });
        }
        let mut dir = path;
        loop {
            dir = match dir.rfind('/') {
                Some(i) => &dir[..i],
                None => "",
            };
            if let Some(l) = self.by_folder.get(dir) {
                return Some(l.clone());
            }
            if dir.is_empty() {
                return None;
            }
        }
    }

    /// Every folder with a license of its own, root first.
    pub fn folders(&self) -> impl Iterator<Item = (&str, &License)> {
        self.by_folder.iter().map(|(d, l)| (d.as_str(), l))
    }
}

/// One folder's license from its recognised license files and manifest expressions.
fn combine(
    texts: &[(String, String, f32)],
    declared: &[(String, spdx::Expression)],
) -> Option<License> {
    let ids: BTreeSet<&str> = texts.iter().map(|(_, id, _)| id.as_str()).collect();
    if ids.is_empty() {
        let (file, expr) = declared.first()?;
        return Some(License {
            expression: expr.to_string(),
            confidence: 1.0,
            file: file.clone(),
        });
    }
    let confidence = texts.iter().map(|t| t.2).fold(1.0f32, f32::min);
    let files = texts
        .iter()
        .map(|t| t.0.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect::<Vec<_>>()
        .join(", ");
    // A manifest that names exactly these licenses says how they combine.
    for (_, expr) in declared {
        let named: BTreeSet<String> = expr
            .requirements()
            .map(|r| r.req.license.to_string())
            .collect();
        if named.iter().map(String::as_str).eq(ids.iter().copied()) {
            return Some(License {
                expression: expr.to_string(),
                confidence,
                file: files,
            });
        }
    }
    let dual = texts.len() > 1
        && texts.iter().all(|(f, _, _)| {
            let name = f.rsplit('/').next().unwrap_or(f).to_ascii_uppercase();
            name.starts_with("LICENSE-") || name.starts_with("LICENCE-")
        });
    let op = if dual { " OR " } else { " AND " };
    Some(License {
        expression: ids.into_iter().collect::<Vec<_>>().join(op),
        confidence,
        file: files,
    })
}

/// The expression of an `SPDX-License-Identifier:` line among the first lines of a file
/// (as the Linux kernel and REUSE place it), validated and normalised by the `spdx` parser.
pub fn spdx_header(head: &[u8]) -> Option<String> {
    const TAG: &str = "SPDX-License-Identifier:";
    let text = String::from_utf8_lossy(&head[..head.len().min(4096)]);
    for line in text.lines().take(20) {
        if let Some(i) = line.find(TAG) {
            let rest = line[i + TAG.len()..].trim();
            // Comment closers after the expression: `*/`, `-->`.
            let rest = rest.trim_end_matches("*/").trim_end_matches("-->").trim();
            return manifest::parse(rest).map(|e| e.to_string());
        }
    }
    None
}
