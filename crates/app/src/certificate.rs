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
    /// No periodicity theorem applies to the game (unequal splits, repeating blocks).
    #[error("no periodicity theorem applies to {0}: no certificate")]
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

/// The theorem line and its bound for the proven `p` of `rules`.
pub fn theorem_line(rules: &HeapRules, p: &period::Period) -> Option<(String, u64)> {
    match rules {
        HeapRules::AllBut(set) => {
            let e = set.last().copied().unwrap_or(0);
            Some((format!("all-but e={e}"), p.n0 + e))
        }
        r => {
            let (h, t) = period::theorem(r)?;
            Some((
                format!("take-and-break h={h} t={t}"),
                period::bound(h, t, p.period, p.n0),
            ))
        }
    }
}

/// Writes the certificate of the period `c` proves to `path` (through a temporary file
/// renamed into place). Returns the number of values written.
pub fn write(path: &Path, c: &Computed) -> Result<u64, Error> {
    let p = c.period.or(c.summary.period).ok_or(Error::NoPeriod(c.count))?;
    let (theorem, bound) =
        theorem_line(c.engine.rules(), &p).ok_or_else(|| Error::NoTheorem(c.game.name().to_string()))?;
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
    write!(
        out,
        "grundy-certificate 1\n# written by grundy {}; check with: grundy verify FILE\ngame {}\nclaim {claim}\nperiod {}\nn0 {}\nsaltus {}\ntheorem {theorem}\nbound {bound}\nvalues {len}\n",
        env!("CARGO_PKG_VERSION"),
        c.game.name(),
        p.period,
        p.n0,
        p.saltus
    )
    .map_err(fail)?;
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
    out.write_all(b"end\n").map_err(fail)?;
    let file = out.into_inner().map_err(|e| fail(e.into_error()))?;
    file.sync_all().map_err(fail)?;
    drop(file);
    std::fs::rename(&tmp, path).map_err(fail)?;
    Ok(len)
}
