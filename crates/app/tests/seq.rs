//! The sequence driver without a front end: values against the reference tables and the
//! naive engine, progress events, the store as a seed, and which errors are the user's.

use grundy_app::seq::{compute, Computed, Error, Phase, SeqRequest};
use grundy_app::store::writer;
use grundy_solve::seq::naive;
use grundy_store::Store;
use std::path::Path;

/// A progress event without the game's name borrowed.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Event {
    game: String,
    done: u64,
    total: u64,
    phase: Phase,
}

fn run(request: &SeqRequest, store: Option<&Store>) -> (Result<Computed, Error>, Vec<Event>) {
    let mut events = Vec::new();
    let result = compute(request, store, &mut |p| {
        events.push(Event {
            game: p.game.to_string(),
            done: p.done,
            total: p.total,
            phase: p.phase,
        })
    });
    (result, events)
}

fn reference(name: &str) -> Vec<u64> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/heap")
        .join(name);
    std::fs::read_to_string(path)
        .expect("reference table")
        .lines()
        .map(|l| l.trim().parse().expect("a value"))
        .collect()
}

#[test]
fn values_match_the_reference_and_progress_is_reported() {
    for (game, file) in [("0.77", "0.77.txt"), ("sub:1,2,3", "subtraction-1-2-3.txt")] {
        let (result, events) = run(&SeqRequest::new(game, "1000"), None);
        let c = result.expect("computed");
        let values: Vec<u64> = c.values().collect();
        assert_eq!(values, reference(file), "{game}");
        assert_eq!(values, naive::values(c.game.rules(), 1000), "{game}");
        assert_eq!(c.summary.count, 1000);
        assert_eq!(c.from_store, 0);
        // Computing from 0, never backwards, then finished once at the end.
        let computing: Vec<&Event> = events.iter().filter(|e| e.phase == Phase::Computing).collect();
        assert!(!computing.is_empty(), "{events:?}");
        assert_eq!(computing[0].done, 0);
        assert!(computing.windows(2).all(|w| w[0].done <= w[1].done), "{events:?}");
        assert!(events
            .iter()
            .all(|e| e.total == 1000 && e.game == game && e.done <= 1000));
        let last = events.last().expect("events");
        assert_eq!((last.phase, last.done), (Phase::Finished, 1000));
        assert_eq!(events.iter().filter(|e| e.phase == Phase::Finished).count(), 1);
    }
}

#[test]
fn until_period_stops_at_the_proof() {
    let request = SeqRequest {
        until_period: true,
        ..SeqRequest::new("0.07", "100000")
    };
    let (result, events) = run(&request, None);
    let c = result.expect("computed");
    let p = c.period.expect("a period");
    assert_eq!((p.period, p.n0), (34, 53));
    assert!(c.count < 1000);
    assert_eq!(
        events.last().map(|e| (e.phase, e.done)),
        Some((Phase::Finished, c.count))
    );
    let naive = naive::values(c.game.rules(), c.count as usize);
    assert_eq!(c.values().collect::<Vec<_>>(), naive);
}

#[test]
fn the_store_seeds_a_second_run() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.redb"), &writer()).unwrap();
    let (first, events) = run(&SeqRequest::new("0.77", "600"), Some(&store));
    let first = first.unwrap();
    assert!(events.iter().all(|e| e.phase != Phase::FromStore));
    // Another spelling of the same game, fewer values: all from the store.
    let (again, events) = run(&SeqRequest::new("0.770", "500"), Some(&store));
    let again = again.unwrap();
    assert_eq!(again.from_store, 500);
    assert_eq!(events[0].phase, Phase::FromStore);
    assert_eq!((events[0].game.as_str(), events[0].done), ("0.77", 500));
    assert_eq!(
        again.values().collect::<Vec<_>>(),
        first.values().take(500).collect::<Vec<_>>()
    );
    // More values: continued from the 600 kept.
    let (more, _) = run(&SeqRequest::new("0.77", "1000"), Some(&store));
    let more = more.unwrap();
    assert_eq!(more.from_store, 600);
    assert_eq!(more.values().collect::<Vec<_>>(), reference("0.77.txt"));
}

#[test]
fn checkpoints_resume_with_a_progress_event() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("k.ckpt");
    let first = SeqRequest {
        checkpoint: Some(ck.clone()),
        ..SeqRequest::new("0.6", "700")
    };
    run(&first, None).0.unwrap();
    let resumed = SeqRequest {
        resume: Some(ck.clone()),
        ..SeqRequest::new("0.6", "1000")
    };
    let (c, events) = run(&resumed, None);
    assert_eq!(c.unwrap().values().collect::<Vec<_>>(), reference("0.6.txt"));
    assert_eq!((events[0].phase, events[0].done), (Phase::FromCheckpoint, 700));
    // The checkpoint of 0.6 is not one of 0.77.
    let other = SeqRequest {
        resume: Some(ck),
        ..SeqRequest::new("0.77", "100")
    };
    let e = run(&other, None).0.unwrap_err();
    assert!(matches!(e, Error::Resume(_)) && e.is_input(), "{e:?}");
    assert!(e.to_string().contains("not of 0.77"), "{e}");
}

#[test]
fn input_errors_are_told_from_failures() {
    let bad = |request: SeqRequest| {
        let (result, events) = run(&request, None);
        let e = result.unwrap_err();
        assert!(events.is_empty(), "{events:?}");
        assert!(e.is_input(), "{e:?}");
        e
    };
    let e = bad(SeqRequest::new("0.8", "10"));
    assert!(matches!(e, Error::Game { column: 3, .. }), "{e:?}");
    assert!(e.to_string().starts_with("invalid game '0.8': column 3: "), "{e}");
    let e = bad(SeqRequest::new("0.77", "lots"));
    assert!(matches!(e, Error::Count(_)), "{e:?}");
    assert_eq!(
        e.to_string(),
        "invalid count 'lots' (expected a number like 1000, 1e6 or 2^21)"
    );
    let e = bad(SeqRequest::new("0.77", "2^41"));
    assert_eq!(
        e.to_string(),
        "count '2^41' is too large (at most 2^40 = 1099511627776)"
    );
    let e = bad(SeqRequest {
        resume: Some("/nonexistent/k.ckpt".into()),
        ..SeqRequest::new("0.77", "10")
    });
    assert!(matches!(e, Error::Resume(_)), "{e:?}");
    let dir = tempfile::tempdir().unwrap();
    let (result, _) = run(
        &SeqRequest {
            checkpoint: Some(dir.path().join("no-such-folder/k.ckpt")),
            ..SeqRequest::new("0.77", "10")
        },
        None,
    );
    let e = result.unwrap_err();
    assert!(matches!(e, Error::CheckpointPath { .. }) && e.is_input(), "{e:?}");
    assert!(e.to_string().starts_with("cannot write checkpoint "), "{e}");
}
