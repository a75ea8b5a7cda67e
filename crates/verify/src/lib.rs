//! A deliberately simple checker of grundy's periodicity certificates (docs/certificates.md).
//!
//! It shares no code with grundy's engines and depends on nothing but the standard library:
//! it reads the game's code itself, recomputes every Grundy value up to the certificate's
//! length from the rules directly (each heap's options listed one by one, then their mex),
//! compares them with the values written in the certificate, and checks the claim against
//! the periodicity theorem it names, whose bound it computes itself.
//!
//! The theorems (proofs in docs/certificates.md):
//! - `take-and-break h=H t=T`, for a game whose moves remove at most T tokens and leave at
//!   most H heaps (H ≥ 1; octal codes have H ≤ 2, hexadecimal codes H ≤ 3, subtraction
//!   games H = 1): if G(n + p) = G(n) for every n with n0 ≤ n < B, where
//!   B = H·max(n0, 1) + (H − 1)·p + T, then G(n + p) = G(n) for every n ≥ n0.
//!   For H = 2 this is the Guy–Smith theorem.
//! - `all-but e=E`, for the game that removes any positive count except those of a finite
//!   set whose largest member is E (E = 0 for the empty set): if G(n + p) = G(n) + s for
//!   n0 ≤ n < B = n0 + E, and {G(m) : m < n0 + p} = {0, ..., s − 1} ∪ {G(m) + s : m < n0},
//!   then G(n + p) = G(n) + s for every n ≥ n0.
//! - `level h=H t=T b=B`, for a take-and-break code whose moves may leave three heaps or
//!   more (H ≥ 3): the level argument of docs/games.md, checked by the module [`level`]
//!   (its own code, from the text of the proof). It proves G(n + p) = G(n) + s (s a power of
//!   two) for every n ≥ n0 once that holds for n0 ≤ n < max(M0 − p, n0), M0 being the
//!   threshold the argument derives from the rules and the values below max(n0, 1) + p.

use std::io::{BufRead, Read};

pub mod level;

/// The rules of a heap game, as this checker reads them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rules {
    /// A take-and-break code: `digits[k]` for removing k tokens; bit j of a digit allows
    /// leaving exactly j non-empty heaps (j = 0: only when the whole heap is removed).
    TakeBreak(Vec<u8>),
    /// Remove any count of the set.
    Subtraction(Vec<u64>),
    /// Remove any positive count not in the set.
    AllBut(Vec<u64>),
}

/// Reads a game: an octal or hexadecimal code (`0.77`, `4.07`, `0.F`, `hex:0.8`),
/// `sub:1,3,4` or `sub-all-but:2,5`. Other forms grundy knows (digit sets in braces,
/// unequal splits, repeating blocks) have no periodicity certificate and are refused.
pub fn parse_game(text: &str) -> Result<Rules, String> {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix("sub-all-but:") {
        return Ok(Rules::AllBut(parse_counts(rest, true)?));
    }
    if let Some(rest) = t.strip_prefix("sub:") {
        return Ok(Rules::Subtraction(parse_counts(rest, false)?));
    }
    let (hex, code) = match t.strip_prefix("hex:") {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let Some((head, tail)) = code.split_once('.') else {
        return Err(format!("'{t}' is not a code like 0.77"));
    };
    let chars: Vec<char> = head.chars().chain(tail.chars()).collect();
    if head.chars().count() != 1 || chars.len() < 2 {
        return Err(format!(
            "'{t}': expected one digit before the point and at least one after"
        ));
    }
    let has_letter = chars.iter().any(|c| c.is_ascii_alphabetic());
    let mut digits = Vec::new();
    for c in chars {
        let d = c.to_digit(16).ok_or_else(|| {
            format!("'{t}': '{c}' is not a digit (codes with braces, '!' or '[' have no certificate)")
        })?;
        if d >= 8 && !hex && !has_letter {
            return Err(format!("'{t}': digit {c} in an octal code (write hex:{t})"));
        }
        digits.push(d as u8);
    }
    if digits[0] & 3 != 0 {
        return Err(format!(
            "'{t}': the digit before the point may only split (0, 4, 8 or C)"
        ));
    }
    Ok(Rules::TakeBreak(digits))
}

fn parse_counts(text: &str, empty_ok: bool) -> Result<Vec<u64>, String> {
    if text.trim().is_empty() {
        return if empty_ok {
            Ok(Vec::new())
        } else {
            Err("empty subtraction set".into())
        };
    }
    let mut v = Vec::new();
    for part in text.split(',') {
        let n: u64 = part
            .trim()
            .parse()
            .map_err(|_| format!("'{part}' is not a count"))?;
        if n == 0 {
            return Err("counts must be positive".into());
        }
        v.push(n);
    }
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// (h, t) of the take-and-break theorem for `rules`: the most heaps a move leaves (at least
/// 1) and the most tokens it removes. `None` for all-but games.
pub fn heaps_and_removal(rules: &Rules) -> Option<(u64, u64)> {
    match rules {
        Rules::TakeBreak(d) => {
            let t = d.iter().rposition(|&x| x != 0).unwrap_or(0) as u64;
            let h = d
                .iter()
                .map(|&x| 8 - u64::from(x.leading_zeros()))
                .max()
                .unwrap_or(0);
            // Bit j is "leave j heaps": the highest bit set is the most heaps.
            Some((h.saturating_sub(1).max(1), t))
        }
        Rules::Subtraction(s) => Some((1, s.last().copied().unwrap_or(0))),
        Rules::AllBut(_) => None,
    }
}

/// Computes G(0), ..., G(len − 1) of `rules` from their definition, calling `progress(n)`
/// now and then. Each heap's options are listed one by one: O(len²) for two-heap splits and
/// all-but games, O(len³) for three-heap splits.
pub fn values(rules: &Rules, len: usize, progress: &mut dyn FnMut(usize)) -> Vec<u32> {
    let mut g: Vec<u32> = Vec::with_capacity(len);
    // seen[v] == stamp: value v is an option of the current heap.
    let mut seen: Vec<usize> = vec![usize::MAX; 64];
    for n in 0..len {
        if n % 4096 == 0 {
            progress(n);
        }
        let stamp = n;
        let mark = |v: u32, seen: &mut Vec<usize>| {
            let v = v as usize;
            if v >= seen.len() {
                seen.resize((v + 1).next_power_of_two(), usize::MAX);
            }
            seen[v] = stamp;
        };
        match rules {
            Rules::TakeBreak(digits) => {
                for (k, &d) in digits.iter().enumerate() {
                    if k > n {
                        break;
                    }
                    let rest = n - k;
                    if d & 1 != 0 && rest == 0 {
                        mark(0, &mut seen);
                    }
                    if d & 2 != 0 && rest >= 1 {
                        mark(g[rest], &mut seen);
                    }
                    if d & 4 != 0 {
                        for a in 1..=rest / 2 {
                            mark(g[a] ^ g[rest - a], &mut seen);
                        }
                    }
                    if d & 8 != 0 {
                        for a in 1..=rest / 3 {
                            for b in a..=(rest - a) / 2 {
                                mark(g[a] ^ g[b] ^ g[rest - a - b], &mut seen);
                            }
                        }
                    }
                }
            }
            Rules::Subtraction(set) => {
                for &s in set {
                    if s as usize <= n {
                        mark(g[n - s as usize], &mut seen);
                    }
                }
            }
            Rules::AllBut(set) => {
                for (m, &gm) in g.iter().enumerate() {
                    if set.binary_search(&((n - m) as u64)).is_err() {
                        mark(gm, &mut seen);
                    }
                }
            }
        }
        let mut v = 0;
        while v < seen.len() && seen[v] == stamp {
            v += 1;
        }
        g.push(v as u32);
    }
    g
}

/// Checks that a common set is XOR-free: no XOR of two members (equal or not) is a member.
fn check_xor_free(set: &[u32]) -> Result<(), String> {
    for &x in set {
        for &y in set {
            if set.binary_search(&(x ^ y)).is_ok() {
                return Err(format!(
                    "wrong split: the common values are not XOR-free ({x} ⊕ {y} = {} is common)",
                    x ^ y
                ));
            }
        }
    }
    Ok(())
}

/// Checks every value of a certificate of a code leaving at most two heaps, given a split,
/// in place: heap n is checked against the values below it, already checked.
///
/// G(n) = g holds when every v < g is the value of an option and g is not. Options that
/// leave one heap (or none) are listed. For a splitting digit removing k tokens, the splits
/// a + b = n − k with a rare part are listed (the rare heaps below n, kept in a list), and
/// the others only when the split cannot rule them out: when g may be the XOR of two common
/// values there (see [`Split`]), every split is listed. Values below g not met so far are
/// then looked for among all splits, in order, until each is met. So a common heap costs
/// about the number of rare heaps below it, and a rare heap about n.
pub fn check_values_sparse(
    game: &str,
    digits: &[u8],
    split: &Split,
    vals: &[u32],
    progress: &mut dyn FnMut(usize),
) -> Result<(), String> {
    // seen[v] == stamp: value v (< g) was met as the value of an option of heap `stamp`;
    // grown to each heap's value, which is first checked against the heap's option count.
    let mut seen: Vec<usize> = vec![usize::MAX; 64];
    let mut rare: Vec<usize> = Vec::new();
    let splitting: Vec<usize> = (0..digits.len()).filter(|&k| digits[k] & 4 != 0).collect();
    // Whether every split of the digit was listed for the current heap.
    let mut listed_all = vec![false; splitting.len()];
    for n in 0..vals.len() {
        if n % 65536 == 0 {
            progress(n);
        }
        let g = vals[n];
        // A mex is at most the number of options (so a huge value in a file cannot make
        // this allocate without bound).
        let options: u64 = digits
            .iter()
            .enumerate()
            .take(n + 1)
            .map(|(k, &d)| {
                let r = (n - k) as u64;
                u64::from(d & 3 != 0) + if d & 4 != 0 { r / 2 } else { 0 }
            })
            .sum();
        if u64::from(g) > options {
            return Err(format!(
                "G({n}) is {g} in the certificate, but heap {n} in {game} has at most {options} options"
            ));
        }
        if seen.len() <= g as usize {
            seen.resize(g as usize + 1, usize::MAX);
        }
        let mut met = 0u32;
        let mut hit = false;
        let mut mark = |v: u32, seen: &mut Vec<usize>, met: &mut u32| {
            if v == g {
                hit = true;
            } else if v < g && seen[v as usize] != n {
                seen[v as usize] = n;
                *met += 1;
            }
        };
        for (k, &d) in digits.iter().enumerate().take(n + 1) {
            let r = n - k;
            if d & 1 != 0 && r == 0 {
                mark(0, &mut seen, &mut met);
            }
            if d & 2 != 0 && r >= 1 {
                mark(vals[r], &mut seen, &mut met);
            }
        }
        // Splits with a rare part, or all splits where the split does not rule g out.
        listed_all.iter_mut().for_each(|x| *x = false);
        for (i, &k) in splitting.iter().enumerate() {
            if k + 2 > n {
                continue;
            }
            let r = n - k;
            if split.excludes_common_pairs(r, g) {
                for &a in rare.iter().take_while(|&&a| a < r) {
                    mark(vals[a] ^ vals[r - a], &mut seen, &mut met);
                }
            } else {
                for a in 1..=r / 2 {
                    mark(vals[a] ^ vals[r - a], &mut seen, &mut met);
                }
                listed_all[i] = true;
            }
        }
        // Values below g not met yet: look for them among every split.
        for (i, &k) in splitting.iter().enumerate() {
            if met == g || k + 2 > n || listed_all[i] {
                continue;
            }
            let r = n - k;
            for a in 1..=r / 2 {
                mark(vals[a] ^ vals[r - a], &mut seen, &mut met);
                if met == g {
                    break;
                }
            }
        }
        if hit {
            return Err(format!(
                "G({n}) is {g} in the certificate, but an option of heap {n} in {game} has the value {g}"
            ));
        }
        if met < g {
            let missing = (0..g).find(|&v| seen[v as usize] != n).unwrap_or(0);
            return Err(format!(
                "G({n}) is {g} in the certificate, but no option of heap {n} in {game} has the value {missing} (the mex is {missing})"
            ));
        }
        if n >= 1 && split.rare(n, g) {
            rare.push(n);
        }
    }
    Ok(())
}

/// A rough count of the option values [`values`] lists for `len` heaps (for a time
/// estimate; about 10^8 to 10^9 a second on a current machine).
pub fn work(rules: &Rules, len: u64) -> f64 {
    let l = len as f64;
    match rules {
        Rules::TakeBreak(d) => {
            let two = d.iter().filter(|&&x| x & 4 != 0).count() as f64;
            let three = d.iter().filter(|&&x| x & 8 != 0).count() as f64;
            l + two * l * l / 4.0 + three * l * l * l / 36.0
        }
        Rules::Subtraction(s) => l * s.len() as f64,
        Rules::AllBut(_) => l * l / 2.0,
    }
}

/// A certificate as read, before it is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// The game's code, as written.
    pub game: String,
    /// Its rules.
    pub rules: Rules,
    /// `periodic` or `arithmetic-periodic`.
    pub claim: String,
    /// The period p.
    pub period: u64,
    /// The first heap of the periodic part.
    pub n0: u64,
    /// The saltus s (0 for `periodic`).
    pub saltus: u64,
    /// The theorem line: `take-and-break h=H t=T`, `all-but e=E` or `level h=H t=T b=B`.
    pub theorem: String,
    /// The bound B of the theorem.
    pub bound: u64,
    /// The declared rare/common split (version 2), if any.
    pub split: Option<Split>,
    /// The number of rare heaps among 1 .. len − 1 the split line declares.
    pub declared_rare: Option<u64>,
    /// The values G(0), ..., G(len − 1).
    pub values: Vec<u32>,
}

/// Why a certificate is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The file does not read as a certificate (exit code 2): line and message.
    Malformed {
        /// Line (1-based).
        line: usize,
        /// What is wrong there.
        message: String,
    },
    /// The certificate reads, but its values or its claim are wrong (exit code 1).
    Wrong(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Malformed { line, message } => write!(f, "line {line}: {message}"),
            Refusal::Wrong(m) => write!(f, "{m}"),
        }
    }
}

/// The most values a certificate may hold (2^32).
pub const MAX_VALUES: u64 = 1 << 32;

/// A declared rare/common split (version 2, the `split` line): which heaps the checker may
/// skip when it shows that a value is *not* the value of an option (docs/certificates.md).
/// The checker classifies every heap itself from its value; the declaration only names the
/// rule, and the number of rare heaps it declares must match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Split {
    /// `split common V,V,...`: a heap is common when its value is in the set C, which must be
    /// XOR-free (no XOR of two members, equal or not, is a member).
    Common(Vec<u32>),
    /// `split heap-parity mask=M alpha=A`: heap a is common when
    /// parity(G(a) & M) = A ⊕ (a mod 2).
    HeapParity {
        /// M.
        mask: u32,
        /// A (0 or 1).
        alpha: u32,
    },
}

impl Split {
    /// Whether heap `a` (≥ 1) with value `v` is rare under this split.
    fn rare(&self, a: usize, v: u32) -> bool {
        match self {
            Split::Common(c) => c.binary_search(&v).is_err(),
            Split::HeapParity { mask, alpha } => (v & mask).count_ones() & 1 != alpha ^ (a as u32 & 1),
        }
    }

    /// Whether no split of a heap of `r` tokens into two *common* heaps has the value `v`,
    /// so that only splits with a rare part need to be listed to show that `v` is not the
    /// value of an option. Free split: common ⊕ common is never in C, so for v ∈ C.
    /// Heap parity: for common a and b with a + b = r, parity((G(a) ⊕ G(b)) & M) =
    /// (A ⊕ a) ⊕ (A ⊕ b) = r mod 2, so for v whose parity differs.
    fn excludes_common_pairs(&self, r: usize, v: u32) -> bool {
        match self {
            Split::Common(c) => c.binary_search(&v).is_ok(),
            Split::HeapParity { mask, .. } => (v & mask).count_ones() & 1 != (r as u32 & 1),
        }
    }
}

/// Reads the `split` line's text (after `split `): the split and the declared rare count.
fn parse_split(text: &str) -> Result<(Split, u64), String> {
    let words: Vec<&str> = text.split_ascii_whitespace().collect();
    let field = |w: &str, key: &str| -> Result<u64, String> {
        w.strip_prefix(key)
            .and_then(|x| x.parse::<u64>().ok())
            .ok_or_else(|| format!("split: expected '{key}N', found '{}'", cut(w)))
    };
    match words.as_slice() {
        ["common", list, rare] => {
            let mut c = Vec::new();
            for part in list.split(',').filter(|p| !p.is_empty()) {
                let v: u32 = part
                    .parse()
                    .map_err(|_| format!("split: '{}' is not a value", cut(part)))?;
                c.push(v);
            }
            c.sort_unstable();
            c.dedup();
            Ok((Split::Common(c), field(rare, "rare=")?))
        }
        ["heap-parity", mask, alpha, rare] => {
            let mask = field(mask, "mask=")?;
            let alpha = field(alpha, "alpha=")?;
            if mask > u64::from(u32::MAX) || alpha > 1 {
                return Err("split: mask must fit in 32 bits and alpha be 0 or 1".into());
            }
            Ok((
                Split::HeapParity {
                    mask: mask as u32,
                    alpha: alpha as u32,
                },
                field(rare, "rare=")?,
            ))
        }
        _ => Err(format!(
            "split: expected 'common V,V,... rare=K' or 'heap-parity mask=M alpha=A rare=K', found '{}'",
            cut(text)
        )),
    }
}

/// FNV-1a (64 bits) of `bytes`, continuing from `h` (start with [`FNV_START`]): the checksum
/// of the packed values of a version 2 certificate.
pub fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The starting state of [`fnv1a`].
pub const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// Reads a certificate (docs/certificates.md): header lines in a fixed order, the values,
/// `end`. Lines starting with `#` before the values are comments. Version 1 writes the values
/// as text; version 2 packs them (LEB128 varints with an FNV-1a checksum) and may declare a
/// rare/common split.
pub fn read(mut input: impl BufRead) -> Result<Certificate, Refusal> {
    let mut line_no = 0usize;
    // One line (without its end), as bytes: the packed values of version 2 follow a text
    // line, so the input is read line by line here rather than through `lines()`.
    let mut read_line = |input: &mut dyn BufRead| -> Result<Option<(usize, String)>, Refusal> {
        let mut buf = Vec::new();
        line_no += 1;
        let n = input
            .read_until(b'\n', &mut buf)
            .map_err(|e| Refusal::Malformed {
                line: line_no,
                message: e.to_string(),
            })?;
        if n == 0 {
            return Ok(None);
        }
        if buf.last() != Some(&b'\n') && buf.len() >= 1 << 20 {
            return Err(Refusal::Malformed {
                line: line_no,
                message: "line longer than 1 MiB".into(),
            });
        }
        let text = String::from_utf8(buf).map_err(|_| Refusal::Malformed {
            line: line_no,
            message: "not text".into(),
        })?;
        Ok(Some((line_no, text.trim().to_string())))
    };
    let mut next_header =
        |input: &mut dyn BufRead, key: &str, optional: bool| -> Result<Option<(usize, String)>, Refusal> {
            loop {
                let Some((n, line)) = read_line(input)? else {
                    return Err(Refusal::Malformed {
                        line: 0,
                        message: format!("the file ends before the '{key}' line"),
                    });
                };
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let (k, v) = line.split_once(' ').unwrap_or((line.as_str(), ""));
                if k != key {
                    if optional {
                        return Ok(Some((n, format!("\u{0}{line}"))));
                    }
                    return Err(Refusal::Malformed {
                        line: n,
                        message: format!("expected '{key} ...', found '{}'", cut(&line)),
                    });
                }
                return Ok(Some((n, v.trim().to_string())));
            }
        };
    let number = |(n, v): (usize, String), key: &str| -> Result<u64, Refusal> {
        v.parse::<u64>().map_err(|_| Refusal::Malformed {
            line: n,
            message: format!("{key}: '{}' is not a whole number", cut(&v)),
        })
    };
    let input: &mut dyn BufRead = &mut input;
    let (n, version) = req(next_header(input, "grundy-certificate", false)?)?;
    let version = match version.as_str() {
        "1" => 1,
        "2" => 2,
        _ => {
            return Err(Refusal::Malformed {
                line: n,
                message: format!(
                    "version '{}' (this checker reads versions 1 and 2)",
                    cut(&version)
                ),
            })
        }
    };
    let (n, game) = req(next_header(input, "game", false)?)?;
    let rules = parse_game(&game).map_err(|message| Refusal::Malformed { line: n, message })?;
    let (n, claim) = req(next_header(input, "claim", false)?)?;
    if claim != "periodic" && claim != "arithmetic-periodic" {
        return Err(Refusal::Malformed {
            line: n,
            message: format!(
                "claim '{}' (expected periodic or arithmetic-periodic)",
                cut(&claim)
            ),
        });
    }
    let period = number(req(next_header(input, "period", false)?)?, "period")?;
    let n0 = number(req(next_header(input, "n0", false)?)?, "n0")?;
    let saltus = number(req(next_header(input, "saltus", false)?)?, "saltus")?;
    let (_, theorem) = req(next_header(input, "theorem", false)?)?;
    let bound = number(req(next_header(input, "bound", false)?)?, "bound")?;
    // Version 2: an optional `split` line, then `values`.
    let (mut split, mut declared_rare) = (None, None);
    let (vn, vtext) = if version == 2 {
        let (n, text) = req(next_header(input, "split", true)?)?;
        if let Some(other) = text.strip_prefix('\u{0}') {
            let (k, v) = other.split_once(' ').unwrap_or((other, ""));
            if k != "values" {
                return Err(Refusal::Malformed {
                    line: n,
                    message: format!("expected 'split ...' or 'values ...', found '{}'", cut(other)),
                });
            }
            (n, v.trim().to_string())
        } else {
            let (s, k) = parse_split(&text).map_err(|message| Refusal::Malformed { line: n, message })?;
            split = Some(s);
            declared_rare = Some(k);
            req(next_header(input, "values", false)?)?
        }
    } else {
        req(next_header(input, "values", false)?)?
    };
    let words: Vec<&str> = vtext.split_ascii_whitespace().collect();
    let (count, packed) = match (version, words.as_slice()) {
        (1, [count]) => (number((vn, count.to_string()), "values")?, None),
        (2, [count, "varint", bytes, sum]) => {
            let bytes = number((vn, bytes.to_string()), "values: byte count")?;
            let sum = sum
                .strip_prefix("fnv1a64=")
                .and_then(|h| u64::from_str_radix(h, 16).ok())
                .ok_or_else(|| Refusal::Malformed {
                    line: vn,
                    message: format!("values: expected 'fnv1a64=HEX', found '{}'", cut(sum)),
                })?;
            (number((vn, count.to_string()), "values")?, Some((bytes, sum)))
        }
        _ => {
            return Err(Refusal::Malformed {
                line: vn,
                message: if version == 1 {
                    format!("values: '{}' is not a whole number", cut(&vtext))
                } else {
                    format!(
                        "values: expected 'L varint BYTES fnv1a64=HEX', found '{}'",
                        cut(&vtext)
                    )
                },
            })
        }
    };
    if count > MAX_VALUES {
        return Err(Refusal::Malformed {
            line: vn,
            message: format!("values: {count} is more than this checker reads ({MAX_VALUES})"),
        });
    }
    let mut values: Vec<u32> = Vec::with_capacity(count.min(1 << 26) as usize);
    if let Some((bytes, sum)) = packed {
        // Each value takes 1 to 5 bytes.
        if bytes < count || bytes > count.saturating_mul(5) {
            return Err(Refusal::Malformed {
                line: vn,
                message: format!("values: {bytes} bytes cannot hold {count} values"),
            });
        }
        let mut h = FNV_START;
        let mut left = bytes;
        let (mut acc, mut shift) = (0u64, 0u32);
        let mut chunk = vec![0u8; 1 << 16];
        while left > 0 {
            let take = left.min(chunk.len() as u64) as usize;
            input
                .read_exact(&mut chunk[..take])
                .map_err(|_| Refusal::Malformed {
                    line: vn + 1,
                    message: format!("the packed values end early ({} of {bytes} bytes)", bytes - left),
                })?;
            h = fnv1a(h, &chunk[..take]);
            left -= take as u64;
            for &b in &chunk[..take] {
                acc |= u64::from(b & 0x7f) << shift;
                if b & 0x80 == 0 {
                    if acc > u64::from(u32::MAX) || values.len() as u64 == count {
                        return Err(Refusal::Malformed {
                            line: vn + 1,
                            message: format!(
                                "packed value {} is not a 32-bit value, or one too many",
                                values.len()
                            ),
                        });
                    }
                    values.push(acc as u32);
                    acc = 0;
                    shift = 0;
                } else {
                    shift += 7;
                    if shift > 28 {
                        return Err(Refusal::Malformed {
                            line: vn + 1,
                            message: format!("packed value {} is longer than 5 bytes", values.len()),
                        });
                    }
                }
            }
        }
        if shift != 0 || values.len() as u64 != count {
            return Err(Refusal::Malformed {
                line: vn + 1,
                message: format!("{count} values announced, {} packed", values.len()),
            });
        }
        if h != sum {
            return Err(Refusal::Malformed {
                line: vn + 1,
                message: format!("checksum of the packed values is {h:016x}, the file says {sum:016x} (the file is damaged)"),
            });
        }
        // The rest: a line end, then `end`.
        let mut rest = String::new();
        (&mut *input)
            .take(4096)
            .read_to_string(&mut rest)
            .map_err(|_| Refusal::Malformed {
                line: vn + 2,
                message: "not text after the packed values".into(),
            })?;
        if rest.trim() != "end" {
            return Err(Refusal::Malformed {
                line: vn + 2,
                message: if rest.trim().is_empty() {
                    "no 'end' line (the file is cut short)".into()
                } else {
                    "expected 'end' after the packed values".into()
                },
            });
        }
    } else {
        let mut ended = false;
        while let Some((n, line)) = read_line(input)? {
            if ended {
                if !line.is_empty() {
                    return Err(Refusal::Malformed {
                        line: n,
                        message: "text after 'end'".into(),
                    });
                }
                continue;
            }
            if line == "end" {
                ended = true;
                continue;
            }
            for word in line.split_ascii_whitespace() {
                let v: u32 = word.parse().map_err(|_| Refusal::Malformed {
                    line: n,
                    message: format!("'{}' is not a value", cut(word)),
                })?;
                if values.len() as u64 == count {
                    return Err(Refusal::Malformed {
                        line: n,
                        message: format!("more than the {count} values announced"),
                    });
                }
                values.push(v);
            }
        }
        if !ended {
            return Err(Refusal::Malformed {
                line: 0,
                message: "no 'end' line (the file is cut short)".into(),
            });
        }
        if values.len() as u64 != count {
            return Err(Refusal::Malformed {
                line: vn,
                message: format!("{count} values announced, {} found", values.len()),
            });
        }
    }
    Ok(Certificate {
        game,
        rules,
        claim,
        period,
        n0,
        saltus,
        theorem,
        bound,
        split,
        declared_rare,
        values,
    })
}

/// A header line that must be there (`next_header` refuses a missing one already).
fn req(line: Option<(usize, String)>) -> Result<(usize, String), Refusal> {
    line.ok_or_else(|| Refusal::Malformed {
        line: 0,
        message: "a header line is missing".into(),
    })
}

fn cut(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

/// What a valid certificate proves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proven {
    /// The game.
    pub game: String,
    /// The claim (`periodic`, `arithmetic-periodic`).
    pub claim: String,
    /// p.
    pub period: u64,
    /// n0.
    pub n0: u64,
    /// s.
    pub saltus: u64,
    /// The theorem line.
    pub theorem: String,
    /// B.
    pub bound: u64,
    /// Values checked against the rules (recomputed, or each shown to be the mex of its options).
    pub values: u64,
    /// Whether n0 is the least the values allow (the claim fails one heap earlier).
    pub least_n0: bool,
}

/// Checks a certificate: the theorem and bound it states are the right ones for its game,
/// it holds enough values, each value is the one the rules give, and the values satisfy the
/// theorem's hypothesis. `progress(done, total)` is called now and then while recomputing.
pub fn check(c: &Certificate, progress: &mut dyn FnMut(u64, u64)) -> Result<Proven, Refusal> {
    let wrong = |m: String| Err(Refusal::Wrong(m));
    if c.period == 0 {
        return wrong("period 0: a period is at least 1".into());
    }
    let (p, n0, s) = (c.period, c.n0, c.saltus);
    let total = c.values.len() as u64;
    // The values recomputed from the rules before the theorem is derived: the level argument
    // reads them (the other theorems recompute them after checking the bound).
    let mut early: Option<Vec<u32>> = None;
    // The theorem and its bound, derived here from the rules.
    let (theorem, bound) = match heaps_and_removal(&c.rules) {
        Some((h, t)) if c.claim == "arithmetic-periodic" && matches!(c.rules, Rules::TakeBreak(_)) => {
            let Rules::TakeBreak(digits) = &c.rules else {
                unreachable!()
            };
            if h < 3 {
                return wrong(format!(
                    "claim arithmetic-periodic with saltus {s} for {}: the take-and-break theorem proves ordinary periods (claim periodic, saltus 0), and the level argument of arithmetic periods needs moves leaving three heaps or more (finite octal games are never arithmetic-periodic)",
                    c.game
                ));
            }
            if c.split.is_some() {
                return wrong("a split is only declared for codes leaving at most two heaps".into());
            }
            let own = values(&c.rules, c.values.len(), &mut |n| progress(n as u64, total));
            if let Some(n) = (0..c.values.len()).find(|&n| own[n] != c.values[n]) {
                return wrong(format!(
                    "G({n}) is {} in the certificate, but the rules of {} give {}",
                    c.values[n], c.game, own[n]
                ));
            }
            let proof = level::derive(digits, p, s, n0, &own).map_err(Refusal::Wrong)?;
            early = Some(own);
            (
                format!("level h={h} t={t} b={}", proof.bits),
                Some(proof.threshold.saturating_sub(p).max(n0)),
            )
        }
        Some((h, t)) => {
            if c.claim != "periodic" || s != 0 {
                return wrong(format!(
                    "claim {} with saltus {s}: the take-and-break theorem proves ordinary periods (claim periodic, saltus 0)",
                    c.claim
                ));
            }
            let b = h
                .checked_mul(n0.max(1))
                .and_then(|x| x.checked_add((h - 1).checked_mul(p)?))
                .and_then(|x| x.checked_add(t));
            (format!("take-and-break h={h} t={t}"), b)
        }
        None => {
            let Rules::AllBut(set) = &c.rules else {
                unreachable!()
            };
            if c.claim != "arithmetic-periodic" || s == 0 {
                return wrong(format!(
                    "claim {} with saltus {s}: for an all-but game the certificate claims an arithmetic period (claim arithmetic-periodic, saltus at least 1)",
                    c.claim
                ));
            }
            let e = set.last().copied().unwrap_or(0);
            (format!("all-but e={e}"), n0.checked_add(e))
        }
    };
    if c.theorem != theorem {
        return wrong(format!(
            "theorem '{}' stated; for {} it is '{theorem}'",
            c.theorem, c.game
        ));
    }
    let Some(bound) = bound else {
        return wrong("the bound overflows".into());
    };
    if c.bound != bound {
        return wrong(format!(
            "bound {} stated; the theorem '{theorem}' with p = {p}, n0 = {n0} needs {bound}",
            c.bound
        ));
    }
    let need = bound
        .checked_add(p)
        .ok_or_else(|| Refusal::Wrong("the bound overflows".into()))?;
    let len = c.values.len() as u64;
    if len < need {
        return wrong(format!(
            "{len} values; the claim needs G(n + p) for every n < {bound}, that is {need} values"
        ));
    }
    // Every value, from the rules: each heap's options listed one by one, or, with a
    // declared split, with the sparse-space argument (see [`check_values_sparse`]).
    let own: Vec<u32>;
    let checked: &[u32] = match (&early, &c.split) {
        (Some(own), _) => own,
        (None, None) => {
            own = values(&c.rules, len as usize, &mut |n| progress(n as u64, total));
            if let Some(n) = (0..len as usize).find(|&n| own[n] != c.values[n]) {
                return wrong(format!(
                    "G({n}) is {} in the certificate, but the rules of {} give {}",
                    c.values[n], c.game, own[n]
                ));
            }
            &own
        }
        (None, Some(split)) => {
            let Rules::TakeBreak(digits) = &c.rules else {
                return wrong("a split is only declared for take-and-break codes".into());
            };
            if digits.iter().any(|&d| d & 8 != 0) {
                return wrong("a split is only declared for codes leaving at most two heaps".into());
            }
            if let Split::Common(set) = split {
                check_xor_free(set).map_err(Refusal::Wrong)?;
            }
            let rare = (1..len as usize).filter(|&a| split.rare(a, c.values[a])).count() as u64;
            if Some(rare) != c.declared_rare {
                return wrong(format!(
                    "wrong split: the certificate declares {} rare heaps, its values have {rare} under that split",
                    c.declared_rare.unwrap_or(0)
                ));
            }
            check_values_sparse(&c.game, digits, split, &c.values, &mut |n| {
                progress(n as u64, total)
            })
            .map_err(Refusal::Wrong)?;
            &c.values
        }
    };
    progress(total, total);
    let g = |n: u64| u64::from(checked[n as usize]);
    // The hypothesis of the theorem.
    for n in n0..bound {
        if g(n + p) != g(n) + s {
            return wrong(format!(
                "the claim fails at n = {n}: G({}) = {} but G({n}) + {s} = {}",
                n + p,
                g(n + p),
                g(n) + s
            ));
        }
    }
    if matches!(c.rules, Rules::AllBut(_)) {
        let mut below: Vec<u64> = (0..n0 + p).map(g).collect();
        below.sort_unstable();
        below.dedup();
        let mut want: Vec<u64> = (0..s).chain((0..n0).map(|m| g(m) + s)).collect();
        want.sort_unstable();
        want.dedup();
        if below != want {
            return wrong(format!(
                "the values below n0 + p = {} are not {{0, ..., {}}} with those below n0 = {n0} shifted by {s}",
                n0 + p,
                s - 1
            ));
        }
    }
    let least_n0 = n0 == 0 || g(n0 - 1 + p) != g(n0 - 1) + s;
    Ok(Proven {
        game: c.game.clone(),
        claim: c.claim.clone(),
        period: p,
        n0,
        saltus: s,
        theorem,
        bound,
        values: len,
        least_n0,
    })
}

/// Reads and checks a certificate.
pub fn verify(input: impl BufRead, progress: &mut dyn FnMut(u64, u64)) -> Result<Proven, Refusal> {
    let c = read(input)?;
    check(&c, progress)
}

/// Checks the certificate in `path`, writing the verdict of a valid one to `out` and the
/// estimate, the progress and any refusal to `log`; returns the exit code: 0 valid, 1 refused (the values or the claim are
/// wrong), 2 the file does not read as a certificate.
pub fn run_file(
    path: &std::path::Path,
    out: &mut dyn std::io::Write,
    log: &mut dyn std::io::Write,
    started: std::time::Instant,
) -> i32 {
    let shown = path.display();
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            let _ = writeln!(log, "grundy verify: {shown}: {e}");
            return 2;
        }
    };
    let c = match read(std::io::BufReader::new(file)) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(log, "grundy verify: {shown}: not a certificate: {e}");
            return 2;
        }
    };
    let sparse = c.split.is_some();
    let ops = if sparse {
        // Each common heap lists about the rare heaps below it, each rare heap all splits.
        let (l, r) = (c.values.len() as f64, c.declared_rare.unwrap_or(0) as f64);
        l * r / 2.0 + r * l / 4.0
    } else {
        work(&c.rules, c.values.len() as u64)
    };
    if sparse && c.values.len() > 1 << 20 {
        let _ = writeln!(
            log,
            "grundy verify: checking {} values of {} with the declared split ({} rare heaps)",
            c.values.len(),
            c.game,
            c.declared_rare.unwrap_or(0)
        );
    } else if ops > 1e9 {
        let _ = writeln!(
            log,
            "grundy verify: recomputing {} values of {} lists about {:.1e} options (at 1e8 to 1e9 a second: {:.0} to {:.0} s)",
            c.values.len(),
            c.game,
            ops,
            ops / 1e9,
            ops / 1e8
        );
    }
    let mut last = std::time::Instant::now();
    let mut progress = |done: u64, total: u64| {
        if (ops > 1e9 || total > 1 << 20) && last.elapsed().as_secs() >= 5 {
            last = std::time::Instant::now();
            // Without a split, work grows with the square of the heap: the share done is
            // (done/total)^2; with one, about linearly.
            let f = done as f64 / total.max(1) as f64;
            let share = if sparse { f } else { f * f };
            let _ = writeln!(
                log,
                "grundy verify: G({done}) of {total} ({:.0}% of the work)",
                share * 100.0
            );
        }
    };
    match check(&c, &mut progress) {
        Ok(p) => {
            let claim = if p.saltus > 0 {
                format!(
                    "arithmetic period {} with saltus {} from n0 = {}",
                    p.period, p.saltus, p.n0
                )
            } else {
                format!("period {} from n0 = {}", p.period, p.n0)
            };
            let _ = writeln!(
                out,
                "valid: {} has {claim} (theorem {}, bound {}; {} values checked against the rules{}) in {:.2} s",
                p.game,
                p.theorem,
                p.bound,
                p.values,
                if p.least_n0 { ", n0 is the least" } else { "; a smaller n0 also holds" },
                started.elapsed().as_secs_f64()
            );
            0
        }
        Err(e) => {
            let _ = writeln!(log, "grundy verify: {shown}: refused: {e}");
            match e {
                Refusal::Malformed { .. } => 2,
                Refusal::Wrong(_) => 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(c: &str) -> Rules {
        parse_game(c).unwrap()
    }

    #[test]
    fn kayles_and_dawson() {
        // Kayles, 0.77: 0 1 2 3 1 4 3 2 1 4 2 6.
        let v = values(&code("0.77"), 12, &mut |_| {});
        assert_eq!(v, vec![0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]);
        // Dawson's Kayles, 0.07: 0 0 1 1 2 0 3 1 1 0 3 3.
        let v = values(&code("0.07"), 12, &mut |_| {});
        assert_eq!(v, vec![0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3]);
        // Nim as all-but nothing.
        assert_eq!(values(&code("sub-all-but:"), 5, &mut |_| {}), vec![0, 1, 2, 3, 4]);
        // sub:1,2 is 0 1 2 0 1 2.
        assert_eq!(values(&code("sub:1,2"), 6, &mut |_| {}), vec![0, 1, 2, 0, 1, 2]);
        // 4.0: split a heap in two: 0 0 1 0 1 0 1.
        assert_eq!(values(&code("4.0"), 7, &mut |_| {}), vec![0, 0, 1, 0, 1, 0, 1]);
    }

    #[test]
    fn codes() {
        assert_eq!(heaps_and_removal(&code("0.77")), Some((2, 2)));
        assert_eq!(heaps_and_removal(&code("0.1")), Some((1, 1)));
        assert_eq!(heaps_and_removal(&code("0.F")), Some((3, 1)));
        assert_eq!(heaps_and_removal(&code("4.0")), Some((2, 0)));
        assert!(parse_game("0.8").is_err());
        assert!(parse_game("hex:0.8").is_ok());
        assert!(parse_game("1.0").is_err());
        assert!(parse_game("4!.0").is_err());
        assert!(parse_game("0.[3]").is_err());
    }

    fn cert(game: &str, p: u64, n0: u64, bound: u64, theorem: &str, len: usize) -> String {
        let v = values(&parse_game(game).unwrap(), len, &mut |_| {});
        let vs: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        format!(
            "grundy-certificate 1\n# test\ngame {game}\nclaim periodic\nperiod {p}\nn0 {n0}\nsaltus 0\ntheorem {theorem}\nbound {bound}\nvalues {len}\n{}\nend\n",
            vs.join(" ")
        )
    }

    #[test]
    fn accepts_and_refuses() {
        // 0.07 (Dawson's Kayles): period 34, last exception at heap 52 (51 in the counting
        // of Dawson's chess, 0.137), n0 = 53. Bound 2·53 + 34 + 2 = 142, 176 values.
        let good = cert("0.07", 34, 53, 142, "take-and-break h=2 t=2", 176);
        let ok = verify(good.as_bytes(), &mut |_, _| {}).unwrap();
        assert!(ok.least_n0);
        // One value altered.
        let bad = good.replacen("values 176\n0 0 1", "values 176\n0 0 2", 1);
        assert!(
            matches!(verify(bad.as_bytes(), &mut |_, _| {}), Err(Refusal::Wrong(m)) if m.starts_with("G(2)"))
        );
        // A wrong bound, a wrong period, a short list.
        let bad = good.replace("bound 142", "bound 141");
        assert!(matches!(
            verify(bad.as_bytes(), &mut |_, _| {}),
            Err(Refusal::Wrong(_))
        ));
        let bad = cert("0.07", 17, 53, 125, "take-and-break h=2 t=2", 176);
        assert!(
            matches!(verify(bad.as_bytes(), &mut |_, _| {}), Err(Refusal::Wrong(m)) if m.contains("fails"))
        );
        let bad = cert("0.07", 34, 53, 142, "take-and-break h=2 t=2", 175);
        assert!(matches!(
            verify(bad.as_bytes(), &mut |_, _| {}),
            Err(Refusal::Wrong(_))
        ));
        // Another game's name with these values.
        let bad = good.replace("game 0.07", "game 0.77");
        assert!(verify(bad.as_bytes(), &mut |_, _| {}).is_err());
        // Malformed: no end, a bad number, a wrong count.
        let bad = good.replace("end\n", "");
        assert!(matches!(
            verify(bad.as_bytes(), &mut |_, _| {}),
            Err(Refusal::Malformed { .. })
        ));
        let bad = good.replace("period 34", "period x");
        assert!(matches!(
            verify(bad.as_bytes(), &mut |_, _| {}),
            Err(Refusal::Malformed { line: 5, .. })
        ));
        let bad = good.replace("values 176", "values 177");
        assert!(matches!(
            verify(bad.as_bytes(), &mut |_, _| {}),
            Err(Refusal::Malformed { .. })
        ));
    }

    #[test]
    fn arithmetic() {
        // Nim (all-but nothing): G(n) = n, p = 1, s = 1 from n0 = 0, e = 0: bound 0.
        let text = "grundy-certificate 1\ngame sub-all-but:\nclaim arithmetic-periodic\nperiod 1\nn0 0\nsaltus 1\ntheorem all-but e=0\nbound 0\nvalues 1\n0\nend\n";
        verify(text.as_bytes(), &mut |_, _| {}).unwrap();
        let bad = text.replace("saltus 1", "saltus 2");
        assert!(verify(bad.as_bytes(), &mut |_, _| {}).is_err());
    }
}

#[cfg(test)]
mod sparse_tests {
    use super::*;

    /// Every code 0.d1d2 (octal digits), with splits of each kind (one of them useless:
    /// every heap rare), the true values are accepted and each single altered value refused.
    #[test]
    fn sparse_check_agrees_with_the_definition() {
        let splits = [
            Split::Common(vec![1, 2, 4, 7]),
            Split::Common(vec![]),
            Split::Common(vec![3]),
            Split::HeapParity { mask: 1, alpha: 0 },
            Split::HeapParity { mask: 3, alpha: 1 },
            Split::HeapParity { mask: 6, alpha: 0 },
        ];
        for d1 in 0..8u8 {
            for d2 in 0..8u8 {
                let code = format!("0.{d1}{d2}");
                let Ok(rules) = parse_game(&code) else { continue };
                let Rules::TakeBreak(digits) = &rules else {
                    unreachable!()
                };
                let v = values(&rules, 48, &mut |_| {});
                for split in &splits {
                    check_values_sparse(&code, digits, split, &v, &mut |_| {})
                        .unwrap_or_else(|e| panic!("{code} {split:?}: {e}"));
                    for n in 0..v.len() {
                        for alt in [v[n] + 1, v[n].wrapping_sub(1)] {
                            if alt == u32::MAX {
                                continue;
                            }
                            let mut w = v.clone();
                            w[n] = alt;
                            let e = check_values_sparse(&code, digits, split, &w, &mut |_| {})
                                .expect_err(&format!("{code} {split:?}: G({n}) = {alt} accepted"));
                            assert!(e.starts_with(&format!("G({n}) is {alt}")), "{code}: {e}");
                        }
                    }
                }
            }
        }
    }

    fn packed(game: &str, p: u64, n0: u64, bound: u64, split: &str, len: usize) -> Vec<u8> {
        let v = values(&parse_game(game).unwrap(), len, &mut |_| {});
        let mut bytes = Vec::new();
        for &x in &v {
            let mut x = x;
            while x >= 0x80 {
                bytes.push((x as u8 & 0x7f) | 0x80);
                x >>= 7;
            }
            bytes.push(x as u8);
        }
        let mut out = format!(
            "grundy-certificate 2\n# test\ngame {game}\nclaim periodic\nperiod {p}\nn0 {n0}\nsaltus 0\ntheorem take-and-break h=2 t=2\nbound {bound}\n{split}values {len} varint {} fnv1a64={:016x}\n",
            bytes.len(),
            fnv1a(FNV_START, &bytes)
        )
        .into_bytes();
        out.extend_from_slice(&bytes);
        out.extend_from_slice(b"\nend\n");
        out
    }

    fn rare_count(game: &str, len: usize, split: &Split) -> usize {
        let v = values(&parse_game(game).unwrap(), len, &mut |_| {});
        (1..len).filter(|&a| split.rare(a, v[a])).count()
    }

    #[test]
    fn version_two_accepts_and_refuses() {
        // Dawson's Kayles, period 34 from 53 (bound 142, 176 values), with a declared split.
        let split = Split::Common(vec![1, 2, 4, 7]);
        let k = rare_count("0.07", 176, &split);
        let line = format!("split common 1,2,4,7 rare={k}\n");
        let good = packed("0.07", 34, 53, 142, &line, 176);
        let ok = verify(&good[..], &mut |_, _| {}).unwrap();
        assert_eq!((ok.period, ok.n0), (34, 53));
        // Without a split line.
        verify(&packed("0.07", 34, 53, 142, "", 176)[..], &mut |_, _| {}).unwrap();
        // By the heap's parity.
        let hp = Split::HeapParity { mask: 1, alpha: 1 };
        let line = format!(
            "split heap-parity mask=1 alpha=1 rare={}\n",
            rare_count("0.07", 176, &hp)
        );
        verify(&packed("0.07", 34, 53, 142, &line, 176)[..], &mut |_, _| {}).unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
        let refused = |b: Vec<u8>| verify(&b[..], &mut |_, _| {}).unwrap_err().to_string();
        // A wrong split: the rare count, a set that is not XOR-free.
        let bad = text(&good).replace(&format!("rare={k}"), &format!("rare={}", k + 1));
        assert!(refused(bad.into_bytes()).contains("wrong split"));
        let bad = packed(
            "0.07",
            34,
            53,
            142,
            &format!("split common 1,2,3 rare={k}\n"),
            176,
        );
        assert!(refused(bad).contains("not XOR-free"));
        // A wrong claim.
        let bad = packed(
            "0.07",
            17,
            53,
            125,
            &format!("split common 1,2,4,7 rare={k}\n"),
            176,
        );
        assert!(refused(bad).contains("fails"));
        // A value changed, with the checksum fixed up: refused by the check; without, by
        // the checksum.
        // (Under the heap-parity split with mask 1, changing bit 1 keeps the rare count.)
        let good = packed("0.07", 34, 53, 142, &line, 176);
        let v = values(&parse_game("0.07").unwrap(), 176, &mut |_| {});
        let mut w = v.clone();
        w[100] ^= 2;
        let at = good.len() - 5 - 176 + 100;
        let mut bad = good.clone();
        bad[at] ^= 2;
        assert!(refused(bad.clone()).contains("checksum"));
        let old = format!(
            "fnv1a64={:016x}",
            fnv1a(FNV_START, &good[good.len() - 5 - 176..good.len() - 5])
        );
        let new = format!(
            "fnv1a64={:016x}",
            fnv1a(FNV_START, &bad[bad.len() - 5 - 176..bad.len() - 5])
        );
        let head_len = good.len() - 5 - 176;
        let head = text(&bad[..head_len]).replace(&old, &new);
        let mut fixed = head.into_bytes();
        fixed.extend_from_slice(&bad[head_len..]);
        let e = refused(fixed);
        assert!(e.starts_with(&format!("G(100) is {}", w[100])), "{e}");
        // Cut short, garbage in the packed bytes.
        assert!(matches!(
            verify(&good[..good.len() - 50], &mut |_, _| {}),
            Err(Refusal::Malformed { .. })
        ));
        let mut bad = good.clone();
        let n = bad.len();
        bad[n - 6] = 0x80;
        assert!(matches!(
            verify(&bad[..], &mut |_, _| {}),
            Err(Refusal::Malformed { .. })
        ));
        // A huge value is refused by the count of options, not allocated for.
        let mut w = v.clone();
        w[50] = u32::MAX - 1;
        let e = check_values_sparse("0.07", &[0, 0, 7], &hp, &w, &mut |_| {}).unwrap_err();
        assert!(e.contains("at most"), "{e}");
        let bad = text(&good).replace("split heap-parity", "split sometimes");
        assert!(matches!(
            verify(bad.as_bytes(), &mut |_, _| {}),
            Err(Refusal::Malformed { .. })
        ));
    }
}
