//! bpftrace's `strftime(fmt, nsecs)` and `time(fmt)`: a BPF timestamp as local wall-clock time,
//! formatted with strftime(3)'s common conversions (and bpftrace's `%f`, microseconds).

use crate::decode::civil_from_days;

const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] =
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// `ns` is a `bpf_ktime_get_ns()` (CLOCK_MONOTONIC) timestamp, like `nsecs`.
pub fn local(format: &[u8], ns: u64) -> Vec<u8> {
    let offset = sonde_kernel::host::clock::realtime_ns() as i128
        - sonde_kernel::host::clock::monotonic_ns() as i128;
    let unix_ns = (ns as i128 + offset).max(0) as u64;
    let zone = sonde_kernel::host::clock::utc_offset_secs((unix_ns / 1_000_000_000) as i64);
    format_at(format, unix_ns, zone)
}

/// Formats `unix_ns` (nanoseconds since the epoch, UTC) shifted by `zone` seconds.
pub fn format_at(format: &[u8], unix_ns: u64, zone: i64) -> Vec<u8> {
    let secs = (unix_ns / 1_000_000_000) as i64 + zone;
    let nanos = unix_ns % 1_000_000_000;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let (hh, mm, ss) = (rem / 3600, rem / 60 % 60, rem % 60);
    let yday = days - days_before_year(y);
    let wday = (days + 4).rem_euclid(7) as usize;
    let mut out = Vec::new();
    let mut it = format.iter().copied();
    while let Some(c) = it.next() {
        if c != b'%' {
            out.push(c);
            continue;
        }
        let Some(conv) = it.next() else {
            out.push(b'%');
            break;
        };
        let s = match conv {
            b'Y' => format!("{}", y),
            b'y' => format!("{:02}", y.rem_euclid(100)),
            b'm' => format!("{:02}", m),
            b'd' => format!("{:02}", d),
            b'e' => format!("{:2}", d),
            b'H' => format!("{:02}", hh),
            b'I' => format!("{:02}", (hh + 11) % 12 + 1),
            b'p' => (if hh < 12 { "AM" } else { "PM" }).into(),
            b'M' => format!("{:02}", mm),
            b'S' => format!("{:02}", ss),
            b'f' => format!("{:06}", nanos / 1000),
            b'j' => format!("{:03}", yday + 1),
            b'a' => DAYS[wday].into(),
            b'b' | b'h' => MONTHS[(m - 1) as usize].into(),
            b's' => format!("{}", unix_ns / 1_000_000_000),
            b'T' => format!("{:02}:{:02}:{:02}", hh, mm, ss),
            b'R' => format!("{:02}:{:02}", hh, mm),
            b'F' => format!("{}-{:02}-{:02}", y, m, d),
            b'D' => format!("{:02}/{:02}/{:02}", m, d, y.rem_euclid(100)),
            b'z' => {
                let (sign, z) = if zone < 0 { ('-', -zone) } else { ('+', zone) };
                format!("{}{:02}{:02}", sign, z / 3600, z / 60 % 60)
            }
            b'n' => "\n".into(),
            b't' => "\t".into(),
            b'%' => "%".into(),
            other => format!("%{}", other as char),
        };
        out.extend_from_slice(s.as_bytes());
    }
    out
}

/// Days from 1970-01-01 to January 1st of `y`.
fn days_before_year(y: i64) -> i64 {
    let y1 = y - 1;
    365 * (y - 1970) + (y1.div_euclid(4) - y1.div_euclid(100) + y1.div_euclid(400)) - 477
}

#[cfg(test)]
mod tests {
    use super::format_at;

    #[test]
    fn conversions() {
        // 2024-03-01 13:04:05.123456789 UTC, a Friday, day 61 of a leap year.
        let t = 1_709_298_245_123_456_789;
        let f = |s: &str, z| String::from_utf8(format_at(s.as_bytes(), t, z)).unwrap();
        assert_eq!(f("%H:%M:%S.%f", 0), "13:04:05.123456");
        assert_eq!(f("%Y-%m-%d %a %b %j %I%p %z %%", 0), "2024-03-01 Fri Mar 061 01PM +0000 %");
        assert_eq!(f("%T %F", -5 * 3600), "08:04:05 2024-03-01");
        assert_eq!(f("%s", 3600), "1709298245");
    }
}
