//! The analysis of one position that front ends print: Grundy value (normal play), outcome,
//! and every move with what it leads to.

use crate::remoteness::{Remote, RemotenessSearch};
use crate::{GrundyMemo, MisereSearch, SolveError};
pub use grundy_core::Convention;
use grundy_core::{Game, Nimber, Outcome};

/// One move of an analysed position and the value of the position it leads to.
#[derive(Clone, Debug)]
pub struct MoveReport<M> {
    /// The move.
    pub mv: M,
    /// Grundy value after the move (normal play; `None` when undefined).
    pub grundy: Option<Nimber>,
    /// Outcome after the move, for the player who then moves (`Second` = a winning move).
    pub outcome: Outcome,
    /// Remoteness after the move, when asked for.
    pub remoteness: Option<u32>,
}

/// Grundy value, outcome and the winning moves of a position.
#[derive(Clone, Debug)]
pub struct Analysis<M> {
    /// Grundy value under normal play; `None` under misère play or when the position is
    /// decided by an immediate win.
    pub grundy: Option<Nimber>,
    /// Who wins with perfect play.
    pub outcome: Outcome,
    /// Every move that wins (empty when the position is lost).
    pub winning_moves: Vec<M>,
    /// Every legal move with its result.
    pub moves: Vec<MoveReport<M>>,
    /// Moves until the end with best play (winner fastest, loser slowest), when asked for.
    pub remoteness: Option<u32>,
}

/// Engines kept across analyses of positions of one game, so repeated questions are cheap.
pub struct Analyzer<'g, G: Game> {
    game: &'g G,
    normal: GrundyMemo<'g, G>,
    misere: MisereSearch<'g, G>,
    remote_normal: RemotenessSearch<'g, G>,
    remote_misere: RemotenessSearch<'g, G>,
    with_remoteness: bool,
}

impl<'g, G: Game> Analyzer<'g, G> {
    /// Fresh engines for `game`.
    pub fn new(game: &'g G) -> Self {
        Analyzer::with_limit(game, usize::MAX)
    }

    /// Fresh engines that give up with [`SolveError::Limit`] once either stores `limit`
    /// positions, so a search too large for memory stops cleanly.
    pub fn with_limit(game: &'g G, limit: usize) -> Self {
        Analyzer {
            game,
            normal: GrundyMemo::new(game).with_limit(limit),
            misere: MisereSearch::new(game).with_limit(limit).with_genus(true),
            remote_normal: RemotenessSearch::new(game, Convention::Normal).with_limit(limit),
            remote_misere: RemotenessSearch::new(game, Convention::Misere).with_limit(limit),
            with_remoteness: false,
        }
    }

    /// Also compute remoteness in [`Analyzer::analyze`] (a search over whole positions).
    pub fn with_remoteness(mut self, on: bool) -> Self {
        self.with_remoteness = on;
        self
    }

    /// Outcome and remoteness of `p` under `convention`.
    pub fn remote(&mut self, p: &G::Position, convention: Convention) -> Result<Remote, SolveError> {
        if self.game.immediate_wins(p).is_some() {
            return Ok(Remote {
                outcome: Outcome::First,
                remoteness: 1,
            });
        }
        let parts = self.game.components(p);
        let search = match convention {
            Convention::Normal => &mut self.remote_normal,
            Convention::Misere => &mut self.remote_misere,
        };
        let mut r = search.remote(&parts)?;
        r.remoteness += self.game.end_moves(p);
        Ok(r)
    }

    /// Grundy value of `p` under normal play (`None` when an immediate win decides it).
    pub fn grundy(&mut self, p: &G::Position) -> Result<Option<Nimber>, SolveError> {
        if self.game.immediate_wins(p).is_some() {
            return Ok(None);
        }
        let parts = self.game.components(p);
        self.normal.grundy_sum(&parts).map(Some)
    }

    /// Outcome of `p` under `convention`.
    pub fn outcome(&mut self, p: &G::Position, convention: Convention) -> Result<Outcome, SolveError> {
        if self.game.immediate_wins(p).is_some() {
            return Ok(Outcome::First);
        }
        match convention {
            Convention::Normal => Ok(match self.grundy(p)? {
                Some(g) if g.is_zero() => Outcome::Second,
                _ => Outcome::First,
            }),
            Convention::Misere => {
                let parts = self.game.components(p);
                self.misere.outcome(&parts)
            }
        }
    }

    /// The full analysis of `p`: value, outcome, and every move with its result.
    pub fn analyze(
        &mut self,
        p: &G::Position,
        convention: Convention,
    ) -> Result<Analysis<G::Move>, SolveError> {
        let immediate = self.game.immediate_wins(p);
        let mut successors = Vec::new();
        self.game.moves(p, |m, q| successors.push((m, q)));
        let mut moves = Vec::with_capacity(successors.len());
        for (mv, q) in successors {
            let grundy = match convention {
                Convention::Normal => self.grundy(&q)?,
                Convention::Misere => None,
            };
            let outcome = self.outcome(&q, convention)?;
            let remoteness = match self.with_remoteness {
                true => Some(self.remote(&q, convention)?.remoteness),
                false => None,
            };
            moves.push(MoveReport {
                mv,
                grundy,
                outcome,
                remoteness,
            });
        }
        let (grundy, outcome, winning_moves) = match immediate {
            Some(wins) => (None, Outcome::First, wins),
            None => {
                let winning: Vec<G::Move> = moves
                    .iter()
                    .filter(|r| r.outcome == Outcome::Second)
                    .map(|r| r.mv.clone())
                    .collect();
                let grundy = match convention {
                    Convention::Normal => self.grundy(p)?,
                    Convention::Misere => None,
                };
                let outcome = match (convention, moves.is_empty()) {
                    (Convention::Misere, true) => Outcome::First,
                    _ if winning.is_empty() => Outcome::Second,
                    _ => Outcome::First,
                };
                (grundy, outcome, winning)
            }
        };
        let remoteness = match self.with_remoteness {
            true => Some(self.remote(p, convention)?.remoteness),
            false => None,
        };
        Ok(Analysis {
            grundy,
            outcome,
            winning_moves,
            moves,
            remoteness,
        })
    }
}

/// Analyses one position with fresh engines (see [`Analyzer`] to keep them).
pub fn analyze<G: Game>(
    game: &G,
    p: &G::Position,
    convention: Convention,
) -> Result<Analysis<G::Move>, SolveError> {
    Analyzer::new(game).analyze(p, convention)
}
