//! `grundy solve --dense` on many ranks (feature `mpi`, docs/cluster.md): every rank runs the
//! same solve; each tier's states are split over the ranks by index range
//! ([`grundy_solve::dense::share_of`]), each rank solves its range from the lower tiers
//! (which every rank holds whole), then an `MPI_Allgatherv` of the packed records gives every
//! rank the whole tier. Rank 0 reads the position (a file, stdin), opens the store and prints;
//! its answer is the same, byte for byte, as one process's.
//!
//! Every collective call is made by every rank in the same order: a failure on one rank
//! (its share could not be allocated, a ranking error) is shared by an all-gather of each
//! rank's status before the records are exchanged, so all ranks stop together, and rank 0
//! prints the failing rank's message.

use grundy_cli::db::DbOptions;
use grundy_cli::error::CliError;
use grundy_cli::solve::{self, SolveArgs};
use grundy_solve::dense::{share_of, DenseError, TierExchange, TierSlice};
use mpi::datatype::PartitionMut;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::{CommunicatorCollectives, Equivalence, Root};
use mpi::Count;

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
            let mut exchange = MpiExchange { world: &world };
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
}

impl MpiExchange<'_> {
    /// Fills `records` (whole, this rank's elements `range(rank)` set) from the other ranks.
    fn gather<T: Equivalence + Copy>(
        &self,
        tier: u32,
        records: &mut [T],
        range: impl Fn(u32) -> (usize, usize),
        status: Result<(), DenseError>,
    ) -> Result<(), DenseError> {
        let ranks = self.world.size() as u32;
        let (a, b) = range(self.world.rank() as u32);
        // This rank's share, copied out to be sent (allocated before the statuses are shared).
        let mine = status.and_then(|()| {
            let mut v: Vec<T> = Vec::new();
            v.try_reserve_exact(b - a).map_err(|_| DenseError::Alloc {
                tier,
                bytes: ((b - a) * std::mem::size_of::<T>()) as u64,
            })?;
            v.extend_from_slice(&records[a..b]);
            Ok(v)
        });
        let status = mine.as_ref().map(|_| ()).map_err(|e| e.to_string());
        all_ok(self.world, status).map_err(DenseError::Elsewhere)?;
        let mine = mine?;
        let mut counts = Vec::with_capacity(ranks as usize);
        let mut displs = Vec::with_capacity(ranks as usize);
        for r in 0..ranks {
            let (a, b) = range(r);
            match (Count::try_from(b - a), Count::try_from(a)) {
                (Ok(c), Ok(d)) => {
                    counts.push(c);
                    displs.push(d);
                }
                // The same on every rank: all stop here together.
                _ => {
                    return Err(DenseError::Elsewhere(format!(
                        "tier {tier} has too many records for one MPI exchange (2^31 at most)"
                    )))
                }
            }
        }
        let mut part = PartitionMut::new(records, counts, displs);
        self.world.all_gather_varcount_into(&mine[..], &mut part);
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

    fn agree(&mut self, go: bool) -> bool {
        let mut word = u8::from(go);
        self.world.process_at_rank(0).broadcast_into(&mut word);
        word == 1
    }

    fn exchange(
        &mut self,
        tier: u32,
        states: u64,
        solved: Result<(), DenseError>,
        records: TierSlice<'_>,
    ) -> Result<(), DenseError> {
        let ranks = self.ranks();
        match records {
            TierSlice::Bits(words) => {
                let range = |r: u32| {
                    let (a, b) = share_of(states, r, ranks);
                    ((a / 32) as usize, b.div_ceil(32) as usize)
                };
                self.gather(tier, words, range, solved)
            }
            TierSlice::Words(words) => {
                let range = |r: u32| {
                    let (a, b) = share_of(states, r, ranks);
                    (a as usize, b as usize)
                };
                self.gather(tier, words, range, solved)
            }
        }
    }
}
