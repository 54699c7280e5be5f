//! The source stage: which repositories to mine (arguments and manifests) and reading their
//! files at a pinned revision, from a clone cache or a local checkout, without a checkout.

mod repo;
mod spec;

pub use repo::{
    cache_path, open, origin_of, LicenseFile, ReadError, Reader, RepoError, Skipped, Snapshot,
    SourceFile, SourceOptions,
};
pub use spec::{
    parse_repo_arg, read_manifest, redact, resolve_names, web_remote, Location, RepoSpec, WebRemote,
};
