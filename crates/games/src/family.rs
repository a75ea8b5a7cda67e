//! What a family states about itself, once, for every front end: its names, notation,
//! conventions, preferred engine, table, size estimate, dense form and the board a page draws.
//! A family is a type implementing [`Family`] in its own module; [`crate::registry`] lists
//! them, and front ends ask the description instead of matching on names.

use grundy_core::dense::DenseGame;
use grundy_core::{Game, ParseError};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The engine a family's normal-play values are best computed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// Value every option of every component met (memoised Grundy values).
    Memo,
    /// Decide "is this lost?" with pruning, valuing only what must be (after Lemoine and
    /// Viennot): boards whose components have many options (Cram).
    Search,
}

/// An option that shapes a family's game beyond its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Opt {
    /// A built-in board by name (`--board`, field `board`).
    Board,
    /// An edge-list file of the host graph (`--graph`, field `graph`).
    Graph,
    /// The rule of a graph game (`--rule`, field `rule`).
    Rule,
    /// A subtraction set (`--set`).
    Set,
}

impl Opt {
    /// Every option, in the order errors list them.
    pub const ALL: [Opt; 4] = [Opt::Board, Opt::Graph, Opt::Rule, Opt::Set];

    /// The option's command-line flag.
    pub fn flag(self) -> &'static str {
        match self {
            Opt::Board => "--board",
            Opt::Graph => "--graph",
            Opt::Rule => "--rule",
            Opt::Set => "--set",
        }
    }
}

/// The shape of a family's table of values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TableKind {
    /// One row: the values at 0, 1, 2, ... (heap sizes, strip lengths).
    Sequence,
    /// Rows × columns (sheets, boards).
    Grid,
}

impl TableKind {
    /// `"sequence"` or `"grid"`, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            TableKind::Sequence => "sequence",
            TableKind::Grid => "grid",
        }
    }
}

/// A family's table: the values of a family of simple positions laid out on one or two axes.
#[derive(Clone, Copy, Debug)]
pub struct Table {
    /// Sequence or grid.
    pub kind: TableKind,
    /// What a row index means (empty for a sequence).
    pub rows: &'static str,
    /// What a column index means (for a sequence: what the index means).
    pub cols: &'static str,
    /// Index of the first row and column.
    pub first: usize,
    /// The largest side (or length) computed whatever the size asked: boards whose values
    /// take long beyond it get a smaller table.
    pub max: usize,
    /// The position text of cell `(row, col)` (of term `row` for a sequence, `col` = 0).
    pub cell: fn(usize, usize) -> String,
}

impl Table {
    /// The sequence of a game of heaps: G(n) by heap size n, from 0.
    pub const HEAPS: Table = Table {
        kind: TableKind::Sequence,
        rows: "",
        cols: "heap size",
        first: 0,
        max: usize::MAX,
        cell: |n, _| n.to_string(),
    };

    /// The grid of empty `R×C` boards (written `RxC`), from 1×1 up to `max`×`max`.
    pub const fn boards(max: usize) -> Table {
        Table {
            kind: TableKind::Grid,
            rows: "rows",
            cols: "columns",
            first: 1,
            max,
            cell: |r, c| format!("{r}x{c}"),
        }
    }
}

/// What a front end may know of a family without building a game: one per family, stated in
/// the family's module.
#[derive(Clone, Copy, Debug)]
pub struct Description {
    /// The canonical name (for families named by a code, the name of the kind of code).
    pub name: &'static str,
    /// Other names accepted for it.
    pub aliases: &'static [&'static str],
    /// One line on the notation of its positions, with an example.
    pub notation: &'static str,
    /// An example position.
    pub example: &'static str,
    /// Whether misère play is defined (false for games won by a winning move, not by the
    /// last move).
    pub misere: bool,
    /// The preferred normal-play engine.
    pub engine: Engine,
    /// The options it takes.
    pub options: &'static [Opt],
    /// Its table, if it has one.
    pub table: Option<Table>,
    /// Whether `solve --dense` can solve its positions whole.
    pub dense: bool,
    /// For families named by a code rather than a fixed name (heap games: `0.77`): whether
    /// a name is meant as such a code (it may still be a bad one).
    pub code: Option<fn(&str) -> bool>,
    /// The family the positions after a move belong to, when it is another one: a move on
    /// a whole graph (`graph`) leaves pieces on its points (`points`), and the positions the
    /// game prints are written as such.
    pub continues_as: Option<&'static str>,
    /// Named games of the family offered on the web page, `(name, description)`.
    pub presets: &'static [(&'static str, &'static str)],
    /// An upper estimate of the number of moves of a position, from its text alone, so a
    /// position with millions of moves is refused before any is generated
    /// ([`estimate_by_tokens`] unless the family knows better).
    pub estimate_moves: fn(&str) -> u64,
    /// A small position of the family from a seed, with the options that shape its game:
    /// small enough for the reference solver (`grundy_solve::brute`, a full game-tree
    /// search), varied enough to reach every engine's cases. The brute-force harness
    /// (`crates/app/tests/brute_harness.rs`) checks every engine on these.
    pub sample: fn(u64) -> Sample,
}

/// A small position of a family for tests against the reference solver: its text and the
/// options that shape its game (a board, a graph, a rule).
#[derive(Clone, Debug, Default)]
pub struct Sample {
    /// The position's text.
    pub text: String,
    /// The options to build the game with.
    pub options: FamilyOptions,
}

impl Sample {
    /// A sample with this text and no options.
    pub fn text(text: impl Into<String>) -> Sample {
        Sample {
            text: text.into(),
            options: FamilyOptions::default(),
        }
    }
}

/// A small deterministic generator (SplitMix64) for [`Description::sample`].
#[derive(Clone, Debug)]
pub struct Seeded(u64);

impl Seeded {
    /// The generator of `seed`.
    pub fn new(seed: u64) -> Seeded {
        Seeded(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[(self.next_u64() % items.len() as u64) as usize]
    }

    /// A grid of `rows` × `cols` characters picked from `cells`, rows joined by `/`.
    pub fn grid(&mut self, rows: u64, cols: u64, cells: &[char]) -> String {
        (0..rows)
            .map(|_| (0..cols).map(|_| self.pick(cells)).collect::<String>())
            .collect::<Vec<_>>()
            .join("/")
    }
}

/// The default estimate of moves: one per token of a heap and per character.
pub fn estimate_by_tokens(text: &str) -> u64 {
    integers(text)
        .fold(0u64, |a, n| a.saturating_add(n))
        .saturating_add(text.len() as u64)
}

/// Options that shape a family's game, as front ends read them.
#[derive(Debug, Default, Clone)]
pub struct FamilyOptions {
    /// Built-in board of the graph games.
    pub board: Option<String>,
    /// Edge list of the host graph: (where it came from, its text).
    pub graph: Option<(String, String)>,
    /// Rule of the graph games.
    pub rule: Option<String>,
    /// Subtraction set (`--set 1,3,4`).
    pub set: Option<String>,
    /// A game read from a file (`--game FILE`): the registry builds the family its kind
    /// names (see [`crate::gamefile`]), whatever family name was asked.
    pub game: Option<std::sync::Arc<crate::gamefile::GameFile>>,
    /// Bulk Grundy values G(0), ..., G(count − 1) of a heap game, from a sequence engine the
    /// front end provides (games know no solvers); `None` leaves heaps to the memo engine.
    pub heap_values: Option<HeapValues>,
}

impl FamilyOptions {
    /// The options given (set), in [`Opt::ALL`] order.
    pub fn given(&self) -> Vec<Opt> {
        Opt::ALL
            .into_iter()
            .filter(|o| match o {
                Opt::Board => self.board.is_some(),
                Opt::Graph => self.graph.is_some(),
                Opt::Rule => self.rule.is_some(),
                Opt::Set => self.set.is_some(),
            })
            .collect()
    }
}

/// A bulk computation of heap values: `(rules, count) → G(0..count)`, or `None` to decline.
pub type HeapValues = fn(&grundy_core::HeapRules, u64) -> Option<Vec<u64>>;

/// How a heap game writes its moves and positions ([`Family::heap_notation`]): the same
/// texts as its [`Game::format_move`] and [`Game::format_position`], appended to a buffer.
#[derive(Clone, Copy, Debug)]
pub struct HeapNotation {
    /// Appends the move that turns heap `heap` (from 0) of `from` tokens into the heaps `to`.
    pub write_move: fn(out: &mut String, heap: usize, from: u64, to: &[u64]),
    /// Appends the position of these heaps.
    pub write_position: fn(out: &mut String, heaps: &[u64]),
}

/// Why a family, option or position cannot be used. Front ends map the variants to their
/// own codes (exit 2, HTTP 404 or 400); the message says what is wrong and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// No family has this name.
    #[error(
        "unknown family '{name}' (known: {known}, or a heap game code such as 0.77, grundys-game, sub:1,3,4)"
    )]
    UnknownFamily {
        /// The name asked for.
        name: String,
        /// The names known, comma-separated.
        known: String,
    },
    /// A name meant as a game code that does not read (`0.7z`).
    #[error("bad game code '{code}', column {}: {}", .error.span.column, .error.message)]
    BadCode {
        /// The code.
        code: String,
        /// What is wrong, and where in the code.
        error: ParseError,
    },
    /// An option that does not apply, or does not read.
    #[error("{message}")]
    BadOption {
        /// The option.
        option: Opt,
        /// What is wrong with it.
        message: String,
    },
    /// A position that does not read; the error has its line and column.
    #[error("bad {family} position: {error}")]
    BadPosition {
        /// The family's name.
        family: String,
        /// What is wrong, and where.
        error: ParseError,
    },
    /// Something the family does not offer (a table, a dense solve).
    #[error("{0}")]
    Unsupported(String),
    /// A game file that does not read: the error names the file, line and column.
    #[error("{0}")]
    BadGame(#[from] crate::gamefile::SpecError),
}

impl RegistryError {
    /// A bad option with this message.
    pub fn option(option: Opt, message: impl Into<String>) -> RegistryError {
        RegistryError::BadOption {
            option,
            message: message.into(),
        }
    }

    /// A bad position of `family`.
    pub fn position(family: &str, error: ParseError) -> RegistryError {
        RegistryError::BadPosition {
            family: family.to_string(),
            error,
        }
    }
}

/// A board as the web page draws it: the position's structure, so the page never reads the
/// family's notation. Serialised with a `kind` tag.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum BoardView {
    /// Heaps of tokens (Nim, heap games).
    Heaps {
        /// The heap sizes.
        heaps: Vec<u64>,
    },
    /// A rectangle of one-character cells (darkraft, bombs, cram): `rows[r]` has one
    /// character per column.
    Grid {
        /// The rows.
        rows: Vec<String>,
    },
    /// A strip of one-character squares (crosses).
    Strip {
        /// The squares.
        cells: String,
    },
    /// Sheets of paper `[width, height]` (cutting).
    Sheets {
        /// The sheets.
        sheets: Vec<[u64; 2]>,
    },
    /// A Young diagram by column heights (chomp).
    Columns {
        /// Height of each column, left to right.
        heights: Vec<u32>,
    },
    /// Pieces on the points of a graph (the graph games).
    Graph {
        /// Name of the board or file.
        name: String,
        /// Number of points, numbered from 1.
        points: usize,
        /// Edges as pairs of point numbers (from 1).
        edges: Vec<[usize; 2]>,
        /// `present[k]`: whether point k + 1 holds a piece.
        present: Vec<bool>,
    },
}

/// A family: its description, and how its game and a position are built from a name, the
/// options and the position's text. Implemented by a unit type in the family's module and
/// listed once in [`crate::registry`].
pub trait Family: Sync + 'static {
    /// The game type of the family's positions.
    type Game: Game;

    /// The family's description.
    const DESCRIPTION: Description;

    /// Builds the game and reads `text` as one of its positions. `name` is the name asked for
    /// (families named by a code build their game from it); options the family does not take
    /// have been refused already.
    fn build(
        &self,
        name: &str,
        opts: &FamilyOptions,
        text: &str,
    ) -> Result<(Self::Game, <Self::Game as Game>::Position), RegistryError>;

    /// Whether the options alone give the position, so that an empty text is one (the graph
    /// family with `--board`: the whole board). False by default: an empty (or blank)
    /// position text is refused by the registry whatever the family's parser makes of it.
    fn position_from_options(&self, _opts: &FamilyOptions) -> bool {
        false
    }

    /// The canonical name of the game built (the description's name unless the family is
    /// named by codes).
    fn name(&self, _game: &Self::Game) -> String {
        Self::DESCRIPTION.name.to_string()
    }

    /// Whether misère play is defined for `game` (the description's `misere` unless the
    /// game says otherwise: a script with a winning condition of its own).
    fn misere(&self, _game: &Self::Game) -> bool {
        Self::DESCRIPTION.misere
    }

    /// The table of `game` (the description's unless the game has its own shape: a game file
    /// whose positions are numbers or pairs).
    fn table(&self, _game: &Self::Game) -> Option<Table> {
        Self::DESCRIPTION.table
    }

    /// The position as the page draws it.
    fn board(&self, game: &Self::Game, p: &<Self::Game as Game>::Position) -> BoardView;

    /// What identifies the position in the store besides its formatted text, for families
    /// whose game depends on more than the text shows (a graph: its structure). Empty by
    /// default.
    fn position_id(&self, _game: &Self::Game, _p: &<Self::Game as Game>::Position) -> String {
        String::new()
    }

    /// For heap games: the rules and the heaps of `p` (zero heaps included), so misère
    /// sums can be answered by the quotient engine (`grundy_solve::quotient`). `None` for
    /// other families (the default). The moves of `p` ([`Game::moves`]) are then, in order,
    /// for each heap in turn, the options of that heap ([`grundy_core::HeapRules::heap_options`],
    /// in their order), each replacing the heap.
    fn heaps(
        &self,
        _game: &Self::Game,
        _p: &<Self::Game as Game>::Position,
    ) -> Option<(grundy_core::HeapRules, Vec<u64>)> {
        None
    }

    /// For heap games ([`Family::heaps`]): how the game writes moves and positions, so the
    /// texts of a position's moves can be written without generating them (a misère sum of
    /// huge heaps answered by its quotient has millions). `None` for other families (the
    /// default): their moves are generated one by one.
    fn heap_notation(&self, _game: &Self::Game) -> Option<HeapNotation> {
        None
    }

    /// What the pruned search would need to analyse `p`, estimated from its measured growth
    /// on this family, for refusing up front a position far beyond the limits; `None` when
    /// the family has no such estimate (the default) or `p` is small enough not to need one.
    fn search_need(&self, _game: &Self::Game, _p: &<Self::Game as Game>::Position) -> Option<SearchNeed> {
        None
    }

    /// Runs `action` on the family's dense form ([`DenseForm`]) at position `p`, for the
    /// families that have one (`Some`, and their description says `dense: true`); `None`
    /// for the others (the default).
    fn with_dense<A: WithDense>(
        &self,
        _game: &Self::Game,
        _p: &<Self::Game as Game>::Position,
        _action: A,
    ) -> Option<A::Output> {
        None
    }
}

/// What the pruned search would need for one position ([`Family::search_need`]): central
/// estimates, extrapolated from measured runs (docs/benchmarks.md): good to a factor of a
/// few on most boards, far off on a few (the `basis` says which).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchNeed {
    /// Entries its tables would hold at the end (what `--max-positions` bounds).
    pub entries: u64,
    /// Bytes of memory its tables would take.
    pub bytes: u64,
    /// Seconds of one core the full analysis (the value and every move's outcome) would take.
    pub core_seconds: f64,
    /// Seconds of one core the value alone (`--value-only`) would take.
    pub value_core_seconds: f64,
    /// The measurement the estimate starts from, for the message.
    pub basis: &'static str,
}

/// The position type of family `F`.
pub type Position<F> = <<F as Family>::Game as Game>::Position;

/// A family whose positions can be solved whole by dense retrograde analysis
/// (`grundy_solve::dense`): every position below a position is numbered within tiers by a
/// [`DenseGame`] view, and the store keys its tables by the family's name, the geometry, the
/// rule and the cells (vertices) present at the start.
pub trait DenseForm: Family {
    /// The dense view of every position below a position.
    type Dense: DenseGame;

    /// The dense view of every position below `p`, or why there is none (too many cells).
    fn dense(&self, game: &Self::Game, p: &Position<Self>) -> Result<Self::Dense, String>;

    /// The dense view below the position of the same geometry whose present cells
    /// (vertices) are `start` (a [`DenseForm::mask`]), to read a table kept for it; `None`
    /// when there is none.
    fn below(&self, game: &Self::Game, p: &Position<Self>, start: u128) -> Option<Self::Dense>;

    /// The tier and index of `p` in `dense`; `None` when `p` is not below its start.
    fn locate(&self, dense: &Self::Dense, p: &Position<Self>) -> Option<(u32, u64)>;

    /// The tier of the start of `dense` (the position it was made from).
    fn top_tier(&self, dense: &Self::Dense) -> u32;

    /// What fixes the shape positions live on, for the store's keys: `RxC` for a board, the
    /// graph's id (`Graph::id`) for a graph game.
    fn geometry(&self, game: &Self::Game, p: &Position<Self>) -> String;

    /// The rule, for the store's keys (`-` for a family with one rule).
    fn rule(&self, game: &Self::Game) -> String;

    /// The cells (vertices) present in `p`, as a mask: a position lies below another when
    /// its mask is a subset of the other's.
    fn mask(&self, p: &Position<Self>) -> u128;
}

/// Something to do with a family's dense form, whatever the family: the visitor
/// [`Family::with_dense`] hands the family, its game and the position to.
pub trait WithDense {
    /// What the action returns.
    type Output;
    /// Runs the action on position `p` of `game`, of `family`.
    fn run<F: DenseForm>(self, family: &F, game: &F::Game, p: &Position<F>) -> Self::Output;
}

/// The runs of ASCII digits of `text` as numbers (`u64::MAX` when too large).
pub fn integers(text: &str) -> impl Iterator<Item = u64> + '_ {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse::<u64>().unwrap_or(u64::MAX))
}

impl fmt::Display for Opt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.flag())
    }
}
