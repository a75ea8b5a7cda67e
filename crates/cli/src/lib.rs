//! The front end of grundy as a library: argument types, family dispatch, `solve` and
//! `judge`. The `grundy` binary is a thin wrapper; tests and fuzz targets call these directly.

pub mod dense;
pub mod error;
pub mod family;
pub mod judge;
pub mod solve;
