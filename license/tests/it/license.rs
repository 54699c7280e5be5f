//! License detection on real license texts (Debian's `/usr/share/common-licenses`, and the
//! MIT text as the SPDX list has it) in the layouts repositories use: one license, a dual
//! license, a vendored folder with its own license, an SPDX header, a manifest, none.

use codemine_license::{is_license_file, Licenses};

const MIT: &str = "MIT License

Copyright (c) 2024 Example Author

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the \"Software\"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
";

fn common(name: &str) -> String {
    let p = format!("/usr/share/common-licenses/{name}");
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{p}: {e} (Debian's base-files has these license texts)"))
}

fn repo(files: &[(&str, &str)]) -> Licenses {
    Licenses::detect(files.iter().map(|(p, t)| (*p, t.as_bytes())))
}

fn root(l: &Licenses) -> Option<String> {
    l.repository().map(|x| x.expression.clone())
}

#[test]
fn single_license_files() {
    for (file, text, want) in [
        ("LICENSE", MIT.to_string(), "MIT"),
        ("LICENSE.txt", common("Apache-2.0"), "Apache-2.0"),
        ("COPYING", common("GPL-3"), "GPL-3.0-only"),
        ("COPYING", common("GPL-2"), "GPL-2.0-only"),
        ("LICENCE.md", common("MPL-2.0"), "MPL-2.0"),
        ("COPYING.LESSER", common("LGPL-2.1"), "LGPL-2.1-only"),
    ] {
        let l = repo(&[(file, &text), ("src/main.py", "print(1)\n")]);
        let got = l
            .repository()
            .unwrap_or_else(|| panic!("{file}: no license found"));
        // GPL texts do not say "only" or "or later" (the notice in each file does): askalono
        // may name either; the family must match.
        let family = |s: &str| {
            s.trim_end_matches("-only")
                .trim_end_matches("-or-later")
                .to_string()
        };
        assert_eq!(family(&got.expression), family(want), "{file}");
        // Current SPDX ids only (the store also knows deprecated ones such as `GPL-2.0+`).
        assert!(!got.expression.contains('+'), "{}", got.expression);
        assert!(got.confidence >= 0.8, "{file}: {}", got.confidence);
        assert_eq!(got.file, file);
    }
}

#[test]
fn bsd_3_clause() {
    let l = repo(&[("LICENSE", &common("BSD"))]);
    assert_eq!(root(&l).as_deref(), Some("BSD-3-Clause"));
}

#[test]
fn dual_license_files_are_or() {
    let l = repo(&[
        ("LICENSE-MIT", MIT),
        ("LICENSE-APACHE", &common("Apache-2.0")),
    ]);
    assert_eq!(root(&l).as_deref(), Some("Apache-2.0 OR MIT"));
    // A manifest naming the same two licenses decides the expression.
    let l = repo(&[
        ("LICENSE", MIT),
        ("COPYING", &common("Apache-2.0")),
        (
            "Cargo.toml",
            "[package]\nname = \"x\"\nlicense = \"MIT OR Apache-2.0\"\n",
        ),
    ]);
    assert_eq!(root(&l).as_deref(), Some("MIT OR Apache-2.0"));
    // Two license files without the convention or a manifest: both apply.
    let l = repo(&[("LICENSE", MIT), ("COPYING", &common("Apache-2.0"))]);
    assert_eq!(root(&l).as_deref(), Some("Apache-2.0 AND MIT"));
}

#[test]
fn vendored_folders_and_headers_override() {
    let l = repo(&[
        ("LICENSE", MIT),
        ("third_party/zlib/LICENSE", &common("Apache-2.0")),
        (
            "web/package.json",
            r#"{"name": "web", "license": "BSD-3-Clause"}"#,
        ),
    ]);
    let of = |p: &str, head: &str| l.for_file(p, head.as_bytes()).map(|x| x.expression);
    assert_eq!(of("src/a.c", "int x;").as_deref(), Some("MIT"));
    assert_eq!(
        of("third_party/zlib/inflate.c", "int x;").as_deref(),
        Some("Apache-2.0")
    );
    assert_eq!(
        of("third_party/zlib/sub/dir/x.c", "").as_deref(),
        Some("Apache-2.0")
    );
    assert_eq!(of("web/index.js", "").as_deref(), Some("BSD-3-Clause"));
    assert_eq!(
        of(
            "src/b.c",
            "// SPDX-License-Identifier: GPL-2.0-or-later\nint y;"
        )
        .as_deref(),
        Some("GPL-2.0-or-later")
    );
    assert_eq!(
        of("src/c.c", "/* SPDX-License-Identifier: GPL-2.0+ */\n").as_deref(),
        Some("GPL-2.0-or-later")
    );
    // An invalid header does not hide the folder's license.
    assert_eq!(
        of("src/d.c", "# SPDX-License-Identifier: not a license\n").as_deref(),
        Some("MIT")
    );
}

#[test]
fn no_license() {
    let l = repo(&[
        ("README.md", "# x\n"),
        ("LICENSE", "All rights reserved.\n"),
    ]);
    assert_eq!(root(&l), None);
    assert_eq!(l.for_file("a.py", b""), None);
    assert!(is_license_file("UNLICENSE") && is_license_file("license.rst"));
    assert!(!is_license_file("README") && !is_license_file("src"));
}

/// psf/requests' LICENSE is Apache-2.0 without its appendix, which askalono alone scores as
/// Pixar's modified Apache-2.0: the Apache trademark clause decides.
#[test]
fn apache_without_its_appendix_is_apache() {
    let full = common("Apache-2.0");
    let cut = full.split("APPENDIX").next().unwrap();
    assert!(cut.len() + 500 < full.len());
    assert_eq!(
        root(&repo(&[("LICENSE", cut)])).as_deref(),
        Some("Apache-2.0")
    );
}
