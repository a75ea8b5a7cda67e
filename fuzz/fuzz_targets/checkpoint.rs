//! `grundy seq --resume FILE` on an arbitrary file: the checkpoint reader
//! (`grundy_solve::seq::checkpoint`, through the driver `grundy_app::seq::compute`) refuses
//! it or resumes from it, computes a few more values and saves them back, never panicking.
//!
//! Input: one byte of flags, then the file. Flag bit 0 repairs the file's header first (the
//! count cut to the values present, the checksum recomputed), so the mutations also reach
//! the engine resumed from arbitrary values, not only the reader's refusals; bit 1 stops at
//! a proven period; bits 2-7 are how many more values to compute, by 16. The game is the
//! one the file names (so the name matches), or 0.07 when that name is not text.
#![no_main]
use grundy_app::seq::{compute, SeqRequest};
use grundy_solve::seq::checkpoint::Checksum;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const FIXED_HEADER: usize = 36;

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[i..i + 4].try_into().unwrap())
}

/// The file's count and checksum made to match the values it holds (when its header reads).
fn repair(file: &mut [u8]) {
    if file.len() < FIXED_HEADER {
        return;
    }
    let width = u32_at(file, 12) as usize;
    let name_len = u32_at(file, 32) as usize;
    if (width != 2 && width != 4) || FIXED_HEADER + name_len > file.len() {
        return;
    }
    let data_at = FIXED_HEADER + name_len;
    let claimed = u64::from_le_bytes(file[16..24].try_into().unwrap());
    let count = claimed.min(((file.len() - data_at) / width) as u64);
    let mut sum = Checksum::default();
    for v in file[data_at..].chunks_exact(width).take(count as usize) {
        sum.add(if width == 2 {
            u16::from_le_bytes([v[0], v[1]]) as u64
        } else {
            u32::from_le_bytes([v[0], v[1], v[2], v[3]]) as u64
        });
    }
    file[16..24].copy_from_slice(&count.to_le_bytes());
    file[24..32].copy_from_slice(&sum.0.to_le_bytes());
}

/// The game named in the file's header, if it is text.
fn game_of(file: &[u8]) -> Option<String> {
    let len = u32_at(file.get(..FIXED_HEADER)?, 32) as usize;
    let name = file.get(FIXED_HEADER..FIXED_HEADER.checked_add(len)?)?;
    String::from_utf8(name.to_vec()).ok()
}

fuzz_target!(|data: &[u8]| {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    let dir = DIR.get_or_init(|| tempfile::tempdir().expect("a temporary folder"));
    let Some((&flags, file)) = data.split_first() else {
        return;
    };
    let mut file = file.to_vec();
    if flags & 1 == 1 {
        repair(&mut file);
    }
    let path = dir.path().join("seq.ckpt");
    std::fs::write(&path, &file).expect("the checkpoint written");
    let saved = file
        .get(16..24)
        .map_or(0, |c| u64::from_le_bytes(c.try_into().unwrap()));
    let count = saved.min(1 << 16) + u64::from(flags >> 2) * 16;
    let mut request = SeqRequest::new(game_of(&file).unwrap_or_else(|| "0.07".into()), count.to_string());
    request.resume = Some(path);
    request.until_period = flags & 2 == 2;
    request.threads = Some(1);
    let _ = compute(&request, None, &mut |_| {});
});
