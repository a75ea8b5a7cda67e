//! grundy on many ranks (feature `mpi`, docs/cluster.md): the same binary runs alone as one
//! process, and under `mpirun -np K` (or `srun`) as K ranks.
//!
//! - Every rank starts MPI, then checks that all ranks run the same grundy version with the
//!   same arguments (rank 0 gathers a fingerprint of each): if not, they all stop with exit 2
//!   and one message, from rank 0.
//! - `grundy census` spreads its games over the ranks ([`census`]): rank 0 is the
//!   coordinator, it owns the journal and the store, hands the next pending game to whichever
//!   rank is free (dynamic scheduling), and runs games itself on a thread of its own. The
//!   others compute the games they are given with the same function as one process
//!   ([`grundy_app::census::run_game`]) and send back the row and the values to keep. Rank 0
//!   records each row in the journal as it comes, and prints the rows at the end exactly as
//!   one process does.
//! - `grundy solve --dense` splits each tier over the ranks (`cluster_dense`).
//! - Every other command runs on rank 0 alone; the other ranks wait for it and exit with its
//!   code.
//!
//! Waiting ranks poll with short sleeps rather than block in MPI, whose blocking calls spin
//! on a core: on a machine shared with the work, a waiting rank leaves the core to it.

use crate::census::{self, CensusArgs};
use clap::Parser;
use grundy_app::census::{self as app, GameOptions, Row};
use grundy_app::store::{load_seq, save_seq, KeptSeq};
use grundy_cli::db::DbOptions;
use grundy_cli::error::CliError;
use grundy_store::Store;
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::topology::{Communicator, Rank, SimpleCommunicator};
use mpi::traits::Root;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// Rank 0 to a worker: a game to run (its name, then the kept values that seed it).
const TAG_TASK: i32 = 1;
/// A worker to rank 0: a finished game (the row, then the values to keep) or its failure.
const TAG_RESULT: i32 = 2;
/// Rank 0 to every other rank: stop, with this exit code.
const TAG_STOP: i32 = 3;

/// The number of ranks of this run (1 when MPI is not started).
static SIZE: AtomicI32 = AtomicI32::new(1);

/// Whether this process was started by an MPI launcher (`mpirun`, `mpiexec`, `srun`): the
/// variables every launcher sets for its ranks (Open MPI, PMIx, PMI-1/2 of MPICH and SLURM).
pub fn launched() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// The number of ranks (1 when alone).
pub fn ranks() -> i32 {
    SIZE.load(Ordering::Relaxed)
}

/// The whole run of one rank under an MPI launcher: start MPI, check that the ranks agree,
/// run the command (the census over all ranks, anything else on rank 0), end MPI. Returns
/// the exit code, the same on every rank.
pub fn main() -> i32 {
    let Some((universe, _)) = mpi::initialize_with_threading(mpi::Threading::Funneled) else {
        eprintln!("grundy: MPI was started before grundy started it");
        return 1;
    };
    let world = universe.world();
    SIZE.store(world.size(), Ordering::Relaxed);
    let code = rank_main(&world);
    drop(world);
    // MPI_Finalize: every rank reaches it, whatever its exit code.
    drop(universe);
    code
}

fn rank_main(world: &SimpleCommunicator) -> i32 {
    let rank = world.rank();
    if let Err(code) = agree(world) {
        return code;
    }
    // Every rank reads the same arguments (checked above): the same answer on every rank,
    // printed by rank 0 alone.
    let cli = match crate::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            if rank == 0 {
                let _ = e.print();
            }
            return e.exit_code();
        }
    };
    // The census and `solve --dense` run on every rank; anything else on rank 0 alone.
    let census = matches!(cli.command, crate::Command::Census(_))
        || matches!(&cli.command, crate::Command::Solve(a) if a.dense);
    if rank != 0 {
        // Rank 0 reports a bad --memory-budget (and stops the others through the census's
        // first exchange or the end of its command).
        if let Some(Err(_)) = cli.memory_budget.as_deref().map(grundy_core::memory::parse_size) {
            return if census { 2 } else { wait_stop(world) };
        }
        if !census {
            return wait_stop(world);
        }
        return crate::run(cli);
    }
    let code = crate::run(cli);
    if !census {
        stop_all(world, code);
    }
    code
}

/// A fingerprint of this rank's grundy version and arguments (not the program's path).
fn fingerprint() -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes.iter().chain(&[0xff]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    eat(env!("CARGO_PKG_VERSION").as_bytes());
    eat(&grundy_app::store::ENGINE_EPOCH.to_le_bytes());
    for a in std::env::args_os().skip(1) {
        eat(a.as_encoded_bytes());
    }
    h
}

/// Rank 0 gathers every rank's fingerprint and tells all whether they agree: `Err(2)` on
/// every rank when one differs, with one message from rank 0 naming the ranks.
fn agree(world: &SimpleCommunicator) -> Result<(), i32> {
    let root = world.process_at_rank(0);
    let mine = fingerprint();
    let mut verdict: u8 = 0;
    if world.rank() == 0 {
        let mut all = vec![0u64; world.size() as usize];
        root.gather_into_root(&mine, &mut all[..]);
        let odd: Vec<String> = all
            .iter()
            .enumerate()
            .filter(|&(_, &f)| f != mine)
            .map(|(r, _)| r.to_string())
            .collect();
        if !odd.is_empty() {
            verdict = 1;
            eprintln!(
                "grundy: the {} ranks were not started alike: rank{} {} {} another grundy version or other arguments than rank 0; every rank must run the same grundy with the same arguments",
                world.size(),
                if odd.len() > 1 { "s" } else { "" },
                odd.join(", "),
                if odd.len() > 1 { "have" } else { "has" },
            );
        }
    } else {
        root.gather_into(&mine);
    }
    root.broadcast_into(&mut verdict);
    if verdict == 0 {
        Ok(())
    } else {
        Err(2)
    }
}

/// Sleeps a little longer each time nothing came, from 50 µs to 5 ms.
struct Backoff(Duration);

impl Backoff {
    fn new() -> Backoff {
        Backoff(Duration::from_micros(50))
    }
    fn reset(&mut self) {
        self.0 = Duration::from_micros(50);
    }
    fn wait(&mut self) {
        std::thread::sleep(self.0);
        self.0 = (self.0 * 2).min(Duration::from_millis(5));
    }
}

/// Rank 0: tells every other rank to stop with `code`.
fn stop_all(world: &SimpleCommunicator, code: i32) {
    for r in 1..world.size() {
        world.process_at_rank(r).send_with_tag(&code, TAG_STOP);
    }
}

/// A rank other than 0: waits for rank 0's stop and returns its code.
fn wait_stop(world: &SimpleCommunicator) -> i32 {
    let root = world.process_at_rank(0);
    let mut backoff = Backoff::new();
    loop {
        if let Some((msg, _)) = root.immediate_matched_probe_with_tag(TAG_STOP) {
            let (code, _) = msg.matched_receive::<i32>();
            return code;
        }
        backoff.wait();
    }
}

// --- messages -------------------------------------------------------------------------

/// Appends a piece: its length (8 bytes, little-endian), then its bytes.
fn put(out: &mut Vec<u8>, piece: &[u8]) {
    out.extend_from_slice(&(piece.len() as u64).to_le_bytes());
    out.extend_from_slice(piece);
}

/// Reads the pieces written by [`put`]; `None` when the message is cut short.
fn pieces(mut bytes: &[u8]) -> Option<Vec<&[u8]>> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let (len, rest) = bytes.split_first_chunk::<8>()?;
        let len = usize::try_from(u64::from_le_bytes(*len)).ok()?;
        if rest.len() < len {
            return None;
        }
        out.push(&rest[..len]);
        bytes = &rest[len..];
    }
    Some(out)
}

/// The kept values of a game as a piece: the width (1 byte), then the values, `width`
/// little-endian bytes each. Empty when nothing is kept.
fn seq_piece(kept: Option<&KeptSeq>) -> Vec<u8> {
    let Some(k) = kept.filter(|k| !k.is_empty()) else {
        return Vec::new();
    };
    let w = k.width();
    let mut out = Vec::with_capacity(1 + w * k.len() as usize);
    out.push(w as u8);
    for v in k.values() {
        out.extend_from_slice(&v.to_le_bytes()[..w]);
    }
    out
}

/// Keeps the values of a [`seq_piece`] in `store` as `game`'s sequence, when they are more
/// than the store holds (as one process keeps them).
fn keep_piece(store: &Store, game: &str, piece: &[u8]) {
    let Some((&w, data)) = piece.split_first() else {
        return;
    };
    let w = usize::from(w);
    if (w != 2 && w != 4) || !data.len().is_multiple_of(w) {
        return;
    }
    let kept = load_seq(store, game).map_or(0, |k| k.len());
    if (data.len() / w) as u64 > kept {
        save_seq(store, game, w, data);
    }
}

/// What a worker sends back: the row and the values to keep, or the failure.
fn result_message(result: &Result<Row, app::Error>, values: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match result {
        Ok(row) => {
            put(&mut out, b"row");
            put(
                &mut out,
                serde_json::to_string(row).unwrap_or_default().as_bytes(),
            );
            put(&mut out, values);
        }
        Err(e) => {
            let kind: &[u8] = if e.is_input() { b"input" } else { b"failure" };
            put(&mut out, kind);
            put(&mut out, e.to_string().as_bytes());
        }
    }
    out
}

/// A finished game as rank 0 reads it back.
enum Outcome {
    /// The row, and the values to keep (a [`seq_piece`]).
    Row(Row, Vec<u8>),
    /// The game failed (or the message did not read): the error to stop with.
    Failed(CliError),
}

fn read_result(bytes: &[u8], from: Rank) -> Outcome {
    let garbled = || {
        Outcome::Failed(CliError::Failure(anyhow::anyhow!(
            "rank {from} sent a message that does not read"
        )))
    };
    let Some(p) = pieces(bytes) else {
        return garbled();
    };
    match p.as_slice() {
        [b"row", row, values] => match serde_json::from_slice::<Row>(row) {
            Ok(row) => Outcome::Row(row, values.to_vec()),
            Err(_) => garbled(),
        },
        [b"input", m] => Outcome::Failed(CliError::Usage(String::from_utf8_lossy(m).into_owned())),
        [b"failure", m] => Outcome::Failed(CliError::Failure(anyhow::anyhow!(
            "{}",
            String::from_utf8_lossy(m)
        ))),
        _ => garbled(),
    }
}

// --- the census -----------------------------------------------------------------------

/// `grundy census` on every rank of the run: rank 0 coordinates (and computes on a thread of
/// its own), the others compute the games it gives them. The exit code is the same on every
/// rank; only rank 0 prints.
pub fn census(args: CensusArgs, db: &DbOptions) -> i32 {
    let world = SimpleCommunicator::world();
    if world.rank() == 0 {
        let code = match coordinate(&world, &args, db) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("grundy: {e}");
                e.exit_code()
            }
        };
        stop_all(&world, code);
        code
    } else {
        work(&world, &args)
    }
}

/// Whether rank 0 could start the census: the first exchange of a census run.
fn announce(world: &SimpleCommunicator, ok: bool, store: bool) {
    let mut word: [u8; 2] = [u8::from(ok), u8::from(store)];
    world.process_at_rank(0).broadcast_into(&mut word[..]);
}

/// Rank 0: the census over all ranks.
fn coordinate(world: &SimpleCommunicator, args: &CensusArgs, db: &DbOptions) -> Result<(), CliError> {
    let mut c = match census::setup(args, db) {
        Ok(c) => c,
        Err(e) => {
            announce(world, false, false);
            return Err(e);
        }
    };
    let size = world.size();
    if !args.quiet {
        eprintln!("{}", census::start_line(&c, &format!(" on {size} ranks")));
    }
    let store = db.open_cache();
    announce(world, true, store.is_some());
    let total = c.games.names.len();
    let mut queue: VecDeque<String> = std::mem::take(&mut c.pending).into();
    // The game each rank is running (rank 0's is on its thread).
    let mut running: Vec<Option<String>> = vec![None; size as usize];
    let mut failed: Option<CliError> = None;
    let options = &c.options;
    let store_ref = store.as_ref();
    std::thread::scope(|scope| {
        let (task_tx, task_rx) = mpsc::channel::<String>();
        let (done_tx, done_rx) = mpsc::channel::<(String, Result<Row, app::Error>)>();
        // Rank 0's own worker: the store is at hand, no values to send.
        scope.spawn(move || {
            for game in task_rx {
                let result = app::run_game(&game, options, store_ref);
                if done_tx.send((game, result)).is_err() {
                    break;
                }
            }
        });
        let mut backoff = Backoff::new();
        loop {
            // Hand out games while there are games and free ranks (none after a failure).
            if failed.is_none() {
                for (r, slot) in running.iter_mut().enumerate() {
                    if slot.is_some() {
                        continue;
                    }
                    let Some(game) = queue.pop_front() else { break };
                    if r == 0 {
                        if task_tx.send(game.clone()).is_err() {
                            failed = Some(CliError::Failure(anyhow::anyhow!(
                                "rank 0's worker thread stopped"
                            )));
                            break;
                        }
                    } else {
                        let mut msg = Vec::new();
                        put(&mut msg, game.as_bytes());
                        put(
                            &mut msg,
                            &seq_piece(store_ref.and_then(|s| load_seq(s, &game)).as_ref()),
                        );
                        world.process_at_rank(r as Rank).send_with_tag(&msg[..], TAG_TASK);
                    }
                    *slot = Some(game);
                }
            }
            if running.iter().all(Option::is_none) {
                break;
            }
            // The next finished game, from rank 0's thread or from another rank.
            let (from, outcome) = if let Ok((_, result)) = done_rx.try_recv() {
                let outcome = match result {
                    Ok(row) => Outcome::Row(row, Vec::new()),
                    Err(e) => Outcome::Failed(census::census_error(e)),
                };
                (0, outcome)
            } else if let Some(probed) = world.any_process().immediate_matched_probe_with_tag(TAG_RESULT) {
                let (bytes, status) = probed.matched_receive_vec::<u8>();
                let from = status.source_rank();
                (from, read_result(&bytes, from))
            } else {
                backoff.wait();
                continue;
            };
            backoff.reset();
            let Some(game) = running.get_mut(from as usize).and_then(Option::take) else {
                failed.get_or_insert(CliError::Failure(anyhow::anyhow!(
                    "rank {from} sent a result it was not asked for"
                )));
                continue;
            };
            match outcome {
                Outcome::Row(row, values) if row.game == game && row.count == c.count => {
                    if let Some(s) = store_ref {
                        keep_piece(s, &game, &values);
                    }
                    if !args.quiet {
                        eprintln!(
                            "{} on rank {from}",
                            census::game_line(&row, c.journal.rows().len() + 1, total)
                        );
                    }
                    if failed.is_none() {
                        if let Err(e) = c.journal.record(row) {
                            failed = Some(census::census_error(e));
                        }
                    } else {
                        // A game finished after another failed: kept all the same.
                        let _ = c.journal.record(row);
                    }
                }
                Outcome::Row(row, _) => {
                    failed.get_or_insert(CliError::Failure(anyhow::anyhow!(
                        "rank {from} answered {} at {} values for {game} at {}",
                        row.game,
                        row.count,
                        c.count
                    )));
                }
                Outcome::Failed(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
        drop(task_tx);
    });
    if let Some(e) = failed {
        return Err(e);
    }
    census::write_rows(args, &c, store_ref)
}

/// A rank other than 0: runs the games rank 0 hands out until it says stop.
fn work(world: &SimpleCommunicator, args: &CensusArgs) -> i32 {
    let root = world.process_at_rank(0);
    let mut word = [0u8; 2];
    root.broadcast_into(&mut word[..]);
    if word[0] == 0 {
        // Rank 0 could not start the census (and said why): its code follows.
        return wait_stop(world);
    }
    // Parsed by rank 0 already, from the same arguments.
    let count = grundy_app::seq::parse_count(&args.count).unwrap_or(0);
    let options = census::game_options(args, count);
    // A store of this rank's own, seeded with rank 0's values of each game, so a game runs
    // exactly as on rank 0; the values it keeps go back to rank 0's store.
    let scratch = (word[1] == 1).then(|| ScratchStore::open(world.rank()));
    let mut backoff = Backoff::new();
    loop {
        if let Some((msg, _)) = root.immediate_matched_probe_with_tag(TAG_STOP) {
            let (code, _) = msg.matched_receive::<i32>();
            return code;
        }
        let Some(probed) = root.immediate_matched_probe_with_tag(TAG_TASK) else {
            backoff.wait();
            continue;
        };
        backoff.reset();
        let (bytes, _) = probed.matched_receive_vec::<u8>();
        let reply = match pieces(&bytes).as_deref() {
            Some([game, seed]) => {
                let game = String::from_utf8_lossy(game).into_owned();
                run_one(
                    &game,
                    seed,
                    &options,
                    scratch.as_ref().and_then(|s| s.store.as_ref()),
                )
            }
            _ => result_message(
                &Err(app::Error::Count(format!(
                    "rank {} received a task that does not read",
                    world.rank()
                ))),
                &[],
            ),
        };
        root.send_with_tag(&reply[..], TAG_RESULT);
    }
}

/// Runs one game on a worker: seeds the scratch store with rank 0's values, runs the game as
/// one process would, and answers the row with the values it kept (when more than the seed).
fn run_one(game: &str, seed: &[u8], options: &GameOptions, store: Option<&Store>) -> Vec<u8> {
    if let Some(s) = store {
        let _ = s.prune(|_| true);
        keep_piece(s, game, seed);
    }
    let result = app::run_game(game, options, store);
    let values = match (&result, store) {
        (Ok(_), Some(s)) => {
            let piece = seq_piece(load_seq(s, game).as_ref());
            if piece.len() > seed.len() {
                piece
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    };
    result_message(&result, &values)
}

/// A worker's own store: a file in the temporary folder, removed at the end
/// (`grundy-census-HOST-PID.redb`; the files of ranks that were killed on this host are
/// removed by the next run's ranks).
struct ScratchStore {
    path: PathBuf,
    store: Option<Store>,
}

/// This host's name (empty when it cannot be read).
fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().replace(['/', '-'], "_"))
        .unwrap_or_default()
}

/// Whether a process `pid` runs on this host.
fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

impl ScratchStore {
    fn open(rank: Rank) -> ScratchStore {
        let dir = std::env::temp_dir();
        let prefix = format!("grundy-census-{}-", host());
        // The scratch stores of ranks killed before they could remove theirs.
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let pid = name
                    .strip_prefix(&prefix)
                    .and_then(|r| r.strip_suffix(".redb"))
                    .and_then(|p| p.parse::<u32>().ok());
                if pid.is_some_and(|p| !alive(p)) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        let path = dir.join(format!("{prefix}{}.redb", std::process::id()));
        let store = match Store::open(&path, &grundy_app::store::writer()) {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!(
                    "grundy: note: rank {rank} has no scratch store ({e}): its games start from nothing and their values are not kept"
                );
                None
            }
        };
        ScratchStore { path, store }
    }
}

impl Drop for ScratchStore {
    fn drop(&mut self) {
        drop(self.store.take());
        let _ = std::fs::remove_file(&self.path);
    }
}
