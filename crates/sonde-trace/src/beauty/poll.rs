//! poll and ppoll as strace prints them: the array at entry, `[{fd=3, events=POLLIN}]`, and
//! after the result the entries that fired, `= 1 ([{fd=3, revents=POLLIN}])` or `= 0 (Timeout)`.

use super::consts::flags_or_zero;
use super::structs::u32_at;
use super::Table;

/// Entries of the array copied: 16 of 8 bytes.
pub const COPIED: usize = 16;
pub const BYTES: usize = COPIED * 8;

const EVENTS: Table = &[
    (0x1, "POLLIN"),
    (0x2, "POLLPRI"),
    (0x4, "POLLOUT"),
    (0x8, "POLLERR"),
    (0x10, "POLLHUP"),
    (0x20, "POLLNVAL"),
    (0x40, "POLLRDNORM"),
    (0x80, "POLLRDBAND"),
    (0x100, "POLLWRNORM"),
    (0x200, "POLLWRBAND"),
    (0x400, "POLLMSG"),
    (0x1000, "POLLREMOVE"),
    (0x2000, "POLLRDHUP"),
];

/// (fd, events, revents) of the first `n` entries the copy holds.
fn entries(b: &[u8], n: u64) -> impl Iterator<Item = (i32, u16, u16)> + '_ {
    (0..(n as usize).min(b.len() / 8)).filter_map(move |k| {
        let fd = u32_at(b, k * 8)? as i32;
        let half = |at: usize| Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?));
        Some((fd, half(k * 8 + 4)?, half(k * 8 + 6)?))
    })
}

/// The array as the call reads it.
pub fn array(b: &[u8], nfds: u64) -> String {
    let mut items: Vec<String> = entries(b, nfds)
        .map(|(fd, events, _)| match fd < 0 {
            true => format!("{{fd={fd}}}"),
            false => format!("{{fd={fd}, events={}}}", flags_or_zero(events as u64, EVENTS)),
        })
        .collect();
    if nfds as usize > COPIED {
        items.push("...".into());
    }
    format!("[{}]", items.join(", "))
}

/// What follows the result: the entries that fired (and ppoll's time `left`), or `(Timeout)`.
pub fn fired(b: &[u8], nfds: u64, ret: i64, left: Option<String>) -> Option<String> {
    if ret == 0 {
        return Some("0 (Timeout)".into());
    }
    let items: Vec<String> = entries(b, nfds)
        .filter(|(fd, _, revents)| *fd >= 0 && *revents != 0)
        .map(|(fd, _, revents)| {
            format!("{{fd={fd}, revents={}}}", flags_or_zero(revents as u64, EVENTS))
        })
        .collect();
    let left = left.map_or(String::new(), |l| format!(", left {l}"));
    Some(format!("{ret} ([{}]{left})", items.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pollfd(fd: i32, events: u16, revents: u16) -> Vec<u8> {
        [fd.to_le_bytes().to_vec(), events.to_le_bytes().to_vec(), revents.to_le_bytes().to_vec()]
            .concat()
    }

    #[test]
    fn arrays_and_what_fired() {
        let b = [pollfd(5, 0x19, 0), pollfd(3, 0x19, 0x1), pollfd(-1, 0, 0)].concat();
        assert_eq!(
            array(&b, 3),
            "[{fd=5, events=POLLIN|POLLERR|POLLHUP}, {fd=3, events=POLLIN|POLLERR|POLLHUP}, {fd=-1}]"
        );
        assert_eq!(fired(&b, 3, 1, None).unwrap(), "1 ([{fd=3, revents=POLLIN}])");
        assert_eq!(fired(&b, 3, 0, None).unwrap(), "0 (Timeout)");
        let left = Some("{tv_sec=0, tv_nsec=999996884}".to_string());
        assert_eq!(
            fired(&b, 3, 1, left).unwrap(),
            "1 ([{fd=3, revents=POLLIN}], left {tv_sec=0, tv_nsec=999996884})"
        );
    }
}
