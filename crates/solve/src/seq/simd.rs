//! The SIMD kernels of the sequence engine: the one place of it that runs instructions the
//! CPU may lack, and the one place of it with `unsafe` for them.
//!
//! Every function here is safe. Each fast kernel has a portable twin in plain Rust with the
//! same results, and the tests check one against the other:
//!
//! | fast kernel                 | needs                                | portable twin             |
//! |-----------------------------|--------------------------------------|---------------------------|
//! | [`pack_bytes_avx2`]         | AVX2                                 | [`pack_bytes_portable`]   |
//! | [`unpack_bits_avx2`]        | AVX2                                 | [`unpack_bits_portable`]  |
//! | [`or_rare_avx2`]            | AVX2                                 | [`or_rare_portable`]      |
//! | [`witness`]                 | AVX-512 F, BW, VBMI, VBMI2, POPCNT   | [`witness_portable`]      |
//! | [`witness_window`]          | AVX-512 F, BW, VBMI, VBMI2, POPCNT,  | `witness_window_portable` |
//! |                             | or AVX2 (windows of 256 values)      |                           |
//! | [`with_avx2`] (any code)    | AVX2                                 | the same code without it  |
//!
//! What the CPU has is a [`Cpu`] value, detected once per process ([`Cpu::detect`]) and held
//! by the engine; [`Cpu::PORTABLE`] turns every fast kernel off (tests and benchmarks of the
//! portable code). The fast kernels take a token, [`Avx2`], [`TargetIsa`] or [`WindowIsa`],
//! that only a detected [`Cpu`] hands out: that is the one invariant every `unsafe` block
//! here relies on (a token exists only when the CPU has its features). The dispatching functions
//! ([`pack_bytes`], [`unpack_bits`], [`or_rare`], [`with_avx2`]) take the [`Cpu`] or the
//! token and choose; no caller detects anything itself.
//!
//! Off x86-64 the tokens cannot be made (their proof type has no value), so the fast paths
//! are dead code there and the portable twins always run.
//!
//! The tests of a fast kernel are ignored, with the reason, when the build machine lacks its
//! features: stable Rust cannot ignore a test at run time, so `build.rs` detects the build
//! machine's features and sets `has_avx2` and `has_avx512_vbmi`. That build-time detection
//! only decides which tests are ignored; the engine itself still detects at run time
//! ([`Cpu::detect`]).

use super::sparse::Rare;

/// The proof inside a token that its features were detected. Off x86-64 it has no value.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
struct Detected;
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
enum Detected {}

/// Proof that the CPU has AVX2 (made only by [`Cpu::avx2`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(Detected);

/// Proof that the CPU has what the targeted scan needs: AVX-512 F, BW, VBMI and VBMI2, AVX2
/// and POPCNT (made only by [`Cpu::targeted`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TargetIsa(Detected);

impl TargetIsa {
    /// The CPU has AVX2 too.
    #[inline(always)]
    pub(crate) fn avx2(self) -> Avx2 {
        Avx2(self.0)
    }
}

/// Proof that the CPU can run the windowed scan of the dense path ([`witness_window`]), and
/// with which instructions: AVX-512 VBMI looks up windows of 2048 values, AVX2 windows of
/// 256 (made only by [`Cpu::window`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum WindowIsa {
    /// AVX-512 F, BW, VBMI, VBMI2 and POPCNT: a table of 256 bytes in four registers.
    Avx512(TargetIsa),
    /// AVX2 only: a table of 32 bytes looked up by byte shuffles.
    Avx2(Avx2),
}

impl WindowIsa {
    /// The values of a window: the targets lie below `values() − 64` (the last 64 are left
    /// to the next window, see [`witness_window`]).
    #[inline(always)]
    pub(crate) fn values(self) -> usize {
        match self {
            WindowIsa::Avx512(_) => WINDOW_VALUES,
            WindowIsa::Avx2(_) => AVX2_WINDOW_VALUES,
        }
    }

    /// The CPU has AVX2 (both kinds do).
    #[inline(always)]
    pub(crate) fn avx2(self) -> Avx2 {
        match self {
            WindowIsa::Avx512(t) => t.avx2(),
            WindowIsa::Avx2(a) => a,
        }
    }
}

/// The SIMD instructions the sequence engine may use: what the CPU has, or less. The fields
/// are private: a `Cpu` that claims a feature comes from [`Cpu::detect`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cpu {
    avx2: bool,
    targeted: bool,
}

impl Cpu {
    /// No SIMD instructions at all: every kernel takes its portable twin.
    pub(crate) const PORTABLE: Cpu = Cpu {
        avx2: false,
        targeted: false,
    };

    /// What this CPU has, detected on the first call and cached.
    pub(crate) fn detect() -> Cpu {
        static CPU: std::sync::OnceLock<Cpu> = std::sync::OnceLock::new();
        *CPU.get_or_init(Cpu::detect_now)
    }

    #[cfg(target_arch = "x86_64")]
    fn detect_now() -> Cpu {
        let avx2 = std::arch::is_x86_feature_detected!("avx2");
        let targeted = avx2
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("avx512vbmi2")
            && std::arch::is_x86_feature_detected!("popcnt");
        Cpu { avx2, targeted }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn detect_now() -> Cpu {
        Cpu::PORTABLE
    }

    /// The AVX2 token, when AVX2 may be used.
    #[inline(always)]
    pub(crate) fn avx2(self) -> Option<Avx2> {
        #[cfg(target_arch = "x86_64")]
        {
            self.avx2.then_some(Avx2(Detected))
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            None
        }
    }

    /// The token of the targeted scan's instructions, when they may be used.
    #[inline(always)]
    pub(crate) fn targeted(self) -> Option<TargetIsa> {
        #[cfg(target_arch = "x86_64")]
        {
            self.targeted.then_some(TargetIsa(Detected))
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            None
        }
    }

    /// The token of the dense path's windowed scan: AVX-512 VBMI where the CPU has it, else
    /// AVX2, else none (the dense path then marks every pair).
    #[inline(always)]
    pub(crate) fn window(self) -> Option<WindowIsa> {
        match (self.targeted(), self.avx2()) {
            (Some(t), _) => Some(WindowIsa::Avx512(t)),
            (None, Some(a)) => Some(WindowIsa::Avx2(a)),
            (None, None) => None,
        }
    }

    /// This CPU without its AVX-512 kernels (AVX2 and the portable code only): for tests of
    /// the AVX2 kernels on a CPU that has both.
    #[cfg(test)]
    pub(crate) fn without_avx512(self) -> Cpu {
        Cpu {
            avx2: self.avx2,
            targeted: false,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Code compiled for AVX2.

/// Code that [`with_avx2`] compiles a second time with AVX2 enabled (so the compiler may
/// vectorise it with AVX2 instructions, e.g. 8-lane variable shifts). `run` must be
/// `#[inline(always)]`, with what it calls in the hot path: only code inlined into the
/// AVX2 function is compiled for AVX2.
pub(crate) trait Avx2Code {
    /// What the code returns.
    type Output;
    /// Runs the code; `avx2` is the token inside the AVX2 copy, `None` in the portable one.
    fn run(self, avx2: Option<Avx2>) -> Self::Output;
}

/// Runs `code` compiled for AVX2 when `cpu` has it, else its portable copy.
#[inline(always)]
pub(crate) fn with_avx2<C: Avx2Code>(cpu: Cpu, code: C) -> C::Output {
    match cpu.avx2() {
        Some(t) => run_avx2(t, code),
        None => code.run(None),
    }
}

/// Runs `code` compiled for AVX2.
#[inline(always)]
#[allow(unsafe_code)]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
fn run_avx2<C: Avx2Code>(t: Avx2, code: C) -> C::Output {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the token `t` exists only when the CPU has AVX2 (`Cpu::avx2`).
        unsafe { compiled_for_avx2(t, code) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    match t.0 {}
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn compiled_for_avx2<C: Avx2Code>(t: Avx2, code: C) -> C::Output {
    code.run(Some(t))
}

// ---------------------------------------------------------------------------------------
// Option sets between bytes and bits (the two-thread pipeline, the targeted scan).

/// Bit i of `out[w]` is set when byte 64w + i of `bytes` is not zero, with AVX2 when `cpu`
/// has it.
#[inline(always)]
pub(crate) fn pack_bytes(cpu: Cpu, bytes: &[u8], out: &mut [u64]) {
    match cpu.avx2() {
        Some(t) => pack_bytes_avx2(t, bytes, out),
        None => pack_bytes_portable(bytes, out),
    }
}

/// [`pack_bytes`] in plain Rust.
pub(crate) fn pack_bytes_portable(bytes: &[u8], out: &mut [u64]) {
    for (w, chunk) in out.iter_mut().zip(bytes.chunks_exact(64)) {
        *w = chunk
            .iter()
            .enumerate()
            .fold(0, |acc, (i, &b)| acc | ((b != 0) as u64) << i);
    }
}

/// [`pack_bytes`] with AVX2.
#[inline(always)]
#[allow(unsafe_code)]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
pub(crate) fn pack_bytes_avx2(t: Avx2, bytes: &[u8], out: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    {
        let _ = t;
        // SAFETY: the token `t` exists only when the CPU has AVX2 (`Cpu::avx2`).
        unsafe { x86::pack_bytes(bytes, out) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    match t.0 {}
}

/// Byte 64w + i of `bytes` is 1 when bit i of `bits[w]` is set, 0 otherwise, with AVX2 when
/// `cpu` has it.
#[inline(always)]
pub(crate) fn unpack_bits(cpu: Cpu, bits: &[u64], bytes: &mut [u8]) {
    match cpu.avx2() {
        Some(t) => unpack_bits_avx2(t, bits, bytes),
        None => unpack_bits_portable(bits, bytes),
    }
}

/// [`unpack_bits`] in plain Rust.
pub(crate) fn unpack_bits_portable(bits: &[u64], bytes: &mut [u8]) {
    for (&w, chunk) in bits.iter().zip(bytes.chunks_exact_mut(64)) {
        for (i, b) in chunk.iter_mut().enumerate() {
            *b = (w >> i & 1) as u8;
        }
    }
}

/// [`unpack_bits`] with AVX2.
#[inline(always)]
#[allow(unsafe_code)]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
pub(crate) fn unpack_bits_avx2(t: Avx2, bits: &[u64], bytes: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        let _ = t;
        // SAFETY: the token `t` exists only when the CPU has AVX2 (`Cpu::avx2`).
        unsafe { x86::unpack_bits(bits, bytes) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    match t.0 {}
}

// ---------------------------------------------------------------------------------------
// The rare pass of a batch while every value is below 32 (one-word option sets).

/// ORs `1 << (G(a) ^ G(m0 + j − a))` into `words[j]` for the rare heaps (a, G(a)) of
/// `rare`, `settled` holding the other heaps (`G(m0 + j − a)` is `settled[m0 − a + j]`),
/// with AVX2 when `avx2` is the token. Every value must be below 32 (the twins differ on
/// larger XORs: the portable one shifts by the XOR modulo 32, the AVX2 one to nothing), and
/// every heap of `rare` must have its 8 cells in `settled` (as those of a rare pass do); a
/// heap that has not is skipped by the portable twin, but marks wrong values with AVX2
/// (never reading outside `settled`), and fails a debug assertion.
#[inline(always)]
pub(crate) fn or_rare(avx2: Option<Avx2>, words: &mut [u32; 8], rare: &[Rare], m0: usize, settled: &[u16]) {
    match avx2 {
        Some(t) => or_rare_avx2(t, words, rare, m0, settled),
        None => or_rare_portable(words, rare, m0, settled),
    }
}

/// [`or_rare`] in plain Rust.
#[inline(always)]
pub(crate) fn or_rare_portable(words: &mut [u32; 8], rare: &[Rare], m0: usize, settled: &[u16]) {
    for &r in rare {
        let (base, ga) = (m0 - r.heap(), r.value() as u32);
        if let Some(w) = settled.get(base..base + 8) {
            for l in 0..8 {
                words[l] |= 1u32 << ((w[l] as u32 ^ ga) & 31);
            }
        }
    }
}

/// [`or_rare`] with AVX2: the 8 words in one register, 8 shifts in one instruction.
#[inline(always)]
#[allow(unsafe_code)]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
pub(crate) fn or_rare_avx2(t: Avx2, words: &mut [u32; 8], rare: &[Rare], m0: usize, settled: &[u16]) {
    #[cfg(target_arch = "x86_64")]
    {
        let _ = t;
        // SAFETY: the token `t` exists only when the CPU has AVX2 (`Cpu::avx2`).
        unsafe { x86::or_rare(words, rare, m0, settled) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    match t.0 {}
}

// ---------------------------------------------------------------------------------------
// The targeted scan (see `seq/targeted.rs`).

/// The most values the table of targets holds (values below 512): a table is 64 bytes, one
/// 512-bit register.
pub(crate) const TARGET_VALUES: usize = 512;

/// A table of targets: value v is a target when bit v % 8 of byte v / 8 is set.
pub(crate) type Targets = [u8; TARGET_VALUES / 8];

/// Crosses off the targets that the pairs (`low[p]`, `high[half − 1 − p]`) for p in
/// `from..to` witness (`half = low.len() = high.len()`), stopping early when none is left;
/// returns where it stopped. With AVX-512: the whole blocks of 32 pairs, 8 blocks at a time,
/// a byte permute looking up 32 pairs in the table, then the rest one by one.
///
/// The targets left are those of [`witness_portable`]; where it stops may differ (this one
/// stops after the blocks that crossed off the last target, the twin after that pair).
#[inline(always)]
pub(crate) fn witness(
    isa: TargetIsa,
    targets: &mut Targets,
    low: &[u16],
    high: &[u16],
    from: usize,
    to: usize,
) -> usize {
    witness_kernel(isa, targets, low, high, from, to)
}

/// The values a window of the dense scan holds ([`witness_window`]): 2048, a table of 256
/// bytes, four 512-bit registers.
pub(crate) const WINDOW_VALUES: usize = 2048;

/// A window of targets: value base + v is a target when bit v % 8 of byte v / 8 is set.
pub(crate) type Window = [u8; WINDOW_VALUES / 8];

/// The values a window of the AVX2 windowed scan holds: 256, a table of 32 bytes.
pub(crate) const AVX2_WINDOW_VALUES: usize = 256;

/// [`witness`] for targets in the window `base..base + isa.values()` ([`Window`], of which
/// the AVX2 kernel reads the first 32 bytes), for the dense scan (see `seq/dense.rs`), whose
/// values pass 512. With AVX-512 VBMI two two-table byte permutes look up 32 pairs at once;
/// with AVX2, three byte shuffles (two 16-byte tables, then the bit). `base + isa.values()`
/// must be at most 2^16, the last byte of the window's table 0 (values outside the window
/// look it up), and no target at or past `isa.values()`. The AVX2 kernel reads the high
/// values in pair order, `rev` (`rev[i] == high[high.len() − 1 − i]`, as long as `low`; the
/// dense path keeps them in a mirror of its cells); the AVX-512 kernel reverses `high`
/// itself (`rev` may be empty).
#[inline(always)]
#[allow(unsafe_code, clippy::too_many_arguments)]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
pub(crate) fn witness_window(
    isa: WindowIsa,
    base: u16,
    targets: &mut Window,
    low: &[u16],
    high: &[u16],
    rev: &[u16],
    from: usize,
    to: usize,
) -> usize {
    debug_assert!(
        base as usize + isa.values() <= 1 << 16 && targets[isa.values() / 8 - 1..].iter().all(|&t| t == 0)
    );
    #[cfg(target_arch = "x86_64")]
    {
        let i = match isa {
            // SAFETY: the token exists only when the CPU has AVX-512 F, BW, VBMI, VBMI2 and
            // POPCNT (`Cpu::targeted`).
            WindowIsa::Avx512(_) => unsafe { x86::witness_window_blocks(base, targets, low, high, from, to) },
            // SAFETY: the token exists only when the CPU has AVX2 (`Cpu::avx2`).
            WindowIsa::Avx2(_) => unsafe { x86::witness_window_avx2(base, targets, low, rev, from, to) },
        };
        witness_one_by_one(base, targets, low, high, i, to)
    }
    #[cfg(not(target_arch = "x86_64"))]
    match isa {
        WindowIsa::Avx512(t) => match t.0 {},
        WindowIsa::Avx2(a) => match a.0 {},
    }
}

/// [`witness`] with its token.
#[inline(always)]
#[allow(unsafe_code)]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
fn witness_kernel(
    isa: TargetIsa,
    targets: &mut Targets,
    low: &[u16],
    high: &[u16],
    from: usize,
    to: usize,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let _ = isa;
        // SAFETY: the token `isa` exists only when the CPU has AVX-512 F, BW, VBMI, VBMI2 and
        // POPCNT (`Cpu::targeted`).
        let i = unsafe { x86::witness_blocks(targets, low, high, from, to) };
        witness_one_by_one(0, targets, low, high, i, to)
    }
    #[cfg(not(target_arch = "x86_64"))]
    match isa.0 {}
}

/// [`witness`] in plain Rust. The engine does not call it: without AVX-512 VBMI the marking
/// scan is faster; it is the reference the fast kernel is tested against.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn witness_portable(
    targets: &mut Targets,
    low: &[u16],
    high: &[u16],
    from: usize,
    to: usize,
) -> usize {
    witness_one_by_one(0, targets, low, high, from, to)
}

/// [`witness_window`] in plain Rust (the reference it is tested against).
#[cfg(test)]
pub(crate) fn witness_window_portable(
    base: u16,
    targets: &mut Window,
    low: &[u16],
    high: &[u16],
    from: usize,
    to: usize,
) -> usize {
    witness_one_by_one(base, targets, low, high, from, to)
}

/// [`witness_window`] one pair at a time (`base` 0: [`witness`]).
#[inline(always)]
fn witness_one_by_one(
    base: u16,
    targets: &mut [u8],
    low: &[u16],
    high: &[u16],
    from: usize,
    to: usize,
) -> usize {
    let half = low.len();
    let mut i = from;
    while i < to {
        let v = (low[i] ^ high[half - 1 - i]).wrapping_sub(base) as usize;
        if let Some(t) = targets.get_mut(v >> 3) {
            *t &= !(1 << (v & 7));
        }
        i += 1;
        if targets.iter().all(|&t| t == 0) {
            break;
        }
    }
    i
}

/// The fast kernels themselves: `#[target_feature]` functions, to be called only where the
/// CPU has the features (the safe wrappers above check the token).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Rare, Targets, Window, AVX2_WINDOW_VALUES, TARGET_VALUES, WINDOW_VALUES};
    use std::arch::x86_64::*;

    /// Pairs looked up at once by `witness`.
    const LANES: usize = 32;

    /// Blocks of [`LANES`] pairs looked up with one table, before the targets they witnessed
    /// are crossed off (the lookups do not wait for each other, and one branch serves them
    /// all).
    const BLOCKS: usize = 8;

    #[target_feature(enable = "avx2")]
    #[allow(unsafe_code)]
    pub(super) fn pack_bytes(bytes: &[u8], out: &mut [u64]) {
        let zero = _mm256_setzero_si256();
        for (w, chunk) in out.iter_mut().zip(bytes.chunks_exact(64)) {
            // SAFETY: the chunk has 64 bytes: two unaligned loads of 32.
            let (lo, hi) = unsafe {
                (
                    _mm256_loadu_si256(chunk.as_ptr().cast()),
                    _mm256_loadu_si256(chunk.as_ptr().add(32).cast()),
                )
            };
            // Bytes equal to zero, inverted.
            let zl = _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, zero)) as u32;
            let zh = _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, zero)) as u32;
            *w = !((zh as u64) << 32 | zl as u64);
        }
    }

    #[target_feature(enable = "avx2")]
    #[allow(unsafe_code)]
    pub(super) fn unpack_bits(bits: &[u64], bytes: &mut [u8]) {
        // Byte i of the 32 takes byte i / 8 of the 32-bit mask (the shuffle works within each
        // 128-bit half: the low half reads bytes 0 and 1, the high half bytes 2 and 3), then
        // keeps bit i % 8.
        let spread = _mm256_setr_epi8(
            0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
        );
        let select = _mm256_set1_epi64x(0x8040_2010_0804_0201u64 as i64);
        let one = _mm256_set1_epi8(1);
        for (&w, chunk) in bits.iter().zip(bytes.chunks_exact_mut(64)) {
            for (half, m) in [w as u32, (w >> 32) as u32].into_iter().enumerate() {
                let v = _mm256_shuffle_epi8(_mm256_set1_epi32(m as i32), spread);
                let set = _mm256_cmpeq_epi8(_mm256_and_si256(v, select), select);
                // SAFETY: the chunk has 64 bytes; this stores 32 at offset 0 or 32.
                unsafe {
                    _mm256_storeu_si256(
                        chunk.as_mut_ptr().add(32 * half).cast(),
                        _mm256_and_si256(set, one),
                    )
                };
            }
        }
    }

    #[target_feature(enable = "avx2")]
    #[allow(unsafe_code)]
    pub(super) fn or_rare(words: &mut [u32; 8], rare: &[Rare], m0: usize, settled: &[u16]) {
        // SAFETY: `[u32; 8]` and `__m256i` have the same size, and any bits are valid for both.
        let mut acc: __m256i = unsafe { std::mem::transmute(*words) };
        let ones = _mm256_set1_epi32(1);
        let Some(last) = settled.len().checked_sub(8) else {
            return;
        };
        for &r in rare {
            let (a, ga) = (r.heap(), r.value() as u32);
            // The heaps of a rare pass have their 8 cells settled: m0 − a ≤ last (finding
            // that run here again, two binary searches a batch, cost more than the checks
            // save). The clamp keeps the load in the slice whatever the list holds, without
            // a bounds check in the loop (which kept the accumulator on the stack, every OR
            // waiting for the store before it).
            debug_assert!(a <= m0 && m0 - a <= last);
            let base = m0.wrapping_sub(a).min(last);
            // SAFETY: base ≤ settled.len() − 8: the unaligned load reads 8 u16 of the slice.
            let v = unsafe { _mm_loadu_si128(settled.as_ptr().add(base).cast()) };
            let x = _mm256_xor_si256(_mm256_cvtepu16_epi32(v), _mm256_set1_epi32(ga as i32));
            acc = _mm256_or_si256(acc, _mm256_sllv_epi32(ones, x));
        }
        // SAFETY: as above, `__m256i` and `[u32; 8]` have the same size and no invalid bits.
        *words = unsafe { std::mem::transmute::<__m256i, [u32; 8]>(acc) };
    }

    /// The whole blocks of [`LANES`] pairs of `witness`, [`BLOCKS`] at a time: returns where
    /// it stopped (after the blocks that crossed off the last target, or where fewer than
    /// [`LANES`] pairs are left).
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt")]
    #[allow(unsafe_code)]
    pub(super) fn witness_blocks(
        targets: &mut Targets,
        low: &[u16],
        high: &[u16],
        from: usize,
        to: usize,
    ) -> usize {
        let half = low.len();
        // Lane l takes lane 31 − l: the high heaps run backwards.
        let reverse = _mm512_set_epi16(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
            27, 28, 29, 30, 31,
        );
        let seven = _mm512_set1_epi16(7);
        let one = _mm512_set1_epi16(1);
        // Values of 512 and more (their byte index v / 8 has bits above the table's 6).
        let big = _mm512_set1_epi16(!(TARGET_VALUES as i16 - 1));
        // The values of the pairs that hit a target, BLOCKS blocks at a time.
        let mut found = [0u16; (BLOCKS + 1) * LANES];
        let whole = to - (to - from) % LANES;
        // SAFETY: the table has 64 bytes.
        let mut table = unsafe { _mm512_loadu_si512(targets.as_ptr().cast()) };
        let mut i = from;
        while i < whole {
            let end = whole.min(i + BLOCKS * LANES);
            let mut count = 0;
            while i < end {
                let xs = &low[i..i + LANES];
                let ys = &high[half - i - LANES..half - i];
                // SAFETY: both slices hold LANES (32) values of 16 bits: one 64-byte load each.
                let (x, y) = unsafe {
                    (
                        _mm512_loadu_si512(xs.as_ptr().cast()),
                        _mm512_loadu_si512(ys.as_ptr().cast()),
                    )
                };
                let v = _mm512_xor_si512(x, _mm512_permutexvar_epi16(reverse, y));
                // The byte v / 8 of the table (the permute reads the low 6 bits of each byte:
                // the low byte of a 16-bit lane holds v / 8 for v < 512), then its bit v % 8.
                let byte = _mm512_permutexvar_epi8(_mm512_srli_epi16(v, 3), table);
                let bit = _mm512_srlv_epi16(byte, _mm512_and_si512(v, seven));
                let hits = _mm512_test_epi16_mask(bit, one) & !_mm512_test_epi16_mask(v, big);
                // The values that hit, one after the other (count ≤ (BLOCKS − 1) · LANES here).
                let out = &mut found[count..count + LANES];
                // SAFETY: `out` holds LANES (32) values of 16 bits: one 64-byte store.
                unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), _mm512_maskz_compress_epi16(hits, v)) };
                count += hits.count_ones() as usize;
                i += LANES;
            }
            if count > 0 {
                for &v in &found[..count] {
                    targets[(v >> 3) as usize & (TARGET_VALUES / 8 - 1)] &= !(1 << (v & 7));
                }
                // SAFETY: the table has 64 bytes.
                table = unsafe { _mm512_loadu_si512(targets.as_ptr().cast()) };
                if _mm512_test_epi64_mask(table, table) == 0 {
                    break;
                }
            }
        }
        i
    }
    /// The whole blocks of [`LANES`] pairs of `witness_window`, [`BLOCKS`] at a time, as
    /// [`witness_blocks`] with a table of 256 bytes in four registers: the byte (v − base) / 8
    /// from the low or the high 128 bytes (one two-table permute each), chosen by bit 7 of
    /// its place.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt")]
    #[allow(unsafe_code)]
    pub(super) fn witness_window_blocks(
        base: u16,
        targets: &mut Window,
        low: &[u16],
        high: &[u16],
        from: usize,
        to: usize,
    ) -> usize {
        let half = low.len();
        let reverse = _mm512_set_epi16(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
            27, 28, 29, 30, 31,
        );
        let seven = _mm512_set1_epi16(7);
        let one = _mm512_set1_epi16(1);
        let start = _mm512_set1_epi16(base as i16);
        let last = _mm512_set1_epi16(WINDOW_VALUES as i16 / 8 - 1);
        let mut found = [0u16; (BLOCKS + 1) * LANES];
        let whole = to - (to - from) % LANES;
        // Four 64-byte loads of the 256-byte table.
        macro_rules! load {
            ($t:expr) => {
                // SAFETY: the table has 256 bytes: four 64-byte loads.
                unsafe {
                    [
                        _mm512_loadu_si512($t.as_ptr().cast()),
                        _mm512_loadu_si512($t.as_ptr().add(64).cast()),
                        _mm512_loadu_si512($t.as_ptr().add(128).cast()),
                        _mm512_loadu_si512($t.as_ptr().add(192).cast()),
                    ]
                }
            };
        }
        let mut table = load!(targets);
        let mut i = from;
        while i < whole {
            let end = whole.min(i + BLOCKS * LANES);
            let mut count = 0;
            while i < end {
                let xs = &low[i..i + LANES];
                let ys = &high[half - i - LANES..half - i];
                // SAFETY: both slices hold LANES (32) values of 16 bits: one 64-byte load each.
                let (x, y) = unsafe {
                    (
                        _mm512_loadu_si512(xs.as_ptr().cast()),
                        _mm512_loadu_si512(ys.as_ptr().cast()),
                    )
                };
                let v = _mm512_xor_si512(x, _mm512_permutexvar_epi16(reverse, y));
                let w = _mm512_sub_epi16(v, start);
                // The byte w / 8, its place capped at 255 (a byte that is 0): places of 2048
                // and more (values below the window wrap round to 2^16 − ...) witness nothing.
                let idx = _mm512_min_epu16(_mm512_srli_epi16(w, 3), last);
                let lo = _mm512_permutex2var_epi8(table[0], idx, table[1]);
                let hi = _mm512_permutex2var_epi8(table[2], idx, table[3]);
                // Bit 7 of the place (the top bit of the lane's low byte) picks the half.
                let byte = _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), lo, hi);
                let bit = _mm512_srlv_epi16(byte, _mm512_and_si512(w, seven));
                let hits = _mm512_test_epi16_mask(bit, one);
                // Stored whether or not a lane hit (nothing is counted then): on a dense
                // game many steps hit while the window still holds many targets, and a
                // branch on it mispredicted (1.3x the time of 0.114, 0.135 and 0.342 to
                // 2^18; a first pass ORing the hits, the block done again where any hit,
                // gained 1.1x only).
                let out = &mut found[count..count + LANES];
                // SAFETY: `out` holds LANES (32) values of 16 bits: one 64-byte store.
                unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), _mm512_maskz_compress_epi16(hits, w)) };
                count += hits.count_ones() as usize;
                i += LANES;
            }
            if count > 0 {
                for &w in &found[..count] {
                    targets[(w >> 3) as usize & (WINDOW_VALUES / 8 - 1)] &= !(1 << (w & 7));
                }
                table = load!(targets);
                let any = _mm512_or_si512(
                    _mm512_or_si512(table[0], table[1]),
                    _mm512_or_si512(table[2], table[3]),
                );
                if _mm512_test_epi64_mask(any, any) == 0 {
                    break;
                }
            }
        }
        i
    }

    /// The whole steps of 32 pairs of `witness_window` with AVX2, for the window
    /// `base..base + 256` (the first 32 bytes of `targets`): the values v − base of 16 pairs
    /// at a time, capped at 255 (a value that is never a target) and packed to bytes, look up
    /// their byte (v − base) / 8 in two 16-byte tables (a byte shuffle each, one of them
    /// zeroed by the place's range) and test their bit (v − base) % 8. `low[i]` pairs with
    /// `rev[i]` (the high values in pair order: both are read forward, nothing to reverse).
    /// A step that hits crosses its targets off at once, so no target hits twice: a window of
    /// at most 192 targets costs at most 192 such steps. The table is kept in a register and
    /// written back at the end (1.07–1.09× on 0.342 and 0.135, docs/benchmarks.md). Returns
    /// where it stopped (after the step that crossed off the last target, or where fewer
    /// than 32 pairs are left). Panics unless `from <= to <= low.len() == rev.len()`.
    #[target_feature(enable = "avx2")]
    #[allow(unsafe_code)]
    pub(super) fn witness_window_avx2(
        base: u16,
        targets: &mut Window,
        low: &[u16],
        rev: &[u16],
        from: usize,
        to: usize,
    ) -> usize {
        const STEP: usize = 32;
        let half = low.len();
        let start = _mm256_set1_epi16(base as i16);
        let cap = _mm256_set1_epi16(AVX2_WINDOW_VALUES as i16 - 1);
        let low5 = _mm256_set1_epi8(0x1f);
        let seven = _mm256_set1_epi8(7);
        // Places 0..16 plus 0x70 keep their low nibble with bit 7 clear; 16..32 get bit 7
        // (the shuffle gives 0). Minus 16, places 16..32 become 0..16 and 0..16 get bit 7.
        let lift = _mm256_set1_epi8(0x70);
        let sixteen = _mm256_set1_epi8(16);
        let bits = _mm256_setr_epi8(
            1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128, 1, 2,
            4, 8, 16, 32, 64, -128,
        );
        let zero = _mm256_setzero_si256();
        // The table stays in a register while the scan runs: a hit clears its bits there
        // (no byte stores read back by 16-byte loads, which the store buffer cannot forward).
        // SAFETY: the table has 256 bytes: one 32-byte load of its first 32.
        let mut table = unsafe { _mm256_loadu_si256(targets.as_ptr().cast()) };
        let halves = |t: __m256i| {
            (
                _mm256_permute2x128_si256(t, t, 0x00),
                _mm256_permute2x128_si256(t, t, 0x11),
            )
        };
        // Bit w of the table is bit w − 64q of its 64-bit lane q.
        let lane_base = _mm256_setr_epi64x(0, 64, 128, 192);
        let one = _mm256_set1_epi64x(1);
        let (mut t0, mut t1) = halves(table);
        let whole = to - (to - from) % STEP;
        // The loads below stay within both slices: i + 32 <= whole <= to <= half.
        assert!(from <= to && to <= half && rev.len() == half);
        let mut i = from;
        while i < whole {
            // SAFETY: i + 32 <= half (above): 32 values of `low` and of `rev` from i, two
            // 32-byte loads of each.
            let (x0, x1, r0, r1) = unsafe {
                let (xs, ys) = (low.as_ptr().add(i), rev.as_ptr().add(i));
                (
                    _mm256_loadu_si256(xs.cast()),
                    _mm256_loadu_si256(xs.add(16).cast()),
                    _mm256_loadu_si256(ys.cast()),
                    _mm256_loadu_si256(ys.add(16).cast()),
                )
            };
            let w0 = _mm256_min_epu16(_mm256_sub_epi16(_mm256_xor_si256(x0, r0), start), cap);
            let w1 = _mm256_min_epu16(_mm256_sub_epi16(_mm256_xor_si256(x1, r1), start), cap);
            // 32 places of 0..=255 (the order of the lanes does not matter).
            let w = _mm256_packus_epi16(w0, w1);
            let place = _mm256_and_si256(_mm256_srli_epi16(w, 3), low5);
            let byte = _mm256_or_si256(
                _mm256_shuffle_epi8(t0, _mm256_adds_epu8(place, lift)),
                _mm256_shuffle_epi8(t1, _mm256_sub_epi8(place, sixteen)),
            );
            let bit = _mm256_shuffle_epi8(bits, _mm256_and_si256(w, seven));
            let hit = _mm256_and_si256(byte, bit);
            i += STEP;
            if _mm256_testz_si256(hit, hit) == 0 {
                let mut lanes = !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hit, zero)) as u32);
                let mut found = [0u8; 32];
                // SAFETY: `found` has 32 bytes: one 32-byte store.
                unsafe { _mm256_storeu_si256(found.as_mut_ptr().cast(), w) };
                while lanes != 0 {
                    let w = found[lanes.trailing_zeros() as usize];
                    let shift = _mm256_sub_epi64(_mm256_set1_epi64x(w as i64), lane_base);
                    // Shifts of 64 or more (and the negative ones, huge unsigned) give 0.
                    table = _mm256_andnot_si256(_mm256_sllv_epi64(one, shift), table);
                    lanes &= lanes - 1;
                }
                (t0, t1) = halves(table);
                if _mm256_testz_si256(table, table) == 1 {
                    break;
                }
            }
        }
        // SAFETY: as the load above, one 32-byte store.
        unsafe { _mm256_storeu_si256(targets.as_mut_ptr().cast(), table) };
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The AVX2 token: the build machine has AVX2 (the test is not ignored), so this one must
    /// too, or the test would prove nothing.
    fn avx2() -> Avx2 {
        Cpu::detect()
            .avx2()
            .expect("built on a CPU with AVX2, run on one without: the fast path cannot run")
    }

    /// The targeted scan's token, as [`avx2`].
    fn targeted() -> TargetIsa {
        Cpu::detect()
            .targeted()
            .expect("built on a CPU with AVX-512 VBMI, run on one without: the fast path cannot run")
    }

    #[test]
    fn the_portable_cpu_has_no_fast_path() {
        assert!(Cpu::PORTABLE.avx2().is_none());
        assert!(Cpu::PORTABLE.targeted().is_none());
        assert!(Cpu::PORTABLE.window().is_none());
        // Without AVX-512 the windowed scan takes AVX2, where the CPU has it.
        let avx2_only = Cpu::detect().without_avx512();
        assert!(avx2_only.targeted().is_none());
        assert_eq!(
            matches!(avx2_only.window(), Some(WindowIsa::Avx2(_))),
            Cpu::detect().avx2().is_some()
        );
        // Detection is cached: the same value every time.
        assert_eq!(Cpu::detect(), Cpu::detect());
        // The targeted scan's instructions include AVX2.
        assert!(Cpu::detect().targeted().is_none() || Cpu::detect().avx2().is_some());
    }

    /// The targets crossed off by pairs `from..to` one by one, without stopping.
    fn crossed_off(mut targets: Targets, low: &[u16], high: &[u16], from: usize, to: usize) -> Targets {
        let half = low.len();
        for p in from..to {
            let v = (low[p] ^ high[half - 1 - p]) as usize;
            if v < TARGET_VALUES {
                targets[v >> 3] &= !(1 << (v & 7));
            }
        }
        targets
    }

    /// A witness scan's pairs and targets: `(cells, targets, from, to)`, the pairs being
    /// those of `cells` split in two halves.
    fn witness_case() -> impl Strategy<Value = (Vec<u16>, Targets, usize, usize)> {
        (
            proptest::collection::vec(0u16..600, 2..700),
            proptest::collection::vec(0usize..512, 0..80),
            0usize..1000,
            0usize..1000,
        )
            .prop_map(|(cells, picks, cut, start)| {
                let half = cells.len() / 2;
                let to = if half == 0 { 0 } else { cut % (half + 1) };
                let from = if to == 0 { 0 } else { start % (to + 1) };
                let mut targets = [0u8; TARGET_VALUES / 8];
                for &v in &picks {
                    targets[v >> 3] |= 1 << (v & 7);
                }
                (cells, targets, from, to)
            })
    }

    /// A rare pass of [`or_rare`]: `(words, rare, m0, settled)`.
    type OrRareCase = ([u32; 8], Vec<Rare>, usize, Vec<u16>);

    /// A rare pass of [`or_rare`], every value below 32 and every rare heap with its 8 cells
    /// in `settled`.
    fn or_rare_case() -> impl Strategy<Value = OrRareCase> {
        (
            proptest::array::uniform8(any::<u32>()),
            proptest::collection::vec(0u16..32, 8..300),
            0usize..2000,
            proptest::collection::vec((any::<prop::sample::Index>(), 0u32..32), 0..100),
        )
            .prop_map(|(words, settled, m0, picks)| {
                let bases = (settled.len() - 8).min(m0) + 1;
                let rare = picks
                    .into_iter()
                    .map(|(i, g)| Rare::new(m0 - i.index(bases), g as usize))
                    .collect();
                (words, rare, m0, settled)
            })
    }

    proptest! {
        /// Bytes to bits and back, against the meaning of each bit.
        #[test]
        fn portable_packing_round_trips(bytes in proptest::collection::vec(0u8..=1, 64 * 9)) {
            let mut bits = vec![0u64; 9];
            pack_bytes_portable(&bytes, &mut bits);
            for (v, &b) in bytes.iter().enumerate() {
                prop_assert_eq!(bits[v / 64] >> (v % 64) & 1, b as u64);
            }
            let mut back = vec![7u8; 64 * 9];
            unpack_bits_portable(&bits, &mut back);
            prop_assert_eq!(&back, &bytes);
        }

        /// The AVX2 packing against the portable one, both ways (any byte counts as marked).
        #[test]
        #[cfg_attr(not(has_avx2), ignore = "this CPU has no AVX2: the fast path cannot run here")]
        fn avx2_packing_matches_portable(bytes in proptest::collection::vec(prop_oneof![Just(0u8), any::<u8>()], 64 * 9)) {
            let t = avx2();
            let (mut fast, mut plain) = (vec![0u64; 9], vec![0u64; 9]);
            pack_bytes_avx2(t, &bytes, &mut fast);
            pack_bytes_portable(&bytes, &mut plain);
            prop_assert_eq!(&fast, &plain);
            let (mut fast_back, mut plain_back) = (vec![7u8; 64 * 9], vec![9u8; 64 * 9]);
            unpack_bits_avx2(t, &fast, &mut fast_back);
            unpack_bits_portable(&plain, &mut plain_back);
            prop_assert_eq!(&fast_back, &plain_back);
            // And the dispatch takes the fast path with the detected CPU, the twin without.
            let mut via = vec![0u64; 9];
            pack_bytes(Cpu::detect(), &bytes, &mut via);
            prop_assert_eq!(&via, &plain);
            pack_bytes(Cpu::PORTABLE, &bytes, &mut via);
            prop_assert_eq!(&via, &plain);
        }

        /// The portable rare pass against its definition.
        #[test]
        fn portable_or_rare_marks_the_pairs((words, rare, m0, settled) in or_rare_case()) {
            let mut want = words;
            for &r in &rare {
                for (j, w) in want.iter_mut().enumerate() {
                    *w |= 1 << ((u32::from(settled[m0 - r.heap() + j]) ^ r.value() as u32) % 32);
                }
            }
            let mut got = words;
            or_rare_portable(&mut got, &rare, m0, &settled);
            prop_assert_eq!(got, want);
        }

        /// The AVX2 rare pass against the portable one.
        #[test]
        #[cfg_attr(not(has_avx2), ignore = "this CPU has no AVX2: the fast path cannot run here")]
        fn avx2_or_rare_matches_portable((words, rare, m0, settled) in or_rare_case()) {
            let t = avx2();
            let (mut fast, mut plain) = (words, words);
            or_rare_avx2(t, &mut fast, &rare, m0, &settled);
            or_rare_portable(&mut plain, &rare, m0, &settled);
            prop_assert_eq!(fast, plain);
        }

        /// The portable witness scan against crossing off every pair: it may stop early only
        /// when no target is left, and otherwise leaves exactly the targets no pair witnessed.
        #[test]
        fn portable_witness_crosses_off_what_the_pairs_witness((cells, mut targets, from, to) in witness_case()) {
            let half = cells.len() / 2;
            let (low, high) = (&cells[..half], &cells[cells.len() - half..]);
            let want = crossed_off(targets, low, high, from, to);
            let stop = witness_portable(&mut targets, low, high, from, to);
            prop_assert!(stop >= from && stop <= to);
            if stop < to {
                prop_assert_eq!(targets, [0; TARGET_VALUES / 8]);
                prop_assert_eq!(want, [0; TARGET_VALUES / 8]);
            } else {
                prop_assert_eq!(targets, want);
            }
        }

        /// The AVX-512 witness scan against the portable one: the same targets left, it
        /// stops early only when none is left, and never before the portable one.
        #[test]
        #[cfg_attr(not(has_avx512_vbmi), ignore = "this CPU has no AVX-512 VBMI: the fast path cannot run here")]
        fn avx512_witness_matches_portable((cells, targets, from, to) in witness_case()) {
            let isa = targeted();
            let half = cells.len() / 2;
            let (low, high) = (&cells[..half], &cells[cells.len() - half..]);
            let (mut fast, mut plain) = (targets, targets);
            let stop = witness(isa, &mut fast, low, high, from, to);
            let plain_stop = witness_portable(&mut plain, low, high, from, to);
            prop_assert!(stop >= from && stop <= to);
            prop_assert_eq!(fast, plain);
            // The fast scan stops after the block that crossed off the last target: no
            // sooner than its twin, which stops after that pair (so both may not agree on
            // whether they stopped before `to`; the engine reads the targets, not the stop).
            prop_assert!(stop >= plain_stop);
            if stop < to {
                prop_assert_eq!(fast, [0; TARGET_VALUES / 8]);
            }
        }
    }

    /// The windowed scan of `isa` against the portable one and against crossing off every
    /// pair, with targets at `picks` (below the window's values less 8: its last byte stays
    /// 0, the kernel's contract).
    fn window_case(
        isa: WindowIsa,
        cells: &[u16],
        picks: &[usize],
        base: u16,
        cut: usize,
        start: usize,
    ) -> Result<(), TestCaseError> {
        let half = cells.len() / 2;
        let (low, high) = (&cells[..half], &cells[cells.len() - half..]);
        let to = cut % (half + 1);
        let from = if to == 0 { 0 } else { start % (to + 1) };
        let mut targets = [0u8; WINDOW_VALUES / 8];
        for &p in picks {
            let p = p % (isa.values() - 8);
            targets[p >> 3] |= 1 << (p & 7);
        }
        let mut want = targets;
        for p in from..to {
            let v = (low[p] ^ high[half - 1 - p]) as usize;
            if (base as usize..base as usize + WINDOW_VALUES).contains(&v) {
                let w = v - base as usize;
                want[w >> 3] &= !(1 << (w & 7));
            }
        }
        let (mut fast, mut plain) = (targets, targets);
        let rev: Vec<u16> = high.iter().rev().copied().collect();
        let stop = witness_window(isa, base, &mut fast, low, high, &rev, from, to);
        let plain_stop = witness_window_portable(base, &mut plain, low, high, from, to);
        prop_assert_eq!(fast, plain);
        prop_assert!(stop >= plain_stop && stop <= to);
        if stop < to {
            prop_assert_eq!(fast, [0; WINDOW_VALUES / 8]);
        } else {
            prop_assert_eq!(fast, want);
        }
        Ok(())
    }

    proptest! {
        /// The AVX-512 windowed scan against the portable one, values around and past the
        /// window (below it, in it, above it), and against crossing off every pair.
        #[test]
        #[cfg_attr(not(has_avx512_vbmi), ignore = "this CPU has no AVX-512 VBMI: the fast path cannot run here")]
        fn avx512_window_witness_matches_portable(
            cells in proptest::collection::vec(0u16..4096, 2..700),
            picks in proptest::collection::vec(0usize..WINDOW_VALUES, 0..300),
            base in 0u16..3000,
            cut in 0usize..1000,
            start in 0usize..1000,
        ) {
            window_case(WindowIsa::Avx512(targeted()), &cells, &picks, base, cut, start)?;
        }

        /// The AVX2 windowed scan (256 values) against the portable one, as above: values
        /// below, in and above the window (and the cap at 255 of the values past it), few
        /// targets or many.
        #[test]
        #[cfg_attr(not(has_avx2), ignore = "this CPU has no AVX2: the fast path cannot run here")]
        fn avx2_window_witness_matches_portable(
            cells in proptest::collection::vec(0u16..1024, 2..700),
            picks in proptest::collection::vec(0usize..AVX2_WINDOW_VALUES, 0..250),
            base in 0u16..900,
            cut in 0usize..1000,
            start in 0usize..1000,
        ) {
            window_case(WindowIsa::Avx2(avx2()), &cells, &picks, base, cut, start)?;
        }
    }

    /// Marked bytes hold any non-zero value (not only 1): each is one bit.
    #[test]
    fn portable_packing_reads_any_marked_byte() {
        let (bytes, want) = marked_bytes();
        let mut got = 0;
        pack_bytes_portable(&bytes, std::slice::from_mut(&mut got));
        assert_eq!(got, want);
    }

    /// [`portable_packing_reads_any_marked_byte`] with AVX2 (the targeted scan reads option
    /// sets so).
    #[test]
    #[cfg_attr(not(has_avx2), ignore = "this CPU has no AVX2: the fast path cannot run here")]
    fn avx2_packing_reads_any_marked_byte() {
        let (bytes, want) = marked_bytes();
        let mut got = 0;
        pack_bytes_avx2(avx2(), &bytes, std::slice::from_mut(&mut got));
        assert_eq!(got, want);
    }

    fn marked_bytes() -> ([u8; 64], u64) {
        let mut bytes = [0u8; 64];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i % 3 == 0) as u8 * (i as u8 | 1);
        }
        let want = (0..64).filter(|i| i % 3 == 0).fold(0u64, |acc, i| acc | 1 << i);
        (bytes, want)
    }

    /// Code run by [`with_avx2`]: says which copy ran.
    struct Which;

    impl Avx2Code for Which {
        type Output = bool;
        #[inline(always)]
        fn run(self, avx2: Option<Avx2>) -> bool {
            avx2.is_some()
        }
    }

    #[test]
    fn with_avx2_runs_the_portable_copy_without_avx2() {
        assert!(!with_avx2(Cpu::PORTABLE, Which));
    }

    #[test]
    #[cfg_attr(not(has_avx2), ignore = "this CPU has no AVX2: the fast path cannot run here")]
    fn with_avx2_runs_the_avx2_copy_with_avx2() {
        let _ = avx2();
        assert!(with_avx2(Cpu::detect(), Which));
    }
}
