//! printf format strings: parsed once at compile time (to check the arguments) and applied to
//! decoded values at run time, with glibc's output for the conversions we support:
//! `d i u x X o c s p %`, bpftrace's `f F e E g G a A` (float.rs) and `%gr` (gfp.rs), flags `- 0 + space #`, a numeric width and precision, and length
//! modifiers `hh h l ll j z t`; and ply's `%v`: any value as `print` shows it (width, `-` and a
//! precision cut apply to that text, as for `%s`).
//!
//! Integer arguments are truncated to the width the length modifier names: `hh`/`h` 8/16,
//! and `l ll j z t` 64. With no modifier the whole 64-bit value prints, as in bpftrace (whose
//! one-liners users paste): every sonde integer is 64 bits wide by the time it is printed, and
//! C's 32-bit `int` truncation would silently print `%d` of 2^32+5 as `5`. Ask for `%hd`/`%hhd`
//! to narrow, or `(u32)` casts in the program.

use crate::value::{until_nul, Value};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Literal(Vec<u8>),
    Conv(Spec),
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    pub minus: bool,
    pub zero: bool,
    pub plus: bool,
    pub space: bool,
    pub hash: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Length {
    #[default]
    None,
    Hh,
    H,
    L,
    Ll,
    J,
    Z,
    T,
}

impl Length {
    /// Width in bits of the C type this modifier names for an integer conversion.
    pub fn bits(self) -> u32 {
        match self {
            Length::Hh => 8,
            Length::H => 16,
            Length::None => 64,
            _ => 64,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub flags: Flags,
    pub width: Option<usize>,
    pub precision: Option<usize>,
    pub length: Length,
    /// One of `d i u x X o c s p v r f F e E g G a A`, or `R` and `H` for bpftrace's `%rx` and
    /// `%rh`, `M` for its `%gr` (`%%` never becomes a Spec).
    pub conv: char,
}

impl Spec {
    /// `%s`, and bpftrace's `%r`, `%rx` and `%rh` for a `buf()` (its bytes, escaped or in hex).
    pub fn wants_string(&self) -> bool {
        matches!(self.conv, 's' | 'r' | 'R' | 'H')
    }
    /// ply's `%v`: any value, in its natural format.
    pub fn wants_any(&self) -> bool {
        self.conv == 'v'
    }
    pub fn wants_integer(&self) -> bool {
        matches!(self.conv, 'd' | 'i' | 'u' | 'x' | 'X' | 'o' | 'c' | 'p' | 'M') || self.is_float()
    }
    /// bpftrace's `%f %e %g %a` (either case): the integer printed as a double.
    pub fn is_float(&self) -> bool {
        matches!(self.conv, 'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A')
    }
    /// `%d`/`%i`: the argument is read as signed.
    pub fn is_signed(&self) -> bool {
        matches!(self.conv, 'd' | 'i')
    }
    /// Bits of the argument that are printed: 8 for `%c`, 64 for `%p`, else by length modifier.
    pub fn int_bits(&self) -> u32 {
        match self.conv {
            'c' => 8,
            'p' => 64,
            _ => self.length.bits(),
        }
    }
}

/// `pos` is the byte offset of the `%` that starts the bad conversion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatError {
    UnknownConversion {
        pos: usize,
        conv: char,
    },
    /// `%*d` / `%.*s`: the width or precision would come from an argument; not supported.
    StarWidth {
        pos: usize,
    },
    /// The string ends inside a conversion (`"50%"`, `"%-"`).
    TrailingPercent {
        pos: usize,
    },
    /// A length modifier on `%s`, `%c`, `%p` or `%v` (that would mean wide characters).
    LengthNotAllowed {
        pos: usize,
        conv: char,
    },
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::UnknownConversion { pos, conv } => write!(
                f,
                "unknown or unsupported conversion '%{conv}' at offset {pos} \
                 (supported: %d %i %u %x %X %o %c %s %p %v %r %rx %rh %f %e %g %a %gr %%)"
            ),
            FormatError::StarWidth { pos } => write!(
                f,
                "'*' width/precision at offset {pos} is not supported; write the number in the format"
            ),
            FormatError::TrailingPercent { pos } => {
                write!(f, "format ends inside the conversion at offset {pos}; write '%%' for a literal '%'")
            }
            FormatError::LengthNotAllowed { pos, conv } => {
                write!(f, "length modifier not allowed on '%{conv}' at offset {pos}")
            }
        }
    }
}

impl std::error::Error for FormatError {}

pub fn parse(fmt: &[u8]) -> Result<Vec<Piece>, FormatError> {
    let mut pieces = Vec::new();
    let mut lit = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            lit.push(fmt[i]);
            i += 1;
            continue;
        }
        let (spec, next) = parse_spec(fmt, i)?;
        i = next;
        match spec {
            None => lit.push(b'%'),
            Some(spec) => {
                if !lit.is_empty() {
                    pieces.push(Piece::Literal(std::mem::take(&mut lit)));
                }
                pieces.push(Piece::Conv(spec));
            }
        }
    }
    if !lit.is_empty() {
        pieces.push(Piece::Literal(lit));
    }
    Ok(pieces)
}

/// The conversions in order: one per argument.
pub fn specs(pieces: &[Piece]) -> impl Iterator<Item = &Spec> {
    pieces.iter().filter_map(|p| match p {
        Piece::Conv(s) => Some(s),
        Piece::Literal(_) => None,
    })
}

/// One conversion starting at the `%` at `pos`; `None` for `%%`. Returns the index after it.
fn parse_spec(fmt: &[u8], pos: usize) -> Result<(Option<Spec>, usize), FormatError> {
    let mut i = pos + 1;
    let at = |i: usize| fmt.get(i).copied().ok_or(FormatError::TrailingPercent { pos });
    let mut flags = Flags::default();
    loop {
        match at(i)? {
            b'-' => flags.minus = true,
            b'0' => flags.zero = true,
            b'+' => flags.plus = true,
            b' ' => flags.space = true,
            b'#' => flags.hash = true,
            _ => break,
        }
        i += 1;
    }
    let width = number(fmt, &mut i);
    if at(i)? == b'*' {
        return Err(FormatError::StarWidth { pos });
    }
    let mut precision = None;
    if at(i)? == b'.' {
        i += 1;
        if at(i)? == b'*' {
            return Err(FormatError::StarWidth { pos });
        }
        precision = Some(number(fmt, &mut i).unwrap_or(0));
    }
    let length = match (at(i)?, fmt.get(i + 1)) {
        (b'h', Some(b'h')) => Length::Hh,
        (b'l', Some(b'l')) => Length::Ll,
        (b'h', _) => Length::H,
        (b'l', _) => Length::L,
        (b'j', _) => Length::J,
        (b'z', _) => Length::Z,
        (b't', _) => Length::T,
        _ => Length::None,
    };
    i += match length {
        Length::None => 0,
        Length::Hh | Length::Ll => 2,
        _ => 1,
    };
    let c = at(i)?;
    let conv = match c {
        b'%' => return Ok((None, i + 1)),
        // bpftrace's `%rx` and `%rh`: a buf() as `\xNN` escapes, or as hex bytes `0a 1b`.
        b'r' if fmt.get(i + 1) == Some(&b'x') => {
            i += 1;
            'R'
        }
        b'r' if fmt.get(i + 1) == Some(&b'h') => {
            i += 1;
            'H'
        }
        // bpftrace's `%gr`: GFP flags by name.
        b'g' if fmt.get(i + 1) == Some(&b'r') => {
            i += 1;
            'M'
        }
        b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' | b's' | b'p' | b'v' | b'r' => c as char,
        b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => c as char,
        _ => {
            let s = String::from_utf8_lossy(&fmt[i..fmt.len().min(i + 4)]);
            let conv = s.chars().next().unwrap_or('?');
            return Err(FormatError::UnknownConversion { pos, conv });
        }
    };
    if length != Length::None && matches!(conv, 's' | 'c' | 'p' | 'v' | 'r' | 'R' | 'H' | 'M') {
        return Err(FormatError::LengthNotAllowed { pos, conv });
    }
    Ok((Some(Spec { flags, width, precision, length, conv }), i + 1))
}

fn number(fmt: &[u8], i: &mut usize) -> Option<usize> {
    let start = *i;
    while fmt.get(*i).is_some_and(u8::is_ascii_digit) {
        *i += 1;
    }
    let digits = std::str::from_utf8(&fmt[start..*i]).ok()?;
    // Absurd widths saturate rather than fail; glibc would refuse them at run time.
    (*i > start).then(|| digits.parse().unwrap_or(usize::MAX).min(1 << 16))
}

/// Apply the format. Arguments are matched to conversions in order; a conversion with no
/// argument prints nothing, extra arguments are ignored. A non-integer value under an integer
/// conversion (or a non-string under `%s`) prints its text form, padded like `%s`.
pub fn format(pieces: &[Piece], args: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut args = args.iter();
    for piece in pieces {
        match piece {
            Piece::Literal(b) => out.extend_from_slice(b),
            Piece::Conv(spec) => {
                if let Some(arg) = args.next() {
                    conv(&mut out, spec, arg);
                }
            }
        }
    }
    out
}

fn conv(out: &mut Vec<u8>, spec: &Spec, arg: &Value) {
    let bits = arg.bits();
    match (spec.conv, bits) {
        ('v', _) => {
            let text = arg.to_string();
            let cut = spec.precision.map_or(text.len(), |p| floor_char(&text, p));
            pad(out, spec, b"", &text.as_bytes()[..cut], false);
        }
        ('s' | 'r' | 'R' | 'H', _) => {
            let text = match (spec.conv, arg) {
                (_, Value::Str(b)) => until_nul(b).to_vec(),
                ('R', Value::Buf(b)) => {
                    b.iter().map(|c| format!("\\x{c:02x}")).collect::<String>().into()
                }
                ('H', Value::Buf(b)) => {
                    b.iter().map(|c| format!("{c:02x}")).collect::<Vec<_>>().join(" ").into()
                }
                (_, other) => other.to_string().into_bytes(),
            };
            let cut = spec.precision.map_or(text.len(), |p| p.min(text.len()));
            pad(out, spec, b"", &text[..cut], false);
        }
        ('c', Some(v)) => pad(out, spec, b"", &[v as u8], false),
        ('M', Some(v)) => pad(out, spec, b"", gfp::names(v).as_bytes(), false),
        (_, Some(v)) if spec.is_float() => {
            let x = match arg {
                Value::Int { v, signed: true } => *v as i64 as f64,
                _ => v as f64,
            };
            let mut text = float::text(spec, x);
            if spec.flags.plus && x >= 0.0 {
                text.insert(0, '+');
            }
            let (sign, digits) = text.split_at(usize::from(text.starts_with(['-', '+'])));
            let zero = spec.flags.zero && !spec.flags.minus;
            pad(out, spec, sign.as_bytes(), digits.as_bytes(), zero)
        }
        ('p', Some(0)) => pad(out, spec, b"", b"(nil)", false),
        (_, Some(v)) => int(out, spec, v),
        (_, None) => pad(out, spec, b"", arg.to_string().as_bytes(), false),
    }
}

/// The largest char boundary of `s` at or below `n` bytes, so a cut never splits a character.
fn floor_char(s: &str, n: usize) -> usize {
    (0..=n.min(s.len())).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0)
}

/// An integer conversion of the 64-bit pattern `v`.
fn int(out: &mut Vec<u8>, spec: &Spec, v: u64) {
    let bits = spec.int_bits();
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let u = v & mask;
    let f = spec.flags;
    let mut prefix: &[u8] = b"";
    let mut digits = match spec.conv {
        'd' | 'i' => {
            // Sign-extend from the truncated width.
            let s = ((u << (64 - bits)) as i64) >> (64 - bits);
            prefix = if s < 0 {
                b"-"
            } else if f.plus {
                b"+"
            } else if f.space {
                b" "
            } else {
                b""
            };
            s.unsigned_abs().to_string()
        }
        'u' => u.to_string(),
        'o' => format!("{u:o}"),
        'x' | 'p' => format!("{u:x}"),
        _ => format!("{u:X}"),
    };
    if spec.precision == Some(0) && u == 0 {
        digits.clear();
    }
    let min = spec.precision.unwrap_or(0);
    if digits.len() < min {
        digits = "0".repeat(min - digits.len()) + &digits;
    }
    match spec.conv {
        'o' if f.hash && !digits.starts_with('0') => digits.insert(0, '0'),
        'x' if f.hash && u != 0 => prefix = b"0x",
        'X' if f.hash && u != 0 => prefix = b"0X",
        // glibc prints %p as %#lx that also honours '+' and ' '.
        'p' => {
            prefix = if f.plus {
                b"+0x"
            } else if f.space {
                b" 0x"
            } else {
                b"0x"
            }
        }
        _ => {}
    }
    // '0' pads between the sign/prefix and the digits, unless a precision was given.
    let zero = f.zero && !f.minus && spec.precision.is_none();
    pad(out, spec, prefix, digits.as_bytes(), zero)
}

/// `prefix` then `body`, padded to the width: on the right for '-', with zeros after the
/// prefix when `zero`, else with spaces on the left.
fn pad(out: &mut Vec<u8>, spec: &Spec, prefix: &[u8], body: &[u8], zero: bool) {
    let len = prefix.len() + body.len();
    let fill = spec.width.unwrap_or(0).saturating_sub(len);
    if spec.flags.minus {
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
        out.resize(out.len() + fill, b' ');
    } else if zero {
        out.extend_from_slice(prefix);
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(body);
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
    }
}

mod float;
mod gfp;
#[cfg(test)]
mod tests;
