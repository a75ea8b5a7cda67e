//! Games defined by a Lua 5.4 script (issue 12; the API is in docs/scripts.md): the script
//! declares the type of its components (`position = "integer"`, ...) and their options
//! (`options(c)`), and optionally how a position splits into components, their canonical
//! form, the notation, and moves that win at once. A move replaces one component of the
//! position by one of its options.
//!
//! Scripts run sandboxed (no files, clock, randomness or loading of code) under an operation
//! limit per call, a memory limit per state and Lua's own depth limit. An error inside
//! [`Ruleset::options`] cannot be returned: the game records the first one as its
//! [`Fault`], says it is [`Ruleset::halted`], and the engines stop; the front end reports the
//! fault (a limit: exit 1; a script error: exit 2).
//!
//! Without a game file the family runs the example Kayles script (`examples/games/kayles.lua`).

mod lua;
mod value;

pub use lua::{Compiled, Failure, MAX_OPERATIONS};
pub use value::{format_default, parse_default, Kind, Value};

use crate::family::{
    BoardView, Description, Engine, Family, FamilyOptions, RegistryError, Sample, Seeded, Table,
    TableKind,
};
use crate::gamefile::GameFile;
use grundy_core::{Fault, Game, Nimber, ParseError, Ruleset};
use lua::Emitted;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The example scripts shipped in `examples/games`, by file name.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("kayles.lua", include_str!("../../../../examples/games/kayles.lua")),
    ("dawsons-kayles.lua", include_str!("../../../../examples/games/dawsons-kayles.lua")),
    ("grundys-game.lua", include_str!("../../../../examples/games/grundys-game.lua")),
    ("cutting.lua", include_str!("../../../../examples/games/cutting.lua")),
    ("crosses.lua", include_str!("../../../../examples/games/crosses.lua")),
    ("bombs.lua", include_str!("../../../../examples/games/bombs.lua")),
    ("darkraft.lua", include_str!("../../../../examples/games/darkraft.lua")),
    ("maoershan.lua", include_str!("../../../../examples/games/maoershan.lua")),
];

/// The example scripts, each read once (so games built from them share compiled states).
pub fn examples() -> &'static [Arc<GameFile>] {
    static FILES: OnceLock<Vec<Arc<GameFile>>> = OnceLock::new();
    FILES.get_or_init(|| {
        EXAMPLES
            .iter()
            .map(|(name, text)| Arc::new(GameFile::load(name, text).expect("the example scripts read")))
            .collect()
    })
}

/// A position of a script game: a sum of canonical components, and the whole position as
/// `parse` returned it while no move has been made (what `format` and `wins` are given).
#[derive(Clone, Debug)]
pub struct ScriptPosition {
    /// The components.
    pub sum: Vec<Value>,
    /// The position as read, before any move.
    pub whole: Option<Value>,
}

/// A move of a script game.
#[derive(Clone, Debug)]
pub enum ScriptMove {
    /// Component `index` (from 0) of a sum of `of` components, `from`, becomes the sum `to`.
    Replace {
        /// Which component.
        index: usize,
        /// How many components the position had.
        of: usize,
        /// The component.
        from: Value,
        /// What it became.
        to: Vec<Value>,
    },
    /// A move that wins at once, by the name `wins` gave it.
    Win(String),
}

/// A game defined by a script.
pub struct ScriptGame {
    file: Arc<GameFile>,
    script: Arc<Compiled>,
    fault: Mutex<Option<Fault>>,
    halted: AtomicBool,
    /// Built without a game file (the family's own Kayles script).
    builtin: bool,
    /// The values of heaps 0, 1, 2, ... of a script that declares `layout = "heaps"`,
    /// built bottom-up on demand ([`HeapTable`]).
    heaps: Option<Mutex<HeapTable>>,
}

/// The most heaps a script's heap table holds (16 MiB of values).
pub const HEAP_TABLE_MAX: usize = 1 << 22;

/// Grundy values of the heaps of an integer script that declares `layout = "heaps"`: the
/// script says its components are heaps whose options are sums of smaller heaps, so heap
/// `m`'s value is the mex of the nim-sums of its options' values, found bottom-up in a dense
/// array (no hashing, and `split`'s families of options valued in one loop). The first
/// option that is not a sum of smaller heaps turns the table off (what it holds stays true)
/// and the memo engine goes on as for any script.
#[derive(Debug, Default)]
pub struct HeapTable {
    values: Vec<u32>,
    off: bool,
    /// Marks of the values seen among one heap's options, by value (a mark is the heap
    /// plus one); a power of two above every value in `values`.
    seen: Vec<u32>,
}

impl HeapTable {
    /// Values heap `m` (the next one) from its options, or `None` when an option is not a
    /// sum of heaps smaller than `m`.
    fn value_next(&mut self, out: &Emitted) -> Option<u32> {
        let m = self.values.len();
        let mark = m as u32 + 1;
        // Every value so far is below `seen.len()`, a power of two, and so is every nim-sum
        // of them: the mask only spares the bounds check.
        let (values, seen) = (&self.values, &mut self.seen[..]);
        let mask = seen.len() - 1;
        let mut see = |v: u32| seen[v as usize & mask] = mark;
        let mut start = 0;
        for &end in &out.ends {
            let mut x = 0u32;
            for c in &out.flat[start..end] {
                match *c {
                    Value::Int(k) if k >= 0 && (k as usize) < m => x ^= values[k as usize],
                    _ => return None,
                }
            }
            see(x);
            start = end;
        }
        for b in &out.bulk {
            let n = b.n as usize;
            if b.how == lua::SplitHow::Any {
                if n == 0 {
                    see(0);
                    continue;
                }
                if n >= m {
                    return None;
                }
                see(values[n]);
            } else if n > m {
                return None;
            }
            for i in b.how.pairs(b.n) {
                let i = i as usize;
                see(values[i] ^ values[n - i]);
            }
        }
        let mex = self.seen.iter().position(|&s| s != mark).unwrap_or(self.seen.len());
        if mex + 1 >= self.seen.len() {
            self.seen.resize((mex + 2).next_power_of_two(), 0);
        }
        Some(mex as u32)
    }
}

impl std::fmt::Debug for ScriptGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptGame").field("file", &self.file).finish()
    }
}

impl ScriptGame {
    /// The game of a script file (compiled once per file).
    pub fn new(file: Arc<GameFile>) -> Result<ScriptGame, crate::gamefile::SpecError> {
        let script = file.cached(lua::compile)?;
        Ok(ScriptGame {
            file,
            fault: Mutex::new(None),
            halted: AtomicBool::new(false),
            builtin: false,
            heaps: (script.kind == Kind::Integer && script.table == Some("heaps")).then(|| {
                Mutex::new(HeapTable {
                    seen: vec![0; 2],
                    ..HeapTable::default()
                })
            }),
            script,
        })
    }

    /// The file the game was read from.
    pub fn file(&self) -> &Arc<GameFile> {
        &self.file
    }

    /// The type of its components.
    pub fn kind(&self) -> Kind {
        self.script.kind
    }

    /// Whether the script defines `wins` (then misère play is not offered).
    pub fn has_wins(&self) -> bool {
        self.script.defines.wins
    }

    /// Records the first failure as the game's fault and halts it.
    fn fail(&self, failure: Failure) {
        let mut fault = self.fault.lock().unwrap_or_else(|e| e.into_inner());
        if fault.is_none() {
            let (limit, message) = match failure {
                Failure::Limit(m) => (true, m),
                Failure::Script(m) => (false, m),
            };
            *fault = Some(Fault { limit, message });
        }
        self.halted.store(true, Ordering::Relaxed);
    }

    /// Runs `f` on this thread's state of the script; a failure is recorded and gives `None`.
    fn with<R>(&self, f: impl FnOnce(&lua::State) -> Result<R, Failure>) -> Option<R> {
        match lua::state(&self.script).and_then(|s| f(&s)) {
            Ok(r) => Some(r),
            Err(e) => {
                self.fail(e);
                None
            }
        }
    }

    /// What `format` and `wins` are given for `p`: the whole position as read, or the sum.
    fn shown(p: &ScriptPosition) -> Value {
        p.whole.clone().unwrap_or_else(|| Value::list(p.sum.clone()))
    }

    /// A sum of components in the script's notation (its `format`, else the default).
    fn format_sum(&self, sum: &[Value]) -> String {
        if self.script.defines.format {
            if let Some(s) = self.with(|s| s.format(&Value::list(sum.to_vec()))) {
                return s;
            }
        }
        format_default(self.script.kind, sum)
    }

    /// Reads a position, with the script's failures as parse errors.
    fn read(&self, text: &str) -> Result<ScriptPosition, ParseError> {
        let state = lua::state(&self.script).map_err(|e| ParseError::new(1, 1, e.message()))?;
        let whole = if self.script.defines.parse {
            state.parse(text).map_err(|e| ParseError::new(1, 1, e.message()))?
        } else {
            Value::list(parse_default(self.script.kind, text)?)
        };
        let sum = state.components(&whole).map_err(|e| ParseError::new(1, 1, e.message()))?;
        Ok(ScriptPosition {
            sum,
            whole: Some(whole),
        })
    }
}

impl Ruleset for ScriptGame {
    type Component = Value;

    fn options<F: FnMut(&[Value])>(&self, c: &Value, mut emit: F) {
        if self.halted.load(Ordering::Relaxed) {
            return;
        }
        // The memo engine asks for a component's options twice (to find the unknown
        // components, then to take the mex), most often one right after the other: the
        // last answer of this thread is kept, keyed by the script and the component.
        thread_local! {
            static LAST: std::cell::RefCell<Option<(u64, Value, Emitted)>> = const { std::cell::RefCell::new(None) };
        }
        let id = self.script.id;
        let (key, mut out) = match LAST.with(|l| l.borrow_mut().take()) {
            Some((i, key, out)) if i == id && key == *c => (Some(key), out),
            Some((_, _, out)) => (None, out),
            None => (None, Emitted::default()),
        };
        let key = match key {
            Some(key) => key,
            None => {
                if self.with(|s| s.options(c, &mut out)).is_none() {
                    return;
                }
                c.clone()
            }
        };
        out.each(&mut emit);
        LAST.with(|l| *l.borrow_mut() = Some((id, key, out)));
    }

    fn halted(&self) -> bool {
        self.halted.load(Ordering::Relaxed)
    }

    fn known_grundy(&self, c: &Value) -> Option<Nimber> {
        self.known_grundy_until(c, &|| false)
    }

    fn known_grundy_until(&self, c: &Value, stop: &dyn Fn() -> bool) -> Option<Nimber> {
        let table = self.heaps.as_ref()?;
        let n = match *c {
            Value::Int(n) if n >= 0 && (n as usize) < HEAP_TABLE_MAX => n as usize,
            _ => return None,
        };
        let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&v) = t.values.get(n) {
            return Some(Nimber(u64::from(v)));
        }
        if t.off {
            return None;
        }
        let mut out = Emitted::default();
        while t.values.len() <= n {
            if stop() || self.halted() {
                return None;
            }
            let m = Value::Int(t.values.len() as i64);
            self.with(|s| s.options(&m, &mut out))?;
            match t.value_next(&out) {
                Some(v) => t.values.push(v),
                None => {
                    t.off = true;
                    return None;
                }
            }
        }
        Some(Nimber(u64::from(t.values[n])))
    }

    fn fault(&self) -> Option<Fault> {
        self.fault.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn code(&self, c: &Value) -> Option<u64> {
        match c {
            Value::Int(n) if *n >= 0 => Some(*n as u64),
            _ => None,
        }
    }

    fn size_hint(&self, c: &Value) -> usize {
        match c {
            Value::Int(n) => (*n).max(0) as usize,
            Value::Str(s) => s.len(),
            Value::List(items) => items.len(),
        }
    }
}

impl Game for ScriptGame {
    type Position = ScriptPosition;
    type Move = ScriptMove;

    fn parse_position(&self, text: &str) -> Result<ScriptPosition, ParseError> {
        self.read(text)
    }

    fn components(&self, p: &ScriptPosition) -> Vec<Value> {
        p.sum.clone()
    }

    fn moves<F: FnMut(ScriptMove, ScriptPosition)>(&self, p: &ScriptPosition, mut emit: F) {
        let mut out = Emitted::default();
        for (k, c) in p.sum.iter().enumerate() {
            if self.halted() || self.with(|s| s.options(c, &mut out)).is_none() {
                return;
            }
            out.each(|o| {
                let mut sum = Vec::with_capacity(p.sum.len() + o.len());
                sum.extend_from_slice(&p.sum[..k]);
                sum.extend_from_slice(o);
                sum.extend_from_slice(&p.sum[k + 1..]);
                let m = ScriptMove::Replace {
                    index: k,
                    of: p.sum.len(),
                    from: c.clone(),
                    to: o.to_vec(),
                };
                emit(m, ScriptPosition { sum, whole: None });
            });
        }
    }

    fn immediate_wins(&self, p: &ScriptPosition) -> Option<Vec<ScriptMove>> {
        if !self.script.defines.wins || self.halted() {
            return None;
        }
        let names = self.with(|s| s.wins(&Self::shown(p)))?;
        (!names.is_empty()).then(|| names.into_iter().map(ScriptMove::Win).collect())
    }

    fn format_move(&self, m: &ScriptMove) -> String {
        match m {
            ScriptMove::Win(name) => name.clone(),
            ScriptMove::Replace { index, of, from, to } => {
                let from = self.format_sum(std::slice::from_ref(from));
                let to = if to.is_empty() {
                    self.format_sum(&[])
                } else {
                    to.iter()
                        .map(|c| self.format_sum(std::slice::from_ref(c)))
                        .collect::<Vec<_>>()
                        .join("+")
                };
                if *of > 1 {
                    format!("{}:{from}->{to}", index + 1)
                } else {
                    format!("{from}->{to}")
                }
            }
        }
    }

    fn format_position(&self, p: &ScriptPosition) -> String {
        if self.script.defines.format {
            if let Some(s) = self.with(|s| s.format(&Self::shown(p))) {
                return s;
            }
        }
        format_default(self.script.kind, &p.sum)
    }
}

/// Games defined by a Lua script, as a family of the registry.
pub struct ScriptFamily;

/// The game file a family builds from: the one given, else the built-in Kayles script.
fn file_of(opts: &FamilyOptions) -> Arc<GameFile> {
    opts.game.clone().unwrap_or_else(|| examples()[0].clone())
}

impl Family for ScriptFamily {
    type Game = ScriptGame;
    const DESCRIPTION: Description = Description {
        name: "script",
        aliases: &["lua"],
        notation: "a game defined by a Lua script (--game FILE.lua, see docs/scripts.md); without one, Kayles rows: '5 9 12'",
        example: "5 9 12",
        misere: true,
        engine: Engine::Memo,
        options: &[],
        table: Some(Table::HEAPS),
        dense: false,
        code: None,
        continues_as: None,
        presets: &[],
        // A script's notation is its own: a number in it may be a heap or a 0/1 string of
        // points, so nothing can be told from the text but its length. Script games run
        // within the memory budget, the position limit and the server's deadline instead.
        estimate_moves: |text| text.len() as u64,
        sample,
    };

    fn build(&self, _: &str, opts: &FamilyOptions, text: &str) -> Result<(ScriptGame, ScriptPosition), RegistryError> {
        let file = file_of(opts);
        let mut game = ScriptGame::new(file.clone())?;
        game.builtin = opts.game.is_none();
        let p = game
            .parse_position(text)
            .map_err(|e| RegistryError::position(file.name(), e))?;
        Ok((game, p))
    }

    /// The file's identity `NAME@HASH`; `script` for the family's own script (no file).
    fn name(&self, game: &ScriptGame) -> String {
        if game.builtin {
            return Self::DESCRIPTION.name.to_string();
        }
        game.file.id()
    }

    fn misere(&self, game: &ScriptGame) -> bool {
        !game.has_wins()
    }

    fn table(&self, game: &ScriptGame) -> Option<Table> {
        let pairs = Table {
            kind: TableKind::Grid,
            rows: "first number",
            cols: "second number",
            first: 0,
            max: usize::MAX,
            cell: |a, b| format!("{a} {b}"),
        };
        // A declared shape: the script's own notation reads its cells.
        match game.script.table {
            Some("heaps") => return Some(Table::HEAPS),
            Some("pairs") => return Some(pairs),
            Some("boards") => return Some(Table::boards(usize::MAX)),
            _ => {}
        }
        if game.script.defines.parse || game.script.defines.components {
            return None;
        }
        match game.kind() {
            Kind::Integer => Some(Table::HEAPS),
            Kind::Tuple => Some(pairs),
            _ => None,
        }
    }

    fn board(&self, game: &ScriptGame, p: &ScriptPosition) -> BoardView {
        let numbers = |v: &Value| -> Vec<u64> {
            match v {
                Value::Int(n) => vec![(*n).max(0) as u64],
                Value::List(items) => items.iter().filter_map(|x| x.as_int()).map(|n| n.max(0) as u64).collect(),
                Value::Str(_) => Vec::new(),
            }
        };
        match game.kind() {
            Kind::Integer | Kind::Tuple | Kind::Set => BoardView::Heaps {
                heaps: p.sum.iter().flat_map(numbers).collect(),
            },
            Kind::String => BoardView::Strip {
                cells: game.format_position(p),
            },
            Kind::Grid => {
                let rows = match p.whole.as_ref().or(p.sum.first()) {
                    Some(Value::List(rows)) if rows.iter().all(|r| r.as_str().is_some()) => {
                        rows.iter().filter_map(|r| r.as_str()).map(str::to_string).collect()
                    }
                    _ => p.sum.first().and_then(Value::as_list).map_or_else(Vec::new, |rows| {
                        rows.iter().filter_map(|r| r.as_str()).map(str::to_string).collect()
                    }),
                };
                BoardView::Grid { rows }
            }
        }
    }
}

/// A small position of one of the example scripts, by seed.
fn sample(seed: u64) -> Sample {
    let mut r = Seeded::new(seed);
    let files = examples();
    let k = (r.next_u64() % files.len() as u64) as usize;
    let heaps = |r: &mut Seeded, max: u64| -> String {
        let n = r.range(1, 3);
        (0..n).map(|_| r.range(0, max).to_string()).collect::<Vec<_>>().join(" ")
    };
    let text = match EXAMPLES[k].0 {
        "kayles.lua" | "dawsons-kayles.lua" => heaps(&mut r, 7),
        "grundys-game.lua" => heaps(&mut r, 9),
        "cutting.lua" => {
            let n = r.range(1, 2);
            let mut sheets = Vec::new();
            while sheets.len() < n as usize {
                let (w, h) = (r.range(1, 4), r.range(1, 4));
                if (w, h) != (1, 1) {
                    sheets.push(format!("{w}x{h}"));
                }
            }
            sheets.join(" ")
        }
        "crosses.lua" => loop {
            let n = r.range(1, 9);
            let s: String = (0..n).map(|_| r.pick(&['.', '.', '.', 'X'])).collect();
            if !s.contains("XXX") {
                break s;
            }
        },
        "bombs.lua" => {
            let (rows, cols) = (r.range(1, 3), r.range(1, 3));
            loop {
                let g = r.grid(rows, cols, &['.', '.', '.', '#']);
                if g.contains('#') {
                    break g;
                }
            }
        }
        "darkraft.lua" => {
            let (rows, cols) = (r.range(1, 3), r.range(1, 3));
            r.grid(rows, cols, &['L', 'R', 'X', '.'])
        }
        _ => (0..12).map(|_| r.pick(&['0', '1', '1'])).collect(),
    };
    Sample {
        text,
        options: FamilyOptions {
            game: Some(files[k].clone()),
            ..FamilyOptions::default()
        },
    }
}

#[cfg(test)]
mod tests;
