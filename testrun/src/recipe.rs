//! How a repository's environment is set up and its suite run: the [`Recipe`] a manifest
//! can give, and the [`Plan`] made from it or detected from the usual layouts.
//!
//! | layout | detected from | setup | suite | test ids |
//! |---|---|---|---|---|
//! | Python | `pyproject.toml`, `setup.py` or `setup.cfg` (or `requirements*.txt`/`test_*.py` alone) | a virtualenv; `pip install pytest coverage`; `pip install -e .[test,tests,testing]` when installable; each test requirements file (best effort) | pytest with codemine's plugin | pytest node ids |
//! | JavaScript/TypeScript | `package.json` with a `test` script | `npm ci` (a lock file) or `npm install`; `c8` for mocha | jest (its V8 coverage) or mocha (under `c8`), one run per test file | test file paths |
//! | C/C++, CMake | `CMakeLists.txt` | configure with `--coverage -O0`, build | `ctest`, one run per test | ctest names |
//! | C/C++, autotools | `configure` | `./configure` with `--coverage -O0`, `make` | `make check` | `make check` |
//! | C/C++, make | a `Makefile` with a `test` or `check` target | `make` with `CC="cc --coverage"` | `make test` (or `check`) | `make test` |
//!
//! A recipe replaces the detected setup and test commands; its `language` (or the
//! detected one) decides how coverage and outcomes are collected.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::tree::read_repo_file;
use crate::{Error, ENV};

/// The language family whose coverage collector and result reader a suite uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    Python,
    /// JavaScript and TypeScript.
    Javascript,
    /// C and C++.
    C,
}

/// A manifest's instructions for a repository whose layout is not detected (or not
/// detected right). All fields are optional; missing ones are detected.
///
/// ```toml
/// [repos.recipe]
/// language = "c"
/// setup = ["./autogen.sh", "./configure CFLAGS='--coverage -O0'", "make -j2"]
/// list = "ls tests/*.test | sed 's,.*/,,'"
/// test = "make -C tests run T='{tests}'"
/// env = { LC_ALL = "C" }
/// test_timeout = 1200
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    #[serde(default)]
    pub language: Option<Language>,
    /// Shell commands run once, in order, in the repository, with the network (package
    /// registries) reachable. A failing command fails the setup.
    #[serde(default)]
    pub setup: Vec<String>,
    /// The test command, run with no network; `{tests}` becomes the selected tests,
    /// shell-quoted and space-separated (empty for the whole suite). Python: pytest runs
    /// with codemine's plugin whatever the command (through `PYTEST_ADDOPTS`).
    #[serde(default)]
    pub test: Option<String>,
    /// A command printing one test id per line; each is then run on its own (C/C++: its
    /// own coverage, so that per-test coverage is known).
    #[serde(default)]
    pub list: Option<String>,
    /// Environment of setup and tests.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Seconds for the whole setup (default 1800).
    #[serde(default)]
    pub setup_timeout: Option<u64>,
    /// Seconds for the whole suite (default 1800).
    #[serde(default)]
    pub test_timeout: Option<u64>,
    /// Seconds per test (default 120): a Python test, a JavaScript test file, a C test.
    #[serde(default)]
    pub per_test_timeout: Option<u64>,
}

/// How a suite's tests are run and read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Runner {
    /// pytest with codemine's plugin; `command` replaces `python -m pytest` when given.
    Pytest { command: Option<String> },
    /// jest, one run per test file, with jest's own V8 coverage.
    Jest,
    /// mocha, one run per test file, under c8.
    Mocha,
    /// ctest in `build_dir`, one run per test.
    Ctest { build_dir: String },
    /// One command for the whole suite (`make test`, `make check`, a recipe's `test`), or
    /// one per test listed by `list`; C coverage by gcov when the language is C.
    Command { test: String, list: Option<String> },
}

/// What [`crate::TestRunner::prepare`] does and how the suite runs: the recipe's fields
/// where it gave them, the detected ones otherwise. Recorded in the environment's
/// `meta.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    pub language: Language,
    pub runner: Runner,
    pub setup: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub setup_timeout: u64,
    pub test_timeout: u64,
    pub per_test_timeout: u64,
}

/// The Python interpreter of the environment.
pub(crate) const VENV_PYTHON: &str = "/codemine/env/venv/bin/python";

/// Requirements files of tests and development, in the order they are installed.
const PY_REQUIREMENTS: &[&str] = &[
    "requirements.txt",
    "requirements-dev.txt",
    "requirements_dev.txt",
    "dev-requirements.txt",
    "requirements-test.txt",
    "requirements_test.txt",
    "requirements-tests.txt",
    "test-requirements.txt",
    "tests/requirements.txt",
    "requirements/test.txt",
    "requirements/tests.txt",
    "requirements/testing.txt",
    "requirements/dev.txt",
];

/// Single-quotes `s` for sh.
pub(crate) fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-:=+,@%".contains(&b))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn has(root: &Path, rel: &str) -> bool {
    read_repo_file(root, rel).is_some()
}

/// A `package.json`'s test script, unless it is npm's placeholder.
fn npm_test_script(pkg: &serde_json::Value) -> Option<&str> {
    let t = pkg.get("scripts")?.get("test")?.as_str()?;
    (!t.contains("no test specified")).then_some(t)
}

fn npm_depends_on(pkg: &serde_json::Value, name: &str) -> bool {
    ["dependencies", "devDependencies"]
        .iter()
        .any(|k| pkg.get(k).and_then(|d| d.get(name)).is_some())
}

/// Whether `test_*.py` or `*_test.py` files exist in the first levels of the tree.
fn has_python_tests(root: &Path) -> bool {
    let mut stack = vec![(root.to_path_buf(), 0)];
    let mut seen = 0;
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > 20_000 {
                return false;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() && depth < 3 && !name.starts_with('.') && name != "node_modules" {
                stack.push((e.path(), depth + 1));
            } else if ft.is_file()
                && name.ends_with(".py")
                && (name.starts_with("test_") || name.ends_with("_test.py"))
            {
                return true;
            }
        }
    }
    false
}

/// The Makefile target that runs tests, if any.
fn make_test_target(root: &Path) -> Option<&'static str> {
    let text = ["GNUmakefile", "makefile", "Makefile"]
        .iter()
        .find_map(|f| read_repo_file(root, f))?;
    ["test", "check"].into_iter().find(|t| {
        text.lines().any(|l| {
            l.strip_prefix(t).is_some_and(|rest| {
                rest.trim_start().starts_with(':') && !rest.trim_start().starts_with(":=")
            })
        })
    })
}

fn detect_language(root: &Path) -> Option<Language> {
    if ["pyproject.toml", "setup.py", "setup.cfg"]
        .iter()
        .any(|f| has(root, f))
    {
        return Some(Language::Python);
    }
    if let Some(pkg) = read_repo_file(root, "package.json")
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    {
        if npm_test_script(&pkg).is_some() {
            return Some(Language::Javascript);
        }
    }
    if has(root, "CMakeLists.txt") || has(root, "configure") || make_test_target(root).is_some() {
        return Some(Language::C);
    }
    if PY_REQUIREMENTS.iter().any(|f| has(root, f)) || has_python_tests(root) {
        return Some(Language::Python);
    }
    None
}

fn python_setup(root: &Path, host_python: &Path) -> Vec<String> {
    let mut s = vec![
        format!(
            "{} -m venv /codemine/env/venv",
            shell_quote(&host_python.to_string_lossy())
        ),
        format!("{VENV_PYTHON} -m pip install pytest coverage"),
    ];
    let installable = has(root, "setup.py")
        || has(root, "setup.cfg")
        || read_repo_file(root, "pyproject.toml")
            .is_some_and(|t| t.contains("[build-system]") || t.contains("[project]"));
    if installable {
        // pip warns about extras a project does not define and goes on.
        s.push(format!(
            "{VENV_PYTHON} -m pip install -e '.[test,tests,testing]' || {VENV_PYTHON} -m pip install '.[test,tests,testing]'"
        ));
    }
    for f in PY_REQUIREMENTS {
        if has(root, f) {
            s.push(format!(
                "{VENV_PYTHON} -m pip install -r {f} || echo 'codemine: best-effort step failed: pip install -r {f}' >&2"
            ));
        }
    }
    s
}

fn javascript_plan(root: &Path) -> Result<(Vec<String>, Runner), Error> {
    let pkg: serde_json::Value = read_repo_file(root, "package.json")
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or_else(|| Error::NoSuite {
            reason: "package.json is missing or not JSON".into(),
        })?;
    let script = npm_test_script(&pkg).unwrap_or_default().to_string();
    let install = if has(root, "package-lock.json") || has(root, "npm-shrinkwrap.json") {
        "npm ci --no-audit --no-fund"
    } else {
        "npm install --no-audit --no-fund"
    };
    let mut setup = vec![install.to_string()];
    let runner = if npm_depends_on(&pkg, "jest") || script.contains("jest") {
        Runner::Jest
    } else if npm_depends_on(&pkg, "mocha") || script.contains("mocha") {
        // c8 measures V8 coverage of mocha and whatever it starts; it lives in the
        // environment, not in the repository's dependencies.
        // In its own folder, not with --prefix: that would move npm's global config (and
        // with it a registry CA the machine may configure there).
        setup.push(format!(
            "mkdir -p {ENV}/tools && cd {ENV}/tools && npm install --no-audit --no-fund c8@10"
        ));
        Runner::Mocha
    } else {
        return Err(Error::NoSuite {
            reason: format!(
                "package.json's test script ({script}) uses neither jest nor mocha; give a recipe"
            ),
        });
    };
    Ok((setup, runner))
}

fn c_plan(root: &Path) -> Result<(Vec<String>, Runner), Error> {
    let cflags = "--coverage -O0 -g";
    if has(root, "CMakeLists.txt") {
        let b = "build-codemine";
        return Ok((
            vec![
                format!(
                    "cmake -S . -B {b} -DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON '-DCMAKE_C_FLAGS={cflags}' \
                     '-DCMAKE_CXX_FLAGS={cflags}' -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage"
                ),
                format!("cmake --build {b} -j 2"),
            ],
            Runner::Ctest { build_dir: b.into() },
        ));
    }
    if has(root, "configure") {
        return Ok((
            vec![
                format!("sh ./configure 'CFLAGS={cflags}' 'CXXFLAGS={cflags}' LDFLAGS=--coverage"),
                "make -j 2".into(),
            ],
            Runner::Command {
                test: "make check".into(),
                list: None,
            },
        ));
    }
    if let Some(target) = make_test_target(root) {
        let cc = format!("CC='cc {cflags}' CXX='c++ {cflags}'");
        return Ok((
            vec![format!("make -j 2 {cc}")],
            Runner::Command {
                test: format!("make {target} {cc}"),
                list: None,
            },
        ));
    }
    Err(Error::NoSuite {
        reason: "no CMakeLists.txt, configure script or Makefile test target".into(),
    })
}

/// The plan for the repository at `root` (its pristine copy), from `recipe` and detection.
pub(crate) fn plan(
    root: &Path,
    recipe: Option<&Recipe>,
    host_python: &Path,
) -> Result<Plan, Error> {
    let recipe = recipe.cloned().unwrap_or_default();
    let language = match recipe.language.or_else(|| detect_language(root)) {
        Some(l) => l,
        None => {
            return Err(Error::NoSuite {
                reason: "no Python, JavaScript or C/C++ test layout found, and no recipe".into(),
            })
        }
    };
    let (setup, runner) = match language {
        Language::Python => (
            python_setup(root, host_python),
            Runner::Pytest {
                command: recipe.test.clone(),
            },
        ),
        Language::Javascript if recipe.test.is_none() => javascript_plan(root)?,
        Language::C if recipe.test.is_none() => c_plan(root)?,
        Language::Javascript | Language::C => (
            Vec::new(),
            Runner::Command {
                test: recipe.test.clone().unwrap_or_default(),
                list: recipe.list.clone(),
            },
        ),
    };
    let setup = if recipe.setup.is_empty() {
        setup
    } else {
        recipe.setup.clone()
    };
    Ok(Plan {
        language,
        runner,
        setup,
        env: recipe.env.clone(),
        setup_timeout: recipe.setup_timeout.unwrap_or(1800),
        test_timeout: recipe.test_timeout.unwrap_or(1800),
        per_test_timeout: recipe.per_test_timeout.unwrap_or(120),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_the_shell() {
        assert_eq!(
            shell_quote("tests/test_a.py::test_x"),
            "tests/test_a.py::test_x"
        );
        assert_eq!(shell_quote("t[1-2]"), "'t[1-2]'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn recipes_are_read_from_json_and_refuse_unknown_fields() {
        let r: Recipe = serde_json::from_str(
            r#"{"language":"c","setup":["make"],"test":"make check","per_test_timeout":5}"#,
        )
        .unwrap();
        assert_eq!(r.language, Some(Language::C));
        assert_eq!(r.per_test_timeout, Some(5));
        assert!(serde_json::from_str::<Recipe>(r#"{"tset":"x"}"#).is_err());
    }

    #[test]
    fn layouts_are_detected() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path();
        assert_eq!(detect_language(p), None);
        std::fs::write(p.join("Makefile"), "all:\n\tcc a.c\ntest: all\n\t./a\n").unwrap();
        assert_eq!(make_test_target(p), Some("test"));
        assert_eq!(detect_language(p), Some(Language::C));
        std::fs::write(
            p.join("package.json"),
            r#"{"scripts":{"test":"jest"},"devDependencies":{"jest":"29"}}"#,
        )
        .unwrap();
        assert_eq!(detect_language(p), Some(Language::Javascript));
        std::fs::write(p.join("setup.py"), "").unwrap();
        assert_eq!(detect_language(p), Some(Language::Python));
        std::fs::write(p.join("Makefile"), "CHECK := 1\ntest := x\n").unwrap();
        assert_eq!(make_test_target(p), None);
    }
}
