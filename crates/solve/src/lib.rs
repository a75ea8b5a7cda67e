//! Engines of grundy: memoised Grundy values under normal play ([`GrundyMemo`]), outcome
//! search over whole positions for misère play ([`MisereSearch`]), the analysis of a position
//! that front ends print ([`analyze`]), Grundy values by pruned search ([`NimberSearch`]),
//! dense retrograde analysis of ranked games tier by tier ([`dense`]), and a deliberately
//! simple reference solver ([`brute`]) that the clever ones are tested against.

pub mod analysis;
pub mod brute;
pub mod canonical;
mod code_table;
pub mod dense;
pub mod genus;
pub mod memo;
pub mod misere;
pub mod quotient;
pub mod remoteness;
pub mod search;
pub mod search_checkpoint;
pub mod search_parallel;
pub mod seq;
#[cfg(test)]
mod test_rules;
mod value_filter;

pub use analysis::{analyze, Analysis, Convention};
pub use memo::GrundyMemo;
pub use misere::MisereSearch;
pub use search::{NimberSearch, SearchStats};

/// Why an engine could not finish.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// The rules let a position be reached from itself, so it has no Grundy value.
    #[error("the game has a cycle: a position can be reached from itself ({0})")]
    Cycle(String),
    /// A configured limit (positions stored) was reached before the answer.
    #[error("gave up after storing {0} positions (raise the limit with --max-positions)")]
    Limit(usize),
    /// The game said to stop ([`grundy_core::Ruleset::halted`]: its time was up, or its
    /// memory limit passed); the caller knows which.
    #[error("the solve was stopped")]
    Halted,
    /// A checkpoint could not be written or read (its path and why).
    #[error("checkpoint {0}")]
    Checkpoint(String),
}
