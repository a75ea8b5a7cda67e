//! The front end of grundy as a library: argument types, `solve` and `judge` (family
//! dispatch is `grundy_games::registry`). The `grundy` binary is a thin wrapper; tests and fuzz targets call these directly.

pub mod dense;
pub mod error;
pub mod judge;
pub mod solve;
