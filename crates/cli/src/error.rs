//! The binary's error: a usage/input error (exit 2) or a failure (exit 1).

use std::fmt;

/// What went wrong, and which exit code it deserves.
#[derive(Debug)]
pub enum CliError {
    /// Bad arguments or bad input: exit code 2.
    Usage(String),
    /// The work could not be done (I/O, limits): exit code 1.
    Failure(anyhow::Error),
}

impl CliError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Failure(_) => 1,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(m) => write!(f, "{m}"),
            CliError::Failure(e) => write!(f, "{e:#}"),
        }
    }
}

impl From<grundy_solve::SolveError> for CliError {
    fn from(e: grundy_solve::SolveError) -> Self {
        CliError::Failure(e.into())
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::Failure(e.into())
    }
}

/// Shorthand for a usage error.
pub fn usage(msg: impl Into<String>) -> CliError {
    CliError::Usage(msg.into())
}

impl From<grundy_games::family::RegistryError> for CliError {
    /// Every registry error is the user's input: a usage error (exit 2).
    fn from(e: grundy_games::family::RegistryError) -> Self {
        CliError::Usage(e.to_string())
    }
}
