//! The payloads kept in the store, on arbitrary bytes without the database around them:
//! a kept sequence (`decode_seq`), a dense table (`decode_table`), a kept analysis or dense
//! answer (JSON), and `check`/`describe` as `grundy db verify` and `show` run them. Many
//! more inputs a second than the `store` target, which must open a database each time.
#![no_main]
use grundy_app::store as entries;
use grundy_store::EntryInfo;
use libfuzzer_sys::fuzz_target;

fn info(kind: &str, key: &str) -> EntryInfo {
    EntryInfo {
        key: key.to_string(),
        kind: kind.to_string(),
        family: "fuzz".to_string(),
        summary: String::new(),
        writer: entries::writer(),
        created: 0,
        bytes: 0,
        stored: 0,
        blocks: 0,
        checksums: Vec::new(),
    }
}

fuzz_target!(|data: &[u8]| {
    let _ = entries::decode_seq(data.to_vec());
    let _ = entries::decode_table(data);
    let _ = serde_json::from_slice::<grundy_app::solve::SolveResponse>(data);
    let _ = serde_json::from_slice::<entries::DenseAnswer>(data);
    for (kind, key) in [
        ("seq", "seq/0.77"),
        ("dense", "dense/fuzz"),
        ("table", "table/fuzz/8"),
    ] {
        let _ = entries::check(&info(kind, key), data.to_vec());
        let _ = entries::describe(&info(kind, key), data.to_vec());
    }
});
