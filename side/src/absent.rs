//! [`Side`] in a build without the model (cargo feature `model` off): loading says so, and
//! no value of the type can exist, so its methods cannot run.

use std::path::Path;

use crate::SideError;

/// No SIDE model in this build: [`Side::load`] is an error.
pub enum Side {}

impl Side {
    /// Always [`SideError::NotBuilt`].
    pub fn load(dir: &Path) -> Result<Self, SideError> {
        Err(SideError::NotBuilt(dir.to_path_buf()))
    }

    pub fn digest(&self) -> &str {
        match *self {}
    }

    pub fn max_len(&self) -> usize {
        match *self {}
    }

    pub fn token_ids(&self, _text: &str) -> Result<Vec<u32>, SideError> {
        match *self {}
    }

    pub fn embed(&self, _texts: &[&str], _batch: usize) -> Result<Vec<Vec<f32>>, SideError> {
        match *self {}
    }

    pub fn score(&self, _pairs: &[(&str, &str)], _batch: usize) -> Result<Vec<f32>, SideError> {
        match *self {}
    }
}
