//! select's fd sets as strace prints them: `[3 5]` at entry, and after the result the fds that
//! are ready, `1 (in [3], left {tv_sec=0, tv_nsec=999994851})`, or `0 (Timeout)`.

/// The fds below `nfds` set in the copied set.
fn fds(b: &[u8], nfds: u64) -> Vec<usize> {
    (0..(nfds as usize).min(b.len() * 8)).filter(|&i| b[i / 8] & (1 << (i % 8)) != 0).collect()
}

/// A set as the call reads it.
pub fn set(b: &[u8], nfds: u64) -> String {
    let fds: Vec<String> = fds(b, nfds).iter().map(|f| f.to_string()).collect();
    format!("[{}]", fds.join(" "))
}

/// What follows a successful result: the ready fds of each set the call filled (`in`, `out`,
/// `except`) and the time left, as strace prints them.
pub fn ready(sets: [Option<&[u8]>; 3], nfds: u64, ret: i64, left: Option<String>) -> String {
    if ret == 0 {
        return "0 (Timeout)".into();
    }
    let mut parts = Vec::new();
    for (name, set) in ["in", "out", "except"].iter().zip(sets) {
        let Some(b) = set else { continue };
        let fds: Vec<String> = fds(b, nfds).iter().map(|f| f.to_string()).collect();
        if !fds.is_empty() {
            parts.push(format!("{name} [{}]", fds.join(" ")));
        }
    }
    if let Some(l) = left {
        parts.push(format!("left {l}"));
    }
    format!("{ret} ({})", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_and_what_is_ready() {
        let mut b = [0u8; 128];
        b[0] = 0b0010_1000;
        assert_eq!(set(&b, 6), "[3 5]");
        assert_eq!(set(&b, 4), "[3]");
        let left = Some("{tv_sec=0, tv_nsec=999994851}".to_string());
        assert_eq!(
            ready([Some(&b), None, None], 4, 1, left),
            "1 (in [3], left {tv_sec=0, tv_nsec=999994851})"
        );
        assert_eq!(ready([Some(&b), None, None], 4, 0, None), "0 (Timeout)");
    }
}
