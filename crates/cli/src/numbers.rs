//! Numbers on the command line, each read with its real limits: the parsers below are clap
//! `value_parser`s whose errors state the range accepted (`must be 1 to 1024, found
//! 100000`), instead of "number too large to fit in target type". A number out of range is a
//! usage error (exit 2), like any other bad argument.

/// Most threads `--threads` accepts (more than the machine's cores are harmless: the engines
/// measure and keep the fastest count; past 1024 the user surely meant something else).
pub const MAX_THREADS: usize = 1024;

/// Most MiB `--memory-mib` accepts: the bytes must fit in 64 bits.
pub const MAX_MEMORY_MIB: u64 = u64::MAX >> 20;

/// Most days `--older-than` accepts: the seconds must fit in 64 bits.
pub const MAX_DAYS: u64 = u64::MAX / 86_400;

/// Most solves `grundy serve` runs at once in a lane (`--max-concurrent`, `--max-slow`): each
/// runs on one of the 512 threads the server keeps for blocking work.
pub const MAX_LANE: usize = 512;

/// Reads a whole number in `min..=max`; the error names the range and what was found.
pub fn whole(text: &str, min: u64, max: u64) -> Result<u64, String> {
    let t = text.trim().replace('_', "");
    let range = || format!("a whole number from {min} to {max}");
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        let what = if t.starts_with('-') {
            "a negative number"
        } else {
            "not a whole number"
        };
        return Err(format!("expected {}, found '{text}' ({what})", range()));
    }
    match t.parse::<u64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        Ok(v) if v < min => Err(format!("expected {}, found {v} (below {min})", range())),
        _ => Err(format!("expected {}, found {text} (above {max})", range())),
    }
}

/// `--threads`: 1 to [`MAX_THREADS`].
pub fn threads(text: &str) -> Result<usize, String> {
    whole(text, 1, MAX_THREADS as u64).map(|v| v as usize)
}

/// `--memory-mib`: 0 (every value in the scratch file) to [`MAX_MEMORY_MIB`].
pub fn memory_mib(text: &str) -> Result<u64, String> {
    whole(text, 0, MAX_MEMORY_MIB)
}

/// `--max-positions`: at least 1 (0 would give up before the first position), at most what
/// a machine word counts.
pub fn max_positions(text: &str) -> Result<usize, String> {
    whole(text, 1, usize::MAX as u64).map(|v| v as usize)
}

/// `serve --max-moves`: at least 1.
pub fn max_moves(text: &str) -> Result<u64, String> {
    whole(text, 1, u64::MAX)
}

/// `serve --max-concurrent` and `--max-slow`: 1 to [`MAX_LANE`].
pub fn lane(text: &str) -> Result<usize, String> {
    whole(text, 1, MAX_LANE as u64).map(|v| v as usize)
}

/// `db prune --older-than`: 0 to [`MAX_DAYS`] days.
pub fn days(text: &str) -> Result<u64, String> {
    whole(text, 0, MAX_DAYS)
}

/// Why `HOST:PORT` does not read, when the port is the reason: not a number, or past 65535
/// (`None` when the port is a number in range or there is none, and the address parser's
/// own message is the better one).
pub fn port_problem(addr: &str) -> Option<String> {
    let (_, port) = addr.rsplit_once(':')?;
    match port.parse::<u64>() {
        Ok(p) if p <= u16::MAX as u64 => None,
        Ok(p) => Some(format!("port {p} is out of range (a port is 0 to 65535)")),
        Err(_) if port.bytes().all(|b| b.is_ascii_digit()) && !port.is_empty() => {
            Some(format!("port {port} is out of range (a port is 0 to 65535)"))
        }
        Err(_) => Some(format!("port '{port}' is not a number (a port is 0 to 65535)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_stated() {
        assert_eq!(threads("2"), Ok(2));
        let e = threads("100000").unwrap_err();
        assert!(e.contains("from 1 to 1024") && e.contains("100000"), "{e}");
        assert!(threads("0").unwrap_err().contains("below 1"));
        assert!(threads("-1").unwrap_err().contains("negative"));
        assert!(threads("two").unwrap_err().contains("not a whole number"));
        assert_eq!(memory_mib("0"), Ok(0));
        assert_eq!(memory_mib(&MAX_MEMORY_MIB.to_string()), Ok(MAX_MEMORY_MIB));
        let e = memory_mib("99999999999999999999999").unwrap_err();
        assert!(e.contains(&MAX_MEMORY_MIB.to_string()), "{e}");
        assert!(max_positions("0").is_err());
        assert!(max_positions("99999999999999999999999")
            .unwrap_err()
            .contains(&usize::MAX.to_string()));
        assert_eq!(lane("512"), Ok(512));
        assert!(lane("513").is_err());
        assert_eq!(days("1_000"), Ok(1000));
        assert!(days(&(MAX_DAYS + 1).to_string()).is_err());
    }

    #[test]
    fn ports() {
        assert_eq!(port_problem("127.0.0.1:7878"), None);
        assert_eq!(port_problem("[::1]:0"), None);
        assert!(port_problem("127.0.0.1:99999").unwrap().contains("0 to 65535"));
        assert!(port_problem("127.0.0.1:999999999999999999999")
            .unwrap()
            .contains("out of range"));
        assert!(port_problem("127.0.0.1:http").unwrap().contains("not a number"));
        assert_eq!(port_problem("localhost"), None);
    }
}
