//! Dedup parameters: the two presets, direct settings and their validation.

use serde::{Deserialize, Serialize};

use super::signature::SUPPORTED_PERMUTATIONS;
use super::DedupError;

/// MinHash LSH parameters. The signature has `bands * rows` permutations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DedupParams {
    /// Exact shingle Jaccard at or above which two functions are near-duplicates, in (0, 1].
    pub threshold: f64,
    /// Tokens per shingle.
    pub shingle: usize,
    /// LSH bands.
    pub bands: usize,
    /// MinHash rows (permutations) per band.
    pub rows: usize,
}

impl Default for DedupParams {
    fn default() -> Self {
        Self::bigcode()
    }
}

impl DedupParams {
    /// BigCode's code dedup: threshold 0.7, 5-token shingles, 250 permutations as
    /// 25 bands x 10 rows (the default).
    #[must_use]
    pub fn bigcode() -> Self {
        Self {
            threshold: 0.7,
            shingle: 5,
            bands: 25,
            rows: 10,
        }
    }

    /// datatrove's `MinhashConfig` defaults: 5-grams, 14 buckets (bands) x 8 hashes per
    /// bucket. datatrove has no explicit threshold; its LSH curve's midpoint is
    /// (1/14)^(1/8) ~ 0.72, which is used here for the exact-Jaccard check.
    #[must_use]
    pub fn datatrove() -> Self {
        Self {
            threshold: 0.72,
            shingle: 5,
            bands: 14,
            rows: 8,
        }
    }

    /// Permutations of the signature, `bands * rows` (saturating).
    #[must_use]
    pub fn permutations(&self) -> usize {
        self.bands.saturating_mul(self.rows)
    }

    /// Checks that the combination can be used: non-zero sizes, a threshold in (0, 1], and
    /// `bands * rows` among the permutation counts minhash-rs is instantiated for
    /// ([`SUPPORTED_PERMUTATIONS`]: its signature length is a const generic).
    pub fn validate(&self) -> Result<(), DedupError> {
        let invalid = |message: String| Err(DedupError::InvalidParams(message));
        if !(self.threshold > 0.0 && self.threshold <= 1.0) {
            return invalid(format!("threshold {} is not in (0, 1]", self.threshold));
        }
        if self.shingle == 0 {
            return invalid("shingle size must be at least 1".into());
        }
        if self.bands == 0 || self.rows == 0 {
            return invalid(format!(
                "bands ({}) and rows ({}) must be at least 1",
                self.bands, self.rows
            ));
        }
        let permutations = self.bands.checked_mul(self.rows);
        match permutations {
            Some(p) if SUPPORTED_PERMUTATIONS.contains(&p) => Ok(()),
            _ => invalid(format!(
                "{} bands x {} rows: permutations must be one of {:?}",
                self.bands, self.rows, SUPPORTED_PERMUTATIONS
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid() {
        assert!(DedupParams::bigcode().validate().is_ok());
        assert!(DedupParams::datatrove().validate().is_ok());
        assert_eq!(DedupParams::bigcode().permutations(), 250);
        assert_eq!(DedupParams::datatrove().permutations(), 112);
    }

    #[test]
    fn invalid_combinations() {
        let base = DedupParams::bigcode();
        for bad in [
            DedupParams {
                threshold: 0.0,
                ..base.clone()
            },
            DedupParams {
                threshold: 1.01,
                ..base.clone()
            },
            DedupParams {
                threshold: f64::NAN,
                ..base.clone()
            },
            DedupParams {
                shingle: 0,
                ..base.clone()
            },
            DedupParams {
                bands: 0,
                ..base.clone()
            },
            DedupParams {
                rows: 0,
                ..base.clone()
            },
            DedupParams {
                bands: 7,
                rows: 7,
                ..base.clone()
            },
            DedupParams {
                bands: usize::MAX,
                rows: 2,
                ..base.clone()
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
        let ok = DedupParams {
            threshold: 1.0,
            bands: 32,
            rows: 4,
            ..base
        };
        assert!(ok.validate().is_ok());
    }
}
