//! Racecheck's records for global memory within one CTA: the same cells
//! as shared memory's (`shared::Cell`: per 4-byte word, the last write and
//! up to two reads of the barrier interval), kept sparsely, in 64-byte
//! chunks of the arena that the CTA touched since its last barrier.
//!
//! Records older than the CTA's current barrier interval are never looked
//! at (their epoch is stale), so a barrier forgets every chunk and their
//! storage is reused as is. At most [`MAX_CHUNKS`] chunks are recorded per
//! interval (512 KiB of distinct global memory, 12 MiB of records);
//! accesses to further chunks in that interval are not checked.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::shared::{Cell, WORD};

/// Bytes per chunk.
const CHUNK: u64 = 64;

/// Cells per chunk.
const CELLS: usize = (CHUNK / WORD) as usize;

/// The chunks one barrier interval may record.
pub const MAX_CHUNKS: usize = 8192;

/// The cells of the global bytes a CTA touched in its current interval.
#[derive(Debug)]
pub struct GlobalCells {
    /// Chunk number (arena offset / [`CHUNK`]) to its index in `slots`.
    index: HashMap<u64, u32, BuildHasherDefault<ChunkHasher>>,
    /// Chunks' cells; the first `index.len()` are in use, the rest are
    /// kept for reuse (their records stale).
    slots: Vec<[Cell; CELLS]>,
    /// Chunks looked up lately and their slots, by the chunk number's low
    /// bits (a warp's lanes fall in a few chunks; a thread's accesses to
    /// several arrays alternate between them).
    recent: [(u64, u32); RECENT],
}

/// Entries of [`GlobalCells::recent`].
const RECENT: usize = 8;

/// No chunk (an empty entry of [`GlobalCells::recent`]).
const NO_CHUNK: u64 = u64::MAX;

/// A multiplicative hash of a chunk number (chunk numbers are not chosen
/// by an adversary; SipHash would cost more than the records).
#[derive(Default)]
struct ChunkHasher(u64);

impl Hasher for ChunkHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
}

impl Default for GlobalCells {
    fn default() -> Self {
        GlobalCells {
            index: HashMap::default(),
            slots: Vec::new(),
            recent: [(NO_CHUNK, 0); RECENT],
        }
    }
}

impl GlobalCells {
    /// Forgets every chunk (a barrier, or a new CTA): what is recorded is
    /// stale from now on.
    pub fn clear(&mut self) {
        self.index.clear();
        self.recent = [(NO_CHUNK, 0); RECENT];
    }

    /// The cells of the chunk holding the word at arena offset
    /// `word * WORD` (made when it has none) and the word's index in it;
    /// `None` when the interval already records [`MAX_CHUNKS`] chunks.
    #[inline]
    pub fn chunk(&mut self, word: u64) -> Option<(&mut [Cell; CELLS], usize)> {
        let chunk = word / CELLS as u64;
        let r = chunk as usize % RECENT;
        let slot = if self.recent[r].0 == chunk {
            self.recent[r].1
        } else {
            let n = self.index.len();
            let s = match self.index.get(&chunk) {
                Some(&s) => s,
                None if n >= MAX_CHUNKS => return None,
                None => {
                    if n == self.slots.len() {
                        self.slots.push([Cell::EMPTY; CELLS]);
                    }
                    self.index.insert(chunk, n as u32);
                    n as u32
                }
            };
            self.recent[r] = (chunk, s);
            s
        };
        Some((
            &mut self.slots[slot as usize],
            (word % CELLS as u64) as usize,
        ))
    }

    /// The cell of the word holding arena offset `off` (see [`Self::chunk`]).
    #[cfg(test)]
    fn cell(&mut self, off: u64) -> Option<&mut Cell> {
        self.chunk(off / WORD).map(|(c, i)| &mut c[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_found_again_capped_and_forgotten() {
        let mut g = GlobalCells::default();
        let a = g.cell(100).unwrap() as *const Cell;
        assert_eq!(g.cell(103).unwrap() as *const Cell, a, "one word, one cell");
        let next = g.cell(104).unwrap() as *const Cell;
        assert_eq!(next as usize - a as usize, std::mem::size_of::<Cell>());
        assert!(g.cell(1000).is_some());
        // Chunks 1 and 15 are in use: fill the interval up to its cap.
        for chunk in (0..MAX_CHUNKS as u64 + 2).filter(|c| *c != 1 && *c != 15) {
            let found = g.cell(chunk * CHUNK).is_some();
            assert_eq!(found, chunk < MAX_CHUNKS as u64, "chunk {chunk}");
        }
        assert!(g.cell(100).is_some(), "chunks recorded stay reachable");
        g.clear();
        assert!(g.cell(1 << 40).is_some(), "a barrier forgets every chunk");
        assert_eq!(g.slots.len(), MAX_CHUNKS, "storage is reused");
    }
}
