//! A solve stopped from outside ends, whatever the engine: a regression test for the pruned
//! search, which once went on for ever on a game whose moves had vanished under it (a
//! cancelled Cram solve kept a lane of the server busy until the server stopped).

use grundy_app::solve::{solve_with, EngineChoice, ErrorKind, Limits, SolveOptions, SolveRequest};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// Solves `req` with a cancel flag set after `after`; the kind of error it ended with.
fn stopped_kind(req: SolveRequest, engine: EngineChoice, after: Duration) -> ErrorKind {
    let cancel = Arc::new(AtomicBool::new(false));
    let limits = Limits {
        cancel: Some(cancel.clone()),
        max_moves: u64::MAX,
        max_positions: usize::MAX,
        ..Limits::default()
    };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let opts = SolveOptions {
            engine,
            ..SolveOptions::default()
        };
        let r = solve_with(&req, &limits, opts);
        let _ = tx.send(r.map(|_| ()).map_err(|e| e.kind));
    });
    std::thread::sleep(after);
    cancel.store(true, Ordering::Relaxed);
    // Not a speed target: a solve that does not end is the failure; a minute is forever.
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(Err(kind)) => kind,
        Ok(Ok(())) => panic!("the solve finished before it was stopped: pick a larger position"),
        Err(_) => panic!("the solve went on after it was stopped"),
    }
}

#[test]
fn every_engine_ends_when_stopped() {
    // Each takes seconds or more unstopped (release build: 7.7 s, 20 s and more, 20 s and
    // more (Dawson's Kayles: its quotient outgrows a solve's limit, the sum is searched), 20 s
    // and more), and is stopped after 100 ms.
    let cases = [
        // The pruned search (normal play, Cram's engine).
        ("cram", "5x8", false, false, EngineChoice::Auto),
        // The memo engine, misère search and remoteness.
        ("cram", "6x6", false, false, EngineChoice::Memo),
        ("0.07", "1500 1200 900", true, false, EngineChoice::Auto),
        ("0.77", "20 30 40", false, true, EngineChoice::Auto),
    ];
    for (family, position, misere, remoteness, engine) in cases {
        let req = SolveRequest {
            family: family.into(),
            position: position.into(),
            misere,
            remoteness,
            ..SolveRequest::default()
        };
        let kind = stopped_kind(req, engine, Duration::from_millis(100));
        assert_eq!(kind, ErrorKind::Cancelled, "{family} {position}");
    }
}
