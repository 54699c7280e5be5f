//! The compiled filter: the active rules in evaluation order, each with its effective
//! parameters (an explicit setting wins over the preset's value for the same rule).

use globset::{GlobSet, GlobSetBuilder};
use serde_json::{json, Value};

use crate::config::{FilterConfig, Preset};
use crate::date::{DateSpec, DateZone};
use crate::error::FilterError;
use crate::rules::{self, compile_glob, normalize_glob, KnownLanguages};
use crate::{english, FunctionView};

/// One rule with its parameters. Variant order is not evaluation order: `compile` pushes
/// them in the documented order.
#[derive(Debug, Clone)]
enum Rule {
    Languages(Vec<&'static str>),
    PathExclude {
        set: GlobSet,
        user: Vec<String>,
        defaults: bool,
    },
    TestInName,
    SpecialMethod,
    TestInPathOrName,
    Lines {
        min: Option<u32>,
        max: Option<u32>,
    },
    BodyLines {
        min: u32,
        max: u32,
    },
    RequireDocstring,
    DocstringTokens {
        min: Option<usize>,
        max: Option<usize>,
    },
    YablocoDocstring,
    DocstringMarkup,
    SyntaxError,
    English,
    ParamDocs,
    CallsNum {
        max: u64,
    },
    License(crate::license::Allowed),
    Coverage {
        min: u64,
    },
    KnownLastCommit,
    Since(DateSpec),
    Until(DateSpec),
}

impl Rule {
    fn name(&self) -> &'static str {
        match self {
            Rule::Languages(_) => "languages",
            Rule::PathExclude { .. } => "path_exclude",
            Rule::TestInName => "test_in_name",
            Rule::SpecialMethod => "special_method",
            Rule::TestInPathOrName => "test_in_path_or_name",
            Rule::Lines { .. } => "lines",
            Rule::BodyLines { .. } => "body_lines",
            Rule::RequireDocstring => "require_docstring",
            Rule::DocstringTokens { .. } => "docstring_tokens",
            Rule::YablocoDocstring => "yabloco_docstring",
            Rule::DocstringMarkup => "docstring_markup",
            Rule::SyntaxError => "syntax_error",
            Rule::English => "english",
            Rule::ParamDocs => PARAM_DOCS,
            Rule::CallsNum { .. } => "calls_num",
            Rule::License(_) => "license",
            Rule::Coverage { .. } => "coverage",
            Rule::KnownLastCommit => "known_last_commit",
            Rule::Since(_) => "since",
            Rule::Until(_) => "until",
        }
    }

    /// Whether the function passes this rule.
    fn keeps(&self, f: &FunctionView) -> bool {
        match self {
            Rule::Languages(langs) => langs.contains(&f.language),
            Rule::PathExclude { set, .. } => !set.is_match(f.path),
            Rule::TestInName => !rules::csn_test_name(f),
            Rule::SpecialMethod => !rules::csn_special_method(f),
            Rule::TestInPathOrName => !rules::yabloco_test(f),
            Rule::Lines { min, max } => {
                let lines = f.end_line.saturating_sub(f.start_line).saturating_add(1);
                within(lines, *min, *max)
            }
            Rule::BodyLines { min, max } => (*min..=*max).contains(&f.body_lines),
            Rule::RequireDocstring => f.docstring.is_some_and(|d| !d.trim().is_empty()),
            Rule::DocstringTokens { min, max } => within(f.docstring_tokens, *min, *max),
            Rule::YablocoDocstring => rules::yabloco_docstring_ok(f.docstring),
            Rule::DocstringMarkup => !f.docstring.is_some_and(rules::has_url_or_html),
            Rule::SyntaxError => !f.syntax_error,
            Rule::English => f.docstring.is_none_or(english::keeps),
            // Without a docstring nothing documents the parameters.
            Rule::ParamDocs => f.docstring.is_some_and(|d| {
                let parsed = codemine_docstring::parse(
                    d,
                    codemine_docstring::Language::from_name(f.language),
                );
                codemine_docstring::params_match(&parsed, f.param_names)
            }),
            Rule::CallsNum { max } => f.calls_num <= *max,
            Rule::License(allowed) => allowed.keeps(f.license),
            // No coverage data cannot show the hits.
            Rule::Coverage { min } => f
                .test_cov_hits
                .is_some_and(|h| u64::try_from(h).is_ok_and(|h| h >= *min)),
            Rule::KnownLastCommit => f.last_commit.is_some() && !f.last_commit_bounded,
            // A bounded (shallow-clone) date is only an upper bound of the true date: it can
            // prove "on or before" but never "on or after".
            Rule::Since(d) => {
                !f.last_commit_bounded && f.last_commit.is_some_and(|t| t >= d.first_second())
            }
            Rule::Until(d) => f.last_commit.is_some_and(|t| t <= d.last_second()),
        }
    }

    fn is_history(&self) -> bool {
        matches!(
            self,
            Rule::KnownLastCommit | Rule::Since(_) | Rule::Until(_)
        )
    }

    fn describe(&self) -> Value {
        let mut v = match self {
            Rule::Languages(langs) => json!({ "languages": langs }),
            Rule::PathExclude { user, defaults, .. } => json!({
                "exclude": user,
                "default_excludes": if *defaults { rules::DEFAULT_EXCLUDES } else { &[] },
            }),
            Rule::Lines { min, max } => json!({ "min": min, "max": max }),
            Rule::BodyLines { min, max } => json!({ "min": min, "max": max }),
            Rule::DocstringTokens { min, max } => json!({ "min": min, "max": max }),
            Rule::CallsNum { max } => json!({ "max": max }),
            Rule::License(allowed) => json!({ "licenses": allowed.names }),
            Rule::Coverage { min } => json!({ "min": min }),
            Rule::Since(d) => json!({ "date": d.as_str(), "first_second": d.first_second() }),
            Rule::Until(d) => json!({ "date": d.as_str(), "last_second": d.last_second() }),
            Rule::TestInName
            | Rule::SpecialMethod
            | Rule::TestInPathOrName
            | Rule::RequireDocstring
            | Rule::YablocoDocstring
            | Rule::DocstringMarkup
            | Rule::SyntaxError
            | Rule::English
            | Rule::ParamDocs
            | Rule::KnownLastCommit => json!({}),
        };
        v["name"] = json!(self.name());
        v
    }
}

fn within<T: PartialOrd>(value: T, min: Option<T>, max: Option<T>) -> bool {
    min.as_ref().is_none_or(|m| value >= *m) && max.as_ref().is_none_or(|m| value <= *m)
}

/// The rule name of `require_param_docs` (`--require-param-docs`) in the funnel, stats.json
/// and `--explain`.
pub const PARAM_DOCS: &str = "param_docs";

/// The rule name of the SIDE threshold in the funnel, stats.json and `--explain`.
pub const MIN_SIDE: &str = "min_side";

/// The compiled filter stage.
#[derive(Debug, Clone)]
pub struct Filter {
    preset: Option<Preset>,
    /// The rules `check_before_history` runs, in order.
    before: Vec<Rule>,
    /// The last-commit rules, in order.
    history: Vec<Rule>,
    /// The zone of `YYYY-MM-DD` bounds and of the `dd.mm.YYYY` dates written.
    zone: DateZone,
    /// The SIDE threshold: a rule the miner's SIDE step applies after dedup, not `check`.
    min_side: Option<f64>,
}

/// A bound and where it came from, for error messages.
struct Bound<T> {
    value: Option<T>,
    from_preset: Option<Preset>,
}

impl<T: Copy> Bound<T> {
    /// The explicit value if given, else the preset's default.
    fn pick(explicit: Option<T>, preset: Option<Preset>, preset_value: Option<T>) -> Self {
        match (explicit, preset_value) {
            (Some(v), _) => Bound {
                value: Some(v),
                from_preset: None,
            },
            (None, Some(v)) => Bound {
                value: Some(v),
                from_preset: preset,
            },
            (None, None) => Bound {
                value: None,
                from_preset: None,
            },
        }
    }
}

fn check_order<T: PartialOrd + std::fmt::Display + Copy>(
    min_key: &str,
    min: &Bound<T>,
    max_key: &str,
    max: &Bound<T>,
) -> Result<(), FilterError> {
    if let (Some(lo), Some(hi)) = (min.value, max.value) {
        if lo > hi {
            let origin = |b: &Bound<T>| match b.from_preset {
                Some(p) => format!(", from preset {p}"),
                None => String::new(),
            };
            return Err(FilterError::invalid(
                min_key,
                format!(
                    "{lo}{} is greater than {max_key} ({hi}{})",
                    origin(min),
                    origin(max)
                ),
            ));
        }
    }
    Ok(())
}

impl Filter {
    /// Checks the settings and builds the rule list. Errors name the option: an invalid
    /// glob, a language not in `languages`, a minimum above its maximum (the preset's bound
    /// included).
    pub fn compile(
        cfg: &FilterConfig,
        languages: KnownLanguages<'_>,
    ) -> Result<Filter, FilterError> {
        let preset = cfg.preset;
        let csn_like = matches!(preset, Some(Preset::Csn | Preset::Codexglue));
        let codexglue = preset == Some(Preset::Codexglue);
        let yabloco = preset == Some(Preset::Yabloco);
        let mut rules = Vec::new();

        // Cheap rules first: one comparison or lookup each.
        if let Some(langs) = &cfg.languages {
            if langs.is_empty() {
                return Err(FilterError::invalid("languages", "the list is empty"));
            }
            let mut canon = Vec::new();
            for l in langs {
                let c = languages.canonical(l).ok_or_else(|| {
                    FilterError::invalid(
                        "languages",
                        format!("unknown language '{l}' (known: {})", languages.names()),
                    )
                })?;
                if !canon.contains(&c) {
                    canon.push(c);
                }
            }
            rules.push(Rule::Languages(canon));
        }

        let lines_min = Bound::pick(cfg.min_lines, preset, csn_like.then_some(3));
        let lines_max = Bound::pick(cfg.max_lines, preset, None);
        check_order("min_lines", &lines_min, "max_lines", &lines_max)?;
        let tokens_min = Bound::pick(cfg.min_docstring_tokens, preset, csn_like.then_some(3));
        let tokens_max = Bound::pick(cfg.max_docstring_tokens, preset, codexglue.then_some(256));
        check_order(
            "min_docstring_tokens",
            &tokens_min,
            "max_docstring_tokens",
            &tokens_max,
        )?;
        let zone = cfg.date_timezone.clone().unwrap_or_default();
        let in_zone = |key: &'static str, d: &Option<DateSpec>| {
            d.as_ref()
                .map(|d| d.in_zone(&zone))
                .transpose()
                .map_err(|e| FilterError::invalid(key, e.to_string()))
        };
        let (since, until) = (in_zone("since", &cfg.since)?, in_zone("until", &cfg.until)?);
        if let (Some(s), Some(u)) = (&since, &until) {
            if s.first_second() > u.last_second() {
                return Err(FilterError::invalid(
                    "since",
                    format!("{s} is after until ({u})"),
                ));
            }
        }

        if csn_like {
            rules.push(Rule::TestInName);
            rules.push(Rule::SpecialMethod);
        }
        if yabloco {
            rules.push(Rule::TestInPathOrName);
        }
        // A bound of 0 below and none above keeps everything: no rule.
        if lines_max.value.is_some() || lines_min.value.is_some_and(|m| m > 0) {
            rules.push(Rule::Lines {
                min: lines_min.value,
                max: lines_max.value,
            });
        }
        if yabloco {
            rules.push(Rule::BodyLines { min: 2, max: 15 });
        }
        if cfg.require_docstring == Some(true) {
            rules.push(Rule::RequireDocstring);
        }
        if tokens_max.value.is_some() || tokens_min.value.is_some_and(|m| m > 0) {
            rules.push(Rule::DocstringTokens {
                min: tokens_min.value,
                max: tokens_max.value,
            });
        }
        if yabloco {
            rules.push(Rule::YablocoDocstring);
        }
        if codexglue {
            rules.push(Rule::DocstringMarkup);
            rules.push(Rule::SyntaxError);
            // Language identification: the slowest of the cheap rules, so last of them.
            rules.push(Rule::English);
        }
        // A parse of the docstring per function: after the other docstring rules.
        if cfg.require_param_docs == Some(true) {
            rules.push(Rule::ParamDocs);
        }
        if let Some(max) = cfg.max_calls_num.or(yabloco.then_some(7)) {
            rules.push(Rule::CallsNum { max });
        }
        if let Some(names) = &cfg.licenses {
            let allowed = crate::license::Allowed::parse(names)
                .map_err(|e| FilterError::invalid("licenses", e))?;
            rules.push(Rule::License(allowed));
        }
        // YABLoCo: `test_cov_hits > 0`, i.e. at least 1.
        if let Some(min) = cfg.min_coverage_hits.or(yabloco.then_some(1)) {
            rules.push(Rule::Coverage { min });
        }
        if yabloco {
            rules.push(Rule::KnownLastCommit);
        }
        if let Some(d) = since {
            rules.push(Rule::Since(d));
        }
        if let Some(d) = until {
            rules.push(Rule::Until(d));
        }

        if let Some(m) = cfg.min_side {
            if !(-1.0..=1.0).contains(&m) {
                return Err(FilterError::invalid(
                    "min_side",
                    format!("{m} is not a SIDE score (a cosine, in [-1, 1])"),
                ));
            }
        }

        // Path excludes go second (after languages); they apply whenever anything filters,
        // or when the user asked for them explicitly.
        let anything = preset.is_some()
            || !rules.is_empty()
            || !cfg.exclude.is_empty()
            || cfg.min_side.is_some();
        let defaults = match cfg.default_excludes {
            Some(explicit) => explicit,
            None => anything,
        };
        if defaults || !cfg.exclude.is_empty() {
            let rule = path_rule(&cfg.exclude, defaults)?;
            let at = usize::from(matches!(rules.first(), Some(Rule::Languages(_))));
            rules.insert(at, rule);
        }

        let (history, before) = rules.into_iter().partition(Rule::is_history);
        Ok(Filter {
            preset,
            before,
            history,
            zone,
            min_side: cfg.min_side,
        })
    }

    /// False with no preset and no rule: the stage then keeps everything.
    pub fn is_active(&self) -> bool {
        self.preset.is_some()
            || !self.before.is_empty()
            || !self.history.is_empty()
            || self.min_side.is_some()
    }

    /// The SIDE threshold (`min_side`), which the miner applies after dedup.
    pub fn min_side(&self) -> Option<f64> {
        self.min_side
    }

    /// The first second of the `since` rule's day, when it is set (the repository-level
    /// completion output applies it to lines).
    pub fn since(&self) -> Option<i64> {
        self.history.iter().find_map(|r| match r {
            Rule::Since(d) => Some(d.first_second()),
            _ => None,
        })
    }

    /// Whether a date rule is active, so the caller must compute `last_commit`.
    pub fn needs_last_commit(&self) -> bool {
        !self.history.is_empty()
    }

    /// The time zone of the dates written as strings (and of the day bounds).
    pub fn date_zone(&self) -> &DateZone {
        &self.zone
    }

    /// The preset, if any.
    pub fn preset(&self) -> Option<Preset> {
        self.preset
    }

    /// Every rule except those needing `last_commit`, cheap ones first; `Err(rule name)` of
    /// the first rule that rejects.
    pub fn check_before_history(&self, f: &FunctionView) -> Result<(), &'static str> {
        run(&self.before, f)
    }

    /// The last-commit rules only.
    pub fn check_history(&self, f: &FunctionView) -> Result<(), &'static str> {
        run(&self.history, f)
    }

    /// Both stages in order: what a caller without a blame step in between would use.
    pub fn check(&self, f: &FunctionView) -> Result<(), &'static str> {
        self.check_before_history(f)?;
        self.check_history(f)
    }

    /// The active rules in evaluation order.
    pub fn rule_names(&self) -> Vec<&'static str> {
        self.before
            .iter()
            .chain(&self.history)
            .map(Rule::name)
            .chain(self.min_side.map(|_| MIN_SIDE))
            .collect()
    }

    /// The preset and every active rule with its effective parameters, for stats.json.
    pub fn describe(&self) -> Value {
        json!({
            "active": self.is_active(),
            "preset": self.preset.map(Preset::as_str),
            "date_timezone": self.zone.name(),
            "rules": self.before.iter().chain(&self.history).map(Rule::describe)
                .chain(self.min_side.map(|m| json!({ "name": MIN_SIDE, "min": m })))
                .collect::<Vec<_>>(),
        })
    }
}

fn run(rules: &[Rule], f: &FunctionView) -> Result<(), &'static str> {
    match rules.iter().find(|r| !r.keeps(f)) {
        Some(r) => Err(r.name()),
        None => Ok(()),
    }
}

fn path_rule(user: &[String], defaults: bool) -> Result<Rule, FilterError> {
    let mut b = GlobSetBuilder::new();
    if defaults {
        for p in rules::DEFAULT_EXCLUDES {
            b.add(compile_glob(p, true).map_err(|e| FilterError::invalid("default_excludes", e))?);
        }
    }
    for p in user {
        let g = normalize_glob(p)
            .and_then(|n| compile_glob(&n, false))
            .map_err(|e| FilterError::invalid("exclude", e))?;
        b.add(g);
    }
    let set = b
        .build()
        .map_err(|e| FilterError::invalid("exclude", e.to_string()))?;
    Ok(Rule::PathExclude {
        set,
        user: user.to_vec(),
        defaults,
    })
}
