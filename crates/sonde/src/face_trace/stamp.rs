//! strace's timestamps (`-t`, `-tt`, `-ttt`, `-r`) and call times (`-T`), from the records'
//! `nsecs` (CLOCK_MONOTONIC) turned into wall-clock time once per run.

/// Which timestamp starts each line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stamp {
    None,
    /// `-t`: `HH:MM:SS`, local time.
    Seconds,
    /// `-tt`: `HH:MM:SS.uuuuuu`.
    Micros,
    /// `-ttt`: seconds since the epoch, `1700000000.123456`.
    Epoch,
    /// `-r`: the time since the previous line's, `     0.000123`.
    Relative,
}

/// Turns record times into stamps.
pub struct Clock {
    stamp: Stamp,
    /// CLOCK_REALTIME minus CLOCK_MONOTONIC, read once.
    offset_ns: i128,
    previous_ns: Option<u64>,
}

impl Clock {
    pub fn new(stamp: Stamp) -> Clock {
        let offset_ns = sonde_kernel::host::clock::realtime_ns() as i128
            - sonde_kernel::host::clock::monotonic_ns() as i128;
        Clock { stamp, offset_ns, previous_ns: None }
    }

    pub fn is_on(&self) -> bool {
        self.stamp != Stamp::None
    }

    /// The stamp of a line at `time_ns` (monotonic), without the blank that follows it.
    pub fn text(&mut self, time_ns: u64) -> String {
        let unix_ns = (time_ns as i128 + self.offset_ns).max(0) as u64;
        let zone = || sonde_kernel::host::clock::utc_offset_secs((unix_ns / 1_000_000_000) as i64);
        match self.stamp {
            Stamp::None => String::new(),
            Stamp::Seconds => wall(unix_ns, zone(), false),
            Stamp::Micros => wall(unix_ns, zone(), true),
            Stamp::Epoch => seconds(unix_ns),
            Stamp::Relative => {
                let since = time_ns.saturating_sub(self.previous_ns.unwrap_or(time_ns));
                self.previous_ns = Some(time_ns);
                format!("{:>13}", seconds(since))
            }
        }
    }
}

/// `HH:MM:SS[.uuuuuu]` of `unix_ns` in a zone `zone` seconds east of UTC.
fn wall(unix_ns: u64, zone: i64, micros: bool) -> String {
    let secs = (unix_ns / 1_000_000_000) as i64 + zone;
    let day = secs.rem_euclid(86_400);
    let hms = format!("{:02}:{:02}:{:02}", day / 3600, day / 60 % 60, day % 60);
    match micros {
        true => format!("{hms}.{:06}", unix_ns % 1_000_000_000 / 1000),
        false => hms,
    }
}

/// `S.uuuuuu`, as strace prints times.
pub fn seconds(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000)
}

/// `-T`'s ` <0.000012>`, after a call's result.
pub fn call_time(ns: u64) -> String {
    format!(" <{}>", seconds(ns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_spelled_as_strace_spells_them() {
        // 2023-11-14 22:13:20.123456789 UTC.
        let t = 1_700_000_000_123_456_789;
        assert_eq!(wall(t, 0, false), "22:13:20");
        assert_eq!(wall(t, 3600, true), "23:13:20.123456");
        assert_eq!(wall(t, -23 * 3600, false), "23:13:20");
        assert_eq!(seconds(t), "1700000000.123456");
        assert_eq!(call_time(12_345), " <0.000012>");
        let mut c = Clock { stamp: Stamp::Relative, offset_ns: 0, previous_ns: None };
        assert_eq!(c.text(5_000_000_000), "     0.000000");
        assert_eq!(c.text(5_000_123_000), "     0.000123");
        assert_eq!(c.text(6_500_123_000), "     1.500000");
    }
}
