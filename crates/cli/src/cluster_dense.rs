//! `grundy solve --dense` on many ranks (feature `mpi`, docs/cluster.md): every rank runs the
//! same solve; each tier's states are dealt to the ranks in blocks
//! ([`grundy_solve::dense::Shares`]), each rank solves its blocks from the lower tiers
//! (which every rank holds whole), then `MPI_Allgatherv`s of the packed records, one per
//! round of blocks (so no count exceeds 2^31), give every rank the whole tier. Rank 0 reads
//! the position (a file, stdin), opens the store and the folder of finished tiers
//! (`--checkpoint DIR`, or by default the store's folder, whose path it sends the others),
//! and prints; its answer is the same, byte for byte, as one process's.
//! On a resume, rank 0 reads back the finished tiers the others need and broadcasts them.
//!
//! Every collective call is made by every rank in the same order: a failure on one rank
//! (its share could not be allocated, a ranking error) is shared by an all-gather of each
//! rank's status before the records are exchanged, so all ranks stop together, and rank 0
//! prints the failing rank's message.

use grundy_cli::db::DbOptions;
use grundy_cli::error::CliError;
use grundy_cli::solve::{self, SolveArgs};
use grundy_solve::dense::{DenseError, TierExchange, TierSlice, TierView, DEFAULT_ROUND_STATES};
use mpi::datatype::PartitionMut;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::{CommunicatorCollectives, Equivalence, Root};
use mpi::Count;
use std::path::{Path, PathBuf};

/// `grundy solve --dense` on every rank of the run. The exit code is rank 0's, on every rank;
/// only rank 0 prints.
pub fn solve(mut args: SolveArgs, db: &DbOptions) -> i32 {
    let world = SimpleCommunicator::world();
    let rank = world.rank();
    (args.family, args.position) = solve::family_and_words(&args.family, &args.position, &args.game);
    // Only rank 0 reads the position (its file, or stdin); the others get its text.
    let text = if rank == 0 {
        solve::read_position(&args.family, &args.position, args.file.as_ref())
    } else {
        Ok(String::new())
    };
    let text = share_text(&world, text);
    let opts = args.game.options(Some(grundy_app::solve::heap_values));
    let setup = match (text, opts) {
        (Ok(t), Ok(o)) => Ok((t, o)),
        (Err(e), _) | (_, Err(e)) => Err(e),
    };
    let ready = all_ok(&world, setup.as_ref().map(|_| ()).map_err(|e| e.to_string()));
    let mut code = match (setup, ready) {
        (Ok((text, opts)), Ok(())) => {
            let mut exchange = MpiExchange {
                world: &world,
                block: round_states(&world),
                folder: None,
            };
            let result = grundy_cli::dense::run_split(&args, &opts, &text, db, Some(&mut exchange));
            match result {
                Err(e) if rank == 0 => {
                    eprintln!("grundy: {e}");
                    e.exit_code()
                }
                Err(_) => 1,
                Ok(()) => 0,
            }
        }
        (Err(e), _) if rank == 0 => {
            eprintln!("grundy: {e}");
            e.exit_code()
        }
        (_, Err(m)) => {
            if rank == 0 {
                eprintln!("grundy: {m}");
            }
            2
        }
        (Err(_), Ok(())) => 2,
    };
    world.process_at_rank(0).broadcast_into(&mut code);
    code
}

/// Rank 0's position text (or its failure) on every rank.
fn share_text(world: &SimpleCommunicator, text: Result<String, CliError>) -> Result<String, CliError> {
    let root = world.process_at_rank(0);
    let mut len: i64 = match &text {
        Ok(t) => t.len() as i64,
        Err(_) => -1,
    };
    root.broadcast_into(&mut len);
    if world.rank() == 0 {
        // (An empty text is not sent: MPI refuses an empty buffer's dangling pointer.)
        if let Some(t) = text.as_ref().ok().filter(|t| !t.is_empty()) {
            let mut bytes = t.clone().into_bytes();
            root.broadcast_into(&mut bytes[..]);
        }
        return text;
    }
    let Ok(len) = usize::try_from(len) else {
        return Err(CliError::Usage("rank 0 could not read the position".into()));
    };
    let mut bytes = vec![0u8; len];
    if len > 0 {
        root.broadcast_into(&mut bytes[..]);
    }
    String::from_utf8(bytes).map_err(|_| CliError::Usage("the position is not UTF-8".into()))
}

/// Every rank's status, on every rank: `Ok` when all are, otherwise the first failing
/// rank's message, naming it.
fn all_ok(world: &SimpleCommunicator, status: Result<(), String>) -> Result<(), String> {
    let size = world.size() as usize;
    let failed = u8::from(status.is_err());
    let mut all = vec![0u8; size];
    world.all_gather_into(&failed, &mut all[..]);
    let Some(first) = all.iter().position(|&f| f != 0) else {
        return Ok(());
    };
    let mut msg = status.err().unwrap_or_default().into_bytes();
    msg.truncate(4096);
    let len = msg.len() as Count;
    let mut lens: Vec<Count> = vec![0; size];
    world.all_gather_into(&len, &mut lens[..]);
    let displs: Vec<Count> = lens
        .iter()
        .scan(0, |at, &l| {
            let d = *at;
            *at += l;
            Some(d)
        })
        .collect();
    let total = lens.iter().sum::<Count>() as usize;
    let mut buf = vec![0u8; total];
    let (d, l) = (displs[first] as usize, lens[first] as usize);
    {
        let mut part = PartitionMut::new(&mut buf[..], lens, displs);
        world.all_gather_varcount_into(&msg[..], &mut part);
    }
    Err(format!(
        "rank {first} of {size}: {}",
        String::from_utf8_lossy(&buf[d..d + l])
    ))
}

/// The tier exchange of a dense solve over the ranks of `world`.
struct MpiExchange<'w> {
    world: &'w SimpleCommunicator,
    /// The most states a rank sends in one round (the same on every rank: rank 0's).
    block: u64,
    /// The folder of finished tiers, when every rank sees rank 0's (each writes its share).
    folder: Option<PathBuf>,
}

/// The most states a rank sends in one round: [`DEFAULT_ROUND_STATES`], or
/// `GRUNDY_DENSE_ROUND_STATES` from the environment (for tests: small rounds), capped so that
/// a round of every rank's records fits MPI's 32-bit counts and displacements.
fn round_states(world: &SimpleCommunicator) -> u64 {
    let mut asked: u64 = std::env::var("GRUNDY_DENSE_ROUND_STATES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .filter(|&v| v > 0)
        .unwrap_or(DEFAULT_ROUND_STATES);
    world.process_at_rank(0).broadcast_into(&mut asked);
    let cap = (Count::MAX as u64) / (world.size().max(1) as u64);
    asked.min(cap).max(32)
}

/// `n` as an MPI count (the solver keeps rounds within them; checked all the same).
fn count(n: usize) -> Result<Count, DenseError> {
    Count::try_from(n).map_err(|_| DenseError::Elsewhere(format!("{n} records in one MPI message")))
}

impl MpiExchange<'_> {
    fn gather_typed<T: Equivalence + Copy>(
        &self,
        mine: &[T],
        round: &mut [T],
        counts: &[usize],
    ) -> Result<(), DenseError> {
        let mut c = Vec::with_capacity(counts.len());
        let mut d = Vec::with_capacity(counts.len());
        let mut at = 0usize;
        for &n in counts {
            c.push(count(n)?);
            d.push(count(at)?);
            at += n;
        }
        let mut part = PartitionMut::new(round, c, d);
        self.world.all_gather_varcount_into(mine, &mut part);
        Ok(())
    }
}

impl TierExchange for MpiExchange<'_> {
    fn rank(&self) -> u32 {
        self.world.rank() as u32
    }

    fn ranks(&self) -> u32 {
        self.world.size() as u32
    }

    fn max_block(&self) -> u64 {
        self.block
    }

    fn agree(&mut self, go: bool) -> bool {
        let mut word = u8::from(go);
        self.world.process_at_rank(0).broadcast_into(&mut word);
        word == 1
    }

    fn share_value(&mut self, value: u64) -> u64 {
        let mut v = value;
        self.world.process_at_rank(0).broadcast_into(&mut v);
        v
    }

    fn share_bytes(&mut self, bytes: &[u8]) -> Vec<u8> {
        let root = self.world.process_at_rank(0);
        let mut len = bytes.len() as u64;
        root.broadcast_into(&mut len);
        let mut buf = if self.world.rank() == 0 {
            bytes.to_vec()
        } else {
            vec![0u8; usize::try_from(len).unwrap_or(0)]
        };
        // (An empty buffer is not sent: MPI refuses an empty buffer's dangling pointer.)
        if len > 0 {
            root.broadcast_into(&mut buf[..]);
        }
        buf
    }

    fn status(&mut self, status: Result<(), DenseError>) -> Result<(), DenseError> {
        all_ok(self.world, status.map_err(|e| e.to_string())).map_err(DenseError::Elsewhere)
    }

    fn gather(
        &mut self,
        _tier: u32,
        _at: usize,
        mine: TierView<'_>,
        round: TierSlice<'_>,
        counts: &[usize],
    ) -> Result<(), DenseError> {
        match (mine, round) {
            (TierView::Bits(m), TierSlice::Bits(r)) => self.gather_typed(m, r, counts),
            (TierView::Words(m), TierSlice::Words(r)) => self.gather_typed(m, r, counts),
            _ => Err(DenseError::Elsewhere(
                "records of two kinds in one exchange".into(),
            )),
        }
    }

    fn tier_folder(&self) -> Option<&Path> {
        self.folder.as_deref()
    }

    fn use_tier_folder(&mut self, dir: &Path) {
        self.folder = Some(dir.to_path_buf());
    }

    fn broadcast(&mut self, _tier: u32, _at: usize, records: TierSlice<'_>) -> Result<(), DenseError> {
        let root = self.world.process_at_rank(0);
        match records {
            TierSlice::Bits(w) if !w.is_empty() => {
                count(w.len())?;
                root.broadcast_into(w);
            }
            TierSlice::Words(w) if !w.is_empty() => {
                count(w.len())?;
                root.broadcast_into(w);
            }
            _ => {}
        }
        Ok(())
    }
}
