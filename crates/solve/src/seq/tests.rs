//! The sequence engines against the reference tables of tests/data/heap, against
//! the naive mex, and checkpoints against damage.

use super::*;
use proptest::prelude::*;
use std::path::PathBuf;

/// The take-and-break rules of `digits`, with the unequal flag on every splitting digit
/// when `unequal`.
fn tb(digits: Vec<u32>, unequal: bool) -> HeapRules {
    HeapRules::take_break(&digits, &vec![unequal; digits.len()], 0).unwrap()
}

fn reference_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/heap")
}

/// The rules of a reference file's name (a test-only reading of the codes used there).
fn rules_of(name: &str) -> HeapRules {
    if name == "grundys-game" {
        return tb(vec![4], true);
    }
    if let Some(set) = name.strip_prefix("subtraction-") {
        return HeapRules::Subtraction(set.split('-').map(|s| s.parse().unwrap()).collect());
    }
    let (d0, rest) = name.split_once('.').unwrap();
    let mut digits: Vec<u32> = std::iter::once(d0)
        .chain(rest.split("").filter(|s| !s.is_empty()))
        .map(|d| u32::from_str_radix(d, 16).unwrap())
        .collect();
    while digits.len() > 1 && digits.last() == Some(&0) {
        digits.pop();
    }
    tb(digits, false)
}

/// Every value computed by the method (no copying from a proven period: these tests are of
/// the methods).
fn compute(rules: &HeapRules, count: u64) -> SeqEngine {
    let mut e = SeqEngine::new(rules, count, StoreOptions::default()).unwrap();
    e.use_period(false);
    e.compute_to(count).unwrap();
    e
}

/// An engine for `count` heaps of `rules` that looks for no period and runs every step on
/// `threads` threads, even where it would use one (the values must not depend on it).
fn forced_threads(rules: &HeapRules, count: u64, threads: usize) -> SeqEngine {
    let mut e = SeqEngine::new(rules, count, StoreOptions::default()).unwrap();
    e.use_period(false);
    e.set_threads(threads);
    e.force_all_threads(true);
    e
}

fn reference_tables() -> Vec<(String, Vec<u64>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(reference_dir()).expect("tests/data/heap is in the repository") {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("txt") {
            continue;
        }
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let values = text.lines().map(|l| l.trim().parse().unwrap()).collect();
        out.push((name, values));
    }
    out.sort();
    out
}

#[test]
fn every_reference_table() {
    let tables = reference_tables();
    assert!(tables.len() >= 13, "found {} tables", tables.len());
    for (name, want) in tables {
        let rules = rules_of(&name);
        let e = compute(&rules, want.len() as u64);
        let got: Vec<u64> = (0..e.len()).map(|i| e.get(i)).collect();
        assert_eq!(got, want, "{name}");
        assert_eq!(naive::values(&rules, 300), want[..300], "naive {name}");
    }
}

#[test]
fn every_reference_period() {
    let text = std::fs::read_to_string(reference_dir().join("periods.tsv")).unwrap();
    let mut checked = 0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (code, p, n0): (&str, u64, u64) = (f[0], f[1].parse().unwrap(), f[2].parse().unwrap());
        let rules = rules_of(code);
        let t = rules.max_removal().unwrap();
        let needed = 2 * n0 + p + t + p;
        // Just too few values: no claim.
        let short = compute(&rules, needed - 1);
        let claim = short.period();
        assert!(
            claim.is_none() || claim.unwrap().period < p,
            "{code}: claimed {claim:?} from {} values",
            needed - 1
        );
        let e = compute(&rules, needed);
        let got = e.period().unwrap_or_else(|| panic!("{code}: no period proven"));
        assert_eq!((got.period, got.n0), (p, n0), "{code}");
        assert_eq!(got.checked_to, 2 * n0 + p + t, "{code}");
        checked += 1;
    }
    assert_eq!(checked, 7);
}

#[test]
fn grundys_game_and_officers_claim_no_period() {
    for name in ["grundys-game", "0.6"] {
        let e = compute(&rules_of(name), 20_000);
        assert_eq!(e.period(), None, "{name}");
    }
}

#[test]
fn subtraction_periods() {
    let e = compute(&HeapRules::Subtraction(vec![1, 3, 4]), 100);
    let p = e.period().unwrap();
    assert_eq!((p.period, p.n0), (7, 0));
}

#[test]
fn all_but_arithmetic_periods() {
    let r = HeapRules::AllBut(vec![2, 5]);
    let e = compute(&r, 2000);
    let p = e.period().expect("sub-all-but:2,5 is arithmetic-periodic");
    assert!(p.saltus > 0);
    let far = naive::values(&r, 3000);
    for n in p.n0 as usize..3000 - p.period as usize {
        assert_eq!(far[n] + p.saltus, far[n + p.period as usize]);
    }
}

#[test]
fn all_but_matches_naive() {
    for set in [vec![], vec![2, 5], vec![1], vec![1, 2, 3, 7]] {
        let r = HeapRules::AllBut(set.clone());
        let e = compute(&r, 500);
        let got: Vec<u64> = (0..500).map(|i| e.get(i)).collect();
        assert_eq!(got, naive::values(&r, 500), "{set:?}");
    }
}

#[test]
fn values_grow_past_16_bits() {
    // Nim as all-but-nothing: G(n) = n.
    let r = HeapRules::AllBut(vec![]);
    let e = compute(&r, 70_000);
    assert_eq!(e.width(), 4);
    assert_eq!(e.get(69_999), 69_999);
}

#[test]
fn file_backed_values() {
    let dir = tempfile::tempdir().unwrap();
    let store = StoreOptions {
        memory_limit: 1000,
        scratch_dir: Some(dir.path().to_path_buf()),
    };
    let r = rules_of("0.77");
    let mut e = SeqEngine::new(&r, 5000, store).unwrap();
    e.compute_to(5000).unwrap();
    assert!(e.file_backed());
    let mem = compute(&r, 5000);
    assert!((0..5000).all(|i| e.get(i) == mem.get(i)));
}

#[test]
fn summary_of_kayles() {
    let e = compute(&rules_of("0.77"), 1000);
    let s = e.summary();
    assert_eq!(s.count, 1000);
    assert_eq!(s.max, 8);
    assert_eq!(s.period.map(|p| (p.period, p.n0)), Some((12, 71)));
    let common = s.common.unwrap();
    assert!(!common.contains(&0));
    for &a in &common {
        for &b in &common {
            assert!(!common.contains(&(a ^ b)));
        }
    }
}

proptest! {
    // Each case checks 4700 heaps against the quadratic reference on 1 to 4 threads.
    #![proptest_config(ProptestConfig::with_cases(16))]
    #[test]
    fn the_pipeline_matches_naive_on_one_to_four_threads(rules in pipeline_rules()) {
        // Past 4096 heaps, where the pipeline starts; forced to use every thread (more
        // threads than cores is fine: the values must not depend on the scheduling).
        let count = 4700;
        let want = naive::values(&rules, count as usize);
        for threads in 1..=4 {
            let mut e = forced_threads(&rules, count, threads);
            e.compute_to(count).unwrap();
            let got: Vec<u64> = (0..count).map(|i| e.get(i)).collect();
            prop_assert_eq!(&got, &want, "{} threads", threads);
        }
    }
}

/// The values of `rules` up to `count` by the engine, without SIMD when `portable`, in
/// pieces that are not whole batches; and, for the rare/common method, whether it had AVX2
/// to use.
fn small_value_batches(rules: &HeapRules, count: u64, portable: bool) -> (Vec<u64>, Option<bool>) {
    let mut e = SeqEngine::new(rules, count, StoreOptions::default()).unwrap();
    e.use_period(false);
    if portable {
        e.portable_only();
    }
    for to in [700, 1301, 2003, count] {
        e.compute_to(to).unwrap();
    }
    let avx2 = match &e.method {
        Method::Sparse(s) => Some(s.cpu().avx2().is_some()),
        _ => None,
    };
    ((0..count).map(|i| e.get(i)).collect(), avx2)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    /// Past the first batches, games whose values stay below 32 take the one-word option
    /// sets: the portable code against the reference.
    #[test]
    fn small_value_batches_match_naive(rules in small_rules()) {
        let count = 2600;
        let (got, avx2) = small_value_batches(&rules, count, true);
        prop_assert_ne!(avx2, Some(true));
        prop_assert_eq!(got, naive::values(&rules, count as usize));
    }

    /// The same, compiled for AVX2 (`simd::with_avx2`).
    #[test]
    #[cfg_attr(not(has_avx2), ignore = "this CPU has no AVX2: the fast path cannot run here")]
    fn small_value_batches_with_avx2_match_naive(rules in small_rules()) {
        let count = 2600;
        let (got, avx2) = small_value_batches(&rules, count, false);
        // The rare/common method did have AVX2 to use (else this test would prove nothing).
        prop_assert_ne!(avx2, Some(false), "built on a CPU with AVX2, run on one without");
        prop_assert_eq!(got, naive::values(&rules, count as usize));
    }
}

/// Random codes of the games the rare/common method computes (at most two heaps left, the
/// unequal flag on all splitting digits or none): those whose pipeline uses the threads.
fn pipeline_rules() -> impl Strategy<Value = HeapRules> {
    prop_oneof![
        (
            prop_oneof![Just(0u32), Just(4u32)],
            proptest::collection::vec(0u32..8, 1..5)
        )
            .prop_map(|(d0, rest)| {
                let mut digits = vec![d0];
                digits.extend(rest);
                tb(digits, false)
            }),
        (
            prop_oneof![Just(4u32), Just(0u32)],
            proptest::collection::vec(0u32..8, 0..4)
        )
            .prop_map(|(d0, rest)| {
                let mut digits = vec![d0];
                digits.extend(rest);
                tb(digits, true)
            }),
    ]
}

fn small_rules() -> impl Strategy<Value = HeapRules> {
    prop_oneof![
        (
            prop_oneof![Just(0u32), Just(4u32)],
            proptest::collection::vec(0u32..8, 1..5)
        )
            .prop_map(|(d0, rest)| {
                let mut digits = vec![d0];
                digits.extend(rest);
                tb(digits, false)
            }),
        proptest::collection::vec(0u32..16, 1..3).prop_map(|rest| {
            let mut digits = vec![0];
            digits.extend(rest);
            tb(digits, false)
        }),
        (
            prop_oneof![Just(4u32), Just(0u32)],
            proptest::collection::vec(0u32..8, 0..3)
        )
            .prop_map(|(d0, rest)| {
                let mut digits = vec![d0];
                digits.extend(rest);
                tb(digits, true)
            }),
        proptest::collection::btree_set(1u64..12, 1..4)
            .prop_map(|s| HeapRules::Subtraction(s.into_iter().collect())),
        proptest::collection::btree_set(1u64..12, 0..4)
            .prop_map(|s| HeapRules::AllBut(s.into_iter().collect())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn engines_match_naive(rules in small_rules(), count in 0u64..400) {
        let e = compute(&rules, count);
        let got: Vec<u64> = (0..count).map(|i| e.get(i)).collect();
        prop_assert_eq!(got, naive::values(&rules, count as usize));
    }

    #[test]
    fn proven_periods_hold(rules in small_rules()) {
        let e = compute(&rules, 600);
        if let Some(p) = e.period() {
            // Check the claim far beyond the values that proved it.
            let far = naive::values(&rules, 1500);
            for n in p.n0..(1500 - p.period) {
                prop_assert_eq!(far[n as usize] + p.saltus, far[(n + p.period) as usize]);
            }
        }
    }
}

/// Take-and-break rules of every kind the general engine takes: digits of up to 6 bits
/// (five heaps), unequal flags on some digits, repeating blocks.
fn wide_rules() -> impl Strategy<Value = HeapRules> {
    (
        0u32..64,
        proptest::collection::vec(0u32..64, 1..5),
        proptest::collection::vec(any::<bool>(), 0..6),
        0usize..4,
    )
        .prop_filter_map("a valid code", |(d0, rest, flags, repeat)| {
            let mut d = vec![d0 & !3];
            d.extend(rest);
            let repeat = repeat.min(d.len() - 1);
            HeapRules::take_break(&d, &flags, repeat)
        })
}

/// The general engine's values, computed in chunks from a resumed start (so catching up
/// from known values is tested too).
fn general_values(rules: &HeapRules, count: usize, resume_at: usize) -> Vec<u64> {
    general_values_on(rules, count, resume_at, 1)
}

/// [`general_values`] on `threads` threads, every step forced onto the pool when more than
/// one.
fn general_values_on(rules: &HeapRules, count: usize, resume_at: usize, threads: usize) -> Vec<u64> {
    let want_first = naive::values(rules, resume_at.min(count));
    let mut cells: Vec<u32> = vec![0; count];
    for (c, v) in cells.iter_mut().zip(&want_first) {
        *c = *v as u32;
    }
    let mut g = general::General::new(rules, &cells[..want_first.len()]);
    if threads > 1 {
        g.force_parallel();
    }
    let mut at = want_first.len();
    while at < count {
        let to = (at + 7).min(count);
        g.compute_parallel(&mut cells, at, to, threads).unwrap();
        at = to;
    }
    if threads > 1 && rules.max_parts() >= 4 && count > want_first.len() + 8 {
        // A split into four heaps or more without the flag keeps X_3 (and X_2) tables,
        // built on the pool from heap 0 on.
        assert!(
            g.parallel_steps > 0 || rules.has_unequal(),
            "the pool was never used"
        );
    }
    cells.iter().map(|&v| u64::from(v)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn general_engine_matches_naive(rules in wide_rules(), resume_at in 0usize..40) {
        let count = if rules.max_parts() > 3 { 40 } else { 90 };
        prop_assert_eq!(general_values(&rules, count, resume_at), naive::values(&rules, count));
    }

    #[test]
    fn general_engine_on_threads_matches_naive(rules in wide_rules(), resume_at in 0usize..40, threads in 2usize..4) {
        let count = if rules.max_parts() > 3 { 40 } else { 90 };
        prop_assert_eq!(general_values_on(&rules, count, resume_at, threads), naive::values(&rules, count));
    }

    #[test]
    fn seq_engine_matches_naive_on_wide_rules(rules in wide_rules()) {
        let count = if rules.max_parts() > 3 { 40 } else { 90 };
        let e = compute(&rules, count as u64);
        let got: Vec<u64> = (0..e.len()).map(|i| e.get(i)).collect();
        prop_assert_eq!(got, naive::values(&rules, count));
        if e.period().is_some() {
            prop_assert!(!rules.has_unequal() && rules.max_removal().is_some());
        }
    }
}

/// The general engine on the games the fast engines take: the same values as the
/// reference tables, for the first 2000 heaps.
#[test]
fn general_engine_on_reference_tables() {
    for (name, want) in reference_tables() {
        let rules = rules_of(&name);
        if !matches!(rules, HeapRules::TakeBreak { .. }) {
            continue;
        }
        let n = want.len().min(2000);
        assert_eq!(general_values(&rules, n, 0), want[..n], "{name}");
    }
}

/// Nim as 0.[3], and 0.[7] (remove any number, leave up to two heaps): G(n) = n.
#[test]
fn repeating_blocks_of_nim() {
    for d in [3, 7] {
        let rules = HeapRules::take_break(&[0, d], &[], 1).unwrap();
        let e = compute(&rules, 3000);
        assert!((0..3000).all(|i| e.get(i) == i), "0.[{d}]");
        assert_eq!(e.period(), None);
        assert_eq!(period::theorem(&rules), None);
    }
}

mod checkpoints {
    use super::*;
    use crate::seq::checkpoint::{resume, CheckpointWriter};

    fn saved(dir: &std::path::Path, count: u64) -> PathBuf {
        let path = dir.join("k.ckpt");
        let r = rules_of("0.77");
        let mut e = SeqEngine::new(&r, 1000, StoreOptions::default()).unwrap();
        e.compute_to(count / 2).unwrap();
        let mut w = CheckpointWriter::create(&path, "0.77", &e).unwrap();
        e.compute_to(count).unwrap();
        assert!(w.save(&e).unwrap());
        path
    }

    #[test]
    fn resumes_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let path = saved(dir.path(), 600);
        let r = rules_of("0.77");
        let mut e = resume(&path, "0.77", &r, 1000, StoreOptions::default()).unwrap();
        assert_eq!(e.len(), 600);
        e.compute_to(1000).unwrap();
        let fresh = compute(&r, 1000);
        assert!((0..1000).all(|i| e.get(i) == fresh.get(i)));
    }

    fn refused(path: &std::path::Path, game: &str) -> String {
        match resume(path, game, &rules_of("0.77"), 1000, StoreOptions::default()) {
            Ok(_) => panic!("a damaged checkpoint was accepted"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn refuses_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = saved(dir.path(), 600);
        assert!(refused(&path, "0.07").contains("not of 0.07"));
        let bytes = std::fs::read(&path).unwrap();
        // Truncated.
        std::fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
        assert!(refused(&path, "0.77").contains("truncated"));
        // A flipped value.
        let mut bad = bytes.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        assert!(refused(&path, "0.77").contains("corrupt"));
        // Another format version.
        let mut bad = bytes.clone();
        bad[8] = 9;
        std::fs::write(&path, &bad).unwrap();
        assert!(refused(&path, "0.77").contains("format"));
        // Not a checkpoint at all.
        std::fs::write(&path, b"hello").unwrap();
        assert!(refused(&path, "0.77").contains("truncated"));
        std::fs::write(&path, vec![b'x'; 100]).unwrap();
        assert!(refused(&path, "0.77").contains("not a grundy"));
    }

    /// A checkpoint whose checksum is right but whose values no game has (found by the
    /// fuzzer: G(33) = 774897667 made the engine ask for 5.9 GB) is refused, not resumed.
    #[test]
    fn refuses_impossible_values_with_a_valid_checksum() {
        use crate::seq::checkpoint::Checksum;
        let dir = tempfile::tempdir().unwrap();
        let path = saved(dir.path(), 600);
        let mut bytes = std::fs::read(&path).unwrap();
        let width = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        let count = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
        let data_at = bytes.len() - count * width;
        // Makes the header's checksum that of the values as they now are.
        let fix_sum = |bytes: &mut Vec<u8>| {
            let mut sum = Checksum::default();
            for v in bytes[data_at..].chunks_exact(width) {
                let mut b = [0u8; 8];
                b[..width].copy_from_slice(v);
                sum.add(u64::from_le_bytes(b));
            }
            bytes[24..32].copy_from_slice(&sum.0.to_le_bytes());
        };
        // G(3) of 0.77 set to 16, more than a heap of 3 has options, and the checksum made right.
        bytes[data_at + 3 * width] = 16;
        fix_sum(&mut bytes);
        std::fs::write(&path, &bytes).unwrap();
        let e = refused(&path, "0.77");
        assert!(e.contains("corrupt: G(3) = 16"), "{e}");
        // The same file with a value a heap of 3 can have is resumed.
        bytes[data_at + 3 * width] = 3;
        fix_sum(&mut bytes);
        std::fs::write(&path, &bytes).unwrap();
        assert!(resume(&path, "0.77", &rules_of("0.77"), 1000, StoreOptions::default()).is_ok());
    }
}

#[test]
fn three_heap_games_match_naive() {
    for name in ["0.F", "0.8F", "0.A8", "0.9", "8.0C", "4.F", "0.E", "0.08"] {
        let r = rules_of(name);
        let e = compute(&r, 400);
        let want = naive::values(&r, 400);
        assert!((0..400).all(|i| e.get(i) == want[i as usize]), "{name}");
    }
}

#[test]
fn batches_match_naive() {
    for name in [
        "0.6",
        "grundys-game",
        "4.07",
        "4.4",
        "0.137",
        "0.04",
        "4.7",
        "0.007",
    ] {
        let r = rules_of(name);
        let e = compute(&r, 2500);
        let want = naive::values(&r, 2500);
        assert!((0..2500).all(|i| e.get(i) == want[i as usize]), "{name}");
    }
}

#[test]
fn several_threads_give_the_same_values() {
    for name in [
        "0.6",
        "0.16",
        "grundys-game",
        "4.07",
        "0.77",
        "0.137",
        "0.44",
        "4.4",
    ] {
        let r = rules_of(name);
        let n = 12_000;
        let one = compute(&r, n);
        for (threads, forced) in [(2, false), (2, true), (3, true), (4, false)] {
            let mut two = SeqEngine::new(&r, n, StoreOptions::default()).unwrap();
            two.use_period(false);
            two.set_threads(threads);
            // Forced: the pipeline runs whatever the machine's load.
            two.force_all_threads(forced);
            // In pieces, as the CLI does (a piece that is not whole batches, too).
            for to in [5000, 5001, 9000, 9013, n] {
                two.compute_to(to).unwrap();
            }
            assert!(
                (0..n).all(|i| one.get(i) == two.get(i)),
                "{name} on {threads} threads, forced {forced}"
            );
        }
    }
}

#[test]
#[ignore]
fn print_sparse_stats() {
    for (name, n) in [
        ("0.6", 1u64 << 20),
        ("0.16", 1_000_000),
        ("grundys-game", 1 << 20),
    ] {
        let e = compute(&rules_of(name), n);
        eprintln!(
            "{name} {n}: {:?} rare-list {}",
            e.sparse_stats(),
            e.summary().rare_count.unwrap_or(0)
        );
    }
}

/// One thread against two forced, 2^19 heaps (2^`GRUNDY_TIME_EXP` heaps when that is set):
/// two threads with the main thread taking late batches over (the default), and waiting
/// for every batch instead.
#[test]
#[ignore]
fn time_two_threads() {
    let exp: u32 = std::env::var("GRUNDY_TIME_EXP")
        .ok()
        .and_then(|e| e.parse().ok())
        .unwrap_or(19);
    for name in ["0.6", "grundys-game", "0.16"] {
        let r = rules_of(name);
        let n = 1 << exp;
        let t = std::time::Instant::now();
        compute(&r, n);
        let one = t.elapsed();
        let mut times = Vec::new();
        for take_after in [sparse::TAKE_AFTER_DEFAULT, std::time::Duration::from_secs(3600)] {
            let mut e = forced_threads(&r, n, 2);
            if let Method::Sparse(s) = &mut e.method {
                s.take_after = take_after;
            }
            let t = std::time::Instant::now();
            e.compute_to(n).unwrap();
            let taken = match &e.method {
                Method::Sparse(s) => s.taken_batches,
                _ => 0,
            };
            times.push((t.elapsed(), taken));
        }
        eprintln!(
            "{name} {n}: one thread {one:?}, two threads {:?} ({} batches taken over), two threads waiting {:?}",
            times[0].0, times[0].1, times[1].0
        );
    }
}

#[test]
fn a_proven_period_extends_the_sequence_without_search() {
    // Kayles (0.77): period 12 from heap 71, proven long before 200 000. Past the proof the
    // values are copied, so the rare/common engine settles only the first few thousand
    // heaps (it would settle every one of the 200 000 otherwise).
    let r = rules_of("0.77");
    let mut e = SeqEngine::new(&r, 200_000, StoreOptions::default()).unwrap();
    e.compute_to(200_000).unwrap();
    let p = e.period().expect("a period");
    assert_eq!((p.period, p.n0), (12, 71));
    assert!((71..200_000 - 12).all(|n| e.get(n) == e.get(n + 12)));
    let (full_scans, _, _) = e.sparse_stats().unwrap();
    assert!(full_scans < 5_000, "{full_scans} heaps searched");
    // The same values as computing every heap (the naive reference, on a prefix).
    let want = naive::values(&r, 3000);
    assert!((0..3000).all(|i| e.get(i) == want[i as usize]));
    // And as the engine computing every heap (`--every-heap`), to the end.
    let every = compute(&r, 200_000);
    assert!((0..200_000).all(|i| e.get(i) == every.get(i)));
    assert!(every.sparse_stats().unwrap().0 > 100_000);
}

/// Games whose values pass 32 (byte option sets) and stay below 512, where heaps need a
/// scan; they are computed to 20 000 by one portable thread, then as `engine` makes them on
/// one thread and on two, the helper starting by leaving most of its rare pass to the main
/// thread, a little of it, or taking part of the scans (the share adapts), and checked by
/// `check` (the values are compared here).
fn scans_against_one_portable_thread(portable: bool, check: impl Fn(&str, &sparse::Sparse)) {
    for name in ["0.6", "grundys-game", "0.44", "4.4", "0.26"] {
        let r = rules_of(name);
        let n = 20_000;
        let mut plain = SeqEngine::new(&r, n, StoreOptions::default()).unwrap();
        plain.use_period(false);
        plain.portable_only();
        plain.compute_to(n).unwrap();
        for (threads, balance) in [(1, 0), (2, -100_000), (2, -2), (2, 300), (3, -2), (4, 300)] {
            if portable && threads == 1 {
                // That is `plain` itself.
                continue;
            }
            let mut e = SeqEngine::new(&r, n, StoreOptions::default()).unwrap();
            e.use_period(false);
            if portable {
                e.portable_only();
            }
            e.set_threads(threads);
            e.force_all_threads(threads >= 2);
            if let Method::Sparse(s) = &mut e.method {
                s.balance = balance;
            }
            e.compute_to(n).unwrap();
            assert!(
                (0..n).all(|i| plain.get(i) == e.get(i)),
                "{name} on {threads} threads, balance {balance}"
            );
            match &e.method {
                Method::Sparse(s) => check(name, s),
                _ => panic!("{name}: not the rare/common method"),
            }
        }
    }
}

#[test]
fn the_portable_pipeline_gives_the_values_of_one_portable_thread() {
    // The marking scan on two threads, however the work is shared.
    scans_against_one_portable_thread(true, |name, s| {
        assert_eq!(s.targeted_scans, 0, "{name}");
    });
}

#[test]
#[cfg_attr(
    not(has_avx512_vbmi),
    ignore = "this CPU has no AVX-512 VBMI: the fast path cannot run here"
)]
fn the_targeted_scan_gives_the_values_of_the_marking_scan() {
    // The targeted scan (AVX-512 VBMI) on one thread and two, against the marking scan.
    scans_against_one_portable_thread(false, |name, s| {
        // The CPU has it (the build machine did), and the scan did run (else this test would
        // prove nothing).
        assert!(
            s.cpu().targeted().is_some(),
            "built on a CPU with AVX-512 VBMI, run on one without"
        );
        let targeted = s.targeted_scans;
        assert!(targeted > 0, "{name}: {targeted} targeted scans");
    });
}

/// Regression: the targeted scan's table stops at 511; when values reach 256 the mex can be
/// 512, every target witnessed and no common value left, and the scan answered its first
/// mex instead (found by `two_thread_pipeline_matches_naive` on this game, heap 3546).
#[test]
fn the_targeted_scan_answers_a_mex_past_its_table() {
    let rules = tb(vec![4, 6, 2], true);
    let count = 4700;
    let want = naive::values(&rules, count as usize);
    for threads in [1, 2] {
        let mut e = SeqEngine::new(&rules, count, StoreOptions::default()).unwrap();
        e.use_period(false);
        e.set_threads(threads);
        e.force_all_threads(threads == 2);
        e.compute_to(count).unwrap();
        let got: Vec<u64> = (0..count).map(|i| e.get(i)).collect();
        let first = (0..count as usize).find(|&i| got[i] != want[i]);
        assert_eq!(first, None, "first difference on {threads} threads");
    }
}

/// The split the rare/common method uses for `rules` after `count` heaps, and how many heaps
/// are rare.
fn split_after(rules: &HeapRules, count: u64, threads: usize) -> (Vec<u64>, sparse::Split, usize) {
    let mut e = SeqEngine::new(rules, count, StoreOptions::default()).unwrap();
    e.use_period(false);
    e.set_threads(threads);
    e.force_all_threads(threads > 1);
    e.compute_to(count).unwrap();
    let Method::Sparse(s) = &e.method else {
        panic!("{rules:?} is not computed by the rare/common method");
    };
    let values = (0..count).map(|i| e.get(i)).collect();
    (values, s.split_kind(), s.split().1)
}

/// Games whose rare values would be on about half the heaps with one split for all heaps
/// (0.106: 32661 rare among 65536) take a split by the heap's parity: few heaps are rare,
/// and the values are the naive ones, on one thread and on two.
#[test]
fn heap_parity_splits_keep_games_sparse() {
    for (code, digits) in [
        ("0.106", vec![0, 1, 0, 6]),
        ("0.104", vec![0, 1, 0, 4]),
        ("0.324", vec![0, 3, 2, 4]),
        ("0.142", vec![0, 1, 4, 2]),
    ] {
        let rules = tb(digits, false);
        let count = 4800;
        let want = naive::values(&rules, count as usize);
        for threads in [1, 2] {
            let (got, split, rare) = split_after(&rules, count, threads);
            assert_eq!(got, want, "{code} on {threads} threads");
            assert!(
                matches!(split, sparse::Split::HeapParity { .. }),
                "{code}: {split:?}"
            );
            // With a free split, 37% to 50% of the heaps are rare (2380 of 4800 for 0.106);
            // 0.142 keeps about 19% rare with its heap-parity split, the others under 3%.
            assert!(rare < count as usize / 4, "{code}: {rare} rare heaps");
        }
    }
}

/// Rules whose splitting moves all remove counts of one parity (where a split by the heap's
/// parity may be chosen), from the digits of up to 4 counts.
fn same_parity_split_rules() -> impl Strategy<Value = HeapRules> {
    (proptest::collection::vec(0u32..8, 1..5), any::<bool>()).prop_map(|(rest, odd)| {
        let mut digits = vec![0];
        for (i, d) in rest.into_iter().enumerate() {
            let k = i + 1;
            // Splitting only at odd k (or only at even k).
            digits.push(if (k % 2 == 1) == odd { d } else { d & 3 });
        }
        tb(digits, false)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Whatever split the method picks, the values are the naive ones.
    #[test]
    fn same_parity_split_rules_match_naive(rules in same_parity_split_rules()) {
        let count = 2500;
        let mut e = SeqEngine::new(&rules, count, StoreOptions::default()).unwrap();
        e.use_period(false);
        for to in [300, 1001, count] {
            e.compute_to(to).unwrap();
        }
        let got: Vec<u64> = (0..count).map(|i| e.get(i)).collect();
        prop_assert_eq!(got, naive::values(&rules, count as usize));
    }
}

#[test]
fn summary_reports_a_heap_parity_split() {
    let rules = tb(vec![0, 1, 0, 6], false);
    let e = compute(&rules, 4000);
    let s = e.summary();
    let (mask, alpha) = s.split_mask.expect("0.106 splits by the heap's parity");
    let rare = s.rare_count.unwrap();
    // Recount from the values: heaps n whose value v has parity(v & mask) ≠ alpha ⊕ n mod 2.
    let recount = (0..4000)
        .filter(|&n| (e.get(n) & mask).count_ones() as u64 % 2 != alpha ^ (n % 2))
        .count() as u64;
    assert_eq!(rare, recount);
    assert!(rare < 200, "{rare}");
    // Kayles keeps one split for every heap.
    assert_eq!(compute(&rules_of("0.77"), 1000).summary().split_mask, None);
}

/// Counts past 2^32 without 2^32 real heaps: Kayles (period 12 from 71) in an engine of
/// capacity 2^40, its values in a scratch file that grows in small steps. Once the period is
/// proven, values and the summary past the heaps computed follow from it.
#[test]
fn a_proven_period_answers_counts_past_2_32() {
    let r = rules_of("0.77");
    let dir = tempfile::tempdir().unwrap();
    let store = StoreOptions {
        memory_limit: 0,
        scratch_dir: Some(dir.path().to_path_buf()),
    };
    let mut e = SeqEngine::new(&r, MAX_COUNT, store).unwrap();
    assert!(e.file_backed());
    let mut to = 1000;
    while e.proven().is_none() {
        to *= 2;
        e.compute_to(to).unwrap();
        assert!(to < 1 << 20, "no period proven");
    }
    let held = e.len();
    let want = naive::values(&r, 1000);
    for i in [1u64 << 32, (1 << 32) + 1, (1 << 33) + 7, MAX_COUNT - 1] {
        for k in 0..24 {
            // Past the preperiod, G(n) depends on n mod 12 only.
            let n = i - k;
            let small = 71 + (n - 71) % 12 + 12 * 40;
            assert_eq!(e.get(n), want[small as usize], "G({n})");
        }
    }
    // The summary of a count past the values held, counted from the period, is the summary
    // of every value computed (by heap mod 4 too: the split by the heap's parity uses it).
    let len = 3 * held as usize + 5;
    let counted = e.summary_of(len);
    let every = compute(&r, len as u64).summary_of(len);
    let strip = |s: Summary| Summary {
        period: s.period.map(|p| Period { checked_to: 0, ..p }),
        ..s
    };
    assert_eq!(strip(counted), strip(every));
    let s = e.summary_of(MAX_COUNT as usize);
    assert_eq!((s.count, s.max), (MAX_COUNT, 8));
    assert_eq!(s.period.map(|p| (p.period, p.n0)), Some((12, 71)));
}

/// The scratch file grows in steps (here of 4 KiB) and keeps every value across the maps.
#[test]
fn the_scratch_file_grows_and_keeps_its_values() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = store::Backing::<u32>::with_step(1 << 20, 0, &Some(dir.path().to_path_buf()), 4096).unwrap();
    assert!(b.is_file());
    let mut len = 0;
    for to in [10, 1000, 1001, 5000, 70_000, 1 << 20] {
        b.ensure(to).unwrap();
        assert!(b.cells().len() >= to);
        for (i, c) in b.cells_mut()[len..to].iter_mut().enumerate() {
            *c = ((len + i) as u32).wrapping_mul(2_654_435_761);
        }
        len = to;
        assert!((0..len).all(|i| b.cells()[i] == (i as u32).wrapping_mul(2_654_435_761)));
    }
    assert_eq!(b.cells().len(), 1 << 20);
}

/// The pipeline's main thread marks a batch itself when its helper is late (on a busy
/// machine a helper may wait a whole time slice for a core) and the helper drops its marks:
/// the values are those of one thread whether the main thread takes every late batch over
/// at once, after the usual wait, or never (it then waits for every batch that a helper
/// is marking, as before).
#[test]
fn the_main_thread_taking_batches_over_keeps_the_values() {
    let hours = std::time::Duration::from_secs(3600);
    for name in ["0.6", "grundys-game", "0.44"] {
        let r = rules_of(name);
        let n = 12_000;
        let mut plain = SeqEngine::new(&r, n, StoreOptions::default()).unwrap();
        plain.use_period(false);
        plain.compute_to(n).unwrap();
        for threads in [2, 3] {
            for take_after in [std::time::Duration::ZERO, sparse::TAKE_AFTER_DEFAULT, hours] {
                let mut e = forced_threads(&r, n, threads);
                if let Method::Sparse(s) = &mut e.method {
                    s.take_after = take_after;
                }
                e.compute_to(n).unwrap();
                let first = (0..n).find(|&i| plain.get(i) != e.get(i));
                assert_eq!(
                    first, None,
                    "{name} on {threads} threads, taking over after {take_after:?}"
                );
                let Method::Sparse(s) = &e.method else {
                    panic!("{name}: not the rare/common method");
                };
                // (Waiting hours, the main thread still marks the batches their helper gave up,
                // having found the main thread at them.)
                if take_after.is_zero() {
                    // Each chunk's first batch at least: its helper has just started.
                    assert!(s.taken_batches > 0, "{name} on {threads} threads");
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// The three-heap method on a rayon pool (every step forced onto it) gives the values of
    /// one thread and of the definition, for random hexadecimal codes with three-heap moves.
    #[test]
    fn the_three_heap_method_on_a_pool_matches_one_thread(
        d0 in proptest::sample::select(vec![0u32, 4, 8, 12]),
        rest in proptest::collection::vec(0u32..16, 1..4),
    ) {
        let mut d = vec![d0];
        d.extend(rest);
        if d.iter().all(|&x| x & 8 == 0) {
            d[0] |= 8;
        }
        let rules = HeapRules::take_break(&d, &[], 0).unwrap();
        let count = 400u64;
        let want = naive::values(&rules, count as usize);
        for threads in 1..=3 {
            let mut e = forced_threads(&rules, count, threads);
            e.compute_to(count).unwrap();
            let got: Vec<u64> = (0..count).map(|i| e.get(i)).collect();
            prop_assert_eq!(&got, &want, "{:?} on {} threads", d, threads);
            let Method::Triple(t) = &e.method else {
                panic!("{d:?}: not the three-heap method");
            };
            // Else this test would prove nothing about the pool.
            prop_assert_eq!(t.parallel_steps > 0, threads >= 2, "{:?} on {} threads", d, threads);
        }
    }
}

/// The values of `rules` up to `count` on the dense path from heap 0 (marking `prefix`
/// pairs of each split rule before the targeted scan; no SIMD when `portable`), in pieces,
/// on `threads` threads, with the dense statistics: (heaps, window rescans).
fn dense_values(
    rules: &HeapRules,
    count: u64,
    prefix: usize,
    kernels: Kernels,
    threads: usize,
) -> (Vec<u64>, u64, u64) {
    let mut e = SeqEngine::new(rules, count, StoreOptions::default()).unwrap();
    e.use_period(false);
    e.set_threads(threads);
    if kernels == Kernels::Portable {
        e.portable_only();
    }
    let Method::Sparse(s) = &mut e.method else {
        panic!("not the rare/common method");
    };
    if matches!(kernels, Kernels::Avx2 | Kernels::Avx2Losing) {
        s.without_avx512();
    }
    if kernels == Kernels::Avx2Losing {
        s.make_windows_lose();
    }
    s.force_dense(Some(true), prefix);
    for to in [97, 700, 1301, count] {
        e.compute_to(to.min(count)).unwrap();
    }
    let Method::Sparse(s) = &e.method else {
        unreachable!()
    };
    (
        (0..count).map(|i| e.get(i)).collect(),
        s.dense_heaps,
        s.window_rescans,
    )
}

/// The kernels an engine of [`dense_values`] may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernels {
    /// What the CPU has (the AVX-512 windows where it has them).
    Detected,
    /// AVX2 at most (the AVX2 windows where the CPU has AVX2).
    Avx2,
    /// AVX2 at most, its windows taken to lose to marking: every pair marked but on one
    /// heap in 16.
    Avx2Losing,
    /// None (the dense path marks every pair).
    Portable,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// The dense path, with the windowed scan where the CPU has it (AVX-512's windows and
    /// AVX2's) and a prefix of 0 to 40 pairs (so the windows of targets are scanned), on one
    /// and two threads, and its portable marking: the reference's values.
    #[test]
    fn the_dense_path_matches_naive(rules in pipeline_rules(), prefix in 0usize..40, count in 0u64..1600) {
        let want = naive::values(&rules, count as usize);
        for (kernels, threads) in [
            (Kernels::Detected, 1),
            (Kernels::Portable, 1),
            (Kernels::Detected, 2),
            (Kernels::Avx2, 1),
            (Kernels::Avx2, 2),
            (Kernels::Avx2Losing, 1),
            (Kernels::Avx2Losing, 2),
        ] {
            let (got, heaps, _) = dense_values(&rules, count, prefix, kernels, threads);
            prop_assert_eq!(heaps, count, "every heap on the dense path");
            prop_assert_eq!(&got, &want, "{:?}, {} threads", kernels, threads);
        }
    }
}

/// The codes without a sparse space (the dense path's games).
const DENSE_CODES: [&str; 5] = ["0.007", "0.114", "0.135", "0.342", "0.414"];

/// The waits of the main thread for a helper that the tests try: none, hours (never
/// taking a helper's work), and the engine's own.
const WAITS: [Option<std::time::Duration>; 3] = [
    Some(std::time::Duration::ZERO),
    Some(std::time::Duration::from_secs(3600)),
    None,
];

/// `count` heaps of dense code `code` on the dense path (a prefix of `prefix` pairs) on 2
/// and 3 threads, set up by `setup` each time: the reference's values, every heap on the
/// dense path; `check` then looks at the engine's statistics (threads given).
fn dense_threads_match_naive(
    code: usize,
    prefix: usize,
    count: u64,
    setup: impl Fn(&mut sparse::Sparse),
    check: impl Fn(&sparse::Sparse, usize) -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    let rules = rules_of(DENSE_CODES[code]);
    let want = naive::values(&rules, count as usize);
    for threads in [2, 3] {
        let mut e = forced_threads(&rules, count, threads);
        let Method::Sparse(s) = &mut e.method else {
            panic!("not the rare/common method");
        };
        s.force_dense(Some(true), prefix);
        setup(s);
        for to in [97, 700, 1301, count] {
            e.compute_to(to.min(count)).unwrap();
        }
        let got: Vec<u64> = (0..count).map(|i| e.get(i)).collect();
        prop_assert_eq!(&got, &want, "{} on {} threads", DENSE_CODES[code], threads);
        let Method::Sparse(s) = &e.method else {
            unreachable!()
        };
        prop_assert_eq!(s.dense_heaps, count, "every heap on the dense path");
        check(s, threads)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// The dense path with every targeted scan shared among 2 and 3 threads (AVX-512's
    /// windows or AVX2's, in pieces of 1 to 200 pairs; the main thread scanning a helper's
    /// piece itself at once, never, or after its own wait): the reference's values, for
    /// codes without a sparse space.
    #[test]
    fn the_shared_dense_path_matches_naive(
        code in 0usize..DENSE_CODES.len(),
        prefix in 0usize..40,
        count in 0u64..2500,
        piece in 1usize..200,
        wait in 0usize..3,
        avx2 in proptest::bool::ANY,
    ) {
        let setup = |s: &mut sparse::Sparse| {
            if avx2 {
                s.without_avx512();
            }
            s.share_dense(1, piece, WAITS[wait]);
        };
        dense_threads_match_naive(code, prefix, count, setup, |s, _| {
            // Else this test would prove nothing about the sharing.
            if simd::Cpu::detect().window().is_some() && count >= 200 {
                prop_assert!(s.shared_scans > 0, "no scan shared");
            }
            Ok(())
        })?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// The dense path in groups of heaps computed at once on 2 and 3 threads (the main
    /// thread taking a helper's heap itself at once, never, or after its own wait): the
    /// reference's values, for codes without a sparse space (0.342 and 0.135 have options
    /// that leave one heap, which a helper cannot see).
    #[test]
    fn the_grouped_dense_path_matches_naive(
        code in 0usize..DENSE_CODES.len(),
        prefix in 0usize..40,
        count in 0u64..2500,
        wait in 0usize..3,
        avx2 in proptest::bool::ANY,
    ) {
        let setup = |s: &mut sparse::Sparse| {
            if avx2 {
                s.without_avx512();
            }
            s.group_dense(WAITS[wait]);
        };
        dense_threads_match_naive(code, prefix, count, setup, |s, threads| {
            // Else this test would prove nothing about the groups (which need every split
            // rule to remove threads − 1 tokens or more: 0.414 has groups of 2 only).
            let least = s.split_rules().leave_two.iter().min().copied().unwrap_or(0);
            if simd::Cpu::detect().window().is_some() && count >= 200 && least + 1 >= threads && wait == 1 {
                prop_assert!(s.grouped_heaps > 0, "no heap computed by a helper");
            }
            Ok(())
        })?;
    }
}

/// The dense path in groups chosen by the rule, with its samples of the sparse path and its
/// rebuilds, on 2 threads: the reference's values to 20 000 heaps.
#[test]
fn the_grouped_dense_path_by_the_rule_matches_naive() {
    for code in ["0.342", "0.114"] {
        let rules = rules_of(code);
        let count = 20_000;
        let want = naive::values(&rules, count as usize);
        let mut e = forced_threads(&rules, count, 2);
        e.compute_to(count).unwrap();
        let got: Vec<u64> = (0..count).map(|i| e.get(i)).collect();
        assert_eq!(got, want, "{code}");
        let Method::Sparse(s) = &e.method else {
            panic!("not the rare/common method");
        };
        if simd::Cpu::detect().window().is_some() {
            assert!(s.grouped_heaps > 0, "{code}: no heap computed by a helper");
        }
    }
}

/// Values past 2048 and a prefix of no pairs: the targets of the first window are all
/// witnessed, so later windows are scanned (else this test would prove nothing of them).
/// Against the sparse path (checked against the reference by the other tests: the
/// reference's quadratic time to 2^16 heaps would be long here).
#[test]
fn the_dense_path_scans_later_windows() {
    let rules = rules_of("0.414");
    let count = 1 << 16;
    let mut sparse = SeqEngine::new(&rules, count, StoreOptions::default()).unwrap();
    sparse.use_period(false);
    let Method::Sparse(s) = &mut sparse.method else {
        panic!("not the rare/common method");
    };
    s.force_dense(Some(false), 0);
    sparse.compute_to(count).unwrap();
    let want: Vec<u64> = (0..count).map(|i| sparse.get(i)).collect();
    assert!(want.iter().any(|&v| v >= 2100), "values pass the first window");
    for kernels in [Kernels::Detected, Kernels::Avx2] {
        let (got, heaps, rescans) = dense_values(&rules, count, 0, kernels, 1);
        assert_eq!(got, want, "{kernels:?}");
        assert_eq!(heaps, count);
        if simd::Cpu::detect().window().is_some() {
            assert!(rescans > 0, "{kernels:?}: no later window was scanned");
        }
    }
}

/// The rule: the five codes without a sparse space take the dense path (0.007 by 2^17 heaps), Officers,
/// Grundy's game and 0.106 (sparse with a heap-parity split) do not (with AVX2 only, not
/// past their first 2^15 heaps).
#[test]
fn the_dense_path_is_taken_where_the_split_gives_nothing() {
    for (name, count, dense) in [
        ("0.007", 1 << 17, true),
        ("0.114", 1 << 15, true),
        ("0.135", 1 << 15, true),
        ("0.342", 1 << 15, true),
        ("0.414", 1 << 15, true),
        ("0.6", 1 << 16, false),
        ("grundys-game", 1 << 16, false),
        ("0.106", 1 << 16, false),
        ("0.16", 1 << 16, false),
    ] {
        let e = compute(&rules_of(name), count);
        let Method::Sparse(s) = &e.method else {
            panic!("{name}: not the rare/common method");
        };
        assert_eq!(s.is_dense(), dense, "{name}: {:?} heaps dense", s.dense_heaps);
        if dense || s.cpu().targeted().is_some() {
            assert_eq!(s.dense_heaps > 0, dense, "{name}");
        } else {
            // Without AVX-512 the sparse path has no targeted scan: its young heaps mark
            // most pairs (Officers 95 % of every pair at 2^13 heaps, 53 % at 2^14 with
            // AVX2 only) and may take the dense path for a while, never past 2^15 heaps.
            assert!(s.dense_heaps <= 1 << 15, "{name}: {} heaps dense", s.dense_heaps);
        }
    }
}

/// The dense path's statistics on the five codes without a sparse space (2^`GRUNDY_TIME_EXP`
/// heaps, 2^16 by default): heaps on it, window rescans, pairs scanned, time. GRUNDY_NAMES
/// (codes separated by spaces), GRUNDY_DENSE_PREFIX (a fixed prefix) and GRUNDY_DENSE_RULE
/// (`always`, `never`) GRUNDY_THREADS (threads, 1 by default) and
/// GRUNDY_FORCE_THREADS (set: all of them always) change what runs.
#[test]
#[ignore]
fn print_dense_stats() {
    let exp: u32 = std::env::var("GRUNDY_TIME_EXP")
        .ok()
        .and_then(|e| e.parse().ok())
        .unwrap_or(16);
    // GRUNDY_DENSE_PREFIX: a fixed prefix instead of the adapted one.
    let prefix: Option<usize> = std::env::var("GRUNDY_DENSE_PREFIX")
        .ok()
        .and_then(|e| e.parse().ok());
    let names = std::env::var("GRUNDY_NAMES").unwrap_or("0.007 0.114 0.135 0.342 0.414".into());
    for name in names.split(' ') {
        let t = std::time::Instant::now();
        let count = 1u64 << exp;
        let mut e = SeqEngine::new(&rules_of(name), count, StoreOptions::default()).unwrap();
        e.use_period(false);
        // GRUNDY_THREADS: threads (1 by default).
        if let Some(t) = std::env::var("GRUNDY_THREADS").ok().and_then(|t| t.parse().ok()) {
            e.set_threads(t);
        }
        // GRUNDY_FORCE_THREADS: every thread always (no tuner).
        e.force_all_threads(std::env::var("GRUNDY_FORCE_THREADS").is_ok());
        // GRUNDY_DENSE_RULE: "always" or "never" instead of the rule.
        let rule = match std::env::var("GRUNDY_DENSE_RULE").as_deref() {
            Ok("always") => Some(true),
            Ok("never") => Some(false),
            _ => None,
        };
        if let Method::Sparse(s) = &mut e.method {
            if prefix.is_some() || rule.is_some() {
                s.force_dense(rule, prefix.unwrap_or(1024));
            }
        }
        e.compute_to(count).unwrap();
        let Method::Sparse(s) = &e.method else {
            unreachable!()
        };
        eprintln!(
            "{name}: {:.2} s, dense heaps {}, window rescans {}, shared scans {}, grouped heaps {}, dense pairs {}, prefix {}, pairs scanned {}, targeted {}, full scans {}, rare pairs {}",
            t.elapsed().as_secs_f64(),
            s.dense_heaps,
            s.window_rescans,
            s.shared_scans,
            s.grouped_heaps,
            s.dense_pairs,
            s.dense_prefix,
            s.scanned_pairs,
            s.targeted_pairs,
            s.full_scans,
            s.rare_pairs
        );
    }
}

/// A run resumed from known values takes the dense path again soon (not only once the heaps
/// have doubled), with the values of a run that did not stop.
#[test]
fn a_resumed_run_takes_the_dense_path_again() {
    let rules = rules_of("0.342");
    let (stop, count) = (1u64 << 14, (1u64 << 14) + 6000);
    let whole = compute(&rules, count);
    let known: Vec<u64> = (0..stop).map(|i| whole.get(i)).collect();
    let mut e = SeqEngine::resume(&rules, count, StoreOptions::default(), known.into_iter(), 2).unwrap();
    e.use_period(false);
    e.compute_to(count).unwrap();
    let Method::Sparse(s) = &e.method else {
        panic!("not the rare/common method");
    };
    assert!(
        s.is_dense() && s.dense_heaps > 2000,
        "{} heaps dense",
        s.dense_heaps
    );
    assert!((0..count).all(|i| e.get(i) == whole.get(i)));
}

/// The dense rule is applied every eighth of the heaps so far, not only at the rebuilds of
/// the split (every doubling): a game may change its character within a doubling (0.007
/// between 2^18 and 2^19 heaps, see `seq/dense.rs`).
#[test]
fn the_dense_rule_is_applied_every_eighth_of_the_heaps() {
    let rules = rules_of("0.342");
    let count = 30_000;
    let mut e = SeqEngine::new(&rules, count, StoreOptions::default()).unwrap();
    e.use_period(false);
    e.compute_to(count).unwrap();
    let Method::Sparse(s) = &e.method else {
        panic!("not the rare/common method");
    };
    // The split was last rebuilt at 2^14 heaps or about; the rule was applied since, last
    // within the last eighth of the heaps.
    let last = s.len_at_rule() as u64;
    assert!(
        last > count - count / 8 - 1024,
        "the rule was last applied at {last} heaps"
    );
    assert!(s.is_dense(), "0.342 left the dense path");
}
