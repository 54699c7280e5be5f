//! WordNet synonyms for METEOR's third stage, read from a WordNet 3.0 database folder the
//! way nltk's `WordNetCorpusReader` reads it: `index.{noun,verb,adj,adv}` map lemmas to
//! synset offsets, `data.*` hold each synset's lemma names, `*.exc` list irregular forms.
//!
//! [`WordNet::synonyms`] is nltk's
//! `{l.name() for s in wordnet.synsets(word) for l in s.lemmas() if "_" not in l.name()}`:
//! `synsets` lowercases the word and, for each part of speech, looks up the forms nltk's
//! `_morphy` gives (the word itself, and either its exception-list bases or one round of the
//! detachment rules), keeping those the index has.
//!
//! The database is the one nltk's `wordnet` corpus ships (Princeton WordNet 3.0); Debian's
//! `wordnet-base` installs the same files in `/usr/share/wordnet`. It is read from a folder
//! or from a zip archive such as nltk's `corpora/wordnet.zip` (files in a `wordnet/`
//! folder inside). [`discover`] looks where nltk and the WordNet packages put it.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use foldhash::{HashMap, HashMapExt};

use crate::pytext::{py_is_space, py_lower, py_split};
use crate::Error;

/// nltk's `POS_LIST` order (noun, verb, adjective, adverb) and the files of each.
const POS_FILES: [&str; 4] = ["noun", "verb", "adj", "adv"];

/// nltk's `MORPHOLOGICAL_SUBSTITUTIONS`, per part of speech in [`POS_FILES`] order.
const RULES: [&[(&str, &str)]; 4] = [
    &[
        ("s", ""),
        ("ses", "s"),
        ("ves", "f"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ],
    &[
        ("s", ""),
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
    ],
    &[("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    &[],
];

/// A list of words (lemma names, base forms).
type Words = Box<[Box<str>]>;

/// A range of an arena: (start, end).
type Span = (u32, u32);

/// One part of speech of the database. Offsets and names live in arenas: the database has
/// about 150,000 lemmas and 117,000 synsets, and an allocation each made loading slow.
#[derive(Default)]
struct Pos {
    /// lemma → its synsets' offsets, a span of `offsets` (`index.*`).
    index: HashMap<Box<str>, Span>,
    offsets: Vec<u32>,
    /// inflected form → base forms (`*.exc`).
    exceptions: HashMap<Box<str>, Words>,
    /// synset offset → its lemma names without `_` (the only ones METEOR uses), syntactic
    /// markers removed: a span of `names`, each a span of `text` (`data.*`).
    synsets: HashMap<u32, Span>,
    names: Vec<Span>,
    text: String,
}

impl Pos {
    fn synset_names(&self, offset: u32) -> impl Iterator<Item = &str> {
        let (a, b) = self.synsets.get(&offset).copied().unwrap_or((0, 0));
        self.names[a as usize..b as usize]
            .iter()
            .map(|&(s, e)| &self.text[s as usize..e as usize])
    }
}

/// A loaded WordNet database.
pub struct WordNet {
    dir: PathBuf,
    pos: [Pos; 4],
}

impl std::fmt::Debug for WordNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WordNet").field("dir", &self.dir).finish()
    }
}

/// The largest database file read (WordNet 3.0's largest, data.noun, is 15 MB): a bound
/// on what a corrupt or hostile archive can make codemine inflate.
const MAX_FILE_BYTES: u64 = 1 << 30;

fn utf8(path: &Path, bytes: Vec<u8>) -> Result<String, Error> {
    String::from_utf8(bytes).map_err(|e| Error::WordNet {
        path: path.to_path_buf(),
        line: 0,
        message: format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()),
    })
}

/// Where the database files come from: a folder, or a zip archive with the files in one
/// folder inside it (`prefix`, found by its `index.noun`).
enum Files {
    Dir(PathBuf),
    Zip {
        path: PathBuf,
        archive: Box<zip::ZipArchive<File>>,
        prefix: String,
    },
}

impl Files {
    fn open(path: &Path) -> Result<Files, Error> {
        if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            return Ok(Files::Dir(path.to_path_buf()));
        }
        // Anything but a folder is read as an archive: only a regular file.
        let file =
            codemine_io::open_regular(path, codemine_io::Follow::Yes).map_err(|e| Error::Io {
                path: path.to_path_buf(),
                source: e.into(),
            })?;
        let archive = zip::ZipArchive::new(file)
            .map_err(|e| bad(path, 0, format!("not a folder or a zip archive: {e}")))?;
        // The shallowest folder that holds an index.noun (nltk's has `wordnet/`).
        let prefix = archive
            .file_names()
            .filter_map(|n| n.ok())
            .filter_map(|n| n.strip_suffix("index.noun").map(str::to_string))
            .filter(|p| p.is_empty() || p.ends_with('/'))
            .min_by_key(|p| p.len())
            .ok_or_else(|| bad(path, 0, "the archive has no index.noun"))?;
        Ok(Files::Zip {
            path: path.to_path_buf(),
            archive: Box::new(archive),
            prefix,
        })
    }

    /// The text of database file `name`, and the path errors about it name.
    fn read(&mut self, name: &str) -> Result<(String, PathBuf), Error> {
        match self {
            Files::Dir(dir) => {
                let path = dir.join(name);
                let bytes =
                    codemine_io::read_regular(&path, MAX_FILE_BYTES, codemine_io::Follow::Yes)
                        .map_err(|e| Error::Io {
                            path: path.clone(),
                            source: e.into(),
                        })?;
                Ok((utf8(&path, bytes)?, path))
            }
            Files::Zip {
                path,
                archive,
                prefix,
            } => {
                let inner = format!("{prefix}{name}");
                let shown = path.join(&inner);
                let entry = archive
                    .by_name(&inner)
                    .map_err(|e| bad(&shown, 0, e.to_string()))?;
                let mut bytes = Vec::with_capacity(entry.size().min(MAX_FILE_BYTES) as usize);
                entry
                    .take(MAX_FILE_BYTES + 1)
                    .read_to_end(&mut bytes)
                    .map_err(|e| bad(&shown, 0, e.to_string()))?;
                if bytes.len() as u64 > MAX_FILE_BYTES {
                    return Err(bad(&shown, 0, "larger than 1 GiB inflated"));
                }
                Ok((utf8(&shown, bytes)?, shown))
            }
        }
    }
}

fn bad(path: &Path, line: usize, message: impl Into<String>) -> Error {
    Error::WordNet {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
}

/// nltk's `(.*?)(\([^()]*\))?$` on a lemma name: drops a trailing adjective marker such as
/// `(a)`, `(p)` or `(ip)`.
fn strip_marker(name: &str) -> &str {
    if let Some(body) = name.strip_suffix(')') {
        if let Some(open) = body.rfind('(') {
            if !body[open + 1..].contains(')') {
                return &name[..open];
            }
        }
    }
    name
}

impl WordNet {
    /// Reads the database in `dir`, a folder or a zip archive. Errors name the file and
    /// line that cannot be read the way nltk reads it, and index entries whose synsets the
    /// data file lacks.
    pub fn load(dir: &Path) -> Result<WordNet, Error> {
        let mut files = Files::open(dir)?;
        let mut pos: [Pos; 4] = Default::default();
        for (p, suffix) in pos.iter_mut().zip(POS_FILES) {
            let (text, path) = files.read(&format!("data.{suffix}"))?;
            load_data(&path, &text, p)?;
            let (text, index_path) = files.read(&format!("index.{suffix}"))?;
            load_index(&index_path, &text, p)?;
            let (text, _) = files.read(&format!("{suffix}.exc"))?;
            p.exceptions = load_exceptions(&text);
        }
        Ok(WordNet {
            dir: dir.to_path_buf(),
            pos,
        })
    }

    /// The folder or archive the database was read from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// nltk's `_morphy(form, pos)`: the form itself and its exception-list bases (or, when
    /// it has none, the forms one round of the detachment rules gives), kept if indexed.
    fn morphy<'a>(&'a self, form: &str, pos: usize, out: &mut Vec<&'a [u32]>) {
        let p = &self.pos[pos];
        let mut push = |f: &str| {
            if let Some(&(a, b)) = p.index.get(f) {
                out.push(&p.offsets[a as usize..b as usize]);
            }
        };
        // Repeated forms reach the same synsets: the caller wants their lemma names as a set.
        push(form);
        if let Some(bases) = p.exceptions.get(form) {
            bases.iter().for_each(|b| push(b));
        } else {
            for (old, new) in RULES[pos] {
                if let Some(stem) = form.strip_suffix(old) {
                    push(&format!("{stem}{new}"));
                }
            }
        }
    }

    /// The lemma names without `_` of every synset of `word` (nltk's `wordnet.synsets`),
    /// calling `f` on each; a name may come more than once.
    pub fn for_each_synonym<'a>(&'a self, word: &str, mut f: impl FnMut(&'a str)) {
        let word = py_lower(word);
        let mut offsets = Vec::new();
        for pos in 0..4 {
            offsets.clear();
            self.morphy(&word, pos, &mut offsets);
            for &o in offsets.iter().flat_map(|os| os.iter()) {
                self.pos[pos].synset_names(o).for_each(&mut f);
            }
        }
    }

    /// The synonyms of `word`, sorted and deduplicated (see [`WordNet::for_each_synonym`]).
    pub fn synonyms(&self, word: &str) -> Vec<&str> {
        let mut v = Vec::new();
        self.for_each_synonym(word, |s| v.push(s));
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Lines of a WordNet file with their 1-based numbers and byte offsets, without the
/// license header (lines that start with a space).
fn lines(text: &str) -> impl Iterator<Item = (usize, usize, &str)> {
    let mut at = 0;
    text.split_inclusive('\n')
        .enumerate()
        .map(move |(i, l)| {
            let start = at;
            at += l.len();
            (i + 1, start, l.trim_end_matches(['\n', '\r']))
        })
        .filter(|(_, _, l)| !l.starts_with(' ') && !l.is_empty())
}

/// Python's `str.split()` as a lazy iterator.
fn fields(s: &str) -> impl Iterator<Item = &str> {
    s.split(py_is_space).filter(|t| !t.is_empty())
}

fn load_data(path: &Path, text: &str, p: &mut Pos) -> Result<(), Error> {
    p.synsets = HashMap::with_capacity(text.len() / 128);
    for (n, start, line) in lines(text) {
        // nltk splits the fields before the gloss on whitespace: offset, lex file, synset
        // type, the lemma count in hex, then (lemma, lex id) pairs.
        let mut it = fields(line.split('|').next().unwrap_or(""));
        let offset: u32 = it
            .next()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| bad(path, n, "no synset offset"))?;
        // nltk seeks to the offset and checks the line there starts with it.
        if offset as usize != start {
            return Err(bad(
                path,
                n,
                format!("synset offset {offset:08} is not the line's byte offset {start}"),
            ));
        }
        let count = it
            .nth(2)
            .and_then(|t| usize::from_str_radix(t, 16).ok())
            .ok_or_else(|| bad(path, n, "no hexadecimal lemma count in field 4"))?;
        let first = p.names.len() as u32;
        for _ in 0..count {
            let (Some(name), Some(_lex_id)) = (it.next(), it.next()) else {
                return Err(bad(
                    path,
                    n,
                    format!("fewer than {count} (lemma, lex id) pairs"),
                ));
            };
            let name = strip_marker(name);
            if !name.contains('_') {
                let s = p.text.len() as u32;
                p.text.push_str(name);
                p.names.push((s, p.text.len() as u32));
            }
        }
        p.synsets.insert(offset, (first, p.names.len() as u32));
    }
    Ok(())
}

fn load_index(path: &Path, text: &str, p: &mut Pos) -> Result<(), Error> {
    p.index = HashMap::with_capacity(text.len() / 32);
    for (n, _, line) in lines(text) {
        // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt offset...
        let toks = py_split(line);
        let num = |i: usize, what: &str| -> Result<usize, Error> {
            toks.get(i)
                .and_then(|t| t.parse().ok())
                .ok_or_else(|| bad(path, n, format!("no {what} in field {}", i + 1)))
        };
        let synsets = num(2, "synset count")?;
        let pointers = num(3, "pointer count")?;
        let first = 4 + pointers + 2;
        if num(4 + pointers, "sense count")? != synsets {
            return Err(bad(path, n, "sense count differs from synset count"));
        }
        if synsets == 0 {
            return Err(bad(path, n, "no synsets"));
        }
        let a = p.offsets.len() as u32;
        for i in first..first + synsets {
            let o = toks
                .get(i)
                .and_then(|t| t.parse::<u32>().ok())
                .ok_or_else(|| bad(path, n, format!("no synset offset in field {}", i + 1)))?;
            // The data file is read first: an offset it lacks is an error here, where the
            // line is known (nltk fails when the synset is looked up).
            if !p.synsets.contains_key(&o) {
                return Err(bad(
                    path,
                    n,
                    format!(
                        "`{}` points to synset {o:08}, which the data file lacks",
                        toks[0]
                    ),
                ));
            }
            p.offsets.push(o);
        }
        p.index
            .insert(Box::from(toks[0]), (a, p.offsets.len() as u32));
    }
    Ok(())
}

fn load_exceptions(text: &str) -> HashMap<Box<str>, Words> {
    let mut out = HashMap::new();
    for (_, _, line) in lines(text) {
        let toks = py_split(line);
        if let Some((form, bases)) = toks.split_first() {
            out.insert(
                Box::from(*form),
                bases.iter().map(|b| Box::from(*b)).collect(),
            );
        }
    }
    out
}

/// Where a WordNet database is looked for, in order: `$NLTK_DATA`'s folders and nltk's
/// default data folders (`corpora/wordnet`; `~/nltk_data`, the active virtualenv's, the
/// system's), `$WNHOME/dict`, then the system packages' folders.
pub fn search_path() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Some(v) = std::env::var_os("NLTK_DATA") {
        roots.extend(std::env::split_paths(&v));
    }
    if let Some(home) = std::env::var_os("HOME") {
        roots.push(Path::new(&home).join("nltk_data"));
    }
    // nltk also looks in its Python's prefix: a virtualenv's, when one is active.
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
        let venv = Path::new(&venv);
        for sub in ["nltk_data", "share/nltk_data", "lib/nltk_data"] {
            roots.push(venv.join(sub));
        }
    }
    for r in [
        "/usr/share/nltk_data",
        "/usr/local/share/nltk_data",
        "/usr/lib/nltk_data",
        "/usr/local/lib/nltk_data",
    ] {
        roots.push(r.into());
    }
    let mut dirs: Vec<PathBuf> = roots
        .into_iter()
        .map(|r| r.join("corpora").join("wordnet"))
        .collect();
    if let Some(wn) = std::env::var_os("WNHOME") {
        dirs.push(Path::new(&wn).join("dict"));
    }
    dirs.push("/usr/share/wordnet".into());
    dirs.push("/usr/local/WordNet-3.0/dict".into());
    dirs
}

/// The first folder of [`search_path`] that holds a WordNet database (`index.noun`), or
/// failing that, nltk's zipped copy next to it (`corpora/wordnet.zip`); else an error that
/// lists where it looked and how to install one.
pub fn discover() -> Result<PathBuf, Error> {
    let dirs = search_path();
    for d in &dirs {
        if d.join("index.noun").is_file() {
            return Ok(d.clone());
        }
        let zipped = d.with_extension("zip");
        if zipped.is_file() {
            return Ok(zipped);
        }
    }
    Err(Error::Usage(format!(
        "METEOR needs WordNet 3.0 for its synonym stage and none was found in {} \
         (nor a .zip of them). Install it (Debian: apt install wordnet-base; Python: \
         nltk.download('wordnet')), point --wordnet at its folder or zip, or score meteor_stem \
         (exact and stem stages only)",
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database in WordNet's file format with `(file, contents)`; data lines are placed
    /// at the byte offsets their first field names.
    fn db(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for suffix in POS_FILES {
            for f in [
                format!("data.{suffix}"),
                format!("index.{suffix}"),
                format!("{suffix}.exc"),
            ] {
                std::fs::write(dir.path().join(f), "  1 license header line\n").unwrap();
            }
        }
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    /// A data file whose synsets `(lemma names)` get the offsets their lines land on.
    fn data(synsets: &[&[&str]]) -> (String, Vec<usize>) {
        let mut text = String::from("  1 header\n");
        let mut offsets = Vec::new();
        for names in synsets {
            offsets.push(text.len());
            let lemmas: Vec<String> = names.iter().map(|n| format!("{n} 0")).collect();
            text.push_str(&format!(
                "{:08} 03 n {:02x} {} 000 | a gloss\n",
                text.len(),
                names.len(),
                lemmas.join(" ")
            ));
        }
        (text, offsets)
    }

    #[test]
    fn synonyms_follow_nltk_morphy() {
        let (noun, o) = data(&[
            &["dog", "domestic_dog", "Canis_familiaris"],
            &["cad", "hound", "dog"],
        ]);
        let (verb, v) = data(&[&["run", "go"], &["be", "exist"], &["wa", "swa"]]);
        let (adj, a) = data(&[&["big(a)", "large", "f(x)y"]]);
        let dir = db(&[
            ("data.noun", &noun),
            ("data.verb", &verb),
            ("data.adj", &adj),
            (
                "index.noun",
                &format!(
                    "  1 header\ndog n 2 1 @ 2 1 {:08} {:08}\nhound n 1 0 1 0 {:08}\n",
                    o[0], o[1], o[1]
                ),
            ),
            (
                "index.verb",
                &format!(
                    "run v 1 0 1 0 {:08}\nbe v 1 0 1 0 {:08}\nwa v 1 0 1 0 {:08}\n",
                    v[0], v[1], v[2]
                ),
            ),
            ("index.adj", &format!("big a 1 0 1 0 {:08}\n", a[0])),
            ("verb.exc", "was be\nran run\n"),
            ("adj.exc", "bigger big\n"),
        ]);
        let wn = WordNet::load(dir.path()).unwrap();
        // Names with `_` are left out; case is kept; the adjective marker is stripped.
        assert_eq!(wn.synonyms("dog"), ["cad", "dog", "hound"]);
        // synsets() lowercases; one round of the noun rules: dogs → dog.
        assert_eq!(wn.synonyms("Dogs"), ["cad", "dog", "hound"]);
        // Only one round: "dogses" → "dogse"/"dogs", neither indexed.
        assert!(wn.synonyms("dogses").is_empty());
        // Exceptions replace the rules: "was" → "be", not also "wa" by the "s" rule.
        assert_eq!(wn.synonyms("was"), ["be", "exist"]);
        assert_eq!(wn.synonyms("wa"), ["swa", "wa"]);
        assert_eq!(wn.synonyms("ran"), ["go", "run"]);
        assert_eq!(wn.synonyms("runs"), ["go", "run"]);
        // No exception for "running": the rules give "runne" and "runn" only.
        assert!(wn.synonyms("running").is_empty());
        assert_eq!(wn.synonyms("bigger"), ["big", "f(x)y", "large"]);
        assert!(wn.synonyms("unknown").is_empty());
    }

    /// The files of `dir` in a zip archive under `prefix`, with another folder's decoy.
    fn zipped(dir: &Path, prefix: &str, method: zip::CompressionMethod) -> tempfile::TempDir {
        let out = tempfile::tempdir().unwrap();
        let f = File::create(out.path().join("wordnet.zip")).unwrap();
        let mut w = zip::ZipWriter::new(f);
        let opts = zip::write::SimpleFileOptions::default().compression_method(method);
        w.add_directory(prefix, opts).ok();
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            w.start_file(format!("{prefix}{}", e.file_name().to_string_lossy()), opts)
                .unwrap();
            std::io::Write::write_all(&mut w, &std::fs::read(e.path()).unwrap()).unwrap();
        }
        w.start_file(format!("{prefix}deeper/index.noun"), opts)
            .unwrap();
        w.finish().unwrap();
        out
    }

    #[test]
    fn zip_archives_read_like_folders() {
        let (noun, o) = data(&[&["dog", "hound"]]);
        let dir = db(&[
            ("data.noun", &noun),
            ("index.noun", &format!("dog n 1 0 1 0 {:08}\n", o[0])),
        ]);
        for (prefix, method) in [
            ("wordnet/", zip::CompressionMethod::Deflated),
            ("", zip::CompressionMethod::Stored),
        ] {
            let z = zipped(dir.path(), prefix, method);
            let wn = WordNet::load(&z.path().join("wordnet.zip")).unwrap();
            assert_eq!(wn.synonyms("dogs"), ["dog", "hound"], "prefix {prefix:?}");
        }
        // Errors inside an archive name the archive and the file in it.
        std::fs::write(dir.path().join("data.noun"), "00000000 broken\n").unwrap();
        let z = zipped(dir.path(), "wordnet/", zip::CompressionMethod::Deflated);
        let e = WordNet::load(&z.path().join("wordnet.zip"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("wordnet.zip/wordnet/data.noun:1:"), "{e}");
        // A file that is not an archive, and an archive without a database.
        let junk = z.path().join("junk.zip");
        std::fs::write(&junk, "not a zip").unwrap();
        let e = WordNet::load(&junk).unwrap_err().to_string();
        assert!(
            e.contains("junk.zip") && e.contains("not a folder or a zip archive"),
            "{e}"
        );
        let empty = tempfile::tempdir().unwrap();
        let z2 = zipped(empty.path(), "x/", zip::CompressionMethod::Stored);
        // Only the decoy x/deeper/index.noun: the shallowest index.noun is used, and its
        // folder lacks data.noun.
        let e = WordNet::load(&z2.path().join("wordnet.zip"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("x/deeper/data.noun"), "{e}");
    }

    #[test]
    fn marker_stripping_matches_nltks_regex() {
        assert_eq!(strip_marker("galore(ip)"), "galore");
        assert_eq!(strip_marker("big(a)"), "big");
        assert_eq!(strip_marker("f(x)y"), "f(x)y");
        assert_eq!(strip_marker("a(b(c)"), "a(b");
        assert_eq!(strip_marker("a(b)c)"), "a(b)c)");
        assert_eq!(strip_marker("()"), "");
    }

    #[test]
    fn malformed_files_are_named_with_their_line() {
        let (noun, _) = data(&[&["dog"]]);
        let err = |files: &[(&str, &str)]| WordNet::load(db(files).path()).unwrap_err().to_string();
        let e = err(&[("data.noun", "  1 header\n00000000 03 n 01 dog 0 000 | x\n")]);
        assert!(
            e.contains("data.noun:2:") && e.contains("byte offset 11"),
            "{e}"
        );
        let e = err(&[("data.noun", &noun), ("index.noun", "dog n 1 0 1 0\n")]);
        assert!(
            e.contains("index.noun:1:") && e.contains("synset offset"),
            "{e}"
        );
        let e = err(&[
            ("data.noun", &noun),
            ("index.noun", "  1 header\ndog n 1 0 1 0 00000099\n"),
        ]);
        assert!(
            e.contains("index.noun:2:") && e.contains("synset 00000099, which the data file lacks"),
            "{e}"
        );
        // An offset past u32 is not wrapped onto another synset.
        let e = err(&[
            ("data.noun", &noun),
            ("index.noun", "dog n 1 0 1 0 4294967307\n"),
        ]);
        assert!(
            e.contains("index.noun:1:") && e.contains("no synset offset"),
            "{e}"
        );
        let e = err(&[("data.noun", "  1 header\n00000011 03 n 02 dog 0 000 | x\n")]);
        assert!(e.contains("fewer than 2 (lemma, lex id) pairs"), "{e}");
        let dir = db(&[]);
        std::fs::remove_file(dir.path().join("adv.exc")).unwrap();
        let e = WordNet::load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("adv.exc"), "{e}");
    }
}
