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
    /// A mapped scratch file (deleted when dropped) that grows as cells are computed, up to
    /// the capacity: its disk blocks are allocated before they are mapped, so a full disk is
    /// an error ([`Backing::ensure`]), never a crash on a write to the map.
    File(ScratchFile),
}

/// The scratch file of a [`Backing::File`].
pub struct ScratchFile {
    map: MmapMut,
    file: std::fs::File,
    path: tempfile::TempPath,
    /// Most cells the file may grow to.
    capacity: usize,
    /// Bytes it grows by at least.
    step: u64,
}

/// Bytes the scratch file grows by at least (then doubling): few remaps, little disk
/// taken ahead of the values.
const FILE_STEP: u64 = 64 << 20;

impl<T: Cell> Backing<T> {
    /// Room for `capacity` cells: in memory when they take at most `memory_limit` bytes,
    /// else in a scratch file in `dir` (created now, empty: it grows with the cells).
    pub fn new(capacity: usize, memory_limit: u64, dir: &Option<PathBuf>) -> Result<Self, SeqError> {
        Self::with_step(capacity, memory_limit, dir, FILE_STEP)
    }

    /// [`Backing::new`], the scratch file growing by at least `step` bytes (tests use small
    /// steps).
    pub fn with_step(
        capacity: usize,
        memory_limit: u64,
        dir: &Option<PathBuf>,
        step: u64,
    ) -> Result<Self, SeqError> {
        let capacity = capacity.max(1);
        let bytes = capacity as u64 * std::mem::size_of::<T>() as u64;
        if bytes <= memory_limit {
            return Ok(Backing::Mem(Vec::new(), capacity));
        }
        let dir = dir.clone().unwrap_or_else(std::env::temp_dir);
        let io = |e: std::io::Error| SeqError::Storage(format!("scratch file in {}: {e}", dir.display()));
        let file = tempfile::NamedTempFile::new_in(&dir).map_err(io)?;
        let (f, path) = file.into_parts();
        let mut scratch = ScratchFile {
            map: MmapMut::map_anon(0).map_err(io)?,
            file: f,
            path,
            capacity,
            step: step.max(1),
        };
        // A small start: a game whose period is proven early never needs more.
        scratch.grow::<T>(step.min(1 << 20).min(bytes)).map_err(io)?;
        Ok(Backing::File(scratch))
    }

    /// Makes cells `..len` (at most the capacity) available. A scratch file grows to hold
    /// them (at least doubling); when the disk has no room, the error says so.
    pub fn ensure(&mut self, len: usize) -> Result<(), SeqError> {
        match self {
            Backing::Mem(v, cap) => {
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
            Backing::File(f) => {
                let size = std::mem::size_of::<T>() as u64;
                let len = len.min(f.capacity) as u64;
                let have = f.map.len() as u64 / size;
                if have < len {
                    let want = (len.max(have * 2) * size)
                        .max(f.step)
                        .min(f.capacity as u64 * size);
                    f.grow::<T>(want).map_err(|e| {
                        SeqError::Storage(format!(
                            "scratch file {}: cannot grow to {want} bytes: {e}",
                            f.path.display()
                        ))
                    })?;
                }
            }
        }
        Ok(())
    }

    /// Most cells this backing holds.
    pub fn capacity(&self) -> usize {
        match self {
            Backing::Mem(_, cap) => *cap,
            Backing::File(f) => f.capacity,
        }
    }

    /// The available cells (see [`Backing::ensure`]).
    #[inline]
    pub fn cells(&self) -> &[T] {
        match self {
            Backing::Mem(v, _) => v,
            Backing::File(f) => bytemuck::cast_slice(&f.map[..]),
        }
    }

    /// The available cells, writable.
    #[inline]
    pub fn cells_mut(&mut self) -> &mut [T] {
        match self {
            Backing::Mem(v, _) => v,
            Backing::File(f) => bytemuck::cast_slice_mut(&mut f.map[..]),
        }
    }

    /// True when the cells live in a scratch file.
    pub fn is_file(&self) -> bool {
        matches!(self, Backing::File(..))
    }
}

impl ScratchFile {
    /// Grows the file to `bytes` (whole cells of `T`), its blocks allocated, and maps it
    /// again (the cells keep their values).
    fn grow<T: Cell>(&mut self, bytes: u64) -> std::io::Result<()> {
        let size = std::mem::size_of::<T>() as u64;
        let bytes = bytes / size * size;
        let old = self.file.metadata()?.len();
        if bytes > old {
            allocate(&self.file, old, bytes - old)?;
            self.file.set_len(bytes)?;
        }
        self.map = map_file(&self.file)?;
        Ok(())
    }
}

/// Allocates the disk blocks of `len` bytes of `f` from `offset` (so that writes through the
/// map cannot meet a full disk).
#[cfg(unix)]
#[allow(unsafe_code)]
fn allocate(f: &std::fs::File, offset: u64, len: u64) -> std::io::Result<()> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: posix_fallocate reads no memory of ours; the descriptor is open (owned by `f`).
    let r = unsafe { libc::posix_fallocate(f.as_raw_fd(), offset as libc::off_t, len as libc::off_t) };
    match r {
        0 => Ok(()),
        // File systems without it (some network ones): the file is then sparse, as before.
        libc::EOPNOTSUPP | libc::EINVAL => Ok(()),
        e => Err(std::io::Error::from_raw_os_error(e)),
    }
}

/// Allocates the disk blocks of `len` bytes of `f` from `offset`: nothing to do where the
/// system has no call for it (the file is extended by `set_len`).
#[cfg(not(unix))]
fn allocate(_f: &std::fs::File, _offset: u64, _len: u64) -> std::io::Result<()> {
    Ok(())
}

#[allow(unsafe_code)]
fn map_file(f: &std::fs::File) -> std::io::Result<MmapMut> {
    // SAFETY: the file is a fresh private temporary file that no other process or thread
    // opens; the map is the only access to it for the map's whole life (memmap2's contract),
    // and its blocks are allocated before they are mapped (see `allocate`).
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
