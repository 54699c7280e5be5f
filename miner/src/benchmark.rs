//! Benchmark files for decontamination: JSONL, JSON (an array of items, or an object of
//! items keyed by id) and Parquet, plain or gzipped (`HumanEval.jsonl.gz`), read into
//! [`BenchItem`]s whose tokens are compared with mined functions' on the same terms as dedup
//! (see [`match_tokens`]).
//!
//! # Shapes
//! Without `fields`, the text of an item comes from the first shape its keys fit:
//!
//! | keys | text | language (when the item has no `language`) |
//! |---|---|---|
//! | `prompt`, `canonical_solution` (HumanEval) | prompt + solution | python |
//! | `outputs`, `meta` (codemine's YABLoCo rows) | `outputs` | `inputs.language` |
//! | `input`, `gt` (CodeXGLUE / codemine line-level completion) | input + gt, token level | - |
//! | `code` (CodeSearchNet, CodeXGLUE code-to-text, MBPP, CONCODE) | `code` | python for MBPP (`test_list`), java for CONCODE (`nl`) |
//! | `original_string` (CodeSearchNet) | `original_string` | |
//! | `func` (CodeXGLUE clone and defect detection) | `func` | c for Devign (`target`, `project`), else java (BigCloneBench) |
//! | `text` starting with `<s>` (token-level completion) | `text`, token level | - |
//!
//! `fields` names the text field(s) instead (joined by a newline; a list of strings is
//! taken as tokens). An item's id is its `task_id`, `meta.original_id`, `meta.id`, `id`,
//! `idx`, `index` or `url`, else its key in a JSON object, else its position (from 0).
//! Its language is its `language`/`lang` field, else the `language` option, else the
//! shape's; code without a language is an error naming the file.
//!
//! A file is streamed, never held whole: JSON lines line by line, a JSON array element by
//! element, an object of items entry by entry (after a first pass that only checks its
//! shape), Parquet batch by batch; each item is tokenised and handed on before the next
//! is read. At most [`ReadOptions::max_bytes`] are read (after decompression: a gzip bomb
//! stops there), only from a regular file; a syntax error names its line and column.
//!
//! Token-level text (CodeXGLUE's completion sets are already tokenised, with `<s>`, `<EOL>`
//! markers) is split on whitespace; code is parsed with tree-sitter: the tokens of the
//! item's outermost functions (their docstrings left out, as for mined functions), or of
//! the whole snippet when it holds no whole function.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use codemine_filters::decontam::BenchItem;
use codemine_filters::dedup::{is_content_token, literal};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{Map, Value};

use crate::extract::Extractor;
use crate::lang::{Lang, Registry};

/// Why a benchmark file could not be read. Every error names the file.
#[derive(Debug, thiserror::Error)]
pub enum BenchmarkError {
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {}not valid JSON: {message}", path.display(), position(*line, *column))]
    Json {
        path: PathBuf,
        line: Option<usize>,
        column: Option<usize>,
        message: String,
    },
    #[error("{}: {reason}", path.display())]
    NotRegular { path: PathBuf, reason: String },
    #[error("{}: more than {limit} bytes{}: raise --max-benchmark-bytes to read it", path.display(), if *compressed { " once decompressed" } else { "" })]
    TooLarge {
        path: PathBuf,
        limit: u64,
        compressed: bool,
    },
    #[error("{}: not a readable Parquet file: {message}", path.display())]
    Parquet { path: PathBuf, message: String },
    #[error("{}: item {item} is not a JSON object", path.display())]
    NotAnObject { path: PathBuf, item: usize },
    #[error("{}: item {item} has no field `{field}` (--decontaminate-field)", path.display())]
    MissingField {
        path: PathBuf,
        item: usize,
        field: String,
    },
    #[error("{}: item {item} has no code field codemine knows (fields: {keys}); name it with --decontaminate-field", path.display())]
    UnknownShape {
        path: PathBuf,
        item: usize,
        keys: String,
    },
    #[error("{}: item {item} has no language field; give --decontaminate-language", path.display())]
    NoLanguage { path: PathBuf, item: usize },
    #[error("{}: item {item}: unknown language `{language}`", path.display())]
    UnknownLanguage {
        path: PathBuf,
        item: usize,
        language: String,
    },
    #[error("{}: item {item}: {message}", path.display())]
    Parse {
        path: PathBuf,
        item: usize,
        message: String,
    },
}

/// One benchmark to read: its file and, optionally, its name (default: the file stem).
#[derive(Debug, Clone, PartialEq)]
pub struct BenchmarkSpec {
    pub path: PathBuf,
    pub name: Option<String>,
}

impl BenchmarkSpec {
    /// `FILE` or `NAME=FILE` (an existing path is always a file, even with a `=` in it).
    pub fn parse(arg: &str) -> Self {
        if !Path::new(arg).exists() {
            if let Some((name, file)) = arg.split_once('=') {
                if !name.is_empty() && !name.contains('/') {
                    return Self {
                        path: file.into(),
                        name: Some(name.to_string()),
                    };
                }
            }
        }
        Self {
            path: arg.into(),
            name: None,
        }
    }

    /// The benchmark's name: given, else the file name without `.gz` and its extension.
    pub fn name(&self) -> String {
        if let Some(n) = &self.name {
            return n.clone();
        }
        let file = self
            .path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let file = file.strip_suffix(".gz").unwrap_or(&file);
        match file.rsplit_once('.') {
            Some((stem, _)) if !stem.is_empty() => stem.to_string(),
            _ => file.to_string(),
        }
    }
}

/// `line L, column C: ` (what is known of it), or nothing.
fn position(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!("line {l}, column {c}: "),
        (Some(l), None) => format!("line {l}: "),
        _ => String::new(),
    }
}

/// The default [`ReadOptions::max_bytes`] (`--max-benchmark-bytes`).
pub const DEFAULT_MAX_BENCHMARK_BYTES: u64 = 1 << 30;

/// How items are read: the text fields, if named, the language of items without one, and
/// the most bytes read of a file (after decompression).
#[derive(Debug, Clone, PartialEq)]
pub struct ReadOptions {
    pub fields: Vec<String>,
    pub language: Option<Lang>,
    pub max_bytes: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            fields: Vec::new(),
            language: None,
            max_bytes: DEFAULT_MAX_BENCHMARK_BYTES,
        }
    }
}

/// A benchmark read: its name, file and items (tokens ready for the index), with each
/// item's language (`None` for token-level items).
#[derive(Debug, Clone)]
pub struct Benchmark {
    pub name: String,
    pub path: PathBuf,
    pub items: Vec<BenchItem>,
}

/// Reads a benchmark file into items.
pub fn read(spec: &BenchmarkSpec, opts: &ReadOptions) -> Result<Benchmark, BenchmarkError> {
    let mut items = Vec::new();
    read_each(spec, opts, |item| items.push(item))?;
    Ok(Benchmark {
        name: spec.name(),
        path: spec.path.clone(),
        items,
    })
}

/// Reads a benchmark file item by item, handing each to `each` as soon as it is tokenised
/// (the file is streamed: see the module doc); the number of items.
pub fn read_each(
    spec: &BenchmarkSpec,
    opts: &ReadOptions,
    mut each: impl FnMut(BenchItem),
) -> Result<u64, BenchmarkError> {
    let path = &spec.path;
    let name = spec.name();
    let mut ex = Extractor::default();
    let mut count = 0u64;
    each_record(path, opts.max_bytes, &mut |k, key, rec| {
        let Value::Object(rec) = rec else {
            return Err(BenchmarkError::NotAnObject {
                path: path.clone(),
                item: k,
            });
        };
        let raw = raw_item(&rec, k, key, opts, path)?;
        drop(rec);
        let tokens = match raw.text {
            Text::Tokens(t) => owned_match_tokens(raw.lang, t.iter().map(String::as_str)),
            Text::Code(code) => {
                let lang = raw.lang.ok_or_else(|| BenchmarkError::NoLanguage {
                    path: path.clone(),
                    item: k,
                })?;
                let toks =
                    code_tokens(&mut ex, lang, &code).map_err(|e| BenchmarkError::Parse {
                        path: path.clone(),
                        item: k,
                        message: e.to_string(),
                    })?;
                owned_match_tokens(Some(lang), toks.iter().map(String::as_str))
            }
        };
        each(BenchItem {
            benchmark: name.clone(),
            id: raw.id,
            tokens,
        });
        count += 1;
        Ok(())
    })?;
    Ok(count)
}

/// The tokens decontamination compares, from a function's or item's parser tokens: the
/// dedup tokens (identifiers, keywords, literals in their canonical spelling; see
/// `codemine_filters::dedup`) without comments, so that neither layout nor comments hide a
/// copy.
pub fn match_tokens<'a>(
    lang: Option<Lang>,
    tokens: impl Iterator<Item = &'a str>,
) -> Vec<Cow<'a, str>> {
    tokens
        .filter(|t| is_content_token(t) && !lang.is_some_and(|l| is_comment(l, t)))
        .map(|t| match lang {
            Some(l) => literal::canonical(t, l.literal_spelling()),
            None => Cow::Borrowed(t),
        })
        .collect()
}

/// [`match_tokens`], owned.
fn owned_match_tokens<'a>(
    lang: Option<Lang>,
    tokens: impl Iterator<Item = &'a str>,
) -> Vec<String> {
    match_tokens(lang, tokens)
        .into_iter()
        .map(Cow::into_owned)
        .collect()
}

/// Whether a parser token of `lang` is a comment (string literals start with a quote, so
/// only comments start with these).
fn is_comment(lang: Lang, t: &str) -> bool {
    let slashes = t.starts_with("//") || t.starts_with("/*");
    if lang == Lang::Python {
        t.starts_with('#')
    } else if lang == Lang::Ruby {
        t.starts_with('#') || t.starts_with("=begin")
    } else if lang == Lang::Php {
        t.starts_with('#') && !t.starts_with("#[") || slashes
    } else {
        slashes
    }
}

/// The most variants [`preprocessor_variants`] makes of one function.
pub const MAX_VARIANTS: usize = 4;

/// The texts a C or C++ function compiles to under its conditional directives, as a
/// benchmark built from preprocessed code (YABLoCo's, through clang) holds it: variant `j`
/// keeps branch `j` of every `#if`/`#ifdef`/`#ifndef` group (`#elif`, `#else` counting
/// on; a group with fewer branches keeps none of them past its last, or nothing when it has
/// no `#else`), nested groups alike, the directive lines left out. Empty when the code has
/// no conditional directive; at most [`MAX_VARIANTS`].
pub fn preprocessor_variants(code: &str) -> Vec<String> {
    let directive = |l: &str| {
        let t = l.trim_start();
        let t = t.strip_prefix('#').map(str::trim_start)?;
        ["ifdef", "ifndef", "if", "elif", "else", "endif"]
            .into_iter()
            .find(|d| {
                t.starts_with(d)
                    && !t[d.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            })
    };
    let lines: Vec<&str> = code.split_inclusive('\n').collect();
    let mut branches = 1;
    let mut any = false;
    // Per open group: the branch the line is in.
    let mut stack: Vec<usize> = Vec::new();
    for l in &lines {
        match directive(l) {
            Some("if" | "ifdef" | "ifndef") => {
                any = true;
                stack.push(0);
            }
            Some("elif" | "else") => {
                if let Some(b) = stack.last_mut() {
                    *b += 1;
                    branches = branches.max(*b + 1);
                }
            }
            Some(_) => {
                stack.pop();
            }
            None => {}
        }
    }
    if !any {
        return Vec::new();
    }
    (0..branches.clamp(2, MAX_VARIANTS))
        .map(|j| {
            let mut stack: Vec<usize> = Vec::new();
            let mut out = String::with_capacity(code.len());
            for l in &lines {
                match directive(l) {
                    Some("if" | "ifdef" | "ifndef") => stack.push(0),
                    Some("elif" | "else") => {
                        if let Some(b) = stack.last_mut() {
                            *b += 1;
                        }
                    }
                    Some(_) => {
                        stack.pop();
                    }
                    None if stack.iter().all(|&b| b == j) => out.push_str(l),
                    None => {}
                }
            }
            out
        })
        .collect()
}

/// Checks a mined function against the benchmarks' index: its tokens, then, for C and C++
/// code with conditional directives, the tokens of each of its [`preprocessor_variants`].
pub fn check_function<'a>(
    index: &codemine_filters::decontam::Index,
    ex: &mut Extractor,
    lang: Lang,
    code: &str,
    tokens: impl Iterator<Item = &'a str>,
) -> Option<codemine_filters::decontam::Match> {
    let own = match_tokens(Some(lang), tokens);
    if let Some(m) = index.check(&own) {
        return Some(m);
    }
    if !lang.is_c_family() {
        return None;
    }
    preprocessor_variants(code).into_iter().find_map(|v| {
        let toks = code_tokens(ex, lang, &v).ok()?;
        index.check(&match_tokens(Some(lang), toks.iter().map(String::as_str)))
    })
}

/// The parser tokens of a code snippet: its outermost functions' (docstrings left out),
/// else every leaf of the snippet.
pub fn code_tokens(
    ex: &mut Extractor,
    lang: Lang,
    code: &str,
) -> Result<Vec<String>, crate::extract::ExtractError> {
    let out = ex.extract(lang, code)?;
    let mut tokens = Vec::new();
    let mut end = 0;
    // Functions come in source order, each before the functions nested in it.
    for f in &out.functions {
        if f.byte_range.start >= end {
            tokens.extend(f.code_tokens.iter().map(str::to_string));
            end = f.byte_range.end;
        }
    }
    if tokens.is_empty() {
        tokens = ex.leaf_tokens(lang, code)?;
    }
    Ok(tokens)
}

enum Text {
    Code(String),
    Tokens(Vec<String>),
}

struct RawItem {
    id: String,
    text: Text,
    lang: Option<Lang>,
}

/// Markers of CodeXGLUE's token-level completion text, which are not code.
const MARKERS: [&str; 4] = ["<s>", "</s>", "<EOL>", "<pad>"];

fn token_level(text: &str) -> Vec<String> {
    text.split_whitespace()
        .filter(|t| !MARKERS.contains(t))
        .map(str::to_string)
        .collect()
}

fn str_of<'a>(rec: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    rec.get(key).and_then(Value::as_str)
}

fn raw_item(
    rec: &Map<String, Value>,
    k: usize,
    key: Option<String>,
    opts: &ReadOptions,
    path: &Path,
) -> Result<RawItem, BenchmarkError> {
    let has = |f: &str| rec.get(f).is_some_and(|v| !v.is_null());
    let (text, shape_lang) = if !opts.fields.is_empty() {
        let mut parts = Vec::new();
        let mut tokens = Vec::new();
        for f in &opts.fields {
            match rec.get(f) {
                None => {
                    return Err(BenchmarkError::MissingField {
                        path: path.to_path_buf(),
                        item: k,
                        field: f.clone(),
                    })
                }
                Some(Value::Array(a)) => tokens.extend(
                    a.iter()
                        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)),
                ),
                Some(Value::String(s)) => parts.push(s.clone()),
                Some(Value::Null) => {}
                Some(v) => parts.push(v.to_string()),
            }
        }
        let text = if tokens.is_empty() {
            Text::Code(parts.join("\n"))
        } else {
            tokens.extend(parts.iter().flat_map(|p| token_level(p)));
            Text::Tokens(tokens)
        };
        (text, None)
    } else if has("prompt") && has("canonical_solution") {
        let text = format!(
            "{}{}",
            str_of(rec, "prompt").unwrap_or_default(),
            str_of(rec, "canonical_solution").unwrap_or_default()
        );
        (Text::Code(text), Some(Lang::Python))
    } else if has("outputs") && has("meta") {
        let text = str_of(rec, "outputs").unwrap_or_default().to_string();
        (Text::Code(text), None)
    } else if has("input") && has("gt") {
        let text = format!(
            "{} {}",
            str_of(rec, "input").unwrap_or_default(),
            str_of(rec, "gt").unwrap_or_default()
        );
        (Text::Tokens(token_level(&text)), None)
    } else if has("code") || has("original_string") {
        let field = if has("code") {
            "code"
        } else {
            "original_string"
        };
        let lang = if has("test_list") {
            Some(Lang::Python)
        } else if has("nl") {
            Some(Lang::Java)
        } else {
            None
        };
        let text = str_of(rec, field).unwrap_or_default().to_string();
        (Text::Code(text), lang)
    } else if has("func") {
        let lang = if has("target") && has("project") {
            Lang::C
        } else {
            Lang::Java
        };
        let text = str_of(rec, "func").unwrap_or_default().to_string();
        (Text::Code(text), Some(lang))
    } else if let Some(t) = str_of(rec, "text").filter(|t| t.trim_start().starts_with("<s>")) {
        (Text::Tokens(token_level(t)), None)
    } else {
        return Err(BenchmarkError::UnknownShape {
            path: path.to_path_buf(),
            item: k,
            keys: rec.keys().cloned().collect::<Vec<_>>().join(", "),
        });
    };
    let meta = rec.get("meta").and_then(Value::as_object);
    let scalar = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let id = ["task_id"]
        .iter()
        .find_map(|f| rec.get(*f).and_then(scalar))
        .or_else(|| meta.and_then(|m| m.get("original_id")).and_then(scalar))
        .or_else(|| meta.and_then(|m| m.get("id")).and_then(scalar))
        .or_else(|| {
            ["id", "idx", "index", "url"]
                .iter()
                .find_map(|f| rec.get(*f).and_then(scalar))
        })
        .or(key)
        .unwrap_or_else(|| k.to_string());
    let named = str_of(rec, "language")
        .or_else(|| str_of(rec, "lang"))
        .or_else(|| {
            rec.get("inputs")
                .and_then(Value::as_object)
                .and_then(|i| i.get("language"))
                .and_then(Value::as_str)
        });
    let lang = match named {
        Some(n) => Some(
            Lang::from_name(n).ok_or_else(|| BenchmarkError::UnknownLanguage {
                path: path.to_path_buf(),
                item: k,
                language: n.to_string(),
            })?,
        ),
        None => opts.language.or(shape_lang),
    };
    Ok(RawItem { id, text, lang })
}

/// What is done with each record: its position, its key (in a JSON object of items) and
/// its value.
type Each<'a> = dyn FnMut(usize, Option<String>, Value) -> Result<(), BenchmarkError> + 'a;

/// Calls `each` with every record of the file, in order, each with its key when the file
/// is a JSON object of items; at most `max` bytes are read (after decompression).
fn each_record(path: &Path, max: u64, each: &mut Each) -> Result<(), BenchmarkError> {
    let file_name = path.to_string_lossy().to_ascii_lowercase();
    let gz = file_name.ends_with(".gz");
    let plain = file_name.strip_suffix(".gz").unwrap_or(&file_name);
    if plain.ends_with(".parquet") {
        return parquet_records(path, max, each);
    }
    let open = || -> Result<BufReader<codemine_io::Limited<Box<dyn Read>>>, BenchmarkError> {
        let file = open_file(path, max, !gz)?;
        let inner: Box<dyn Read> = if gz {
            Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(file)))
        } else {
            Box::new(file)
        };
        Ok(BufReader::with_capacity(
            1 << 16,
            codemine_io::Limited::new(inner, max),
        ))
    };
    let stream = |e: std::io::Error| stream_error(path, max, gz, e);
    let json = |e: serde_json::Error, line: usize| json_error(path, max, gz, e, line);
    let mut r = open()?;
    if plain.ends_with(".jsonl") || plain.ends_with(".ndjson") {
        let mut line = Vec::new();
        let (mut n, mut k) = (0, 0);
        loop {
            line.clear();
            if r.read_until(b'\n', &mut line).map_err(stream)? == 0 {
                return Ok(());
            }
            n += 1;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let v: Value = serde_json::from_slice(&line).map_err(|e| {
                // The line number is the file's; the column is within the line.
                let mut err = json(e, 0);
                if let BenchmarkError::Json { line, .. } = &mut err {
                    *line = Some(n);
                }
                err
            })?;
            each(k, None, v)?;
            k += 1;
        }
    }
    let (first, skipped_lines) = first_byte(&mut r).map_err(stream)?;
    match first {
        Some(b'[') => {
            let mut de = serde_json::Deserializer::from_reader(r);
            let mut failed = None;
            let seen = serde::Deserializer::deserialize_seq(
                &mut de,
                Elements {
                    each,
                    failed: &mut failed,
                },
            );
            if let Some(e) = failed {
                return Err(e);
            }
            seen.map_err(|e| json(e, skipped_lines))?;
            de.end().map_err(|e| json(e, skipped_lines))
        }
        Some(b'{') => {
            // First only the shape: one object (of items, or one item) or JSON lines.
            let mut shape = Shape::default();
            let probe = serde_json::Deserializer::from_reader(r).into_iter::<Probe>();
            for p in probe {
                let p = p.map_err(|e| json(e, skipped_lines))?;
                shape.values += 1;
                shape.all_objects = p.all_objects && p.entries > 0;
            }
            let r = open()?;
            let mut failed = None;
            if shape.values > 1 {
                let values = serde_json::Deserializer::from_reader(r).into_iter::<Value>();
                for (k, v) in values.enumerate() {
                    each(k, None, v.map_err(|e| json(e, 0))?)?;
                }
                return Ok(());
            }
            let mut de = serde_json::Deserializer::from_reader(r);
            if shape.all_objects {
                let seen = serde::Deserializer::deserialize_map(
                    &mut de,
                    Entries {
                        each,
                        failed: &mut failed,
                    },
                );
                if let Some(e) = failed {
                    return Err(e);
                }
                seen.map_err(|e| json(e, 0))?;
            } else {
                let v: Value = serde::Deserialize::deserialize(&mut de).map_err(|e| json(e, 0))?;
                each(0, None, v)?;
            }
            de.end().map_err(|e| json(e, 0))
        }
        // Not a JSON document: JSON lines, unless the file says it is JSON.
        Some(_) if !plain.ends_with(".json") => {
            let r = open()?;
            let values = serde_json::Deserializer::from_reader(r).into_iter::<Value>();
            for (k, v) in values.enumerate() {
                each(k, None, v.map_err(|e| json(e, 0))?)?;
            }
            Ok(())
        }
        _ => Err(BenchmarkError::Json {
            path: path.to_path_buf(),
            line: first.map(|_| skipped_lines + 1),
            column: None,
            message: "neither an array nor an object of items".into(),
        }),
    }
}

/// Opens a benchmark file: a regular file only; a plain file over `max` bytes is refused
/// unread (`check_size`).
fn open_file(path: &Path, max: u64, check_size: bool) -> Result<std::fs::File, BenchmarkError> {
    let file = codemine_io::open_regular(path, codemine_io::Follow::Yes).map_err(|e| match e {
        codemine_io::ReadError::Io(source) => BenchmarkError::Read {
            path: path.to_path_buf(),
            source,
        },
        other => BenchmarkError::NotRegular {
            path: path.to_path_buf(),
            reason: other.to_string(),
        },
    })?;
    if check_size {
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        if len > max {
            return Err(BenchmarkError::TooLarge {
                path: path.to_path_buf(),
                limit: max,
                compressed: false,
            });
        }
    }
    Ok(file)
}

/// A read error of the stream: past the limit, or the file's or the decompressor's.
fn stream_error(path: &Path, max: u64, gz: bool, e: std::io::Error) -> BenchmarkError {
    match codemine_io::ReadError::from_stream(e) {
        codemine_io::ReadError::TooLarge { .. } => BenchmarkError::TooLarge {
            path: path.to_path_buf(),
            limit: max,
            compressed: gz,
        },
        codemine_io::ReadError::Io(source) => BenchmarkError::Read {
            path: path.to_path_buf(),
            source,
        },
        other => BenchmarkError::NotRegular {
            path: path.to_path_buf(),
            reason: other.to_string(),
        },
    }
}

/// A JSON error with its line (plus `skipped` lines before what the parser saw) and
/// column; a read error inside it is reported as one.
fn json_error(
    path: &Path,
    max: u64,
    gz: bool,
    e: serde_json::Error,
    skipped: usize,
) -> BenchmarkError {
    if e.is_io() {
        return stream_error(path, max, gz, e.into());
    }
    let (line, column) = (e.line(), e.column());
    let text = e.to_string();
    let message = text
        .strip_suffix(&format!(" at line {line} column {column}"))
        .unwrap_or(&text)
        .to_string();
    BenchmarkError::Json {
        path: path.to_path_buf(),
        line: (line > 0).then_some(line + skipped),
        column: (line > 0).then_some(column),
        message,
    }
}

/// The first byte that is not white space, left unread, and how many lines came before it.
fn first_byte(r: &mut impl BufRead) -> std::io::Result<(Option<u8>, usize)> {
    let mut lines = 0;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok((None, lines));
        }
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => {
                lines += buf[..i].iter().filter(|&&b| b == b'\n').count();
                let b = buf[i];
                r.consume(i);
                return Ok((Some(b), lines));
            }
            None => {
                let n = buf.len();
                lines += buf.iter().filter(|&&b| b == b'\n').count();
                r.consume(n);
            }
        }
    }
}

/// What the first pass over a file that starts with `{` learns.
#[derive(Default)]
struct Shape {
    /// Top-level values (more than one: JSON lines).
    values: usize,
    /// Whether the (last) value is an object whose values are all objects: an object of
    /// items keyed by id.
    all_objects: bool,
}

/// A top-level value seen without being kept: an object's entry count and whether every
/// entry's value is an object.
struct Probe {
    entries: usize,
    all_objects: bool,
}

impl<'de> serde::Deserialize<'de> for Probe {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Probe;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Probe, A::Error> {
                let mut p = Probe {
                    entries: 0,
                    all_objects: true,
                };
                while m.next_key::<serde::de::IgnoredAny>()?.is_some() {
                    p.entries += 1;
                    p.all_objects &= m.next_value::<IsObject>()?.0;
                }
                Ok(p)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<Probe, A::Error> {
                while s.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Probe {
                    entries: 0,
                    all_objects: false,
                })
            }
            fn visit_bool<E>(self, _: bool) -> Result<Probe, E> {
                Ok(Probe::other())
            }
            fn visit_i64<E>(self, _: i64) -> Result<Probe, E> {
                Ok(Probe::other())
            }
            fn visit_u64<E>(self, _: u64) -> Result<Probe, E> {
                Ok(Probe::other())
            }
            fn visit_f64<E>(self, _: f64) -> Result<Probe, E> {
                Ok(Probe::other())
            }
            fn visit_str<E>(self, _: &str) -> Result<Probe, E> {
                Ok(Probe::other())
            }
            fn visit_unit<E>(self) -> Result<Probe, E> {
                Ok(Probe::other())
            }
        }
        d.deserialize_any(V)
    }
}

impl Probe {
    fn other() -> Self {
        Probe {
            entries: 0,
            all_objects: false,
        }
    }
}

/// Whether a value is an object (its content skipped).
struct IsObject(bool);

impl<'de> serde::Deserialize<'de> for IsObject {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = IsObject;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<IsObject, A::Error> {
                while m
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(IsObject(true))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut s: A,
            ) -> Result<IsObject, A::Error> {
                while s.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(IsObject(false))
            }
            fn visit_bool<E>(self, _: bool) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_i64<E>(self, _: i64) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_u64<E>(self, _: u64) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_f64<E>(self, _: f64) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_str<E>(self, _: &str) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_unit<E>(self) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
        }
        d.deserialize_any(V)
    }
}

/// The elements of a top-level array, each handed to `each` as it is parsed.
struct Elements<'a, 'b> {
    each: &'a mut Each<'b>,
    failed: &'a mut Option<BenchmarkError>,
}

impl<'de> serde::de::Visitor<'de> for Elements<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of items")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<(), A::Error> {
        let mut k = 0;
        while let Some(v) = s.next_element::<Value>()? {
            if let Err(e) = (self.each)(k, None, v) {
                *self.failed = Some(e);
                return Err(serde::de::Error::custom("stopped"));
            }
            k += 1;
        }
        Ok(())
    }
}

/// The entries of a top-level object of items, each handed to `each` with its key.
struct Entries<'a, 'b> {
    each: &'a mut Each<'b>,
    failed: &'a mut Option<BenchmarkError>,
}

impl<'de> serde::de::Visitor<'de> for Entries<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object of items")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        let mut k = 0;
        while let Some((key, v)) = m.next_entry::<String, Value>()? {
            if let Err(e) = (self.each)(k, Some(key), v) {
                *self.failed = Some(e);
                return Err(serde::de::Error::custom("stopped"));
            }
            k += 1;
        }
        Ok(())
    }
}

fn parquet_records(path: &Path, max: u64, each: &mut Each) -> Result<(), BenchmarkError> {
    let pq = |e: &dyn std::fmt::Display| BenchmarkError::Parquet {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let file = open_file(path, max, true)?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.build())
        .map_err(|e| pq(&e))?;
    let mut k = 0;
    for batch in reader {
        let batch = batch.map_err(|e| pq(&e))?;
        let schema = batch.schema();
        for row in 0..batch.num_rows() {
            let mut m = Map::new();
            for (f, col) in schema.fields().iter().zip(batch.columns()) {
                m.insert(f.name().clone(), value_at(col, row));
            }
            each(k, None, Value::Object(m))?;
            k += 1;
        }
    }
    Ok(())
}

/// One cell as JSON: strings, numbers, booleans, lists and structs (other types as null).
fn value_at(col: &ArrayRef, row: usize) -> Value {
    use arrow_array::types::{Int32Type, Int64Type, UInt64Type};
    use arrow_schema::DataType;
    if col.is_null(row) {
        return Value::Null;
    }
    match col.data_type() {
        DataType::Utf8 => Value::from(col.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => Value::from(col.as_string::<i64>().value(row)),
        DataType::Utf8View => Value::from(col.as_string_view().value(row)),
        DataType::Int64 => Value::from(col.as_primitive::<Int64Type>().value(row)),
        DataType::Int32 => Value::from(col.as_primitive::<Int32Type>().value(row)),
        DataType::UInt64 => Value::from(col.as_primitive::<UInt64Type>().value(row)),
        DataType::Boolean => Value::from(col.as_boolean().value(row)),
        DataType::List(_) => {
            let l = col.as_list::<i32>().value(row);
            Value::Array((0..l.len()).map(|i| value_at(&l, i)).collect())
        }
        DataType::LargeList(_) => {
            let l = col.as_list::<i64>().value(row);
            Value::Array((0..l.len()).map(|i| value_at(&l, i)).collect())
        }
        DataType::Struct(fields) => {
            let s = col.as_struct();
            let m: BTreeMap<String, Value> = fields
                .iter()
                .zip(s.columns())
                .map(|(f, c)| (f.name().clone(), value_at(c, row)))
                .collect();
            Value::Object(m.into_iter().collect())
        }
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn preprocessor_variants_keep_one_branch_of_every_group() {
        let code = "long tz(void) {\n#if defined(__linux__)\n    return timezone;\n#else\n    struct timezone t;\n    return t.m;\n#endif\n}\n";
        assert_eq!(
            preprocessor_variants(code),
            vec![
                "long tz(void) {\n    return timezone;\n}\n".to_string(),
                "long tz(void) {\n    struct timezone t;\n    return t.m;\n}\n".to_string(),
            ]
        );
        // A group without `#else`: with and without its lines; `#elif` is a branch.
        let code = "f() {\n  a();\n  #ifdef X\n  b();\n  #endif\n#if A\n  c();\n#elif B\n  d();\n#else\n  e();\n#endif\n}\n";
        assert_eq!(
            preprocessor_variants(code),
            vec![
                "f() {\n  a();\n  b();\n  c();\n}\n".to_string(),
                "f() {\n  a();\n  d();\n}\n".to_string(),
                "f() {\n  a();\n  e();\n}\n".to_string(),
            ]
        );
        assert!(preprocessor_variants("f() {\n#define X 1\n  return X;\n}\n").is_empty());
        // `#iffy` is no directive.
        assert!(preprocessor_variants("f() {\n#iffy\n}\n").is_empty());
    }

    use super::*;

    #[test]
    fn names_and_comments() {
        assert_eq!(
            BenchmarkSpec::parse("HumanEval.jsonl.gz").name(),
            "HumanEval"
        );
        assert_eq!(BenchmarkSpec::parse("he=/x/y.json").name(), "he");
        let t = match_tokens(
            Some(Lang::Python),
            ["def", "f", "(", ")", ":", "# note", "return", "0X1F", "'a'"].into_iter(),
        );
        assert_eq!(t, ["def", "f", "return", "0x1f", "\"a\""]);
    }

    #[test]
    fn snippet_tokens_leave_docstrings_out() {
        let mut ex = Extractor::default();
        let code = "from typing import List\n\ndef f(x: List[int]) -> int:\n    \"\"\"Doc.\"\"\"\n    return x[0]  # first\n";
        let t = code_tokens(&mut ex, Lang::Python, code).unwrap();
        let t = match_tokens(Some(Lang::Python), t.iter().map(String::as_str));
        assert_eq!(
            t,
            ["def", "f", "x", "List", "int", "int", "return", "x", "0"]
        );
        // No whole function: every leaf.
        let t = code_tokens(&mut ex, Lang::Python, "x = y + 1\n").unwrap();
        assert_eq!(t, ["x", "=", "y", "+", "1"]);
    }
}
