//! Dense retrograde solving: for games whose positions can be ranked into `0..size` within
//! tiers (bitmask boards, cells left), every state is solved tier by tier into packed arrays
//! — 2 bits per state for outcomes, 16-bit records for Grundy values or remoteness.
//!
//! A [`DenseGame`] numbers its states by tier and index; moves must lead to lower tiers, so
//! solving tiers in increasing order always finds the successors solved. Within a tier states
//! are independent and are solved in parallel (rayon). [`DenseSolver::plan`] says how much
//! memory a solve will use before anything is allocated, and a solve that would exceed the
//! configured budget is refused with [`DenseError::Memory`], never started. The module
//! [`baseline`] is a deliberately simple recursive memo that the tests compare against, and
//! [`Subsets`] ranks k-subsets of a board's cells (the usual tier structure of board games).

use crate::Convention;
use grundy_core::{MexSet, Outcome};
use rayon::prelude::*;
use std::fmt;

pub use grundy_core::dense::{DenseGame, Subsets};

/// What a solve stores for each state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Record {
    /// Win or loss: 2 bits per state.
    Outcome,
    /// The Grundy value (normal play only): 16 bits per state.
    Grundy,
    /// Smith's remoteness (16 bits per state): a terminal state has remoteness 0; a state
    /// with a move to a lost state has 1 + the least remoteness of those; any other state
    /// 1 + the greatest remoteness of its successors. The winner wins as fast as possible,
    /// the loser holds out as long as possible. The outcome is its parity: under normal play
    /// a state is lost for the player to move exactly when its remoteness is even, under
    /// misère play exactly when it is odd.
    Remoteness,
}

impl Record {
    /// Bytes used by the records of a tier of `states` states.
    pub fn tier_bytes(self, states: u64) -> u64 {
        match self {
            Record::Outcome => states.div_ceil(STATES_PER_WORD).saturating_mul(8),
            Record::Grundy | Record::Remoteness => states.saturating_mul(2),
        }
    }

    /// A short name: `outcome`, `grundy` or `remoteness`.
    pub fn as_str(self) -> &'static str {
        match self {
            Record::Outcome => "outcome",
            Record::Grundy => "grundy",
            Record::Remoteness => "remoteness",
        }
    }
}

/// Why a dense solve could not be done.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DenseError {
    /// The solve needs more memory than the budget allows; nothing was allocated.
    #[error(
        "the dense solve needs {} but the memory budget is {}",
        human_bytes(*needed),
        human_bytes(*budget)
    )]
    Memory {
        /// Peak bytes the solve would use.
        needed: u64,
        /// The configured budget in bytes.
        budget: u64,
    },
    /// The allocator refused memory within the budget.
    #[error("could not allocate {} for tier {tier}", human_bytes(*bytes))]
    Alloc {
        /// The tier being allocated.
        tier: u32,
        /// Bytes asked for.
        bytes: u64,
    },
    /// A move went to a tier that is not lower, not declared in `child_tiers`, or to an index
    /// beyond its tier: the game's ranking is wrong.
    #[error("a move from tier {from} (state {index}) goes to tier {to}, state {to_index}, which is not a solved lower state")]
    BadMove {
        /// Tier of the state that moved.
        from: u32,
        /// Index of the state that moved.
        index: u64,
        /// Tier it moved to.
        to: u32,
        /// Index it moved to.
        to_index: u64,
    },
    /// A value did not fit in a 16-bit record.
    #[error("a {0} value in tier {1} does not fit in 16 bits")]
    Overflow(&'static str, u32),
    /// Grundy values are defined for normal play only.
    #[error("Grundy records need normal play; use outcome or remoteness records for misère")]
    GrundyNeedsNormalPlay,
    /// Records given to [`DenseTable::from_tier_records`] do not fit their tier.
    #[error("the records of tier {tier} are damaged: {what}")]
    BadRecords {
        /// The tier.
        tier: u32,
        /// What does not fit.
        what: String,
    },
    /// Another worker of a split solve ([`TierExchange`]) failed, or the exchange itself did.
    #[error("{0}")]
    Elsewhere(String),
    /// A tier or index outside the game, or a tier the table did not keep.
    #[error("tier {tier}, state {index} is not in the solved table")]
    NotSolved {
        /// The tier asked for.
        tier: u32,
        /// The index asked for.
        index: u64,
    },
}

/// States in one 64-bit word of 2-bit records.
const STATES_PER_WORD: u64 = 32;
/// States solved by one parallel task (a multiple of [`STATES_PER_WORD`]).
const CHUNK_STATES: u64 = 1 << 14;
/// 2-bit code of a lost state (for the player to move).
const CODE_LOSS: u64 = 0b01;
/// 2-bit code of a won state.
const CODE_WIN: u64 = 0b10;
/// Largest value a 16-bit record holds.
const MAX_WORD: u64 = u16::MAX as u64;

pub use grundy_core::memory::{default_budget, human_bytes};

/// What a solve will do, computed before anything is allocated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The tiers to solve, in increasing order (the top tier and every tier it reaches).
    pub tiers: Vec<u32>,
    /// Total number of states solved.
    pub states: u64,
    /// Peak bytes of records held at once.
    pub peak_bytes: u64,
    /// What is stored per state.
    pub record: Record,
    /// Whether every solved tier is kept (otherwise only the top tier and its children).
    pub keep_all: bool,
    /// The workers each tier is split over ([`DenseSolver::solve_split`]); 1 for one process.
    pub ranks: u32,
    /// Bytes each worker holds on top of `peak_bytes` when `ranks > 1`: its share of the
    /// largest tier, copied out to be sent to the others.
    pub exchange_bytes: u64,
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "dense solve: {} states in {} tiers, {} records, peak memory {}",
            self.states,
            self.tiers.len(),
            self.record.as_str(),
            human_bytes(self.peak_bytes.saturating_add(self.exchange_bytes))
        )?;
        if self.ranks > 1 {
            write!(
                f,
                " per rank on {} ranks (each rank solves 1/{} of every tier, {} at most, and receives the rest)",
                self.ranks,
                self.ranks,
                human_bytes(self.exchange_bytes)
            )?;
        }
        Ok(())
    }
}

/// The states `start..end` of a tier of `states` states that worker `rank` of `ranks` solves
/// in a split solve: consecutive ranges in rank order, cut at multiples of 32 states (so a
/// word of 2-bit outcomes is never shared by two workers), the last ending at `states`.
pub fn share_of(states: u64, rank: u32, ranks: u32) -> (u64, u64) {
    let ranks = u128::from(ranks.max(1));
    let cut = |r: u128| -> u64 {
        if r >= ranks {
            return states;
        }
        let at = (u128::from(states) * r / ranks) as u64;
        at / STATES_PER_WORD * STATES_PER_WORD
    };
    let r = u128::from(rank);
    (cut(r), cut(r + 1))
}

/// The records of a whole tier, as a split solve's [`TierExchange`] sees them.
#[derive(Debug)]
pub enum TierSlice<'a> {
    /// [`Record::Outcome`]: 64-bit words of 2-bit codes, 32 states a word.
    Bits(&'a mut [u64]),
    /// [`Record::Grundy`] or [`Record::Remoteness`]: one record per state.
    Words(&'a mut [u16]),
}

/// How the workers of a split solve ([`DenseSolver::solve_split`]) share each tier: worker
/// `rank` of `ranks` solves the states [`share_of`] gives it, then [`exchange`] fills in
/// the records of the others, so every worker holds the whole tier for the tiers above.
/// Every worker must make the same calls in the same order (they are collective).
///
/// [`exchange`]: TierExchange::exchange
pub trait TierExchange {
    /// This worker's number, `0..ranks`.
    fn rank(&self) -> u32;
    /// The number of workers.
    fn ranks(&self) -> u32;
    /// Whether the solve goes ahead: every worker learns worker 0's `go` (worker 0 may
    /// answer without solving, from what it alone has).
    fn agree(&mut self, go: bool) -> bool;
    /// After a worker solved its share of `tier` of `states` states (`solved` says whether
    /// it could), fills in
    /// `records` (the whole tier, this worker's share already set) with the shares of the
    /// others. When any worker failed, every worker gets an error, and `records` may be
    /// empty.
    fn exchange(
        &mut self,
        tier: u32,
        states: u64,
        solved: Result<(), DenseError>,
        records: TierSlice<'_>,
    ) -> Result<(), DenseError>;
}

/// Progress of a solve, reported after each tier.
#[derive(Clone, Copy, Debug)]
pub struct TierDone {
    /// The tier just solved.
    pub tier: u32,
    /// Its number of states.
    pub states: u64,
    /// States solved so far, this tier included.
    pub solved: u64,
    /// States the whole solve covers.
    pub total: u64,
}

/// The records of one solved tier.
#[derive(Clone, Debug)]
enum TierData {
    /// 2-bit outcome codes, 32 states per word.
    Bits(Vec<u64>),
    /// 16-bit Grundy values or remoteness.
    Words(Vec<u16>),
}

/// The value of one solved state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DenseValue {
    /// Who wins from this state.
    pub outcome: Outcome,
    /// Its Grundy value, for [`Record::Grundy`] tables.
    pub grundy: Option<u16>,
    /// Its remoteness, for [`Record::Remoteness`] tables.
    pub remoteness: Option<u16>,
}

/// The solved tiers of a game.
#[derive(Clone, Debug)]
pub struct DenseTable {
    record: Record,
    convention: Convention,
    tiers: Vec<Option<TierData>>,
}

impl DenseTable {
    /// What the table stores per state.
    pub fn record(&self) -> Record {
        self.record
    }

    /// The convention it was solved under.
    pub fn convention(&self) -> Convention {
        self.convention
    }

    /// True when the records of `tier` were kept.
    pub fn has_tier(&self, tier: u32) -> bool {
        matches!(self.tiers.get(tier as usize), Some(Some(_)))
    }

    /// Bytes of records held.
    pub fn bytes(&self) -> u64 {
        self.tiers
            .iter()
            .flatten()
            .map(|t| match t {
                TierData::Bits(w) => w.len() as u64 * 8,
                TierData::Words(w) => w.len() as u64 * 2,
            })
            .sum()
    }

    /// The tiers kept, in increasing order.
    pub fn kept_tiers(&self) -> Vec<u32> {
        (0..self.tiers.len() as u32)
            .filter(|&t| self.has_tier(t))
            .collect()
    }

    /// The records of `tier` as little-endian bytes, for keeping them (`None` when the tier
    /// was not kept): [`Record::Outcome`] tables give 64-bit words of 2-bit codes (32 states
    /// a word, state `i` at bits `2(i mod 32)`; 1 = lost, 2 = won for the player to move),
    /// the others one `u16` per state. [`DenseTable::from_tier_records`] reads them back.
    pub fn tier_records(&self, tier: u32) -> Option<Vec<u8>> {
        Some(match self.tiers.get(tier as usize)?.as_ref()? {
            TierData::Bits(w) => w.iter().flat_map(|x| x.to_le_bytes()).collect(),
            TierData::Words(w) => w.iter().flat_map(|x| x.to_le_bytes()).collect(),
        })
    }

    /// A table rebuilt from records written by [`DenseTable::tier_records`]: `tiers[t]` holds
    /// the number of states of tier `t` and its records, or `None` for a tier not kept.
    /// Records of the wrong length, or outcome codes that are not a win or a loss (or set
    /// beyond the tier's last state), are refused with [`DenseError::BadRecords`].
    pub fn from_tier_records(
        record: Record,
        convention: Convention,
        tiers: Vec<Option<(u64, Vec<u8>)>>,
    ) -> Result<DenseTable, DenseError> {
        if record == Record::Grundy && convention == Convention::Misere {
            return Err(DenseError::GrundyNeedsNormalPlay);
        }
        let mut out = Vec::with_capacity(tiers.len());
        for (t, tier) in tiers.into_iter().enumerate() {
            let Some((states, bytes)) = tier else {
                out.push(None);
                continue;
            };
            let bad = |what: String| DenseError::BadRecords { tier: t as u32, what };
            let expected = record.tier_bytes(states);
            if bytes.len() as u64 != expected {
                return Err(bad(format!(
                    "{} bytes for {states} states, expected {expected}",
                    bytes.len()
                )));
            }
            let data = match record {
                Record::Outcome => {
                    let words: Vec<u64> = bytes
                        .chunks_exact(8)
                        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                        .collect();
                    for (wi, &w) in words.iter().enumerate() {
                        let first = wi as u64 * STATES_PER_WORD;
                        let in_tier = states.saturating_sub(first).min(STATES_PER_WORD);
                        for k in 0..STATES_PER_WORD {
                            let code = w >> (2 * k) & 3;
                            let ok = if k < in_tier {
                                code == CODE_LOSS || code == CODE_WIN
                            } else {
                                code == 0
                            };
                            if !ok {
                                return Err(bad(format!("code {code} for state {}", first + k)));
                            }
                        }
                    }
                    TierData::Bits(words)
                }
                Record::Grundy | Record::Remoteness => {
                    let words: Vec<u16> = bytes
                        .chunks_exact(2)
                        .map(|c| u16::from_le_bytes([c[0], c[1]]))
                        .collect();
                    if let Some(i) = words.iter().position(|&w| w as u64 >= MAX_WORD) {
                        return Err(bad(format!("record {} out of range for state {i}", words[i])));
                    }
                    TierData::Words(words)
                }
            };
            out.push(Some(data));
        }
        Ok(DenseTable {
            record,
            convention,
            tiers: out,
        })
    }

    /// The value of state `index` of `tier`.
    pub fn value(&self, tier: u32, index: u64) -> Result<DenseValue, DenseError> {
        let raw = self
            .tiers
            .get(tier as usize)
            .and_then(|t| t.as_ref())
            .and_then(|t| raw(t, index))
            .ok_or(DenseError::NotSolved { tier, index })?;
        Ok(match self.record {
            Record::Outcome => DenseValue {
                outcome: code_outcome(raw),
                grundy: None,
                remoteness: None,
            },
            Record::Grundy => DenseValue {
                outcome: if raw == 0 { Outcome::Second } else { Outcome::First },
                grundy: Some(raw as u16),
                remoteness: None,
            },
            Record::Remoteness => DenseValue {
                outcome: remoteness_outcome(raw, self.convention),
                grundy: None,
                remoteness: Some(raw as u16),
            },
        })
    }

    /// Who wins from state `index` of `tier`.
    pub fn outcome(&self, tier: u32, index: u64) -> Result<Outcome, DenseError> {
        self.value(tier, index).map(|v| v.outcome)
    }

    /// The number of lost states (for the player to move) in `tier`, or `None` when the tier
    /// was not kept.
    pub fn losses_in_tier(&self, tier: u32) -> Option<u64> {
        let t = self.tiers.get(tier as usize)?.as_ref()?;
        Some(match t {
            TierData::Bits(w) => w
                .iter()
                .map(|&x| (x & 0x5555_5555_5555_5555 & !(x >> 1)).count_ones() as u64)
                .sum(),
            TierData::Words(w) => w
                .iter()
                .filter(|&&r| match self.record {
                    Record::Grundy => r == 0,
                    _ => remoteness_outcome(r as u64, self.convention) == Outcome::Second,
                })
                .count() as u64,
        })
    }
}

fn raw(t: &TierData, index: u64) -> Option<u64> {
    match t {
        TierData::Bits(w) => {
            let word = *w.get((index / STATES_PER_WORD) as usize)?;
            let code = (word >> (2 * (index % STATES_PER_WORD))) & 3;
            (code != 0).then_some(code)
        }
        TierData::Words(w) => w.get(index as usize).map(|&r| r as u64),
    }
}

fn code_outcome(code: u64) -> Outcome {
    if code == CODE_LOSS {
        Outcome::Second
    } else {
        Outcome::First
    }
}

/// The outcome a remoteness stands for under `convention`.
pub fn remoteness_outcome(r: u64, convention: Convention) -> Outcome {
    let even = r & 1 == 0;
    match (convention, even) {
        (Convention::Normal, true) | (Convention::Misere, false) => Outcome::Second,
        _ => Outcome::First,
    }
}

/// Solves a [`DenseGame`] tier by tier: configure, [`plan`](DenseSolver::plan) (memory
/// before the run), then [`solve`](DenseSolver::solve).
pub struct DenseSolver<'g, G: DenseGame> {
    game: &'g G,
    record: Record,
    convention: Convention,
    budget: u64,
    keep_all: bool,
    ranks: u32,
}

impl<'g, G: DenseGame> DenseSolver<'g, G> {
    /// A solver of outcomes under normal play, with the [`default_budget`], keeping only the
    /// top tier and its children.
    pub fn new(game: &'g G) -> Self {
        DenseSolver {
            game,
            record: Record::Outcome,
            convention: Convention::Normal,
            budget: default_budget(),
            keep_all: false,
            ranks: 1,
        }
    }

    /// The number of workers the plan counts for ([`Plan::ranks`]); 1 by default.
    /// [`solve_split`](DenseSolver::solve_split) solves with the exchange's count.
    pub fn ranks(mut self, ranks: u32) -> Self {
        self.ranks = ranks.max(1);
        self
    }

    /// What to store per state.
    pub fn record(mut self, record: Record) -> Self {
        self.record = record;
        self
    }

    /// Normal or misère play.
    pub fn convention(mut self, convention: Convention) -> Self {
        self.convention = convention;
        self
    }

    /// The most bytes of records the solve may hold at once.
    pub fn memory_budget(mut self, bytes: u64) -> Self {
        self.budget = bytes;
        self
    }

    /// Keep every solved tier in the table (more memory), not only the top tier and the
    /// tiers its moves reach.
    pub fn keep_all(mut self, keep: bool) -> Self {
        self.keep_all = keep;
        self
    }

    /// The tiers to solve for `top`, the states and the peak memory, without allocating.
    /// Errors when `top` is not a tier or a tier names a child that is not lower.
    pub fn plan(&self, top: u32) -> Result<Plan, DenseError> {
        let n = self.game.num_tiers();
        if top >= n {
            return Err(DenseError::NotSolved { tier: top, index: 0 });
        }
        // The tiers reachable from `top`.
        let mut needed = vec![false; n as usize];
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n as usize];
        needed[top as usize] = true;
        for t in (0..=top).rev() {
            if !needed[t as usize] {
                continue;
            }
            let c = self.game.child_tiers(t);
            for &ct in &c {
                if ct >= t {
                    return Err(DenseError::BadMove {
                        from: t,
                        index: 0,
                        to: ct,
                        to_index: 0,
                    });
                }
                needed[ct as usize] = true;
            }
            children[t as usize] = c;
        }
        let tiers: Vec<u32> = (0..=top).filter(|&t| needed[t as usize]).collect();
        // Simulate the solve: after solving tier t, a tier is freed once no later tier (nor
        // the top's children, kept for move reports) needs it.
        let mut last_use = vec![0u32; n as usize];
        for &t in &tiers {
            last_use[t as usize] = t;
            for &c in &children[t as usize] {
                last_use[c as usize] = last_use[c as usize].max(t);
            }
        }
        for &c in &children[top as usize] {
            last_use[c as usize] = top;
        }
        let mut live = 0u64;
        let mut peak = 0u64;
        let mut states = 0u64;
        let mut exchange_bytes = 0u64;
        for &t in &tiers {
            let size = self.game.tier_size(t);
            if self.ranks > 1 {
                let share = (0..self.ranks)
                    .map(|r| {
                        let (a, b) = share_of(size, r, self.ranks);
                        self.record.tier_bytes(b - a)
                    })
                    .max()
                    .unwrap_or(0);
                exchange_bytes = exchange_bytes.max(share);
            }
            states = states.saturating_add(size);
            live = live.saturating_add(self.record.tier_bytes(size));
            peak = peak.max(live);
            if !self.keep_all {
                for &u in &tiers {
                    if u < t && last_use[u as usize] == t {
                        live = live.saturating_sub(self.record.tier_bytes(self.game.tier_size(u)));
                    }
                }
            }
        }
        Ok(Plan {
            tiers,
            states,
            peak_bytes: peak,
            record: self.record,
            keep_all: self.keep_all,
            ranks: self.ranks,
            exchange_bytes,
        })
    }

    /// Solves `top` and every tier below it that its moves reach.
    pub fn solve(&self, top: u32) -> Result<DenseTable, DenseError> {
        self.solve_with_progress(top, |_| {})
    }

    /// As [`solve`](DenseSolver::solve), calling `progress` after each tier.
    pub fn solve_with_progress(
        &self,
        top: u32,
        progress: impl FnMut(TierDone),
    ) -> Result<DenseTable, DenseError> {
        self.solve_inner(top, None, progress)
    }

    /// As [`solve_with_progress`](DenseSolver::solve_with_progress), as one worker of
    /// several: each tier's states are split by [`share_of`], this worker solves its share,
    /// and `exchange` brings the others' records, so every worker ends with the same table.
    /// The plan and its budget check (with the exchange's rank count) come first, on every
    /// worker alike.
    pub fn solve_split(
        &self,
        top: u32,
        exchange: &mut dyn TierExchange,
        progress: impl FnMut(TierDone),
    ) -> Result<DenseTable, DenseError> {
        self.solve_inner(top, Some(exchange), progress)
    }

    fn solve_inner(
        &self,
        top: u32,
        mut exchange: Option<&mut dyn TierExchange>,
        mut progress: impl FnMut(TierDone),
    ) -> Result<DenseTable, DenseError> {
        if self.record == Record::Grundy && self.convention == Convention::Misere {
            return Err(DenseError::GrundyNeedsNormalPlay);
        }
        let ranks = exchange.as_ref().map_or(1, |x| x.ranks());
        let plan = DenseSolver { ranks, ..*self }.plan(top)?;
        let needed = plan.peak_bytes.saturating_add(plan.exchange_bytes);
        if needed > self.budget {
            return Err(DenseError::Memory {
                needed,
                budget: self.budget,
            });
        }
        let n = self.game.num_tiers() as usize;
        let mut tables: Vec<Option<TierData>> = (0..n).map(|_| None).collect();
        let mut keep_until = vec![top; n];
        if !self.keep_all {
            for &t in &plan.tiers {
                keep_until[t as usize] = t;
            }
            for &t in &plan.tiers {
                for c in self.game.child_tiers(t) {
                    keep_until[c as usize] = keep_until[c as usize].max(t);
                }
            }
            for c in self.game.child_tiers(top) {
                keep_until[c as usize] = top;
            }
        }
        let mut solved = 0;
        for &t in &plan.tiers {
            let size = self.game.tier_size(t);
            let data = match exchange.as_deref_mut() {
                None => self.solve_tier(t, &tables, 0, size)?,
                Some(x) => {
                    let (start, end) = share_of(size, x.rank(), x.ranks());
                    match self.solve_tier(t, &tables, start, end) {
                        Ok(mut data) => {
                            let slice = match &mut data {
                                TierData::Bits(w) => TierSlice::Bits(w),
                                TierData::Words(w) => TierSlice::Words(w),
                            };
                            x.exchange(t, size, Ok(()), slice)?;
                            data
                        }
                        Err(e) => {
                            x.exchange(t, size, Err(e.clone()), TierSlice::Bits(&mut []))?;
                            return Err(e);
                        }
                    }
                }
            };
            tables[t as usize] = Some(data);
            solved += size;
            progress(TierDone {
                tier: t,
                states: size,
                solved,
                total: plan.states,
            });
            if t == top || self.keep_all {
                continue;
            }
            for &u in &plan.tiers {
                if u < t && keep_until[u as usize] == t {
                    tables[u as usize] = None;
                }
            }
        }
        Ok(DenseTable {
            record: self.record,
            convention: self.convention,
            tiers: tables,
        })
    }

    /// The records of `tier`, of which the states `first..last` are solved (the others
    /// left 0); `first` is a multiple of [`STATES_PER_WORD`].
    fn solve_tier(
        &self,
        tier: u32,
        tables: &[Option<TierData>],
        first: u64,
        last: u64,
    ) -> Result<TierData, DenseError> {
        let size = self.game.tier_size(tier);
        let last = last.min(size);
        let first = first.min(last);
        let bytes = self.record.tier_bytes(size);
        let alloc = DenseError::Alloc { tier, bytes };
        match self.record {
            Record::Outcome => {
                let words = size.div_ceil(STATES_PER_WORD) as usize;
                let mut data: Vec<u64> = Vec::new();
                data.try_reserve_exact(words).map_err(|_| alloc)?;
                data.resize(words, 0);
                let per_chunk = (CHUNK_STATES / STATES_PER_WORD) as usize;
                let share =
                    &mut data[(first / STATES_PER_WORD) as usize..last.div_ceil(STATES_PER_WORD) as usize];
                share
                    .par_chunks_mut(per_chunk)
                    .enumerate()
                    .try_for_each(|(ci, chunk)| {
                        let start = first + ci as u64 * CHUNK_STATES;
                        let end = (start + chunk.len() as u64 * STATES_PER_WORD).min(last);
                        self.each_state(tier, start, end, |idx, state| {
                            let code = self.eval_outcome(tier, idx, state, tables)?;
                            let off = idx - start;
                            chunk[(off / STATES_PER_WORD) as usize] |= code << (2 * (off % STATES_PER_WORD));
                            Ok(())
                        })
                    })?;
                Ok(TierData::Bits(data))
            }
            Record::Grundy | Record::Remoteness => {
                let mut data: Vec<u16> = Vec::new();
                data.try_reserve_exact(size as usize).map_err(|_| alloc)?;
                data.resize(size as usize, 0);
                data[first as usize..last as usize]
                    .par_chunks_mut(CHUNK_STATES as usize)
                    .enumerate()
                    .try_for_each(|(ci, chunk)| {
                        let start = first + ci as u64 * CHUNK_STATES;
                        let end = start + chunk.len() as u64;
                        let mut mex = MexSet::new();
                        self.each_state(tier, start, end, |idx, state| {
                            let v = if self.record == Record::Grundy {
                                self.eval_grundy(tier, idx, state, tables, &mut mex)?
                            } else {
                                self.eval_remoteness(tier, idx, state, tables)?
                            };
                            chunk[(idx - start) as usize] = v;
                            Ok(())
                        })
                    })?;
                Ok(TierData::Words(data))
            }
        }
    }

    /// Calls `f(index, state)` for the states `start..end` of `tier`, in order.
    fn each_state(
        &self,
        tier: u32,
        start: u64,
        end: u64,
        mut f: impl FnMut(u64, &G::State) -> Result<(), DenseError>,
    ) -> Result<(), DenseError> {
        if start >= end {
            return Ok(());
        }
        let mut state = self.game.unrank(tier, start);
        f(start, &state)?;
        for idx in start + 1..end {
            self.game.advance(tier, idx, &mut state);
            f(idx, &state)?;
        }
        Ok(())
    }

    /// Calls `f(raw record)` for every successor of `state`, checking each is solved.
    fn each_child(
        &self,
        tier: u32,
        index: u64,
        state: &G::State,
        tables: &[Option<TierData>],
        mut f: impl FnMut(u64) -> bool,
    ) -> Result<(), DenseError> {
        let mut bad = None;
        let mut done = false;
        self.game.successors(tier, state, |ct, ci| {
            if done {
                return;
            }
            let got = if ct < tier {
                tables
                    .get(ct as usize)
                    .and_then(|t| t.as_ref())
                    .and_then(|t| raw(t, ci))
            } else {
                None
            };
            match got {
                Some(r) => done = f(r),
                None => {
                    bad = Some(DenseError::BadMove {
                        from: tier,
                        index,
                        to: ct,
                        to_index: ci,
                    });
                    done = true;
                }
            }
        });
        bad.map_or(Ok(()), Err)
    }

    fn eval_outcome(
        &self,
        tier: u32,
        index: u64,
        state: &G::State,
        tables: &[Option<TierData>],
    ) -> Result<u64, DenseError> {
        let mut any = false;
        let mut wins = false;
        self.each_child(tier, index, state, tables, |code| {
            any = true;
            wins = code == CODE_LOSS;
            wins
        })?;
        Ok(match (any, self.convention) {
            (false, Convention::Normal) => CODE_LOSS,
            (false, Convention::Misere) => CODE_WIN,
            (true, _) if wins => CODE_WIN,
            _ => CODE_LOSS,
        })
    }

    fn eval_grundy(
        &self,
        tier: u32,
        index: u64,
        state: &G::State,
        tables: &[Option<TierData>],
        mex: &mut MexSet,
    ) -> Result<u16, DenseError> {
        mex.clear();
        self.each_child(tier, index, state, tables, |g| {
            mex.insert(g);
            false
        })?;
        let g = mex.mex().0;
        if g >= MAX_WORD {
            return Err(DenseError::Overflow("Grundy", tier));
        }
        Ok(g as u16)
    }

    fn eval_remoteness(
        &self,
        tier: u32,
        index: u64,
        state: &G::State,
        tables: &[Option<TierData>],
    ) -> Result<u16, DenseError> {
        let conv = self.convention;
        let mut any = false;
        let mut min_losing = u64::MAX; // least remoteness among lost successors
        let mut max_all = 0u64;
        self.each_child(tier, index, state, tables, |r| {
            any = true;
            if remoteness_outcome(r, conv) == Outcome::Second {
                min_losing = min_losing.min(r);
            }
            max_all = max_all.max(r);
            false
        })?;
        let r = if !any {
            0
        } else if min_losing != u64::MAX {
            min_losing + 1
        } else {
            max_all + 1
        };
        if r >= MAX_WORD {
            return Err(DenseError::Overflow("remoteness", tier));
        }
        Ok(r as u16)
    }
}

pub mod baseline {
    //! The reference for the dense solver: a recursive memo over states, written to be read
    //! rather than to be fast. It recurses on game depth, which is the number of tiers at
    //! most — fine for the test and benchmark sizes it is meant for.

    use super::DenseGame;
    use crate::Convention;
    use grundy_core::{MexSet, Outcome};
    use std::collections::HashMap;

    /// Everything known about one state.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Solved {
        /// Who wins.
        pub outcome: Outcome,
        /// Grundy value (normal play; `None` under misère).
        pub grundy: Option<u64>,
        /// Smith's remoteness.
        pub remoteness: u64,
    }

    /// A memo of solved states of one game under one convention.
    pub struct Baseline<'g, G: DenseGame> {
        game: &'g G,
        convention: Convention,
        memo: HashMap<(u32, u64), Solved>,
    }

    impl<'g, G: DenseGame> Baseline<'g, G> {
        /// An empty memo.
        pub fn new(game: &'g G, convention: Convention) -> Self {
            Baseline {
                game,
                convention,
                memo: HashMap::new(),
            }
        }

        /// Number of states solved so far.
        pub fn len(&self) -> usize {
            self.memo.len()
        }

        /// True when nothing is solved yet.
        pub fn is_empty(&self) -> bool {
            self.memo.is_empty()
        }

        /// Solves state `index` of `tier` by recursion over its successors.
        pub fn solve(&mut self, tier: u32, index: u64) -> Solved {
            if let Some(&s) = self.memo.get(&(tier, index)) {
                return s;
            }
            let state = self.game.unrank(tier, index);
            let mut children = Vec::new();
            self.game.successors(tier, &state, |t, i| children.push((t, i)));
            let solved: Vec<Solved> = children.iter().map(|&(t, i)| self.solve(t, i)).collect();
            let lost = |s: &Solved| s.outcome == Outcome::Second;
            let outcome = if solved.is_empty() {
                match self.convention {
                    Convention::Normal => Outcome::Second,
                    Convention::Misere => Outcome::First,
                }
            } else if solved.iter().any(lost) {
                Outcome::First
            } else {
                Outcome::Second
            };
            let grundy = match self.convention {
                Convention::Normal => {
                    let mut mex = MexSet::new();
                    for s in &solved {
                        mex.insert(s.grundy.unwrap_or(0));
                    }
                    Some(mex.mex().0)
                }
                Convention::Misere => None,
            };
            let remoteness = if solved.is_empty() {
                0
            } else if let Some(r) = solved.iter().filter(|s| lost(s)).map(|s| s.remoteness).min() {
                r + 1
            } else {
                1 + solved.iter().map(|s| s.remoteness).max().unwrap_or(0)
            };
            let s = Solved {
                outcome,
                grundy,
                remoteness,
            };
            self.memo.insert((tier, index), s);
            s
        }
    }
}

pub mod testing {
    //! Games for tests and benchmarks of dense solvers.

    use super::DenseGame;

    /// A random game: tier `t` has `sizes[t]` states, and each state has up to `max_moves`
    /// moves to pseudo-random states of lower tiers, all fixed by `seed`.
    #[derive(Clone, Debug)]
    pub struct RandomGame {
        /// States per tier.
        pub sizes: Vec<u64>,
        /// Most moves of one state.
        pub max_moves: u64,
        /// Fixes the moves.
        pub seed: u64,
    }

    fn mix(mut x: u64) -> u64 {
        // splitmix64 finaliser
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }

    impl DenseGame for RandomGame {
        type State = u64;

        fn num_tiers(&self) -> u32 {
            self.sizes.len() as u32
        }

        fn tier_size(&self, tier: u32) -> u64 {
            self.sizes[tier as usize]
        }

        fn unrank(&self, _tier: u32, index: u64) -> u64 {
            index
        }

        fn successors<F: FnMut(u32, u64)>(&self, tier: u32, &index: &u64, mut emit: F) {
            if tier == 0 {
                return;
            }
            let h = mix(self.seed ^ mix((tier as u64) << 40 ^ index));
            let n = h % (self.max_moves + 1);
            for j in 0..n {
                let h = mix(h ^ j);
                let t = (h % tier as u64) as u32;
                let size = self.sizes[t as usize];
                if size > 0 {
                    emit(t, mix(h) % size);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::baseline::Baseline;
    use super::testing::RandomGame;
    use super::*;
    use proptest::prelude::*;

    fn check_against_baseline(game: &RandomGame, conv: Convention) {
        let top = game.num_tiers() - 1;
        let mut base = Baseline::new(game, conv);
        let mut records = vec![Record::Outcome, Record::Remoteness];
        if conv == Convention::Normal {
            records.push(Record::Grundy);
        }
        for record in records {
            let table = DenseSolver::new(game)
                .record(record)
                .convention(conv)
                .keep_all(true)
                .solve(top)
                .unwrap();
            for t in 0..=top {
                for i in 0..game.tier_size(t) {
                    let want = base.solve(t, i);
                    let got = table.value(t, i).unwrap();
                    assert_eq!(got.outcome, want.outcome, "{record:?} tier {t} state {i}");
                    if record == Record::Grundy {
                        assert_eq!(got.grundy.map(u64::from), want.grundy);
                    }
                    if record == Record::Remoteness {
                        assert_eq!(got.remoteness.map(u64::from), Some(want.remoteness));
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn matches_baseline(
            sizes in proptest::collection::vec(0u64..200, 1..8),
            max_moves in 0u64..6,
            seed: u64,
        ) {
            let game = RandomGame { sizes, max_moves, seed };
            check_against_baseline(&game, Convention::Normal);
            check_against_baseline(&game, Convention::Misere);
        }

        #[test]
        fn subsets_rank_unrank(n in 1u32..=64, k_frac in 0.0f64..1.0, idx_frac in 0.0f64..1.0) {
            let s = Subsets::new(n).unwrap();
            let k = ((n as f64) * k_frac) as u32;
            let count = s.binomial(n, k);
            let idx = ((count as f64 - 1.0) * idx_frac) as u64;
            let m = s.unrank(k, idx);
            prop_assert_eq!(m.count_ones(), k);
            prop_assert_eq!(s.rank(m), idx);
            if idx + 1 < count {
                prop_assert_eq!(s.rank(Subsets::next(m)), idx + 1);
            }
        }
    }

    #[test]
    fn tier_records_round_trip_and_damage_is_refused() {
        let game = RandomGame {
            sizes: vec![3, 70, 45, 100],
            max_moves: 4,
            seed: 11,
        };
        let top = game.num_tiers() - 1;
        for (record, conv) in [
            (Record::Outcome, Convention::Normal),
            (Record::Outcome, Convention::Misere),
            (Record::Grundy, Convention::Normal),
            (Record::Remoteness, Convention::Misere),
        ] {
            let table = DenseSolver::new(&game)
                .record(record)
                .convention(conv)
                .keep_all(true)
                .solve(top)
                .unwrap();
            let tiers: Vec<Option<(u64, Vec<u8>)>> = (0..=top)
                .map(|t| table.tier_records(t).map(|b| (game.tier_size(t), b)))
                .collect();
            assert_eq!(table.kept_tiers().len(), tiers.iter().flatten().count());
            let back = DenseTable::from_tier_records(record, conv, tiers.clone()).unwrap();
            for t in 0..=top {
                for i in 0..game.tier_size(t) {
                    assert_eq!(back.value(t, i), table.value(t, i), "{record:?} {t} {i}");
                }
            }
            // A record cut short, and (for outcomes) a code that is neither win nor loss.
            let mut short = tiers.clone();
            if let Some((_, b)) = short[1].as_mut() {
                b.pop();
            }
            assert!(matches!(
                DenseTable::from_tier_records(record, conv, short),
                Err(DenseError::BadRecords { tier: 1, .. })
            ));
            if record == Record::Outcome {
                let mut bad = tiers.clone();
                if let Some((_, b)) = bad[3].as_mut() {
                    b[0] |= 3;
                }
                assert!(DenseTable::from_tier_records(record, conv, bad).is_err());
                let mut past_end = tiers.clone();
                if let Some((_, b)) = past_end[3].as_mut() {
                    // State 100 of a 100-state tier: word 3, bits 8-9.
                    b[3 * 8 + 1] |= 1;
                }
                assert!(DenseTable::from_tier_records(record, conv, past_end).is_err());
            }
        }
        assert_eq!(
            DenseTable::from_tier_records(Record::Grundy, Convention::Misere, vec![]).unwrap_err(),
            DenseError::GrundyNeedsNormalPlay
        );
    }

    #[test]
    fn large_tiers_span_many_chunks() {
        let game = RandomGame {
            sizes: vec![5, 100_000, 70_000],
            max_moves: 4,
            seed: 7,
        };
        check_against_baseline(&game, Convention::Normal);
    }

    #[test]
    fn subsets_enumerate_in_order() {
        let s = Subsets::new(10).unwrap();
        for k in 0..=10 {
            let mut m = s.unrank(k, 0);
            for i in 0..s.binomial(10, k) {
                assert_eq!(s.rank(m), i);
                assert_eq!(s.unrank(k, i), m);
                m = Subsets::next(m);
            }
        }
    }

    #[test]
    fn budget_refuses_before_allocating() {
        let game = RandomGame {
            sizes: vec![1 << 40, 1 << 40],
            max_moves: 1,
            seed: 1,
        };
        let solver = DenseSolver::new(&game)
            .record(Record::Grundy)
            .memory_budget(1 << 30);
        let plan = solver.plan(1).unwrap();
        assert_eq!(plan.peak_bytes, 4 << 40);
        assert!(plan.to_string().contains("4.0 TiB"), "{plan}");
        match solver.solve(1) {
            Err(DenseError::Memory { needed, budget }) => {
                assert_eq!((needed, budget), (4 << 40, 1 << 30))
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    /// Moves only to tier t-2: the plan keeps two tiers at a time.
    struct TwoStep;
    impl DenseGame for TwoStep {
        type State = u64;
        fn num_tiers(&self) -> u32 {
            10
        }
        fn tier_size(&self, _tier: u32) -> u64 {
            64
        }
        fn child_tiers(&self, tier: u32) -> Vec<u32> {
            if tier >= 2 {
                vec![tier - 2]
            } else {
                vec![]
            }
        }
        fn unrank(&self, _tier: u32, index: u64) -> u64 {
            index
        }
        fn successors<F: FnMut(u32, u64)>(&self, tier: u32, &i: &u64, mut emit: F) {
            if tier >= 2 {
                emit(tier - 2, i / 2);
                emit(tier - 2, (i + 1) % 64);
            }
        }
    }

    #[test]
    fn plan_frees_tiers_no_longer_needed() {
        let s = DenseSolver::new(&TwoStep).record(Record::Remoteness);
        let p = s.plan(9).unwrap();
        assert_eq!(p.tiers, vec![1, 3, 5, 7, 9]);
        assert_eq!(p.peak_bytes, 2 * 128);
        let t = s.solve(9).unwrap();
        assert!(t.has_tier(9) && t.has_tier(7) && !t.has_tier(5));
        let all = DenseSolver::new(&TwoStep)
            .record(Record::Remoteness)
            .keep_all(true);
        assert_eq!(all.plan(9).unwrap().peak_bytes, 5 * 128);
        let mut base = Baseline::new(&TwoStep, Convention::Normal);
        for i in 0..64 {
            let v = t.value(9, i).unwrap();
            assert_eq!(v.remoteness.map(u64::from), Some(base.solve(9, i).remoteness));
        }
    }

    /// A move to the same tier is a ranking bug, reported rather than trusted.
    struct Flat;
    impl DenseGame for Flat {
        type State = u64;
        fn num_tiers(&self) -> u32 {
            1
        }
        fn tier_size(&self, _tier: u32) -> u64 {
            4
        }
        fn unrank(&self, _tier: u32, index: u64) -> u64 {
            index
        }
        fn successors<F: FnMut(u32, u64)>(&self, _tier: u32, &i: &u64, mut emit: F) {
            if i > 0 {
                emit(0, i - 1);
            }
        }
    }

    #[test]
    fn moves_within_a_tier_are_errors() {
        assert!(matches!(
            DenseSolver::new(&Flat).solve(0),
            Err(DenseError::BadMove { .. })
        ));
        assert!(matches!(
            DenseSolver::new(&Flat)
                .record(Record::Grundy)
                .convention(Convention::Misere)
                .solve(0),
            Err(DenseError::GrundyNeedsNormalPlay)
        ));
    }
}

#[cfg(test)]
mod split_tests {
    use super::testing::RandomGame;
    use super::*;

    /// Worker `rank` of `ranks`: takes the others' shares from a one-process table.
    struct FromTable<'t> {
        rank: u32,
        ranks: u32,
        table: &'t DenseTable,
        sizes: Vec<u64>,
        exchanged: u32,
    }

    impl TierExchange for FromTable<'_> {
        fn rank(&self) -> u32 {
            self.rank
        }
        fn ranks(&self) -> u32 {
            self.ranks
        }
        fn agree(&mut self, go: bool) -> bool {
            go
        }
        fn exchange(
            &mut self,
            tier: u32,
            size: u64,
            solved: Result<(), DenseError>,
            records: TierSlice<'_>,
        ) -> Result<(), DenseError> {
            solved?;
            self.exchanged += 1;
            assert_eq!(size, self.sizes[tier as usize]);
            let (a, b) = share_of(size, self.rank, self.ranks);
            let whole = self.table.tier_records(tier).unwrap();
            match records {
                TierSlice::Bits(w) => {
                    for (i, c) in whole.chunks_exact(8).enumerate() {
                        let s = i as u64 * STATES_PER_WORD;
                        if s < a || s >= b {
                            assert_eq!(w[i], 0, "tier {tier} word {i} solved outside the share");
                            w[i] = u64::from_le_bytes(c.try_into().unwrap());
                        }
                    }
                }
                TierSlice::Words(w) => {
                    for (i, c) in whole.chunks_exact(2).enumerate() {
                        if (i as u64) < a || i as u64 >= b {
                            w[i] = u16::from_le_bytes([c[0], c[1]]);
                        }
                    }
                }
            }
            Ok(())
        }
    }

    #[test]
    fn shares_cover_each_tier_at_word_boundaries() {
        for states in [0u64, 1, 31, 32, 33, 100, 1000, 1 << 20] {
            for ranks in 1..6 {
                let mut next = 0;
                for r in 0..ranks {
                    let (a, b) = share_of(states, r, ranks);
                    assert_eq!(a, next);
                    assert!(a <= b && a % STATES_PER_WORD == 0);
                    next = b;
                }
                assert_eq!(next, states);
            }
        }
    }

    #[test]
    fn every_share_solves_as_one_process() {
        let game = RandomGame {
            sizes: vec![3, 700, 450, 1000, 90],
            max_moves: 4,
            seed: 5,
        };
        let top = game.num_tiers() - 1;
        for (record, conv) in [
            (Record::Outcome, Convention::Normal),
            (Record::Grundy, Convention::Normal),
            (Record::Remoteness, Convention::Misere),
        ] {
            let solver = DenseSolver::new(&game)
                .record(record)
                .convention(conv)
                .keep_all(true);
            let table = solver.solve(top).unwrap();
            for ranks in [2, 3] {
                for rank in 0..ranks {
                    let mut x = FromTable {
                        rank,
                        ranks,
                        table: &table,
                        sizes: game.sizes.clone(),
                        exchanged: 0,
                    };
                    let split = solver.solve_split(top, &mut x, |_| {}).unwrap();
                    assert_eq!(x.exchanged, game.num_tiers());
                    for t in 0..=top {
                        assert_eq!(
                            split.tier_records(t),
                            table.tier_records(t),
                            "{record:?} {rank}/{ranks} tier {t}"
                        );
                    }
                }
            }
            let p = solver.ranks(3).plan(top).unwrap();
            assert_eq!((p.ranks, p.exchange_bytes), (3, record.tier_bytes(360)));
            assert!(p.to_string().contains("per rank on 3 ranks"), "{p}");
        }
    }
}
