//! Stopping a solve from outside without touching any engine: a view of a game whose
//! components have no options and positions no moves once a flag is set.

use crate::solve::{AppError, ErrorKind};
use grundy_core::{Game, Nimber, ParseError, Ruleset};
use std::sync::atomic::{AtomicBool, Ordering};

/// The error of a solve stopped from outside.
pub fn cancelled() -> AppError {
    AppError::new(
        ErrorKind::Cancelled,
        "the solve was stopped: it took longer than its time limit",
    )
}

/// A game whose search can be stopped from outside: once `cancel` is set, no component has
/// an option and no position a move, so every engine winds down at once. What it computes
/// after that is meaningless and is thrown away by the caller, which checks the flag.
pub struct Cancellable<'a, G> {
    /// The game.
    pub game: &'a G,
    /// Once set, the game has no moves.
    pub cancel: &'a AtomicBool,
}

impl<G: Game> Cancellable<'_, G> {
    fn stopped(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

impl<G: Game> Ruleset for Cancellable<'_, G> {
    type Component = G::Component;
    const INDEPENDENT: bool = G::INDEPENDENT;

    fn options<F: FnMut(&[Self::Component])>(&self, c: &Self::Component, emit: F) {
        if !self.stopped() {
            self.game.options(c, emit)
        }
    }
    fn options_until<F: FnMut(&[Self::Component]) -> std::ops::ControlFlow<()>>(
        &self,
        c: &Self::Component,
        emit: F,
    ) -> std::ops::ControlFlow<()> {
        if self.stopped() {
            return std::ops::ControlFlow::Continue(());
        }
        self.game.options_until(c, emit)
    }
    fn known_grundy(&self, c: &Self::Component) -> Option<Nimber> {
        self.game.known_grundy(c)
    }
    fn code(&self, c: &Self::Component) -> Option<u64> {
        self.game.code(c)
    }
    fn normalize_sum(&self, sorted: &mut Vec<Self::Component>) {
        self.game.normalize_sum(sorted)
    }
    fn size_hint(&self, c: &Self::Component) -> usize {
        self.game.size_hint(c)
    }
}

impl<G: Game> Game for Cancellable<'_, G> {
    type Position = G::Position;
    type Move = G::Move;

    fn parse_position(&self, text: &str) -> Result<Self::Position, ParseError> {
        self.game.parse_position(text)
    }
    fn components(&self, p: &Self::Position) -> Vec<Self::Component> {
        self.game.components(p)
    }
    fn moves<F: FnMut(Self::Move, Self::Position)>(&self, p: &Self::Position, emit: F) {
        if !self.stopped() {
            self.game.moves(p, emit)
        }
    }
    fn immediate_wins(&self, p: &Self::Position) -> Option<Vec<Self::Move>> {
        self.game.immediate_wins(p)
    }
    fn end_moves(&self, p: &Self::Position) -> u32 {
        self.game.end_moves(p)
    }
    fn format_move(&self, m: &Self::Move) -> String {
        self.game.format_move(m)
    }
    fn format_position(&self, p: &Self::Position) -> String {
        self.game.format_position(p)
    }
}
