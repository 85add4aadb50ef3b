//! ioctl's terminal structs in strace 6's words: `struct termios` (TCGETS, TCSETS...),
//! `struct winsize` (TIOCGWINSZ), and the ints some requests fill (`[27]`).

use super::consts::flags_or_zero;
use super::structs::u32_at;
use super::Table;

/// Bytes copied of ioctl's argument: struct termios whole (strace -v shows every member; without
/// -v the four flag words).
pub const IOCTL_ARG: usize = 36;

/// The request's argument from the copy (`copy` made at exit for the requests that fill it, at
/// entry and again at exit for those that read it), or None where strace prints the number.
pub fn ioctl_arg(request: u32, copy: &[u8], ret: i64) -> Option<String> {
    let int = || u32_at(copy, 0).map(|v| format!("[{}]", v as i32));
    if ioctl_fills(request) && ret < 0 {
        return None;
    }
    match request {
        0x5401..=0x5404 => termios(copy),
        0x5413 | 0x5414 => winsize(copy),
        // FIONREAD, TIOCGPGRP, TIOCGPTN fill an int; TIOCSPGRP, TIOCSPTLCK, FIONBIO read one.
        0x541b | 0x540f | 0x8004_5430 | 0x5410 | 0x4004_5431 | 0x5421 => int(),
        _ => None,
    }
}

/// The requests whose argument the kernel fills (TCGETS, TIOCGWINSZ, FIONREAD, TIOCGPGRP,
/// TIOCGPTN): strace prints it when the call returns, and only when it succeeded.
pub fn ioctl_fills(request: u32) -> bool {
    matches!(request, 0x5401 | 0x5413 | 0x541b | 0x540f | 0x8004_5430)
}

fn winsize(b: &[u8]) -> Option<String> {
    let h = |at: usize| Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?));
    Some(format!(
        "{{ws_row={}, ws_col={}, ws_xpixel={}, ws_ypixel={}}}",
        h(0)?,
        h(2)?,
        h(4)?,
        h(6)?
    ))
}

const IFLAGS: Table = &[
    (0o1, "IGNBRK"),
    (0o2, "BRKINT"),
    (0o4, "IGNPAR"),
    (0o10, "PARMRK"),
    (0o20, "INPCK"),
    (0o40, "ISTRIP"),
    (0o100, "INLCR"),
    (0o200, "IGNCR"),
    (0o400, "ICRNL"),
    (0o1000, "IUCLC"),
    (0o2000, "IXON"),
    (0o4000, "IXANY"),
    (0o10000, "IXOFF"),
    (0o20000, "IMAXBEL"),
    (0o40000, "IUTF8"),
];
const OFLAGS: Table = &[
    (0o1, "OPOST"),
    (0o2, "OLCUC"),
    (0o4, "ONLCR"),
    (0o10, "OCRNL"),
    (0o20, "ONOCR"),
    (0o40, "ONLRET"),
    (0o100, "OFILL"),
    (0o200, "OFDEL"),
];
const CFLAGS: Table = &[
    (0o100, "CSTOPB"),
    (0o200, "CREAD"),
    (0o400, "PARENB"),
    (0o1000, "PARODD"),
    (0o2000, "HUPCL"),
    (0o4000, "CLOCAL"),
    (0o10000000000, "CMSPAR"),
    (0o20000000000, "CRTSCTS"),
];
/// strace's order (IEXTEN before ECHOCTL, as it prints them).
const LFLAGS: Table = &[
    (0o1, "ISIG"),
    (0o2, "ICANON"),
    (0o4, "XCASE"),
    (0o10, "ECHO"),
    (0o20, "ECHOE"),
    (0o40, "ECHOK"),
    (0o100, "ECHONL"),
    (0o200, "NOFLSH"),
    (0o100000, "IEXTEN"),
    (0o1000, "ECHOCTL"),
    (0o2000, "ECHOPRT"),
    (0o4000, "ECHOKE"),
    (0o10000, "FLUSHO"),
    (0o40000, "PENDIN"),
    (0o400, "TOSTOP"),
    (0o200000, "EXTPROC"),
];
const BAUDS: &[(u32, &str)] = &[
    (0, "B0"),
    (1, "B50"),
    (2, "B75"),
    (3, "B110"),
    (4, "B134"),
    (5, "B150"),
    (6, "B200"),
    (7, "B300"),
    (8, "B600"),
    (9, "B1200"),
    (10, "B1800"),
    (11, "B2400"),
    (12, "B4800"),
    (13, "B9600"),
    (14, "B19200"),
    (15, "B38400"),
    (0o10001, "B57600"),
    (0o10002, "B115200"),
    (0o10003, "B230400"),
    (0o10004, "B460800"),
    (0o10005, "B500000"),
    (0o10006, "B576000"),
    (0o10007, "B921600"),
    (0o10010, "B1000000"),
    (0o10017, "B4000000"),
];

/// The delay fields of c_oflag, each named by its value (`NL0|CR0|TAB0|BS0|VT0|FF0`).
fn oflag(v: u32) -> String {
    let field =
        |mask: u32, shift: u32, names: &[&str]| names[((v & mask) >> shift) as usize].to_string();
    let mut parts = vec![
        field(0o400, 8, &["NL0", "NL1"]),
        field(0o3000, 9, &["CR0", "CR1", "CR2", "CR3"]),
        field(0o14000, 11, &["TAB0", "TAB1", "TAB2", "TAB3"]),
        field(0o20000, 13, &["BS0", "BS1"]),
        field(0o40000, 14, &["VT0", "VT1"]),
        field(0o100000, 15, &["FF0", "FF1"]),
    ];
    let rest = (v & !0o177400) as u64;
    if rest != 0 {
        parts.push(super::flags(rest, OFLAGS));
    }
    parts.join("|")
}

fn cflag(v: u32) -> String {
    let baud = v & 0o10017;
    let mut parts = vec![match BAUDS.iter().find(|(b, _)| *b == baud) {
        Some((_, n)) => n.to_string(),
        None => format!("{baud:#o}"),
    }];
    parts.push(["CS5", "CS6", "CS7", "CS8"][((v & 0o60) >> 4) as usize].to_string());
    let rest = (v & !(0o10017 | 0o60)) as u64;
    if rest != 0 {
        parts.push(super::flags(rest, CFLAGS));
    }
    parts.join("|")
}

fn termios(b: &[u8]) -> Option<String> {
    Some(format!("{{{}, ...}}", termios_flags(b)?))
}

fn termios_flags(b: &[u8]) -> Option<String> {
    Some(format!(
        "c_iflag={}, c_oflag={}, c_cflag={}, c_lflag={}",
        flags_or_zero(u32_at(b, 0)? as u64, IFLAGS),
        oflag(u32_at(b, 4)?),
        cflag(u32_at(b, 8)?),
        flags_or_zero(u32_at(b, 12)? as u64, LFLAGS)
    ))
}

/// With -v: the request's termios whole, `c_line` and `c_cc` too, as strace -v prints it.
pub fn ioctl_arg_whole(request: u32, copy: &[u8], ret: i64) -> Option<String> {
    match request {
        0x5401 if ret >= 0 => termios_whole(copy),
        0x5402..=0x5404 => termios_whole(copy),
        _ => None,
    }
}

/// x86-64's control characters, by index (strace's xlat/termio_cc.in).
const CC_NAMES: [&str; 17] = [
    "VINTR", "VQUIT", "VERASE", "VKILL", "VEOF", "VTIME", "VMIN", "VSWTC", "VSTART", "VSTOP",
    "VSUSP", "VEOL", "VREPRINT", "VDISCARD", "VWERASE", "VLNEXT", "VEOL2",
];

/// Line disciplines (linux/tty.h's N_*), by number.
const DISCIPLINES: [&str; 31] = [
    "N_TTY",
    "N_SLIP",
    "N_MOUSE",
    "N_PPP",
    "N_STRIP",
    "N_AX25",
    "N_X25",
    "N_6PACK",
    "N_MASC",
    "N_R3964",
    "N_PROFIBUS_FDL",
    "N_IRDA",
    "N_SMSBLOCK",
    "N_HDLC",
    "N_SYNC_PPP",
    "N_HCI",
    "N_GIGASET_M101",
    "N_SLCAN",
    "N_PPS",
    "N_V253",
    "N_CAIF",
    "N_GSM0710",
    "N_TI_WL",
    "N_TRACESINK",
    "N_TRACEROUTER",
    "N_NCI",
    "N_SPEAKUP",
    "N_NULL",
    "N_MCTP",
    "N_DEVELOPMENT",
    "N_CAN327",
];

/// struct termios: four flag words, c_line at 16, c_cc[19] at 17.
fn termios_whole(b: &[u8]) -> Option<String> {
    let line = *b.get(16)?;
    let line = DISCIPLINES.get(line as usize).map_or(line.to_string(), |n| n.to_string());
    let cc: Vec<String> = b
        .get(17..36)?
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let value = if v == 0 { "0".to_string() } else { format!("{v:#x}") };
            match CC_NAMES.get(i) {
                Some(name) => format!("[{name}]={value}"),
                None => format!("[{i}]={value}"),
            }
        })
        .collect();
    Some(format!("{{{}, c_line={line}, c_cc=[{}]}}", termios_flags(b)?, cc.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terminal_as_strace_6_prints_it() {
        let words = [0o2400u32, 0o5, 0o277, 0o105073];
        let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(
            ioctl_arg(0x5401, &b, 0).unwrap(),
            "{c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, \
             c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN|ECHOCTL|ECHOKE, ...}"
        );
        // A failed TCGETS filled nothing: its address is printed.
        assert_eq!(ioctl_arg(0x5401, &b, -25), None);
        let w = [24u16, 80, 0, 0].iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
        assert_eq!(
            ioctl_arg(0x5413, &w, 0).unwrap(),
            "{ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}"
        );
        assert_eq!(ioctl_arg(0x541b, &27u32.to_le_bytes(), 0).unwrap(), "[27]");
    }
}
