//! A compact hash table from 64-bit codes to the words a search keeps for them, for
//! components that [`Ruleset::code`](grundy_core::Ruleset::code) packs into one word.
//!
//! A word ([`Word`]) holds a Grundy value in its low 24 bits (or [`UNKNOWN`], or
//! [`ELSEWHERE`] when the caller keeps it elsewhere), the weight of the work it took in the
//! next 8 ([`WEIGHT`]), and 32 bits of "won" answers above. The table stores words in one of
//! two layouts, both in cache-line buckets:
//! - **narrow** (while the widest code, less the bucket bits, leaves 16 bits of a slot for
//!   the word: 58 bits at 64 KiB, one more at each doubling): eight 8-byte
//!   slots to a bucket. The code is mixed one-to-one within its bits; the top bits of the mix
//!   pick the bucket and the rest are kept in the slot beside a short form of the word (a
//!   value below [`NARROW_VALUES`], the weight in 5 bits, as many "won" bits as fit). Twice
//!   the entries of the wide layout in the same memory;
//! - **wide**: four 16-byte slots of (code, word) to a bucket, while the codes are too wide
//!   for a narrow slot at the table's size; a wide table turns narrow in place once it has
//!   grown enough ([`CodeTable::narrow_in_place`]), and each doubling of a narrow table gives
//!   its slots one more "won" bit.
//!
//! The table forgets: a lost word, or a part of one the narrow form cannot hold, only costs
//! the search its work again; [`CodeTable::value_limit`] and [`CodeTable::won_bits`] say
//! what it keeps, so that the caller can keep the rest elsewhere.

/// What a search knows of one component (see the module's documentation).
pub(crate) type Word = u64;
/// The low 24 bits of a [`Word`] when the value is not known.
pub(crate) const UNKNOWN: u64 = 0x00FF_FFFF;
/// The low 24 bits of a [`Word`] when the value is kept elsewhere.
pub(crate) const ELSEWHERE: u64 = 0x00FF_FFFE;
/// Bits 24 to 31 of a [`Word`]: how much work its answers took (log2 of search nodes).
pub(crate) const WEIGHT: u64 = 0xFF00_0000;
/// Nothing known.
pub(crate) const NOTHING: Word = UNKNOWN;
/// A word's "won" bits: bit `32 + n` for `n` below this.
pub(crate) const WON_BITS: u32 = 32;
/// Values below this fit a narrow slot.
pub(crate) const NARROW_VALUES: u64 = 253;

/// Codes to words.
///
/// A code lives in the bucket its hash picks. When that bucket is full, the new word takes
/// the place of the one there least worth keeping (by a measure the caller gives). Below
/// [`FREE_BYTES`] the table doubles at the first full bucket; past it, once it has pushed
/// out [`GROW_AFTER`] words per slot since it last grew, so it settles where most of what
/// the search asks again is still there: on Cram 4×11, 8 MiB instead of the 256 MiB a
/// table keeping everything takes, and faster, its words staying in cache.
pub(crate) struct CodeTable {
    lines: Vec<Line>,
    /// log2 of the number of buckets.
    bits: u32,
    layout: Layout,
    len: usize,
    /// The table never grows past this many buckets.
    max_lines: usize,
    /// Words pushed out since the table last grew.
    evicted: usize,
    /// Below this many bytes the table doubles at the first full bucket.
    free_bytes: usize,
    /// Bits of the widest code stored so far: a wide table turns narrow when it has grown
    /// enough for codes this wide ([`CodeTable::should_narrow`]).
    widest: u32,
}

/// One bucket: a cache line, so that a lookup touches one line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u64; 8]);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// Four (code, word) pairs to a bucket; the code `u64::MAX` marks an empty slot.
    Wide,
    /// Eight slots to a bucket, each `rest << (64 - tag) | short word`, for codes of at
    /// most `width` bits: `rest` is the low `tag` bits of the code's mix, the bucket its top
    /// bits. A slot whose short value field is 0 is empty.
    Narrow { width: u32, tag: u32 },
}

const EMPTY_CODE: u64 = u64::MAX;
const WIDE_EMPTY: Line = Line([EMPTY_CODE, 0, EMPTY_CODE, 0, EMPTY_CODE, 0, EMPTY_CODE, 0]);
const NARROW_EMPTY: Line = Line([0; 8]);
const START_BYTES: usize = 64 << 10;
/// Below this many bytes the table doubles at the first full bucket: what small tables
/// push out costs more to work out again than the memory saved.
const FREE_BYTES: usize = 256 << 10;
/// Past [`FREE_BYTES`], the table doubles once it has pushed out this many words per slot
/// since it last grew, or [`GROW_AFTER_SMALL`] while it is under [`SMALL_BYTES`].
const GROW_AFTER: usize = 4;
/// See [`GROW_AFTER`]: a table of 256 KiB holds what a search of about a million nodes
/// (Cram 5×7) asks again, and doubling it there buys that search only 15% of its time.
const GROW_AFTER_SMALL: usize = 16;
/// See [`GROW_AFTER`].
const SMALL_BYTES: usize = 512 << 10;
/// Codes are taken to have at least this many bits (fewer rebuilds while they widen).
const MIN_WIDTH: u32 = 24;
/// A narrow slot keeps at least this many bits of the word: 8 of value, 5 of weight, 3 of
/// "won" answers.
const MIN_SHORT: u32 = 16;
/// A wide table turns narrow once a narrow slot would keep at least this many "won" bits:
/// a table that met a wide code while it was small (a code of 59 bits or more at 64 KiB)
/// took the wide layout, half the words in the same bytes, and would keep it for ever.
const NARROW_AGAIN_WON: u32 = 10;
const MIX1: u64 = 0xD6E8_FEB8_6659_FD93;
const MIX2: u64 = 0x9E37_79B9_7F4A_7C15;

/// The low `n` bits set (`n` ≤ 64).
#[inline]
fn low(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1 << n) - 1
    }
}

/// The inverse of an odd number modulo 2^64 (Newton's iteration).
const fn inverse(a: u64) -> u64 {
    let mut x = a;
    let mut i = 0;
    while i < 6 {
        x = x.wrapping_mul(2u64.wrapping_sub(a.wrapping_mul(x)));
        i += 1;
    }
    x
}

/// A one-to-one mix of the `width`-bit numbers among themselves.
#[inline]
fn mix(code: u64, width: u32) -> u64 {
    let m = low(width);
    let mut h = code.wrapping_mul(MIX1) & m;
    h ^= h >> (width / 2);
    h.wrapping_mul(MIX2) & m
}

/// The code whose [`mix`] is `h`.
fn unmix(h: u64, width: u32) -> u64 {
    let m = low(width);
    let y = h.wrapping_mul(inverse(MIX2)) & m;
    // Undo y = x ^ x >> s by fixed point: each round fixes s more of the top bits.
    let s = width / 2;
    let mut x = y;
    for _ in 0..width.div_ceil(s) {
        x = y ^ x >> s;
    }
    x.wrapping_mul(inverse(MIX1)) & m
}

/// The short form of `w` in `short` bits (what it cannot hold is forgotten).
#[inline]
fn shorten(w: Word, short: u32) -> u64 {
    let field = match w & UNKNOWN {
        UNKNOWN => 1,
        ELSEWHERE => 2,
        v if v < NARROW_VALUES => v + 3,
        _ => 1,
    };
    let weight = ((w & WEIGHT) >> 24).min(31);
    let won = (w >> 32) & low(short - 13);
    field | weight << 8 | won << 13
}

/// The word of the short form `s` (of `short` bits, nonzero value field).
#[inline]
fn lengthen(s: u64, short: u32) -> Word {
    let value = match s & 0xFF {
        1 => UNKNOWN,
        2 => ELSEWHERE,
        f => f - 3,
    };
    value | (s >> 8 & 31) << 24 | (s & low(short)) >> 13 << 32
}

/// Whether a table of `bytes` may double: while it grows, the old and the new slots are
/// both held, and the process must stay within half its memory budget
/// ([`grundy_core::memory::budget_or_default`]), the other half left to the rest of the
/// search, a checkpoint being loaded, and the other threads' tables. Past that the table
/// keeps its size and forgets its least valuable words, so a long search runs on within its
/// memory rather than stopping at it.
pub(crate) fn doubling_fits(bytes: usize) -> bool {
    let budget = grundy_core::memory::budget_or_default();
    let in_use = grundy_core::memory::in_use() as u64;
    in_use.saturating_add(2 * bytes as u64) <= budget / 2
}

/// Bits of a narrow slot left for the short word, for codes of `width` bits in `2^bits`
/// buckets (the rest of the slot keeps the code's mix below the bucket bits); `None` when
/// there are buckets enough for nearly every code of the width (a narrow table never grows
/// past that).
fn narrow_short(width: u32, bits: u32) -> Option<u32> {
    (bits + 3 < width).then(|| 64 - (width - bits))
}

/// Calls `f` with every (code, word) in `lines`, buckets of the layout `layout`, `2^bits` of
/// them.
fn each_entry(lines: &[Line], layout: Layout, bits: u32, mut f: impl FnMut(u64, Word)) {
    for (b, line) in lines.iter().enumerate() {
        match layout {
            Layout::Wide => {
                for pair in line.0.chunks_exact(2) {
                    if pair[0] != EMPTY_CODE {
                        f(pair[0], pair[1]);
                    }
                }
            }
            Layout::Narrow { width, tag } => {
                for &s in &line.0 {
                    if s & 0xFF != 0 {
                        let rest = s >> (64 - tag);
                        let h = (b as u64) << (width - bits) | rest & low(width - bits);
                        f(unmix(h, width), lengthen(s, 64 - tag));
                    }
                }
            }
        }
    }
}

impl CodeTable {
    /// A table that grows as it needs, up to half the memory budget
    /// ([`doubling_fits`]), without another bound.
    pub(crate) fn new() -> CodeTable {
        CodeTable::with_max_bytes(usize::MAX)
    }

    /// A table that never takes more than `max` bytes (at least two buckets: 128 bytes).
    pub(crate) fn with_max_bytes(max: usize) -> CodeTable {
        let fit = (max / std::mem::size_of::<Line>()).max(2);
        let max_lines = if fit.is_power_of_two() {
            fit
        } else {
            fit.next_power_of_two() / 2
        };
        let lines = (START_BYTES / std::mem::size_of::<Line>()).min(max_lines);
        let bits = lines.trailing_zeros();
        CodeTable {
            lines: vec![NARROW_EMPTY; lines],
            bits,
            layout: Layout::Narrow {
                width: MIN_WIDTH,
                tag: MIN_WIDTH - bits,
            },
            len: 0,
            max_lines,
            evicted: 0,
            free_bytes: FREE_BYTES,
            widest: MIN_WIDTH,
        }
    }

    /// Lets the table double at the first full bucket until it takes `bytes` (the default
    /// is [`FREE_BYTES`]), for searches that will ask much and would rather spend memory.
    pub(crate) fn grow_freely_to(&mut self, bytes: usize) {
        self.free_bytes = bytes;
    }

    /// Codes stored.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Bytes the slots take.
    pub(crate) fn bytes(&self) -> usize {
        self.lines.len() * std::mem::size_of::<Line>()
    }

    /// Values below this are kept in the words; the caller keeps larger ones elsewhere
    /// (marking them [`ELSEWHERE`]).
    #[inline]
    pub(crate) fn value_limit(&self) -> u64 {
        match self.layout {
            Layout::Wide => ELSEWHERE,
            Layout::Narrow { .. } => NARROW_VALUES,
        }
    }

    /// "Won" bits `32 + n` of a word are kept for `n` below this (it goes down when codes get
    /// wider, up when a narrow table doubles).
    #[inline]
    pub(crate) fn won_bits(&self) -> u32 {
        match self.layout {
            Layout::Wide => WON_BITS,
            Layout::Narrow { tag, .. } => (64 - tag - 13).min(WON_BITS),
        }
    }

    /// Slots in a bucket.
    #[inline]
    fn ways(&self) -> usize {
        match self.layout {
            Layout::Wide => 4,
            Layout::Narrow { .. } => 8,
        }
    }

    /// Where `code` goes: its bucket, and for the narrow layout what is kept in the slot
    /// (the rest of its mix, in place, with the low bits clear).
    #[inline]
    fn place(&self, code: u64) -> (usize, u64) {
        match self.layout {
            Layout::Wide => {
                // Two rounds of multiply and fold: a good spread of the top bits whatever
                // the codes look like (one round left structured codes crowding some buckets).
                let mut h = (code ^ (code >> 32)).wrapping_mul(MIX1);
                h = (h ^ (h >> 32)).wrapping_mul(MIX1);
                ((h >> (64 - self.bits)) as usize, code)
            }
            Layout::Narrow { width, tag } => {
                let h = mix(code, width);
                ((h >> (width - self.bits)) as usize, (h & low(tag)) << (64 - tag))
            }
        }
    }

    /// The word stored for `code`.
    #[inline]
    pub(crate) fn get(&self, code: u64) -> Option<Word> {
        debug_assert_ne!(code, EMPTY_CODE);
        match self.layout {
            Layout::Wide => {
                let (b, _) = self.place(code);
                let line = &self.lines[b].0;
                (0..4).find(|&i| line[2 * i] == code).map(|i| line[2 * i + 1])
            }
            Layout::Narrow { width, tag } => {
                if code > low(width) {
                    return None;
                }
                let (b, rest) = self.place(code);
                let short = 64 - tag;
                self.lines[b]
                    .0
                    .iter()
                    .find(|&&s| (s ^ rest) >> short == 0 && s & 0xFF != 0)
                    .map(|&s| lengthen(s, short))
            }
        }
    }

    /// Changes the word of `code` by `f` (starting from [`NOTHING`] when there is none, and
    /// pushing out another word when its bucket is full and the table may not grow).
    /// What the table cannot hold of the new word is forgotten (see [`CodeTable::won_bits`]).
    pub(crate) fn update<T>(
        &mut self,
        code: u64,
        worth: impl Fn(Word) -> u64,
        f: impl FnOnce(&mut Word) -> T,
    ) -> T {
        debug_assert_ne!(code, EMPTY_CODE);
        if let Layout::Narrow { width, .. } = self.layout {
            if code > low(width) {
                self.widen(64 - code.leading_zeros());
            }
        }
        let (mut b, mut rest) = self.place(code);
        match self.find(b, rest, code) {
            Ok(i) => {
                let mut w = self.word_at(b, i);
                let out = f(&mut w);
                self.put(b, i, code, rest, w);
                out
            }
            Err(mut free) => {
                // A code found was counted when it came in.
                self.widest = self.widest.max(64 - code.leading_zeros());
                let mut w = NOTHING;
                let out = f(&mut w);
                if free.is_none() {
                    let relaid = if self.should_narrow() {
                        self.narrow_in_place();
                        true
                    } else if self.may_grow() {
                        self.grow();
                        true
                    } else {
                        false
                    };
                    if relaid {
                        // The slot's form changes with the layout.
                        (b, rest) = self.place(code);
                        free = self.free_in(b);
                    }
                }
                let i = match free {
                    Some(i) => {
                        self.len += 1;
                        i
                    }
                    None => {
                        self.evicted += 1;
                        // Always the new word: keeping the old one when it is worth more
                        // starves the search (Cram 5×7 in 256 KiB went from 0.77 s to
                        // over ten minutes).
                        self.least_worth(b, code, &worth)
                    }
                };
                self.put(b, i, code, rest, w);
                out
            }
        }
    }

    /// The slot of `code` in its bucket, or else a free one there if any.
    #[inline]
    fn find(&self, b: usize, rest: u64, code: u64) -> Result<usize, Option<usize>> {
        let line = &self.lines[b].0;
        let mut free = None;
        match self.layout {
            Layout::Wide => {
                for i in 0..4 {
                    let k = line[2 * i];
                    if k == code {
                        return Ok(i);
                    }
                    if k == EMPTY_CODE && free.is_none() {
                        free = Some(i);
                    }
                }
            }
            Layout::Narrow { tag, .. } => {
                for (i, &s) in line.iter().enumerate() {
                    if s & 0xFF == 0 {
                        free = free.or(Some(i));
                    } else if (s ^ rest) >> (64 - tag) == 0 {
                        return Ok(i);
                    }
                }
            }
        }
        Err(free)
    }

    /// A free slot of bucket `b`.
    fn free_in(&self, b: usize) -> Option<usize> {
        let line = &self.lines[b].0;
        match self.layout {
            Layout::Wide => (0..4).find(|&i| line[2 * i] == EMPTY_CODE),
            Layout::Narrow { .. } => (0..8).find(|&i| line[i] & 0xFF == 0),
        }
    }

    fn may_grow(&self) -> bool {
        let room = match self.layout {
            Layout::Wide => true,
            // Buckets enough for every code of the width: never more.
            Layout::Narrow { width, .. } => narrow_short(width, self.bits).is_some(),
        };

        let per_slot = if self.bytes() < SMALL_BYTES {
            GROW_AFTER_SMALL
        } else {
            GROW_AFTER
        };
        room && self.lines.len() < self.max_lines
            && (self.bytes() < self.free_bytes || self.evicted >= self.lines.len() * self.ways() * per_slot)
            && doubling_fits(self.bytes())
    }

    /// The slot of bucket `b` least worth keeping; of equals, the one the code's bits pick.
    fn least_worth(&self, b: usize, code: u64, worth: impl Fn(Word) -> u64) -> usize {
        let ways = self.ways();
        let turn = code as usize >> 7;
        (0..ways)
            .map(|j| (j + turn) % ways)
            .min_by_key(|&i| worth(self.word_at(b, i)))
            .expect("buckets are not empty")
    }

    /// The word in slot `i` of bucket `b` (which is taken).
    #[inline]
    fn word_at(&self, b: usize, i: usize) -> Word {
        let line = &self.lines[b].0;
        match self.layout {
            Layout::Wide => line[2 * i + 1],
            Layout::Narrow { tag, .. } => lengthen(line[i], 64 - tag),
        }
    }

    /// Writes `code` and its word to slot `i` of bucket `b`.
    #[inline]
    fn put(&mut self, b: usize, i: usize, code: u64, rest: u64, w: Word) {
        match self.layout {
            Layout::Wide => {
                self.lines[b].0[2 * i] = code;
                self.lines[b].0[2 * i + 1] = w;
            }
            Layout::Narrow { tag, .. } => {
                self.lines[b].0[i] = rest | shorten(w, 64 - tag);
            }
        }
    }

    /// Makes room, before a table saved by a long search is loaded back, for codes up to
    /// `max_code` and for `bytes` of slots (within the table's own bound).
    /// The table grows first, then takes the layout for the codes: widened while small, it
    /// would take the wide layout for codes of 59 bits or more and come back with half the
    /// words it was saved with.
    pub(crate) fn reserve(&mut self, max_code: u64, bytes: usize) {
        let width = self.widest.max(64 - max_code.leading_zeros());
        let line = std::mem::size_of::<Line>();
        let mut bits = self.bits;
        while (line << bits) < bytes
            && (1usize << (bits + 1)) <= self.max_lines
            && doubling_fits(line << bits)
        {
            bits += 1;
        }
        let narrower = matches!(self.layout, Layout::Narrow { width: now, .. } if now < width);
        if bits > self.bits || narrower {
            self.relayout(width, bits);
        }
    }

    /// Every (code, word) stored (the table unchanged).
    #[cfg(test)]
    pub(crate) fn entries(&self) -> Vec<(u64, Word)> {
        let mut all = Vec::with_capacity(self.len);
        self.for_each(|code, w| all.push((code, w)));
        all
    }

    /// Calls `f` with every (code, word) stored.
    pub(crate) fn for_each(&self, f: impl FnMut(u64, Word)) {
        each_entry(&self.lines, self.layout, self.bits, f);
    }

    /// Makes room for codes of `width` bits: a narrow layout for them if a slot keeps
    /// enough of the word beside them, else the wide one; the table keeps its size in bytes
    /// and every word it can.
    fn widen(&mut self, width: u32) {
        self.relayout(width, self.bits);
    }

    /// [`CodeTable::widen`] to `width` with `2^bits` buckets (at least as many as now). The
    /// words move from the old buckets to new ones, so for a moment both are held (as when
    /// the table doubles), and nothing else.
    fn relayout(&mut self, width: u32, bits: u32) {
        self.widest = self.widest.max(width);
        let bits = bits.max(self.bits);
        let (old_layout, old_bits) = (self.layout, self.bits);
        let tag = width.saturating_sub(bits);
        self.layout = if narrow_short(width, bits).is_some_and(|short| short >= MIN_SHORT) {
            Layout::Narrow { width, tag }
        } else {
            Layout::Wide
        };
        let empty = match self.layout {
            Layout::Wide => WIDE_EMPTY,
            Layout::Narrow { .. } => NARROW_EMPTY,
        };
        let old = std::mem::replace(&mut self.lines, vec![empty; 1 << bits]);
        self.bits = bits;
        self.evicted = 0;
        self.len = 0;
        each_entry(&old, old_layout, old_bits, |code, w| {
            let (b, rest) = self.place(code);
            let i = match self.free_in(b) {
                Some(i) => {
                    self.len += 1;
                    i
                }
                None => self.least_worth(b, code, |w| (w & UNKNOWN != UNKNOWN) as u64),
            };
            self.put(b, i, code, rest, w);
        });
    }

    /// Whether the table, wide, should rather take the narrow layout at its size (twice the
    /// words in the same bytes, [`CodeTable::narrow_in_place`]): a narrow slot for its widest
    /// code keeps [`NARROW_AGAIN_WON`] "won" bits or more. A table that met a wide code while
    /// it was small (a code of 59 bits or more at 64 KiB) took the wide layout, and would
    /// keep it for ever.
    fn should_narrow(&self) -> bool {
        self.layout == Layout::Wide
            && narrow_short(self.widest, self.bits).is_some_and(|short| short >= 13 + NARROW_AGAIN_WON)
            && doubling_fits(self.bytes() / 1024)
    }

    /// Turns the wide table narrow for codes of [`CodeTable::widest`] bits, at its size and in
    /// its own memory (beside it, for a moment, two counts for every 64 buckets).
    /// The (code, word) pairs become (mix, word) pairs, are grouped by 64 new buckets in place
    /// (one pass of swaps, as an American flag sort), each group sorted, packed to the front
    /// as narrow slots (of a bucket's pairs, eight at most, those with a value first), and
    /// spread out to their buckets from the last one down, where a bucket's slots never lie
    /// before its own.
    fn narrow_in_place(&mut self) {
        debug_assert_eq!(self.layout, Layout::Wide);
        let width = self.widest;
        let tag = width - self.bits;
        let short = 64 - tag;
        let buckets = self.lines.len();
        let pairs = 4 * buckets;
        let pair = |lines: &[Line], r: usize| {
            let l = &lines[r >> 2].0;
            (l[2 * (r & 3)], l[2 * (r & 3) + 1])
        };
        let set_pair = |lines: &mut [Line], r: usize, (h, w): (u64, Word)| {
            let l = &mut lines[r >> 2].0;
            l[2 * (r & 3)] = h;
            l[2 * (r & 3) + 1] = w;
        };
        // Mixes (below 2^width) for codes; empty slots keep EMPTY_CODE and go to a last group.
        // A group is 64 buckets (so that the counts take little room), sorted afterwards.
        let shift = self.bits.min(6);
        let groups = buckets >> shift;
        let group = |h: u64| {
            if h == EMPTY_CODE {
                groups
            } else {
                (h >> tag >> shift) as usize
            }
        };
        let mut head = vec![0u32; groups + 1];
        for line in &mut self.lines {
            for i in 0..4 {
                if line.0[2 * i] != EMPTY_CODE {
                    line.0[2 * i] = mix(line.0[2 * i], width);
                }
                head[group(line.0[2 * i])] += 1;
            }
        }
        let mut end = head.clone();
        let mut at = 0u32;
        for (h, e) in head.iter_mut().zip(end.iter_mut()) {
            *h = at;
            at += *e;
            *e = at;
        }
        for g in 0..=groups {
            while head[g] < end[g] {
                let mut p = pair(&self.lines, head[g] as usize);
                loop {
                    let to = group(p.0);
                    let r = head[to] as usize;
                    head[to] += 1;
                    if to == g {
                        set_pair(&mut self.lines, r, p);
                        break;
                    }
                    let next = pair(&self.lines, r);
                    set_pair(&mut self.lines, r, p);
                    p = next;
                }
            }
        }
        let mut sorted = Vec::new();
        let mut from = 0;
        for &to in &end[..groups] {
            sorted.clear();
            sorted.extend((from..to as usize).map(|r| pair(&self.lines, r)));
            sorted.sort_unstable_by_key(|p| p.0);
            for (r, &p) in (from..).zip(&sorted) {
                set_pair(&mut self.lines, r, p);
            }
            from = to as usize;
        }
        drop(head);
        drop(end);
        let bucket = |h: u64| (h >> tag) as usize;
        // Pack: slot j (the j-th u64 of the table) is written after pair j, at or after slot j,
        // was read.
        let mut kept = vec![0u8; buckets];
        let mut j = 0;
        let mut r = 0;
        while r < pairs && pair(&self.lines, r).0 != EMPTY_CODE {
            let b = bucket(pair(&self.lines, r).0);
            let mut n = r;
            while n < pairs && pair(&self.lines, n).0 != EMPTY_CODE && bucket(pair(&self.lines, n).0) == b {
                n += 1;
            }
            let mut slots = [0u64; 8];
            let mut k = 0;
            for valued in [true, false] {
                for q in r..n {
                    let (h, w) = pair(&self.lines, q);
                    if k < 8 && (w & UNKNOWN != UNKNOWN) == valued {
                        slots[k] = (h & low(tag)) << short | shorten(w, short);
                        k += 1;
                    }
                }
            }
            for &s in &slots[..k] {
                self.lines[j >> 3].0[j & 7] = s;
                j += 1;
            }
            kept[b] = k as u8;
            r = n;
        }
        self.len = j;
        // Spread: bucket b's slots lie from `a` (those of the buckets before it) up, and
        // `a` is at most 8b.
        let mut a = j;
        for b in (0..buckets).rev() {
            let k = kept[b] as usize;
            a -= k;
            debug_assert!(a <= 8 * b);
            for i in (0..k).rev() {
                let s = self.lines[(a + i) >> 3].0[(a + i) & 7];
                self.lines[b].0[i] = s;
            }
            self.lines[b].0[k..].fill(0);
        }
        self.layout = Layout::Narrow { width, tag };
        self.evicted = 0;
    }

    /// Doubles the table in place, in its layout: the words of bucket `b` go to buckets `2b`
    /// and `2b + 1` (the next bit of their hash), so walking the buckets from the top down
    /// never overwrites one not yet moved, and no second table is needed. A narrow slot then
    /// keeps one bit less of the code's mix (the bucket holds it) and one more "won" bit.
    fn grow(&mut self) {
        let old = self.lines.len();
        let empty = match self.layout {
            Layout::Wide => WIDE_EMPTY,
            Layout::Narrow { .. } => NARROW_EMPTY,
        };
        self.lines.resize(2 * old, empty);
        self.bits += 1;
        self.evicted = 0;
        for from in (0..old).rev() {
            let words = std::mem::replace(&mut self.lines[from], empty);
            let mut filled = [0; 2];
            match self.layout {
                Layout::Wide => {
                    for i in 0..4 {
                        let (k, v) = (words.0[2 * i], words.0[2 * i + 1]);
                        if k != EMPTY_CODE {
                            let b = self.place(k).0;
                            let half = b - 2 * from;
                            debug_assert!(half < 2);
                            let j = filled[half];
                            self.lines[b].0[2 * j] = k;
                            self.lines[b].0[2 * j + 1] = v;
                            filled[half] += 1;
                        }
                    }
                }
                Layout::Narrow { width, tag } => {
                    let to = width - self.bits;
                    for s in words.0 {
                        if s & 0xFF != 0 {
                            // The next bit of the mix below the bucket's, kept in the slot,
                            // now picks the bucket: the slot keeps the bits below it, and
                            // its short word gains a "won" bit (not known: 0).
                            let rest = s >> (64 - tag);
                            let half = (rest >> to) as usize & 1;
                            let b = 2 * from + half;
                            self.lines[b].0[filled[half]] = (rest & low(to)) << (64 - to) | s & low(64 - tag);
                            filled[half] += 1;
                        }
                    }
                }
            }
        }
        if let Layout::Narrow { width, .. } = self.layout {
            self.layout = Layout::Narrow {
                width,
                tag: width - self.bits,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// Codes with structure (masks in the low bits, a width above), as Cram's, of about
    /// `bits` bits.
    fn code(k: u64, bits: u32) -> u64 {
        (k.rotate_left(7) ^ (k & 0xff)) & low(bits - 6) | (k % 37) << (bits - 6)
    }

    /// What the table keeps of `w` now.
    fn kept(t: &CodeTable, w: Word) -> Word {
        w & (low(32) | low(t.won_bits()) << 32)
    }

    /// A word the table can hold whole, from random bits.
    fn word(t: &CodeTable, r: u64) -> Word {
        let value = match r % 5 {
            0 => UNKNOWN,
            1 => ELSEWHERE,
            _ => (r >> 8) % t.value_limit().min(1000),
        };
        value | (r >> 20 & 31) << 24 | (r >> 32 & low(t.won_bits())) << 32
    }

    proptest! {
        /// Whatever it forgets, the table never answers a wrong word, and the word just
        /// written is always there, as codes widen from narrow slots to wide ones.
        #[test]
        fn never_answers_wrong(
            ops in proptest::collection::vec((0u64..3000, 20u32..64, any::<u64>()), 0..3000),
            small in any::<bool>(),
        ) {
            let mut t = if small { CodeTable::with_max_bytes(1024) } else { CodeTable::new() };
            let mut m: HashMap<u64, Word> = HashMap::new();
            for &(k, bits, r) in &ops {
                let code = code(k, bits);
                if t.get(code).is_none() {
                    // Never stored, or pushed out: the table starts it again from nothing.
                    m.insert(code, NOTHING);
                }
                // Makes room for the code first (the layout may change), then writes a word
                // it can hold.
                t.update(code, |w| w & 0xff, |_| ());
                let w = word(&t, r);
                t.update(code, |w| w & 0xff, |x| *x = w);
                m.insert(code, w);
                prop_assert_eq!(t.get(code), Some(w));
                let mut gone = Vec::new();
                for (&k, v) in m.iter_mut() {
                    match t.get(k) {
                        None => gone.push(k),
                        Some(g) => {
                            prop_assert_eq!(g, kept(&t, *v), "code {:x}", k);
                            *v = g;
                        }
                    }
                }
                for k in gone {
                    m.remove(&k);
                }
            }
            prop_assert!(t.len() >= m.len());
            let cap = if small { 1024 } else { 1 << 20 };
            prop_assert!(t.bytes() <= cap);
        }

        /// The mix is one-to-one within its width, and [`unmix`] undoes it.
        #[test]
        fn mix_is_one_to_one(code in any::<u64>(), width in MIN_WIDTH..=64) {
            let code = code & low(width);
            let h = mix(code, width);
            prop_assert!(h <= low(width));
            prop_assert_eq!(unmix(h, width), code);
        }

        /// The short form of a narrow slot keeps values, weights and the "won" bits that fit.
        #[test]
        fn short_form_round_trips(r in any::<u64>(), short in MIN_SHORT..=48) {
            let value = match r % 4 { 0 => UNKNOWN, 1 => ELSEWHERE, _ => (r >> 8) % NARROW_VALUES };
            let w = value | (r >> 20 & 31) << 24 | r >> 32 << 32;
            let s = shorten(w, short);
            prop_assert!(s <= low(short) && s & 0xFF != 0);
            prop_assert_eq!(lengthen(s, short), w & (low(32) | low(short - 13) << 32));
        }
    }

    /// A table that met a wide code while small (wide layout: four words a bucket) turns
    /// narrow once it has grown enough, and a table loaded back from a checkpoint takes the
    /// narrow layout at its full size: eight words a bucket either way, every word kept.
    #[test]
    fn wide_codes_get_narrow_slots_once_the_table_is_large() {
        let wide_code = (1u64 << 58) | 12345;
        let mut t = CodeTable::new();
        t.grow_freely_to(64 << 20);
        t.update(wide_code, |_| 0, |w| *w = 7);
        assert_eq!(
            t.layout,
            Layout::Wide,
            "small: a 59-bit code needs the wide layout"
        );
        let n = 3 << 20;
        let codes: Vec<u64> = (0..n as u64)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 6) | 1 << 57)
            .collect();
        for &c in &codes {
            t.update(c, |_| 0, |w| *w = c % 200);
        }
        assert!(
            matches!(t.layout, Layout::Narrow { width: 59, .. }),
            "{:?}",
            t.layout
        );
        assert!(t.won_bits() >= NARROW_AGAIN_WON);
        // Nothing was lost on the way (the table doubled at its first full bucket).
        assert!(t.len() * 100 >= n * 99, "{} of {n}", t.len());
        for &c in codes.iter().step_by(997) {
            if let Some(w) = t.get(c) {
                assert_eq!(w & UNKNOWN, c % 200);
            }
        }
        // Loaded back into a fresh table of the same size: narrow, and all of it kept.
        let saved = t.entries();
        let mut back = CodeTable::new();
        back.reserve(saved.iter().map(|e| e.0).max().unwrap(), t.bytes());
        assert!(matches!(back.layout, Layout::Narrow { .. }), "{:?}", back.layout);
        assert_eq!(back.bytes(), t.bytes());
        for &(c, w) in &saved {
            back.update(c, |_| 0, |x| *x = w);
        }
        assert!(
            back.len() * 100 >= saved.len() * 99,
            "{} of {}",
            back.len(),
            saved.len()
        );
    }

    /// Turning a wide table narrow in place keeps every word its buckets can hold (those
    /// with a value first), whole but for the "won" bits the narrow slots cannot hold, and
    /// never answers a word for a code it was not given.
    #[test]
    fn narrowing_in_place_keeps_the_words() {
        for (n, seed) in [(1000u64, 1u64), (2500, 2), (4096, 3), (100, 4)] {
            let mut t = CodeTable::new();
            t.widen(62);
            assert_eq!(t.layout, Layout::Wide);
            let mut rng = seed;
            let mut next = || {
                rng = rng
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                rng >> 11
            };
            let mut given = HashMap::new();
            for _ in 0..n {
                let c = next() & low(40);
                // Values the narrow slots hold (a larger one would be forgotten).
                let w = word(&t, next());
                let w = match w & UNKNOWN {
                    UNKNOWN | ELSEWHERE => w,
                    v => (w & !UNKNOWN) | (v % NARROW_VALUES),
                };
                // No growth: the 1024 buckets of four hold what fits, the rest is pushed out.
                t.max_lines = t.lines.len();
                t.update(c, |w| w & 0xff, |x| *x = w);
                given.insert(c, w);
            }
            let before = t.entries();
            t.widest = 40;
            t.narrow_in_place();
            assert_eq!(t.layout, Layout::Narrow { width: 40, tag: 30 });
            let after = t.entries();
            assert_eq!(after.len(), t.len());
            for &(c, w) in &after {
                assert_eq!(w, kept(&t, given[&c]), "code {c}");
                assert_eq!(t.get(c), Some(w));
            }
            // Eight slots a bucket where there were four: everything fits unless a bucket
            // gets more than eight, and then those with a value stay.
            let mut per_bucket: HashMap<usize, Vec<Word>> = HashMap::new();
            for &(c, w) in &before {
                per_bucket.entry(t.place(c).0).or_default().push(w);
            }
            let valued = |w: Word| w & UNKNOWN != UNKNOWN;
            let expected: usize = per_bucket.values().map(|ws| ws.len().min(8)).sum();
            assert_eq!(t.len(), expected);
            for (b, ws) in per_bucket {
                let now: Vec<Word> = after
                    .iter()
                    .filter(|e| t.place(e.0).0 == b)
                    .map(|e| e.1)
                    .collect();
                let want = ws.iter().filter(|&&w| valued(w)).count().min(8);
                assert_eq!(now.iter().filter(|&&w| valued(w)).count(), want, "bucket {b}");
            }
            // And it goes on working: a new code goes in, an old one is found.
            t.update(12345, |w| w & 0xff, |x| *x = 17);
            assert_eq!(t.get(12345).map(|w| w & UNKNOWN), Some(17));
        }
    }

    #[test]
    fn growing_keeps_every_word() {
        for bits in [40, 62] {
            let mut t = CodeTable::new();
            for k in 0..3000 {
                t.update(code(k, bits), |_| 0, |w| *w = k % 250);
            }
            assert_eq!(t.layout == Layout::Wide, bits == 62);
            let kept: Vec<u64> = (0..3000)
                .filter(|&k| t.get(code(k, bits)) == Some(k % 250))
                .collect();
            assert!(
                kept.len() > 2800,
                "a small table grows rather than forget: {}",
                kept.len()
            );
            let (len, bytes) = (t.len(), t.bytes());
            t.grow();
            assert_eq!(t.bytes(), 2 * bytes);
            assert_eq!(t.len(), len);
            for &k in &kept {
                assert_eq!(t.get(code(k, bits)), Some(k % 250));
            }
        }
    }

    #[test]
    fn widening_keeps_words() {
        let mut t = CodeTable::new();
        for k in 0..500 {
            t.update(code(k, 30), |_| 0, |w| *w = k % 250);
        }
        // A wider code: still narrow slots, fewer "won" bits.
        t.update(code(36, 50), |_| 0, |w| *w = 1);
        assert!(matches!(t.layout, Layout::Narrow { width: 50, .. }));
        assert!(t.won_bits() < WON_BITS);
        // Wider still: wide slots.
        t.update(u64::MAX - 1, |_| 0, |w| *w = 2);
        assert_eq!(t.layout, Layout::Wide);
        assert_eq!(t.won_bits(), WON_BITS);
        for k in 0..500 {
            assert_eq!(t.get(code(k, 30)), Some(k % 250));
        }
        assert_eq!(t.get(code(36, 50)), Some(1));
        assert_eq!(t.get(u64::MAX - 1), Some(2));
    }

    #[test]
    fn pushes_out_the_word_least_worth_keeping() {
        for bits in [40, 62] {
            let mut t = CodeTable::with_max_bytes(128);
            // A code as wide as the others sets the layout; then a bucket's worth of codes of
            // the other bucket and one more: the last pushes out the one of least worth.
            let first = 1 << (bits - 1);
            t.update(first, |w| w, |w| *w = 100);
            let b = 1 - t.place(first).0;
            let ways = t.ways();
            let same: Vec<u64> = (0..)
                .map(|k| code(k, bits))
                .filter(|&c| t.place(c).0 == b)
                .take(ways + 1)
                .collect();
            for (i, &c) in same[..ways].iter().enumerate() {
                t.update(c, |w| w, |w| *w = 10 + (i as u64 * 7) % ways as u64);
            }
            let least = (0..ways).min_by_key(|&i| (i * 7) % ways).unwrap();
            t.update(same[ways], |w| w, |w| *w = 5);
            assert_eq!(t.get(same[least]), None, "{bits} bits");
            for i in (0..=ways).filter(|&i| i != least) {
                assert!(t.get(same[i]).is_some());
            }
            assert_eq!(t.bytes(), 128);
        }
    }
}
