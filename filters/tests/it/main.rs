//! The integration tests of codemine-filters, one test binary with a module per subject, so that a
//! change links one test executable instead of one per file.

mod config;
mod decontam;
mod dedup;
mod english;
mod rules;

/// The languages the tests name, as the miner's registry passes them to `Filter::compile`.
const LANGUAGES: &[(&str, &[&str])] = &[
    ("python", &["py"]),
    ("java", &[]),
    ("c", &[]),
    ("cpp", &["c++", "cxx"]),
    ("go", &["golang"]),
    ("javascript", &["js"]),
    ("typescript", &["ts"]),
    ("ruby", &["rb"]),
    ("php", &[]),
];

/// `Filter::compile` with the tests' languages.
trait Compile {
    fn compile(&self) -> Result<codemine_filters::Filter, codemine_filters::FilterError>;
}

impl Compile for codemine_filters::FilterConfig {
    fn compile(&self) -> Result<codemine_filters::Filter, codemine_filters::FilterError> {
        codemine_filters::Filter::compile(self, codemine_filters::KnownLanguages(LANGUAGES))
    }
}
