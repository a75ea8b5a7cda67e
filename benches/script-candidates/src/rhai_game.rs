//! Rhai as a source of options: a raw engine with only the safe packages and limits.

use crate::harness::Options;
use rhai::packages::{
    ArithmeticPackage, BasicArrayPackage, BasicIteratorPackage, BasicMapPackage, BasicMathPackage,
    BasicStringPackage, LanguageCorePackage, LogicPackage, MoreStringPackage, Package,
};
use rhai::{Array, CallFnOptions, Dynamic, Engine, Scope, AST};

/// The limits used in every run.
pub const MAX_OPERATIONS: u64 = 100_000_000;
/// Nested function calls.
pub const MAX_CALL_LEVELS: usize = 64;
/// Elements of one array (counted through nested arrays).
pub const MAX_ARRAY: usize = 100_000;
/// Bytes of one string.
pub const MAX_STRING: usize = 1 << 20;

/// A sandboxed engine: `new_raw` (no packages, `print`/`debug` go nowhere) plus the core,
/// arithmetic, logic, iterators, strings, arrays, maps and maths. Not loaded: time
/// (`timestamp`), and `eval` is disabled. Rhai has no file, network or random functions
/// unless a host registers them.
pub fn engine(sizes: bool) -> Engine {
    let mut e = Engine::new_raw();
    LanguageCorePackage::new().register_into_engine(&mut e);
    ArithmeticPackage::new().register_into_engine(&mut e);
    LogicPackage::new().register_into_engine(&mut e);
    BasicIteratorPackage::new().register_into_engine(&mut e);
    BasicStringPackage::new().register_into_engine(&mut e);
    MoreStringPackage::new().register_into_engine(&mut e);
    BasicArrayPackage::new().register_into_engine(&mut e);
    BasicMapPackage::new().register_into_engine(&mut e);
    BasicMathPackage::new().register_into_engine(&mut e);
    e.disable_symbol("eval");
    e.set_max_operations(MAX_OPERATIONS);
    e.set_max_call_levels(MAX_CALL_LEVELS);
    e.set_max_expr_depths(64, 64);
    if sizes {
        // Checked after every change by walking the whole value (nested arrays included):
        // an array built by n pushes costs O(n²).
        e.set_max_array_size(MAX_ARRAY);
        e.set_max_map_size(MAX_ARRAY);
        e.set_max_string_size(MAX_STRING);
    }
    e
}

/// A compiled script.
pub struct RhaiGame {
    engine: Engine,
    ast: AST,
    scope: Scope<'static>,
}

impl RhaiGame {
    /// Compiles `source` for an engine with every limit; the error carries its line and column.
    pub fn new(source: &str) -> Result<Self, String> {
        Self::with_sizes(source, true)
    }

    /// Compiles `source`, with the size limits on arrays, maps and strings or without.
    pub fn with_sizes(source: &str, sizes: bool) -> Result<Self, String> {
        let engine = engine(sizes);
        let ast = engine.compile(source).map_err(|e| e.to_string())?;
        Ok(RhaiGame {
            engine,
            ast,
            scope: Scope::new(),
        })
    }

    /// Calls `name(arg)`.
    pub fn call(&mut self, name: &str, arg: Dynamic) -> Result<Dynamic, String> {
        let opts = CallFnOptions::new().eval_ast(false).rewind_scope(true);
        self.engine
            .call_fn_with_options::<Dynamic>(opts, &mut self.scope, &self.ast, name, (arg,))
            .map_err(|e| e.to_string())
    }
}

fn int(d: Dynamic) -> Result<i64, String> {
    d.as_int()
        .map_err(|t| format!("a component must be an integer, not {t}"))
}

fn array(d: Dynamic) -> Result<Array, String> {
    d.into_array().map_err(|t| format!("expected an array, not {t}"))
}

impl Options<i64> for RhaiGame {
    fn options(&mut self, p: &i64) -> Result<Vec<Vec<i64>>, String> {
        let out = array(self.call("options", Dynamic::from_int(*p))?)?;
        out.into_iter()
            .map(|o| array(o)?.into_iter().map(int).collect())
            .collect()
    }
}

impl Options<(i64, i64)> for RhaiGame {
    fn options(&mut self, p: &(i64, i64)) -> Result<Vec<Vec<(i64, i64)>>, String> {
        let arg: Array = vec![Dynamic::from_int(p.0), Dynamic::from_int(p.1)];
        let out = array(self.call("options", Dynamic::from_array(arg))?)?;
        out.into_iter()
            .map(|o| {
                array(o)?
                    .into_iter()
                    .map(|c| {
                        let c = array(c)?;
                        match <[Dynamic; 2]>::try_from(c) {
                            Ok([a, b]) => Ok((int(a)?, int(b)?)),
                            Err(_) => Err("a sheet must be [w, h]".to_string()),
                        }
                    })
                    .collect()
            })
            .collect()
    }
}
