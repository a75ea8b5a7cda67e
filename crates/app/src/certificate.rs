//! Periodicity certificates (`grundy seq CODE --until-period --certificate FILE`): what a
//! proof of a period needs, in the plain format of docs/certificates.md, for the separate
//! checker `grundy verify` (crate `grundy-verify`) to recompute and check.
//!
//! The file holds the game's code, the claim (period, n0, saltus), the theorem that proves
//! it with its parameters and bound, and the values G(0) .. G(bound + p − 1): every value
//! the theorem's hypothesis reads.

use crate::seq::Computed;
use grundy_core::HeapRules;
use grundy_solve::seq::period;
use std::io::Write;
use std::path::Path;

/// Why no certificate was written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No period was proven by the values computed.
    #[error("no period proven up to {0}: no certificate written (raise --count)")]
    NoPeriod(u64),
    /// No periodicity theorem the checker knows applies to the game (unequal splits,
    /// repeating blocks).
    #[error("no periodicity theorem the checker knows applies to {0}: no certificate")]
    NoTheorem(String),
    /// The file could not be written.
    #[error("cannot write certificate {path}: {reason}")]
    Write {
        /// The file.
        path: String,
        /// The I/O error.
        reason: String,
    },
}

/// The theorem line and its bound for the proven `p` of `rules`, whose values `get` reads
/// (the level argument's line names B, which depends on the values of the small heaps).
pub fn theorem_line(
    rules: &HeapRules,
    p: &period::Period,
    get: &dyn Fn(u64) -> u64,
) -> Option<(String, u64)> {
    match rules {
        HeapRules::AllBut(set) => {
            let e = set.last().copied().unwrap_or(0);
            Some((format!("all-but e={e}"), p.n0 + e))
        }
        // An arithmetic period of a take-and-break game, proven by the level argument
        // (grundy_solve::seq::arith, docs/games.md): `level h=H t=T b=B`, 2^B exceeding
        // every level (value / saltus) of a heap below n1 = max(n0, 1); its bound is the
        // argument's `checked_to`.
        HeapRules::TakeBreak { .. } if p.saltus > 0 => {
            let (h, t) = period::theorem(rules)?;
            if !p.saltus.is_power_of_two() {
                return None;
            }
            let m = p.saltus.trailing_zeros();
            let top = (1..p.n0.max(1)).map(|a| get(a) >> m).max().unwrap_or(0);
            let b = (u64::BITS - top.leading_zeros()).max(1);
            Some((format!("level h={h} t={t} b={b}"), p.checked_to))
        }
        _ if p.saltus > 0 => None,
        r => {
            let (h, t) = period::theorem(r)?;
            Some((
                format!("take-and-break h={h} t={t}"),
                period::bound(h, t, p.period, p.n0),
            ))
        }
    }
}

/// Certificates of more values than this are written in version 2: values packed as LEB128
/// varints with an FNV-1a checksum, and a declared rare/common split where one applies.
pub const TEXT_MAX: u64 = 4096;

/// FNV-1a (64 bits), continuing from `h` (the checksum of packed values).
fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// Appends `v` as a LEB128 varint (7 bits a byte, low first, high bit = more follow).
fn varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

/// The `split` line of a version 2 certificate of the first `len` values: for codes
/// leaving at most two heaps, the rare/common split the summary finds (by the heap's
/// parity, or a set of common values), with the number of heaps 1 .. len − 1 it makes rare.
/// `None` for other games or when no split is found (the checker then lists every option).
pub fn split_line(c: &Computed, len: u64) -> Option<String> {
    let rules = c.engine.rules();
    match rules {
        HeapRules::TakeBreak {
            unequal, repeat: 0, ..
        } if unequal.is_empty() && rules.max_parts() <= 2 => {}
        _ => return None,
    }
    let s = c.engine.summary_of(len as usize);
    let parity = |v: u64, m: u64| (v & m).count_ones() as u64 & 1;
    if let Some((mask, alpha)) = s.split_mask {
        let rare = (1..len)
            .filter(|&a| parity(c.get(a), mask) != alpha ^ (a & 1))
            .count();
        return Some(format!("split heap-parity mask={mask} alpha={alpha} rare={rare}"));
    }
    let common = s.common.filter(|c| !c.is_empty())?;
    let rare = (1..len)
        .filter(|&a| common.binary_search(&c.get(a)).is_err())
        .count();
    let list: Vec<String> = common.iter().map(|v| v.to_string()).collect();
    Some(format!("split common {} rare={rare}", list.join(",")))
}

/// Writes the certificate of the period `c` proves to `path` (through a temporary file
/// renamed into place). Returns the number of values written.
pub fn write(path: &Path, c: &Computed) -> Result<u64, Error> {
    let p = c.period.or(c.summary.period).ok_or(Error::NoPeriod(c.count))?;
    let (theorem, bound) = theorem_line(c.engine.rules(), &p, &|i| c.get(i))
        .ok_or_else(|| Error::NoTheorem(c.game.name().to_string()))?;
    let len = bound + p.period;
    let fail = |e: std::io::Error| Error::Write {
        path: path.display().to_string(),
        reason: e.to_string(),
    };
    if len > c.count {
        return Err(Error::NoPeriod(c.count));
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let file = std::fs::File::create(&tmp).map_err(fail)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
    let claim = if p.saltus > 0 {
        "arithmetic-periodic"
    } else {
        "periodic"
    };
    let packed = len > TEXT_MAX;
    write!(
        out,
        "grundy-certificate {}\n# written by grundy {}; check with: grundy verify FILE\ngame {}\nclaim {claim}\nperiod {}\nn0 {}\nsaltus {}\ntheorem {theorem}\nbound {bound}\n",
        if packed { 2 } else { 1 },
        env!("CARGO_PKG_VERSION"),
        c.game.name(),
        p.period,
        p.n0,
        p.saltus
    )
    .map_err(fail)?;
    if packed {
        if let Some(line) = split_line(c, len) {
            writeln!(out, "{line}").map_err(fail)?;
        }
        // First pass: the byte count and the checksum, which the header announces.
        let (mut bytes, mut sum) = (0u64, FNV_START);
        let mut buf = Vec::with_capacity(1 << 16);
        for i in 0..len {
            varint(&mut buf, c.get(i));
            if buf.len() >= (1 << 16) - 8 || i + 1 == len {
                bytes += buf.len() as u64;
                sum = fnv1a(sum, &buf);
                buf.clear();
            }
        }
        writeln!(out, "values {len} varint {bytes} fnv1a64={sum:016x}").map_err(fail)?;
        for i in 0..len {
            varint(&mut buf, c.get(i));
            if buf.len() >= (1 << 16) - 8 || i + 1 == len {
                out.write_all(&buf).map_err(fail)?;
                buf.clear();
            }
        }
        out.write_all(b"\n").map_err(fail)?;
    } else {
        writeln!(out, "values {len}").map_err(fail)?;
        let mut line = String::with_capacity(256);
        for i in 0..len {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&c.get(i).to_string());
            if i % 32 == 31 || i + 1 == len {
                line.push('\n');
                out.write_all(line.as_bytes()).map_err(fail)?;
                line.clear();
            }
        }
    }
    out.write_all(b"end\n").map_err(fail)?;
    let file = out.into_inner().map_err(|e| fail(e.into_error()))?;
    file.sync_all().map_err(fail)?;
    drop(file);
    std::fs::rename(&tmp, path).map_err(fail)?;
    Ok(len)
}
