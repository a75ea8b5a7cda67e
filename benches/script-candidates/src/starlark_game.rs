//! Starlark (the `starlark` crate) as a source of options. The script's module is frozen
//! once; each call runs in a fresh module whose heap is dropped after the call.

use crate::harness::Options;
use starlark::environment::{FrozenModule, Globals, Module};
use starlark::eval::Evaluator;
use starlark::syntax::{AstModule, Dialect};
use starlark::values::list::{AllocList, ListRef};
use starlark::values::{OwnedFrozenValue, Value};

/// Nested calls allowed (Starlark's dialect forbids recursion anyway).
pub const MAX_CALLSTACK: usize = 64;

/// A compiled script.
pub struct StarlarkGame {
    _module: FrozenModule,
    options: OwnedFrozenValue,
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

impl StarlarkGame {
    /// Parses and runs `source` with the standard globals (no file, clock or random
    /// functions exist in them; `print` is off).
    pub fn new(name: &str, source: &str) -> Result<Self, String> {
        let ast = AstModule::parse(name, source.to_owned(), &Dialect::Standard).map_err(err)?;
        let module = Module::new();
        {
            let mut eval = Evaluator::new(&module);
            eval.set_max_callstack_size(MAX_CALLSTACK).map_err(err)?;
            eval.eval_module(ast, &Globals::standard()).map_err(err)?;
        }
        let module = module.freeze().map_err(|e| format!("{e:?}"))?;
        let options = module.get("options").map_err(err)?;
        Ok(StarlarkGame {
            _module: module,
            options,
        })
    }

    fn call<T>(
        &self,
        arg: impl for<'v> FnOnce(&'v Module) -> Value<'v>,
        read: impl for<'v> FnOnce(Value<'v>) -> Result<T, String>,
    ) -> Result<T, String> {
        let module = Module::new();
        let mut eval = Evaluator::new(&module);
        eval.set_max_callstack_size(MAX_CALLSTACK).map_err(err)?;
        let a = arg(&module);
        let out = eval.eval_function(self.options.value(), &[a], &[]).map_err(err)?;
        read(out)
    }
}

fn list<'v>(v: Value<'v>) -> Result<&'v [Value<'v>], String> {
    ListRef::from_value(v)
        .map(|l| l.content())
        .ok_or_else(|| format!("expected a list, not {v}"))
}

fn int(v: Value) -> Result<i64, String> {
    v.unpack_i32()
        .map(i64::from)
        .ok_or_else(|| format!("expected an integer, not {v}"))
}

impl Options<i64> for StarlarkGame {
    fn options(&mut self, p: &i64) -> Result<Vec<Vec<i64>>, String> {
        let n = *p as i32;
        self.call(
            |m| m.heap().alloc(n),
            |out| {
                list(out)?
                    .iter()
                    .map(|o| list(*o)?.iter().map(|c| int(*c)).collect())
                    .collect()
            },
        )
    }
}

impl Options<(i64, i64)> for StarlarkGame {
    fn options(&mut self, p: &(i64, i64)) -> Result<Vec<Vec<(i64, i64)>>, String> {
        let (w, h) = (p.0 as i32, p.1 as i32);
        self.call(
            |m| m.heap().alloc(AllocList([w, h])),
            |out| {
                list(out)?
                    .iter()
                    .map(|o| {
                        list(*o)?
                            .iter()
                            .map(|c| match list(*c)? {
                                [a, b] => Ok((int(*a)?, int(*b)?)),
                                _ => Err("a sheet must be [w, h]".to_string()),
                            })
                            .collect()
                    })
                    .collect()
            },
        )
    }
}

/// Runs `source` as a module; the error message.
pub fn run(name: &str, source: &str) -> Result<(), String> {
    let ast = AstModule::parse(name, source.to_owned(), &Dialect::Standard).map_err(err)?;
    let module = Module::new();
    let mut eval = Evaluator::new(&module);
    eval.set_max_callstack_size(MAX_CALLSTACK).map_err(err)?;
    eval.eval_module(ast, &Globals::standard())
        .map(|_| ())
        .map_err(err)
}
