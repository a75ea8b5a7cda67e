//! Misère canonical forms of the heaps of a heap game ([`crate::canonical`]), heap by heap:
//! the canonical form of heap n is that of the game whose options are its moves' results,
//! and a move that splits a heap leaves a sum, whose form is the canonical sum of its parts'.
//!
//! A heap whose form is a Nim heap *k plays, in every misère sum, exactly like a heap of k
//! in misère Nim; the others are the games that make misère play hard (Plambeck's "woolly
//! mammoths" among the quaternary games). For games whose moves leave single heaps and
//! remove at most t, the form of heap n ≥ r is a function of the forms of the heaps n − k,
//! so the window argument of [`super::genus`] proves a period of the forms (and with it
//! the misère play of every heap), as it does for the genus.

use super::genus::{window_period, GenusMethod, GenusPeriod};
use crate::canonical::{CanonTable, GameId};
use crate::SolveError;
use grundy_core::HeapRules;

/// The misère canonical forms of heaps 0, 1, 2, ... of a heap game.
pub struct CanonSeq {
    rules: HeapRules,
    method: GenusMethod,
    /// Form of heap n, by number in `table`.
    ids: Vec<GameId>,
    table: CanonTable,
}

impl CanonSeq {
    /// An empty sequence of `rules`' forms.
    pub fn new(rules: &HeapRules) -> CanonSeq {
        let method = if rules.max_parts() <= 1 {
            GenusMethod::SingleHeaps
        } else {
            GenusMethod::Sums
        };
        CanonSeq {
            rules: rules.clone(),
            method,
            ids: Vec::new(),
            table: CanonTable::new(),
        }
    }

    /// How the options' forms are found (single heaps, or sums of heaps).
    pub fn method(&self) -> GenusMethod {
        self.method
    }

    /// The rules.
    pub fn rules(&self) -> &HeapRules {
        &self.rules
    }

    /// Heaps computed: 0 .. len − 1.
    pub fn len(&self) -> u64 {
        self.ids.len() as u64
    }

    /// True before heap 0 is computed.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The form of heap `n` (computed), a number in [`CanonSeq::table`].
    pub fn form(&self, n: u64) -> GameId {
        self.ids[n as usize]
    }

    /// The table of every form met (the heaps', their options', the sums').
    pub fn table(&self) -> &CanonTable {
        &self.table
    }

    /// The first heap (computed) whose form is not a Nim heap.
    pub fn first_non_nim(&self) -> Option<u64> {
        self.ids
            .iter()
            .position(|&g| self.table.nim_value(g).is_none())
            .map(|n| n as u64)
    }

    /// Computes heaps up to `to − 1`. Stops with [`SolveError::Halted`] when the process
    /// passes its memory budget (the heaps before stay computed).
    pub fn compute_to(&mut self, to: u64) -> Result<(), SolveError> {
        // The heaps of every option of heap n one after another, each option's ending at
        // its entry of `ends`.
        let mut heaps: Vec<u64> = Vec::new();
        let mut ends: Vec<usize> = Vec::new();
        let mut options: Vec<GameId> = Vec::new();
        let mut parts: Vec<GameId> = Vec::new();
        while self.len() < to {
            let n = self.len();
            heaps.clear();
            ends.clear();
            self.rules.heap_options(n, |p| {
                heaps.extend_from_slice(p);
                ends.push(heaps.len());
            });
            options.clear();
            let mut start = 0;
            for &end in &ends {
                parts.clear();
                parts.extend(heaps[start..end].iter().map(|&h| self.ids[h as usize]));
                options.push(self.table.add_all(&parts)?);
                start = end;
            }
            let g = self.table.of_options(&options);
            if self.ids.len() == self.ids.capacity() && grundy_core::memory::Share::whole().over() {
                return Err(SolveError::Halted);
            }
            self.ids.push(g);
        }
        Ok(())
    }

    /// The least period of the forms proven by the first `len` heaps, when the window
    /// theorem applies (moves leave single heaps and remove a bounded number).
    pub fn period_of(&self, len: u64) -> Option<GenusPeriod> {
        window_period(&self.rules, len.min(self.len()), |a, b| {
            self.ids[a as usize] == self.ids[b as usize]
        })
    }

    /// A name for every game that is not a Nim heap among the forms of heaps 0 .. len − 1
    /// and everything they reach, in order of birth: `g0`, `g1`, ... (as Plambeck names
    /// them). Returns the games named, in order, and a function from game to its notation.
    pub fn names(&self, len: u64) -> Names {
        let mut named = self.reached(len);
        // Born earlier, named earlier; ties by number (the order they were met).
        named.sort_unstable_by_key(|&g| (self.table.birthday(g), g));
        let index = named.iter().enumerate().map(|(i, &g)| (g, i)).collect();
        Names { named, index }
    }

    /// Every game that is not a Nim heap among the forms of heaps 0 .. len − 1 and the
    /// games they reach (options, options' options, ...), in no particular order.
    pub fn reached(&self, len: u64) -> Vec<GameId> {
        let len = len.min(self.len()) as usize;
        let mut seen = hashbrown::HashSet::new();
        let mut reached: Vec<GameId> = Vec::new();
        let mut stack: Vec<GameId> = self.ids[..len].to_vec();
        while let Some(g) = stack.pop() {
            if self.table.nim_value(g).is_some() || !seen.insert(g) {
                continue;
            }
            reached.push(g);
            stack.extend_from_slice(self.table.options(g));
        }
        reached
    }
}

impl super::genus::MisereHeapSeq for CanonSeq {
    fn method(&self) -> GenusMethod {
        CanonSeq::method(self)
    }
    fn heaps_done(&self) -> u64 {
        CanonSeq::len(self)
    }
    fn compute_to(&mut self, to: u64) -> Result<(), SolveError> {
        CanonSeq::compute_to(self, to)
    }
    fn period_of(&self, len: u64) -> Option<GenusPeriod> {
        CanonSeq::period_of(self, len)
    }
    fn stored(&self) -> String {
        format!("{} canonical games stored", self.table.len())
    }
}

/// Names of the non-Nim games of a sequence (see [`CanonSeq::names`]).
pub struct Names {
    /// The games named, `g0` first.
    pub named: Vec<GameId>,
    index: hashbrown::HashMap<GameId, usize>,
}

impl Names {
    /// The notation of `g`: `k` for the Nim heap *k, its name otherwise.
    pub fn of(&self, table: &CanonTable, g: GameId) -> String {
        match table.nim_value(g) {
            Some(k) => k.to_string(),
            None => match self.index.get(&g) {
                Some(i) => format!("g{i}"),
                None => "?".into(),
            },
        }
    }

    /// The options of `g` in notation, largest birthday first ({g1,2,0} style).
    pub fn options_of(&self, table: &CanonTable, g: GameId) -> Vec<String> {
        let mut o = table.options(g).to_vec();
        o.sort_unstable_by_key(|&x| std::cmp::Reverse((table.birthday(x), x)));
        o.iter().map(|&x| self.of(table, x)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use grundy_core::HeapRules;

    fn code(digits: &[u32]) -> HeapRules {
        let mut d = vec![0];
        d.extend_from_slice(digits);
        HeapRules::take_break(&d, &[], 0).unwrap()
    }

    /// The games of heaps 1 to 13 of 0.312 on Plambeck's page (tests/data/
    /// misere-canonical-0312.tsv): 1 2 2+ g0={2+,1} 2+ 2++ g1={g0,2++} 2++ 2+++ ...,
    /// where 2+ is {2}, 2++ is {2+}: each built from its options in the sequence's own
    /// table, where equal games are the same number.
    #[test]
    fn plambeck_0312_forms() {
        let mut seq = CanonSeq::new(&code(&[3, 1, 2]));
        seq.compute_to(14).unwrap();
        let mut defined: hashbrown::HashMap<String, GameId> = hashbrown::HashMap::new();
        let mut rows = 0;
        for line in crate::test_rules::fixture_rows("misere-canonical-0312.tsv") {
            let cols: Vec<&str> = line.split('\t').collect();
            let heap: u64 = cols[0].parse().unwrap();
            let (name, opts) = (cols[1], cols[2]);
            // A name made of options: each option a Nim heap or a name defined above.
            let g = if opts.is_empty() {
                seq.table.nim(name.parse().unwrap())
            } else {
                let o: Vec<GameId> = opts
                    .split(',')
                    .map(|x| match x.parse::<u32>() {
                        Ok(k) => seq.table.nim(k),
                        Err(_) => defined[x],
                    })
                    .collect();
                seq.table.of_options(&o)
            };
            defined.insert(name.to_string(), g);
            assert_eq!(g, seq.form(heap), "0.312 heap {heap}: {name}");
            rows += 1;
        }
        assert_eq!(rows, 13);
        assert_eq!(seq.first_non_nim(), Some(3));
    }

    /// Winning Ways: among the two-digit quaternary games (digits 0 to 3) only .31 has
    /// heaps that are not misère Nim heaps; Plambeck: among the three-digit ones, only the
    /// seven "woolly mammoths" .121 .123 .131 .201 .211 .312 .331. The others are proven
    /// Nim heaps for every heap by a period of the forms (window theorem); the exceptions
    /// show a heap that is not one.
    #[test]
    fn quaternary_games_with_non_nim_heaps() {
        let mut found = Vec::new();
        let mut proven = 0;
        for digits in 2..=3usize {
            for c in 0..4u32.pow(digits as u32) {
                let d: Vec<u32> = (0..digits).rev().map(|i| c / 4u32.pow(i as u32) % 4).collect();
                if d[digits - 1] == 0 {
                    continue;
                }
                let mut seq = CanonSeq::new(&code(&d));
                seq.compute_to(400).unwrap();
                let name: String = d.iter().map(|x| x.to_string()).collect();
                if seq.first_non_nim().is_some() {
                    found.push(format!(".{name}"));
                } else {
                    let p = seq.period_of(400);
                    assert!(p.is_some(), ".{name}: Nim heaps to 400 but no period proven");
                    proven += 1;
                }
                // A period proven by the first 100 heaps holds over all 400.
                if let Some(p) = seq.period_of(100) {
                    for n in p.n0..400 - p.period {
                        assert_eq!(seq.form(n), seq.form(n + p.period), ".{name} {p:?} at {n}");
                    }
                }
            }
        }
        assert_eq!(
            found,
            [".31", ".121", ".123", ".131", ".201", ".211", ".312", ".331"]
        );
        assert_eq!(proven, 12 - 1 + 48 - 7);
    }

    /// For games that split heaps, every sum of up to three heaps of 1 to 9: the misère
    /// outcome of the canonical sum of the heaps' forms against the whole-position search
    /// (no genus, no decomposition).
    #[test]
    fn splitting_games_match_the_search() {
        for d in [&[7u32, 7][..], &[0, 7], &[1, 3, 7], &[4, 4], &[6, 4]] {
            let rules = code(d);
            let mut seq = CanonSeq::new(&rules);
            seq.compute_to(10).unwrap();
            assert_eq!(seq.method(), GenusMethod::Sums);
            let mut search = crate::MisereSearch::new(&rules);
            let mut checked = 0;
            for a in 1..10u64 {
                for b in 0..=a {
                    for c in 0..=b {
                        let heaps: Vec<u64> = [a, b, c].into_iter().filter(|&h| h > 0).collect();
                        let forms: Vec<GameId> = heaps.iter().map(|&h| seq.form(h)).collect();
                        let s = seq.table.add_all(&forms).unwrap();
                        let p = seq.table.is_p_position(s);
                        let o = search.outcome(&heaps).unwrap();
                        assert_eq!(p, o == grundy_core::Outcome::Second, "{d:?} {heaps:?}");
                        checked += 1;
                    }
                }
            }
            assert_eq!(checked, 219);
        }
    }

    /// A heap whose form is the Nim heap *k has the genus of *k and is tame (the genus
    /// engine's answer, computed its own way); the converse fails: .31 is tame to heap 40
    /// and has heaps that are not Nim heaps.
    #[test]
    fn nim_forms_agree_with_the_genus() {
        let (mut tame_not_nim, mut nim_not_tame) = (0, 0);
        for d in [
            &[7u32, 7][..],
            &[0, 7],
            &[3, 1],
            &[3, 1, 2],
            &[1, 2, 3],
            &[4, 4],
            &[1, 3, 7],
        ] {
            let rules = code(d);
            let n = if rules.max_parts() > 1 { 14 } else { 60 };
            let mut forms = CanonSeq::new(&rules);
            forms.compute_to(n).unwrap();
            let mut genus = super::super::genus::GenusSeq::new(&rules);
            genus.compute_to(n).unwrap();
            for h in 0..n {
                match forms.table().nim_value(forms.form(h)) {
                    Some(k) => {
                        assert_eq!(
                            genus.genus(h),
                            &crate::genus::Genus::nim(k as u64),
                            "{d:?} heap {h}"
                        );
                        // Kayles heap 6 is *3 and 0.123 heap 10 is *1, but each can move to a
                        // wild heap (a move that reverses): not hereditarily tame.
                        nim_not_tame += !genus.tame(h) as usize;
                    }
                    None => tame_not_nim += genus.tame(h) as usize,
                }
            }
        }
        assert!(tame_not_nim > 0 && nim_not_tame > 0);
    }
}
