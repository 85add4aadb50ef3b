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

#[cfg(test)]
mod tests {
    use super::parse_list;

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
