//! Game files for every front end: [`load`] reads one (see `grundy_games::gamefile`) and
//! keeps the last few read, so that what a family made of a file (a compiled script, a
//! parsed spec) serves every later request with the same file: each move of `grundy play`,
//! each cell of a table, each request of the page's editor.

use crate::solve::{AppError, ErrorKind};
use grundy_games::gamefile::GameFile;
use std::sync::{Arc, Mutex};

/// Files kept (the most recently used).
const KEPT: usize = 8;

/// What a kept file is found by: its source, the hash of its text and its length.
type Key = (String, u64, usize);

/// Files read, most recently used last.
static CACHE: Mutex<Vec<(Key, Arc<GameFile>)>> = Mutex::new(Vec::new());

/// The game file `source` (its name, for errors) with this `text`: read once, then kept
/// among the last `KEPT` (8) files read. A file that does not read is a usage error naming
/// its line and column.
pub fn load(source: &str, text: &str) -> Result<Arc<GameFile>, AppError> {
    let key = (
        source.to_string(),
        grundy_games::gamefile::fnv1a(text.as_bytes()),
        text.len(),
    );
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = cache.iter().position(|(k, f)| *k == key && f.text() == text) {
        let entry = cache.remove(i);
        let file = entry.1.clone();
        cache.push(entry);
        return Ok(file);
    }
    drop(cache);
    let file = Arc::new(
        GameFile::load(source, text).map_err(|e| AppError::new(ErrorKind::BadInput, e.to_string()))?,
    );
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= KEPT {
        cache.remove(0);
    }
    cache.push((key, file.clone()));
    Ok(file)
}
