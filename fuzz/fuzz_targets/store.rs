//! The store file on arbitrary bytes: `grundy_store::Store` opens it or refuses it, and an
//! opened store lists, loads and checks every entry (the loaders of `grundy_app::store`,
//! then `grundy db list --json`, `verify` and `prune --stale` of the command line), never
//! panicking.
//!
//! A redb file is large (the seeds are a few pages long) and every run opens a database,
//! so this target runs far fewer inputs a second than the parsers' ones.
#![no_main]
use clap::Parser;
use grundy_app::store as entries;
use grundy_cli::db::{DbArgs, DbOptions};
use grundy_store::Store;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

#[derive(Parser, Debug)]
#[command(name = "db")]
struct Db {
    #[command(flatten)]
    args: DbArgs,
}

fuzz_target!(|data: &[u8]| {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    let dir = DIR.get_or_init(|| tempfile::tempdir().expect("a temporary folder"));
    let path = dir.path().join("store.redb");
    std::fs::write(&path, data).expect("the store written");
    {
        let Ok(store) = Store::open(&path, &entries::writer()) else {
            return;
        };
        let Ok(list) = store.list() else {
            return;
        };
        for info in list {
            let _ = store.info(&info.key);
            if let Ok(Some((info, bytes))) = store.get(&info.key) {
                let _ = entries::check(&info, bytes.clone());
                let _ = entries::describe(&info, bytes.clone());
                let _ = entries::decode_table(&bytes);
            }
            let _ = store.get_values(&info.key);
            let _ = entries::load_analysis(&store, &info.key);
            let _ = entries::load_answer(&store, &info.key);
            let _ = entries::load_seq(&store, &info.family);
            let _ = entries::load_table_values(&store, &info.key, (info.bytes / 8) as usize);
        }
        let _ = store.verify();
    }
    let db = DbOptions {
        db: Some(path),
        no_db: false,
    };
    for command in [&["list", "--json"][..], &["verify"], &["prune", "--stale"]] {
        if let Ok(cmd) = Db::try_parse_from(std::iter::once("db").chain(command.iter().copied())) {
            let _ = grundy_cli::db::run(cmd.args, &db);
        }
    }
});
