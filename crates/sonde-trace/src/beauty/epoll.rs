//! epoll's events as strace prints them: `{events=EPOLLIN, data={u32=3, u64=3}}`, epoll_ctl's
//! one at entry, epoll_wait's array of as many as it returned at exit. struct epoll_event is
//! packed on x86-64: events (4 bytes), then data (8).

use super::consts::flags_or_zero;
use super::structs::u32_at;
use super::Table;
use crate::memory::EPOLL_EVENT;

const EVENTS: Table = &[
    (0x1, "EPOLLIN"),
    (0x2, "EPOLLPRI"),
    (0x4, "EPOLLOUT"),
    (0x8, "EPOLLERR"),
    (0x10, "EPOLLHUP"),
    (0x20, "EPOLLNVAL"),
    (0x40, "EPOLLRDNORM"),
    (0x80, "EPOLLRDBAND"),
    (0x100, "EPOLLWRNORM"),
    (0x200, "EPOLLWRBAND"),
    (0x400, "EPOLLMSG"),
    (0x2000, "EPOLLRDHUP"),
    (1 << 28, "EPOLLEXCLUSIVE"),
    (1 << 29, "EPOLLWAKEUP"),
    (1 << 30, "EPOLLONESHOT"),
    (1 << 31, "EPOLLET"),
];

/// epoll_ctl's operations.
pub const OPS: Table = &[(1, "EPOLL_CTL_ADD"), (2, "EPOLL_CTL_DEL"), (3, "EPOLL_CTL_MOD")];

/// The event at the start of `b`.
pub fn event(b: &[u8]) -> Option<String> {
    let data = u64::from_le_bytes(b.get(4..12)?.try_into().ok()?);
    Some(format!(
        "{{events={}, data={{u32={}, u64={data}}}}}",
        flags_or_zero(u32_at(b, 0)? as u64, EVENTS),
        data as u32
    ))
}

/// The first `n` events of the copied array (`...` after those it does not hold).
pub fn events(b: &[u8], n: u64) -> String {
    let held = (n as usize).min(b.len() / EPOLL_EVENT);
    let mut items: Vec<String> = (0..held).filter_map(|k| event(&b[k * EPOLL_EVENT..])).collect();
    if n as usize > held {
        items.push("...".into());
    }
    format!("[{}]", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(events: u32, data: u64) -> Vec<u8> {
        [events.to_le_bytes().to_vec(), data.to_le_bytes().to_vec()].concat()
    }

    #[test]
    fn events_as_strace_prints_them() {
        assert_eq!(event(&ev(1, 3)).unwrap(), "{events=EPOLLIN, data={u32=3, u64=3}}");
        let b = [ev(0x5, 0x1_0000_0007), ev(0x8000_0001, 9)].concat();
        assert_eq!(
            events(&b, 2),
            "[{events=EPOLLIN|EPOLLOUT, data={u32=7, u64=4294967303}}, \
             {events=EPOLLIN|EPOLLET, data={u32=9, u64=9}}]"
        );
        assert_eq!(events(&b, 0), "[]");
    }
}
