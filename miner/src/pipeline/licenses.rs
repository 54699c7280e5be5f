//! The license step of a repository: its license files and package manifests, read at the
//! mined commit, give every folder's license ([`codemine_license::Licenses`]); each source
//! file then takes its own SPDX header's license or the nearest folder's, which becomes the
//! `license` of its call-graph nodes and what the `license` filter rule reads. The root
//! folder's license is the repository's (the repositories table, the dataset card).

use crate::source::Snapshot;
pub use crate::stats::steps::RepoLicense;
use codemine_license::{License, Licenses};

/// License files larger than this are not license texts; they are not read.
pub const MAX_LICENSE_BYTES: u64 = 1 << 20;

/// How many bytes of a source file are looked at for an `SPDX-License-Identifier:` header.
pub const HEADER_BYTES: usize = 4096;

/// Reads the snapshot's license files (unreadable or oversized ones are passed over: a
/// license is then unknown, not an error of the run) and detects every folder's license.
pub fn detect(snap: &Snapshot) -> (Licenses, RepoLicense) {
    let t = std::time::Instant::now();
    let mut texts: Vec<(String, Vec<u8>)> = Vec::new();
    if let Ok(reader) = snap.reader() {
        // The list also holds project files for resolvers (`tsconfig.json`).
        for f in snap
            .license_files
            .iter()
            .filter(|f| codemine_license::wanted(&f.path))
        {
            if let Ok(bytes) = reader.read_license(f, MAX_LICENSE_BYTES) {
                texts.push((f.path.clone(), bytes));
            }
        }
    }
    let licenses = Licenses::detect(texts.iter().map(|(p, b)| (p.as_str(), b.as_slice())));
    let root: Option<&License> = licenses.repository();
    let summary = RepoLicense {
        license: root.map(|l| l.expression.clone()),
        confidence: root.map(|l| l.confidence),
        license_file: root.map(|l| l.file.clone()),
        files_read: texts.len(),
        folders: licenses.folders().count(),
        seconds: t.elapsed().as_secs_f64(),
    };
    (licenses, summary)
}

/// The license of a source file from its first bytes.
pub fn for_file(licenses: &Licenses, path: &str, text: &str) -> Option<String> {
    let head = &text.as_bytes()[..text.len().min(HEADER_BYTES)];
    licenses.for_file(path, head).map(|l| l.expression)
}
