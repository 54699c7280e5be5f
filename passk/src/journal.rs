//! The journal of an execution run (`{per-sample file}.journal`): one JSON line per finished
//! job (a sample, or a task's validation), appended and synced to disk as each finishes, so
//! that a run killed at any moment loses at most the jobs that were running. A rerun with the
//! same predictions and settings reads it back and runs only the jobs it does not hold; the
//! results it holds are used as they were written, so the final output is the one an
//! uninterrupted run writes. The first line names the run (a fingerprint of the predictions
//! and the settings that change results); a journal of another run is refused.
//!
//! A line cut short by a kill in the middle of its write is the last one, and is ignored
//! (its job runs again).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::predictions::Prediction;
use crate::{Error, SampleResult, Validation};

/// Changes when the journal's lines change meaning.
const FORMAT: &str = "codemine-passk-journal-1";
/// Largest journal read back.
const MAX_BYTES: u64 = 4 << 30;

/// A job of a run: a prediction's sample, or (`sample` None) its task's validation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct JobKey {
    pub id: String,
    pub sample: Option<usize>,
}

/// What a finished job gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Finished {
    Validation(Validation),
    Sample(SampleResult),
}

#[derive(Serialize, Deserialize)]
struct Header {
    journal: String,
    fingerprint: String,
}

#[derive(Serialize, Deserialize)]
struct Line {
    job: JobKey,
    done: Finished,
}

/// An open journal: the jobs finished before, and the file new ones are appended to.
pub struct Journal {
    path: PathBuf,
    file: Mutex<File>,
    done: HashMap<JobKey, Finished>,
}

impl Journal {
    /// Opens the journal at `path` for the run `fingerprint` ([`fingerprint`]): reads what
    /// an earlier, interrupted run of the same inputs finished, or starts a new one.
    pub fn open(path: &Path, fingerprint: &str) -> Result<Journal, Error> {
        let io = |what: &'static str| {
            let path = path.to_path_buf();
            move |source| Error::Io { path, what, source }
        };
        let mut done = HashMap::new();
        let exists = path.exists();
        if exists {
            let f = codemine_io::open_regular(path, codemine_io::Follow::No).map_err(|e| {
                Error::Io {
                    path: path.to_path_buf(),
                    what: "opening",
                    source: e.into(),
                }
            })?;
            let mut lines = BufReader::new(codemine_io::Limited::new(f, MAX_BYTES)).split(b'\n');
            let header: Option<Header> = lines
                .next()
                .and_then(|l| l.ok())
                .and_then(|l| serde_json::from_slice(&l).ok());
            match header {
                Some(h) if h.journal == FORMAT && h.fingerprint == fingerprint => {}
                _ => {
                    return Err(Error::Data {
                        path: path.to_path_buf(),
                        reason: "the journal of another run (other predictions or settings): \
                                 remove it to start again"
                            .into(),
                    })
                }
            }
            for line in lines {
                let line = line.map_err(|e| Error::Io {
                    path: path.to_path_buf(),
                    what: "reading",
                    source: codemine_io::ReadError::from_stream(e).into(),
                })?;
                // A torn last line (killed while writing it) does not parse: its job reruns.
                if let Ok(l) = serde_json::from_slice::<Line>(&line) {
                    done.insert(l.job, l.done);
                }
            }
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io("opening"))?;
        if !exists {
            let header = Header {
                journal: FORMAT.into(),
                fingerprint: fingerprint.into(),
            };
            let mut line = serde_json::to_vec(&header).map_err(|e| Error::Io {
                path: path.to_path_buf(),
                what: "encoding",
                source: e.into(),
            })?;
            line.push(b'\n');
            file.write_all(&line).map_err(io("writing"))?;
            file.sync_data().map_err(io("syncing"))?;
        } else {
            // A torn last line: end it, so the next line starts on its own.
            file.write_all(b"\n").map_err(io("writing"))?;
        }
        Ok(Journal {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            done,
        })
    }

    /// What the journal holds for `job`, finished by an earlier run.
    pub fn get(&self, job: &JobKey) -> Option<&Finished> {
        self.done.get(job)
    }

    /// How many finished jobs the journal held when opened.
    pub fn len(&self) -> usize {
        self.done.len()
    }

    pub fn is_empty(&self) -> bool {
        self.done.is_empty()
    }

    /// Appends a finished job, on disk before it returns.
    pub fn record(&self, job: &JobKey, done: &Finished) -> Result<(), Error> {
        let io = |what: &'static str| {
            let path = self.path.clone();
            move |source| Error::Io { path, what, source }
        };
        let mut line = serde_json::to_vec(&Line {
            job: job.clone(),
            done: done.clone(),
        })
        .map_err(|e| io("encoding")(e.into()))?;
        line.push(b'\n');
        let mut f = self
            .file
            .lock()
            .map_err(|_| io("writing")(std::io::Error::other("a writer panicked")))?;
        // One write of the whole line: a kill leaves it whole or torn at the end.
        f.write_all(&line).map_err(io("writing"))?;
        f.sync_data().map_err(io("syncing"))
    }

    /// Removes the journal once the run's outputs are written.
    pub fn remove(self) -> Result<(), Error> {
        let path = self.path;
        drop(self.file);
        std::fs::remove_file(&path).map_err(|source| Error::Io {
            path,
            what: "removing",
            source,
        })
    }
}

/// The journal's name for a per-sample file: the file's name and `.journal`.
pub fn path_for(per_sample: &Path) -> PathBuf {
    let mut p = per_sample.as_os_str().to_os_string();
    p.push(".journal");
    PathBuf::from(p)
}

/// A name of the run: FNV-1a (64 bits) over the predictions (ids and samples) and
/// `settings` (the options that change results), in hexadecimal.
pub fn fingerprint(predictions: &[Prediction], settings: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        // Length first, so that no two sequences of fields hash alike by shifting a border.
        for b in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    eat(settings.as_bytes());
    for p in predictions {
        eat(p.id.as_bytes());
        eat(&(p.samples.len() as u64).to_le_bytes());
        for s in &p.samples {
            eat(s.as_bytes());
        }
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Outcome;

    fn result(id: &str, sample: usize) -> SampleResult {
        SampleResult {
            id: id.into(),
            sample,
            repository: "r".into(),
            language: "python".into(),
            outcome: Outcome::Fail,
            seconds: 0.123_456_789_012_345_6,
            failing_tests: vec!["t::a".into()],
            reason: Some("assert 1 == 2".into()),
            log_tail: "tail\n".into(),
            task_valid: None,
            category: "none".into(),
            exact_match: Some(false),
        }
    }

    #[test]
    fn a_reopened_journal_holds_what_was_recorded_and_skips_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl.journal");
        let j = Journal::open(&path, "f1").unwrap();
        assert!(j.is_empty());
        let a = JobKey {
            id: "A".into(),
            sample: Some(0),
        };
        j.record(&a, &Finished::Sample(result("A", 0))).unwrap();
        drop(j);
        // A kill in the middle of the next line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"job\":{\"id\":\"A\",\"sample\":1},\"do")
            .unwrap();
        drop(f);
        let j = Journal::open(&path, "f1").unwrap();
        assert_eq!(j.len(), 1);
        assert_eq!(j.get(&a), Some(&Finished::Sample(result("A", 0))));
        let b = JobKey {
            id: "A".into(),
            sample: Some(1),
        };
        assert_eq!(j.get(&b), None);
        j.record(&b, &Finished::Sample(result("A", 1))).unwrap();
        drop(j);
        let j = Journal::open(&path, "f1").unwrap();
        assert_eq!(j.len(), 2);
        assert_eq!(j.get(&b), Some(&Finished::Sample(result("A", 1))));
        drop(j);
        // Another run's journal is refused.
        assert!(Journal::open(&path, "f2").is_err());
    }

    #[test]
    fn the_fingerprint_changes_with_any_sample_or_setting() {
        let p = |s: &[&str]| Prediction {
            id: "A".into(),
            samples: s.iter().map(|x| x.to_string()).collect(),
            line: 1,
        };
        let f = fingerprint(&[p(&["x", "y"])], "t=2");
        assert_eq!(f, fingerprint(&[p(&["x", "y"])], "t=2"));
        assert_ne!(f, fingerprint(&[p(&["xy"])], "t=2"));
        assert_ne!(f, fingerprint(&[p(&["x", "y"])], "t=3"));
    }
}
