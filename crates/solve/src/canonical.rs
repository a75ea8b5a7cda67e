//! Misère canonical forms of impartial games: the simplest game equal to a given one in
//! every misère sum (Conway, On Numbers and Games, ch. 12; Siegel, "On the structure of
//! misère impartial games", 2020, §2).
//!
//! Two games G and H are equal in misère play when G + X and H + X have the same misère
//! outcome for every game X. Every game has a unique simplest form, reached by the
//! Grundy–Smith rule alone, which here reads:
//!
//! - **Reversal through a nonzero game.** If H ≠ 0 is a game whose options all lie among
//!   G's, and every other option of G has H itself as an option, then G = H. (For any X,
//!   by induction on X: if H + X is a P-position, every option of G + X is an N-position,
//!   the extra ones E + X because they move to H + X; if H + X is an N-position it has a
//!   P option, H′ + X or H + X′, and G + X has the same.)
//! - **Reversal through zero, with the proviso.** If 0 is not an option of G, every option
//!   of G has 0 as an option, and some option of G is a misère P-position (so G itself is
//!   an N-position, as 0 is), then G = 0. Without the proviso this fails: {*2} is not 0.
//!
//! Conway showed that a game none of whose options reverses is in simplest form and that
//! the simplest form is unique, so two games are equal exactly when their canonical forms
//! are identical. Here every game is stored once, by its canonical options (hash-consed),
//! and a game is a number: equality is `==`.
//!
//! Finding the H of the first rule: the options kept are exactly those born before H (an
//! option with H as an option is born after it), so H's options are the options of G born
//! before some day and the others are born at least two days later. Only such "generation
//! gaps" in the options sorted by birthday are tried, and H must already be stored (an
//! option can only have a stored game as its option). CGSuite reduces the same way.
//!
//! Sums are computed from their options (G + H has the options G′ + H and G + H′), memoized
//! by pair, with an explicit stack: no recursion on the depth of the games.
//!
//! The forms grow fast for wild games (the games born by day 5 number 4 171 780); the
//! table stops with [`SolveError::Halted`] at the memory budget.

use crate::SolveError;
use foldhash::fast::RandomState;
use hashbrown::{HashMap, HashTable};
use std::hash::BuildHasher;

/// A game in the table: its number. Games are equal in misère play exactly when their
/// numbers are equal.
pub type GameId = u32;

/// The game without moves, 0.
pub const ZERO: GameId = 0;

/// Every misère canonical form met so far, hash-consed.
pub struct CanonTable {
    /// Every game's options one after another, each game's sorted by number.
    flat: Vec<GameId>,
    /// Where game g's options start in `flat` (and end: `starts[g + 1]`).
    starts: Vec<usize>,
    /// Each game's birthday (0 for 0; one more than its options' largest).
    birthday: Vec<u32>,
    /// Whether the player to move loses in misère play (a P-position).
    p_position: Vec<bool>,
    /// The Nim heap it is, if it is one.
    nim: Vec<Option<u32>>,
    /// Every game, found by its option list (hashed; the lists are stored once, in `flat`).
    index: HashTable<GameId>,
    /// The hasher of option lists.
    hasher: RandomState,
    /// The sum of two games (smaller number first).
    sums: HashMap<(GameId, GameId), GameId, RandomState>,
}

impl Default for CanonTable {
    fn default() -> Self {
        CanonTable::new()
    }
}

impl CanonTable {
    /// A table holding only 0.
    pub fn new() -> CanonTable {
        let mut t = CanonTable {
            flat: Vec::new(),
            starts: vec![0],
            birthday: Vec::new(),
            p_position: Vec::new(),
            nim: Vec::new(),
            index: HashTable::new(),
            hasher: RandomState::default(),
            sums: HashMap::default(),
        };
        t.insert(Vec::new());
        t
    }

    /// Games stored.
    pub fn len(&self) -> usize {
        self.birthday.len()
    }

    /// Always false: 0 is stored from the start.
    pub fn is_empty(&self) -> bool {
        self.birthday.is_empty()
    }

    /// The canonical options of `g`, sorted by number.
    pub fn options(&self, g: GameId) -> &[GameId] {
        &self.flat[self.starts[g as usize]..self.starts[g as usize + 1]]
    }

    /// The game whose canonical options are exactly `s` (sorted), if it is stored.
    fn find(&self, s: &[GameId]) -> Option<GameId> {
        let h = self.hasher.hash_one(s);
        self.index.find(h, |&g| self.options(g) == s).copied()
    }

    /// The day `g` is born: 0 for 0, otherwise one more than its options' latest.
    pub fn birthday(&self, g: GameId) -> u32 {
        self.birthday[g as usize]
    }

    /// Whether the player to move in `g` alone loses in misère play.
    pub fn is_p_position(&self, g: GameId) -> bool {
        self.p_position[g as usize]
    }

    /// `Some(k)` when `g` is the Nim heap *k.
    pub fn nim_value(&self, g: GameId) -> Option<u32> {
        self.nim[g as usize]
    }

    /// The Nim heap *k ({*0, ..., *(k−1)}, which is canonical).
    pub fn nim(&mut self, k: u32) -> GameId {
        let mut g = ZERO;
        let mut opts = Vec::with_capacity(k as usize);
        for _ in 0..k {
            opts.push(g);
            g = self.of_options(&opts);
        }
        g
    }

    /// The game whose options are `options` (any order, repeats allowed), in canonical form.
    pub fn of_options(&mut self, options: &[GameId]) -> GameId {
        let mut s = options.to_vec();
        s.sort_unstable();
        s.dedup();
        if let Some(g) = self.find(&s) {
            return g;
        }
        // Reversal through zero, with the proviso (s is not empty: 0 is stored).
        if s[0] != ZERO
            && s.iter().all(|&o| self.options(o).first() == Some(&ZERO))
            && s.iter().any(|&o| self.is_p_position(o))
        {
            return ZERO;
        }
        // Reversal through a nonzero H: at a generation gap of the options by birthday
        // (the distinct birthdays sorted; H's options are those born up to a gap's start).
        let mut days: Vec<u32> = s.iter().map(|&o| self.birthday(o)).collect();
        days.sort_unstable();
        days.dedup();
        let mut prefix = Vec::new();
        for w in days.windows(2) {
            if w[1] < w[0] + 2 {
                continue;
            }
            prefix.clear();
            prefix.extend(s.iter().copied().filter(|&o| self.birthday(o) <= w[0]));
            if let Some(h) = self.find(&prefix) {
                if s.iter()
                    .filter(|&&o| self.birthday(o) > w[0])
                    .all(|&o| self.options(o).binary_search(&h).is_ok())
                {
                    return h;
                }
            }
        }
        self.insert(s)
    }

    /// Stores `s` (sorted, canonical) as a new game.
    fn insert(&mut self, s: Vec<GameId>) -> GameId {
        let g = self.len() as GameId;
        let birthday = s.iter().map(|&o| self.birthday(o) + 1).max().unwrap_or(0);
        // With options, P exactly when every option is an N-position; without, N.
        let p = !s.is_empty() && s.iter().all(|&o| !self.is_p_position(o));
        // The options are distinct games, so k Nim heaps all below *k are *0 .. *(k−1).
        let nim = s
            .iter()
            .all(|&o| self.nim_value(o).is_some_and(|v| (v as usize) < s.len()))
            .then_some(s.len() as u32);
        let h = self.hasher.hash_one(&s[..]);
        self.flat.extend_from_slice(&s);
        self.starts.push(self.flat.len());
        self.birthday.push(birthday);
        self.p_position.push(p);
        self.nim.push(nim);
        let (flat, starts, hasher) = (&self.flat, &self.starts, &self.hasher);
        self.index.insert_unique(h, g, |&x| {
            hasher.hash_one(&flat[starts[x as usize]..starts[x as usize + 1]])
        });
        g
    }

    /// The sum `a + b` in canonical form. Stops with [`SolveError::Halted`] when the
    /// process passes its memory budget (what was stored stays stored).
    pub fn add(&mut self, a: GameId, b: GameId) -> Result<GameId, SolveError> {
        let key = |x: GameId, y: GameId| if x <= y { (x, y) } else { (y, x) };
        if a == ZERO || b == ZERO {
            return Ok(a.max(b));
        }
        if let Some(&s) = self.sums.get(&key(a, b)) {
            return Ok(s);
        }
        // Depth-first, one frame per sum being computed: its pair, the next option to look
        // at, and where its options' values start in `values` (the frames' values lie one
        // after another). Every sum is pushed once; the stack is as deep as the games.
        let mut stack: Vec<((GameId, GameId), usize, usize)> = vec![(key(a, b), 0, 0)];
        let mut values: Vec<GameId> = Vec::new();
        let mut steps = 0u32;
        while let Some(&mut ((x, y), ref mut next, base)) = stack.last_mut() {
            // Options x′ + y, then x + y′.
            let nx = self.options(x).len();
            let total = nx + self.options(y).len();
            let mut missing = None;
            while *next < total {
                let (m, other) = if *next < nx {
                    (self.options(x)[*next], y)
                } else {
                    (self.options(y)[*next - nx], x)
                };
                if m == ZERO {
                    values.push(other);
                } else if let Some(&s) = self.sums.get(&key(m, other)) {
                    values.push(s);
                } else {
                    missing = Some(key(m, other));
                    break;
                }
                *next += 1;
            }
            if let Some(pair) = missing {
                stack.push((pair, 0, values.len()));
                continue;
            }
            let s = self.of_options(&values[base..]);
            values.truncate(base);
            self.sums.insert((x, y), s);
            stack.pop();
            steps += 1;
            if steps.is_multiple_of(4096) && grundy_core::memory::Share::whole().over() {
                return Err(SolveError::Halted);
            }
        }
        Ok(self.sums[&key(a, b)])
    }

    /// The sum of `parts` in canonical form (0 for none).
    pub fn add_all(&mut self, parts: &[GameId]) -> Result<GameId, SolveError> {
        parts.iter().try_fold(ZERO, |acc, &p| self.add(acc, p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The misère outcome of a sum of nodes of an explicit game DAG (node i's options are
    /// nodes of smaller number), by whole-tree search with no simplification: the
    /// deliberately simple reference. True when the player to move loses.
    fn brute_p(dag: &[Vec<usize>], parts: &[usize], memo: &mut HashMap<Vec<usize>, bool>) -> bool {
        // Explicit stack over sums (sorted lists of nodes).
        let start = {
            let mut p = parts.to_vec();
            p.sort_unstable();
            p
        };
        let mut stack = vec![start.clone()];
        while let Some(pos) = stack.last().cloned() {
            if memo.contains_key(&pos) {
                stack.pop();
                continue;
            }
            let mut children = Vec::new();
            for (i, &node) in pos.iter().enumerate() {
                for &o in &dag[node] {
                    let mut c = pos.clone();
                    c[i] = o;
                    c.sort_unstable();
                    children.push(c);
                }
            }
            let missing: Vec<_> = children
                .iter()
                .filter(|c| !memo.contains_key(*c))
                .cloned()
                .collect();
            if !missing.is_empty() {
                stack.extend(missing);
                continue;
            }
            // A move-less position is a win for the player to move (misère).
            let p = !children.is_empty() && children.iter().all(|c| !memo[c]);
            memo.insert(pos, p);
            stack.pop();
        }
        memo[&start]
    }

    /// A random DAG: node 0 has no options; node i has options among 0..i.
    fn dag_strategy() -> impl Strategy<Value = Vec<Vec<usize>>> {
        proptest::collection::vec(
            proptest::collection::vec(any::<prop::sample::Index>(), 0..4),
            1..9,
        )
        .prop_map(|rows| {
            let mut dag = vec![Vec::new()];
            for (i, row) in rows.into_iter().enumerate() {
                let n = i + 1;
                let mut opts: Vec<usize> = row.iter().map(|ix| ix.index(n)).collect();
                opts.sort_unstable();
                opts.dedup();
                dag.push(opts);
            }
            dag
        })
    }

    fn canon_of(table: &mut CanonTable, dag: &[Vec<usize>]) -> Vec<GameId> {
        let mut ids: Vec<GameId> = Vec::new();
        for opts in dag {
            let o: Vec<GameId> = opts.iter().map(|&i| ids[i]).collect();
            ids.push(table.of_options(&o));
        }
        ids
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Games with the same canonical form have the same misère outcome beside every
        /// node and every pair of nodes of the DAG; the canonical form keeps the outcome;
        /// the canonical sum is the canonical form of the sum built as a tree.
        #[test]
        fn equal_forms_play_alike(dag in dag_strategy()) {
            let mut table = CanonTable::new();
            let ids = canon_of(&mut table, &dag);
            let mut memo = HashMap::new();
            let n = dag.len();
            for a in 0..n {
                prop_assert_eq!(table.is_p_position(ids[a]), brute_p(&dag, &[a], &mut memo));
                for b in 0..n {
                    let s = table.add(ids[a], ids[b]).unwrap();
                    prop_assert_eq!(table.is_p_position(s), brute_p(&dag, &[a, b], &mut memo));
                }
            }
            for a in 0..n {
                for b in a + 1..n {
                    if ids[a] != ids[b] {
                        continue;
                    }
                    for x in 0..n {
                        prop_assert_eq!(brute_p(&dag, &[a, x], &mut memo), brute_p(&dag, &[b, x], &mut memo));
                        for y in x..n {
                            prop_assert_eq!(
                                brute_p(&dag, &[a, x, y], &mut memo),
                                brute_p(&dag, &[b, x, y], &mut memo),
                                "nodes {} {} with {} {}", a, b, x, y
                            );
                        }
                    }
                }
            }
        }
    }

    /// The canonical form of the sum of two DAG nodes equals the one computed from the sum's
    /// own tree (options a′ + b and a + b′, built with no table).
    #[test]
    fn sums_match_their_trees() {
        let dag: Vec<Vec<usize>> = vec![
            vec![],
            vec![0],
            vec![1],
            vec![0, 2],
            vec![1, 3],
            vec![2, 4],
            vec![0, 3, 5],
        ];
        let mut table = CanonTable::new();
        let ids = canon_of(&mut table, &dag);
        // The tree of a + b: node (a, b) with options (a′, b) and (a, b′), in order of a + b.
        let n = dag.len();
        let mut sum_ids = vec![vec![ZERO; n]; n];
        for total in 0..2 * n {
            for a in 0..n {
                if total < a || total - a >= n {
                    continue;
                }
                let b = total - a;
                let mut o = Vec::new();
                o.extend(dag[a].iter().map(|&a2| sum_ids[a2][b]));
                o.extend(dag[b].iter().map(|&b2| sum_ids[a][b2]));
                sum_ids[a][b] = table.of_options(&o);
            }
        }
        for a in 0..n {
            for b in 0..n {
                assert_eq!(table.add(ids[a], ids[b]).unwrap(), sum_ids[a][b], "{a} + {b}");
            }
        }
    }

    /// The number of misère games born by day n: 1, 2, 3, 5, 22 (Conway; Siegel 2020,
    /// which also gives 4 171 780 for day 5, checked by `games_born_by_day_five`).
    fn born_by_next_day(table: &mut CanonTable, day: &[GameId]) -> Vec<GameId> {
        let mut next: Vec<GameId> = (0..1u64 << day.len())
            .map(|mask| {
                let o: Vec<GameId> = (0..day.len())
                    .filter(|&i| mask >> i & 1 == 1)
                    .map(|i| day[i])
                    .collect();
                table.of_options(&o)
            })
            .collect();
        next.sort_unstable();
        next.dedup();
        next
    }

    #[test]
    fn games_born_by_day_four() {
        let mut table = CanonTable::new();
        let mut day = vec![ZERO];
        let mut counts = vec![1];
        for _ in 0..4 {
            day = born_by_next_day(&mut table, &day);
            counts.push(day.len());
        }
        assert_eq!(counts, [1, 2, 3, 5, 22]);
        // {*1} = 0 (the proviso holds: *1 is a P-position), {*2} is not.
        let one = table.nim(1);
        let two = table.nim(2);
        assert_eq!(table.of_options(&[one]), ZERO);
        assert_ne!(table.of_options(&[two]), ZERO);
        let g = table.of_options(&[ZERO, two]);
        assert_eq!(table.nim_value(g), Some(1));
    }

    #[test]
    #[ignore = "4 million games, about 4 s and 330 MB: .ci/run runs it on its own"]
    fn games_born_by_day_five() {
        let mut table = CanonTable::new();
        let mut day = vec![ZERO];
        for _ in 0..5 {
            day = born_by_next_day(&mut table, &day);
        }
        assert_eq!(day.len(), 4_171_780);
    }

    #[test]
    fn nim_heaps_add_like_misere_nim() {
        // *a + *b is a misère P-position exactly by the rule of misère Nim.
        let mut table = CanonTable::new();
        for a in 0..6u32 {
            for b in 0..6u32 {
                for c in 0..4u32 {
                    let (x, y, z) = (table.nim(a), table.nim(b), table.nim(c));
                    let s = table.add_all(&[x, y, z]).unwrap();
                    let big = [a, b, c].iter().any(|&v| v >= 2);
                    let p = if big { a ^ b ^ c == 0 } else { a ^ b ^ c == 1 };
                    assert_eq!(table.is_p_position(s), p, "*{a} + *{b} + *{c}");
                }
            }
        }
    }
}
