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

use std::io::BufRead;

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
    /// The theorem line: `take-and-break h=H t=T` or `all-but e=E`.
    pub theorem: String,
    /// The bound B of the theorem.
    pub bound: u64,
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

/// Reads a certificate (docs/certificates.md): header lines in a fixed order, the values,
/// `end`. Lines starting with `#` before the values are comments.
pub fn read(input: impl BufRead) -> Result<Certificate, Refusal> {
    let mut lines = input.lines().enumerate().map(|(i, l)| (i + 1, l));
    let mut next_header = |key: &str| -> Result<(usize, String), Refusal> {
        loop {
            let Some((n, line)) = lines.next() else {
                return Err(Refusal::Malformed {
                    line: 0,
                    message: format!("the file ends before the '{key}' line"),
                });
            };
            let line = line.map_err(|e| Refusal::Malformed {
                line: n,
                message: e.to_string(),
            })?;
            let line = line.trim().to_string();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (k, v) = line.split_once(' ').unwrap_or((line.as_str(), ""));
            if k != key {
                return Err(Refusal::Malformed {
                    line: n,
                    message: format!("expected '{key} ...', found '{}'", cut(&line)),
                });
            }
            return Ok((n, v.trim().to_string()));
        }
    };
    let number = |(n, v): (usize, String), key: &str| -> Result<u64, Refusal> {
        v.parse::<u64>().map_err(|_| Refusal::Malformed {
            line: n,
            message: format!("{key}: '{}' is not a whole number", cut(&v)),
        })
    };
    let (n, version) = next_header("grundy-certificate")?;
    if version != "1" {
        return Err(Refusal::Malformed {
            line: n,
            message: format!("version '{}' (this checker reads version 1)", cut(&version)),
        });
    }
    let (n, game) = next_header("game")?;
    let rules = parse_game(&game).map_err(|message| Refusal::Malformed { line: n, message })?;
    let (n, claim) = next_header("claim")?;
    if claim != "periodic" && claim != "arithmetic-periodic" {
        return Err(Refusal::Malformed {
            line: n,
            message: format!(
                "claim '{}' (expected periodic or arithmetic-periodic)",
                cut(&claim)
            ),
        });
    }
    let period = number(next_header("period")?, "period")?;
    let n0 = number(next_header("n0")?, "n0")?;
    let saltus = number(next_header("saltus")?, "saltus")?;
    let (_, theorem) = next_header("theorem")?;
    let bound = number(next_header("bound")?, "bound")?;
    let (vn, vtext) = next_header("values")?;
    let count = number((vn, vtext), "values")?;
    if count > MAX_VALUES {
        return Err(Refusal::Malformed {
            line: vn,
            message: format!("values: {count} is more than this checker reads ({MAX_VALUES})"),
        });
    }
    let mut values: Vec<u32> = Vec::with_capacity(count.min(1 << 26) as usize);
    let mut ended = false;
    for (n, line) in lines {
        let line = line.map_err(|e| Refusal::Malformed {
            line: n,
            message: e.to_string(),
        })?;
        let line = line.trim();
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
    Ok(Certificate {
        game,
        rules,
        claim,
        period,
        n0,
        saltus,
        theorem,
        bound,
        values,
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
    /// Values recomputed and compared.
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
    // The theorem and its bound, derived here from the rules.
    let (theorem, bound) = match heaps_and_removal(&c.rules) {
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
    // Every value, from the rules.
    let total = len;
    let own = values(&c.rules, len as usize, &mut |n| progress(n as u64, total));
    progress(total, total);
    if let Some(n) = (0..len as usize).find(|&n| own[n] != c.values[n]) {
        return wrong(format!(
            "G({n}) is {} in the certificate, but the rules of {} give {}",
            c.values[n], c.game, own[n]
        ));
    }
    let g = |n: u64| u64::from(own[n as usize]);
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
    if s > 0 {
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
    let ops = work(&c.rules, c.values.len() as u64);
    if ops > 1e9 {
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
        if ops > 1e9 && last.elapsed().as_secs() >= 5 {
            last = std::time::Instant::now();
            // Work grows with the square of the heap: the share done is (done/total)^2.
            let share = (done as f64 / total.max(1) as f64).powi(2);
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
                "valid: {} has {claim} (theorem {}, bound {}; {} values recomputed from the rules{}) in {:.2} s",
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
