//! ftrace filters (`f:comm=="python3" && (dfd<0 || common_pid==1)`): checked before anything is
//! written, field names matched against what the probe records, and `ip_` values written dotted
//! converted to the u32 the kernel compares (surftrace does the same).

use crate::error::ProbeError;

/// Fields every event has.
pub const COMMON: [&str; 4] = ["common_pid", "common_preempt_count", "common_flags", "common_type"];

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Op(&'static str),
    Open,
    Close,
}

const OPS: [&str; 12] = ["&&", "||", "==", "!=", "<=", ">=", "=~", "<", ">", "&", "~", "!"];

fn lex(text: &str) -> Result<Vec<Tok>, String> {
    let mut toks = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if c == '(' || c == ')' {
            toks.push(if c == '(' { Tok::Open } else { Tok::Close });
            i += 1;
        } else if c == '"' || c == '\'' {
            let end = text[i + 1..].find(c).ok_or("a string has no closing quote")?;
            // The kernel reads a filter up to a newline or a NUL.
            if text[i + 1..i + 1 + end].contains(|c: char| c.is_control()) {
                return Err("a string cannot hold a control character (a newline, a NUL...)".into());
            }
            toks.push(Tok::Str(text[i..i + end + 2].to_string()));
            i += end + 2;
        } else if let Some(op) = OPS.iter().find(|op| text[i..].starts_with(**op)) {
            toks.push(Tok::Op(op));
            i += op.len();
        } else if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
            let start = i;
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
            toks.push(Tok::Word(text[start..i].to_string()));
        } else {
            return Err(format!("`{c}` is not part of ftrace's filter syntax"));
        }
    }
    Ok(toks)
}

/// How one `FIELD OP VALUE` is written out.
type Render<'a> = &'a dyn Fn(&str, &str, &str) -> Result<String, ProbeError>;

struct Parser<'a> {
    toks: Vec<Tok>,
    pos: usize,
    fields: &'a [String],
    filter: &'a str,
    out: Vec<String>,
    render: Render<'a>,
}

/// Check `filter` against the fields a probe records; returns it as it will be written.
pub fn check(filter: &str, fields: &[String]) -> Result<String, ProbeError> {
    rewrite(filter, fields, &|field, op, value| Ok(format!("{field}{op}{value}")))
}

/// Check `filter` and write each comparison with `render` (ftrace's text, or the language's).
pub fn rewrite(filter: &str, fields: &[String], render: Render) -> Result<String, ProbeError> {
    let bad = |why: String| ProbeError::BadFilter { filter: filter.into(), why };
    let toks = lex(filter).map_err(bad)?;
    let mut p = Parser { toks, pos: 0, fields, filter, out: Vec::new(), render };
    p.or()?;
    if p.pos != p.toks.len() {
        return Err(bad("something follows the end of the condition".into()));
    }
    Ok(p.out.join(" "))
}

impl Parser<'_> {
    fn bad(&self, why: &str) -> ProbeError {
        ProbeError::BadFilter { filter: self.filter.into(), why: why.into() }
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn or(&mut self) -> Result<(), ProbeError> {
        self.and()?;
        while self.peek() == Some(&Tok::Op("||")) {
            self.pos += 1;
            self.out.push("||".into());
            self.and()?;
        }
        Ok(())
    }

    fn and(&mut self) -> Result<(), ProbeError> {
        self.unary()?;
        while self.peek() == Some(&Tok::Op("&&")) {
            self.pos += 1;
            self.out.push("&&".into());
            self.unary()?;
        }
        Ok(())
    }

    fn unary(&mut self) -> Result<(), ProbeError> {
        match self.next() {
            Some(Tok::Op("!")) => {
                self.out.push("!".into());
                self.unary()
            }
            Some(Tok::Open) => {
                self.out.push("(".into());
                self.or()?;
                if self.next() != Some(Tok::Close) {
                    return Err(self.bad("a `(` has no `)`"));
                }
                self.out.push(")".into());
                Ok(())
            }
            Some(Tok::Word(field)) => self.predicate(field),
            _ => Err(self.bad("a condition must start with a field name, `!` or `(`")),
        }
    }

    fn predicate(&mut self, field: String) -> Result<(), ProbeError> {
        if !self.fields.contains(&field) && !COMMON.contains(&field.as_str()) {
            let all = self.fields.iter().map(String::as_str).chain(COMMON);
            let near = sonde_syntax::closest(&field, all).map(|s| vec![s.to_string()]);
            return Err(ProbeError::FilterField {
                filter: self.filter.into(),
                field,
                near: near.unwrap_or_default(),
            });
        }
        let op = match self.next() {
            Some(Tok::Op(op)) if !matches!(op, "&&" | "||" | "!") => op,
            _ => return Err(self.bad(&format!("`{field}` must be followed by a comparison"))),
        };
        let value = match self.next() {
            Some(Tok::Word(w)) if field.starts_with("ip_") && w.contains('.') => {
                dotted(&w).ok_or_else(|| self.bad(&format!("`{w}` is not an IPv4 address")))?
            }
            Some(Tok::Word(w)) if w.contains('.') => {
                return Err(self.bad(&format!("`{w}` is not a number")))
            }
            Some(Tok::Word(w)) if w.starts_with(|c: char| c.is_ascii_digit() || c == '-') => {
                kernel_number(&w).map_err(|why| self.bad(&why))?;
                w
            }
            Some(Tok::Word(w)) | Some(Tok::Str(w)) => w,
            _ => return Err(self.bad(&format!("`{field} {op}` needs a value"))),
        };
        self.out.push((self.render)(&field, op, &value)?);
        Ok(())
    }
}

/// A number as the kernel reads a filter's (`kstrtoull`/`kstrtoll`, base 0: `0x` hex, a leading
/// `0` octal, else decimal, a `-` before any): one wider than 64 bits, or with other characters,
/// is refused here with the other bad input, not by the kernel once tracefs is written.
fn kernel_number(w: &str) -> Result<(), String> {
    let (negative, digits) = match w.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, w),
    };
    let (radix, body) = if let Some(h) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
        (16, h)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return Err(format!("`{w}` is not a number"));
    }
    let wide = || format!("`{w}` is wider than 64 bits");
    let magnitude = u64::from_str_radix(body, radix).map_err(|_| wide())?;
    if negative && magnitude > 1 << 63 {
        return Err(wide());
    }
    Ok(())
}

/// `127.0.0.1` as the u32 the kernel loads from a network-order field on a little-endian CPU.
fn dotted(s: &str) -> Option<String> {
    let mut bytes = [0u8; 4];
    let mut parts = s.split('.');
    for b in &mut bytes {
        *b = parts.next()?.parse().ok()?;
    }
    if parts.next().is_some() {
        return None;
    }
    Some(format!("{:#x}", u32::from_le_bytes(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_string_cannot_end_the_filter_early() {
        let fields = f(&["comm"]);
        for bad in ["comm==\"a\nb\"", "comm==\"a\0b\"", "comm=='\r'"] {
            assert!(matches!(check(bad, &fields), Err(ProbeError::BadFilter { .. })), "{bad:?}");
        }
        // Shell syntax inside a string is only text: the script quotes it.
        assert!(check("comm==\"a'; touch PWNED; echo '\"", &fields).is_ok());
    }

    #[test]
    fn filters_are_checked_and_ips_converted() {
        let fields = f(&["proto", "ip_src", "comm"]);
        assert_eq!(
            check("proto==1&&ip_src==127.0.0.1", &fields).unwrap(),
            "proto==1 && ip_src==0x100007f"
        );
        assert_eq!(
            check("comm==\"python3\" || (common_pid != 1 && !proto > 2)", &fields).unwrap(),
            "comm==\"python3\" || ( common_pid!=1 && ! proto>2 )"
        );
        assert!(matches!(check("prot==1", &fields), Err(ProbeError::FilterField { .. })));
        assert!(check("proto==", &fields).is_err());
        assert!(check("(proto==1", &fields).is_err());
        assert!(check("proto==1 &&", &fields).is_err());
        assert!(check("ip_src==1.2.3", &fields).is_err());
    }

    #[test]
    fn numbers_wider_than_64_bits_are_refused_before_tracefs() {
        let fields = f(&["dfd"]);
        for ok in [
            "dfd==18446744073709551615",
            "dfd==0xffffffffffffffff",
            "dfd==-9223372036854775808",
            "dfd==0777",
            "dfd==-100",
            "dfd==0",
        ] {
            assert!(check(ok, &fields).is_ok(), "{ok}");
        }
        for (bad, why) in [
            ("dfd==18446744073709551616", "`18446744073709551616` is wider than 64 bits"),
            ("dfd==0x1ffffffffffffffff", "`0x1ffffffffffffffff` is wider than 64 bits"),
            ("dfd==-9223372036854775809", "`-9223372036854775809` is wider than 64 bits"),
            (
                "dfd==99999999999999999999999999",
                "`99999999999999999999999999` is wider than 64 bits",
            ),
            ("dfd==12ab", "`12ab` is not a number"),
            ("dfd==089", "`089` is not a number"),
            ("dfd==-", "`-` is not a number"),
        ] {
            match check(bad, &fields) {
                Err(ProbeError::BadFilter { why: got, .. }) => assert_eq!(got, why, "{bad}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }
}
