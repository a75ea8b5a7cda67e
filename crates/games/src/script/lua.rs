//! Lua 5.4 (mlua, built from source) behind the script family: the sandbox, the limits, one
//! state per thread and per script, and the conversions between Lua values and [`Value`].
//!
//! Lua states are not `Sync`: a script is compiled once ([`Compiled`]: its text, what it
//! declares) and every thread that needs it runs its own state made from that text, kept in a
//! small per-thread cache keyed by the compiled script's unique id.

use super::value::{shorten, Kind, Value};
use crate::gamefile::{GameFile, SpecError};
use mlua::{FromLuaMulti, Function, HookTriggers, IntoLuaMulti, Lua, LuaOptions, MultiValue, StdLib, Table, Variadic, VmState};
use hashbrown::HashMap;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Operations (Lua VM instructions) one call of a script function may run.
pub const MAX_OPERATIONS: u64 = 100_000_000;
/// The hook counts instructions in steps of this many.
const HOOK_EVERY: u32 = 10_000;
/// The most memory one state may use: 256 MiB, or a quarter of the process's memory budget
/// when that is smaller (at least 16 MiB).
pub fn memory_limit() -> usize {
    let quarter = grundy_core::memory::budget_or_default() / 4;
    quarter.clamp(16 << 20, 256 << 20) as usize
}
/// How deeply values may nest (a sum of grids is 3 deep).
const MAX_NESTING: usize = 6;
/// Canonical forms a state keeps (the script's `canonical` is a Lua call per component).
const CANONICAL_KEPT: usize = 1 << 16;
/// States kept per thread (the least recently used one goes first).
const STATES_PER_THREAD: usize = 8;

/// The functions a script may define besides `options`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Defines {
    /// `components(p)`.
    pub components: bool,
    /// `canonical(c)`.
    pub canonical: bool,
    /// `parse(text)`.
    pub parse: bool,
    /// `format(p)`.
    pub format: bool,
    /// `wins(p)`.
    pub wins: bool,
}

/// A script as compiled once per file: its text and what it declares.
#[derive(Debug)]
pub struct Compiled {
    /// Unique among the scripts compiled by this process (keys the per-thread states).
    pub id: u64,
    /// The file's name, as Lua's messages give it.
    pub source: String,
    /// The script's text.
    pub text: String,
    /// The type of its components.
    pub kind: Kind,
    /// The shape of its table, when it declares one (`layout = "heaps" | "pairs" | "boards"`):
    /// the text of a cell is then `n`, `a b` or `RxC`, read by its own `parse`.
    pub table: Option<&'static str>,
    /// `options` or `moves`: the name the script gave its options function.
    pub options_name: &'static str,
    /// Its optional functions.
    pub defines: Defines,
}

/// Why a call into a script failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A limit was passed (operations, memory, depth).
    Limit(String),
    /// The script is wrong (a runtime error, a value that is not what was expected).
    Script(String),
}

impl Failure {
    /// The message.
    pub fn message(&self) -> &str {
        match self {
            Failure::Limit(m) | Failure::Script(m) => m,
        }
    }
}

/// Options returned by one call, flat: option `k` is `flat[ends[k-1]..ends[k]]`; the
/// families of options `split` handed over whole come in `bulk`, in their place among them.
#[derive(Debug, Default)]
pub struct Emitted {
    /// Every component of every option, in order.
    pub flat: Vec<Value>,
    /// Where each option ends in `flat`.
    pub ends: Vec<usize>,
    /// Families of options given by `split(n, emit, how)`, each after `at` options of `ends`.
    pub bulk: Vec<Bulk>,
}

/// How `split(n, emit, how)` leaves `n` tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitHow {
    /// `"any"` (the default): nothing when `n` is 0, else one row of `n` or two non-empty
    /// rows (an octal digit 7).
    Any,
    /// `"two"`: two non-empty rows.
    Two,
    /// `"unequal"`: two non-empty rows of different sizes (Grundy's game).
    Unequal,
}

impl SplitHow {
    /// The names `split` takes.
    pub const NAMES: [&'static str; 3] = ["any", "two", "unequal"];

    fn from_name(name: &str) -> Option<SplitHow> {
        match name {
            "any" => Some(SplitHow::Any),
            "two" => Some(SplitHow::Two),
            "unequal" => Some(SplitHow::Unequal),
            _ => None,
        }
    }

    /// The smaller rows `i` of the two-row options `{i, n - i}` of `n` tokens.
    pub fn pairs(self, n: i64) -> std::ops::RangeInclusive<i64> {
        match self {
            SplitHow::Any | SplitHow::Two => 1..=n / 2,
            SplitHow::Unequal => 1..=(n - 1) / 2,
        }
    }

    /// Calls `f` with each option of leaving `n` tokens this way.
    pub fn each(self, n: i64, mut f: impl FnMut(&[Value])) {
        if self == SplitHow::Any {
            if n == 0 {
                f(&[]);
            } else {
                f(&[Value::Int(n)]);
            }
        }
        for i in self.pairs(n) {
            f(&[Value::Int(i), Value::Int(n - i)]);
        }
    }
}

/// One family of options handed over by `split`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bulk {
    /// How many options of `ends` come before it.
    pub at: usize,
    /// The tokens left.
    pub n: i64,
    /// How they are left.
    pub how: SplitHow,
}

impl Emitted {
    /// Empties it for the next call.
    pub fn clear(&mut self) {
        self.flat.clear();
        self.ends.clear();
        self.bulk.clear();
    }

    /// Writes the families of `bulk` out as options of `flat` (for a script whose components
    /// are then made canonical one by one).
    pub fn materialize(&mut self) {
        if self.bulk.is_empty() {
            return;
        }
        let mut out = Emitted::default();
        self.each(|o| {
            out.flat.extend_from_slice(o);
            out.ends.push(out.flat.len());
        });
        *self = out;
    }

    /// Calls `f` with every option, each a slice of components, in the order emitted.
    pub fn each(&self, mut f: impl FnMut(&[Value])) {
        let mut bulk = self.bulk.iter().peekable();
        let mut start = 0;
        for (k, &end) in self.ends.iter().enumerate() {
            while let Some(b) = bulk.next_if(|b| b.at == k) {
                b.how.each(b.n, &mut f);
            }
            f(&self.flat[start..end]);
            start = end;
        }
        for b in bulk {
            b.how.each(b.n, &mut f);
        }
    }
}

/// One Lua state running a script.
pub struct State {
    lua: Lua,
    options: Function,
    components: Option<Function>,
    canonical: Option<Function>,
    parse: Option<Function>,
    format: Option<Function>,
    wins: Option<Function>,
    emit: Function,
    emitted: Rc<RefCell<Emitted>>,
    ticks: Rc<Cell<u64>>,
    over: Rc<Cell<bool>>,
    kind: Kind,
    options_name: &'static str,
    /// Canonical forms already asked for (cleared when it holds `CANONICAL_KEPT`).
    canonical_known: RefCell<HashMap<Value, Value>>,
}

/// Where a script failed to load: line (from 1) and message.
struct LoadError {
    line: usize,
    message: String,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The line of the first `name:LINE:` in a Lua message (1 when there is none).
fn line_of(message: &str) -> usize {
    let bytes = message.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b':' {
            let digits = bytes[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
            if digits > 0 && bytes.get(i + 1 + digits) == Some(&b':') {
                if let Ok(n) = message[i + 1..i + 1 + digits].parse() {
                    return n;
                }
            }
        }
        i += 1;
    }
    1
}

/// A Lua message without its leading `name:LINE: ` (the error names the place already).
fn unplaced(message: &str) -> String {
    let first = message.lines().next().unwrap_or("");
    let bytes = first.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b':' {
            let digits = bytes[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
            if digits > 0 && first[i + 1 + digits..].starts_with(": ") {
                return message[i + digits + 3..].to_string();
            }
        }
    }
    message.to_string()
}

/// The shapes of table a script may declare (`layout = "..."`).
pub const TABLE_SHAPES: [&str; 3] = ["heaps", "pairs", "boards"];

/// Compiles the script of `file`: loads it once in a state of this thread (which is kept),
/// and reads what it declares. Syntax errors and errors of its top-level code name the line.
pub fn compile(file: &GameFile) -> Result<Compiled, SpecError> {
    let mut compiled = Compiled {
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        source: file.source().to_string(),
        text: file.text().to_string(),
        kind: Kind::Integer,
        table: None,
        options_name: "options",
        defines: Defines::default(),
    };
    let position_line = file
        .text()
        .lines()
        .position(|l| l.trim_start().starts_with("position"))
        .map_or(1, |i| i + 1);
    let lua = sandbox().map_err(|m| file.error(1, 1, m))?;
    let (ticks, over) = prepare(&lua).map_err(|m| file.error(1, 1, m))?;
    run_chunk(&lua, &compiled, &ticks, &over).map_err(|e| file.error(e.line, 1, unplaced(&e.message)))?;
    let g = lua.globals();
    match g.get::<mlua::Value>("position") {
        Ok(mlua::Value::Nil) => {}
        Ok(mlua::Value::String(s)) => {
            let name = s.to_string_lossy();
            compiled.kind = Kind::from_name(&name).ok_or_else(|| {
                let names: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
                file.error(
                    position_line,
                    1,
                    format!("position = \"{}\" is not one of: {}", shorten(&name), names.join(", ")),
                )
            })?;
        }
        Ok(other) => {
            return Err(file.error(
                position_line,
                1,
                format!("position must be a string such as \"integer\", not {}", describe(&other)),
            ))
        }
        Err(e) => return Err(file.error(1, 1, clean(&e))),
    }
    let table_line = file
        .text()
        .lines()
        .position(|l| l.trim_start().starts_with("layout"))
        .map_or(1, |i| i + 1);
    match g.get::<mlua::Value>("layout") {
        Ok(mlua::Value::Nil) => {}
        Ok(mlua::Value::String(s)) => {
            let name = s.to_string_lossy();
            compiled.table = Some(TABLE_SHAPES.iter().copied().find(|t| *t == name).ok_or_else(|| {
                file.error(
                    table_line,
                    1,
                    format!("layout = \"{}\" is not one of: {}", shorten(&name), TABLE_SHAPES.join(", ")),
                )
            })?);
        }
        Ok(other) => {
            return Err(file.error(
                table_line,
                1,
                format!("layout must be a string such as \"pairs\", not {}", describe(&other)),
            ))
        }
        Err(e) => return Err(file.error(1, 1, clean(&e))),
    }
    let function = |name: &str| -> Result<bool, SpecError> {
        match g.get::<mlua::Value>(name) {
            Ok(mlua::Value::Nil) => Ok(false),
            Ok(mlua::Value::Function(_)) => Ok(true),
            Ok(other) => Err(file.error(1, 1, format!("{name} must be a function, not {}", describe(&other)))),
            Err(e) => Err(file.error(1, 1, clean(&e))),
        }
    };
    compiled.options_name = if function("options")? {
        "options"
    } else if function("moves")? {
        "moves"
    } else {
        return Err(file.error(1, 1, "the script defines no function options(c) (or moves(c)): see docs/scripts.md"));
    };
    compiled.defines = Defines {
        components: function("components")?,
        canonical: function("canonical")?,
        parse: function("parse")?,
        format: function("format")?,
        wins: function("wins")?,
    };
    drop(g);
    let state = finish(lua, &compiled, ticks, over).map_err(|m| file.error(1, 1, m))?;
    keep(compiled.id, Rc::new(state));
    Ok(compiled)
}

/// A state with the safe libraries only: `table`, `string` (without `dump`), `math`
/// (without `random`, `randomseed`) and `utf8`, the base library without `load`, `loadfile`,
/// `dofile`, `require`, `collectgarbage` and `print`; no `io`, `os`, `package`, `debug` or
/// `coroutine`; and the memory limit.
fn sandbox() -> Result<Lua, String> {
    let libs = StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::UTF8;
    let lua = Lua::new_with(libs, LuaOptions::default()).map_err(|e| e.to_string())?;
    let strip = || -> mlua::Result<()> {
        let g = lua.globals();
        for name in ["load", "loadfile", "loadstring", "dofile", "require", "collectgarbage", "print"] {
            g.set(name, mlua::Value::Nil)?;
        }
        let math: Table = g.get("math")?;
        math.set("random", mlua::Value::Nil)?;
        math.set("randomseed", mlua::Value::Nil)?;
        g.get::<Table>("string")?.set("dump", mlua::Value::Nil)?;
        Ok(())
    };
    strip().map_err(|e| e.to_string())?;
    lua.set_memory_limit(memory_limit()).map_err(|e| e.to_string())?;
    Ok(lua)
}

/// The operation counter: a hook every `HOOK_EVERY` instructions that stops the call once
/// it has run [`MAX_OPERATIONS`]; `over` says the limit was what stopped it.
fn limit(lua: &Lua) -> (Rc<Cell<u64>>, Rc<Cell<bool>>) {
    let ticks = Rc::new(Cell::new(0u64));
    let over = Rc::new(Cell::new(false));
    let (t, o) = (ticks.clone(), over.clone());
    lua.set_hook(HookTriggers::new().every_nth_instruction(HOOK_EVERY), move |_, _| {
        let n = t.get() + 1;
        t.set(n);
        if n > MAX_OPERATIONS / HOOK_EVERY as u64 {
            o.set(true);
            Err(mlua::Error::runtime("operation limit"))
        } else {
            Ok(VmState::Continue)
        }
    });
    (ticks, over)
}

/// The operation counter of a state and whether it stopped a call ([`limit`]).
type Counter = (Rc<Cell<u64>>, Rc<Cell<bool>>);

/// What a state's `emit` and `split` share: where options go, which function is `emit`
/// (its address), and the type of the script's components (known once it ran).
struct Shared {
    sink: Rc<RefCell<Emitted>>,
    emit: Rc<Cell<usize>>,
    kind: Rc<Cell<Kind>>,
}

/// Readies a sandboxed state for a script: the operation counter ([`limit`]) and the
/// library function `split(n, emit, how)`, defined before the script runs so that a script
/// may define its own `split` instead.
///
/// `split` hands `emit` a whole family of options at once: every way to leave `n` tokens
/// as rows (`how`: [`SplitHow`]); each option counts as one operation. Given the state's
/// own `emit`, the family is recorded as one entry; given another function, that function
/// is called once per option.
fn prepare(lua: &Lua) -> Result<Counter, String> {
    let (ticks, over) = limit(lua);
    let shared = Shared {
        sink: Rc::new(RefCell::new(Emitted::default())),
        emit: Rc::new(Cell::new(0)),
        kind: Rc::new(Cell::new(Kind::Integer)),
    };
    let (sink, emit, kind) = (shared.sink.clone(), shared.emit.clone(), shared.kind.clone());
    let (t, o) = (ticks.clone(), over.clone());
    let split = lua
        .create_function(move |lua, (n, f, how): (mlua::Value, mlua::Value, mlua::Value)| {
            let n = match n {
                mlua::Value::Integer(n) => n,
                mlua::Value::Number(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => x as i64,
                other => {
                    return Err(located(lua, format!(
                        "split(n, emit, how): n must be an integer, not {}",
                        describe(&other)
                    )))
                }
            };
            if n < 0 {
                return Err(located(lua, format!("split(n, emit, how): n must be 0 or more, not {n}")));
            }
            let mlua::Value::Function(f) = f else {
                return Err(located(lua, format!(
                    "split(n, emit, how): emit must be a function, not {}",
                    describe(&f)
                )));
            };
            let how = match how {
                mlua::Value::Nil => SplitHow::Any,
                mlua::Value::String(s) => SplitHow::from_name(&s.to_string_lossy()).ok_or_else(|| {
                    located(lua, format!(
                        "split(n, emit, how): how = \"{}\" is not one of: {}",
                        shorten(&s.to_string_lossy()),
                        SplitHow::NAMES.join(", ")
                    ))
                })?,
                other => {
                    return Err(located(lua, format!(
                        "split(n, emit, how): how must be a string such as \"unequal\", not {}",
                        describe(&other)
                    )))
                }
            };
            // Each option counts as an operation, whichever function takes it (a function of
            // Lua's libraries runs no instruction the hook would count).
            let count = (n / 2 + 1) as u64;
            let used = t.get() + count.div_ceil(HOOK_EVERY as u64);
            t.set(used);
            if used > MAX_OPERATIONS / HOOK_EVERY as u64 {
                o.set(true);
                return Err(mlua::Error::runtime("operation limit"));
            }
            if f.to_pointer() as usize != emit.get() {
                if how == SplitHow::Any {
                    if n == 0 {
                        f.call::<()>(())?;
                    } else {
                        f.call::<()>(n)?;
                    }
                }
                for i in how.pairs(n) {
                    f.call::<()>((i, n - i))?;
                }
                return Ok(());
            }
            if kind.get() != Kind::Integer {
                return Err(located(lua, format!(
                    "split gives rows of tokens (integers), and this script's positions are {}",
                    kind.get().describe()
                )));
            }
            let mut e = sink.borrow_mut();
            let at = e.ends.len();
            e.bulk.push(Bulk { at, n, how });
            Ok(())
        })
        .map_err(|e| e.to_string())?;
    lua.globals().set("split", split).map_err(|e| e.to_string())?;
    lua.set_app_data(shared);
    Ok((ticks, over))
}

/// An error of a library function, placed at the script's line that called it.
fn located(lua: &Lua, message: impl std::fmt::Display) -> mlua::Error {
    let place = lua.inspect_stack(1).and_then(|d| {
        let line = d.curr_line();
        let source = d.source().short_src.map(|s| s.to_string())?;
        (line > 0).then(|| format!("{source}:{line}: "))
    });
    mlua::Error::runtime(format!("{}{message}", place.unwrap_or_default()))
}

/// Runs the script's text once (its top level defines the globals).
fn run_chunk(lua: &Lua, compiled: &Compiled, ticks: &Cell<u64>, over: &Cell<bool>) -> Result<(), LoadError> {
    ticks.set(0);
    over.set(false);
    let result = lua
        .load(compiled.text.as_str())
        .set_name(format!("@{}", compiled.source))
        .exec();
    result.map_err(|e| {
        let message = if over.get() {
            format!("the script's top level ran past {MAX_OPERATIONS} operations")
        } else {
            match &e {
                mlua::Error::SyntaxError { message, .. } => message.clone(),
                mlua::Error::MemoryError(_) => {
                    format!("the script's top level ran out of memory (limit {} MiB)", memory_limit() >> 20)
                }
                _ => clean(&e),
            }
        };
        LoadError {
            line: line_of(&message),
            message,
        }
    })
}

/// The state made of a loaded script: its functions and the `emit` callback.
fn finish(lua: Lua, compiled: &Compiled, ticks: Rc<Cell<u64>>, over: Rc<Cell<bool>>) -> Result<State, String> {
    let g = lua.globals();
    let get = |name: &str| g.get::<Option<Function>>(name).ok().flatten();
    let options = get(compiled.options_name).ok_or("the script's options function is gone")?;
    let (emitted, emit_address) = {
        let shared = lua.app_data_ref::<Shared>().ok_or("the state was not prepared")?;
        shared.kind.set(compiled.kind);
        (shared.sink.clone(), shared.emit.clone())
    };
    let kind = compiled.kind;
    let sink = emitted.clone();
    // Up to four components are read straight from the stack (no allocation per call); more
    // come as a variadic rest. A nil ends the arguments; a component after it is an error.
    type Args = (mlua::Value, mlua::Value, mlua::Value, mlua::Value, Variadic<mlua::Value>);
    let emit = lua
        .create_function(move |lua, (a, b, c, d, rest): Args| {
            let mut e = sink.borrow_mut();
            let mut ended = false;
            for v in [&a, &b, &c, &d].into_iter().chain(rest.iter()) {
                if v.is_nil() {
                    ended = true;
                    continue;
                }
                if ended {
                    let n = e.ends.last().copied().unwrap_or(0);
                    e.flat.truncate(n);
                    return Err(located(lua, "emit got nil where a component was expected"));
                }
                match component(v, kind) {
                    Ok(c) => e.flat.push(c),
                    Err(m) => {
                        let n = e.ends.last().copied().unwrap_or(0);
                        e.flat.truncate(n);
                        return Err(located(lua, format!("emit got {m}")));
                    }
                }
            }
            let end = e.flat.len();
            e.ends.push(end);
            Ok(())
        })
        .map_err(|e| e.to_string())?;
    emit_address.set(emit.to_pointer() as usize);
    let state = State {
        components: get("components"),
        canonical: get("canonical"),
        parse: get("parse"),
        format: get("format"),
        wins: get("wins"),
        options,
        emit,
        emitted,
        ticks,
        over,
        kind,
        options_name: compiled.options_name,
        canonical_known: RefCell::new(HashMap::new()),
        lua: lua.clone(),
    };
    Ok(state)
}

thread_local! {
    static STATES: RefCell<Vec<(u64, Rc<State>)>> = const { RefCell::new(Vec::new()) };
}

fn keep(id: u64, state: Rc<State>) {
    STATES.with(|s| {
        let mut s = s.borrow_mut();
        s.retain(|(i, _)| *i != id);
        if s.len() >= STATES_PER_THREAD {
            s.remove(0);
        }
        s.push((id, state));
    });
}

/// This thread's state of `compiled`, made (and kept) on first use.
pub fn state(compiled: &Compiled) -> Result<Rc<State>, Failure> {
    let found = STATES.with(|s| {
        let mut s = s.borrow_mut();
        let at = s.iter().position(|(i, _)| *i == compiled.id)?;
        let entry = s.remove(at);
        let state = entry.1.clone();
        s.push(entry);
        Some(state)
    });
    if let Some(state) = found {
        return Ok(state);
    }
    let lua = sandbox().map_err(Failure::Script)?;
    let (ticks, over) = prepare(&lua).map_err(Failure::Script)?;
    run_chunk(&lua, compiled, &ticks, &over).map_err(|e| Failure::Script(e.message))?;
    let state = Rc::new(finish(lua, compiled, ticks, over).map_err(Failure::Script)?);
    keep(compiled.id, state.clone());
    Ok(state)
}

/// What a Lua value is, for messages: `a string "x"`, `the number 1.5`, `a table`, `nil`.
pub fn describe(v: &mlua::Value) -> String {
    match v {
        mlua::Value::Nil => "nil".into(),
        mlua::Value::Boolean(b) => format!("a boolean {b}"),
        mlua::Value::Integer(n) => format!("the number {n}"),
        mlua::Value::Number(x) => format!("the number {x}"),
        mlua::Value::String(s) => format!("a string \"{}\"", shorten(&s.to_string_lossy())),
        mlua::Value::Table(_) => "a table".into(),
        other => format!("a {}", other.type_name()),
    }
}

/// A Lua error as one clean line: the innermost cause, without mlua's traceback.
pub fn clean(e: &mlua::Error) -> String {
    let mut e = e;
    while let mlua::Error::CallbackError { cause, .. } = e {
        e = cause;
    }
    let text = match e {
        mlua::Error::RuntimeError(m) => m.clone(),
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        other => other.to_string(),
    };
    let text = text.split("\nstack traceback:").next().unwrap_or("").trim_end();
    text.to_string()
}

/// Reads a Lua value as a [`Value`] (any shape, nesting at most `MAX_NESTING` deep); the
/// error says what the value was.
pub fn value(v: &mlua::Value) -> Result<Value, String> {
    value_at(v, 0)
}

fn value_at(v: &mlua::Value, depth: usize) -> Result<Value, String> {
    match v {
        mlua::Value::Integer(n) => Ok(Value::Int(*n)),
        mlua::Value::Number(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => Ok(Value::Int(*x as i64)),
        mlua::Value::String(s) => match s.to_str() {
            Ok(s) => Ok(Value::Str(s.as_ref().into())),
            Err(_) => Err("a string that is not UTF-8".into()),
        },
        mlua::Value::Table(t) => {
            if depth >= MAX_NESTING {
                return Err(format!("a table nested more than {MAX_NESTING} deep"));
            }
            let n = t.raw_len();
            if n == 0 {
                list(t)?;
            }
            let mut out = Vec::with_capacity(n);
            for i in 1..=n {
                let item = t.raw_get::<mlua::Value>(i).map_err(|e| clean(&e))?;
                out.push(value_at(&item, depth + 1)?);
            }
            Ok(Value::list(out))
        }
        other => Err(describe(other)),
    }
}

/// The items 1..n of a table that is a list (a table with other keys only is refused).
fn list(t: &Table) -> Result<Vec<mlua::Value>, String> {
    let n = t.raw_len();
    if n == 0 {
        if let Some(Ok((k, _))) = t.pairs::<mlua::Value, mlua::Value>().next() {
            return Err(format!("a table that is not a list (it has the key {})", describe(&k)));
        }
    }
    let mut out = Vec::with_capacity(n);
    for i in 1..=n {
        out.push(t.raw_get::<mlua::Value>(i).map_err(|e| clean(&e))?);
    }
    Ok(out)
}

/// Reads a Lua value as a component of kind `kind`.
pub fn component(v: &mlua::Value, kind: Kind) -> Result<Value, String> {
    if let (Kind::Integer, mlua::Value::Integer(n)) = (kind, v) {
        return Ok(Value::Int(*n));
    }
    let c = value(v)?;
    if kind.fits(&c) {
        Ok(c)
    } else {
        Err(format!("{} where {} was expected", describe_value(&c), kind.describe()))
    }
}

/// What a [`Value`] is, for messages.
pub fn describe_value(v: &Value) -> String {
    match v {
        Value::Int(n) => format!("the number {n}"),
        Value::Str(_) => format!("a string {v}"),
        Value::List(_) => format!("the list {v}"),
    }
}

impl State {
    /// Converts a value to Lua.
    fn to_lua(&self, v: &Value) -> mlua::Result<mlua::Value> {
        Ok(match v {
            Value::Int(n) => mlua::Value::Integer(*n),
            Value::Str(s) => mlua::Value::String(self.lua.create_string(s.as_bytes())?),
            Value::List(items) => {
                let t = self.lua.create_table_with_capacity(items.len(), 0)?;
                for (i, x) in items.iter().enumerate() {
                    t.raw_set(i + 1, self.to_lua(x)?)?;
                }
                mlua::Value::Table(t)
            }
        })
    }

    /// Calls `f` with `arg` under a fresh operation count; `what` names the call in messages
    /// (`options(5)`).
    fn call<R: FromLuaMulti>(&self, f: &Function, args: impl IntoLuaMulti, what: &dyn Fn() -> String) -> Result<R, Failure> {
        self.ticks.set(0);
        self.over.set(false);
        f.call::<R>(args).map_err(|e| {
            if self.over.get() {
                return Failure::Limit(format!("the script's {} ran past {MAX_OPERATIONS} operations", what()));
            }
            let mut inner = &e;
            while let mlua::Error::CallbackError { cause, .. } = inner {
                inner = cause;
            }
            if matches!(inner, mlua::Error::MemoryError(_)) {
                return Failure::Limit(format!(
                    "the script's {} ran out of memory (limit {} MiB)",
                    what(),
                    memory_limit() >> 20
                ));
            }
            let message = clean(&e);
            if message.contains("stack overflow") || matches!(inner, mlua::Error::StackError) {
                return Failure::Limit(format!("the script's {} recursed too deep: {message}", what()));
            }
            Failure::Script(format!("{message} (in {})", what()))
        })
    }

    fn arg(&self, v: &Value) -> Result<mlua::Value, Failure> {
        self.to_lua(v).map_err(|e| Failure::Limit(format!("cannot pass {v} to the script: {}", clean(&e))))
    }

    /// The options of `c` (canonical when the script defines `canonical`), into `out`.
    pub fn options(&self, c: &Value, out: &mut Emitted) -> Result<(), Failure> {
        out.clear();
        let what = || format!("{}({c})", self.options_name);
        self.emitted.borrow_mut().clear();
        let result: mlua::Value = self.call(&self.options, (self.arg(c)?, &self.emit), &what)?;
        std::mem::swap(out, &mut *self.emitted.borrow_mut());
        match &result {
            mlua::Value::Nil => {}
            mlua::Value::Table(t) => {
                let n = t.raw_len();
                if n == 0 {
                    list(t).map_err(|m| Failure::Script(format!("{} returned {m} where a list of options was expected", what())))?;
                }
                for i in 1..=n {
                    let o = t.raw_get::<mlua::Value>(i).map_err(|e| Failure::Script(clean(&e)))?;
                    let mlua::Value::Table(o) = o else {
                        return Err(Failure::Script(format!(
                            "{} returned {} as option {i} where a list of components was expected",
                            what(),
                            describe(&o)
                        )));
                    };
                    let m = o.raw_len();
                    if m == 0 {
                        list(&o).map_err(|m| Failure::Script(format!("{} returned {m} as option {i}", what())))?;
                    }
                    for j in 1..=m {
                        let v = o.raw_get::<mlua::Value>(j).map_err(|e| Failure::Script(clean(&e)))?;
                        let c = component(&v, self.kind)
                            .map_err(|m| Failure::Script(format!("{} returned {m} (option {i}, component {j})", what())))?;
                        out.flat.push(c);
                    }
                    out.ends.push(out.flat.len());
                }
            }
            other => {
                return Err(Failure::Script(format!(
                    "{} returned {} where a list of options was expected",
                    what(),
                    describe(other)
                )))
            }
        }
        if self.canonical.is_some() {
            out.materialize();
            for c in out.flat.iter_mut() {
                *c = self.canonical(c)?;
            }
        }
        Ok(())
    }

    /// The canonical form of `c` (itself when the script defines no `canonical`).
    pub fn canonical(&self, c: &Value) -> Result<Value, Failure> {
        let Some(f) = &self.canonical else {
            return Ok(c.clone());
        };
        if let Some(known) = self.canonical_known.borrow().get(c) {
            return Ok(known.clone());
        }
        let what = || format!("canonical({c})");
        let r: mlua::Value = self.call(f, self.arg(c)?, &what)?;
        let canonical =
            component(&r, self.kind).map_err(|m| Failure::Script(format!("{} returned {m}", what())))?;
        let mut known = self.canonical_known.borrow_mut();
        if known.len() >= CANONICAL_KEPT {
            known.clear();
        }
        known.insert(c.clone(), canonical.clone());
        Ok(canonical)
    }

    /// `parse(text)`: the whole position, or the script's message (`nil, "message"`).
    pub fn parse(&self, text: &str) -> Result<Value, Failure> {
        let Some(f) = &self.parse else {
            return Err(Failure::Script("the script defines no parse".into()));
        };
        let what = || format!("parse(\"{}\")", shorten(text));
        let s = self.lua.create_string(text).map_err(|e| Failure::Limit(clean(&e)))?;
        let r: MultiValue = self.call(f, mlua::Value::String(s), &what)?;
        match r.front().unwrap_or(&mlua::Value::Nil) {
            mlua::Value::Nil | mlua::Value::Boolean(false) => {
                let message = match r.get(1) {
                    Some(mlua::Value::String(m)) => m.to_string_lossy(),
                    _ => "not a position of this game".to_string(),
                };
                Err(Failure::Script(message))
            }
            v => value(v).map_err(|m| Failure::Script(format!("{} returned {m}", what()))),
        }
    }

    /// The components of a whole position: `components(p)`, or `p` itself (a list).
    pub fn components(&self, whole: &Value) -> Result<Vec<Value>, Failure> {
        let what = || format!("components({whole})");
        let listed = match &self.components {
            Some(f) => {
                let r: MultiValue = self.call(f, self.arg(whole)?, &what)?;
                value(r.front().unwrap_or(&mlua::Value::Nil))
                    .map_err(|m| Failure::Script(format!("{} returned {m}", what())))?
            }
            None => whole.clone(),
        };
        let Value::List(items) = listed else {
            let by = if self.components.is_some() { "components" } else { "parse" };
            return Err(Failure::Script(format!(
                "{by} returned {} where a list of components was expected",
                describe_value(&listed)
            )));
        };
        let mut out = Vec::with_capacity(items.len());
        for c in items.iter() {
            if !self.kind.fits(c) {
                return Err(Failure::Script(format!(
                    "the position has {} as a component where {} was expected",
                    describe_value(c),
                    self.kind.describe()
                )));
            }
            out.push(self.canonical(c)?);
        }
        Ok(out)
    }

    /// `format(p)` as a string.
    pub fn format(&self, p: &Value) -> Result<String, Failure> {
        let Some(f) = &self.format else {
            return Err(Failure::Script("the script defines no format".into()));
        };
        let what = || format!("format({p})");
        let r: MultiValue = self.call(f, self.arg(p)?, &what)?;
        match r.front() {
            Some(mlua::Value::String(s)) => Ok(s.to_string_lossy()),
            Some(mlua::Value::Integer(n)) => Ok(n.to_string()),
            other => Err(Failure::Script(format!(
                "{} returned {} where a string was expected",
                what(),
                describe(other.unwrap_or(&mlua::Value::Nil))
            ))),
        }
    }

    /// `wins(p)`: the names of the moves that win at once (empty when none does).
    pub fn wins(&self, p: &Value) -> Result<Vec<String>, Failure> {
        let Some(f) = &self.wins else {
            return Ok(Vec::new());
        };
        let what = || format!("wins({p})");
        let r: MultiValue = self.call(f, self.arg(p)?, &what)?;
        let bad = |m: String| Failure::Script(format!("{} returned {m} where a list of move names was expected", what()));
        match r.front().unwrap_or(&mlua::Value::Nil) {
            mlua::Value::Nil | mlua::Value::Boolean(false) => Ok(Vec::new()),
            mlua::Value::Table(t) => {
                let items = list(t).map_err(bad)?;
                items
                    .iter()
                    .map(|v| match v {
                        mlua::Value::String(s) => Ok(s.to_string_lossy()),
                        mlua::Value::Integer(n) => Ok(n.to_string()),
                        other => Err(bad(describe(other))),
                    })
                    .collect()
            }
            other => Err(bad(describe(other))),
        }
    }
}
