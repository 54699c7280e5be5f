//! Every rule and preset against hand-written cases taken from the rules' definitions
//! (the spec, CodeSearchNet's function_parser and paper, CodeXGLUE's README,
//! YABLoCo's generate_benchmark.py).

use crate::Compile;
use codemine_filters::{Filter, FilterConfig, FunctionView, Kind, Preset};

/// A C function that every preset keeps.
fn good() -> FunctionView<'static> {
    FunctionView {
        repository: "acme/lib",
        path: "src/lib/core.c",
        language: "c",
        name: "parse_header",
        qualified_name: "parse_header",
        kind: Kind::Function,
        start_line: 10,
        end_line: 20,
        body_lines: 8,
        docstring: Some("Parse the header of a request and return its fields."),
        docstring_tokens: 10,
        syntax_error: false,
        calls_num: 2,
        test_cov_hits: Some(5),
        last_commit: Some(1_650_000_000),
        last_commit_bounded: false,
        license: Some("MIT"),
        param_names: &[],
    }
}

fn compile(cfg: FilterConfig) -> Filter {
    cfg.compile().expect("valid config")
}

fn preset(p: Preset) -> Filter {
    compile(FilterConfig {
        preset: Some(p),
        ..Default::default()
    })
}

/// Both stages, as the pipeline runs them.
fn check(f: &Filter, v: &FunctionView) -> Result<(), &'static str> {
    f.check_before_history(v)?;
    f.check_history(v)
}

fn date(s: &str) -> codemine_filters::DateSpec {
    s.parse().unwrap()
}

// ---------------------------------------------------------------- nothing configured

#[test]
fn nothing_configured_filters_nothing() {
    let f = compile(FilterConfig::default());
    assert!(!f.is_active());
    assert!(!f.needs_last_commit());
    assert!(f.rule_names().is_empty());
    let worst = FunctionView {
        path: "vendor/node_modules/x_pb2.py",
        name: "test___init__",
        kind: Kind::Constructor,
        docstring: None,
        docstring_tokens: 0,
        syntax_error: true,
        test_cov_hits: None,
        last_commit: None,
        ..good()
    };
    assert_eq!(check(&f, &worst), Ok(()));
    assert_eq!(f.describe()["active"], false);
}

#[test]
fn turning_default_excludes_off_alone_is_still_nothing() {
    let f = compile(FilterConfig {
        default_excludes: Some(false),
        ..Default::default()
    });
    assert!(!f.is_active());
}

// ---------------------------------------------------------------- languages, paths

#[test]
fn languages_rule() {
    let f = compile(FilterConfig {
        languages: Some(vec!["python".into(), "C++".into()]),
        ..Default::default()
    });
    assert_eq!(f.rule_names(), ["languages", "path_exclude"]);
    assert_eq!(check(&f, &good()), Err("languages"));
    let cpp = FunctionView {
        language: "cpp",
        ..good()
    };
    assert_eq!(check(&f, &cpp), Ok(()));
    let py = FunctionView {
        language: "python",
        ..good()
    };
    assert_eq!(check(&f, &py), Ok(()));
}

#[test]
fn default_excludes_come_with_any_rule() {
    let f = compile(FilterConfig {
        min_lines: Some(1),
        ..Default::default()
    });
    assert!(f.is_active());
    assert_eq!(f.rule_names(), ["path_exclude", "lines"]);
    for path in [
        "vendor/zlib/inflate.c",
        "src/third_party/abseil/strings.cc",
        "ThirdParty/lua/lapi.c",
        "api/v1/service_pb2.py",
        "gen/msg.pb.cc",
        "build/generated/Foo.java",
        "web/node_modules/x/index.js",
    ] {
        let v = FunctionView { path, ..good() };
        assert_eq!(check(&f, &v), Err("path_exclude"), "{path}");
    }
    for path in ["deps/hiredis/hiredis.c", "src/server.c", "lib/vendors.py"] {
        let v = FunctionView { path, ..good() };
        assert_eq!(check(&f, &v), Ok(()), "{path}");
    }

    let off = compile(FilterConfig {
        min_lines: Some(1),
        default_excludes: Some(false),
        ..Default::default()
    });
    assert_eq!(off.rule_names(), ["lines"]);
    let vendored = FunctionView {
        path: "vendor/zlib/inflate.c",
        ..good()
    };
    assert_eq!(check(&off, &vendored), Ok(()));
}

#[test]
fn default_excludes_alone_when_asked_for() {
    let f = compile(FilterConfig {
        default_excludes: Some(true),
        ..Default::default()
    });
    assert!(f.is_active());
    assert_eq!(f.rule_names(), ["path_exclude"]);
}

#[test]
fn user_excludes_follow_gitignore_conventions() {
    let f = compile(FilterConfig {
        exclude: vec![
            "*_test.py".into(),
            "fixtures/".into(),
            "/scripts/**".into(),
            "docs/*.py".into(),
        ],
        default_excludes: Some(false),
        ..Default::default()
    });
    assert_eq!(f.rule_names(), ["path_exclude"]);
    let outcome = |path| check(&f, &FunctionView { path, ..good() });
    assert_eq!(outcome("pkg/sub/io_test.py"), Err("path_exclude"));
    assert_eq!(outcome("io_test.py"), Err("path_exclude"));
    assert_eq!(outcome("a/fixtures/data.c"), Err("path_exclude"));
    assert_eq!(outcome("fixtures/data.c"), Err("path_exclude"));
    assert_eq!(outcome("scripts/release.py"), Err("path_exclude"));
    assert_eq!(outcome("tools/scripts/release.py"), Ok(()));
    assert_eq!(outcome("docs/conf.py"), Err("path_exclude"));
    // `*` stays within one folder.
    assert_eq!(outcome("docs/api/conf.py"), Ok(()));
    // User globs are case-sensitive.
    assert_eq!(outcome("Fixtures/data.c"), Ok(()));
}

#[test]
fn excludes_alone_activate_default_excludes_too() {
    let f = compile(FilterConfig {
        exclude: vec!["*.h".into()],
        ..Default::default()
    });
    let vendored = FunctionView {
        path: "vendor/x.c",
        ..good()
    };
    assert_eq!(check(&f, &vendored), Err("path_exclude"));
    let header = FunctionView {
        path: "include/x.h",
        ..good()
    };
    assert_eq!(check(&f, &header), Err("path_exclude"));
}

// ---------------------------------------------------------------- csn

#[test]
fn csn_rules_in_order() {
    let f = preset(Preset::Csn);
    assert!(f.is_active());
    assert!(!f.needs_last_commit());
    assert_eq!(
        f.rule_names(),
        [
            "path_exclude",
            "test_in_name",
            "special_method",
            "lines",
            "docstring_tokens"
        ]
    );
    assert_eq!(check(&f, &good()), Ok(()));
}

#[test]
fn csn_test_in_name_any_case_substring() {
    let f = preset(Preset::Csn);
    for name in [
        "testParse",
        "TestCase",
        "test_parse",
        "check_TEST",
        "get_latest",
        "contest",
    ] {
        let v = FunctionView { name, ..good() };
        assert_eq!(check(&f, &v), Err("test_in_name"), "{name}");
    }
    // The path does not matter to csn.
    let in_tests = FunctionView {
        path: "tests/helpers.c",
        ..good()
    };
    assert_eq!(check(&f, &in_tests), Ok(()));
}

#[test]
fn csn_constructors_and_standard_methods() {
    let f = preset(Preset::Csn);
    let rejected = [
        ("java", "Parser", Kind::Constructor),
        ("cpp", "Parser", Kind::Constructor),
        ("python", "__init__", Kind::Constructor),
        ("python", "__init__", Kind::Method),
        ("python", "__str__", Kind::Method),
        ("python", "__repr__", Kind::Method),
        ("python", "__eq__", Kind::Method),
        ("python", "__getattr__", Kind::Function),
        ("java", "toString", Kind::Method),
        ("java", "hashCode", Kind::Method),
        ("java", "equals", Kind::Method),
        ("java", "finalize", Kind::Method),
        ("java", "notify", Kind::Method),
        ("java", "notifyAll", Kind::Method),
        ("java", "clone", Kind::Method),
        ("cpp", "~Parser", Kind::Method),
        ("cpp", "operator==", Kind::Method),
        ("cpp", "operator<<", Kind::Function),
        ("cpp", "operator bool", Kind::Method),
        ("cpp", "clone", Kind::Method),
        ("cpp", "toString", Kind::Method),
    ];
    for (language, name, kind) in rejected {
        let v = FunctionView {
            language,
            name,
            kind,
            ..good()
        };
        assert_eq!(
            check(&f, &v),
            Err("special_method"),
            "{language} {name} {kind:?}"
        );
    }
    let kept = [
        ("c", "clone", Kind::Function),
        ("c", "equals", Kind::Function),
        ("cpp", "clone", Kind::Function),
        ("cpp", "operators", Kind::Method),
        ("java", "toStringHelper", Kind::Method),
        ("java", "equalsIgnoreCase", Kind::Method),
        ("python", "_private", Kind::Method),
        ("python", "__private", Kind::Method),
        ("python", "to_string", Kind::Method),
    ];
    for (language, name, kind) in kept {
        let v = FunctionView {
            language,
            name,
            kind,
            ..good()
        };
        assert_eq!(check(&f, &v), Ok(()), "{language} {name} {kind:?}");
    }
}

#[test]
fn csn_three_lines_and_three_tokens() {
    let f = preset(Preset::Csn);
    let two_lines = FunctionView {
        start_line: 10,
        end_line: 11,
        ..good()
    };
    assert_eq!(check(&f, &two_lines), Err("lines"));
    let three_lines = FunctionView {
        start_line: 10,
        end_line: 12,
        ..good()
    };
    assert_eq!(check(&f, &three_lines), Ok(()));
    let one_liner = FunctionView {
        start_line: 7,
        end_line: 7,
        ..good()
    };
    assert_eq!(check(&f, &one_liner), Err("lines"));

    let two_tokens = FunctionView {
        docstring: Some("Parses headers."),
        docstring_tokens: 2,
        ..good()
    };
    assert_eq!(check(&f, &two_tokens), Err("docstring_tokens"));
    let three_tokens = FunctionView {
        docstring_tokens: 3,
        ..good()
    };
    assert_eq!(check(&f, &three_tokens), Ok(()));
    let none = FunctionView {
        docstring: None,
        docstring_tokens: 0,
        ..good()
    };
    assert_eq!(check(&f, &none), Err("docstring_tokens"));
}

#[test]
fn first_failing_rule_is_reported() {
    let f = preset(Preset::Csn);
    let bad = FunctionView {
        name: "testOne",
        kind: Kind::Constructor,
        start_line: 1,
        end_line: 1,
        docstring_tokens: 0,
        ..good()
    };
    assert_eq!(check(&f, &bad), Err("test_in_name"));
    let vendored = FunctionView {
        path: "third_party/x.c",
        ..bad
    };
    assert_eq!(check(&f, &vendored), Err("path_exclude"));
}

// ---------------------------------------------------------------- codexglue

#[test]
fn codexglue_rules_in_order() {
    let f = preset(Preset::Codexglue);
    assert_eq!(
        f.rule_names(),
        [
            "path_exclude",
            "test_in_name",
            "special_method",
            "lines",
            "docstring_tokens",
            "docstring_markup",
            "syntax_error",
            "english"
        ]
    );
    assert_eq!(check(&f, &good()), Ok(()));
    // csn's rules are in.
    let ctor = FunctionView {
        language: "java",
        kind: Kind::Constructor,
        ..good()
    };
    assert_eq!(check(&f, &ctor), Err("special_method"));
}

#[test]
fn codexglue_docstring_3_to_256_tokens() {
    let f = preset(Preset::Codexglue);
    for (tokens, outcome) in [
        (2, Err("docstring_tokens")),
        (3, Ok(())),
        (256, Ok(())),
        (257, Err("docstring_tokens")),
    ] {
        let v = FunctionView {
            docstring_tokens: tokens,
            ..good()
        };
        assert_eq!(check(&f, &v), outcome, "{tokens}");
    }
}

#[test]
fn codexglue_no_urls_or_html() {
    let f = preset(Preset::Codexglue);
    let dropped = [
        "Fetches the page, see https://example.com/docs for the format.",
        "Fetches the page over http://localhost:8080 and parses it.",
        "Uses the API described at www.example.org in detail.",
        "Fetches the page over HTTPS://EXAMPLE.COM and parses it.",
        "Returns the first element.<p>Throws if the list is empty.",
        "Returns the <code>null</code> value for the given key.",
        "Draws the logo <img src=\"logo.png\"/> on the canvas.",
        "Splits the text into lines.<br/>Keeps the separators.",
        "Splits the text into lines.<BR>Keeps the separators.",
        "Returns the value <!-- TODO: cache --> for the key.",
        "Returns the <a href=\"#x\">linked</a> element of the list.",
    ];
    for doc in dropped {
        let v = FunctionView {
            docstring: Some(doc),
            ..good()
        };
        assert_eq!(check(&f, &v), Err("docstring_markup"), "{doc}");
    }
    let kept = [
        "Returns a List<String> of the names in the table.",
        "Builds a Map<K, V> from the given pairs of keys and values.",
        "Wraps the value in an Optional<B> for the caller.",
        "Reads the header, as #include <stdio.h> does for the compiler.",
        "Returns true when a < b and c > d for the pair.",
        "Returns the http status code of the last response.",
        "Returns the value of the awww.counter for the session.",
    ];
    for doc in kept {
        let v = FunctionView {
            docstring: Some(doc),
            ..good()
        };
        assert_eq!(check(&f, &v), Ok(()), "{doc}");
    }
}

#[test]
fn codexglue_syntax_errors() {
    let f = preset(Preset::Codexglue);
    let broken = FunctionView {
        syntax_error: true,
        ..good()
    };
    assert_eq!(check(&f, &broken), Err("syntax_error"));
    // csn does not look at syntax errors.
    assert_eq!(check(&preset(Preset::Csn), &broken), Ok(()));
}

#[test]
fn codexglue_english_only() {
    let f = preset(Preset::Codexglue);
    let german = FunctionView {
        docstring: Some("Gibt die Anzahl der verfügbaren Proxies zurück."),
        ..good()
    };
    assert_eq!(check(&f, &german), Err("english"));
    let chinese = FunctionView {
        docstring: Some("返回整体翻译进度统计，包括最近2小时速率。"),
        ..good()
    };
    assert_eq!(check(&f, &chinese), Err("english"));
    assert_eq!(check(&preset(Preset::Csn), &chinese), Ok(()));
}

// ---------------------------------------------------------------- yabloco

#[test]
fn yabloco_rules_in_order() {
    let f = preset(Preset::Yabloco);
    assert!(f.needs_last_commit());
    assert_eq!(
        f.rule_names(),
        [
            "path_exclude",
            "test_in_path_or_name",
            "body_lines",
            "yabloco_docstring",
            "calls_num",
            "coverage",
            "known_last_commit"
        ]
    );
    assert_eq!(check(&f, &good()), Ok(()));
}

#[test]
fn yabloco_docstring() {
    let f = preset(Preset::Yabloco);
    let dropped = [
        None,
        Some(""),
        Some("Frees the list."),
        Some("Frees\tthe\nlist."),
        Some("Copyright 2020 Acme Ltd. All rights reserved."),
        Some("Frees the list ==== and all of its nodes."),
        Some("Frees the list. Usage: list_free(list) { list = NULL; }"),
        Some("Call as\nfree_all (a, b)\n{\n  ...\n}\nto release them."),
    ];
    for doc in dropped {
        let v = FunctionView {
            docstring: doc,
            ..good()
        };
        assert_eq!(check(&f, &v), Err("yabloco_docstring"), "{doc:?}");
    }
    let kept = [
        "Frees the whole list.",
        "copyright notice is printed here for users",
        "Frees the list === and its nodes.",
        // The regex matches but there is no `}`: kept, as in YABLoCo.
        "Frees the list, like free_all(a, b) { does.",
        // A `}` without a C definition shape: kept.
        "Returns the closing brace } of the block.",
    ];
    for doc in kept {
        let v = FunctionView {
            docstring: Some(doc),
            ..good()
        };
        assert_eq!(check(&f, &v), Ok(()), "{doc}");
    }
}

#[test]
fn yabloco_body_lines_2_to_15() {
    let f = preset(Preset::Yabloco);
    for (body, outcome) in [
        (0, Err("body_lines")),
        (1, Err("body_lines")),
        (2, Ok(())),
        (15, Ok(())),
        (16, Err("body_lines")),
    ] {
        let v = FunctionView {
            body_lines: body,
            ..good()
        };
        assert_eq!(check(&f, &v), outcome, "{body}");
    }
}

#[test]
fn yabloco_test_in_path_or_name_case_sensitive() {
    let f = preset(Preset::Yabloco);
    for (path, name) in [
        ("tests/unit.c", "parse_header"),
        ("src/attest.c", "parse_header"),
        ("src/core.c", "test_parse"),
        ("src/core.c", "run_tests"),
    ] {
        let v = FunctionView {
            path,
            name,
            ..good()
        };
        assert_eq!(check(&f, &v), Err("test_in_path_or_name"), "{path} {name}");
    }
    for (path, name) in [("src/Test.c", "parse_header"), ("src/core.c", "TestParse")] {
        let v = FunctionView {
            path,
            name,
            ..good()
        };
        assert_eq!(check(&f, &v), Ok(()), "{path} {name}");
    }
}

#[test]
fn yabloco_calls_coverage_and_date() {
    let f = preset(Preset::Yabloco);
    let outcome = |v: FunctionView| check(&f, &v);
    assert_eq!(
        outcome(FunctionView {
            calls_num: 7,
            ..good()
        }),
        Ok(())
    );
    assert_eq!(
        outcome(FunctionView {
            calls_num: 8,
            ..good()
        }),
        Err("calls_num")
    );
    for (hits, expected) in [
        (None, Err("coverage")),
        (Some(-1), Err("coverage")),
        (Some(0), Err("coverage")),
        (Some(1), Ok(())),
    ] {
        let v = FunctionView {
            test_cov_hits: hits,
            ..good()
        };
        assert_eq!(outcome(v), expected, "{hits:?}");
    }
    let unknown = FunctionView {
        last_commit: None,
        ..good()
    };
    // The date rule is a history rule: the cheap stage lets it through.
    assert_eq!(f.check_before_history(&unknown), Ok(()));
    assert_eq!(f.check_history(&unknown), Err("known_last_commit"));
    let bounded = FunctionView {
        last_commit_bounded: true,
        ..good()
    };
    assert_eq!(f.check_history(&bounded), Err("known_last_commit"));
}

// ---------------------------------------------------------------- explicit beats preset

#[test]
fn explicit_settings_win_over_the_preset() {
    let csn5 = compile(FilterConfig {
        preset: Some(Preset::Csn),
        min_lines: Some(5),
        ..Default::default()
    });
    let four = FunctionView {
        start_line: 1,
        end_line: 4,
        ..good()
    };
    assert_eq!(check(&csn5, &four), Err("lines"));
    assert_eq!(csn5.describe()["rules"][3]["min"], 5);

    let csn0 = compile(FilterConfig {
        preset: Some(Preset::Csn),
        min_lines: Some(0),
        ..Default::default()
    });
    assert!(!csn0.rule_names().contains(&"lines"));
    let one = FunctionView {
        start_line: 3,
        end_line: 3,
        ..good()
    };
    assert_eq!(check(&csn0, &one), Ok(()));

    let cxg = compile(FilterConfig {
        preset: Some(Preset::Codexglue),
        max_docstring_tokens: Some(512),
        ..Default::default()
    });
    let long_doc = FunctionView {
        docstring_tokens: 300,
        ..good()
    };
    assert_eq!(check(&cxg, &long_doc), Ok(()));
    let short_doc = FunctionView {
        docstring_tokens: 2,
        ..good()
    };
    assert_eq!(check(&cxg, &short_doc), Err("docstring_tokens"));

    let yab = compile(FilterConfig {
        preset: Some(Preset::Yabloco),
        max_calls_num: Some(10),
        min_coverage_hits: Some(0),
        ..Default::default()
    });
    let busy_uncovered = FunctionView {
        calls_num: 9,
        test_cov_hits: Some(0),
        ..good()
    };
    assert_eq!(check(&yab, &busy_uncovered), Ok(()));
    // No coverage data still fails the coverage rule.
    let no_data = FunctionView {
        test_cov_hits: None,
        ..good()
    };
    assert_eq!(check(&yab, &no_data), Err("coverage"));
}

#[test]
fn a_bound_that_contradicts_the_preset_is_an_error() {
    let e = FilterConfig {
        preset: Some(Preset::Codexglue),
        min_docstring_tokens: Some(300),
        ..Default::default()
    }
    .compile()
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        "min_docstring_tokens: 300 is greater than max_docstring_tokens (256, from preset codexglue)"
    );
}

// ---------------------------------------------------------------- individual rules

#[test]
fn lines_bounds() {
    let f = compile(FilterConfig {
        min_lines: Some(3),
        max_lines: Some(5),
        default_excludes: Some(false),
        ..Default::default()
    });
    assert_eq!(f.rule_names(), ["lines"]);
    for (end, outcome) in [
        (11, Err("lines")),
        (12, Ok(())),
        (14, Ok(())),
        (15, Err("lines")),
    ] {
        let v = FunctionView {
            start_line: 10,
            end_line: end,
            ..good()
        };
        assert_eq!(check(&f, &v), outcome, "10..={end}");
    }
    // An inverted span never underflows.
    let odd = FunctionView {
        start_line: 10,
        end_line: 2,
        ..good()
    };
    assert_eq!(check(&f, &odd), Err("lines"));
}

#[test]
fn docstring_token_bounds_and_require_docstring() {
    let f = compile(FilterConfig {
        require_docstring: Some(true),
        min_docstring_tokens: Some(2),
        max_docstring_tokens: Some(4),
        default_excludes: Some(false),
        ..Default::default()
    });
    assert_eq!(f.rule_names(), ["require_docstring", "docstring_tokens"]);
    let outcome = |docstring, docstring_tokens| {
        check(
            &f,
            &FunctionView {
                docstring,
                docstring_tokens,
                ..good()
            },
        )
    };
    assert_eq!(outcome(None, 0), Err("require_docstring"));
    assert_eq!(outcome(Some("  \n "), 0), Err("require_docstring"));
    assert_eq!(outcome(Some("Frees."), 1), Err("docstring_tokens"));
    assert_eq!(outcome(Some("Frees the list."), 3), Ok(()));
    assert_eq!(outcome(Some("a b c d e"), 5), Err("docstring_tokens"));

    let off = compile(FilterConfig {
        require_docstring: Some(false),
        ..Default::default()
    });
    assert!(!off.is_active());
}

#[test]
fn min_coverage_hits() {
    let f = compile(FilterConfig {
        min_coverage_hits: Some(3),
        default_excludes: Some(false),
        ..Default::default()
    });
    assert_eq!(f.rule_names(), ["coverage"]);
    for (hits, outcome) in [
        (None, Err("coverage")),
        (Some(2), Err("coverage")),
        (Some(3), Ok(())),
        (Some(i64::MAX), Ok(())),
    ] {
        let v = FunctionView {
            test_cov_hits: hits,
            ..good()
        };
        assert_eq!(check(&f, &v), outcome, "{hits:?}");
    }
}

#[test]
fn since_and_until_days_are_whole_utc_days() {
    let f = compile(FilterConfig {
        since: Some(date("2021-01-01")),
        until: Some(date("2021-12-31")),
        default_excludes: Some(false),
        ..Default::default()
    });
    assert!(f.needs_last_commit());
    assert_eq!(f.rule_names(), ["since", "until"]);
    let jan1 = 1_609_459_200; // 2021-01-01T00:00:00Z
    let jan1_next = 1_640_995_200; // 2022-01-01T00:00:00Z
    for (ts, outcome) in [
        (Some(jan1 - 1), Err("since")),
        (Some(jan1), Ok(())),
        (Some(jan1_next - 1), Ok(())),
        (Some(jan1_next), Err("until")),
        (None, Err("since")),
    ] {
        let v = FunctionView {
            last_commit: ts,
            ..good()
        };
        // Date rules never run in the first stage.
        assert_eq!(f.check_before_history(&v), Ok(()));
        assert_eq!(f.check_history(&v), outcome, "{ts:?}");
    }
}

#[test]
fn rfc3339_bounds_are_instants() {
    let f = compile(FilterConfig {
        since: Some(date("2021-06-30T12:00:00+02:00")),
        default_excludes: Some(false),
        ..Default::default()
    });
    let noon_utc_minus_2h = 1_625_047_200; // 2021-06-30T10:00:00Z
    let at = |t| {
        f.check_history(&FunctionView {
            last_commit: Some(t),
            ..good()
        })
    };
    assert_eq!(at(noon_utc_minus_2h), Ok(()));
    assert_eq!(at(noon_utc_minus_2h - 1), Err("since"));
}

#[test]
fn bounded_dates_prove_until_but_never_since() {
    let until = compile(FilterConfig {
        until: Some(date("2021-12-31")),
        ..Default::default()
    });
    let since = compile(FilterConfig {
        since: Some(date("2021-01-01")),
        ..Default::default()
    });
    let bounded = |t| FunctionView {
        last_commit: Some(t),
        last_commit_bounded: true,
        ..good()
    };
    // The true date is at most the bound: at most 2021-06 is on or before 2021-12-31.
    assert_eq!(until.check_history(&bounded(1_625_000_000)), Ok(()));
    assert_eq!(until.check_history(&bounded(1_700_000_000)), Err("until"));
    // "At most 2021-06" cannot show "on or after 2021-01-01".
    assert_eq!(since.check_history(&bounded(1_625_000_000)), Err("since"));
    let unknown = FunctionView {
        last_commit: None,
        ..good()
    };
    assert_eq!(until.check_history(&unknown), Err("until"));
}

#[test]
fn since_after_until_is_an_error() {
    let e = FilterConfig {
        since: Some(date("2022-01-01")),
        until: Some(date("2021-12-31")),
        ..Default::default()
    }
    .compile()
    .unwrap_err()
    .to_string();
    assert_eq!(e, "since: 2022-01-01 is after until (2021-12-31)");
    // The same day for both is one whole day.
    FilterConfig {
        since: Some(date("2021-12-31")),
        until: Some(date("2021-12-31")),
        ..Default::default()
    }
    .compile()
    .unwrap();
}

#[test]
fn invalid_settings_name_the_option() {
    let err = |cfg: FilterConfig| cfg.compile().unwrap_err().to_string();
    assert_eq!(
        err(FilterConfig {
            min_lines: Some(10),
            max_lines: Some(5),
            ..Default::default()
        }),
        "min_lines: 10 is greater than max_lines (5)"
    );
    // Languages added later are listed after these.
    assert!(err(FilterConfig {
        languages: Some(vec!["python".into(), "rust".into()]),
        ..Default::default()
    })
    .starts_with("languages: unknown language 'rust' (known: python, java, c, cpp"));
    assert_eq!(
        err(FilterConfig {
            languages: Some(vec![]),
            ..Default::default()
        }),
        "languages: the list is empty"
    );
    let glob = err(FilterConfig {
        exclude: vec!["src/[a".into()],
        ..Default::default()
    });
    assert!(
        glob.starts_with("exclude: 'src/[a' is not a valid glob"),
        "{glob}"
    );
}

#[test]
fn max_calls_num() {
    let f = compile(FilterConfig {
        max_calls_num: Some(0),
        default_excludes: Some(false),
        ..Default::default()
    });
    assert_eq!(f.rule_names(), ["calls_num"]);
    assert_eq!(check(&f, &good()), Err("calls_num"));
    let unused = FunctionView {
        calls_num: 0,
        ..good()
    };
    assert_eq!(check(&f, &unused), Ok(()));
}

// ---------------------------------------------------------------- order and describe

#[test]
fn everything_at_once_in_documented_order() {
    let f = compile(FilterConfig {
        preset: Some(Preset::Codexglue),
        languages: Some(vec!["java".into()]),
        require_docstring: Some(true),
        require_param_docs: Some(true),
        max_calls_num: Some(20),
        min_coverage_hits: Some(1),
        since: Some(date("2020-01-01")),
        until: Some(date("2030-01-01")),
        ..Default::default()
    });
    assert_eq!(
        f.rule_names(),
        [
            "languages",
            "path_exclude",
            "test_in_name",
            "special_method",
            "lines",
            "require_docstring",
            "docstring_tokens",
            "docstring_markup",
            "syntax_error",
            "english",
            "param_docs",
            "calls_num",
            "coverage",
            "since",
            "until"
        ]
    );
}

/// `require_param_docs`: the documented parameters are the signature's (docs/docstrings.md,
/// "Consistency"), in each language's convention; no docstring documents nothing.
#[test]
fn param_docs_compares_documented_and_signature_parameters() {
    let f = compile(FilterConfig {
        require_param_docs: Some(true),
        default_excludes: Some(false),
        ..Default::default()
    });
    assert_eq!(f.rule_names(), ["param_docs"]);
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (ab, a, none) = (names(&["a", "b"]), names(&["a"]), names(&[]));
    let (py_args, php) = (names(&["self", "msg", "*args", "**kwargs"]), names(&["$a"]));
    let doxygen = "Adds.\n@param a first\n@param b second";
    // (language, docstring, signature parameters, outcome)
    type Case<'a> = (&'a str, Option<&'a str>, &'a [String], Result<(), &'a str>);
    let cases: &[Case] = &[
        ("c", Some(doxygen), &ab, Ok(())),
        // `b` is undocumented.
        ("c", Some("Adds.\n@param a first"), &ab, Err("param_docs")),
        // `b` is not a parameter.
        ("c", Some(doxygen), &a, Err("param_docs")),
        ("c", None, &none, Err("param_docs")),
        // Nothing to document, nothing documented.
        ("c", Some("Does it."), &none, Ok(())),
        // The receiver and the variadic parameters need no entry.
        (
            "python",
            Some("Logs.\n\nArgs:\n    msg: The message."),
            &py_args,
            Ok(()),
        ),
        // PHPDoc names `$a` as the signature does.
        ("php", Some("Sets.\n@param int $a the value"), &php, Ok(())),
    ];
    for (language, docstring, param_names, want) in cases {
        let v = FunctionView {
            language,
            docstring: *docstring,
            param_names,
            ..good()
        };
        assert_eq!(
            check(&f, &v),
            *want,
            "{language} {docstring:?} {param_names:?}"
        );
    }
}

#[test]
fn describe_reports_preset_and_effective_settings() {
    let f = compile(FilterConfig {
        preset: Some(Preset::Codexglue),
        min_lines: Some(4),
        since: Some(date("2021-01-01")),
        exclude: vec!["docs/".into()],
        ..Default::default()
    });
    let d = f.describe();
    assert_eq!(d["active"], true);
    assert_eq!(d["preset"], "codexglue");
    let rules = d["rules"].as_array().unwrap();
    let names: Vec<&str> = rules.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, f.rule_names());
    let by_name = |n: &str| rules.iter().find(|r| r["name"] == n).unwrap().clone();
    assert_eq!(by_name("lines")["min"], 4);
    assert_eq!(by_name("docstring_tokens")["min"], 3);
    assert_eq!(by_name("docstring_tokens")["max"], 256);
    assert_eq!(by_name("since")["date"], "2021-01-01");
    assert_eq!(by_name("since")["first_second"], 1_609_459_200);
    assert_eq!(by_name("path_exclude")["exclude"][0], "docs/");
    assert_eq!(
        by_name("path_exclude")["default_excludes"][0],
        "**/vendor/**"
    );
}
