//! The persistent store as the commands see it: where it is (`--db PATH`, `GRUNDY_DB`, the
//! user's data folder; `--no-db` for none), the analyses `solve` keeps there, and
//! `grundy db list|show|verify|prune|repair`.

use crate::error::{usage, CliError};
use grundy_app::store::{self as entries, writer};
use grundy_store::{EntryInfo, Integrity, Store, StoreError};
use std::path::PathBuf;

/// Where the store is, from the global options.
#[derive(Clone, Debug, Default)]
pub struct DbOptions {
    /// `--db PATH` or `GRUNDY_DB`.
    pub db: Option<PathBuf>,
    /// `--no-db`.
    pub no_db: bool,
}

impl DbOptions {
    /// The store's path, or `None` with `--no-db` (or when no data folder is known).
    pub fn path(&self) -> Option<PathBuf> {
        if self.no_db {
            return None;
        }
        self.db.clone().or_else(grundy_store::default_path)
    }

    /// Opens the store for keeping results. A store that cannot be used (another format, a
    /// damaged or foreign file) is reported on stderr and the command goes on without it.
    pub fn open_cache(&self) -> Option<Store> {
        let path = self.path()?;
        match Store::open(&path, &writer()) {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("grundy: note: not using the store: {e}");
                None
            }
        }
    }

    /// Opens the store for `grundy db`, where failing to open it is the answer.
    fn open_required(&self) -> Result<Store, CliError> {
        let path = self.path().ok_or_else(|| {
            usage("no store: --no-db was given, or no data folder is known (give --db PATH)")
        })?;
        Store::open(&path, &writer()).map_err(store_error)
    }
}

/// A store error as a failure (exit 1), but for a path that cannot be a store (a folder, a
/// device): the user's input (exit 2).
pub fn store_error(e: StoreError) -> CliError {
    match e {
        e @ StoreError::NotAFile { .. } => CliError::Usage(e.to_string()),
        e => CliError::Failure(e.into()),
    }
}

/// Arguments of `grundy db`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "The store is --db PATH, else $GRUNDY_DB, else the user's data folder \
    (e.g. ~/.local/share/grundy/store.redb). Examples:\n  \
    grundy db list\n  \
    grundy db show 'analysis/nim/normal/-/-/-/-/3 5 7'\n  \
    grundy db show seq/0.77\n  \
    grundy db verify\n  \
    grundy db repair\n  \
    grundy db prune --stale\n  \
    grundy db prune --kind seq\n\n\
    A damaged store file (a bad disk, a file edited by hand) never stops a command: it is \
    reported and the command goes on without it. `grundy db verify` finds the damage (exit 1) \
    and `grundy db repair` copies every entry that still reads back sound into a new file, \
    keeping the damaged one beside it as store.redb.damaged-YYYYMMDDTHHMMSS.\n\n\
    Kinds of entries: analysis (one position: solve, play, serve, solve --dense), table (the \
    server's tables), seq (G(0), G(1), ... of a heap game: seq, plot), dense (every state \
    below a position: solve --dense), and pending: a dense solve not finished yet (stopped \
    or killed), whose finished tiers wait beside the store in STORE.dense-tiers/ until the \
    same command resumes it (`grundy db prune --kind pending` removes them, never those of a \
    running solve)."
)]
pub struct DbArgs {
    #[command(subcommand)]
    command: DbCommand,
}

#[derive(clap::Subcommand, Debug)]
enum DbCommand {
    /// List the entries: key, kind, size, writer; then the unfinished dense solves (kind
    /// pending): the key of their table, their finished tiers and bytes on disk.
    List {
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Show one entry: its record and its content.
    Show {
        /// The entry's key (as `list` prints it).
        key: String,
    },
    /// Check the store: redb's integrity check of every page (on a private copy: the file is
    /// not changed), then every entry read back (checksums; for sequences and dense tables
    /// also their layout and every record); exit 1 if anything is wrong.
    Verify,
    /// Copy every entry that still reads back sound into a new store file, which takes the
    /// old one's place; the old file is kept beside it as PATH.damaged-YYYYMMDDTHHMMSS
    /// (UTC). Reports the entries kept and lost. Run it while no other grundy uses the store.
    Repair {
        /// One JSON object: path, backup, kept (keys), lost (key and reason), notes.
        #[arg(long)]
        json: bool,
    },
    /// Remove entries (and blocks no entry uses): each option removes what it matches, and
    /// damaged entries always go.
    Prune {
        /// Remove every entry.
        #[arg(long)]
        all: bool,
        /// Remove entries written by another version of grundy.
        #[arg(long)]
        stale: bool,
        /// Remove the entries of this family (a heap game's sequence: its code, e.g. 0.77).
        #[arg(long, value_name = "NAME")]
        family: Option<String>,
        /// Remove the entries of this kind: analysis, table, seq, dense or pending (the
        /// finished tiers of unfinished dense solves, except those of a running solve).
        #[arg(long, value_name = "KIND")]
        kind: Option<String>,
        /// Remove entries older than this many days (0 to 213503982334601).
        #[arg(long, value_name = "DAYS", value_parser = crate::numbers::days)]
        older_than: Option<u64>,
    },
    /// Print the store's path.
    Path,
}

fn size(n: u64) -> String {
    match n {
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}

/// Runs `grundy db`.
pub fn run(args: DbArgs, opts: &DbOptions) -> Result<(), CliError> {
    if let DbCommand::Path = args.command {
        match opts.path() {
            Some(p) => println!("{}", p.display()),
            None => println!("none"),
        }
        return Ok(());
    }
    // Reading a store never creates one (nor its folder): a path with no file holds nothing.
    if let Some(path) = opts.path().filter(|p| !p.exists()) {
        return match args.command {
            DbCommand::List { json: false } => {
                println!("0 entries in {} (no store file there yet)", path.display());
                list_pending(&path, false);
                Ok(())
            }
            DbCommand::List { json: true } => {
                list_pending(&path, true);
                Ok(())
            }
            _ => Err(usage(format!(
                "no store at {}: nothing has been kept there yet",
                path.display()
            ))),
        };
    }
    if let Some(path) = opts.path() {
        Store::check_path(&path).map_err(store_error)?;
    }
    match args.command {
        DbCommand::Verify => return run_verify(opts),
        DbCommand::Repair { json } => return run_repair(opts, json),
        _ => {}
    }
    let store = opts.open_required()?;
    match args.command {
        DbCommand::Path => {}
        DbCommand::List { json } => {
            let entries = store.list().map_err(store_error)?;
            for e in &entries {
                if json {
                    println!("{}", serde_json::to_string(e).unwrap_or_default());
                } else {
                    let stale = if e.writer == writer() {
                        ""
                    } else {
                        " (other version)"
                    };
                    println!(
                        "{}\t{}\t{} ({} stored)\t{}{stale}",
                        e.key,
                        e.kind,
                        size(e.bytes),
                        size(e.stored),
                        e.summary
                    );
                }
            }
            if !json {
                println!("{} entries in {}", entries.len(), store.path().display());
            }
            list_pending(store.path(), json);
        }
        DbCommand::Show { key } => {
            let Some((info, bytes)) = store.get(&key).map_err(store_error)? else {
                return Err(usage(format!(
                    "no entry '{key}' in the store (see grundy db list)"
                )));
            };
            print_info(&info);
            if let Some(lines) = entries::describe(&info, bytes.clone()) {
                for l in lines {
                    println!("{l}");
                }
            } else if info.kind == "table" {
                let values: Vec<String> = bytes
                    .chunks_exact(8)
                    .map(|c| {
                        let v = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
                        if v == grundy_store::NONE {
                            "-".to_string()
                        } else {
                            v.to_string()
                        }
                    })
                    .take(1000)
                    .collect();
                println!("values:   {}", values.join(" "));
            } else {
                println!("content:  {}", String::from_utf8_lossy(&bytes));
            }
        }
        DbCommand::Verify | DbCommand::Repair { .. } => {}
        DbCommand::Prune {
            all,
            stale,
            family,
            kind,
            older_than,
        } => {
            if !all && !stale && family.is_none() && kind.is_none() && older_than.is_none() {
                return Err(usage(
                    "say what to prune: --all, --stale, --family NAME, --kind KIND or --older-than DAYS",
                ));
            }
            if let Some(k) = kind.as_deref().filter(|k| !KINDS.contains(k)) {
                return Err(usage(format!("unknown kind '{k}' (known: {})", KINDS.join(", "))));
            }
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            let me = writer();
            // Damaged entries go whatever the filter: they cannot be read.
            let damaged: Vec<String> = verify(&store)?
                .problems
                .iter()
                .filter_map(|p| p.split('\'').nth(1).map(str::to_string))
                .collect();
            // Each option removes what it matches.
            let removed = store
                .prune(|e| {
                    all || (stale && e.writer != me)
                        || family.as_deref().is_some_and(|f| f == e.family)
                        || kind.as_deref().is_some_and(|k| k == e.kind)
                        || older_than
                            .is_some_and(|d| now.saturating_sub(e.created) > d.saturating_mul(86_400))
                        || damaged.contains(&e.key)
                })
                .map_err(store_error)?;
            println!("removed {removed} entries from {}", store.path().display());
            // The unfinished dense solves beside the store: all, by kind, family or age.
            let pending: Vec<_> = entries::list_pending(store.path())
                .into_iter()
                .filter(|p| {
                    all || kind.as_deref() == Some(entries::KIND_PENDING)
                        || family.as_deref().is_some_and(|f| f == p.family)
                        || older_than
                            .is_some_and(|d| now.saturating_sub(p.modified) > d.saturating_mul(86_400))
                })
                .collect();
            if !pending.is_empty() {
                let mut gone = 0;
                for p in &pending {
                    match entries::remove_pending(p) {
                        Ok(()) => gone += 1,
                        Err(m) => eprintln!("grundy: kept the pending solve {}: {m}", p.name),
                    }
                }
                println!(
                    "removed {gone} of {} pending dense solves from {}",
                    pending.len(),
                    entries::pending_root(store.path()).display()
                );
            }
        }
    }
    Ok(())
}

/// `grundy db verify` of the existing store: redb's integrity check, then every entry.
fn run_verify(opts: &DbOptions) -> Result<(), CliError> {
    let path = opts
        .path()
        .ok_or_else(|| usage("no store: --no-db was given, or no data folder is known (give --db PATH)"))?;
    let mut problems = Vec::new();
    let mut damaged = false;
    match grundy_store::check_integrity(&path).map_err(store_error)? {
        Integrity::Sound => println!("integrity: sound (redb's check of every page)"),
        Integrity::Repairable => {
            println!("integrity: sound; redb will finish an interrupted commit the next time it writes")
        }
        Integrity::Damaged(what) => {
            println!("integrity: damaged (redb's check of every page)");
            problems.push(format!("the file is damaged: {what}"));
            damaged = true;
        }
    }
    let mut counts = (0, 0, 0);
    // A snapshot: verify never changes the file, even to recover it after a crash.
    let checked = Store::open_snapshot(&path, &writer())
        .map_err(store_error)
        .and_then(|store| verify(&store).map(|r| (store, r)));
    match checked {
        Ok((_, r)) => {
            counts = (r.entries, r.blocks, r.orphan_blocks);
            problems.extend(r.problems);
        }
        Err(CliError::Failure(e)) => match e.downcast::<StoreError>() {
            Ok(StoreError::Damaged { message, .. }) => {
                if !damaged {
                    problems.push(format!("the file is damaged: {message}"));
                }
                damaged = true;
            }
            // A file that does not even open is damaged, as the check above found.
            Ok(e) if damaged => problems.push(e.to_string()),
            Ok(e) => return Err(store_error(e)),
            Err(e) => return Err(CliError::Failure(e)),
        },
        Err(e) => return Err(e),
    }
    println!(
        "{}: {} entries, {} blocks, {} orphan blocks, {} problems",
        path.display(),
        counts.0,
        counts.1,
        counts.2,
        problems.len()
    );
    for p in &problems {
        println!("problem: {p}");
    }
    if damaged {
        return Err(CliError::Failure(anyhow::anyhow!(
            "the store {} is damaged: `grundy db repair` copies every entry that can still be read into a new file",
            path.display()
        )));
    }
    if !problems.is_empty() {
        return Err(CliError::Failure(anyhow::anyhow!(
            "the store has {} damaged entries (grundy db prune removes what cannot be read; grundy db repair keeps the rest in a new file)",
            problems.len()
        )));
    }
    Ok(())
}

/// `grundy db repair` of the existing store.
fn run_repair(opts: &DbOptions, json: bool) -> Result<(), CliError> {
    let path = opts
        .path()
        .ok_or_else(|| usage("no store: --no-db was given, or no data folder is known (give --db PATH)"))?;
    let r = grundy_store::repair(&path, &writer()).map_err(store_error)?;
    if json {
        println!("{}", serde_json::to_string(&r).unwrap_or_default());
        return Ok(());
    }
    for k in &r.kept {
        println!("kept: {k}");
    }
    for l in &r.lost {
        println!("lost: {} ({})", l.key, l.reason);
    }
    for n in &r.notes {
        println!("note: {n}");
    }
    println!(
        "repaired {}: {} entries kept, {} lost; the file as it was is {}",
        r.path.display(),
        r.kept.len(),
        r.lost.len(),
        r.backup.display()
    );
    Ok(())
}

/// The kinds of entries (`pending`: the unfinished dense solves beside the store).
const KINDS: [&str; 5] = [
    "analysis",
    "table",
    entries::KIND_SEQ,
    entries::KIND_DENSE,
    entries::KIND_PENDING,
];

/// Prints the unfinished dense solves beside the store `path` (kind `pending`): as
/// `db list` lines (key, kind, bytes on disk, finished tiers and folder), or one JSON object
/// each.
fn list_pending(path: &std::path::Path, json: bool) {
    let pending = entries::list_pending(path);
    for p in &pending {
        if json {
            let mut v = serde_json::to_value(p).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                o.insert("kind".into(), entries::KIND_PENDING.into());
            }
            println!("{v}");
        } else {
            let in_use = p
                .in_use
                .as_deref()
                .map(|r| format!(" (in use by {r})"))
                .unwrap_or_default();
            println!(
                "{}\t{}\t{} on disk\t{} finished tiers in {}{in_use}",
                p.key.as_deref().unwrap_or(&p.name),
                entries::KIND_PENDING,
                size(p.bytes),
                p.tiers,
                p.path.display()
            );
        }
    }
    if !json && !pending.is_empty() {
        println!(
            "{} pending dense solves in {} (the same solve resumes; grundy db prune --kind pending removes them)",
            pending.len(),
            entries::pending_root(path).display()
        );
    }
}

/// The store's own checks (checksums, orphans), then the content of sequences and dense
/// tables: a problem is one line naming the damaged entry between quotes.
fn verify(store: &Store) -> Result<grundy_store::VerifyReport, CliError> {
    let mut r = store.verify().map_err(store_error)?;
    let mut extra = Vec::new();
    for info in store.list().map_err(store_error)? {
        if ![entries::KIND_SEQ, entries::KIND_DENSE].contains(&info.kind.as_str())
            || r.problems.iter().any(|p| p.contains(&format!("'{}'", info.key)))
        {
            continue;
        }
        // A read error here was already reported by the store's checks.
        if let Ok(Some((info, bytes))) = store.get(&info.key) {
            if let Err(what) = entries::check(&info, bytes) {
                extra.push(
                    StoreError::Corrupt {
                        key: info.key.clone(),
                        what,
                    }
                    .to_string(),
                );
            }
        }
    }
    r.problems.extend(extra);
    Ok(r)
}

fn print_info(info: &EntryInfo) {
    println!("key:      {}", info.key);
    println!("kind:     {}", info.kind);
    println!("family:   {}", info.family);
    println!("summary:  {}", info.summary);
    println!("writer:   {}", info.writer);
    println!("created:  {} (seconds since 1970)", info.created);
    println!(
        "size:     {} ({} stored in {} blocks)",
        size(info.bytes),
        size(info.stored),
        info.blocks
    );
}
