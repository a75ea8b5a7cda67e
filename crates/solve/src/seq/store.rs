//! Where a Grundy sequence lives: 2 bytes per value while values fit in 16 bits, 4 bytes
//! after, in memory or in a memory-mapped scratch file when the sequence is too large for
//! memory.

use super::SeqError;
use memmap2::MmapMut;
use std::path::PathBuf;

/// A cell type of a stored sequence (`u16` or `u32`).
pub trait Cell: bytemuck::Pod + Default + Send + Sync + 'static {
    /// The largest value a cell holds.
    const MAX: usize;
    /// The value as an index.
    fn get(self) -> usize;
    /// A cell holding `v` (which must be at most [`Cell::MAX`]).
    fn put(v: usize) -> Self;
}

impl Cell for u16 {
    const MAX: usize = u16::MAX as usize;
    #[inline(always)]
    fn get(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn put(v: usize) -> Self {
        v as u16
    }
}

impl Cell for u32 {
    const MAX: usize = u32::MAX as usize;
    #[inline(always)]
    fn get(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn put(v: usize) -> Self {
        v as u32
    }
}

/// Cells in memory or in a mapped file, with a fixed capacity.
pub enum Backing<T: Cell> {
    /// A vector that grows as cells are computed (only written cells take memory), up to the
    /// capacity.
    Mem(Vec<T>, usize),
    /// A mapped scratch file of the full capacity (deleted when dropped).
    File(MmapMut, tempfile::TempPath),
}

impl<T: Cell> Backing<T> {
    /// Room for `capacity` cells: in memory when they take at most `memory_limit` bytes,
    /// else in a scratch file in `dir`.
    pub fn new(capacity: usize, memory_limit: u64, dir: &Option<PathBuf>) -> Result<Self, SeqError> {
        let capacity = capacity.max(1);
        let bytes = capacity as u64 * std::mem::size_of::<T>() as u64;
        if bytes <= memory_limit {
            return Ok(Backing::Mem(Vec::new(), capacity));
        }
        let dir = dir.clone().unwrap_or_else(std::env::temp_dir);
        let io = |e: std::io::Error| SeqError::Storage(format!("scratch file in {}: {e}", dir.display()));
        let file = tempfile::NamedTempFile::new_in(&dir).map_err(io)?;
        file.as_file().set_len(bytes).map_err(io)?;
        let (f, path) = file.into_parts();
        let map = map_file(&f).map_err(io)?;
        Ok(Backing::File(map, path))
    }

    /// Makes cells `..len` (at most the capacity) available.
    pub fn ensure(&mut self, len: usize) -> Result<(), SeqError> {
        if let Backing::Mem(v, cap) = self {
            let len = len.min(*cap);
            if v.len() < len {
                let want = len.max(v.len().saturating_mul(2)).min(*cap);
                if v.capacity() < want {
                    v.try_reserve_exact(want - v.len()).map_err(|_| {
                        SeqError::Storage(format!(
                            "cannot allocate {} bytes (use --memory-mib to keep values in a file)",
                            want as u64 * std::mem::size_of::<T>() as u64
                        ))
                    })?;
                }
                v.resize(len, T::default());
            }
        }
        Ok(())
    }

    /// Most cells this backing holds.
    pub fn capacity(&self) -> usize {
        match self {
            Backing::Mem(_, cap) => *cap,
            Backing::File(m, _) => m.len() / std::mem::size_of::<T>(),
        }
    }

    /// The available cells (see [`Backing::ensure`]).
    #[inline]
    pub fn cells(&self) -> &[T] {
        match self {
            Backing::Mem(v, _) => v,
            Backing::File(m, _) => bytemuck::cast_slice(&m[..]),
        }
    }

    /// The available cells, writable.
    #[inline]
    pub fn cells_mut(&mut self) -> &mut [T] {
        match self {
            Backing::Mem(v, _) => v,
            Backing::File(m, _) => bytemuck::cast_slice_mut(&mut m[..]),
        }
    }

    /// True when the cells live in a scratch file.
    pub fn is_file(&self) -> bool {
        matches!(self, Backing::File(..))
    }
}

#[allow(unsafe_code)]
fn map_file(f: &std::fs::File) -> std::io::Result<MmapMut> {
    // SAFETY: the file is a fresh private temporary file that no other process or thread
    // opens; the map is the only access to it for the map's whole life (memmap2's contract).
    unsafe { MmapMut::map_mut(f) }
}

/// A Grundy sequence under construction: its cells (16 or 32 bits) and its length.
pub enum Values {
    /// Values below 65536.
    U16(Backing<u16>),
    /// Wider values.
    U32(Backing<u32>),
}

impl Values {
    /// The value at `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        match self {
            Values::U16(b) => b.cells()[i] as u64,
            Values::U32(b) => b.cells()[i] as u64,
        }
    }

    /// Bytes per value (2 or 4).
    pub fn width(&self) -> usize {
        match self {
            Values::U16(_) => 2,
            Values::U32(_) => 4,
        }
    }

    /// Most values this store holds.
    pub fn capacity(&self) -> usize {
        match self {
            Values::U16(b) => b.capacity(),
            Values::U32(b) => b.capacity(),
        }
    }

    /// Makes cells `..len` available.
    pub fn ensure(&mut self, len: usize) -> Result<(), SeqError> {
        match self {
            Values::U16(b) => b.ensure(len),
            Values::U32(b) => b.ensure(len),
        }
    }

    /// The first `len` values as little-endian bytes, for checkpoints.
    pub fn bytes(&self, from: usize, to: usize) -> Vec<u8> {
        match self {
            Values::U16(b) => b.cells()[from..to].iter().flat_map(|v| v.to_le_bytes()).collect(),
            Values::U32(b) => b.cells()[from..to].iter().flat_map(|v| v.to_le_bytes()).collect(),
        }
    }
}
