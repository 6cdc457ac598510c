//! Coalescing: the distinct 32-byte sectors (and 128-byte lines) the
//! active lanes of a warp touch in one global or local access, the lanes
//! each sector serves (an atomic's), and the lane walks the memory model
//! shares with the bank-conflict counter.

/// Whether every lane of `mask` (not empty) uses the same address.
#[inline]
fn one_address(mask: u32, addrs: &[u64; 32]) -> bool {
    let first = addrs[mask.trailing_zeros() as usize];
    // All 32 entries alike (inactive lanes keep an earlier access's
    // address, often the same one): a branch-free test settles it.
    if addrs.iter().fold(0, |d, &a| d | (a ^ first)) == 0 {
        return true;
    }
    if mask == u32::MAX {
        // Every lane active: the test above was the whole answer.
        return false;
    }
    let mut rest = mask & (mask - 1);
    while rest != 0 && addrs[rest.trailing_zeros() as usize] == first {
        rest &= rest - 1;
    }
    rest == 0
}

/// Calls `visit` with every sector (address `>> shift`) the lanes of
/// `mask` touch (`span + 1` bytes each), lanes in order and a lane's
/// sectors ascending; a lane whose sectors are the lane before's adds
/// nothing and is skipped. Stops, returning false, where `visit` does.
#[inline(always)]
pub fn each_sector(
    mask: u32,
    addrs: &[u64; 32],
    span: u64,
    shift: u32,
    mut visit: impl FnMut(u64) -> bool,
) -> bool {
    let mut m = mask;
    let mut prev = (u64::MAX, u64::MAX);
    while m != 0 {
        let a = addrs[m.trailing_zeros() as usize];
        m &= m - 1;
        let (first, last) = (a >> shift, a.wrapping_add(span) >> shift);
        if (first, last) == prev {
            continue;
        }
        prev = (first, last);
        let mut s = first;
        loop {
            if !visit(s) {
                return false;
            }
            if s >= last {
                break;
            }
            s += 1;
        }
    }
    true
}

/// Calls `visit` with the address of every lane of `mask`, in lane order.
#[inline(always)]
pub fn each_lane(mask: u32, addrs: &[u64; 32], mut visit: impl FnMut(u64)) {
    if mask == u32::MAX {
        // Every lane: no walk over the mask's bits.
        addrs.iter().for_each(|&a| visit(a));
    } else {
        let mut m = mask;
        while m != 0 {
            visit(addrs[m.trailing_zeros() as usize]);
            m &= m - 1;
        }
    }
}

/// The lowest and highest address of the lanes of `mask`.
#[inline(always)]
pub fn address_range(mask: u32, addrs: &[u64; 32]) -> (u64, u64) {
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    each_lane(mask, addrs, |a| {
        lo = lo.min(a);
        hi = hi.max(a);
    });
    (lo, hi)
}

/// Per sector of `sectors` (an access's, from `unique_sectors`), the
/// lanes of `mask` whose address (`>> shift`) falls in it, at least 1 (a
/// sector only a lane's tail reaches counts 1), in one walk over the lanes.
pub fn lanes_per_sector(shift: u32, mask: u32, addrs: &[u64; 32], sectors: &[u64]) -> [u32; 64] {
    let mut count = [0u32; 64];
    match sectors.len() {
        0 => return count,
        // Every lane's address is in the one sector.
        1 => count[0] = mask.count_ones(),
        _ => {
            // Neighbouring lanes mostly share a sector: the last one found
            // is tried first.
            let mut at = 0;
            let mut m = mask;
            while m != 0 {
                let s = addrs[m.trailing_zeros() as usize] >> shift;
                m &= m - 1;
                if sectors[at] != s {
                    match sectors.iter().position(|&t| t == s) {
                        Some(i) => at = i,
                        None => continue,
                    }
                }
                count[at] += 1;
            }
        }
    }
    for c in &mut count[..sectors.len()] {
        *c = (*c).max(1);
    }
    count
}

/// The distinct sectors the lanes of `mask` touch, in order of first
/// touch (lane order), into `out`; returns their number and the number
/// of distinct lines they fall in (`sector_shift`, `line_shift`: log2
/// of the sector and line sizes).
pub fn unique_sectors(
    sector_shift: u32,
    line_shift: u32,
    mask: u32,
    addrs: &[u64; 32],
    size: u32,
    out: &mut [u64; 64],
) -> (usize, u32) {
    let shift = sector_shift;
    let span = size.max(1) as u64 - 1;
    if mask == 0 {
        return (0, 0);
    }
    // A contiguous run of lanes at consecutive addresses (a coalesced
    // access): every byte from the first to the last is touched, so the
    // sectors are one ascending run, first touched in lane order.
    let first_lane = mask.trailing_zeros() as u64;
    let last_lane = 31 - mask.leading_zeros() as u64;
    let step = span + 1;
    let lo = addrs[first_lane as usize];
    let hi = addrs[last_lane as usize].wrapping_add(span);
    let run = (mask >> first_lane) as u64;
    // Cheap tests first: the lanes form a run, and the ends are as far
    // apart as consecutive addresses would be.
    if run & (run + 1) == 0
        && hi.wrapping_sub(lo) == (last_lane - first_lane) * step + span
        && (hi >> shift).wrapping_sub(lo >> shift) < 64
    {
        let base = lo.wrapping_sub(first_lane * step);
        let off_stride = (first_lane..=last_lane).fold(0u64, |d, l| {
            d | (addrs[l as usize] ^ base.wrapping_add(l * step))
        });
        if off_stride == 0 {
            let (first, last) = (lo >> shift, hi >> shift);
            let mut n = 0;
            for s in first..=last {
                out[n] = s;
                n += 1;
            }
            let per_line = line_shift - shift;
            let lines = ((last >> per_line) - (first >> per_line) + 1) as u32;
            return (n, lines);
        }
    }
    // Every lane at one address (a broadcast load, an atomic on one
    // counter): its one or two sectors.
    if one_address(mask, addrs) {
        let (first, last) = (lo >> shift, lo.wrapping_add(span) >> shift);
        if last.wrapping_sub(first) < 2 {
            out[0] = first;
            out[1] = last;
            let n = if first == last { 1 } else { 2 };
            let per_line = line_shift - shift;
            let lines = if n == 2 && first >> per_line != last >> per_line {
                2
            } else {
                1
            };
            return (n, lines);
        }
    }
    // Most warps touch a few neighbouring sectors: mark them in a bit
    // set over the 64 sectors around the first lane's.
    let base = (addrs[mask.trailing_zeros() as usize] >> shift).wrapping_sub(32);
    let mut seen = 0u64;
    let mut n = 0;
    let in_window = each_sector(mask, addrs, span, shift, |s| {
        let d = s.wrapping_sub(base);
        if d >= 64 {
            return false;
        }
        if seen & (1 << d) == 0 {
            seen |= 1 << d;
            out[n] = s;
            n += 1;
        }
        true
    });
    if in_window {
        // Sectors in address order: a new line wherever the line changes.
        let per_line = line_shift - shift;
        let (mut lines, mut prev) = (0, u64::MAX);
        while seen != 0 {
            let line = base.wrapping_add(seen.trailing_zeros() as u64) >> per_line;
            seen &= seen - 1;
            if line != prev {
                lines += 1;
                prev = line;
            }
        }
        return (n, lines);
    }
    // Lanes at ascending addresses (a row per lane, a strided access):
    // in first-touch order the sectors ascend, so a sector is new
    // unless it is the last one taken, and the lines are counted where
    // they change.
    let per_line = line_shift - shift;
    let (mut n, mut lines) = (0, 0u32);
    let ascending = each_sector(mask, addrs, span, shift, |s| {
        if n > 0 && s <= out[n - 1] {
            return s == out[n - 1];
        }
        if n < out.len() {
            if n == 0 || s >> per_line != out[n - 1] >> per_line {
                lines += 1;
            }
            out[n] = s;
            n += 1;
        }
        true
    });
    if ascending {
        return (n, lines);
    }
    // Scattered lanes: search what was seen.
    let mut n = 0;
    each_sector(mask, addrs, span, shift, |s| {
        if n < out.len() && !out[..n].contains(&s) {
            out[n] = s;
            n += 1;
        }
        true
    });
    let sectors = &out[..n];
    let mut lines = 0u32;
    for (i, s) in sectors.iter().enumerate() {
        if !sectors[..i].iter().any(|t| t >> per_line == s >> per_line) {
            lines += 1;
        }
    }
    (n, lines)
}

/// The memory transactions (address, bytes) of a warp's access on GPUs
/// that coalesce per half-warp and have no data cache (CC 1.x), appended
/// to `out`, half-warp by half-warp, as the CUDA Programming Guide's
/// compute-capability 1.x rules give them:
/// - `strict` (CC 1.0/1.1): words of 4, 8 or 16 bytes; a half-warp whose
///   active thread k accesses word k of a segment aligned to 16 words is one
///   transaction of 64 or 128 bytes (two of 128 for 16-byte words); any
///   other half-warp takes one 32-byte transaction per active thread;
/// - otherwise (CC 1.2/1.3): the segment (32, 64 or 128 bytes for 1-, 2-
///   and 4-or-more-byte words) holding the lowest active thread's address,
///   halved while only its lower or upper half is used, serves every thread
///   in it; repeated until every thread is served (any order, any number
///   of threads per word).
pub fn half_warp_transactions(
    mask: u32,
    addrs: &[u64; 32],
    size: u32,
    strict: bool,
    out: &mut Vec<(u64, u32)>,
) {
    let size = size.max(1) as u64;
    for half in [mask & 0xffff, mask & 0xffff_0000] {
        if half == 0 {
            continue;
        }
        if strict {
            let first = half.trailing_zeros() as u64;
            let base_lane = first & !15;
            let ok_size = matches!(size, 4 | 8 | 16);
            let seg = 16 * size;
            let base = addrs[first as usize].wrapping_sub((first - base_lane) * size);
            let mut m = half;
            let mut coalesced = ok_size && base % seg == 0;
            while coalesced && m != 0 {
                let l = m.trailing_zeros() as u64;
                m &= m - 1;
                coalesced = addrs[l as usize] == base + (l - base_lane) * size;
            }
            if coalesced {
                if seg <= 128 {
                    out.push((base, seg as u32));
                } else {
                    out.push((base, 128));
                    out.push((base + 128, 128));
                }
            } else {
                let mut m = half;
                while m != 0 {
                    let l = m.trailing_zeros() as usize;
                    m &= m - 1;
                    out.push((addrs[l] & !31, 32));
                }
            }
            continue;
        }
        let seg: u64 = match size {
            1 => 32,
            2 => 64,
            _ => 128,
        };
        let mut pending = half;
        while pending != 0 {
            let lead = addrs[pending.trailing_zeros() as usize];
            let start = lead & !(seg - 1);
            // The threads served by this segment, and the bytes they use.
            let (mut lo, mut hi) = (u64::MAX, 0u64);
            let mut m = pending;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                let a = addrs[l];
                if a & !(seg - 1) == start {
                    pending &= !(1 << l);
                    lo = lo.min(a);
                    hi = hi.max((a + size - 1).min(start + seg - 1));
                }
            }
            // Halve while only one half is used (down to 32 bytes).
            let (mut at, mut len) = (start, seg);
            while len > 32 {
                let half_len = len / 2;
                if hi < at + half_len {
                    len = half_len;
                } else if lo >= at + half_len {
                    at += half_len;
                    len = half_len;
                } else {
                    break;
                }
            }
            out.push((at, len as u32));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    /// The sectors of an access as the model defines them (first touch in
    /// lane order) and the lines they fall in, computed naively.
    fn naive_sectors(mask: u32, addrs: &[u64; 32], size: u64) -> (Vec<u64>, u32) {
        let mut sectors: Vec<u64> = Vec::new();
        for (l, &a) in addrs.iter().enumerate() {
            if mask & (1 << l) != 0 {
                for s in a / 32..=(a + size.max(1) - 1) / 32 {
                    if !sectors.contains(&s) {
                        sectors.push(s);
                    }
                }
            }
        }
        let mut lines: Vec<u64> = sectors.iter().map(|s| s / 4).collect();
        lines.sort();
        lines.dedup();
        (sectors, lines.len() as u32)
    }

    #[test]
    fn sectors_match_their_definition() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        for case in 0..4000u64 {
            let size = [1u64, 2, 4, 8, 16][(case % 5) as usize];
            let base = 0x10_0000 + (next() % 4096) * size;
            let mask = match case % 4 {
                0 => u32::MAX,
                1 => u32::MAX >> (next() % 32) << (next() % 8),
                _ => next() as u32,
            };
            // One address for every lane too, now and then across a sector
            // boundary.
            let one = base + (next() % 2) * (32 - size / 2);
            // Wide strides (a row per lane), both ways, and lanes scattered
            // far apart, past the 64-sector window.
            let stride = [168u64, 4096, 36, 100][(case / 28) as usize % 4] / size * size;
            let addrs: [u64; 32] = std::array::from_fn(|l| match (case / 4) % 7 {
                0 => base + l as u64 * size,
                1 => base + (l as u64 * size * (1 + next() % 3)),
                2 => one,
                3 => base + (next() % 64) * size,
                4 => base + l as u64 * stride,
                5 => base + (31 - l as u64) * stride,
                _ => base + (next() % 100_000) * size,
            });
            let mut out = [0u64; 64];
            let (n, lines) = unique_sectors(5, 7, mask, &addrs, size as u32, &mut out);
            let (want, want_lines) = naive_sectors(mask, &addrs, size);
            assert_eq!((&out[..n], lines), (&want[..], want_lines), "case {case}");
            // Lanes per sector: those whose address is in it, at least 1.
            let lanes = lanes_per_sector(5, mask, &addrs, &out[..n]);
            for (i, &sector) in out[..n].iter().enumerate() {
                let want = (0..32)
                    .filter(|&l| mask >> l & 1 != 0 && addrs[l] >> 5 == sector)
                    .count() as u32;
                assert_eq!(lanes[i], want.max(1), "case {case} sector {i}");
            }
        }
    }

    #[test]
    fn half_warp_transactions_follow_the_cc1x_rules() {
        let run = |mask: u32, addrs: &[u64; 32], size: u32, strict: bool| {
            let mut out = Vec::new();
            half_warp_transactions(mask, addrs, size, strict, &mut out);
            out
        };
        let linear: [u64; 32] = std::array::from_fn(|l| 0x1000 + 4 * l as u64);
        // In order, aligned: one 64-byte transaction per half-warp, both
        // rules.
        for strict in [true, false] {
            assert_eq!(
                run(u32::MAX, &linear, 4, strict),
                vec![(0x1000, 64), (0x1040, 64)]
            );
        }
        // Two threads swapped: G80 takes 16 transactions for that
        // half-warp; GT200 still one.
        let mut swapped = linear;
        swapped.swap(0, 1);
        assert_eq!(run(u32::MAX, &swapped, 4, true).len(), 17);
        assert_eq!(run(u32::MAX, &swapped, 4, false).len(), 2);
        // Misaligned by one word: G80 16 + 16; GT200 a 128-byte segment
        // per half-warp, as the words straddle two 64-byte halves.
        let shifted: [u64; 32] = std::array::from_fn(|l| 0x1004 + 4 * l as u64);
        assert_eq!(run(u32::MAX, &shifted, 4, true).len(), 32);
        assert_eq!(
            run(u32::MAX, &shifted, 4, false),
            vec![(0x1000, 128), (0x1040, 64), (0x1080, 32)]
        );
        // Every thread on one word: G80 one per thread, GT200 one 32-byte
        // transaction per half-warp.
        let same = [0x2000u64; 32];
        assert_eq!(run(u32::MAX, &same, 4, true).len(), 32);
        assert_eq!(
            run(u32::MAX, &same, 4, false),
            vec![(0x2000, 32), (0x2000, 32)]
        );
        // Stride of two words: GT200 a 128-byte segment per half-warp.
        let strided: [u64; 32] = std::array::from_fn(|l| 0x4000 + 8 * l as u64);
        assert_eq!(
            run(u32::MAX, &strided, 4, false),
            vec![(0x4000, 128), (0x4080, 128)]
        );
        // 8-byte words in order: one 128-byte transaction per half-warp.
        let doubles: [u64; 32] = std::array::from_fn(|l| 0x8000 + 8 * l as u64);
        assert_eq!(
            run(u32::MAX, &doubles, 8, true),
            vec![(0x8000, 128), (0x8080, 128)]
        );
        // Inactive threads do not break G80 coalescing.
        assert_eq!(run(0x0000_fff0, &linear, 4, true), vec![(0x1000, 64)]);
    }
}
