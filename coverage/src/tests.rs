//! Unit tests on small hand-written reports: each expected value is read off the input
//! text next to it. Reports made by the real tools are tested in tests/it/coverage_reports.rs.

use std::io::Write;
use std::path::Path;

use super::*;

fn parse(name: &str, text: &str) -> Result<Report, CoverageError> {
    parse_report(Path::new(name), text.as_bytes())
}

fn ok(name: &str, text: &str) -> Report {
    parse(name, text).unwrap_or_else(|e| panic!("{e}"))
}

/// The error's Display, asserting it is a parse error at `line`.
fn parse_error(name: &str, text: &str, line: usize) -> String {
    match parse(name, text) {
        Ok(r) => panic!("{name} parsed: {r:?}"),
        Err(e) => {
            let msg = e.to_string();
            assert!(
                matches!(e, CoverageError::Parse { .. }),
                "not a parse error: {msg}"
            );
            assert_eq!(e.line(), Some(line), "{msg}");
            assert!(msg.starts_with(&format!("{name}:{line}: ")), "{msg}");
            msg
        }
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

// ---------------------------------------------------------------- LCOV

const LCOV: &str = "TN:unit\n\
SF:/build/src/a.c\n\
FN:3,main\n\
FNDA:1,main\n\
FNF:1\n\
FNH:1\n\
DA:3,1\n\
DA:4,12,0f1e2d3c4b5a69788796a5b4c3d2e1f0\n\
DA:5,0\n\
DA:4,3\n\
DA:0,7\n\
BRDA:4,0,0,-\n\
BRF:1\n\
BRH:0\n\
LF:3\n\
LH:2\n\
end_of_record\n\
TN:\n\
SF:src/b.c\n\
end_of_record\n";

#[test]
fn lcov_records_lines_and_repeats() {
    let r = ok("a.info", LCOV);
    assert_eq!(r.format, Format::Lcov);
    assert_eq!(r.format.name(), "lcov");
    assert!(r.roots.is_empty());
    assert_eq!(
        r.files,
        vec![
            FileHits {
                path: "/build/src/a.c".into(),
                // DA:4 twice in one record: 12 + 3; line 0 is no source line.
                lines: vec![(3, 1), (4, 15), (5, 0)],
            },
            FileHits {
                path: "src/b.c".into(),
                lines: vec![],
            },
        ]
    );
}

#[test]
fn lcov_crlf_and_blank_lines() {
    let r = ok(
        "w.info",
        "SF:C:\\ci\\a.c\r\nDA:1,2\r\n\r\nend_of_record\r\n",
    );
    assert_eq!(r.files[0].path, "C:\\ci\\a.c");
    assert_eq!(r.files[0].lines, vec![(1, 2)]);
}

#[test]
fn lcov_truncated_record_names_the_last_line() {
    // Cut after line 4: the record opened at line 2 never ends.
    let text = "TN:\nSF:src/a.c\nDA:1,1\nDA:2,0\n";
    let msg = parse_error("cov.info", text, 4);
    assert!(msg.contains("SF: at line 2"), "{msg}");
    assert!(msg.contains("end_of_record"), "{msg}");
}

#[test]
fn lcov_bad_da_lines_name_their_line() {
    let msg = parse_error("cov.info", "SF:a.c\nDA:1,1\nDA:2,x\nend_of_record\n", 3);
    assert!(msg.contains("hit count \"x\""), "{msg}");
    let msg = parse_error("cov.info", "SF:a.c\nDA:1,1\nDA:2,-1\nend_of_record\n", 3);
    assert!(msg.contains("\"-1\""), "{msg}");
    let msg = parse_error("cov.info", "SF:a.c\nDA:seven,1\nend_of_record\n", 2);
    assert!(msg.contains("line number \"seven\""), "{msg}");
    let msg = parse_error("cov.info", "SF:a.c\n\nDA:12\nend_of_record\n", 3);
    assert!(msg.contains("no hit count"), "{msg}");
    // A line cut in the middle of the last record.
    parse_error("cov.info", "SF:a.c\nDA:1,1\nDA:2,", 3);
}

#[test]
fn lcov_structure_errors_name_their_line() {
    let msg = parse_error("t.info", "TN:\nDA:1,1\n", 2);
    assert!(msg.contains("outside a record"), "{msg}");
    let msg = parse_error("t.info", "SF:a.c\nDA:1,1\nSF:b.c\nend_of_record\n", 3);
    assert!(msg.contains("SF: at line 1"), "{msg}");
    parse_error("t.info", "SF:a.c\nend_of_record\nend_of_record\n", 3);
    let msg = parse_error("t.info", "SF:a.c\nthis is not lcov\nend_of_record\n", 2);
    assert!(msg.contains("not an LCOV line"), "{msg}");
}

#[test]
fn lcov_parse_does_not_overflow() {
    let r = ok(
        "big.info",
        "SF:a.c\nDA:4294967295,18446744073709551615\nend_of_record\n",
    );
    assert_eq!(r.files[0].lines, vec![(u32::MAX, u64::MAX)]);
    parse_error("big.info", "SF:a.c\nDA:4294967296,1\nend_of_record\n", 2);
    parse_error(
        "big.info",
        "SF:a.c\nDA:1,18446744073709551616\nend_of_record\n",
        2,
    );
}

// ---------------------------------------------------------------- Cobertura

/// In the shape of coverage.py's `coverage xml` and gcovr's `--xml`.
const COBERTURA: &str = r#"<?xml version="1.0" ?>
<!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">
<coverage line-rate="0.5" branch-rate="0" version="7.0" timestamp="1">
	<!-- comment -->
	<sources>
		<source>/home/ci/proj</source>
		<source>/opt/R&amp;D/src</source>
	</sources>
	<packages>
		<package name="pkg" line-rate="0.5">
			<classes>
				<class name="mod.py" filename="pkg/mod.py" line-rate="0.5">
					<methods>
						<method name="f" signature="">
							<lines>
								<line number="2" hits="4"/>
							</lines>
						</method>
					</methods>
					<lines>
						<line number="1" hits="1"/>
						<line number="2" hits="4" branch="true" condition-coverage="50% (1/2)">
							<conditions><condition number="0" type="jump" coverage="50%"/></conditions>
						</line>
						<line number="3" hits="0"/>
					</lines>
				</class>
				<class name="empty" filename="pkg/__init__.py" line-rate="1"/>
				<class name="other" filename="pkg/mod.py"><methods/><lines><line number="9" hits="2"/></lines></class>
			</classes>
		</package>
	</packages>
</coverage>
"#;

#[test]
fn cobertura_reads_class_lines_only() {
    let r = ok("coverage.xml", COBERTURA);
    assert_eq!(r.format, Format::Cobertura);
    assert_eq!(r.roots, vec!["/home/ci/proj", "/opt/R&D/src"]);
    assert_eq!(
        r.files,
        vec![
            // Line 2 once, from the class's own <lines>, not again from <method>.
            FileHits {
                path: "pkg/mod.py".into(),
                lines: vec![(1, 1), (2, 4), (3, 0)],
            },
            FileHits {
                path: "pkg/__init__.py".into(),
                lines: vec![],
            },
            FileHits {
                path: "pkg/mod.py".into(),
                lines: vec![(9, 2)],
            },
        ]
    );
}

#[test]
fn cobertura_truncated_names_the_open_element_and_last_line() {
    // Cut after the </lines> of the first class (line 26 of COBERTURA).
    let cut: String = COBERTURA.lines().take(26).collect::<Vec<_>>().join("\n");
    assert!(cut.ends_with("</lines>"));
    let msg = parse_error("coverage.xml", &cut, 26);
    assert!(
        msg.ends_with("unexpected end of file inside <class>"),
        "{msg}"
    );
    // Cut inside a <line> tag.
    let cut = &COBERTURA[..COBERTURA.find("<line number=\"3\"").unwrap() + 10];
    let msg = parse_error("coverage.xml", cut, 25);
    assert!(msg.contains("malformed XML"), "{msg}");
}

#[test]
fn cobertura_bad_values_name_their_line() {
    let bad = COBERTURA.replace(
        r#"<line number="3" hits="0"/>"#,
        r#"<line number="3" hits="many"/>"#,
    );
    let msg = parse_error("coverage.xml", &bad, 25);
    assert!(msg.contains("hits=\"many\""), "{msg}");
    let bad = COBERTURA.replace(r#"filename="pkg/__init__.py""#, "");
    let msg = parse_error("coverage.xml", &bad, 28);
    assert!(
        msg.contains("<class> without the filename attribute"),
        "{msg}"
    );
    let bad = COBERTURA.replace("</classes>", "</package>");
    let msg = parse_error("coverage.xml", &bad, 30);
    assert!(msg.contains("malformed XML"), "{msg}");
}

// ---------------------------------------------------------------- JaCoCo

/// Written by hand following JaCoCo's report.dtd (version 1.1): report → sessioninfo*,
/// (group* | package*), counter*; package → (class | sourcefile)*, counter*; sourcefile →
/// line*, counter*; line has nr, mi, ci, mb, cb. Real JaCoCo output is tested in
/// tests/it/coverage_reports.rs.
const JACOCO: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd"><report name="demo">
<sessioninfo id="host-1" start="1" dump="2"/>
<group name="module-a">
<package name="org/foo">
<class name="org/foo/Foo" sourcefilename="Foo.java"><method name="bar" desc="()V" line="5"><counter type="INSTRUCTION" missed="0" covered="4"/></method></class>
<sourcefile name="Foo.java">
<line nr="3" mi="3" ci="0" mb="0" cb="0"/>
<line nr="5" mi="0" ci="4" mb="0" cb="0"/>
<line nr="6" mi="2" ci="7" mb="1" cb="1"/>
<line nr="7" mi="0" ci="0" mb="0" cb="0"/>
<counter type="LINE" missed="1" covered="2"/>
</sourcefile>
</package>
</group>
<package name="">
<sourcefile name="Main.java"><line nr="1" mi="0" ci="2" mb="0" cb="0"/></sourcefile>
</package>
<counter type="LINE" missed="1" covered="3"/>
</report>
"#;

#[test]
fn jacoco_lines_are_one_when_covered_zero_when_missed() {
    let r = ok("jacoco.xml", JACOCO);
    assert_eq!(r.format, Format::Jacoco);
    assert_eq!(r.format.name(), "jacoco");
    assert_eq!(
        r.files,
        vec![
            // 3: missed only → 0; 5: covered → 1; 6: partly covered → 1; 7: no
            // instructions → not coverable.
            FileHits {
                path: "org/foo/Foo.java".into(),
                lines: vec![(3, 0), (5, 1), (6, 1)],
            },
            // The default package has an empty name.
            FileHits {
                path: "Main.java".into(),
                lines: vec![(1, 1)],
            },
        ]
    );
}

#[test]
fn jacoco_errors_name_their_line() {
    let bad = JACOCO.replace(
        r#"<line nr="6" mi="2" ci="7""#,
        r#"<line nr="6" mi="2" ci="seven""#,
    );
    let msg = parse_error("jacoco.xml", &bad, 9);
    assert!(msg.contains("ci=\"seven\""), "{msg}");
    let bad = JACOCO.replace(r#"<line nr="5" mi="0" "#, r#"<line mi="0" "#);
    let msg = parse_error("jacoco.xml", &bad, 8);
    assert!(msg.contains("without the nr attribute"), "{msg}");
    let cut = &JACOCO[..JACOCO
        .find("<counter type=\"LINE\" missed=\"1\" covered=\"2\"")
        .unwrap()];
    let msg = parse_error("jacoco.xml", cut, 10);
    assert!(
        msg.ends_with("unexpected end of file inside <sourcefile>"),
        "{msg}"
    );
}

// ---------------------------------------------------------------- XML entities

/// An XXE payload: an external entity naming /etc/passwd, used in an attribute.
const XXE_DOCTYPE: &str = r#"<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>"#;

#[test]
fn xml_external_entities_are_never_expanded() {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let first = passwd.lines().next().unwrap_or("root:x:0:0").to_string();
    let cobertura = format!(
        "<?xml version=\"1.0\"?>\n{XXE_DOCTYPE}\n<coverage>\n<packages><package name=\"p\"><classes>\n<class name=\"a\" filename=\"&e;\"><lines><line number=\"1\" hits=\"1\"/></lines></class>\n</classes></package></packages>\n</coverage>\n"
    );
    let msg = parse_error("coverage.xml", &cobertura, 5);
    assert!(
        msg.contains("&e;") || msg.contains("`e`") || msg.contains("'e'") || msg.contains("e;"),
        "{msg}"
    );
    assert!(!msg.contains(&first), "{msg}");

    let in_source = format!(
        "<?xml version=\"1.0\"?>\n{XXE_DOCTYPE}\n<coverage>\n<sources><source>&e;</source></sources>\n</coverage>\n"
    );
    let msg = parse_error("coverage.xml", &in_source, 4);
    assert!(msg.contains("&e;"), "{msg}");
    assert!(!msg.contains(&first), "{msg}");

    let jacoco = format!(
        "<?xml version=\"1.0\"?>\n{XXE_DOCTYPE}\n<report name=\"r\">\n<package name=\"&e;\">\n<sourcefile name=\"A.java\"><line nr=\"1\" mi=\"0\" ci=\"1\" mb=\"0\" cb=\"0\"/></sourcefile>\n</package>\n</report>\n"
    );
    let msg = parse_error("jacoco.xml", &jacoco, 4);
    assert!(!msg.contains(&first), "{msg}");

    // An entity with an internal value is not expanded either, so no "billion laughs".
    let laughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE coverage [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]>\n<coverage><packages><package><classes>\n<class filename=\"&b;\"/>\n</classes></package></packages></coverage>\n";
    parse_error("coverage.xml", laughs, 4);

    // An entity that is declared but not used changes nothing.
    let unused = format!("<?xml version=\"1.0\"?>\n{XXE_DOCTYPE}\n<report name=\"r\"/>\n");
    let r = ok("jacoco.xml", &unused);
    assert!(r.files.is_empty());
}

// ---------------------------------------------------------------- gcov JSON

/// In the shape of GCC 12's `gcov --json-format`, spread over lines so line numbers show.
const GCOV: &str = r#"{"gcc_version": "12.2.0",
"files": [{"file": "../src/prog.c", "functions": [],
  "lines": [
    {"branches": [], "count": 1, "line_number": 3, "unexecuted_block": false, "function_name": "sq"},
    {"branches": [], "count": 1, "line_number": 3, "unexecuted_block": false, "function_name": "cube"},
    {"branches": [], "count": 77, "line_number": 7, "unexecuted_block": false, "function_name": "collatz"},
    {"branches": [], "count": 0, "line_number": 17, "unexecuted_block": true, "function_name": "never"}
  ]},
  {"file": "/usr/include/x86_64-linux-gnu/bits/stdio2.h", "functions": [], "lines": []}],
"format_version": "1",
"current_working_directory": "/home/ci/proj/build",
"data_file": "prog.gcda"}
"#;

#[test]
fn gcov_json_sums_repeated_lines_and_keeps_the_working_directory() {
    let r = ok("prog.gcov.json", GCOV);
    assert_eq!(r.format, Format::GcovJson);
    assert_eq!(r.format.name(), "gcov-json");
    assert_eq!(r.roots, vec!["/home/ci/proj/build"]);
    assert_eq!(
        r.files,
        vec![
            FileHits {
                path: "../src/prog.c".into(),
                lines: vec![(3, 2), (7, 77), (17, 0)],
            },
            FileHits {
                path: "/usr/include/x86_64-linux-gnu/bits/stdio2.h".into(),
                lines: vec![],
            },
        ]
    );
}

#[test]
fn gcov_json_gzip_is_detected_by_content() {
    let gz = gzip(GCOV.as_bytes());
    // The name says nothing; the magic bytes do.
    let r = parse_report(Path::new("report.dat"), &gz).unwrap();
    assert_eq!(r.format, Format::GcovJson);
    assert_eq!(r.files[0].lines, vec![(3, 2), (7, 77), (17, 0)]);
}

#[test]
fn gcov_json_errors_name_the_decompressed_line() {
    let bad = GCOV.replace(r#""count": 77"#, r#""count": -77"#);
    let msg = parse_error("prog.gcov.json", &bad, 6);
    assert!(msg.contains("-77"), "{msg}");
    let cut = &GCOV[..GCOV.find("{\"branches\": [], \"count\": 0").unwrap()];
    let gz = gzip(cut.as_bytes());
    let e = parse_report(Path::new("prog.gcov.json.gz"), &gz).unwrap_err();
    assert_eq!(e.line(), Some(7), "{e}");
    assert!(e.to_string().starts_with("prog.gcov.json.gz:7: "), "{e}");
    let missing = r#"{"gcc_version": "12.2.0", "format_version": "1"}"#;
    let msg = parse_error("x.json", missing, 1);
    assert!(msg.contains("files"), "{msg}");
}

#[test]
fn a_gzip_bomb_stops_at_the_limit() {
    // 10 MB of LCOV that compresses to about 10 kB, read with a 1 MB limit.
    let mut big = String::from("TN:\nSF:a.c\n");
    while big.len() < 10_000_000 {
        big.push_str("DA:1,1\n");
    }
    big.push_str("end_of_record\n");
    let gz = gzip(big.as_bytes());
    assert!(gz.len() < 100_000, "{}", gz.len());
    let e = parse_report_limited(Path::new("bomb.info.gz"), &gz, 1_000_000).unwrap_err();
    assert!(matches!(e, CoverageError::TooLarge { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "bomb.info.gz: the report is larger than the limit of 1000000 bytes (--max-report-bytes) once decompressed, so it is not read"
    );
    assert_eq!(e.path(), Path::new("bomb.info.gz"));
    assert_eq!(e.kind(), "coverage_too_large");
    // Under the limit it is read.
    let r = parse_report_limited(Path::new("ok.info.gz"), &gz, 20_000_000).unwrap();
    assert_eq!(r.files[0].lines.len(), 1);
}

#[test]
fn a_report_longer_than_the_probe_is_counted_then_inflated_once_more() {
    // Two gzip members (gunzip reads both), 2,000,000 bytes in all, with a 64 kB probe:
    // over the probe, so the stream is counted and then inflated again.
    let mut text = String::from("TN:\nSF:a.c\n");
    let mut line = 0;
    while text.len() < 999_980 {
        line += 1;
        text.push_str(&format!("DA:{line},1\n"));
    }
    let pad = |mut s: String| {
        s.push_str(&" ".repeat(1_000_000 - s.len()));
        s
    };
    let text = pad(text);
    let second = pad("\nend_of_record\n".to_string());
    let mut gz = gzip(text.as_bytes());
    gz.extend(gzip(second.as_bytes()));
    let open = || Ok(std::io::Cursor::new(&gz[..]));
    let path = Path::new("two.info.gz");
    let inflated = inflate(path, open, 2_000_000, 65_536).unwrap();
    assert_eq!(inflated.len(), 2_000_000);
    assert_eq!(inflated, format!("{text}{second}").into_bytes());
    // One byte under the size: refused after counting, nothing kept beyond the probe.
    let e = inflate(path, open, 1_999_999, 65_536).unwrap_err();
    assert!(
        matches!(
            e,
            CoverageError::TooLarge {
                limit: 1_999_999,
                compressed: true,
                ..
            }
        ),
        "{e}"
    );
    // A limit under the probe is decided on the first pass.
    let e = inflate(path, open, 1_000, 65_536).unwrap_err();
    assert!(
        matches!(e, CoverageError::TooLarge { limit: 1_000, .. }),
        "{e}"
    );
    let r = parse_report_limited(path, &gz, 2_000_000).unwrap();
    assert_eq!(r.files[0].lines.len(), line);
}

#[test]
fn a_file_over_the_limit_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.info");
    std::fs::write(&path, "TN:\nSF:a.c\nDA:1,1\nend_of_record\n").unwrap();
    let e = read_report_limited(&path, 10).unwrap_err();
    assert!(
        matches!(
            e,
            CoverageError::TooLarge {
                limit: 10,
                compressed: false,
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("larger than the limit of 10 bytes (--max-report-bytes), so"),
        "{e}"
    );
    // 32 bytes: a report exactly at the limit is read, one byte over is not.
    assert!(matches!(
        read_report_limited(&path, 31),
        Err(CoverageError::TooLarge { .. })
    ));
    assert_eq!(
        read_report_limited(&path, 32).unwrap().files[0].lines,
        [(1, 1)]
    );
    // gzip on disk goes through the same bounded inflation.
    let gz = dir.path().join("big.info.gz");
    std::fs::write(&gz, gzip(b"TN:\nSF:a.c\nDA:1,1\nend_of_record\n")).unwrap();
    assert!(matches!(
        read_report_limited(&gz, 10),
        Err(CoverageError::TooLarge {
            compressed: true,
            ..
        })
    ));
    assert!(matches!(
        read_report_limited(&gz, 31),
        Err(CoverageError::TooLarge { .. })
    ));
    assert_eq!(
        read_report_limited(&gz, 32).unwrap().files[0].lines,
        [(1, 1)]
    );
    // A one-byte file is not mistaken for gzip.
    let one = dir.path().join("one.info");
    std::fs::write(&one, "\x1f").unwrap();
    assert!(matches!(
        read_report_limited(&one, 10),
        Err(CoverageError::UnknownFormat { .. })
    ));
}

#[test]
fn corrupt_gzip_is_an_error_naming_the_file() {
    let mut gz = gzip(GCOV.as_bytes());
    gz.truncate(gz.len() / 2);
    let e = parse_report(Path::new("cut.gcov.json.gz"), &gz).unwrap_err();
    assert!(matches!(e, CoverageError::Gzip { .. }), "{e}");
    assert!(e.to_string().starts_with("cut.gcov.json.gz: "), "{e}");
}

// ---------------------------------------------------------------- gcovr and coverage.py JSON

/// In the shape of gcovr 8's `--json --json-pretty` (older versions mark non-code lines).
const GCOVR: &str = r#"{
    "gcovr/format_version": "0.15",
    "files": [
        {
            "file": "src/prog.c",
            "lines": [
                {"line_number": 3, "function_name": "sq", "count": 1, "branches": []},
                {"line_number": 3, "function_name": "cube", "count": 1, "branches": []},
                {"line_number": 7, "function_name": "collatz", "count": 77, "branches": []},
                {"line_number": 8, "count": 0, "gcovr/noncode": true},
                {"line_number": 9, "count": 5, "gcovr/excluded": true},
                {"line_number": 17, "function_name": "never", "count": 0, "branches": []}
            ],
            "functions": []
        }
    ]
}
"#;

/// In the shape of coverage.py 7's `coverage json` (format 3), pretty-printed.
const COVERAGEPY: &str = r#"{
  "meta": {"format": 3, "version": "7.17.3", "timestamp": "2026-11-22T10:00:00",
           "branch_coverage": false, "show_contexts": false},
  "files": {
    "pkg/mod.py": {
      "executed_lines": [1, 2, 4, 9],
      "summary": {"covered_lines": 4, "num_statements": 6},
      "missing_lines": [5, 7],
      "excluded_lines": [11],
      "functions": {}, "classes": {}
    },
    "pkg/__init__.py": {"executed_lines": [], "missing_lines": [], "excluded_lines": []}
  },
  "totals": {"covered_lines": 4, "num_statements": 6}
}
"#;

#[test]
fn gcovr_json_sums_repeated_lines_and_skips_non_code() {
    let r = ok("gcovr.json", GCOVR);
    assert_eq!(r.format, Format::GcovrJson);
    assert_eq!(r.format.name(), "gcovr-json");
    assert!(r.roots.is_empty());
    assert_eq!(
        r.files,
        vec![FileHits {
            path: "src/prog.c".into(),
            lines: vec![(3, 2), (7, 77), (17, 0)],
        }]
    );
    let bad = GCOVR.replace(r#""count": 77"#, r#""count": "77""#);
    let msg = parse_error("gcovr.json", &bad, 9);
    assert!(msg.contains("invalid gcovr JSON"), "{msg}");
}

#[test]
fn coveragepy_json_marks_executed_and_missing_lines() {
    let r = ok("coverage.json", COVERAGEPY);
    assert_eq!(r.format, Format::CoveragePyJson);
    assert_eq!(r.format.name(), "coveragepy-json");
    assert_eq!(
        r.files,
        vec![
            FileHits {
                path: "pkg/__init__.py".into(),
                lines: vec![],
            },
            FileHits {
                path: "pkg/mod.py".into(),
                lines: vec![(1, 1), (2, 1), (4, 1), (5, 0), (7, 0), (9, 1)],
            },
        ]
    );
    // Keys deep inside (a Python function called format_version) do not decide the format.
    let named = COVERAGEPY.replace(
        "\"functions\": {}",
        "\"functions\": {\"format_version\": {\"executed_lines\": [2]}, \"gcc_version\": {}}",
    );
    assert_ne!(named, COVERAGEPY);
    assert_eq!(ok("coverage.json", &named).format, Format::CoveragePyJson);
    // An empty report is still coverage.py's.
    let empty = r#"{"meta": {"format": 3, "version": "7.17.3", "show_contexts": false}, "files": {}, "totals": {}}"#;
    assert_eq!(ok("c.json", empty).format, Format::CoveragePyJson);
    assert!(ok("c.json", empty).files.is_empty());
    // Cut short: the error names the last line.
    let cut = &COVERAGEPY[..COVERAGEPY.find("\"missing_lines\": [5").unwrap()];
    let e = parse_report(Path::new("coverage.json"), cut.as_bytes()).unwrap_err();
    assert_eq!(e.line(), Some(8), "{e}");
    let bad = COVERAGEPY.replace("[5, 7]", "[5, \"seven\"]");
    let msg = parse_error("coverage.json", &bad, 8);
    assert!(msg.contains("invalid coverage.py JSON"), "{msg}");
}

#[test]
fn other_json_is_not_taken_for_a_report() {
    for json in [
        r#"{"files": [{"file": "a.c", "lines": []}]}"#,
        r#"{"meta": {}, "files": {"a.py": {}}}"#,
    ] {
        let e = parse_report(Path::new("x.json"), json.as_bytes()).unwrap_err();
        assert!(matches!(e, CoverageError::UnknownFormat { .. }), "{e}");
        assert!(e.to_string().contains("coveragepy-json"), "{e}");
    }
}

// ---------------------------------------------------------------- detection

#[test]
fn format_comes_from_content_not_extension() {
    assert_eq!(ok("lcov.xml", LCOV).format, Format::Lcov);
    assert_eq!(ok("report.info", COBERTURA).format, Format::Cobertura);
    assert_eq!(ok("coverage.json", JACOCO).format, Format::Jacoco);
    assert_eq!(ok("x.txt", GCOV).format, Format::GcovJson);
    assert_eq!(ok("gcov.json", GCOVR).format, Format::GcovrJson);
    assert_eq!(ok("report.xml", COVERAGEPY).format, Format::CoveragePyJson);
    // llvm-cov and coverage.py start with SF:, and a BOM or blank lines may come first.
    assert_eq!(
        ok("a", "\u{feff}\n\nSF:a.c\nend_of_record\n").format,
        Format::Lcov
    );
}

#[test]
fn unknown_formats_name_the_file_and_the_known_formats() {
    for (text, why) in [
        ("", "empty"),
        ("hello world\n", "hello world"),
        (r#"{"meta": {"format": 3}, "files": {}}"#, "gcc_version"),
        ("<?xml version=\"1.0\"?><html/>", "<html>"),
        ("<coverage clover=\"4.4\"><project/></coverage>", "Clover"),
    ] {
        let e = parse("mystery.out", text).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, CoverageError::UnknownFormat { .. }), "{msg}");
        assert!(msg.starts_with("mystery.out: "), "{msg}");
        assert!(msg.contains(why), "{msg}");
        for name in Format::ALL.map(|f| f.name()) {
            assert!(msg.contains(name), "{msg}");
        }
    }
}

#[test]
fn unreadable_file_is_an_io_error_naming_it() {
    let e = read_report(Path::new("/nonexistent/dir/lcov.info")).unwrap_err();
    assert!(matches!(e, CoverageError::Io { .. }));
    assert!(
        e.to_string().starts_with("/nonexistent/dir/lcov.info: "),
        "{e}"
    );
    assert_eq!(e.path(), Path::new("/nonexistent/dir/lcov.info"));
}

#[test]
fn non_utf8_reports_name_the_line() {
    let mut data = b"SF:a.c\nDA:1,1\nend_of_record\nSF:\xff.c\nend_of_record\n".to_vec();
    let e = parse_report(Path::new("l.info"), &data).unwrap_err();
    assert_eq!(e.line(), Some(4), "{e}");
    data = COBERTURA.as_bytes().to_vec();
    let at = COBERTURA.find("pkg/mod.py").unwrap();
    data[at] = 0xff;
    let e = parse_report(Path::new("c.xml"), &data).unwrap_err();
    assert_eq!(e.line(), Some(12), "{e}");
}

// ---------------------------------------------------------------- mapping

fn report(format: Format, roots: &[&str], files: &[(&str, &[(u32, u64)])]) -> Report {
    Report {
        format,
        path: PathBuf::from("r"),
        files: files
            .iter()
            .map(|(p, l)| FileHits {
                path: p.to_string(),
                lines: l.to_vec(),
            })
            .collect(),
        roots: roots.iter().map(|r| r.to_string()).collect(),
    }
}

const REPO: &[&str] = &[
    "src/server.c",
    "src/util.c",
    "deps/lua/src/util.c",
    "src/main/java/org/foo/Foo.java",
    "pkg/mod.py",
    "lib/a/x.h",
    "lib/b/x.h",
    "README.md",
];

#[test]
fn maps_absolute_build_paths_by_unique_suffix() {
    let r = report(
        Format::Lcov,
        &[],
        &[
            ("/home/ci/build/redis/src/server.c", &[(1, 3)]),
            // Both src/util.c and deps/lua/src/util.c end in src/util.c: ambiguous.
            ("/home/ci/build/redis/src/util.c", &[(2, 1)]),
            (r"C:\ci\redis\deps\lua\src\util.c", &[(5, 5)]),
        ],
    );
    let cov = RepoCoverage::build(std::slice::from_ref(&r), REPO, &[]);
    assert_eq!(cov.lines("src/server.c").unwrap()[&1], 3);
    assert_eq!(cov.lines("deps/lua/src/util.c").unwrap()[&5], 5);
    assert_eq!(cov.stats.mapped_files, 2);
    assert_eq!(
        cov.stats.ambiguous_examples,
        ["/home/ci/build/redis/src/util.c"]
    );
    assert_eq!(cov.covered_paths(), ["deps/lua/src/util.c", "src/server.c"]);
    // The build directory as a strip prefix makes it exact (written unnormalised).
    let cov = RepoCoverage::build(&[r], REPO, &["/home/ci/x/../build/redis/".into()]);
    assert_eq!(cov.lines("src/util.c").unwrap()[&2], 1);
    assert_eq!(cov.stats.mapped_files, 3);
}

#[test]
fn maps_jacoco_packages_and_roots_and_prefixes() {
    let jacoco = report(Format::Jacoco, &[], &[("org/foo/Foo.java", &[(5, 1)])]);
    // gcovr writes paths relative to a <source>; the second root is the right one.
    let cobertura = report(
        Format::Cobertura,
        &["/elsewhere", "/home/ci/proj/pkg"],
        &[("mod.py", &[(2, 4)])],
    );
    let cov = RepoCoverage::build(&[jacoco, cobertura], REPO, &[]);
    assert_eq!(cov.lines("src/main/java/org/foo/Foo.java").unwrap()[&5], 1);
    assert_eq!(cov.lines("pkg/mod.py").unwrap()[&2], 4);

    // gcov: "../src/x.h" relative to the working directory /w/lib/a/build.
    let gcov = report(
        Format::GcovJson,
        &["/w/lib/a/build"],
        &[("../x.h", &[(1, 1)])],
    );
    let cov = RepoCoverage::build(&[gcov], REPO, &[]);
    assert_eq!(cov.covered_paths(), ["lib/a/x.h"]);

    // "/src/x.h" stripped of "/src" is "x.h": lib/a/x.h or lib/b/x.h.
    let lcov = report(Format::Lcov, &[], &[("/src/x.h", &[(1, 1)])]);
    let cov = RepoCoverage::build(&[lcov], REPO, &["/src/".into()]);
    assert_eq!(cov.stats.ambiguous_files, 1);
    let lcov = report(Format::Lcov, &[], &[("/checkout/lib/b/x.h", &[(1, 1)])]);
    let cov = RepoCoverage::build(&[lcov], REPO, &["/checkout".into()]);
    assert_eq!(cov.covered_paths(), ["lib/b/x.h"]);
}

#[test]
fn ambiguous_and_unmapped_are_counted_with_examples() {
    let files: Vec<(String, &[(u32, u64)])> = (0..7)
        .map(|i| (format!("/tmp/gen/file{i}.c"), &[(1u32, 1u64)][..]))
        .collect();
    let mut list: Vec<(&str, &[(u32, u64)])> =
        files.iter().map(|(p, l)| (p.as_str(), *l)).collect();
    list.push(("x.h", &[(1, 1)]));
    list.push(("util.c", &[(1, 1)]));
    // Same path again: one report file, not two.
    list.push(("x.h", &[(2, 1)]));
    let cov = RepoCoverage::build(&[report(Format::Lcov, &[], &list)], REPO, &[]);
    assert_eq!(cov.stats.report_files, 9);
    assert_eq!(cov.stats.unmapped_files, 7);
    assert_eq!(cov.stats.ambiguous_files, 2);
    assert_eq!(cov.stats.mapped_files, 0);
    assert_eq!(
        cov.stats.unmapped_examples,
        (0..5)
            .map(|i| format!("/tmp/gen/file{i}.c"))
            .collect::<Vec<_>>()
    );
    assert_eq!(cov.stats.ambiguous_examples, ["x.h", "util.c"]);
    assert!(cov.covered_paths().is_empty());
    // The file name must match: "server.cc" is not "server.c".
    let cov = RepoCoverage::build(
        &[report(Format::Lcov, &[], &[("/b/src/server.cc", &[])])],
        REPO,
        &[],
    );
    assert_eq!(cov.stats.unmapped_files, 1);
}

#[test]
fn hits_sum_over_reports_and_records_and_function_ranges() {
    let a = report(
        Format::Lcov,
        &[],
        &[
            ("src/server.c", &[(10, 2), (11, 0), (12, 5)]),
            ("src/server.c", &[(12, 1), (14, 0)]),
        ],
    );
    let b = report(Format::GcovJson, &["/ci"], &[("src/server.c", &[(11, 3)])]);
    let c = report(Format::Lcov, &[], &[("/other/src/server.c", &[(20, 9)])]);
    let cov = RepoCoverage::build(&[a, b, c], REPO, &[]);
    assert_eq!(cov.stats.reports, 3);
    assert_eq!(cov.stats.formats.get("lcov"), Some(&2));
    assert_eq!(cov.stats.formats.get("gcov-json"), Some(&1));
    // "src/server.c" with no roots, with roots ["/ci"], and "/other/src/server.c".
    assert_eq!(cov.stats.report_files, 3);
    assert_eq!(cov.stats.mapped_files, 3);
    // Lines 10..=14: 10→2, 11→0+3, 12→5+1, 14→0.
    assert_eq!(
        cov.function("src/server.c", 10, 14),
        Some(FunctionCoverage {
            hits: 11,
            covered_lines: 3,
            coverable_lines: 4
        })
    );
    assert_eq!(
        cov.function("src/server.c", 13, 13),
        Some(FunctionCoverage::default())
    );
    // A reversed range is empty, not a panic.
    assert_eq!(
        cov.function("src/server.c", 14, 10),
        Some(FunctionCoverage::default())
    );
    assert_eq!(
        cov.function("src/server.c", 1, u32::MAX).map(|f| f.hits),
        Some(20)
    );
    assert_eq!(cov.function("src/util.c", 1, 100), None);
}

#[test]
fn stats_serialize_for_stats_json() {
    let cov = RepoCoverage::build(
        &[report(Format::Jacoco, &[], &[("org/foo/Foo.java", &[])])],
        REPO,
        &[],
    );
    let json = serde_json::to_value(&cov.stats).unwrap();
    assert_eq!(json["formats"]["jacoco"], 1);
    assert_eq!(json["mapped_files"], 1);
    assert_eq!(json["unmapped_examples"], serde_json::json!([]));
}

#[test]
fn xml_cut_inside_the_root_tag_is_still_recognised() {
    let cut = &COBERTURA[..COBERTURA.find("timestamp").unwrap()];
    let msg = parse_error("coverage.xml", cut, 3);
    assert!(msg.contains("malformed XML"), "{msg}");
    let cut = &JACOCO[..JACOCO.find("name=\"demo\"").unwrap()];
    parse_error("jacoco.xml", cut, 1);
    // Comments and a DOCTYPE whose internal subset holds '>' come before the root.
    let text =
        format!("<!-- a > b -->\n{XXE_DOCTYPE}\n<?pi x?>\n<ns:report name='r'></ns:report>\n");
    assert_eq!(ok("j.xml", &text).format, Format::Jacoco);
}
