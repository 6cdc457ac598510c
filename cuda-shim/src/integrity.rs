//! The integrity check cudart runs against the driver (export table
//! `d4082055-…`, slot 1): the driver answers a challenge (cudart's
//! version and the time) with a keyed hash of itself and the process;
//! cudart computes the same from what the driver reports and refuses a
//! driver whose answer differs.
//!
//! As public reimplementations describe it (the code here is ours): the
//! hash is HMAC (RFC 2104) over MD2 (RFC 1319, 16-byte blocks) with a
//! fixed 16-byte key; the message is the driver's version, cudart's
//! version, the process id, the calling thread (`pthread_self`, low 32
//! bits), the addresses of the cudart-interface table, of the
//! integrity-check table and of its check function, and the time; then,
//! per device, its UUID and PCI domain, bus and device numbers. Versions
//! ending in 0 or 1 get fixed answers instead. The answer is the
//! digest's 16 bytes as two native-endian `u64`s.

/// RFC 1319's substitution table (from the digits of pi).
const S: [u8; 256] = [
    41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19, 98, 167, 5, 243, 192, 199,
    115, 140, 152, 147, 43, 217, 188, 76, 130, 202, 30, 155, 87, 60, 253, 212, 224, 22, 103, 66,
    111, 24, 138, 23, 229, 18, 190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47,
    238, 122, 169, 104, 121, 145, 21, 178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33, 128, 127, 93,
    154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3, 255, 25, 48, 179, 72, 165, 181, 209,
    215, 94, 146, 42, 172, 86, 170, 198, 79, 184, 56, 210, 150, 164, 125, 182, 118, 252, 107, 226,
    156, 116, 4, 241, 69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2, 27,
    96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15, 85, 71, 163, 35, 221, 81,
    175, 58, 195, 92, 249, 206, 186, 197, 234, 38, 44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205,
    244, 65, 129, 77, 82, 106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74,
    120, 136, 149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57, 242, 239, 183, 14,
    102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10, 49, 68, 80, 180, 143, 237, 31, 26,
    219, 153, 141, 51, 159, 17, 131, 20,
];

/// MD2's state: `x` (48 bytes), the checksum, and the pending block.
struct Md2 {
    x: [u8; 48],
    checksum: [u8; 16],
    block: [u8; 16],
    len: usize,
}

impl Md2 {
    fn new() -> Self {
        Md2 {
            x: [0; 48],
            checksum: [0; 16],
            block: [0; 16],
            len: 0,
        }
    }

    fn compress(&mut self) {
        let mut last = self.checksum[15];
        for j in 0..16 {
            self.checksum[j] ^= S[(self.block[j] ^ last) as usize];
            last = self.checksum[j];
        }
        for j in 0..16 {
            self.x[16 + j] = self.block[j];
            self.x[32 + j] = self.x[j] ^ self.block[j];
        }
        let mut t = 0u8;
        for round in 0..18u8 {
            for v in self.x.iter_mut() {
                *v ^= S[t as usize];
                t = *v;
            }
            t = t.wrapping_add(round);
        }
    }

    fn update(&mut self, data: &[u8]) {
        for &b in data {
            self.block[self.len] = b;
            self.len += 1;
            if self.len == 16 {
                self.compress();
                self.len = 0;
            }
        }
    }

    fn finish(mut self) -> [u8; 16] {
        let pad = (16 - self.len) as u8;
        self.update(&vec![pad; pad as usize]);
        let checksum = self.checksum;
        self.update(&checksum);
        self.x[..16].try_into().unwrap_or([0; 16])
    }
}

/// MD2 of `parts` concatenated.
fn md2(parts: &[&[u8]]) -> [u8; 16] {
    let mut h = Md2::new();
    for p in parts {
        h.update(p);
    }
    h.finish()
}

/// HMAC-MD2 of `parts` concatenated, with a one-block key.
fn hmac_md2(key: &[u8; 16], parts: &[&[u8]]) -> [u8; 16] {
    let inner_key = key.map(|b| b ^ 0x36);
    let outer_key = key.map(|b| b ^ 0x5c);
    let mut inner: Vec<&[u8]> = vec![&inner_key];
    inner.extend_from_slice(parts);
    let inner = md2(&inner);
    md2(&[&outer_key, &inner])
}

const KEY: [u8; 16] = [
    0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52, 0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f,
];

/// What the answer covers besides the devices.
pub struct Challenge {
    pub driver_version: u32,
    pub version: u32,
    pub process: u32,
    pub thread: u32,
    pub cudart_table: usize,
    pub check_table: usize,
    pub check_fn: usize,
    pub seconds: u64,
}

/// One device's part: UUID, PCI domain, bus, device.
pub struct DeviceId {
    pub uuid: [u8; 16],
    pub pci: [i32; 3],
}

/// The answer to a challenge.
pub fn answer(c: &Challenge, devices: &[DeviceId]) -> [u64; 2] {
    match c.version % 10 {
        0 => return [0x3341181c03cb675c, 0x8ed383aa1f4cd1e8],
        1 => return [0x1841181c03cb675c, 0x8ed383aa1f4cd1e8],
        _ => {}
    }
    let mut msg = Vec::with_capacity(48 + 28 * devices.len());
    for v in [c.driver_version, c.version, c.process, c.thread] {
        msg.extend_from_slice(&v.to_ne_bytes());
    }
    for v in [c.cudart_table, c.check_table, c.check_fn] {
        msg.extend_from_slice(&(v as u64).to_ne_bytes());
    }
    msg.extend_from_slice(&c.seconds.to_ne_bytes());
    for d in devices {
        msg.extend_from_slice(&d.uuid);
        for v in d.pci {
            msg.extend_from_slice(&v.to_ne_bytes());
        }
    }
    let digest = hmac_md2(&KEY, &[&msg]);
    let word = |i: usize| u64::from_ne_bytes(digest[i..i + 8].try_into().unwrap_or([0; 8]));
    [word(0), word(8)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(d: [u8; 16]) -> String {
        d.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn md2_matches_rfc_1319() {
        assert_eq!(hex(md2(&[b""])), "8350e5a3e24c153df2275c9f80692773");
        assert_eq!(hex(md2(&[b"abc"])), "da853b0d3f88d99b30283a69e6ded6bb");
        assert_eq!(
            hex(md2(&[b"abcdefghijklmnopqrstuvwxyz"])),
            "4e8ddff3650292ab5a4108c3aa47940b"
        );
    }
}
