//! The front end of grundy as a library: argument types, `solve`, `judge`, `play`, `serve` and `db` (family
//! dispatch is `grundy_games::registry`). The `grundy` binary is a thin wrapper; tests and fuzz targets call these directly.

pub mod db;
pub mod dense;
pub mod error;
pub mod input;
pub mod judge;
pub mod numbers;
pub mod play;
pub mod quotient;
pub mod serve;
pub mod solve;
pub mod table;
