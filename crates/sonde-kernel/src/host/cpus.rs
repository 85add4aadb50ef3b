//! CPU lists from sysfs: per-CPU maps hold one slot per *possible* CPU; per-CPU perf events can only
//! be opened on *online* ones.

use crate::error::{KernelError, Result};

pub fn possible_cpus() -> Result<Vec<u32>> {
    read_list("/sys/devices/system/cpu/possible")
}

pub fn online_cpus() -> Result<Vec<u32>> {
    read_list("/sys/devices/system/cpu/online")
}

fn read_list(path: &str) -> Result<Vec<u32>> {
    let text = std::fs::read_to_string(path).map_err(KernelError::io(path))?;
    parse_list(&text)
        .ok_or_else(|| KernelError::Parse { path: path.to_string(), text: text.trim().to_string() })
}

/// Parse the kernel's cpulist format: "0-3,5,7-8".
pub fn parse_list(text: &str) -> Option<Vec<u32>> {
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
                if a > b {
                    return None;
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().ok()?),
        }
    }
    Some(cpus)
}

/// The kernel's cpulist format back from a sorted list: `[0, 1, 2, 5]` is "0-2,5".
pub fn format_list(cpus: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        out.push(if i == j { cpus[i].to_string() } else { format!("{}-{}", cpus[i], cpus[j]) });
        i = j + 1;
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::{format_list, parse_list};

    #[test]
    fn lists_format_back() {
        for text in ["0-3,5,7-8", "0", "1,3", ""] {
            assert_eq!(format_list(&parse_list(text).unwrap()), text);
        }
    }

    #[test]
    fn parses_ranges_and_singles() {
        assert_eq!(parse_list("0-3,5\n"), Some(vec![0, 1, 2, 3, 5]));
        assert_eq!(parse_list("0\n"), Some(vec![0]));
        assert_eq!(parse_list("3-1"), None);
        assert_eq!(parse_list("x"), None);
    }

    #[test]
    fn this_machine_has_a_possible_cpu_zero() {
        assert_eq!(super::possible_cpus().unwrap()[0], 0);
    }
}
