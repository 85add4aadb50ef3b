//! strace's `-X`: constants as their names (abbrev, the default), as numbers (raw), or both
//! (verbose: `0x80000 /* O_RDONLY|O_CLOEXEC */`). Numbers are spelled as strace spells them:
//! flags and commands in hex, signals in decimal, AT_FDCWD as -100.

use crate::beauty::Kind;

/// How constants print.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Xlat {
    #[default]
    Abbrev,
    Raw,
    Verbose,
}

impl Xlat {
    /// `-X FORMAT`'s word, as strace takes it.
    pub fn parse(word: &str) -> Option<Xlat> {
        match word {
            "abbrev" => Some(Xlat::Abbrev),
            "raw" => Some(Xlat::Raw),
            "verbose" => Some(Xlat::Verbose),
            _ => None,
        }
    }

    /// An argument of this kind whose name is `named`, spelled in this style.
    pub fn spell(self, kind: Kind, raw: u64, bytes: u8, named: String) -> String {
        let Some(number) = number(kind, raw, bytes) else { return named };
        match self {
            Xlat::Abbrev => named,
            Xlat::Raw => number,
            Xlat::Verbose if number == named => number,
            Xlat::Verbose => format!("{number} /* {named} */"),
        }
    }
}

/// Constants the call's shape named from another argument (fcntl's flags by its command),
/// spelled in `style`.
pub fn reshape(style: Xlat, syscall: &str, raw: &[u64; 6], texts: &mut [String]) {
    if style == Xlat::Abbrev {
        return;
    }
    let flags_at = match syscall {
        "fcntl" if matches!(raw[1] as i32, libc::F_SETFD | libc::F_SETFL) => Some(2),
        _ => None,
    };
    if let Some(t) = flags_at.and_then(|i| texts.get_mut(i)) {
        *t = style.spell(Kind::OpenFlags, raw[2], 4, std::mem::take(t));
    }
}

/// The constant's number as strace prints it, or None when the kind is not a named constant.
fn number(kind: Kind, raw: u64, bytes: u8) -> Option<String> {
    let value = match bytes {
        1..=7 => raw & ((1u64 << (8 * bytes)) - 1),
        _ => raw,
    };
    match kind {
        Kind::Int | Kind::Pid | Kind::Fd | Kind::Hex | Kind::HexNum | Kind::Mode => None,
        Kind::Dirfd if value as u32 as i32 == libc::AT_FDCWD => Some(libc::AT_FDCWD.to_string()),
        Kind::Dirfd => None,
        Kind::Signal => Some((value as u32 as i32).to_string()),
        _ if value == 0 => Some("0".into()),
        _ => Some(format!("{value:#x}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::beauty::Consts;

    #[test]
    fn numbers_as_strace_spells_them() {
        let named = |n: &str| n.to_string();
        let v = Xlat::Verbose;
        assert_eq!(
            v.spell(Kind::OpenFlags, 0x80000, 4, named("O_RDONLY|O_CLOEXEC")),
            "0x80000 /* O_RDONLY|O_CLOEXEC */"
        );
        assert_eq!(v.spell(Kind::OpenFlags, 0, 4, named("O_RDONLY")), "0 /* O_RDONLY */");
        assert_eq!(v.spell(Kind::AtFlags, 0, 4, named("0")), "0");
        assert_eq!(v.spell(Kind::Dirfd, 0xffff_ff9c, 4, named("AT_FDCWD")), "-100 /* AT_FDCWD */");
        assert_eq!(v.spell(Kind::Signal, 17, 4, named("SIGCHLD")), "17 /* SIGCHLD */");
        assert_eq!(v.spell(Kind::Signal, 0, 4, named("0")), "0");
        assert_eq!(
            Xlat::Raw.spell(Kind::Consts(Consts::Ioctl), 0x5401, 4, named("TCGETS")),
            "0x5401"
        );
        assert_eq!(Xlat::Raw.spell(Kind::Fd, 3, 4, named("3")), "3");
        let mut texts = vec!["11".into(), "0x2 /* F_SETFD */".into(), "FD_CLOEXEC".into()];
        reshape(v, "fcntl", &[11, 2, 1, 0, 0, 0], &mut texts);
        assert_eq!(texts[2], "0x1 /* FD_CLOEXEC */");
        assert_eq!(
            Xlat::Abbrev.spell(Kind::Prot, 3, 8, named("PROT_READ|PROT_WRITE")),
            "PROT_READ|PROT_WRITE"
        );
    }
}
