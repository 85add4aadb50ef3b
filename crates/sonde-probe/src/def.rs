//! kprobetrace.rst's definitions as values: what is written to `kprobe_events` and
//! `uprobe_events`. `Display` renders the line; `FromStr` (def_parse.rs) reads it back.

use std::fmt;

/// One `p:`/`r:` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    /// A return probe (`r`); `maxactive` is kprobes' `rN`.
    pub ret: bool,
    pub maxactive: Option<u32>,
    pub group: String,
    pub event: String,
    pub location: Location,
    pub args: Vec<Arg>,
}

/// Where the probe goes. A `File` location makes it a uprobe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// `[MOD:]SYM[+offs]`
    Symbol { module: Option<String>, name: String, offset: u64 },
    /// `MEMADDR`
    Address(u64),
    /// `PATH:OFFSET` (uprobe_events)
    File { path: String, offset: u64 },
}

/// `NAME=FETCHARG[:TYPE]`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    pub name: String,
    pub fetch: Fetch,
    pub ty: Option<FetchType>,
}

/// Every fetcharg form of kprobetrace.rst.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fetch {
    /// `%REG`
    Reg(String),
    /// `@ADDR`
    Addr(u64),
    /// `@SYM[+|-offs]`
    Symbol {
        name: String,
        offset: i64,
    },
    /// `$stackN`
    Stack(u32),
    /// `$stack`
    StackAddr,
    /// `$argN` (N >= 1)
    Arg(u32),
    Retval,
    Comm,
    /// `+|-[u]OFFS(FETCHARG)`
    Deref {
        offset: i64,
        user: bool,
        of: Box<Fetch>,
    },
    /// `\IMM`
    Imm(String),
}

/// `u8..u64`, `s8..s64`, `x8..x64`, `string`, `ustring`, `symbol`, bitfields, arrays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FetchType {
    Unsigned(u8),
    Signed(u8),
    Hex(u8),
    String,
    Ustring,
    Symbol,
    /// `b<width>@<offset>/<container>`, all in bits.
    Bitfield {
        width: u8,
        offset: u8,
        container: u8,
    },
    /// `TYPE[N]`
    Array {
        elem: Box<FetchType>,
        len: u32,
    },
}

impl Definition {
    pub fn is_uprobe(&self) -> bool {
        matches!(self.location, Location::File { .. })
    }

    /// The tracefs file this definition is written to.
    pub fn events_file(&self) -> &'static str {
        if self.is_uprobe() {
            "uprobe_events"
        } else {
            "kprobe_events"
        }
    }
}

impl fmt::Display for Definition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.ret { "r" } else { "p" })?;
        if let Some(n) = self.maxactive {
            write!(f, "{n}")?;
        }
        write!(f, ":{}/{} {}", self.group, self.event, self.location)?;
        for a in &self.args {
            write!(f, " {a}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Symbol { module, name, offset } => {
                if let Some(m) = module {
                    write!(f, "{m}:")?;
                }
                f.write_str(name)?;
                if *offset != 0 {
                    write!(f, "+{offset:#x}")?;
                }
                Ok(())
            }
            Location::Address(a) => write!(f, "{a:#x}"),
            Location::File { path, offset } => write!(f, "{path}:{offset:#x}"),
        }
    }
}

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.name, self.fetch)?;
        if let Some(t) = &self.ty {
            write!(f, ":{t}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Fetch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fetch::Reg(r) => write!(f, "%{r}"),
            Fetch::Addr(a) => write!(f, "@{a:#x}"),
            Fetch::Symbol { name, offset } => {
                write!(f, "@{name}")?;
                match offset {
                    0 => Ok(()),
                    o if *o < 0 => write!(f, "-{:#x}", o.unsigned_abs()),
                    o => write!(f, "+{o:#x}"),
                }
            }
            Fetch::Stack(n) => write!(f, "$stack{n}"),
            Fetch::StackAddr => f.write_str("$stack"),
            Fetch::Arg(n) => write!(f, "$arg{n}"),
            Fetch::Retval => f.write_str("$retval"),
            Fetch::Comm => f.write_str("$comm"),
            Fetch::Deref { offset, user, of } => {
                let sign = if *offset < 0 { '-' } else { '+' };
                let u = if *user { "u" } else { "" };
                write!(f, "{sign}{u}{:#x}({of})", offset.unsigned_abs())
            }
            Fetch::Imm(v) => write!(f, "\\{v}"),
        }
    }
}

impl fmt::Display for FetchType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FetchType::Unsigned(b) => write!(f, "u{b}"),
            FetchType::Signed(b) => write!(f, "s{b}"),
            FetchType::Hex(b) => write!(f, "x{b}"),
            FetchType::String => f.write_str("string"),
            FetchType::Ustring => f.write_str("ustring"),
            FetchType::Symbol => f.write_str("symbol"),
            FetchType::Bitfield { width, offset, container } => {
                write!(f, "b{width}@{offset}/{container}")
            }
            FetchType::Array { elem, len } => write!(f, "{elem}[{len}]"),
        }
    }
}
