//! Pure formatter for CUDA device `printf`, i.e. the `vprintf(fmt, args)` call.
//!
//! nvcc/NVRTC lower `printf(fmt, a, b, ...)` in device code to `vprintf(fmt, buf)`:
//! `fmt` is a NUL-terminated global byte array, `buf` a local buffer into which the
//! compiler packs the arguments after C's default argument promotions.
//!
//! # Packing rule (checked against `ptx-samples/cuda/printf_basic`)
//!
//! Arguments are laid out like the fields of a C struct: each one is stored
//! little-endian at the next offset aligned to its own size, starting at 0.
//! * `char`, `short`, `int`, `unsigned` -> a 4-byte slot (`%c`, `%hd`, `%hhu`
//!   read 4 bytes; `h`/`hh` then truncate the value).
//! * `long` (64-bit: device code is LP64), `long long`, `size_t`, pointers
//!   (`%s`, `%p`) -> 8 bytes, 8-aligned.
//! * `float` is promoted to `double` (`cvt.f64.f32` before the store) -> 8 bytes.
//!
//! E.g. `"%s %c%c %.3s"` has a pointer at 0, ints at 8 and 12, a pointer at 16;
//! nine `int`s followed by a `%s` pointer put the pointer at 40.
//!
//! # Formatting
//!
//! CUDA does the final formatting on the host with the host C library, so the
//! output follows glibc: conversions `d i u x X o c s p f F e E g G a A %`,
//! flags `- + space # 0`, width, precision and length modifiers `hh h l ll`
//! (also `z j t`, 64-bit). Width and precision may be `*` (CUDA documents `*`
//! only for the width; both read an `int` slot, negative values act as in C).
//! glibc behaviour reproduced: `%p` prints like `%#lx` and `(nil)` for 0; `%s`
//! of a null pointer prints `(null)`, or nothing under a precision below 6;
//! `-nan` for a NaN with the sign bit; `%a` rounds half to even (`0x2p+0`);
//! `%#g` prints `1.e+06` when rounding carries into the next power of ten.
//! Decimal output is exact and correctly rounded (Rust's float formatting).
//! As CUDA documents, one call consumes at most [`MAX_ARGS`] arguments: a
//! conversion needing more is copied to the output verbatim.
//!
//! [`PrintfError`] reports incomplete specifications, conversions CUDA does not
//! list (`%n`, `%ls`, `%lc`, `%Lf`, `%1$d`, ...), a width or precision above
//! [`MAX_FIELD`], argument slots past the buffer's end and unreadable strings.

use std::fmt;

/// Largest accepted width or precision (guards against huge allocations).
pub const MAX_FIELD: usize = 1 << 16;

/// Most arguments one CUDA `printf` call consumes.
pub const MAX_ARGS: usize = 32;

/// Errors a malformed printf call can produce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrintfError {
    /// The argument slot `[offset, offset + size)` lies past the buffer's end.
    ArgsOutOfRange { offset: usize, size: usize },
    /// `read_cstr` failed for the `%s` argument at `addr`.
    BadString { addr: u64, msg: String },
    /// The format ends inside the specification starting at byte `pos`.
    Incomplete { pos: usize },
    /// The specification at byte `pos` has a width or precision above [`MAX_FIELD`].
    FieldTooLarge { pos: usize },
    /// The specification `spec` at byte `pos` is not supported.
    Unsupported { pos: usize, spec: String },
}

impl fmt::Display for PrintfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ArgsOutOfRange { offset, size } => {
                write!(
                    f,
                    "printf argument ({size} bytes at offset {offset}) past the buffer"
                )
            }
            Self::BadString { addr, msg } => write!(f, "printf %s string at {addr:#x}: {msg}"),
            Self::Incomplete { pos } => write!(f, "incomplete printf specification at byte {pos}"),
            Self::FieldTooLarge { pos } => write!(f, "printf width/precision too large at {pos}"),
            Self::Unsupported { pos, spec } => write!(
                f,
                "unsupported printf specification `{}` at byte {pos}",
                spec.escape_debug()
            ),
        }
    }
}

impl std::error::Error for PrintfError {}

/// Formats one device printf call as CUDA does.
/// `fmt` is the format string's bytes (up to, not including, the NUL);
/// `args` is the packed argument buffer (may be longer than needed);
/// `read_cstr(addr)` returns the bytes of the NUL-terminated string at a device
/// address (for %s), or an error message.
/// Output bytes that are not UTF-8 become U+FFFD; [`format_bytes`] keeps them.
pub fn format(
    fmt: &[u8],
    args: &[u8],
    read_cstr: &mut dyn FnMut(u64) -> Result<Vec<u8>, String>,
) -> Result<String, PrintfError> {
    let bytes = format_bytes(fmt, args, read_cstr)?;
    Ok(String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// Like [`format()`], but returns the exact output bytes.
pub fn format_bytes(
    fmt: &[u8],
    args: &[u8],
    read_cstr: &mut dyn FnMut(u64) -> Result<Vec<u8>, String>,
) -> Result<Vec<u8>, PrintfError> {
    let mut out = Vec::with_capacity(fmt.len() + 16);
    let mut args = Args {
        buf: args,
        off: 0,
        used: 0,
    };
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        let spec = parse_spec(fmt, i)?;
        let text = &fmt[i..spec.end];
        let need = [spec.width, spec.prec]
            .iter()
            .filter(|f| **f == Some(Field::Star))
            .count()
            + usize::from(spec.conv != b'%');
        if args.used + need > MAX_ARGS {
            out.extend_from_slice(text);
        } else {
            convert(&spec, i, text, &mut args, read_cstr, &mut out)?;
        }
        i = spec.end;
    }
    Ok(out)
}

/// A width or precision as written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Num(usize),
    Star,
}

/// One parsed `%[flags][width][.precision][length]conversion`.
#[derive(Default)]
struct Spec<'a> {
    flags: &'a [u8],
    width: Option<Field>,
    prec: Option<Field>,
    len: &'a [u8],
    conv: u8,
    /// Index just past the conversion character.
    end: usize,
}

/// Parses the specification whose `%` is at `pos`.
fn parse_spec(fmt: &[u8], pos: usize) -> Result<Spec<'_>, PrintfError> {
    let at = |j: usize| fmt.get(j).copied().ok_or(PrintfError::Incomplete { pos });
    let mut j = pos + 1;
    while b"-+ #0".contains(&at(j)?) {
        j += 1;
    }
    let mut s = Spec {
        flags: &fmt[pos + 1..j],
        ..Spec::default()
    };
    let field = |j: &mut usize| -> Result<Option<Field>, PrintfError> {
        if at(*j)? == b'*' {
            *j += 1;
            return Ok(Some(Field::Star));
        }
        let mut n = None;
        while let c @ b'0'..=b'9' = at(*j)? {
            let v = n.unwrap_or(0) * 10 + usize::from(c - b'0');
            if v > MAX_FIELD {
                return Err(PrintfError::FieldTooLarge { pos });
            }
            n = Some(v);
            *j += 1;
        }
        Ok(n.map(Field::Num))
    };
    s.width = field(&mut j)?;
    if at(j)? == b'.' {
        j += 1;
        s.prec = Some(field(&mut j)?.unwrap_or(Field::Num(0)));
    }
    let n = match (at(j)?, fmt.get(j + 1)) {
        (b'h', Some(b'h')) | (b'l', Some(b'l')) => 2,
        (b'h' | b'l' | b'z' | b'j' | b't' | b'L' | b'q', _) => 1,
        _ => 0,
    };
    s.len = &fmt[j..j + n];
    s.conv = at(j + n)?;
    s.end = j + n + 1;
    Ok(s)
}

/// Reads packed arguments, each at the next offset aligned to its size.
struct Args<'a> {
    buf: &'a [u8],
    off: usize,
    used: usize,
}

impl Args<'_> {
    fn take(&mut self, size: usize) -> Result<u64, PrintfError> {
        let offset = self.off.next_multiple_of(size);
        let bytes = (self.buf.get(offset..offset + size))
            .ok_or(PrintfError::ArgsOutOfRange { offset, size })?;
        let mut v = [0u8; 8];
        v[..size].copy_from_slice(bytes);
        self.off = offset + size;
        self.used += 1;
        Ok(u64::from_le_bytes(v))
    }

    fn int(&mut self) -> Result<i32, PrintfError> {
        Ok(self.take(4)? as u32 as i32)
    }
}

fn convert(
    spec: &Spec<'_>,
    pos: usize,
    text: &[u8],
    args: &mut Args<'_>,
    read_cstr: &mut dyn FnMut(u64) -> Result<Vec<u8>, String>,
    out: &mut Vec<u8>,
) -> Result<(), PrintfError> {
    let unsupported = || {
        let spec = String::from_utf8_lossy(text).into_owned();
        Err(PrintfError::Unsupported { pos, spec })
    };
    let flag = |c: u8| spec.flags.contains(&c);
    let (alt, len) = (flag(b'#'), spec.len);
    let width = match spec.width {
        Some(Field::Star) => i64::from(args.int()?),
        Some(Field::Num(n)) => n as i64,
        None => 0,
    };
    let prec = match spec.prec {
        Some(Field::Star) => usize::try_from(args.int()?).ok(),
        Some(Field::Num(n)) => Some(n),
        None => None,
    };
    let (left, width) = (flag(b'-') || width < 0, width.unsigned_abs() as usize);
    if width.max(prec.unwrap_or(0)) > MAX_FIELD {
        return Err(PrintfError::FieldTooLarge { pos });
    }
    let pad = Pad {
        width,
        left,
        zero: flag(b'0') && !left,
    };
    // Integers ignore `0` under a precision; text never zero-pads.
    let int_pad = Pad {
        zero: pad.zero && prec.is_none(),
        ..pad
    };
    let text_pad = Pad { zero: false, ..pad };
    let sign = |neg: bool| match (neg, flag(b'+'), flag(b' ')) {
        (true, ..) => "-",
        (_, true, _) => "+",
        (_, _, true) => " ",
        _ => "",
    };
    match spec.conv {
        b'%' => out.push(b'%'),
        b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => {
            let bits = match len {
                b"" => 32,
                b"h" => 16,
                b"hh" => 8,
                b"L" | b"q" => return unsupported(),
                _ => 64,
            };
            let v = args.take(bits.max(32) / 8)? << (64 - bits);
            let (mag, pre) = match spec.conv {
                b'd' | b'i' => (
                    (v as i64 >> (64 - bits)).unsigned_abs(),
                    sign((v as i64) < 0),
                ),
                _ => (v >> (64 - bits), ""),
            };
            let mut digits = int_digits(mag, spec.conv, prec);
            let pre = match spec.conv {
                b'o' if alt && !digits.starts_with('0') => {
                    digits.insert(0, '0');
                    pre
                }
                b'x' if alt && mag != 0 => "0x",
                b'X' if alt && mag != 0 => "0X",
                _ => pre,
            };
            int_pad.emit(out, pre.as_bytes(), digits.as_bytes());
        }
        b'c' if matches!(len, b"" | b"h" | b"hh") => {
            text_pad.emit(out, b"", &[args.take(4)? as u8]);
        }
        b's' if len.is_empty() => {
            let addr = args.take(8)?;
            let mut s = match addr {
                0 if prec.is_some_and(|p| p < 6) => Vec::new(),
                0 => b"(null)".to_vec(),
                _ => read_cstr(addr).map_err(|msg| PrintfError::BadString { addr, msg })?,
            };
            s.truncate(s.iter().position(|&b| b == 0).unwrap_or(s.len()));
            s.truncate(prec.unwrap_or(s.len()));
            text_pad.emit(out, b"", &s);
        }
        b'p' if len.is_empty() => match args.take(8)? {
            0 => text_pad.emit(out, b"", b"(nil)"),
            v => {
                let pre = format!("{}0x", sign(false));
                int_pad.emit(out, pre.as_bytes(), int_digits(v, b'x', prec).as_bytes());
            }
        },
        b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' if matches!(len, b"" | b"l") => {
            let x = f64::from_bits(args.take(8)?);
            let (a, mut pre) = (x.abs(), sign(x.is_sign_negative()).to_string());
            let body = match spec.conv.to_ascii_lowercase() {
                _ if x.is_nan() => "nan".to_string(),
                _ if x.is_infinite() => "inf".to_string(),
                b'f' => fixed(a, prec.unwrap_or(6), alt),
                b'e' => {
                    let (m, e) = exp_parts(a, prec.unwrap_or(6), alt);
                    m + &e
                }
                b'g' => general(a, prec, alt),
                _ => {
                    pre += "0x";
                    hex_float(a, prec, alt)
                }
            };
            let zero = pad.zero && x.is_finite();
            let (pre, body) = match spec.conv.is_ascii_uppercase() {
                true => (pre.to_ascii_uppercase(), body.to_ascii_uppercase()),
                false => (pre, body),
            };
            Pad { zero, ..pad }.emit(out, pre.as_bytes(), body.as_bytes());
        }
        _ => return unsupported(),
    }
    Ok(())
}

#[derive(Clone, Copy)]
struct Pad {
    width: usize,
    left: bool,
    zero: bool,
}

impl Pad {
    /// Writes `prefix` (sign, `0x`) and `body`, padded to the width.
    fn emit(self, out: &mut Vec<u8>, prefix: &[u8], body: &[u8]) {
        let fill = self.width.saturating_sub(prefix.len() + body.len());
        let (before, zeros, after) = match (self.left, self.zero) {
            (true, _) => (0, 0, fill),
            (false, true) => (0, fill, 0),
            (false, false) => (fill, 0, 0),
        };
        out.extend(std::iter::repeat_n(b' ', before));
        out.extend_from_slice(prefix);
        out.extend(std::iter::repeat_n(b'0', zeros));
        out.extend_from_slice(body);
        out.extend(std::iter::repeat_n(b' ', after));
    }
}

/// Digits of an integer conversion, zero-extended to the precision.
fn int_digits(mag: u64, conv: u8, prec: Option<usize>) -> String {
    let d = match (conv, prec, mag) {
        (_, Some(0), 0) => String::new(),
        (b'x', ..) => format!("{mag:x}"),
        (b'X', ..) => format!("{mag:X}"),
        (b'o', ..) => format!("{mag:o}"),
        _ => mag.to_string(),
    };
    "0".repeat(prec.unwrap_or(0).saturating_sub(d.len())) + &d
}

/// `%f` body of a finite non-negative value.
fn fixed(a: f64, prec: usize, alt: bool) -> String {
    let dot = if alt && prec == 0 { "." } else { "" };
    format!("{a:.prec$}{dot}")
}

/// `%e` body of a finite non-negative value, split before the `e`.
fn exp_parts(a: f64, prec: usize, alt: bool) -> (String, String) {
    let s = format!("{a:.prec$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let dot = if alt && prec == 0 { "." } else { "" };
    let sign = if e < 0 { '-' } else { '+' };
    (
        format!("{m}{dot}"),
        format!("e{sign}{:02}", e.unsigned_abs()),
    )
}

/// `%g` body of a finite non-negative value.
fn general(a: f64, prec: Option<usize>, alt: bool) -> String {
    let p = prec.unwrap_or(6).max(1);
    // The exponent %e would print with precision p - 1 (after rounding).
    let x = match a {
        0.0 => 0,
        _ => format!("{a:.*e}", p - 1)
            .split_once('e')
            .map_or(0, |(_, e)| e.parse().unwrap_or(0)),
    };
    let (mut s, suffix) = if x >= -4 && x < p as i32 {
        (fixed(a, (p as i32 - 1 - x) as usize, alt), String::new())
    } else if alt && x == p as i32 && p <= 22 && a < 10f64.powi(x) {
        // glibc quirk: when rounding carries an f-style value up to 10^p,
        // `%#g` prints `1.e+p` without the p - 1 zeros.
        ("1.".to_string(), format!("e+{x:02}"))
    } else {
        exp_parts(a, p - 1, alt)
    };
    if !alt && s.contains('.') {
        s.truncate(s.trim_end_matches('0').trim_end_matches('.').len());
    }
    s + &suffix
}

/// `%a` body (after `0x`) of a finite non-negative value, as glibc prints it.
fn hex_float(a: f64, prec: Option<usize>, alt: bool) -> String {
    let bits = a.to_bits();
    let biased = (bits >> 52) as i32;
    let mut frac = bits & ((1u64 << 52) - 1);
    let (mut lead, e) = match (biased, frac) {
        (0, 0) => (0u64, 0),
        (0, _) => (0, -1022),
        _ => (1, biased - 1023),
    };
    let mut ndig = 13;
    match prec {
        None => {
            while ndig > 0 && frac & 0xf == 0 {
                frac >>= 4;
                ndig -= 1;
            }
        }
        Some(p) if p < 13 => {
            let drop = 4 * (13 - p as u32);
            let (rest, half) = (frac & ((1u64 << drop) - 1), 1u64 << (drop - 1));
            frac >>= drop;
            let odd = if p == 0 { lead & 1 } else { frac & 1 };
            if rest > half || (rest == half && odd == 1) {
                frac += 1;
                if frac >> (4 * p) != 0 {
                    (frac, lead) = (0, lead + 1);
                }
            }
            ndig = p;
        }
        Some(_) => {}
    }
    let dot = if ndig > 0 || alt { "." } else { "" };
    let digits = if ndig > 0 {
        format!("{frac:0ndig$x}")
    } else {
        String::new()
    };
    let zeros = "0".repeat(prec.unwrap_or(0).saturating_sub(13));
    let sign = if e < 0 { '-' } else { '+' };
    format!("{lead}{dot}{digits}{zeros}p{sign}{}", e.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    enum A {
        I(i32),
        L(i64),
        D(f64),
        P(u64),
        S(&'static str),
    }
    use A::*;

    /// Strings live at fake device addresses `0x1000 * (index + 1)`.
    fn reader(strs: Vec<&'static str>) -> impl FnMut(u64) -> Result<Vec<u8>, String> {
        move |addr| match strs.get((addr / 0x1000).wrapping_sub(1) as usize) {
            Some(s) if addr % 0x1000 == 0 => Ok(s.as_bytes().to_vec()),
            _ => Err(format!("no string at {addr:#x}")),
        }
    }

    /// Packs `args` by the rule: each at the next offset aligned to its size.
    fn run(fmt: &str, args: &[A]) -> Result<String, PrintfError> {
        let (mut buf, mut strs) = (Vec::new(), Vec::new());
        for a in args {
            let (size, v) = match a {
                I(v) => (4, *v as u32 as u64),
                L(v) => (8, *v as u64),
                D(v) => (8, v.to_bits()),
                P(v) => (8, *v),
                S(s) => {
                    strs.push(*s);
                    (8, 0x1000 * strs.len() as u64)
                }
            };
            buf.resize(buf.len().next_multiple_of(size), 0xAA);
            buf.extend_from_slice(&v.to_le_bytes()[..size]);
        }
        format(fmt.as_bytes(), &buf, &mut reader(strs))
    }

    /// (format, arguments, what glibc 2.36's snprintf printed for them).
    #[rustfmt::skip]
    const GLIBC: &[(&str, &[A], &str)] = &[
        ("%d|%i|%5d|%-5d|%05d|%+d", &[I(0), I(-1), I(42), I(-42), I(-42), I(7)], "0|-1|   42|-42  |-0042|+7"),
        ("% d|%+5d|%-+5d|%.3d|%8.3d|%08.3d", &[I(7), I(-7), I(7), I(-7), I(7), I(-7)], " 7|   -7|+7   |-007|     007|    -007"),
        ("[%.0d][%+.0d][%3.0d][% 05d][%+05d][%0-5d]", &[I(0), I(0), I(0), I(-5), I(5), I(5)], "[][+][   ][-0005][+0005][5    ]"),
        ("%d %d %i %i", &[I(2147483647), I(-2147483648), I(12345), I(-12345)], "2147483647 -2147483648 12345 -12345"),
        ("%u|%x|%X|%o|%#x|%#X", &[I(-1), I(-559038737), I(-559038737), I(8), I(255), I(255)], "4294967295|deadbeef|DEADBEEF|10|0xff|0XFF"),
        ("%#o|%#x|%#.0x|%#.0o|%#08x|%-#8x|", &[I(0), I(0), I(0), I(0), I(255), I(255)], "0|0||0|0x0000ff|0xff    |"),
        ("%.5x|%#.5o|%08X|%#10.4x|%u", &[I(171), I(8), I(48879), I(31), I(-2147483648)], "000ab|00010|0000BEEF|    0x001f|2147483648"),
        ("%lld|%ld|%lli|%llu|%lx|%llo", &[L(-1234567890123), L(9223372036854775807), L(-9223372036854775808), L(-1), L(81985529216486895), L(1023)], "-1234567890123|9223372036854775807|-9223372036854775808|18446744073709551615|123456789abcdef|1777"),
        ("%+lld|%25lld|%-22lld|%025lld|%.20lld", &[L(1), L(-9223372036854775808), L(-1), L(-1234567890123), L(42)], "+1|     -9223372036854775808|-1                    |-000000000001234567890123|00000000000000000042"),
        ("%zu|%zd|%jd|%tx", &[L(-1), L(-5), L(-6), L(255)], "18446744073709551615|-5|-6|ff"),
        ("%hd|%hu|%hx|%hhd|%hhu|%hhx", &[I(70000), I(-1), I(-1), I(300), I(-1), I(427)], "4464|65535|ffff|44|255|ab"),
        ("%hd|%hhd|%hho|%+hd|%#hhx|%5hhd", &[I(32768), I(128), I(-1), I(-2011), I(-1), I(-129)], "-32768|-128|377|-2011|0xff|  127"),
        ("%f|%.0f|%.1f|%.2f|%.3f|%.10f", &[D(0.1), D(0.5), D(0.25), D(0.125), D(0.6666666666666666), D(0.3333333333333333)], "0.100000|0|0.2|0.12|0.667|0.3333333333"),
        ("%.0f|%.0f|%.0f|%.1f|%.1f|%.20f", &[D(1.5), D(2.5), D(-0.5), D(0.35), D(0.05), D(0.1)], "2|2|-0|0.3|0.1|0.10000000000000000555"),
        ("%10.3f|%-10.3f|%010.3f|%+f|% f|%+.0f", &[D(5.87654), D(-5.87654), D(-5.87654), D(1.0), D(1.0), D(-0.0)], "     5.877|-5.877    |-00005.877|+1.000000| 1.000000|-0"),
        ("%#.0f|%F|%f|%f|%.3f", &[D(3.0), D(1e+21), D(1.7976931348623157e+308), D(5e-324), D(999.9995)], "3.|1000000000000000000000.000000|179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368.000000|0.000000|1000.000"),
        ("%e|%.0e|%.1e|%.3e|%#.0e|%12.4e", &[D(0.0), D(5.0), D(0.25), D(-1.5e-05), D(3.0), D(123456.0)], "0.000000e+00|5e+00|2.5e-01|-1.500e-05|3.e+00|  1.2346e+05"),
        ("%-12.4e|%012.4e|%+e|% E|%E|%.15e", &[D(1e-300), D(-1e+300), D(1.0), D(2.0), D(5e-324), D(0.1)], "1.0000e-300 |-1.0000e+300|+1.000000e+00| 2.000000E+00|4.940656E-324|1.000000000000000e-01"),
        ("%.3e|%.2e|%e|%.0e|%e|%e", &[D(9.9996), D(9.995), D(1e+100), D(9.5), D(2.2250738585072014e-308), D(-0.0)], "1.000e+01|9.99e+00|1.000000e+100|1e+01|2.225074e-308|-0.000000e+00"),
        ("%g|%g|%g|%g|%g|%g", &[D(0.0), D(1e+05), D(1e+06), D(0.0001), D(1e-05), D(123456789.0)], "0|100000|1e+06|0.0001|1e-05|1.23457e+08"),
        ("%g|%.0g|%.1g|%.2g|%.3g|%.10g", &[D(0.5), D(0.5), D(0.05), D(99.5), D(999.5), D(1.23456789012345)], "0.5|0.5|0.05|1e+02|1e+03|1.23456789"),
        ("%.17g|%#g|%#.3g|%#.0g|%10g|%-10g|", &[D(0.1), D(1.0), D(1.0), D(0.5), D(1e-10), D(2.5)], "0.10000000000000001|1.00000|1.00|0.5|     1e-10|2.5       |"),
        ("%010g|%+g|%G|%.3G|%G|%g", &[D(-2.5), D(2.5), D(1e-10), D(123456.0), D(1e+20), D(-1e-300)], "-0000002.5|+2.5|1E-10|1.23E+05|1E+20|-1e-300"),
        ("%#g|%#.3g|%#.1g|%#.5g|%#10.3g|%#g", &[D(999999.5), D(999.5), D(9.7), D(99999.5), D(999.7), D(9.9999999e-05)], "1.e+06|1.e+03|1.e+01|1.e+05|    1.e+03|0.000100000"),
        ("%a|%a|%a|%a|%A|%a", &[D(0.0), D(1.0), D(0.1), D(-0.5), D(0.1), D(1.7976931348623157e+308)], "0x0p+0|0x1p+0|0x1.999999999999ap-4|-0x1p-1|0X1.999999999999AP-4|0x1.fffffffffffffp+1023"),
        ("%a|%a|%.0a|%.0a|%.0a|%.1a", &[D(5e-324), D(2.2250738585072014e-308), D(1.5), D(2.5), D(0.1), D(1.96875)], "0x0.0000000000001p-1022|0x1p-1022|0x2p+0|0x1p+1|0x2p-4|0x2.0p+0"),
        ("%.1a|%.1a|%.3a|%.15a|%#a|%#.0a", &[D(1.03125), D(1.09375), D(1.0), D(0.1), D(1.0), D(1.0)], "0x1.0p+0|0x1.2p+0|0x1.000p+0|0x1.999999999999a00p-4|0x1.p+0|0x1.p+0"),
        ("%015a|%-15a|%+a|% a|%.2a|%.0a", &[D(1.0), D(-1.0), D(2.0), D(2.0), D(5e-324), D(2.225073858507201e-308)], "0x0000000001p+0|-0x1p+0        |+0x1p+1| 0x1p+1|0x0.00p-1022|0x1p-1022"),
        ("%f|%e|%g|%a|%F|%E", &[D(f64::INFINITY), D(-f64::INFINITY), D(f64::NAN), D(-f64::NAN), D(f64::INFINITY), D(f64::NAN)], "inf|-inf|nan|-nan|INF|NAN"),
        ("%010f|%-10e|%+g|% a|%05.1f|%G", &[D(f64::INFINITY), D(-f64::INFINITY), D(f64::NAN), D(f64::INFINITY), D(-f64::INFINITY), D(-f64::NAN)], "       inf|-inf      |+nan| inf| -inf|-NAN"),
        ("%lf|%.1lf|%le|%lg", &[D(2.5), D(0.05), D(2.5), D(2.5)], "2.500000|0.1|2.500000e+00|2.5"),
        ("%c|%3c|%-3c|%03c|%hhc|%c", &[I(65), I(122), I(48), I(120), I(121), I(321)], "A|  z|0  |  x|y|A"),
        ("%s|%10s|%-10s|%.3s|%.0s|%010s", &[S("hello"), S("hi"), S("hi"), S("warpjit"), S("abc"), S("ab")], "hello|        hi|hi        |war||        ab"),
        ("[%s][%.3s][%.6s][%10s][%-7s][%10.2s]", &[P(0), P(0), P(0), P(0), P(0), S("hello")], "[(null)][][(null)][    (null)][(null) ][        he]"),
        ("%p|%p|%20p|%-20p|%020p|%+p", &[P(0x0), P(0x1234), P(0x1234), P(0x0), P(0x1234), P(0x1234)], "(nil)|0x1234|              0x1234|(nil)               |0x000000000000001234|+0x1234"),
        ("% p|%.3p|%.20p|%p", &[P(0x1), P(0x1234), P(0xabc), P(0xffffffffffffffff)], " 0x1|0x1234|0x00000000000000000abc|0xffffffffffffffff"),
        ("%*d|%*d|%-*d|", &[I(5), I(42), I(-5), I(42), I(3), I(7)], "   42|42   |7  |"),
        ("%.*f|%.*f|%.*s", &[I(3), D(5.87654), I(-1), D(5.87654), I(2), S("hello")], "5.877|5.876540|he"),
        ("%*.*f|%*.*e|%*s|", &[I(10), I(2), D(5.87654), I(-12), I(3), D(-58.7654), I(-4), S("ab")], "      5.88|-5.877e+01  |ab  |"),
        ("%d%lld%c%f%s%p", &[I(1), L(2), I(99), D(4.0), S("five"), P(0x6)], "12c4.000000five0x6"),
        ("%c%f%c%lld%hd%e", &[I(97), D(1.0), I(98), L(-5), I(-2), D(1e-10)], "a1.000000b-5-21.000000e-10"),
        ("[%5%][%-5%|][100%%]", &[], "[%][%|][100%]"),
    ];

    #[test]
    fn matches_glibc() {
        for (fmt, args, want) in GLIBC {
            assert_eq!(run(fmt, args).as_deref(), Ok(*want), "format {fmt:?}");
        }
    }

    fn st(buf: &mut [u8], off: usize, bytes: &[u8]) {
        buf[off..off + bytes.len()].copy_from_slice(bytes);
    }

    /// Replays `ptx-samples/cuda/printf_basic` (grid 2x48, base 777, scale
    /// 0.1, big 1234567890123), storing each argument at the offset its
    /// `st.local` in kernel.compute_80.ptx uses.
    #[test]
    fn printf_basic_sample() {
        const STRS: [&str; 7] = ["warpjit", "abcdef", "right", "left", "low", "mid", "high"];
        let addr = |s: &str| 0x1000 * (STRS.iter().position(|t| *t == s).unwrap() as u64 + 1);
        let (base, scale, big) = (777i32, 0.1f32, 1_234_567_890_123i64);
        let mut read = reader(STRS.to_vec());
        let mut out = String::new();
        let mut call = |fmt: &[u8], buf: &mut [u8; 64]| {
            out += &format(fmt, buf, &mut read).unwrap();
            *buf = [0xAA; 64];
        };
        let mut b = [0xAA; 64];
        for (bid, tid) in (0..2).flat_map(|b| (0..48).map(move |t| (b, t))) {
            let gid = bid * 48 + tid;
            if gid == 0 {
                st(&mut b, 0, &addr("warpjit").to_le_bytes());
                st(&mut b, 8, &(b'o' as i32).to_le_bytes());
                st(&mut b, 12, &(b'k' as i32).to_le_bytes());
                st(&mut b, 16, &addr("abcdef").to_le_bytes());
                st(&mut b, 24, &addr("right").to_le_bytes());
                st(&mut b, 32, &addr("left").to_le_bytes());
                call(b"header: %s %c%c %.3s|%10s|%-10s|%%\n", &mut b);
            }
            if tid % 16 == 5 {
                let v = base - gid * 37;
                let tag = [addr("low"), addr("mid"), addr("high")][tid as usize / 16];
                let ints = [bid, tid, v, v * 3, v, v, v * 1000, gid, 65 + tid % 26];
                for (k, x) in ints.iter().enumerate() {
                    st(&mut b, 4 * k, &x.to_le_bytes());
                }
                st(&mut b, 40, &tag.to_le_bytes());
                call(
                    b"[%d:%2d] d=%d i=%i u=%u x=%x X=%X o=%o c=%c s=%s\n",
                    &mut b,
                );
                let f = scale * gid as f32;
                let g = f / 3.0;
                let r = f64::from(gid + 1).sqrt();
                let fs = [
                    f.into(),
                    f64::from(-g),
                    f.into(),
                    (g * 1000.0).into(),
                    r,
                    r * 1e-7,
                    r,
                ];
                for (k, x) in fs.iter().chain([&f64::from(g)]).enumerate() {
                    st(&mut b, 8 * k, &x.to_le_bytes());
                }
                call(
                    b"  f=%f w=[%-8.3f] e=%e E=%.2E g=%g G=%G r=%.10f p=%5.1f%%\n",
                    &mut b,
                );
            } else if bid == 1 && tid == 40 {
                let h = (-1234 - base) as i16;
                let hu = (65000 + base % 100) as u16;
                let longs = [-big, big * 3, big, -big / 3, big * 5];
                for (k, x) in longs.iter().enumerate() {
                    st(&mut b, 8 * k, &x.to_le_bytes());
                }
                st(&mut b, 40, &i32::from(h).to_le_bytes());
                st(&mut b, 44, &u32::from(hu).to_le_bytes());
                call(
                    b"  ll=%lld llu=%llu llx=%llx l=%ld lu=%lu hd=%hd hu=%hu\n",
                    &mut b,
                );
                let ints = [base, base, -base, 0xBEEF + base, 255, 8, base, base];
                for (k, x) in ints.iter().enumerate() {
                    st(&mut b, 4 * k, &x.to_le_bytes());
                }
                st(&mut b, 32, &(-1.5e-5f64).to_le_bytes());
                st(&mut b, 40, &(2.0f64 / 3.0).to_le_bytes());
                call(
                    b"  |%5d|%-5d|%05d|%08x|%#x|%#o|%+d|% d|%+.3e|%10.4g|\n",
                    &mut b,
                );
            }
        }
        assert_eq!(out, SAMPLE_STDOUT);
    }

    const SAMPLE_STDOUT: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/ptx-samples/cuda/printf_basic/stdout.expected.txt"
    ));

    #[test]
    fn errors() {
        let e = |fmt: &str, args: &[A]| run(fmt, args).unwrap_err();
        let unsupported = |pos, spec: &str| PrintfError::Unsupported {
            pos,
            spec: spec.into(),
        };
        assert_eq!(e("ab%", &[]), PrintfError::Incomplete { pos: 2 });
        assert_eq!(e("%-5.3l", &[]), PrintfError::Incomplete { pos: 0 });
        assert_eq!(e("%99999d", &[]), PrintfError::FieldTooLarge { pos: 0 });
        assert_eq!(
            e("%*d", &[I(i32::MIN), I(1)]),
            PrintfError::FieldTooLarge { pos: 0 }
        );
        for f in [
            "%n", "%ls", "%lc", "%Lf", "%llf", "%hp", "%1$", "%y", "%Ld", "%zf",
        ] {
            assert_eq!(e(f, &[L(0)]), unsupported(0, f));
        }
        assert_eq!(e("x %hs", &[]), unsupported(2, "%hs"));
        let short = PrintfError::ArgsOutOfRange { offset: 0, size: 4 };
        assert_eq!(format(b"%d", &[1, 2, 3], &mut reader(vec![])), Err(short));
        let misaligned = PrintfError::ArgsOutOfRange { offset: 8, size: 8 };
        assert_eq!(e("%d %f", &[I(1), I(2)]), misaligned);
        let bad = PrintfError::BadString {
            addr: 0x1234,
            msg: "no string at 0x1234".into(),
        };
        assert_eq!(e("%s", &[P(0x1234)]), bad);
        assert!(bad.to_string().contains("0x1234"));
    }

    #[test]
    fn argument_limit_and_bytes() {
        let fmt = "%d ".repeat(33);
        let args: Vec<A> = (0..33).map(I).collect();
        let want = (0..32).map(|i| format!("{i} ")).collect::<String>() + "%d ";
        assert_eq!(run(&fmt, &args).as_deref(), Ok(want.as_str()));
        assert_eq!(run("%*d", &[I(3), I(7)]).as_deref(), Ok("  7"));
        let raw = format_bytes(b"\xff%c\xc3\xa9", &[0x80, 0, 0, 0], &mut reader(vec![]));
        assert_eq!(raw, Ok(b"\xff\x80\xc3\xa9".to_vec()));
        assert_eq!(run("\u{e9}%c", &[I(0xff)]).as_deref(), Ok("\u{e9}\u{fffd}"));
    }

    /// Random formats over a small alphabet and random buffers never panic.
    #[test]
    fn never_panics() {
        let alphabet = b"%%%-+ #0123456789.*hlLzjtqdiuxXocspfFeEgGaAn$";
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            let fmt: Vec<u8> = (0..next() % 12)
                .map(|_| alphabet[next() as usize % 45])
                .collect();
            let args: Vec<u8> = (0..next() % 40).map(|_| next() as u8).collect();
            let _ = format(&fmt, &args, &mut |a| Ok(vec![b'x'; (a % 9) as usize]));
        }
    }
}
