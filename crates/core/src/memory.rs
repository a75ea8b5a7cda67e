//! The memory budget: how many bytes the process has allocated, and whether the work in
//! hand may allocate more.
//!
//! A binary installs [`CountingAllocator`] as its global allocator; from then on
//! [`in_use`] is the number of bytes its heap allocations hold, exactly. Engines (through
//! the application layer's bounded view of a game) ask [`Share::over`] as they go and wind down
//! when the limit of the work in hand is passed, so a solve stops with a message naming the
//! limit instead of growing until the system's OOM killer or swap takes the machine.
//!
//! Two limits, both in bytes of heap:
//! - the **process budget** ([`set_budget`]), `--memory-budget`, which every engine checks
//!   cooperatively, and a hard ceiling a little above it, enforced by the allocator itself:
//!   an allocation past the ceiling (work that has no cooperative check) ends the process
//!   at once with a message and exit code 1, rather than let the machine suffer;
//! - a **share** ([`Share`]) of the budget for one piece of work (one request of the server),
//!   counted from what was in use when the work began.
//!
//! Without the counting allocator (library tests, other binaries) nothing is counted:
//! [`in_use`] stays 0 and no limit is ever reached.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);
static BUDGET: AtomicUsize = AtomicUsize::new(usize::MAX);
static CEILING: AtomicUsize = AtomicUsize::new(usize::MAX);

/// A global allocator over the system's that counts the bytes in use and enforces the hard
/// ceiling of the budget. Install it in a binary with
/// `#[global_allocator] static A: grundy_core::memory::CountingAllocator = grundy_core::memory::CountingAllocator;`.
pub struct CountingAllocator;

impl CountingAllocator {
    #[inline]
    fn grew(&self, bytes: usize) {
        let now = IN_USE.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if now > PEAK.load(Ordering::Relaxed) {
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        if now > CEILING.load(Ordering::Relaxed) {
            past_ceiling(now);
        }
    }
}

/// Ends the process: an allocation went past the hard ceiling. Nothing here may allocate
/// (the allocator is the caller), so the message is written with one `write(2)` from a
/// fixed buffer, and the process ends with `_exit`, which runs no handler that could.
#[cold]
fn past_ceiling(now: usize) -> ! {
    /// A message in a fixed buffer: text and numbers appended, the rest cut off.
    struct Message {
        buf: [u8; 256],
        len: usize,
    }
    impl Message {
        fn put(&mut self, bytes: &[u8]) {
            for &b in bytes {
                if self.len < self.buf.len() {
                    self.buf[self.len] = b;
                    self.len += 1;
                }
            }
        }
        fn number(&mut self, n: usize) {
            let mut digits = [0u8; 20];
            self.put(crate::decimal(n as u64, &mut digits));
        }
    }
    let mut m = Message {
        buf: [0; 256],
        len: 0,
    };
    m.put(b"grundy: out of memory: the work in hand passed the memory budget of ");
    m.number(BUDGET.load(Ordering::Relaxed) >> 20);
    m.put(b" MiB without stopping (it had ");
    m.number(now >> 20);
    m.put(b" MiB); raise it with --memory-budget SIZE\n");
    // SAFETY: write(2) of an initialised buffer we own, then _exit: neither allocates.
    unsafe {
        libc::write(2, m.buf.as_ptr().cast(), m.len);
        libc::_exit(1)
    }
}

// SAFETY: every method forwards to `System` with the same arguments and only adds counting.
unsafe impl GlobalAlloc for CountingAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                self.grew(new_size - layout.size());
            } else {
                IN_USE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

/// Marks the counting allocator as installed and counting (call once, first thing in
/// `main`). Before this, [`counting`] is false and [`Share::over`] never answers true.
pub fn start_counting() {
    COUNTING.store(true, Ordering::Relaxed);
}

/// Whether allocations are counted in this process.
pub fn counting() -> bool {
    COUNTING.load(Ordering::Relaxed)
}

/// Bytes of heap in use now (0 when not [`counting`]).
pub fn in_use() -> usize {
    IN_USE.load(Ordering::Relaxed)
}

/// Most bytes of heap in use at once so far.
pub fn peak() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Sets the process budget (bytes of heap), and the hard ceiling above it at which the
/// allocator ends the process: the budget plus an eighth, at least 64 MiB more.
pub fn set_budget(bytes: u64) {
    let b = usize::try_from(bytes).unwrap_or(usize::MAX);
    BUDGET.store(b, Ordering::Relaxed);
    let slack = (b / 8).max(64 << 20);
    CEILING.store(b.saturating_add(slack), Ordering::Relaxed);
}

/// The process budget in bytes (`u64::MAX` when none was set).
pub fn budget() -> u64 {
    BUDGET.load(Ordering::Relaxed) as u64
}

/// The process budget, or [`default_budget`] where none was set (a front end run as a
/// library, without the binary's `--memory-budget`).
pub fn budget_or_default() -> u64 {
    match budget() {
        u64::MAX => default_budget(),
        b => b,
    }
}

/// The default budget: 80% of the memory the system says is available (`MemAvailable` of
/// /proc/meminfo), or 4 GiB where that cannot be read.
pub fn default_budget() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemAvailable:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map(|kb| kb * 1024 / 5 * 4)
        .unwrap_or(4 << 30)
}

/// A limit passed: which, and how much was in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OverBudget {
    /// The limit in bytes: the process budget, or a share of it.
    pub limit: u64,
    /// Bytes in use (of the share, or of the process) when it was noticed.
    pub used: u64,
    /// Whether the limit is a share of the budget (one request's), not the whole budget.
    pub share: bool,
}

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.share {
            write!(
                f,
                "stopped at this request's memory share of {} (the server's --memory-budget divided among the solves it runs at once)",
                human_bytes(self.limit)
            )
        } else {
            write!(
                f,
                "stopped at the memory budget of {} (raise it with --memory-budget SIZE, e.g. --memory-budget 16G)",
                human_bytes(self.limit)
            )
        }
    }
}

/// The limit of one piece of work: the process budget, or a share of it counted from what
/// was in use when the work began. Cheap to copy and to ask ([`Share::over`]: two loads).
#[derive(Clone, Copy, Debug)]
pub struct Share {
    /// Bytes in use when the work began.
    base: usize,
    /// Bytes the work may add (`usize::MAX`: no share, only the budget).
    bytes: usize,
}

impl Share {
    /// The whole process budget, no share.
    pub fn whole() -> Share {
        Share {
            base: 0,
            bytes: usize::MAX,
        }
    }

    /// A share of `bytes` more than is in use now.
    pub fn of(bytes: u64) -> Share {
        Share {
            base: in_use(),
            bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
        }
    }

    /// Whether the work has passed its share or the process its budget (never, when
    /// allocations are not counted).
    #[inline]
    pub fn over(&self) -> bool {
        let now = IN_USE.load(Ordering::Relaxed);
        now > BUDGET.load(Ordering::Relaxed) || now.saturating_sub(self.base) > self.bytes
    }

    /// What was passed, for the message (call after [`Share::over`] answered true).
    pub fn report(&self) -> OverBudget {
        let now = in_use();
        let budget = BUDGET.load(Ordering::Relaxed);
        if now > budget || self.bytes == usize::MAX {
            OverBudget {
                limit: budget as u64,
                used: now as u64,
                share: false,
            }
        } else {
            OverBudget {
                limit: self.bytes as u64,
                used: now.saturating_sub(self.base) as u64,
                share: true,
            }
        }
    }

    /// `Err` when over the limit (see [`Share::over`]).
    pub fn check(&self) -> Result<(), OverBudget> {
        if self.over() {
            Err(self.report())
        } else {
            Ok(())
        }
    }

    /// Bytes the work may still add before it passes its share or the budget.
    pub fn room(&self) -> u64 {
        let now = in_use();
        let budget = BUDGET.load(Ordering::Relaxed);
        let by_budget = budget.saturating_sub(now);
        let by_share = self.bytes.saturating_sub(now.saturating_sub(self.base));
        by_budget.min(by_share) as u64
    }
}

/// Gives the memory freed since the last call back to the system where the allocator keeps
/// it (glibc's `malloc_trim`: freed pages of every arena), so a server's resident size goes
/// back down after a large request. Does nothing on other systems.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks and trims the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Makes the allocator give freed memory back to the system promptly, for a long-running
/// server: blocks from 256 KiB are mapped on their own (and unmapped when freed), and the
/// free top of every arena is returned past 256 KiB. glibc otherwise raises both thresholds
/// as large blocks come and go (up to 32 and 64 MiB), and a server would keep that much of
/// freed memory per arena after a heavy request. Does nothing on other systems.
pub fn return_memory_promptly() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's tuning parameters.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 10);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 10);
    }
}

/// `bytes` as `512.0 MiB`, `3.2 GiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// A size like `512M`, `8G`, `1T` or `65536` (bytes; suffixes K, M, G, T are powers of 1024,
/// an optional `B` or `iB` after them is allowed). The error says what was expected.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    if digits.is_empty() {
        return Err(format!("expected a size like 512M or 8G, found '{t}'"));
    }
    let shift = match suffix.trim_start().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => {
            return Err(format!(
                "unknown size suffix '{suffix}' in '{t}' (use K, M, G or T)"
            ))
        }
    };
    let too_large = || format!("size '{t}' is too large (at most 16777215T, 2^64 − 1 bytes)");
    let v: u64 = digits.parse().map_err(|_| too_large())?;
    v.checked_shl(shift)
        .filter(|x| x >> shift == v)
        .ok_or_else(too_large)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("8g"), Ok(8 << 30));
        assert_eq!(parse_size("1KiB"), Ok(1024));
        assert_eq!(parse_size("2GB"), Ok(2 << 30));
        assert_eq!(parse_size(" 100 "), Ok(100));
        assert!(parse_size("lots").unwrap_err().contains("expected a size"));
        assert!(parse_size("5X").unwrap_err().contains("unknown size suffix"));
        assert!(parse_size("99999999999T").unwrap_err().contains("too large"));
        assert!(parse_size("").is_err());
        assert!(parse_size("-1").is_err());
    }

    #[test]
    fn without_the_allocator_nothing_is_over() {
        // Library tests do not install the counting allocator: nothing is counted.
        assert!(!counting());
        assert!(!Share::whole().over());
        assert!(!Share::of(0).over());
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(10), "10 B");
    }
}
