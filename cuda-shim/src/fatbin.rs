//! Fat binaries (what nvcc embeds for `__cudaRegisterFatBinary`, and what
//! `cuModuleLoadData` may be given): the PTX they hold.
//!
//! The layout, as `fatbinary.h`'s comments and public reimplementations
//! describe it (all little-endian):
//!
//! - the wrapper `__fatBinC_Wrapper_t`: magic `0x466243b1` (u32), version
//!   (u32: 1, or 2 for a null-terminated array of prelinked fatbins at
//!   offset 16), then a pointer to the fatbin (offset 8);
//! - the fatbin's header: magic `0xba55ed50` (u32), version 1 (u16),
//!   header size (u16, 16), then the size of the entries after the header
//!   (u64);
//! - each entry: kind (u16 at 0: 1 PTX, 2 ELF cubin), version (u16 at 2),
//!   its header's size (u32 at 4: 64, or 80 for PTX), the payload's size
//!   padded to 8 bytes (u32 at 8), its size unpadded (u32 at 16; for a
//!   compressed payload, the compressed size), the target's `sm_XY` as
//!   `XY` (u32 at 28), flags (u64 at 40: `0x2000` LZ4-compressed, `0x8000`
//!   Zstandard-compressed) and the uncompressed size (u64 at 56); the
//!   payload follows the entry's header, the next entry the payload.
//!   (Checked against the fatbins nvcc 12 embedded in CuPy's modules, whose
//!   entries are LZ4-compressed.)
//!
//! PTX payloads are NUL-padded text; an LZ4-compressed one is expanded
//! here (`lz4_block`). ELF cubins (SASS) are skipped: warpjit runs PTX.

/// `__fatBinC_Wrapper_t`'s magic.
pub const WRAPPER_MAGIC: u32 = 0x466243b1;
/// A fatbin header's magic.
pub const FATBIN_MAGIC: u32 = 0xba55ed50;

/// Whether `b` starts with a fatbin's or a fatbin wrapper's magic.
pub fn has_magic(b: &[u8]) -> bool {
    u32_at(b, 0).is_some_and(|m| m == FATBIN_MAGIC || m == WRAPPER_MAGIC)
}

const KIND_PTX: u16 = 1;
const FLAG_LZ4: u64 = 0x2000;
const FLAG_ZSTD: u64 = 0x8000;
/// Entry headers are at least this long (the fields above).
const MIN_ENTRY_HEADER: usize = 64;

/// One PTX entry: its target (`sm_XY` as `XY`) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ptx {
    pub sm: u32,
    pub text: String,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The bytes of the fatbin at `p` (header and entries), read from its
/// header's sizes. `None` unless `p` starts with a fatbin's magic.
///
/// # Safety
/// `p` must be readable for 16 bytes, and for the sizes its header gives
/// when the magic matches.
pub unsafe fn fatbin_at<'a>(p: *const u8) -> Option<&'a [u8]> {
    if p.is_null() {
        return None;
    }
    let head = std::slice::from_raw_parts(p, 16);
    if u32_at(head, 0)? != FATBIN_MAGIC {
        return None;
    }
    let len = (u16_at(head, 6)? as u64).checked_add(u64_at(head, 8)?)?;
    Some(std::slice::from_raw_parts(p, usize::try_from(len).ok()?))
}

/// The fatbins a pointer designates: a wrapper (its fatbin, or for
/// version 2 each prelinked fatbin of its list) or a fatbin itself.
///
/// # Safety
/// `p` must point to a wrapper or a fatbin laid out as above.
pub unsafe fn fatbins_at<'a>(p: *const u8) -> Result<Vec<&'a [u8]>, String> {
    if p.is_null() {
        return Err("a null fatbin".into());
    }
    let magic = (p as *const u32).read_unaligned();
    if magic == FATBIN_MAGIC {
        return Ok(vec![fatbin_at(p).ok_or("a malformed fatbin header")?]);
    }
    if magic != WRAPPER_MAGIC {
        return Err(format!("not a fatbin (magic {magic:#x})"));
    }
    let version = (p.add(4) as *const u32).read_unaligned();
    let data = (p.add(8) as *const *const u8).read_unaligned();
    match version {
        1 => Ok(vec![
            fatbin_at(data).ok_or("the wrapper's data is not a fatbin")?
        ]),
        2 => {
            let mut list = (p.add(16) as *const *const *const u8).read_unaligned();
            let mut out = Vec::new();
            if let Some(f) = fatbin_at(data) {
                out.push(f);
            }
            while !list.is_null() && !(*list).is_null() {
                out.push(fatbin_at(*list).ok_or("a prelinked fatbin is malformed")?);
                list = list.add(1);
            }
            Ok(out)
        }
        v => Err(format!("fatbin wrapper version {v}")),
    }
}

/// The PTX entries of a fatbin, in order.
pub fn ptx_entries(fatbin: &[u8]) -> Result<Vec<Ptx>, String> {
    let bad = |what: &str| format!("malformed fatbin: {what}");
    if u32_at(fatbin, 0) != Some(FATBIN_MAGIC) {
        return Err(bad("magic"));
    }
    let head = u16_at(fatbin, 6).ok_or_else(|| bad("header"))? as usize;
    let mut at = head;
    let mut out = Vec::new();
    while at + MIN_ENTRY_HEADER <= fatbin.len() {
        let e = &fatbin[at..];
        let (kind, hsize) = (
            u16_at(e, 0).unwrap_or(0),
            u32_at(e, 4).unwrap_or(0) as usize,
        );
        let size = u32_at(e, 8).unwrap_or(0) as usize;
        let compressed = u32_at(e, 16).unwrap_or(0) as usize;
        let sm = u32_at(e, 28).unwrap_or(0);
        let flags = u64_at(e, 40).unwrap_or(0);
        let raw = u64_at(e, 56).unwrap_or(0) as usize;
        if hsize < MIN_ENTRY_HEADER {
            return Err(bad("entry header size"));
        }
        let stored = if flags & (FLAG_LZ4 | FLAG_ZSTD) != 0 {
            compressed
        } else {
            size
        };
        let payload = e
            .get(hsize..hsize + stored)
            .ok_or_else(|| bad("entry past the end"))?;
        if kind == KIND_PTX {
            let bytes = if flags & FLAG_ZSTD != 0 {
                return Err(format!(
                    "the sm_{sm} PTX is Zstandard-compressed, which warpjit does not expand"
                ));
            } else if flags & FLAG_LZ4 != 0 {
                lz4_block(payload, raw).ok_or_else(|| bad("LZ4 payload"))?
            } else {
                payload.to_vec()
            };
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            let text = String::from_utf8(bytes[..end].to_vec()).map_err(|_| bad("PTX text"))?;
            out.push(Ptx { sm, text });
        }
        at += hsize + size.max(compressed);
    }
    Ok(out)
}

/// The PTX to load from some fatbins: the one for the highest target not
/// above `sm` (the device's compute capability as `XY`), else the lowest.
pub fn choose_ptx(fatbins: &[&[u8]], sm: u32) -> Result<Ptx, String> {
    let mut all = Vec::new();
    for f in fatbins {
        all.extend(ptx_entries(f)?);
    }
    let fits = all.iter().filter(|p| p.sm <= sm).max_by_key(|p| p.sm);
    let pick = fits.or_else(|| all.iter().min_by_key(|p| p.sm)).cloned();
    pick.ok_or_else(|| {
        "the fatbin holds no PTX (only SASS cubins; warpjit runs PTX: build with \
         -gencode arch=compute_XY,code=compute_XY)"
            .to_string()
    })
}

/// Expands one LZ4 block (the LZ4 block format: sequences of a token,
/// literals, and a back-reference) into at most `cap` bytes (0: no bound).
pub fn lz4_block(src: &[u8], cap: usize) -> Option<Vec<u8>> {
    // LZ4 expands at most 255 to 1: a hostile size cannot reserve more.
    let mut out: Vec<u8> = Vec::with_capacity(cap.min(src.len().saturating_mul(255)));
    let mut i = 0;
    let length = |i: &mut usize, mut n: usize| -> Option<usize> {
        if n == 15 {
            loop {
                let b = *src.get(*i)?;
                *i += 1;
                n += b as usize;
                if b != 255 {
                    break;
                }
            }
        }
        Some(n)
    };
    while i < src.len() {
        let token = src[i];
        i += 1;
        let lit = length(&mut i, (token >> 4) as usize)?;
        out.extend_from_slice(src.get(i..i + lit)?);
        i += lit;
        if i >= src.len() {
            break; // the last sequence has literals only
        }
        let offset = u16_at(src, i)? as usize;
        i += 2;
        let len = length(&mut i, (token & 15) as usize)? + 4;
        if offset == 0 || offset > out.len() || (cap > 0 && out.len() + len > cap) {
            return None;
        }
        let start = out.len() - offset;
        for k in 0..len {
            let b = out[start + k];
            out.push(b);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lz4_expands_literals_and_matches() {
        // "abcabcabcabc!" : literals "abc", a match of 9 at offset 3, then "!".
        let src = [0x35, b'a', b'b', b'c', 3, 0, 0x10, b'!'];
        assert_eq!(lz4_block(&src, 64).unwrap(), b"abcabcabcabc!");
        assert!(
            lz4_block(&[0x05, 9, 0], 64).is_none(),
            "offset before the start"
        );
        // A long overlapping match (length 15 + 10 + 4 at offset 1).
        let src = [0x1f, b'a', 1, 0, 10, 0x10, b'b'];
        let mut want = vec![b'a'; 30];
        want.push(b'b');
        assert_eq!(lz4_block(&src, 31).unwrap(), want);
        // A hostile uncompressed size reserves nothing it cannot fill.
        assert_eq!(lz4_block(&src, usize::MAX >> 1).unwrap(), want);
        assert!(lz4_block(&src, 20).is_none(), "longer than the stated size");
    }
}
