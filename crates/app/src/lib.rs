//! The application layer: turns a request into an answer the same way for every front end.
//! The command line and the web server call these functions and only parse arguments or
//! HTTP and print; engine choice, misère checks, the store's keys and the drivers of long
//! computations live here.

pub mod cancel;
pub mod census;
pub mod certificate;
pub mod dense;
pub mod equivalence;
pub mod gamefile;
pub mod quotient;
pub mod seq;
pub mod solve;
pub mod store;
pub mod table;
