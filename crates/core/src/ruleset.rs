//! The game abstraction: rules over components ([`Ruleset`]) and, on top, whole positions
//! with named moves ([`Game`]), which is what front ends parse, print and analyse.

use crate::{Nimber, ParseError};
use std::fmt::Debug;
use std::hash::Hash;
use std::ops::ControlFlow;

/// Rules of an impartial game whose positions are sums of independent components.
///
/// A move replaces one component by a (possibly empty) sum of components. Engines need only
/// this trait: normal play takes one Grundy value per component and XORs them; misère play
/// searches over sorted multisets of components.
pub trait Ruleset: Sync {
    /// One independent part of a position: a heap, a rectangle, a connected region.
    /// Equal components must be equal games (canonical form), so they share memo entries.
    type Component: Clone + Eq + Hash + Ord + Debug + Send + Sync;

    /// Calls `emit` once per option of `c`; each option is a sum of components (empty when
    /// the move removes the component entirely). Components passed to `emit` are canonical.
    fn options<F: FnMut(&[Self::Component])>(&self, c: &Self::Component, emit: F);

    /// Like [`Ruleset::options`], but stops once `emit` returns [`ControlFlow::Break`], and
    /// says whether it stopped. Searches that are done at the first option of some kind use
    /// it; rules whose options are costly to work out stop early by overriding it (the
    /// default works out every option and stops only calling `emit`).
    fn options_until<F: FnMut(&[Self::Component]) -> ControlFlow<()>>(
        &self,
        c: &Self::Component,
        mut emit: F,
    ) -> ControlFlow<()> {
        let mut flow = ControlFlow::Continue(());
        self.options(c, |p| {
            if flow.is_continue() {
                flow = emit(p);
            }
        });
        flow
    }

    /// Whether work on this game must stop now: a view of a game that is stopped from
    /// outside (its time is up, its memory limit passed) says so, and every engine then
    /// stops with an error at once, instead of going on with a game whose moves have
    /// vanished (which a search need not finish). Games themselves never halt.
    fn halted(&self) -> bool {
        false
    }

    /// Why the game itself cannot go on, once it cannot: a game defined by a script whose
    /// code failed or passed its limits. Such a game is then [`Ruleset::halted`] too, so the
    /// engines stop; the front end reports this fault instead of their answer. Built-in
    /// games never fault.
    fn fault(&self) -> Option<Fault> {
        None
    }

    /// The Grundy value of `c` when it is known without search (a closed form, or a table the
    /// ruleset computed in bulk). Engines ask this first; `None` means "search".
    fn known_grundy(&self, _c: &Self::Component) -> Option<Nimber> {
        None
    }

    /// [`Ruleset::known_grundy`] for a view that can be stopped: a ruleset that builds its
    /// table on demand (a script's heaps) asks `stop` as it goes and gives `None` once it
    /// says so. The default is `known_grundy`.
    fn known_grundy_until(&self, c: &Self::Component, _stop: &dyn Fn() -> bool) -> Option<Nimber> {
        self.known_grundy(c)
    }

    /// False when components interact beyond being summed (see [`Ruleset::normalize_sum`]):
    /// engines then skip theory that assumes independent sums (Conway's genus).
    const INDEPENDENT: bool = true;

    /// Whole-position engines (misère, remoteness) call this on every sum after sorting it,
    /// for rules that act across components: in the Bomb Game two bombs on one cell explode,
    /// so equal components cancel in pairs. The default keeps the sum as it is.
    fn normalize_sum(&self, _sorted: &mut Vec<Self::Component>) {}

    /// A one-word code of `c`, or `None` (the default) when it has none: engines keep the
    /// components that have one in compact tables. Codes must be one-to-one (equal
    /// components have equal codes, different ones different codes), and never `u64::MAX`.
    fn code(&self, _c: &Self::Component) -> Option<u64> {
        None
    }

    /// A rough measure of how large `c` is (heap size, cell count); engines use it to order
    /// work and to report progress. Must not be used for correctness.
    fn size_hint(&self, _c: &Self::Component) -> usize {
        1
    }
}

/// Why a game stopped work by itself (see [`Ruleset::fault`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// True when a limit was passed (operations, depth, memory: exit 1); false when the
    /// game's own definition is wrong (a script error, a bad option: exit 2).
    pub limit: bool,
    /// What went wrong, and where (file, line, function, value).
    pub message: String,
}

/// Who wins a position with perfect play; `"first"` or `"second"` in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The player to move wins (an N-position).
    First,
    /// The player to move loses (a P-position).
    Second,
}

impl Outcome {
    /// `"first"` or `"second"`, as in grundy's JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::First => "first",
            Outcome::Second => "second",
        }
    }
}

/// Who wins when no move is left: `"normal"` or `"misere"` in JSON and in the store's keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Convention {
    /// The player who cannot move loses.
    #[default]
    Normal,
    /// The player who cannot move wins.
    Misere,
}

impl Convention {
    /// `"normal"` or `"misere"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Convention::Normal => "normal",
            Convention::Misere => "misere",
        }
    }

    /// Misère play when `misere` is true.
    pub fn from_misere(misere: bool) -> Convention {
        if misere {
            Convention::Misere
        } else {
            Convention::Normal
        }
    }
}

/// A game with positions people write down: parsed positions, named moves, and the
/// decomposition of a position into the components of its [`Ruleset`].
pub trait Game: Ruleset {
    /// A whole, validated position.
    type Position: Clone + Debug;
    /// A move, as a player names it.
    type Move: Clone + Debug;

    /// Reads a position in the family's notation (see docs/games.md). Errors name the line
    /// and column (1-based) of what could not be read.
    fn parse_position(&self, text: &str) -> Result<Self::Position, ParseError>;

    /// The independent components of `p`. Under normal play the Grundy value of `p` is the
    /// XOR of theirs, unless [`Game::immediate_wins`] says the game is already decided.
    fn components(&self, p: &Self::Position) -> Vec<Self::Component>;

    /// Calls `emit` with every legal move of `p` and the position it leads to.
    fn moves<F: FnMut(Self::Move, Self::Position)>(&self, p: &Self::Position, emit: F);

    /// For games with a winning condition other than "no move" (three in a row, cutting off
    /// a 1×1 sheet): the moves that win at once, or `None` when no move of `p` wins at once.
    /// When this is `Some`, `p` is a first-player win and its Grundy value is undefined.
    fn immediate_wins(&self, _p: &Self::Position) -> Option<Vec<Self::Move>> {
        None
    }

    /// Moves the real game still lasts once the components have no move left: 0 for games
    /// that end there; 2 for games where the stuck player must give the opponent an immediate
    /// win (crosses, cutting). Only remoteness uses it.
    fn end_moves(&self, _p: &Self::Position) -> u32 {
        0
    }

    /// The move in the family's notation.
    fn format_move(&self, m: &Self::Move) -> String;

    /// The position in the family's notation (parsing it gives `p` back).
    fn format_position(&self, p: &Self::Position) -> String;
}
