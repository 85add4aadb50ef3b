//! A program's two long lists written compactly where it is kept between runs (`sonde trace`
//! keeps its compiled program in /run/sonde): each instruction as the 16 hex digits of the
//! kernel's 8 bytes, each source span as `lo:hi`, in one string each. Objects with field names
//! made a 1,400-instruction program 55 KB of JSON, read at every short run.

use serde::{Deserialize, Deserializer, Serializer};
use sonde_bpf::Insn;
use sonde_syntax::ast::Span;
use std::fmt::Write;

pub mod insns {
    use super::*;

    pub fn serialize<S: Serializer>(insns: &[Insn], s: S) -> Result<S::Ok, S::Error> {
        let mut out = String::with_capacity(insns.len() * 16);
        for b in insns.iter().flat_map(|i| i.to_bytes()) {
            let _ = write!(out, "{b:02x}");
        }
        s.serialize_str(&out)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Insn>, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        let bytes = text.as_bytes();
        if !bytes.len().is_multiple_of(16) {
            return Err(serde::de::Error::custom("instructions are 16 hex digits each"));
        }
        bytes
            .chunks(16)
            .map(|chunk| {
                let mut b = [0u8; 8];
                for (i, pair) in chunk.chunks(2).enumerate() {
                    b[i] = hex_byte(pair).ok_or_else(|| serde::de::Error::custom("not hex"))?;
                }
                Ok(Insn::from_bytes(b))
            })
            .collect()
    }

    fn hex_byte(pair: &[u8]) -> Option<u8> {
        let digit = |c: u8| (c as char).to_digit(16);
        Some((digit(pair[0])? * 16 + digit(pair[1])?) as u8)
    }
}

pub mod spans {
    use super::*;

    pub fn serialize<S: Serializer>(spans: &[Span], s: S) -> Result<S::Ok, S::Error> {
        let mut out = String::with_capacity(spans.len() * 8);
        for sp in spans {
            let _ = write!(out, "{}:{} ", sp.lo, sp.hi);
        }
        s.serialize_str(&out)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Span>, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        text.split_ascii_whitespace()
            .map(|pair| {
                let (lo, hi) = pair.split_once(':')?;
                Some(Span { lo: lo.parse().ok()?, hi: hi.parse().ok()? })
            })
            .collect::<Option<Vec<Span>>>()
            .ok_or_else(|| serde::de::Error::custom("spans are lo:hi"))
    }
}

#[cfg(test)]
mod tests {
    use sonde_bpf::{Insn, Reg};
    use sonde_syntax::ast::Span;

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Both {
        #[serde(with = "super::insns")]
        insns: Vec<Insn>,
        #[serde(with = "super::spans")]
        spans: Vec<Span>,
    }

    #[test]
    fn lists_come_back_as_written() {
        let insns = vec![Insn::mov64_imm(Reg::R1, -7), Insn::exit()];
        let both = Both { insns, spans: vec![Span::new(0, 5), Span::new(12, 300)] };
        let text = serde_json::to_string(&both).unwrap();
        assert_eq!(text, r#"{"insns":"b7010000f9ffffff9500000000000000","spans":"0:5 12:300 "}"#);
        assert_eq!(serde_json::from_str::<Both>(&text).unwrap(), both);
        assert!(serde_json::from_str::<Both>(r#"{"insns":"b7","spans":""}"#).is_err());
    }
}
