//! The level argument, checked from first principles: the theorem behind the certificates of
//! arithmetic periods of take-and-break games (`theorem level h=H t=T b=B`). The argument and
//! its proof are in docs/games.md ("Arithmetic periodicity of take-and-break games"); this
//! module follows that text step by step and shares nothing with grundy's engines.
//!
//! The claim is G(n + p) = G(n) + s for every n ≥ n0, with s = 2^m. Write every value as
//! v = low(v) + s·level(v), low(v) < s. With n1 = max(n0, 1), the heaps 1 ≤ a < n1 are
//! *small*, the heaps in [n1, n1 + p) are *bases*, and every heap a ≥ n1 is r + p·q for a
//! base r. [`derive()`] lists every *type* of move (the removal k, the sizes of the small
//! parts, the bases of the large parts), works out which levels each type certainly reaches
//! and which it may reach, runs the four checks of the docs for every base ρ and every class
//! of the level Q* modulo 2^B, and returns the heap M0 from which the induction runs. The
//! caller then checks G(n + p) = G(n) + s for n0 ≤ n < max(M0 − p, n0): the bound.

use std::collections::BTreeSet;

/// The largest saltus this checker accepts (larger ones are beyond its limits, not wrong).
pub const MAX_SALTUS: u64 = 1 << 16;
/// The most bits B (2^B exceeds every level of a small heap) this checker accepts.
pub const MAX_BITS: u32 = 12;
/// The most (level, low part) pairs one check marks (top and bottom together).
pub const MAX_PAIRS: u64 = 1 << 26;
/// The most multisets of part sizes this checker lists.
pub const MAX_MULTISETS: u64 = 20_000_000;
/// The representative of the large levels Q*: a multiple of every 2^B accepted.
const BIG: u64 = 1 << 40;

/// What the level argument derives for a claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level {
    /// B: 2^B exceeds every level of a small heap (at least 1).
    pub bits: u32,
    /// M0: if G(n + p) = G(n) + s for n0 ≤ n < M0 − p, it holds for every n ≥ n0.
    pub threshold: u64,
}

/// One type of move of the heaps M ≡ ρ (mod p), with at least one large part.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Type {
    /// λ: the XOR of the low parts of the values of the small parts and of the bases.
    low: u64,
    /// κ: the XOR of the levels of the values of the small parts.
    kappa: u64,
    /// The least levels b_1 ≤ … ≤ b_J of the large parts (the levels of their bases).
    b: Vec<u64>,
    /// c = k + (sizes of the small parts) + (the bases).
    c: u64,
}

impl Type {
    /// J, the number of large parts.
    fn parts(&self) -> usize {
        self.b.len()
    }

    /// The pairs' sum P of the spread construction, when it applies, and its least X:
    /// for odd J ≥ 3, y = (X, c₁, c₁, c₂, c₂, …) with P = b_3 + b_5 + … (1-based) and X ≥ b_1;
    /// for even J ≥ 4 with b_1 = 0, y = (0, X, c₁, c₁, …) with P = b_4 + b_6 + … and X ≥ b_2.
    fn spread(&self) -> Option<(u64, u64)> {
        let j = self.parts();
        // Sum of every other least level from index `from` on (0-based): the larger of
        // each pair.
        let pairs = |from: usize| self.b.iter().skip(from).step_by(2).sum::<u64>();
        if j >= 3 && j % 2 == 1 {
            Some((self.b[0], pairs(2)))
        } else if j >= 4 && self.b[0] == 0 {
            Some((self.b[1], pairs(3)))
        } else {
            None
        }
    }

    /// P₀ of the zero construction (even J: y = (c₁, c₁, c₂, c₂, …), c_i ≥ b_{2i}), so
    /// X = 0 is reached when T is even and T/2 ≥ P₀.
    fn zero(&self) -> Option<u64> {
        self.parts()
            .is_multiple_of(2)
            .then(|| self.b.iter().skip(1).step_by(2).sum::<u64>())
    }

    /// X = T is reached: J = 1, or at most one b_i positive (T on it, 0 on the others).
    fn top(&self) -> bool {
        self.parts() == 1 || self.b.iter().filter(|&&x| x > 0).count() <= 1
    }

    /// The levels in [from, to] this type certainly reaches when the large parts' levels
    /// sum to `t` (the level of an option is κ ⊕ X; κ < `w` = 2^B).
    fn reached(&self, t: u64, w: u64, from: u64, to: u64, out: &mut Vec<u64>) {
        out.clear();
        let mut keep = |x: u64| {
            let level = x ^ self.kappa;
            if from <= level && level <= to {
                out.push(level);
            }
        };
        if self.top() {
            keep(t);
        }
        if let Some((lo, pairs)) = self.spread() {
            if let Some(hi) = t.checked_sub(2 * pairs) {
                // κ < 2^B changes only the last B bits: X within 2^B of the window suffices.
                let mut x = lo.max(from.saturating_sub(w));
                if x % 2 != t % 2 {
                    x += 1;
                }
                while x <= hi.min(to + w) {
                    keep(x);
                    x += 2;
                }
            }
        }
        if let Some(p0) = self.zero() {
            if t.is_multiple_of(2) && t / 2 >= p0 {
                keep(0);
            }
        }
    }

    /// Whether this type *may* reach level `level` (a necessary condition): for J = 1 the
    /// level is exactly κ ⊕ T; for J ≥ 2, X = level ⊕ κ needs X ≤ T and X ≡ T (mod 2), as
    /// the XOR of numbers is at most their sum and has its parity.
    fn may_reach(&self, t: u64, level: u64) -> bool {
        let x = level ^ self.kappa;
        if self.parts() == 1 {
            x == t
        } else {
            x <= t && x % 2 == t % 2
        }
    }
}

/// Runs the level argument for the claim G(n + p) = G(n) + s from n0 on, for the
/// take-and-break code `digits` (digit k for removing k tokens, bit j for leaving j heaps)
/// with the values `g` (at least n1 + p of them, n1 = max(n0, 1), already checked against
/// the rules). Returns B and the threshold M0, or why the argument does not apply.
pub fn derive(digits: &[u8], p: u64, s: u64, n0: u64, g: &[u32]) -> Result<Level, String> {
    if p == 0 {
        return Err("period 0".into());
    }
    if !s.is_power_of_two() {
        return Err(format!("saltus {s}: the level argument needs a power of two"));
    }
    if s > MAX_SALTUS {
        return Err(format!("saltus {s}: beyond this checker's limit {MAX_SALTUS}"));
    }
    let n1 = n0.max(1);
    let base = n1
        .checked_add(p)
        .filter(|&b| b <= g.len() as u64)
        .ok_or_else(|| {
            format!(
                "the level argument reads the values of the heaps below n1 + p = {}",
                n1.saturating_add(p)
            )
        })?;
    let m = s.trailing_zeros();
    let low = |a: u64| u64::from(g[a as usize]) & (s - 1);
    let level = |a: u64| u64::from(g[a as usize]) >> m;

    // B: 2^B exceeds every level of a small heap, so every κ.
    let top_small = (1..n1).map(level).max().unwrap_or(0);
    let bits = (u64::BITS - top_small.leading_zeros()).max(1);
    if bits > MAX_BITS {
        return Err(format!(
            "2^{bits} classes: beyond this checker's limit 2^{MAX_BITS}"
        ));
    }
    let w = 1u64 << bits;

    // Every type: each digit k, each bit j ≥ 1 set in it (leave j heaps), each multiset of
    // j part sizes in [1, base) (a size ≥ n1 stands for its base).
    let mut multisets = 0u64;
    for &d in digits {
        for j in 1..8u64 {
            if d >> j & 1 == 1 {
                // C(base − 1 + j − 1, j) multisets of j sizes among base − 1.
                let mut count = 1u64;
                for i in 0..j {
                    count = count.saturating_mul(base - 1 + i) / (i + 1);
                }
                multisets = multisets.saturating_add(count);
            }
        }
    }
    if multisets > MAX_MULTISETS {
        return Err(format!(
            "{multisets} multisets of parts: beyond this checker's limit {MAX_MULTISETS}"
        ));
    }
    let mut types: BTreeSet<Type> = BTreeSet::new();
    // The largest heap whose move leaves only small parts (such a move is a move of that
    // heap only), and the most tokens removed.
    let mut small_only = 0u64;
    let mut t_max = 0u64;
    for (k, &d) in digits.iter().enumerate() {
        let k = k as u64;
        if d != 0 {
            t_max = k;
        }
        for j in 1..8usize {
            if d >> j & 1 == 0 {
                continue;
            }
            // An odometer over nondecreasing sizes: 1 ≤ parts[0] ≤ … ≤ parts[j−1] < base.
            let mut parts = vec![1u64; j];
            loop {
                let mut t = Type {
                    low: 0,
                    kappa: 0,
                    b: Vec::new(),
                    c: k,
                };
                for &a in &parts {
                    t.low ^= low(a);
                    t.c += a;
                    if a < n1 {
                        t.kappa ^= level(a);
                    } else {
                        t.b.push(level(a));
                    }
                }
                if t.b.is_empty() {
                    small_only = small_only.max(t.c);
                } else {
                    t.b.sort_unstable();
                    types.insert(t);
                }
                let Some(i) = (0..j).rev().find(|&i| parts[i] + 1 < base) else {
                    break;
                };
                let next = parts[i] + 1;
                for x in &mut parts[i..] {
                    *x = next;
                }
            }
        }
    }

    let mut threshold = (t_max + 1).max(small_only + 1).max(base);
    let mut levels = Vec::new();
    for rho in n1..base {
        let (low_rho, level_rho) = (low(rho), level(rho));
        // The types of the heaps M = ρ + p·Q: c ≡ ρ (mod p); c ≥ ρ since c holds a base.
        // For each: e = level(G(ρ)) + (c − ρ)/p − Σ b, so that T = Q* − e.
        let mut mine: Vec<(&Type, i64)> = Vec::new();
        // Q from which every type is a move of M (M ≥ c).
        let mut q_moves = 0u64;
        for t in &types {
            if t.c < rho || (t.c - rho) % p != 0 {
                continue;
            }
            let shift = (t.c - rho) / p;
            q_moves = q_moves.max(shift);
            let e = level_rho as i64 + shift as i64 - t.b.iter().sum::<u64>() as i64;
            mine.push((t, e));
        }
        let e_max = mine.iter().map(|&(_, e)| e.max(0) as u64).max().unwrap_or(0);
        let b_max = mine
            .iter()
            .map(|(t, _)| *t.b.last().unwrap_or(&0))
            .max()
            .unwrap_or(0);
        let p_max = mine
            .iter()
            .map(|(t, _)| t.spread().map_or(0, |(_, p)| p).max(t.zero().unwrap_or(0)))
            .max()
            .unwrap_or(0);
        let depth = e_max + 2 * p_max + 2 * w + 2;
        let bottom = b_max + 2 * w;
        if (depth + 1 + bottom).saturating_mul(s) > MAX_PAIRS {
            return Err(format!(
                "{} (level, low part) pairs to check for the heaps {rho} + {p}·Q: beyond this checker's limit {MAX_PAIRS}",
                (depth + 1 + bottom).saturating_mul(s)
            ));
        }
        let fail = |z: u64, what: String| {
            Err(format!(
                "the level argument fails for the heaps {rho} + {p}·Q with Q* ≡ {z} (mod {w}): {what}"
            ))
        };
        for z in 0..w {
            let q_star = BIG + z;
            let t_of = |e: i64| (q_star as i64 - e) as u64;
            // 1. No option may have the formula's value (level Q*, low part low(G(ρ))).
            for &(t, e) in &mine {
                if t.low == low_rho && t.may_reach(t_of(e), q_star) {
                    return fail(z, "a move may reach the value the formula gives".into());
                }
            }
            // 2. The top: every (Q* − d, l), 1 ≤ d ≤ depth, and (Q*, l) for l < low(G(ρ)).
            // 3. The bottom: every (v, l) with v < bottom.
            let top_from = q_star - depth;
            let mut top = vec![false; ((depth + 1) * s) as usize];
            let mut low_levels = vec![false; (bottom * s) as usize];
            for &(t, e) in &mine {
                t.reached(t_of(e), w, top_from, q_star, &mut levels);
                for &v in &levels {
                    top[((v - top_from) * s + t.low) as usize] = true;
                }
                t.reached(t_of(e), w, 0, bottom - 1, &mut levels);
                for &v in &levels {
                    low_levels[(v * s + t.low) as usize] = true;
                }
            }
            for v in top_from..=q_star {
                let lows = if v == q_star { low_rho } else { s };
                if let Some(l) = (0..lows).find(|&l| !top[((v - top_from) * s + l) as usize]) {
                    return fail(
                        z,
                        format!("no move reaches level Q* − {}, low part {l}", q_star - v),
                    );
                }
            }
            for v in 0..bottom {
                if let Some(l) = (0..s).find(|&l| !low_levels[(v * s + l) as usize]) {
                    return fail(z, format!("no move reaches level {v}, low part {l}"));
                }
            }
            // 4. In between: for each low part and each parity of the level, a type with the
            // spread construction whose X = level ⊕ κ has the parity of T.
            for l in 0..s {
                for parity in 0..2 {
                    if !mine.iter().any(|&(t, e)| {
                        t.low == l && t.spread().is_some() && (parity ^ (t.kappa & 1)) == t_of(e) % 2
                    }) {
                        return fail(
                            z,
                            format!("no spread move gives low part {l} and levels of parity {parity}"),
                        );
                    }
                }
            }
        }
        // Past this Q* the answers at the representative hold for every Q* of its class.
        let q_star_min = (depth + w + b_max)
            .max(bottom + w + e_max + 2 * p_max)
            .max(depth + bottom)
            + 1;
        let q = q_star_min.saturating_sub(level_rho).max(q_moves);
        threshold = threshold.max(rho + p * q);
    }
    Ok(Level { bits, threshold })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_game, values, verify, Refusal, Rules};

    fn digits(code: &str) -> Vec<u8> {
        match parse_game(code).unwrap() {
            Rules::TakeBreak(d) => d,
            r => panic!("{r:?}"),
        }
    }

    /// The bound the argument gives a claim, from the values alone.
    fn bound(code: &str, p: u64, s: u64, n0: u64) -> Result<(u32, u64), String> {
        let g = values(&parse_game(code).unwrap(), (n0.max(1) + p) as usize, &mut |_| {});
        let l = derive(&digits(code), p, s, n0, &g)?;
        Ok((l.bits, l.threshold.saturating_sub(p).max(n0)))
    }

    /// A certificate of the claim, with the values recomputed here.
    fn certificate(code: &str, p: u64, s: u64, n0: u64) -> String {
        let (bits, b) = bound(code, p, s, n0).unwrap();
        let g = values(&parse_game(code).unwrap(), (b + p) as usize, &mut |_| {});
        let v: Vec<String> = g.iter().map(|x| x.to_string()).collect();
        let t = digits(code).iter().rposition(|&d| d != 0).unwrap();
        format!(
            "grundy-certificate 1\ngame {code}\nclaim arithmetic-periodic\nperiod {p}\nn0 {n0}\nsaltus {s}\ntheorem level h=3 t={t} b={bits}\nbound {b}\nvalues {}\n{}\nend\n",
            b + p,
            v.join(" ")
        )
    }

    /// The games of docs/games.md's table: the argument gives the bounds grundy's engine
    /// gives (values needed = bound + p), each certificate is valid, and each claim holds on
    /// values computed far past its bound.
    #[test]
    fn the_published_table() {
        for (code, p, s, n0, needed) in [
            ("0.FF", 1, 1, 0, 16),
            ("hex:8.0", 2, 1, 1, 28),
            ("hex:0.C", 2, 1, 1, 29),
            ("hex:0.8", 3, 1, 1, 43),
            ("0.BF", 1, 1, 4, 37),
            ("0.8F", 7, 4, 7, 121),
        ] {
            let (_, b) = bound(code, p, s, n0).unwrap();
            assert_eq!(b + p, needed, "{code}");
            let ok = verify(certificate(code, p, s, n0).as_bytes(), &mut |_, _| {}).unwrap();
            assert_eq!((ok.period, ok.saltus, ok.n0, ok.bound), (p, s, n0, b), "{code}");
            assert!(ok.least_n0, "{code}");
            let far = values(
                &parse_game(code).unwrap(),
                (3 * (b + p) as usize).max(300),
                &mut |_| {},
            );
            for n in n0 as usize..far.len() - p as usize {
                assert_eq!(far[n + p as usize], far[n] + s as u32, "{code} at {n}");
            }
        }
    }

    /// Each part of a certificate altered: refused as wrong (exit 1), never accepted. (A
    /// larger n0 is a weaker claim that still holds: it is accepted, "a smaller n0 also
    /// holds".)
    #[test]
    fn tampering_is_refused() {
        let good = certificate("0.8F", 7, 4, 7);
        verify(good.as_bytes(), &mut |_, _| {}).unwrap();
        for (from, to) in [
            ("values 121\n0 0 1", "values 121\n0 0 2"),
            ("saltus 4", "saltus 2"),
            ("saltus 4", "saltus 8"),
            ("period 7", "period 14"),
            ("n0 7", "n0 6"),
            ("bound 114", "bound 113"),
            ("bound 114", "bound 115"),
            ("theorem level h=3 t=2 b=1", "theorem level h=3 t=2 b=2"),
            ("theorem level h=3 t=2 b=1", "theorem take-and-break h=3 t=2"),
            ("claim arithmetic-periodic", "claim periodic"),
            ("game 0.8F", "game 0.8E"),
        ] {
            assert!(good.contains(from), "{from}");
            let bad = good.replacen(from, to, 1);
            match verify(bad.as_bytes(), &mut |_, _| {}) {
                Err(Refusal::Wrong(_)) => {}
                other => panic!("{from} -> {to}: {other:?}"),
            }
        }
        let g = values(&parse_game("0.8F").unwrap(), 121, &mut |_| {});
        assert!(derive(&digits("0.8F"), 7, 4, 7, &g).is_ok());
        // An octal code cannot be arithmetic-periodic by this theorem.
        let text = "grundy-certificate 1\ngame 0.77\nclaim arithmetic-periodic\nperiod 1\nn0 0\nsaltus 1\ntheorem level h=2 t=2 b=1\nbound 0\nvalues 1\n0\nend\n";
        assert!(
            matches!(verify(text.as_bytes(), &mut |_, _| {}), Err(Refusal::Wrong(m)) if m.contains("three heaps"))
        );
        // Saltus not a power of two, too large, and too few values for the bases.
        assert!(derive(&digits("0.8F"), 7, 3, 7, &g).is_err());
        assert!(derive(&digits("0.8F"), 7, 1 << 20, 7, &g).is_err());
        assert!(derive(&digits("0.8F"), 7, 4, 7, &g[..13]).is_err());
    }

    /// Every code d0.d1 and d0.d1d2 with d2 in {0, F} (d0 in 0, 4, 8, C) whose moves may leave
    /// three heaps, every p ≤ 6: where the values show G(n + p) − G(n) = s, a power of two,
    /// at the end, and the argument derives a bound up to which the values satisfy the claim,
    /// the claim holds on values computed to three times that bound (at least 360 heaps).
    /// This checks the checker's soundness without grundy's engines.
    #[test]
    fn every_claim_the_checker_accepts_holds_far_past_its_bound() {
        let mut accepted = 0;
        for d0 in [0u8, 4, 8, 12] {
            for d1 in 0..16u8 {
                for tail in [&[][..], &[15u8][..]] {
                    let mut d = vec![d0, d1];
                    d.extend_from_slice(tail);
                    if d.iter().all(|&x| x & 8 == 0) {
                        continue;
                    }
                    let rules = Rules::TakeBreak(d.clone());
                    let g = values(&rules, 240, &mut |_| {});
                    for p in 1..=6usize {
                        let last = g.len() - 1;
                        let (a, b) = (g[last - p], g[last]);
                        if b <= a || !(b - a).is_power_of_two() {
                            continue;
                        }
                        let s = b - a;
                        let mut n0 = last - p;
                        while n0 > 0 && g[n0 - 1 + p] == g[n0 - 1] + s {
                            n0 -= 1;
                        }
                        let Ok(l) = derive(&d, p as u64, u64::from(s), n0 as u64, &g) else {
                            continue;
                        };
                        let b = (l.threshold as usize).saturating_sub(p).max(n0);
                        if b + p > g.len() {
                            continue;
                        }
                        accepted += 1;
                        let far = values(&rules, (3 * (b + p)).max(360), &mut |_| {});
                        for n in n0..far.len() - p {
                            assert_eq!(
                                far[n + p],
                                far[n] + s,
                                "{d:?} p {p} s {s} n0 {n0} bound {b} at {n}"
                            );
                        }
                    }
                }
            }
        }
        assert!(
            accepted >= 5,
            "{accepted} claims accepted: the sweep proves little"
        );
    }
}
