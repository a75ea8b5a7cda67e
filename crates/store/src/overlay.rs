//! A redb storage backend that reads a store file and never writes to it: what redb writes
//! (an integrity check's repair, a recovery on open) goes to pages kept in memory. `verify`
//! runs redb's integrity check through it and `repair` reads a damaged store through it, so
//! neither changes the file it examines.

use redb::StorageBackend;
use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

/// Bytes per page of the overlay (redb's page size; any size works).
const CHUNK: u64 = 4096;

/// The file underneath, shared by the overlays opened on it.
#[derive(Debug)]
pub(crate) struct Base {
    file: Mutex<File>,
    len: u64,
}

impl Base {
    /// Opens `path` for reading only.
    pub(crate) fn open(path: &Path) -> std::io::Result<Arc<Base>> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(Arc::new(Base {
            file: Mutex::new(file),
            len,
        }))
    }

    /// The file's length when opened.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Reads `out.len()` bytes at `offset` (within the file).
    fn read(&self, offset: u64, out: &mut [u8]) -> std::io::Result<()> {
        let mut f = self.file.lock().unwrap_or_else(|p| p.into_inner());
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(out)
    }
}

#[derive(Debug)]
struct State {
    /// The length redb sees.
    len: u64,
    /// Bytes of the file at or past this offset read as zero (the storage was shrunk).
    zero_from: u64,
    /// Pages written, by page number: they replace the file's bytes.
    pages: HashMap<u64, Box<[u8]>>,
}

/// A copy-on-write view of a [`Base`]: reads come from the file, writes stay in memory.
#[derive(Debug)]
pub(crate) struct Overlay {
    base: Arc<Base>,
    state: Mutex<State>,
}

impl Overlay {
    /// A fresh view of `base`, as the file is.
    pub(crate) fn new(base: Arc<Base>) -> Overlay {
        let len = base.len;
        Overlay {
            base,
            state: Mutex::new(State {
                len,
                zero_from: len,
                pages: HashMap::new(),
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reads the bytes `[start, start + out.len())` of page `page` as the file (shrunk
    /// to `zero_from`) has them.
    fn read_base(&self, zero_from: u64, at: u64, out: &mut [u8]) -> std::io::Result<()> {
        let end = at + out.len() as u64;
        let real_end = end.min(zero_from).min(self.base.len);
        if real_end > at {
            let n = (real_end - at) as usize;
            self.base.read(at, &mut out[..n])?;
            out[n..].fill(0);
        } else {
            out.fill(0);
        }
        Ok(())
    }
}

fn out_of_range() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        "read past the end of the store",
    )
}

impl StorageBackend for Overlay {
    fn len(&self) -> Result<u64, std::io::Error> {
        Ok(self.state().len)
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), std::io::Error> {
        let st = self.state();
        let end = offset.checked_add(out.len() as u64).ok_or_else(out_of_range)?;
        if end > st.len {
            return Err(out_of_range());
        }
        let mut at = offset;
        let mut done = 0usize;
        while at < end {
            let page = at / CHUNK;
            let within = (at % CHUNK) as usize;
            let n = ((CHUNK as usize) - within).min((end - at) as usize);
            match st.pages.get(&page) {
                Some(p) => out[done..done + n].copy_from_slice(&p[within..within + n]),
                None => self.read_base(st.zero_from, at, &mut out[done..done + n])?,
            }
            at += n as u64;
            done += n;
        }
        Ok(())
    }

    fn set_len(&self, len: u64) -> Result<(), std::io::Error> {
        let mut st = self.state();
        if len < st.len {
            st.zero_from = st.zero_from.min(len);
            st.pages.retain(|&p, _| p * CHUNK < len);
            // The tail of the last page past the new end reads as zero if it grows again.
            if let Some(p) = st.pages.get_mut(&(len / CHUNK)) {
                p[(len % CHUNK) as usize..].fill(0);
            }
        }
        st.len = len;
        Ok(())
    }

    fn sync_data(&self) -> Result<(), std::io::Error> {
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<(), std::io::Error> {
        let mut st = self.state();
        let end = offset.checked_add(data.len() as u64).ok_or_else(out_of_range)?;
        if end > st.len {
            return Err(out_of_range());
        }
        let mut at = offset;
        let mut done = 0usize;
        while at < end {
            let page = at / CHUNK;
            let within = (at % CHUNK) as usize;
            let n = ((CHUNK as usize) - within).min((end - at) as usize);
            if !st.pages.contains_key(&page) {
                let mut fresh = vec![0u8; CHUNK as usize].into_boxed_slice();
                self.read_base(st.zero_from, page * CHUNK, &mut fresh)?;
                st.pages.insert(page, fresh);
            }
            if let Some(p) = st.pages.get_mut(&page) {
                p[within..within + n].copy_from_slice(&data[done..done + n]);
            }
            at += n as u64;
            done += n;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_stay_in_memory_and_reads_see_them() {
        let dir = std::env::temp_dir().join(format!("grundy-overlay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("file");
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let o = Overlay::new(Base::open(&path).unwrap());
        let mut out = vec![0u8; 5000];
        o.read(3000, &mut out).unwrap();
        assert_eq!(out, bytes[3000..8000]);
        o.write(4090, &[7; 20]).unwrap();
        o.read(4080, &mut out[..40]).unwrap();
        assert_eq!(&out[..10], &bytes[4080..4090]);
        assert_eq!(&out[10..30], &[7; 20]);
        assert_eq!(&out[30..40], &bytes[4110..4120]);
        assert!(o.read(9990, &mut out[..20]).is_err());
        o.set_len(5000).unwrap();
        o.set_len(12_000).unwrap();
        o.read(4990, &mut out[..20]).unwrap();
        assert_eq!(&out[..10], &bytes[4990..5000]);
        assert_eq!(&out[10..20], &[0; 10]);
        o.read(8000, &mut out[..100]).unwrap();
        assert_eq!(&out[..100], &[0; 100]);
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
