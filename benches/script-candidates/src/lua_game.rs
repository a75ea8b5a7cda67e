//! Lua 5.4 (built from source by mlua's `vendored` feature) as a source of options.

use crate::harness::Options;
use mlua::{Function, HookTriggers, Lua, LuaOptions, StdLib, Table, Value, VmState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Instructions per call, counted by a hook every `HOOK_EVERY` instructions.
pub const MAX_INSTRUCTIONS: u64 = 100_000_000;
/// The hook's period in VM instructions.
pub const HOOK_EVERY: u32 = 10_000;
/// The whole state's memory.
pub const MEMORY_LIMIT: usize = 64 << 20;

/// A compiled script in its own state.
pub struct LuaGame {
    lua: Lua,
    options: Function,
    ticks: Option<Arc<AtomicU64>>,
}

/// A sandboxed state: the base library without `load`, `loadfile`, `dofile`, `require`,
/// `collectgarbage` and `print`; `table`, `string` (without `dump`), `math` (without
/// `random`, `randomseed`) and `utf8`. Not loaded: `io`, `os`, `package`, `debug`, `coroutine`.
pub fn state(hook: bool) -> Result<(Lua, Option<Arc<AtomicU64>>), String> {
    let libs = StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::UTF8;
    let lua = Lua::new_with(libs, LuaOptions::default()).map_err(|e| e.to_string())?;
    let g = lua.globals();
    let strip = || -> mlua::Result<()> {
        for name in ["load", "loadfile", "dofile", "require", "collectgarbage", "print"] {
            g.set(name, Value::Nil)?;
        }
        g.get::<Table>("math")?.set("random", Value::Nil)?;
        g.get::<Table>("math")?.set("randomseed", Value::Nil)?;
        g.get::<Table>("string")?.set("dump", Value::Nil)?;
        Ok(())
    };
    strip().map_err(|e| e.to_string())?;
    lua.set_memory_limit(MEMORY_LIMIT).map_err(|e| e.to_string())?;
    let ticks = hook.then(|| {
        let ticks = Arc::new(AtomicU64::new(0));
        let t = ticks.clone();
        lua.set_hook(
            HookTriggers::new().every_nth_instruction(HOOK_EVERY),
            move |_, _| {
                if t.fetch_add(1, Ordering::Relaxed) >= MAX_INSTRUCTIONS / HOOK_EVERY as u64 {
                    Err(mlua::Error::runtime(format!(
                        "operation limit exceeded ({MAX_INSTRUCTIONS} instructions)"
                    )))
                } else {
                    Ok(VmState::Continue)
                }
            },
        );
        ticks
    });
    Ok((lua, ticks))
}

impl LuaGame {
    /// Loads `source` under `name` (error messages say `[string "name"]:line:`).
    pub fn new(name: &str, source: &str, hook: bool) -> Result<Self, String> {
        let (lua, ticks) = state(hook)?;
        lua.load(source)
            .set_name(name)
            .exec()
            .map_err(|e| e.to_string())?;
        let options = lua
            .globals()
            .get::<Function>("options")
            .map_err(|e| e.to_string())?;
        Ok(LuaGame { lua, options, ticks })
    }

    /// Calls `options(arg)` with a fresh instruction budget.
    fn call(&self, arg: impl mlua::IntoLua) -> Result<Table, String> {
        if let Some(t) = &self.ticks {
            t.store(0, Ordering::Relaxed);
        }
        self.options.call::<Table>(arg).map_err(|e| e.to_string())
    }
}

impl Options<i64> for LuaGame {
    fn options(&mut self, p: &i64) -> Result<Vec<Vec<i64>>, String> {
        let out = self.call(*p)?;
        out.sequence_values::<Table>()
            .map(|o| o?.sequence_values::<i64>().collect())
            .collect::<mlua::Result<_>>()
            .map_err(|e| e.to_string())
    }
}

impl Options<(i64, i64)> for LuaGame {
    fn options(&mut self, p: &(i64, i64)) -> Result<Vec<Vec<(i64, i64)>>, String> {
        let arg = self
            .lua
            .create_sequence_from([p.0, p.1])
            .map_err(|e| e.to_string())?;
        let out = self.call(arg)?;
        out.sequence_values::<Table>()
            .map(|o| {
                o?.sequence_values::<Table>()
                    .map(|c| {
                        let c = c?;
                        Ok((c.get::<i64>(1)?, c.get::<i64>(2)?))
                    })
                    .collect()
            })
            .collect::<mlua::Result<_>>()
            .map_err(|e| e.to_string())
    }
}

/// Runs `source` as a chunk in a sandboxed, limited state; the error message.
pub fn run(name: &str, source: &str) -> Result<(), String> {
    let (lua, ticks) = state(true)?;
    if let Some(t) = &ticks {
        t.store(0, Ordering::Relaxed);
    }
    lua.load(source).set_name(name).exec().map_err(|e| e.to_string())
}
