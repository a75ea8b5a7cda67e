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
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

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
    /// The kept tiers cannot be used: another solve's tier file, a path that is not a folder.
    #[error("{0}")]
    Refused(String),
    /// A finished tier could not be kept (a write failed: the disk full, the folder gone).
    #[error("{0}")]
    TierIo(String),
    /// The solve was stopped between tiers ([`DenseSolver::stop_when`]): the tiers finished
    /// so far are kept (by its [`TierKeeper`], if any), the rest are not solved.
    #[error("the dense solve was stopped after tier {tier} ({finished} of {tiers} tiers finished)")]
    Stopped {
        /// The last tier finished.
        tier: u32,
        /// Tiers finished (this run's and the earlier runs').
        finished: usize,
        /// Tiers of the whole solve.
        tiers: usize,
    },
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
    /// Peak bytes of records held at once (by each worker when `ranks > 1`, the copy of its
    /// share it solves and sends included).
    pub peak_bytes: u64,
    /// What is stored per state.
    pub record: Record,
    /// Whether every solved tier is kept (otherwise only the top tier and its children).
    pub keep_all: bool,
    /// The workers each tier is split over ([`DenseSolver::solve_split`]); 1 for one process.
    pub ranks: u32,
    /// When `ranks > 1`: the bytes of the largest share a worker solves (of one tier), which
    /// it holds alone while solving and sends to the others.
    pub exchange_bytes: u64,
    /// When `ranks > 1`: the most rounds the exchange of one tier takes ([`Shares`]).
    pub rounds: u64,
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "dense solve: {} states in {} tiers, {} records, peak memory {}",
            self.states,
            self.tiers.len(),
            self.record.as_str(),
            human_bytes(self.peak_bytes)
        )?;
        if self.ranks > 1 {
            write!(
                f,
                " per rank on {} ranks (each rank solves 1/{} of every tier, {} at most, and receives the rest)",
                self.ranks,
                self.ranks,
                human_bytes(self.exchange_bytes)
            )?;
            if self.rounds > 1 {
                write!(f, "; up to {} exchange rounds a tier", self.rounds)?;
            }
        }
        Ok(())
    }
}

/// The most states one worker contributes to one round of a tier's exchange, unless the
/// exchange asks for less ([`TierExchange::max_block`]).
pub const DEFAULT_ROUND_STATES: u64 = 1 << 24;

/// How the states of a tier are dealt to the workers of a split solve
/// ([`DenseSolver::solve_split`]): blocks of [`block`](Shares::block) states (a multiple of
/// 32, so a word of 2-bit outcomes is never shared by two workers), block `i` to worker
/// `i mod ranks`. Round `j` of the exchange gathers the blocks `j·ranks .. (j+1)·ranks`,
/// which lie side by side in the tier. A tier of at most `ranks · max_block` states is one
/// round, each worker taking one consecutive range of about `states / ranks`; a larger one
/// goes in the fewest rounds of at most `ranks · max_block` states (blocks of about equal
/// size), so no single message exceeds what the exchange can count (MPI counts are 32-bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shares {
    states: u64,
    ranks: u32,
    block: u64,
}

impl Shares {
    /// The shares of a tier of `states` states over `ranks` workers, blocks of at most
    /// `max_block` states (rounded down to a multiple of 32, at least 32).
    pub fn new(states: u64, ranks: u32, max_block: u64) -> Shares {
        let ranks = ranks.max(1);
        let max_block = (max_block / STATES_PER_WORD).max(1) * STATES_PER_WORD;
        // As few rounds as the largest block allows, with blocks as even as 32 allows.
        let per_round = max_block.saturating_mul(u64::from(ranks));
        let rounds = states.div_ceil(per_round).max(1);
        let even = states
            .div_ceil(u64::from(ranks).saturating_mul(rounds))
            .div_ceil(STATES_PER_WORD)
            .max(1)
            * STATES_PER_WORD;
        Shares {
            states,
            ranks,
            block: even.min(max_block),
        }
    }

    /// States per block.
    pub fn block(&self) -> u64 {
        self.block
    }

    /// Number of rounds of the exchange.
    pub fn rounds(&self) -> u64 {
        self.states
            .div_ceil(self.block.saturating_mul(u64::from(self.ranks)))
    }

    /// The states `start..end` worker `rank` solves and sends in round `round` (empty past
    /// the tier's end).
    pub fn piece(&self, round: u64, rank: u32) -> (u64, u64) {
        let i = round
            .saturating_mul(u64::from(self.ranks))
            .saturating_add(u64::from(rank));
        let a = i.saturating_mul(self.block).min(self.states);
        let b = i.saturating_add(1).saturating_mul(self.block).min(self.states);
        (a, b)
    }

    /// Every range worker `rank` solves, in increasing order (none empty).
    pub fn ranges(&self, rank: u32) -> impl Iterator<Item = (u64, u64)> + '_ {
        (0..self.rounds())
            .map(move |j| self.piece(j, rank))
            .filter(|&(a, b)| a < b)
    }

    /// Bytes of the records worker `rank` solves (its pieces side by side).
    pub fn share_bytes(&self, record: Record, rank: u32) -> u64 {
        self.ranges(rank).map(|(a, b)| record.tier_bytes(b - a)).sum()
    }
}

/// The records of a whole tier, or of a part of it, to be filled.
#[derive(Debug)]
pub enum TierSlice<'a> {
    /// [`Record::Outcome`]: 64-bit words of 2-bit codes, 32 states a word.
    Bits(&'a mut [u64]),
    /// [`Record::Grundy`] or [`Record::Remoteness`]: one record per state.
    Words(&'a mut [u16]),
}

/// The records of a tier, or of a part of it, to be read.
#[derive(Clone, Copy, Debug)]
pub enum TierView<'a> {
    /// [`Record::Outcome`]: 64-bit words of 2-bit codes, 32 states a word.
    Bits(&'a [u64]),
    /// [`Record::Grundy`] or [`Record::Remoteness`]: one record per state.
    Words(&'a [u16]),
}

impl TierView<'_> {
    /// Number of elements (words or records).
    pub fn len(&self) -> usize {
        match self {
            TierView::Bits(w) => w.len(),
            TierView::Words(w) => w.len(),
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// How the workers of a split solve ([`DenseSolver::solve_split`]) share each tier: worker
/// `rank` of `ranks` solves the blocks [`Shares`] deals it, then [`gather`] brings the
/// blocks of the others, round by round, so every worker holds the whole tier for the tiers
/// above. Every worker must make the same calls in the same order (they are collective).
///
/// [`gather`]: TierExchange::gather
pub trait TierExchange {
    /// This worker's number, `0..ranks`.
    fn rank(&self) -> u32;
    /// The number of workers.
    fn ranks(&self) -> u32;
    /// The most states one worker may send in one round (the same on every worker).
    fn max_block(&self) -> u64 {
        DEFAULT_ROUND_STATES
    }
    /// Whether the solve goes ahead: every worker learns worker 0's `go` (worker 0 may
    /// answer without solving, from what it alone has).
    fn agree(&mut self, go: bool) -> bool;
    /// Worker 0's `value`, on every worker.
    fn share_value(&mut self, value: u64) -> u64;
    /// Worker 0's `bytes` (a path, a short text), on every worker; the others' are ignored.
    fn share_bytes(&mut self, bytes: &[u8]) -> Vec<u8>;
    /// Every worker's status, on every worker: `Ok` when all are, otherwise an error (the
    /// first failing worker's, naming it).
    fn status(&mut self, status: Result<(), DenseError>) -> Result<(), DenseError>;
    /// One round of the exchange of `tier`: worker `r` sends `counts[r]` elements (its
    /// `mine`), which land at offset `counts[..r].sum()` of `round`, the part of the tier
    /// starting at element `at`, on every worker.
    fn gather(
        &mut self,
        tier: u32,
        at: usize,
        mine: TierView<'_>,
        round: TierSlice<'_>,
        counts: &[usize],
    ) -> Result<(), DenseError>;
    /// Worker 0's `records` (elements `at..` of `tier`, read back from its tier files) on
    /// every worker.
    fn broadcast(&mut self, tier: u32, at: usize, records: TierSlice<'_>) -> Result<(), DenseError>;
    /// The folder of finished tiers when every worker sees worker 0's (set by
    /// [`use_tier_folder`](TierExchange::use_tier_folder), the same on every worker): each
    /// worker then writes its own share of each finished tier into it
    /// ([`tier_file::write_share`]). `None` (the default): worker 0 writes whole tiers.
    fn tier_folder(&self) -> Option<&Path> {
        None
    }
    /// Makes [`tier_folder`](TierExchange::tier_folder) `dir`, once every worker has checked
    /// that it sees worker 0's folder there; ignored by default.
    fn use_tier_folder(&mut self, _dir: &Path) {}
}

/// Where the finished tiers of a solve are kept, to resume it after a stop
/// ([`DenseSolver::solve_kept`]; [`tier_file::TierDir`] keeps them in a folder). A tier
/// counts as finished only once it is kept whole.
pub trait TierKeeper {
    /// Whether `tier` (of `states` states) is kept finished, from what is cheap to check
    /// (a header); [`load`](TierKeeper::load) checks the records themselves. An error
    /// refuses the solve (another solve's records).
    fn finished(&mut self, tier: u32, states: u64) -> Result<bool, DenseError>;
    /// Reads the records of the finished `tier` into `records` (the whole tier). `Ok(false)`:
    /// missing or damaged (the tier is solved again); an error refuses the solve (another
    /// solve's records).
    fn load(&mut self, tier: u32, states: u64, records: TierSlice<'_>) -> Result<bool, DenseError>;
    /// Keeps the records of the solved `tier`, durably; a tier is finished only once they
    /// are all kept (a stop while saving leaves it unfinished, never half kept).
    fn save(&mut self, tier: u32, states: u64, records: TierView<'_>) -> Result<(), DenseError>;
    /// For a split solve whose workers all see the keeper's folder
    /// ([`TierExchange::tier_folder`]): lays out the file of the solved `tier`, its header
    /// (with the checksum of `records`, the whole tier) and room for the records, which each
    /// worker then writes its share of; returns where the records start. `Ok(None)` (the
    /// default): the keeper cannot, and [`save`](TierKeeper::save)s whole tiers.
    fn begin_shares(
        &mut self,
        _tier: u32,
        _states: u64,
        _records: TierView<'_>,
    ) -> Result<Option<u64>, DenseError> {
        Ok(None)
    }
    /// Once every worker wrote its share of `tier` laid out by
    /// [`begin_shares`](TierKeeper::begin_shares): makes it finished, durably.
    fn end_shares(&mut self, tier: u32, _states: u64) -> Result<(), DenseError> {
        Err(DenseError::TierIo(format!(
            "tier {tier} was not laid out for shares"
        )))
    }
}

/// Where a tier's records came from, in [`TierDone`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TierSource {
    /// Solved by this run.
    Solved,
    /// Solved by this run, though a kept copy existed that was damaged.
    Resolved,
    /// Read back from the [`TierKeeper`] (finished by an earlier run).
    Loaded,
    /// Finished by an earlier run and not needed any more: not read.
    Skipped,
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
    /// Solved now, or read back from the kept tiers of an earlier run.
    pub source: TierSource,
}

/// The records of one solved tier.
#[derive(Clone, Debug)]
enum TierData {
    /// 2-bit outcome codes, 32 states per word.
    Bits(Vec<u64>),
    /// 16-bit Grundy values or remoteness.
    Words(Vec<u16>),
}

impl TierData {
    /// Number of elements (words or records).
    fn len(&self) -> usize {
        match self {
            TierData::Bits(w) => w.len(),
            TierData::Words(w) => w.len(),
        }
    }

    /// The whole tier, to be filled.
    fn slice(&mut self) -> TierSlice<'_> {
        self.part(0, self.len())
    }

    /// Elements `a..b`, to be filled.
    fn part(&mut self, a: usize, b: usize) -> TierSlice<'_> {
        match self {
            TierData::Bits(w) => TierSlice::Bits(&mut w[a..b]),
            TierData::Words(w) => TierSlice::Words(&mut w[a..b]),
        }
    }

    /// The whole tier, to be read.
    fn view(&self) -> TierView<'_> {
        self.view_part(0, self.len())
    }

    /// Elements `a..b`, to be read.
    fn view_part(&self, a: usize, b: usize) -> TierView<'_> {
        match self {
            TierData::Bits(w) => TierView::Bits(&w[a..b]),
            TierData::Words(w) => TierView::Words(&w[a..b]),
        }
    }
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
                Record::Outcome => TierData::Bits(
                    bytes
                        .chunks_exact(8)
                        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                        .collect(),
                ),
                Record::Grundy | Record::Remoteness => TierData::Words(
                    bytes
                        .chunks_exact(2)
                        .map(|c| u16::from_le_bytes([c[0], c[1]]))
                        .collect(),
                ),
            };
            check_tier(&data, states).map_err(bad)?;
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

/// Whether the records of a tier of `states` states are ones a solve writes: outcome codes
/// that are a win or a loss (and nothing past the last state), 16-bit records below the
/// largest value.
fn check_tier(data: &TierData, states: u64) -> Result<(), String> {
    match data {
        TierData::Bits(words) => {
            const LOW: u64 = 0x5555_5555_5555_5555;
            for (wi, &w) in words.iter().enumerate() {
                let first = wi as u64 * STATES_PER_WORD;
                let in_tier = states.saturating_sub(first).min(STATES_PER_WORD);
                // Fields of the tier's states: exactly one of their two bits set; others 0.
                let fields = if in_tier == STATES_PER_WORD {
                    u64::MAX
                } else {
                    (1u64 << (2 * in_tier)) - 1
                };
                if (w ^ (w >> 1)) & LOW & fields == LOW & fields && w & !fields == 0 {
                    continue;
                }
                for k in 0..STATES_PER_WORD {
                    let code = w >> (2 * k) & 3;
                    let ok = if k < in_tier {
                        code == CODE_LOSS || code == CODE_WIN
                    } else {
                        code == 0
                    };
                    if !ok {
                        return Err(format!("code {code} for state {}", first + k));
                    }
                }
            }
        }
        TierData::Words(words) => {
            if let Some(i) = words.iter().position(|&w| w as u64 >= MAX_WORD) {
                return Err(format!("record {} out of range for state {i}", words[i]));
            }
        }
    }
    Ok(())
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
    block: u64,
    stop: Option<&'g AtomicBool>,
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
            block: DEFAULT_ROUND_STATES,
            stop: None,
        }
    }

    /// Stop the solve cleanly between two tiers once `stop` is set (a timeout): the tier
    /// being solved is finished (and kept by the [`TierKeeper`]) first, then the solve
    /// returns [`DenseError::Stopped`]. In a split solve worker 0's flag decides for every
    /// worker.
    pub fn stop_when(mut self, stop: Option<&'g AtomicBool>) -> Self {
        self.stop = stop;
        self
    }

    /// The most states a worker sends in one round of an exchange, for the plan
    /// ([`Shares`]); [`solve_split`](DenseSolver::solve_split) uses the exchange's
    /// [`TierExchange::max_block`].
    pub fn round_states(mut self, states: u64) -> Self {
        self.block = states;
        self
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
        // A split solve (ranks > 1) holds the share a worker solves beside the tiers it
        // reads, frees those read for the last time, then holds the whole tier with its
        // share while they are exchanged.
        let mut live = 0u64;
        let mut peak = 0u64;
        let mut states = 0u64;
        let mut exchange_bytes = 0u64;
        let mut rounds = 0u64;
        for &t in &tiers {
            let size = self.game.tier_size(t);
            let whole = self.record.tier_bytes(size);
            states = states.saturating_add(size);
            let frees = |live: &mut u64| {
                if !self.keep_all && t != top {
                    for &u in &tiers {
                        if u < t && last_use[u as usize] == t {
                            *live = live.saturating_sub(self.record.tier_bytes(self.game.tier_size(u)));
                        }
                    }
                }
            };
            if self.ranks > 1 {
                let shares = Shares::new(size, self.ranks, self.block);
                let share = (0..self.ranks)
                    .map(|r| shares.share_bytes(self.record, r))
                    .max()
                    .unwrap_or(0);
                exchange_bytes = exchange_bytes.max(share);
                rounds = rounds.max(shares.rounds());
                peak = peak.max(live.saturating_add(share));
                frees(&mut live);
                live = live.saturating_add(whole);
                peak = peak.max(live.saturating_add(share));
            } else {
                live = live.saturating_add(whole);
                peak = peak.max(live);
                frees(&mut live);
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
            rounds,
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
        self.solve_kept(top, None, None, progress)
    }

    /// As [`solve_with_progress`](DenseSolver::solve_with_progress), as one worker of
    /// several: each tier's states are dealt by [`Shares`], this worker solves its share,
    /// and `exchange` brings the others' records, so every worker ends with the same table.
    /// The plan and its budget check (with the exchange's rank count) come first, on every
    /// worker alike.
    pub fn solve_split(
        &self,
        top: u32,
        exchange: &mut dyn TierExchange,
        progress: impl FnMut(TierDone),
    ) -> Result<DenseTable, DenseError> {
        self.solve_kept(top, Some(exchange), None, progress)
    }

    /// The general solve: alone or as one worker of several (`exchange`), keeping each
    /// finished tier in `keeper` (worker 0 only) and starting from the tiers it holds
    /// finished. A restarted solve reads back only the finished tiers the remaining ones
    /// need (those the one-process solve would still hold at that point), checks them, and
    /// solves the rest; a damaged kept tier is solved again (and every tier after it). The
    /// table is the same as a solve from nothing.
    pub fn solve_kept(
        &self,
        top: u32,
        mut exchange: Option<&mut dyn TierExchange>,
        mut keeper: Option<&mut dyn TierKeeper>,
        mut progress: impl FnMut(TierDone),
    ) -> Result<DenseTable, DenseError> {
        if self.record == Record::Grundy && self.convention == Convention::Misere {
            return Err(DenseError::GrundyNeedsNormalPlay);
        }
        let ranks = exchange.as_ref().map_or(1, |x| x.ranks());
        let block = exchange.as_ref().map_or(self.block, |x| x.max_block());
        let plan = DenseSolver {
            ranks,
            block,
            ..*self
        }
        .plan(top)?;
        if plan.peak_bytes > self.budget {
            return Err(DenseError::Memory {
                needed: plan.peak_bytes,
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
        // The tiers held when the solve reaches plan.tiers[p] (all solved at the end).
        let held_at = |p: usize| -> Vec<u32> {
            let upto = &plan.tiers[..p];
            match plan.tiers.get(p) {
                _ if self.keep_all => upto.to_vec(),
                Some(&t) => upto
                    .iter()
                    .copied()
                    .filter(|&u| keep_until[u as usize] >= t)
                    .collect(),
                None => upto
                    .iter()
                    .copied()
                    .filter(|&u| u == top || keep_until[u as usize] == top)
                    .collect(),
            }
        };
        // Where to start: after the finished tiers the keeper holds (worker 0 reads them).
        let mut first = 0usize;
        let mut damaged: Vec<u32> = Vec::new();
        let mut resumed: Result<(), DenseError> = Ok(());
        if let Some(k) = keeper.as_deref_mut() {
            for &t in &plan.tiers {
                match k.finished(t, self.game.tier_size(t)) {
                    Ok(true) => first += 1,
                    Ok(false) => break,
                    Err(e) => {
                        resumed = Err(e);
                        break;
                    }
                }
            }
            if resumed.is_err() {
                first = 0;
            }
            'read: while first > 0 {
                for u in held_at(first) {
                    let size = self.game.tier_size(u);
                    let mut data = match self.alloc_tier(u, size) {
                        Ok(d) => d,
                        Err(e) => {
                            resumed = Err(e);
                            break 'read;
                        }
                    };
                    let sound = match k.load(u, size, data.slice()) {
                        Ok(read) => read && check_tier(&data, size).is_ok(),
                        Err(e) => {
                            resumed = Err(e);
                            break 'read;
                        }
                    };
                    if sound {
                        tables[u as usize] = Some(data);
                        continue;
                    }
                    // Solve again from the damaged tier on.
                    damaged.push(u);
                    first = plan.tiers.iter().position(|&t| t == u).unwrap_or(0);
                    tables.iter_mut().for_each(|t| *t = None);
                    continue 'read;
                }
                break;
            }
        }
        if let Some(x) = exchange.as_deref_mut() {
            // Worker 0 tells where it starts (or that it failed), then sends what it read.
            let word = if resumed.is_ok() { first as u64 } else { u64::MAX };
            let word = x.share_value(word);
            std::mem::replace(&mut resumed, Ok(()))?;
            let Ok(at) = usize::try_from(word) else {
                return Err(DenseError::Elsewhere(
                    "worker 0 could not read its finished tiers".into(),
                ));
            };
            first = at.min(plan.tiers.len());
            for u in held_at(first) {
                let size = self.game.tier_size(u);
                let data = match tables[u as usize].take() {
                    Some(d) => Ok(d),
                    None => self.alloc_tier(u, size),
                };
                let status = data.as_ref().map(|_| ()).map_err(Clone::clone);
                x.status(status)?;
                let mut data = data?;
                let step = self.round_units(ranks, block);
                let mut at = 0;
                while at < data.len() {
                    let end = (at + step).min(data.len());
                    x.broadcast(u, at, data.part(at, end))?;
                    at = end;
                }
                tables[u as usize] = Some(data);
            }
        }
        resumed?;
        let mut solved = 0;
        for (p, &t) in plan.tiers.iter().enumerate() {
            let size = self.game.tier_size(t);
            solved += size;
            if p >= first {
                break;
            }
            let loaded = tables[t as usize].is_some();
            progress(TierDone {
                tier: t,
                states: size,
                solved,
                total: plan.states,
                source: if loaded {
                    TierSource::Loaded
                } else {
                    TierSource::Skipped
                },
            });
        }
        let mut solved = plan.tiers[..first]
            .iter()
            .map(|&t| self.game.tier_size(t))
            .sum::<u64>();
        for &t in &plan.tiers[first..] {
            let size = self.game.tier_size(t);
            let frees = |tables: &mut Vec<Option<TierData>>| {
                if t == top || self.keep_all {
                    return;
                }
                for &u in &plan.tiers {
                    if u < t && keep_until[u as usize] == t {
                        tables[u as usize] = None;
                    }
                }
            };
            let data = match exchange.as_deref_mut() {
                None => {
                    let data = self.solve_ranges(t, &tables, &[(0, size)])?;
                    frees(&mut tables);
                    data
                }
                Some(x) => {
                    let shares = Shares::new(size, ranks, block);
                    let ranges: Vec<(u64, u64)> = shares.ranges(x.rank()).collect();
                    let mine = self.solve_ranges(t, &tables, &ranges);
                    // The tiers read for the last time go before the whole tier comes.
                    frees(&mut tables);
                    let whole = match &mine {
                        Ok(_) => self.alloc_tier(t, size),
                        Err(e) => Err(e.clone()),
                    };
                    let status = whole.as_ref().map(|_| ()).map_err(Clone::clone);
                    x.status(status.clone())?;
                    let (mine, mut whole) = (mine?, whole?);
                    self.exchange_tier(x, t, &shares, &mine, &mut whole)?;
                    whole
                }
            };
            let by_shares = match exchange.as_deref_mut() {
                Some(x) if x.tier_folder().is_some() => {
                    self.keep_shares(x, keeper.as_deref_mut(), t, size, &data)?
                }
                _ => false,
            };
            if by_shares {
                // Kept: every worker wrote its share.
            } else if let Some(k) = keeper.as_deref_mut() {
                let kept = k.save(t, size, data.view());
                if let Some(x) = exchange.as_deref_mut() {
                    x.agree(kept.is_ok());
                }
                kept?;
            } else if let Some(x) = exchange.as_deref_mut() {
                let lead = x.rank() == 0;
                if !x.agree(true) && !lead {
                    return Err(DenseError::Elsewhere(format!("worker 0 could not keep tier {t}")));
                }
            }
            tables[t as usize] = Some(data);
            solved += size;
            progress(TierDone {
                tier: t,
                states: size,
                solved,
                total: plan.states,
                source: if damaged.contains(&t) {
                    TierSource::Resolved
                } else {
                    TierSource::Solved
                },
            });
            // A stop between tiers (never after the last): worker 0's flag decides for all.
            if t != top {
                let mut stop = self.stop.is_some_and(|f| f.load(Ordering::Relaxed));
                if let Some(x) = exchange.as_deref_mut() {
                    let lead = x.rank() == 0;
                    stop = !x.agree(!(lead && stop));
                }
                if stop {
                    let finished = plan.tiers.iter().position(|&u| u == t).map_or(0, |p| p + 1);
                    return Err(DenseError::Stopped {
                        tier: t,
                        finished,
                        tiers: plan.tiers.len(),
                    });
                }
            }
        }
        Ok(DenseTable {
            record: self.record,
            convention: self.convention,
            tiers: tables,
        })
    }

    /// Keeps the solved `tier` (`data`, whole on every worker) with every worker writing its
    /// own share into the file worker 0 lays out in the folder all of them see: collective.
    /// `Ok(false)` when worker 0's keeper cannot (then worker 0 saves the whole tier).
    fn keep_shares(
        &self,
        x: &mut (dyn TierExchange + '_),
        keeper: Option<&mut (dyn TierKeeper + '_)>,
        tier: u32,
        size: u64,
        data: &TierData,
    ) -> Result<bool, DenseError> {
        let lead = x.rank() == 0;
        let mut keeper = keeper.filter(|_| lead);
        let begun = match keeper.as_deref_mut() {
            Some(k) => k.begin_shares(tier, size, data.view()),
            None => Ok(None),
        };
        x.status(begun.as_ref().map(|_| ()).map_err(Clone::clone))?;
        let at = x.share_value(begun.ok().flatten().unwrap_or(u64::MAX));
        let Some(dir) = x.tier_folder().map(Path::to_path_buf).filter(|_| at != u64::MAX) else {
            return Ok(false);
        };
        let shares = Shares::new(size, x.ranks(), x.max_block());
        let pieces: Vec<(usize, usize)> = shares
            .ranges(x.rank())
            .map(|(a, b)| match self.record {
                Record::Outcome => (
                    a.div_ceil(STATES_PER_WORD) as usize,
                    b.div_ceil(STATES_PER_WORD) as usize,
                ),
                _ => (a as usize, b as usize),
            })
            .collect();
        let wrote = tier_file::write_share(&dir, tier, at, data.view(), &pieces);
        x.status(wrote)?;
        let kept = match keeper {
            Some(k) => k.end_shares(tier, size),
            None => Ok(()),
        };
        if !x.agree(kept.is_ok()) && !lead {
            return Err(DenseError::Elsewhere(format!(
                "worker 0 could not keep tier {tier}"
            )));
        }
        kept.map(|()| true)
    }

    /// The elements (words or records) of one round of `ranks` blocks of `block` states.
    fn round_units(&self, ranks: u32, block: u64) -> usize {
        let states = u64::from(ranks.max(1)).saturating_mul(block.max(STATES_PER_WORD));
        let units = match self.record {
            Record::Outcome => states / STATES_PER_WORD,
            _ => states,
        };
        usize::try_from(units).unwrap_or(usize::MAX)
    }

    /// Fills `whole` (tier `tier`) from this worker's solved blocks `mine` and the others',
    /// round by round.
    fn exchange_tier(
        &self,
        x: &mut dyn TierExchange,
        tier: u32,
        shares: &Shares,
        mine: &TierData,
        whole: &mut TierData,
    ) -> Result<(), DenseError> {
        let ranks = x.ranks();
        let me = x.rank();
        let units = |(a, b): (u64, u64)| -> (usize, usize) {
            match self.record {
                // (A piece starts at a multiple of 32 states, or at the tier's end.)
                Record::Outcome => (
                    a.div_ceil(STATES_PER_WORD) as usize,
                    b.div_ceil(STATES_PER_WORD) as usize,
                ),
                _ => (a as usize, b as usize),
            }
        };
        let mut sent = 0usize;
        for j in 0..shares.rounds() {
            let counts: Vec<usize> = (0..ranks)
                .map(|r| {
                    let (a, b) = units(shares.piece(j, r));
                    b - a
                })
                .collect();
            let (lo, _) = units(shares.piece(j, 0));
            let hi = lo + counts.iter().sum::<usize>();
            let n = counts[me as usize];
            x.gather(
                tier,
                lo,
                mine.view_part(sent, sent + n),
                whole.part(lo, hi),
                &counts,
            )?;
            sent += n;
        }
        Ok(())
    }

    /// A zeroed tier of `size` states, or the allocator's refusal.
    fn alloc_tier(&self, tier: u32, size: u64) -> Result<TierData, DenseError> {
        self.alloc_units(tier, size, self.record.tier_bytes(size))
    }

    /// Zeroed records of `bytes` bytes for `tier`.
    fn alloc_units(&self, tier: u32, _size: u64, bytes: u64) -> Result<TierData, DenseError> {
        let alloc = DenseError::Alloc { tier, bytes };
        Ok(match self.record {
            Record::Outcome => {
                let n = usize::try_from(bytes / 8).map_err(|_| alloc.clone())?;
                let mut v: Vec<u64> = Vec::new();
                v.try_reserve_exact(n).map_err(|_| alloc)?;
                v.resize(n, 0);
                TierData::Bits(v)
            }
            Record::Grundy | Record::Remoteness => {
                let n = usize::try_from(bytes / 2).map_err(|_| alloc.clone())?;
                let mut v: Vec<u16> = Vec::new();
                v.try_reserve_exact(n).map_err(|_| alloc)?;
                v.resize(n, 0);
                TierData::Words(v)
            }
        })
    }

    /// The records of the states of `ranges` of `tier` (each starting at a multiple of
    /// [`STATES_PER_WORD`]; the last may end anywhere), side by side.
    fn solve_ranges(
        &self,
        tier: u32,
        tables: &[Option<TierData>],
        ranges: &[(u64, u64)],
    ) -> Result<TierData, DenseError> {
        let size = self.game.tier_size(tier);
        let ranges: Vec<(u64, u64)> = ranges
            .iter()
            .map(|&(a, b)| (a.min(size), b.min(size)))
            .filter(|&(a, b)| a < b)
            .collect();
        let bytes = ranges.iter().map(|&(a, b)| self.record.tier_bytes(b - a)).sum();
        let mut data = self.alloc_units(tier, size, bytes)?;
        match &mut data {
            TierData::Bits(words) => {
                let per_chunk = (CHUNK_STATES / STATES_PER_WORD) as usize;
                let mut tasks: Vec<(u64, u64, &mut [u64])> = Vec::new();
                let mut rest: &mut [u64] = words;
                for &(a, b) in &ranges {
                    let n = (b - a).div_ceil(STATES_PER_WORD) as usize;
                    let (part, tail) = std::mem::take(&mut rest).split_at_mut(n);
                    rest = tail;
                    for (ci, chunk) in part.chunks_mut(per_chunk).enumerate() {
                        let start = a + ci as u64 * CHUNK_STATES;
                        let end = (start + chunk.len() as u64 * STATES_PER_WORD).min(b);
                        tasks.push((start, end, chunk));
                    }
                }
                tasks.into_par_iter().try_for_each(|(start, end, chunk)| {
                    self.each_state(tier, start, end, |idx, state| {
                        let code = self.eval_outcome(tier, idx, state, tables)?;
                        let off = idx - start;
                        chunk[(off / STATES_PER_WORD) as usize] |= code << (2 * (off % STATES_PER_WORD));
                        Ok(())
                    })
                })?;
            }
            TierData::Words(records) => {
                let mut tasks: Vec<(u64, &mut [u16])> = Vec::new();
                let mut rest: &mut [u16] = records;
                for &(a, b) in &ranges {
                    let (part, tail) = std::mem::take(&mut rest).split_at_mut((b - a) as usize);
                    rest = tail;
                    for (ci, chunk) in part.chunks_mut(CHUNK_STATES as usize).enumerate() {
                        tasks.push((a + ci as u64 * CHUNK_STATES, chunk));
                    }
                }
                tasks.into_par_iter().try_for_each(|(start, chunk)| {
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
            }
        }
        Ok(data)
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

pub mod tier_file;

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
    use super::tier_file::TierDir;
    use super::*;

    /// The elements (words or records) of a tier of a one-process table.
    fn elements(table: &DenseTable, tier: u32) -> Vec<u64> {
        let bytes = table.tier_records(tier).unwrap();
        match table.record() {
            Record::Outcome => bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect(),
            _ => bytes
                .chunks_exact(2)
                .map(|c| u64::from(u16::from_le_bytes([c[0], c[1]])))
                .collect(),
        }
    }

    fn fill(slice: TierSlice<'_>, from: &[u64]) {
        match slice {
            TierSlice::Bits(w) => w.copy_from_slice(from),
            TierSlice::Words(w) => w.iter_mut().zip(from).for_each(|(x, &v)| *x = v as u16),
        }
    }

    fn view_elements(v: TierView<'_>) -> Vec<u64> {
        match v {
            TierView::Bits(w) => w.to_vec(),
            TierView::Words(w) => w.iter().map(|&x| u64::from(x)).collect(),
        }
    }

    /// Worker `rank` of `ranks`: takes the others' blocks from a one-process table, and
    /// checks its own against it.
    struct FromTable<'t> {
        rank: u32,
        ranks: u32,
        table: &'t DenseTable,
        block: u64,
        /// What worker 0 would tell the others about where it starts.
        lead_first: u64,
        rounds: u32,
        broadcasts: u32,
    }

    impl TierExchange for FromTable<'_> {
        fn rank(&self) -> u32 {
            self.rank
        }
        fn ranks(&self) -> u32 {
            self.ranks
        }
        fn max_block(&self) -> u64 {
            self.block
        }
        fn agree(&mut self, go: bool) -> bool {
            go
        }
        fn share_value(&mut self, value: u64) -> u64 {
            if self.rank == 0 {
                value
            } else {
                self.lead_first
            }
        }
        fn share_bytes(&mut self, bytes: &[u8]) -> Vec<u8> {
            bytes.to_vec()
        }
        fn status(&mut self, status: Result<(), DenseError>) -> Result<(), DenseError> {
            status
        }
        fn gather(
            &mut self,
            tier: u32,
            at: usize,
            mine: TierView<'_>,
            round: TierSlice<'_>,
            counts: &[usize],
        ) -> Result<(), DenseError> {
            self.rounds += 1;
            let whole = elements(self.table, tier);
            let len: usize = counts.iter().sum();
            let units = match self.table.record() {
                Record::Outcome => self.block / STATES_PER_WORD,
                _ => self.block,
            } as usize;
            assert!(counts.iter().all(|&c| c <= units), "{counts:?} > {units}");
            let off: usize = counts[..self.rank as usize].iter().sum();
            let n = counts[self.rank as usize];
            assert_eq!(mine.len(), n);
            assert_eq!(
                view_elements(mine),
                whole[at + off..at + off + n],
                "tier {tier} round at {at}: the share differs from one process's"
            );
            fill(round, &whole[at..at + len]);
            Ok(())
        }
        fn broadcast(&mut self, tier: u32, at: usize, records: TierSlice<'_>) -> Result<(), DenseError> {
            self.broadcasts += 1;
            let whole = elements(self.table, tier);
            if self.rank != 0 {
                let n = match &records {
                    TierSlice::Bits(w) => w.len(),
                    TierSlice::Words(w) => w.len(),
                };
                fill(records, &whole[at..at + n]);
            }
            Ok(())
        }
    }

    fn worker(rank: u32, ranks: u32, table: &DenseTable, block: u64) -> FromTable<'_> {
        FromTable {
            rank,
            ranks,
            table,
            block,
            lead_first: 0,
            rounds: 0,
            broadcasts: 0,
        }
    }

    #[test]
    fn shares_cover_each_tier_at_word_boundaries() {
        for states in [0u64, 1, 31, 32, 33, 100, 1000, 1 << 20] {
            for ranks in 1..6 {
                for max_block in [32, 64, 100, 1 << 24] {
                    let sh = Shares::new(states, ranks, max_block);
                    assert!(sh.block().is_multiple_of(STATES_PER_WORD) && sh.block() <= max_block.max(32));
                    let mut next = 0;
                    for j in 0..sh.rounds() {
                        for r in 0..ranks {
                            let (a, b) = sh.piece(j, r);
                            assert_eq!(a, next, "{states} {ranks} {max_block}");
                            assert!(a <= b && (a.is_multiple_of(STATES_PER_WORD) || a == states));
                            assert!(b - a <= sh.block());
                            next = b;
                        }
                    }
                    assert_eq!(next, states);
                    let total: u64 = (0..ranks)
                        .map(|r| sh.ranges(r).map(|(a, b)| b - a).sum::<u64>())
                        .sum();
                    assert_eq!(total, states);
                }
            }
        }
        // Small tiers: one round, a range of about states/ranks each.
        let sh = Shares::new(1000, 3, 1 << 24);
        assert_eq!((sh.rounds(), sh.block()), (1, 352));
        // Just over one round: two rounds of even blocks, not one full and one small.
        let sh = Shares::new(40_116_600, 2, 1 << 24);
        assert_eq!(sh.rounds(), 2);
        let (a, b) = (
            sh.share_bytes(Record::Grundy, 0),
            sh.share_bytes(Record::Grundy, 1),
        );
        assert!(a.abs_diff(b) <= 4 * 32 * 2, "{a} {b}");
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
            // Blocks of 32 and 64 states: tiers of 1000 states in many rounds.
            for (ranks, block) in [
                (2, DEFAULT_ROUND_STATES),
                (3, DEFAULT_ROUND_STATES),
                (3, 32),
                (2, 64),
            ] {
                let mut rounds = 0;
                for rank in 0..ranks {
                    let mut x = worker(rank, ranks, &table, block);
                    let split = solver.solve_split(top, &mut x, |_| {}).unwrap();
                    rounds = x.rounds;
                    for t in 0..=top {
                        assert_eq!(
                            split.tier_records(t),
                            table.tier_records(t),
                            "{record:?} {rank}/{ranks} tier {t}"
                        );
                    }
                }
                let want: u64 = game
                    .sizes
                    .iter()
                    .map(|&s| Shares::new(s, ranks, block).rounds())
                    .sum();
                assert_eq!(u64::from(rounds), want);
                if block == 32 {
                    assert!(rounds > 20, "{rounds} rounds");
                }
            }
            let p = solver.ranks(3).plan(top).unwrap();
            assert_eq!((p.ranks, p.exchange_bytes), (3, record.tier_bytes(352)));
            assert!(p.to_string().contains("per rank on 3 ranks"), "{p}");
            assert_eq!(p.rounds, 1);
            let small = DenseSolver::new(&game)
                .record(record)
                .ranks(3)
                .round_states(32)
                .plan(top)
                .unwrap();
            assert_eq!(small.rounds, 1000u64.div_ceil(96));
            assert!(
                small.to_string().contains("up to 11 exchange rounds a tier"),
                "{small}"
            );
        }
    }

    /// A chain where each tier reads only the one below (as Cram's parity classes): a split
    /// solve holds one whole tier and a share, not two whole tiers.
    #[test]
    fn split_plan_holds_a_share_not_two_tiers() {
        let game = RandomGame {
            sizes: vec![1, 4096, 4096, 4096],
            max_moves: 2,
            seed: 1,
        };
        struct Chain(RandomGame);
        impl DenseGame for Chain {
            type State = u64;
            fn num_tiers(&self) -> u32 {
                self.0.num_tiers()
            }
            fn tier_size(&self, t: u32) -> u64 {
                self.0.tier_size(t)
            }
            fn child_tiers(&self, t: u32) -> Vec<u32> {
                if t > 0 {
                    vec![t - 1]
                } else {
                    vec![]
                }
            }
            fn unrank(&self, _t: u32, i: u64) -> u64 {
                i
            }
            fn successors<F: FnMut(u32, u64)>(&self, t: u32, &i: &u64, mut emit: F) {
                if t > 0 {
                    emit(t - 1, (i * 7 + 1) % self.0.tier_size(t - 1));
                }
            }
        }
        let chain = Chain(game);
        let s = DenseSolver::new(&chain).record(Record::Grundy);
        let one = s.plan(3).unwrap();
        assert_eq!(one.peak_bytes, 2 * 8192);
        let four = DenseSolver::new(&chain)
            .record(Record::Grundy)
            .ranks(4)
            .plan(3)
            .unwrap();
        // Tier 2 whole, plus a quarter of tier 3 while it is solved, then tier 3 whole with
        // the quarter while it is exchanged (tier 2 stays: the top's child).
        assert_eq!(four.exchange_bytes, 2048);
        assert_eq!(four.peak_bytes, 2 * 8192 + 2048);
        let mid = DenseSolver::new(&chain)
            .record(Record::Grundy)
            .ranks(4)
            .plan(2)
            .unwrap();
        // Solving tier 2 (the top): tier 1 kept for the moves. Below the top, tier 1 is
        // freed before tier 2 arrives whole: 8192 + 2048 at most before the top.
        assert_eq!(mid.peak_bytes, 2 * 8192 + 2048);
        let t = DenseSolver::new(&chain)
            .record(Record::Grundy)
            .keep_all(true)
            .solve(3)
            .unwrap();
        for rank in 0..4 {
            let mut x = worker(rank, 4, &t, 64);
            let split = s.solve_split(3, &mut x, |_| {}).unwrap();
            assert_eq!(split.tier_records(3), t.tier_records(3));
            assert!(!split.has_tier(1), "tier 1 freed");
        }
    }

    /// A keeper that stops (fails) after keeping `left` tiers, like a run killed there.
    struct StopAfter<'d> {
        dir: &'d mut TierDir,
        left: usize,
    }

    impl TierKeeper for StopAfter<'_> {
        fn finished(&mut self, tier: u32, states: u64) -> Result<bool, DenseError> {
            self.dir.finished(tier, states)
        }
        fn load(&mut self, tier: u32, states: u64, records: TierSlice<'_>) -> Result<bool, DenseError> {
            self.dir.load(tier, states, records)
        }
        fn save(&mut self, tier: u32, states: u64, records: TierView<'_>) -> Result<(), DenseError> {
            if self.left == 0 {
                return Err(DenseError::TierIo("stopped".into()));
            }
            self.left -= 1;
            self.dir.save(tier, states, records)
        }
    }

    fn sources(
        solver: &DenseSolver<'_, RandomGame>,
        top: u32,
        x: Option<&mut dyn TierExchange>,
        keeper: Option<&mut dyn TierKeeper>,
    ) -> (DenseTable, Vec<(u32, TierSource)>) {
        let mut seen = Vec::new();
        let t = solver
            .solve_kept(top, x, keeper, |d| seen.push((d.tier, d.source)))
            .unwrap();
        (t, seen)
    }

    #[test]
    fn a_stopped_solve_resumes_from_its_kept_tiers() {
        let game = RandomGame {
            sizes: vec![3, 300, 450, 500, 90, 200],
            max_moves: 4,
            seed: 9,
        };
        let top = game.num_tiers() - 1;
        for (record, conv, keep_all) in [
            (Record::Outcome, Convention::Normal, false),
            (Record::Grundy, Convention::Normal, true),
            (Record::Remoteness, Convention::Misere, false),
        ] {
            let solver = DenseSolver::new(&game)
                .record(record)
                .convention(conv)
                .keep_all(keep_all);
            let want = solver.solve(top).unwrap();
            let tmp = tempfile::tempdir().unwrap();
            let key = format!("test/{record:?}/{conv:?}");
            let mut dir = TierDir::open(tmp.path(), &key, record, false).unwrap();
            // Stopped after three tiers: those three are kept, nothing else.
            let mut stop = StopAfter {
                dir: &mut dir,
                left: 3,
            };
            let r = solver.solve_kept(top, None, Some(&mut stop), |_| {});
            assert!(matches!(r, Err(DenseError::TierIo(_))), "{r:?}");
            // A temporary file left by a stop while writing is removed, not used.
            std::fs::write(tmp.path().join("tier-003.grundy-tier.tmp"), b"half").unwrap();
            let mut dir = TierDir::open(tmp.path(), &key, record, true).unwrap();
            assert!(!tmp.path().join("tier-003.grundy-tier.tmp").exists());
            let (got, seen) = sources(&solver, top, None, Some(&mut dir));
            for t in 0..=top {
                assert_eq!(got.tier_records(t), want.tier_records(t), "{record:?} tier {t}");
            }
            let solved: Vec<u32> = seen
                .iter()
                .filter(|s| s.1 == TierSource::Solved)
                .map(|s| s.0)
                .collect();
            assert_eq!(solved, vec![3, 4, 5], "{seen:?}");
            let loaded: Vec<u32> = seen
                .iter()
                .filter(|s| s.1 == TierSource::Loaded)
                .map(|s| s.0)
                .collect();
            assert_eq!(loaded, vec![0, 1, 2], "{seen:?}");
            // Everything kept: read back, nothing solved, the same table.
            let (again, seen) = sources(&solver, top, None, Some(&mut dir));
            assert!(seen.iter().all(|s| s.1 != TierSource::Solved), "{seen:?}");
            assert_eq!(again.tier_records(top), want.tier_records(top));
            // A damaged record (checksum) is solved again, with every tier after it.
            let path = dir.tier_path(2);
            let mut bytes = std::fs::read(&path).unwrap();
            let last = bytes.len() - 1;
            bytes[last] ^= 1;
            std::fs::write(&path, &bytes).unwrap();
            let (fixed, seen) = sources(&solver, top, None, Some(&mut dir));
            assert!(seen.contains(&(2, TierSource::Resolved)), "{seen:?}");
            for t in 0..=top {
                assert_eq!(fixed.tier_records(t), want.tier_records(t));
            }
            // A file cut short is damaged too; the rewritten one is sound again.
            let path = dir.tier_path(4);
            let bytes = std::fs::read(&path).unwrap();
            std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
            assert!(!dir.finished(4, 90).unwrap());
            let (_, seen) = sources(&solver, top, None, Some(&mut dir));
            assert!(seen.contains(&(4, TierSource::Solved)), "{seen:?}");
            assert!(dir.finished(4, 90).unwrap());
            // Another solve's folder is refused, at open and at a read.
            let other = TierDir::open(tmp.path(), "another/solve", record, true);
            assert!(matches!(other, Err(DenseError::Refused(m)) if m.contains("another solve")));
            let mut wrong = TierDir::open(&tmp.path().join("fresh"), "another/solve", record, false).unwrap();
            std::fs::copy(dir.tier_path(0), wrong.tier_path(0)).unwrap();
            assert!(matches!(
                solver.solve_kept(top, None, Some(&mut wrong), |_| {}),
                Err(DenseError::Refused(_))
            ));
        }
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        assert!(matches!(
            TierDir::open(&file, "k", Record::Outcome, false),
            Err(DenseError::Refused(m)) if m.contains("not a folder")
        ));
        assert!(matches!(
            TierDir::open(&tmp.path().join("none"), "k", Record::Outcome, true),
            Err(DenseError::Refused(m)) if m.contains("no such folder")
        ));
    }

    #[test]
    fn a_solve_stopped_between_tiers_keeps_them_and_resumes() {
        let game = RandomGame {
            sizes: vec![3, 300, 450, 500, 90, 200],
            max_moves: 4,
            seed: 11,
        };
        let top = game.num_tiers() - 1;
        let solver = || DenseSolver::new(&game).record(Record::Grundy);
        let want = solver().solve(top).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let mut dir = TierDir::open(tmp.path(), "test/stop", Record::Grundy, false).unwrap();
        // Set before the solve: it stops after the first tier, which is kept.
        let flag = AtomicBool::new(true);
        let stopping = solver().stop_when(Some(&flag));
        let r = stopping.solve_kept(top, None, Some(&mut dir), |_| {});
        assert_eq!(
            r.unwrap_err(),
            DenseError::Stopped {
                tier: 0,
                finished: 1,
                tiers: 6
            }
        );
        assert!(dir.finished(0, 3).unwrap() && !dir.finished(1, 300).unwrap());
        // Each run finishes one more tier; the last never stops (the answer is there).
        for finished in 2..=5 {
            let r = stopping.solve_kept(top, None, Some(&mut dir), |_| {});
            assert!(
                matches!(r, Err(DenseError::Stopped { finished: f, .. }) if f == finished),
                "{r:?}"
            );
        }
        let got = stopping.solve_kept(top, None, Some(&mut dir), |_| {}).unwrap();
        assert_eq!(got.tier_records(top), want.tier_records(top));
        // On workers, worker 0's flag decides (it tells the others through `agree`): a
        // flag set on another worker alone stops nothing.
        let whole = solver().keep_all(true).solve(top).unwrap();
        let flag_off = AtomicBool::new(false);
        for rank in 0..3 {
            let mut x = worker(rank, 3, &whole, 64);
            let r = solver().stop_when(Some(&flag)).solve_split(top, &mut x, |_| {});
            match rank {
                0 => assert!(matches!(r, Err(DenseError::Stopped { tier: 0, .. })), "{r:?}"),
                _ => assert_eq!(r.unwrap().tier_records(top), want.tier_records(top)),
            }
            let mut x = worker(rank, 3, &whole, 64);
            let r = solver()
                .stop_when(Some(&flag_off))
                .solve_split(top, &mut x, |_| {});
            assert_eq!(r.unwrap().tier_records(top), want.tier_records(top));
        }
    }

    #[test]
    fn split_workers_resume_from_worker_zeros_tiers() {
        let game = RandomGame {
            sizes: vec![3, 300, 450, 500, 90, 200],
            max_moves: 4,
            seed: 3,
        };
        let top = game.num_tiers() - 1;
        let solver = DenseSolver::new(&game).record(Record::Remoteness);
        let want = DenseSolver::new(&game)
            .record(Record::Remoteness)
            .keep_all(true)
            .solve(top)
            .unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let mut dir = TierDir::open(tmp.path(), "k", Record::Remoteness, false).unwrap();
        let mut x = worker(0, 3, &want, 64);
        let mut stop = StopAfter {
            dir: &mut dir,
            left: 4,
        };
        assert!(solver
            .solve_kept(top, Some(&mut x), Some(&mut stop), |_| {})
            .is_err());
        // Worker 0 reads back tiers 2 and 3 (what tier 4 and on need) and sends them.
        let mut x = worker(0, 3, &want, 64);
        let (lead, seen) = sources(&solver, top, Some(&mut x), Some(&mut dir));
        assert_eq!(
            seen.iter().filter(|s| s.1 == TierSource::Solved).count(),
            2,
            "{seen:?}"
        );
        assert!(x.broadcasts > 0);
        let mut other = worker(2, 3, &want, 64);
        other.lead_first = 4;
        let (t2, seen2) = sources(&solver, top, Some(&mut other), None);
        assert_eq!(seen2.iter().filter(|s| s.1 == TierSource::Solved).count(), 2);
        assert_eq!(lead.tier_records(top), want.tier_records(top));
        assert_eq!(t2.tier_records(top), want.tier_records(top));
    }
}
