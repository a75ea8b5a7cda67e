//! Stopping a solve without touching any engine: a view of a game whose components have no
//! options and positions no moves once the solve must stop, because its time is up (a flag
//! set from outside) or because it passed its memory limit (the process budget of
//! `--memory-budget`, or the request's share of it: [`grundy_core::memory`]).

use crate::solve::{AppError, ErrorKind, Limits};
use grundy_core::memory::Share;
use grundy_core::{Game, Nimber, ParseError, Ruleset};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The error of a solve stopped from outside.
pub fn cancelled() -> AppError {
    AppError::new(
        ErrorKind::Cancelled,
        "the solve was stopped: it took longer than its time limit",
    )
}

/// Moves emitted between two looks at the memory in use, within one position's moves.
const CHECK_EVERY: u32 = 1024;

/// Why a solve must stop, asked as it goes: its cancel flag, and its memory limit.
pub struct Stop {
    cancel: Option<Arc<AtomicBool>>,
    share: Share,
    over: AtomicBool,
}

impl Stop {
    /// The stop of a solve within `limits`: its cancel flag, and its memory share counted
    /// from now (or the process budget when it has no share).
    pub fn new(limits: &Limits) -> Stop {
        Stop {
            cancel: limits.cancel.clone(),
            share: limits.memory.map(Share::of).unwrap_or_else(Share::whole),
            over: AtomicBool::new(false),
        }
    }

    /// Whether the solve must stop (and, once it passed its memory limit, stays stopped).
    #[inline]
    pub fn stopped(&self) -> bool {
        if self.over.load(Ordering::Relaxed) {
            return true;
        }
        if self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
            return true;
        }
        if self.share.over() {
            self.over.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// Bytes the solve may still allocate.
    pub fn room(&self) -> u64 {
        self.share.room()
    }

    /// The error for a solve that stopped at its memory limit, if it did.
    pub fn memory_error(&self) -> Option<AppError> {
        self.over
            .load(Ordering::Relaxed)
            .then(|| AppError::new(ErrorKind::Memory, self.share.report().to_string()))
    }

    /// The answer of a solve that ran in a [`Bounded`] view: thrown away for the error of
    /// the stop when it stopped (what it computed after that is meaningless).
    pub fn finish<T, E: Into<AppError>>(&self, r: Result<T, E>) -> Result<T, AppError> {
        if let Some(e) = self.memory_error() {
            return Err(e);
        }
        if self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(cancelled());
        }
        r.map_err(Into::into)
    }
}

/// A game whose search stops when its [`Stop`] says so: from then on it is
/// [`Ruleset::halted`], which every engine checks as it goes (and stops with an error), and
/// no component has an option and no position a move, so work outside the engines' loops
/// winds down too. What is computed after that is meaningless: [`Stop::finish`] throws it
/// away.
pub struct Bounded<'a, G> {
    /// The game.
    pub game: &'a G,
    /// When to stop.
    pub stop: &'a Stop,
}

impl<G: Game> Bounded<'_, G> {
    /// The answer of a solve that ran in this view: the game's own fault when it has one (a
    /// script that failed: [`fault_error`]), else as [`Stop::finish`] says.
    pub fn finish<T, E: Into<AppError>>(&self, r: Result<T, E>) -> Result<T, AppError> {
        if let Some(e) = fault_error(self.game) {
            return Err(e);
        }
        self.stop.finish(r)
    }
}

/// The error of a game that stopped by itself ([`Ruleset::fault`]): a limit (exit 1, HTTP
/// 422) or a fault of its definition (exit 2, HTTP 400).
pub fn fault_error<R: Ruleset>(game: &R) -> Option<AppError> {
    game.fault().map(|f| {
        let kind = if f.limit {
            ErrorKind::Limit
        } else {
            ErrorKind::BadInput
        };
        AppError::new(kind, f.message)
    })
}

impl<G: Game> Ruleset for Bounded<'_, G> {
    type Component = G::Component;
    const INDEPENDENT: bool = G::INDEPENDENT;

    fn options<F: FnMut(&[Self::Component])>(&self, c: &Self::Component, mut emit: F) {
        if self.stop.stopped() {
            return;
        }
        let (mut n, mut halted) = (0u32, false);
        self.game.options(c, |parts| {
            n = n.wrapping_add(1);
            if n % CHECK_EVERY == 0 {
                halted = self.stop.stopped();
            }
            if !halted {
                emit(parts)
            }
        })
    }
    fn options_until<F: FnMut(&[Self::Component]) -> ControlFlow<()>>(
        &self,
        c: &Self::Component,
        mut emit: F,
    ) -> ControlFlow<()> {
        if self.stop.stopped() {
            return ControlFlow::Continue(());
        }
        let (mut n, mut halted) = (0u32, false);
        let flow = self.game.options_until(c, |parts| {
            n = n.wrapping_add(1);
            if n % CHECK_EVERY == 0 && self.stop.stopped() {
                // Ends the enumeration here; the caller sees no more options.
                halted = true;
                return ControlFlow::Break(());
            }
            emit(parts)
        });
        if halted {
            ControlFlow::Continue(())
        } else {
            flow
        }
    }
    fn halted(&self) -> bool {
        self.stop.stopped() || self.game.halted()
    }
    fn fault(&self) -> Option<grundy_core::Fault> {
        self.game.fault()
    }
    fn known_grundy(&self, c: &Self::Component) -> Option<Nimber> {
        self.game.known_grundy_until(c, &|| self.stop.stopped())
    }
    fn known_grundy_until(&self, c: &Self::Component, stop: &dyn Fn() -> bool) -> Option<Nimber> {
        self.game.known_grundy_until(c, &|| self.stop.stopped() || stop())
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

impl<G: Game> Game for Bounded<'_, G> {
    type Position = G::Position;
    type Move = G::Move;

    fn parse_position(&self, text: &str) -> Result<Self::Position, ParseError> {
        self.game.parse_position(text)
    }
    fn components(&self, p: &Self::Position) -> Vec<Self::Component> {
        self.game.components(p)
    }
    fn moves<F: FnMut(Self::Move, Self::Position)>(&self, p: &Self::Position, mut emit: F) {
        if self.stop.stopped() {
            return;
        }
        let (mut n, mut halted) = (0u32, false);
        self.game.moves(p, |m, q| {
            n = n.wrapping_add(1);
            if n % CHECK_EVERY == 0 {
                halted = self.stop.stopped();
            }
            if !halted {
                emit(m, q)
            }
        })
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
