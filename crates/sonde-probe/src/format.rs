//! trace_pipe lines made readable: sonde's internal event names replaced by what the user probed,
//! strings unquoted, `ip_` values dotted, `B16_`/`b32_`... values byte-swapped.

/// Rewrite one trace_pipe line; `labels` maps event names (`sonde_12_0`) to labels (`do_filp_open`).
pub fn format_line(line: &str, labels: &[(String, String)]) -> String {
    let mut out = line.to_string();
    let mut start = 0;
    for (event, label) in labels {
        let key = format!(" {event}: ");
        if let Some(i) = out.find(&key) {
            let with = format!(" {label}: ");
            out.replace_range(i..i + key.len(), &with);
            start = i + with.len();
            break;
        }
    }
    // Values follow the label, and the `(site)` of kprobes and uprobes.
    if out[start..].starts_with('(') {
        start += out[start..].find(") ").map_or(out.len() - start, |i| i + 2);
    }
    let (head, tail) = out.split_at(start);
    let mut fields = Vec::new();
    for word in split_fields(tail) {
        fields.push(match word.split_once('=') {
            Some((name, value)) => format!("{name}={}", value_text(name, value)),
            None => word.to_string(),
        });
    }
    format!("{head}{}", fields.join(" "))
}

/// `line` with the `<...>` the tracer prints for a task whose name its comm cache lost replaced by
/// `comm_of(pid)`, when that knows it (the process's /proc/PID/comm while it lives).
pub fn with_comm(line: &str, comm_of: impl FnOnce(u32) -> Option<String>) -> Option<String> {
    let (head, _) = line.split_once("] ")?;
    let (task, _) = head.rsplit_once('[')?;
    let start = line.find("<...>-")?;
    if start >= task.len() {
        return None;
    }
    let pid = task[start + 6..].trim().parse().ok()?;
    let comm = comm_of(pid)?;
    let comm = comm.trim();
    // A name with a blank would be taken apart at the wrong place (a dash is not: the pid is
    // after the last one).
    if comm.is_empty() || comm.contains(char::is_whitespace) {
        return None;
    }
    Some(format!("{}{comm}{}", &line[..start], &line[start + 5..]))
}

/// One trace_pipe record, taken apart for `--json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub comm: String,
    pub pid: u32,
    pub cpu: u32,
    /// Seconds since boot, as the trace clock prints them.
    pub time: String,
    /// The label (`do_filp_open`, `do_sys_openat2%return`, `sched/sched_switch`).
    pub probe: String,
    /// `do_filp_open+0x0/0x160` for kprobes and uprobes.
    pub site: Option<String>,
    /// Each `NAME=VALUE`, the value formatted as in text output.
    pub args: Vec<(String, String)>,
    /// What follows the event's name when it is not `NAME=VALUE` pairs (syscall tracepoints
    /// print `sys_openat(dfd: ...)`).
    pub text: Option<String>,
}

/// `  comm-12  [001] d..1.  5.5: sonde_7_0: (site) a=1 b="x"` as an [`Event`]; `None` for
/// other lines (stack frames).
pub fn parse_event(line: &str, labels: &[(String, String)]) -> Option<Event> {
    let (head, tail) = line.split_once("] ")?;
    let (task, cpu) = head.rsplit_once('[')?;
    let (comm, pid) = task.trim().rsplit_once('-')?;
    let (stamp, rest) = tail.split_once(": ")?;
    // `NAME: ...`, except where the print format starts at once (`sys_openat(dfd: ...`).
    let (event, mut rest) = match rest.split_once(": ") {
        Some((e, r)) if !e.contains(['(', ' ']) => (e, r),
        _ => ("", rest),
    };
    let probe = match labels.iter().find(|(e, _)| e == event) {
        Some((_, l)) => l.as_str(),
        None if event.is_empty() && labels.len() == 1 => labels[0].1.as_str(),
        None => event,
    };
    let mut site = None;
    if let Some(r) = rest.strip_prefix('(') {
        let end = r.find(')')?;
        site = Some(r[..end].to_string());
        rest = r[end + 1..].trim_start();
    }
    let args: Vec<(String, String)> = split_fields(rest)
        .into_iter()
        .filter_map(|w| w.split_once('='))
        .map(|(n, v)| (n.to_string(), value_text(n, v)))
        .collect();
    let text = (args.is_empty() && !rest.is_empty()).then(|| rest.to_string());
    Some(Event {
        comm: comm.to_string(),
        pid: pid.parse().ok()?,
        cpu: cpu.trim().parse().ok()?,
        time: stamp.split_whitespace().last()?.to_string(),
        probe: probe.to_string(),
        site,
        args,
        text,
    })
}

/// Words of `a=1 b="x y"`: quoted strings may hold spaces.
fn split_fields(s: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start = None;
    let mut quoted = false;
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if let Some(st) = start.take() {
                    words.push(&s[st..i]);
                }
                continue;
            }
            _ => {}
        }
        start.get_or_insert(i);
    }
    if let Some(st) = start {
        words.push(&s[st..]);
    }
    words
}

fn value_text(name: &str, value: &str) -> String {
    if let Some(s) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        return s.to_string();
    }
    let num = match value.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => value.parse::<i64>().ok().map(|v| v as u64),
    };
    let Some(n) = num else { return value.to_string() };
    if name.starts_with("ip_") {
        let b = (n as u32).to_le_bytes();
        return format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3]);
    }
    for (prefix, bits) in [("16_", 16), ("32_", 32), ("64_", 64)] {
        let hex = name.strip_prefix('B').is_some_and(|r| r.starts_with(prefix));
        let dec = name.strip_prefix('b').is_some_and(|r| r.starts_with(prefix));
        if hex || dec {
            let v = match bits {
                16 => (n as u16).swap_bytes() as u64,
                32 => (n as u32).swap_bytes() as u64,
                _ => n.swap_bytes(),
            };
            return if hex { format!("{v:#x}") } else { v.to_string() };
        }
    }
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_become_events() {
        let labels = vec![("sonde_7_0".to_string(), "do_filp_open".to_string())];
        let e = parse_event(
            "  wl-probe-12  [001] d..1.  5.500001: sonde_7_0: (do_filp_open+0x4/0x100) dfd=-100 name=\"/etc/a b\" ip_src=16777343",
            &labels,
        )
        .unwrap();
        assert_eq!(
            (e.comm.as_str(), e.pid, e.cpu, e.time.as_str()),
            ("wl-probe", 12, 1, "5.500001")
        );
        assert_eq!(e.probe, "do_filp_open");
        assert_eq!(e.site.as_deref(), Some("do_filp_open+0x4/0x100"));
        let args: Vec<(&str, &str)> =
            e.args.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        assert_eq!(args, [("dfd", "-100"), ("name", "/etc/a b"), ("ip_src", "127.0.0.1")]);
        let t = parse_event("  sh-1 [000] ..... 9.1: sched_switch: prev_comm=sh prev_pid=1", &[])
            .unwrap();
        assert_eq!((t.probe.as_str(), t.site, t.args.len()), ("sched_switch", None, 2));
        assert_eq!(parse_event(" => do_filp_open", &labels), None);
        let labels =
            vec![("sys_enter_openat".to_string(), "syscalls/sys_enter_openat".to_string())];
        let s =
            parse_event("  cat-3  [000] .....  7.2: sys_openat(dfd: ffffff9c, mode: 0)", &labels)
                .unwrap();
        assert_eq!(s.probe, "syscalls/sys_enter_openat");
        assert_eq!(s.text.as_deref(), Some("sys_openat(dfd: ffffff9c, mode: 0)"));
    }

    #[test]
    fn lines_are_relabelled_and_values_formatted() {
        let labels = vec![("sonde_7_0".to_string(), "do_filp_open".to_string())];
        assert_eq!(
            format_line(
                "  cat-12  [001] d..1.  5.5: sonde_7_0: (do_filp_open+0x0/0x100) dfd=-100 name=\"/etc/a b\" ip_src=0x100007f B16_port=0x5000",
                &labels
            ),
            "  cat-12  [001] d..1.  5.5: do_filp_open: (do_filp_open+0x0/0x100) dfd=-100 name=/etc/a b ip_src=127.0.0.1 B16_port=0x50"
        );
    }

    #[test]
    fn a_lost_name_is_taken_from_the_pid() {
        let line = "           <...>-4242    [001] d..1.  5.5: sonde_7_0: (f+0x0/0x10) a=1";
        let comm = |pid: u32| (pid == 4242).then(|| "wl-probe\n".to_string());
        let named = with_comm(line, comm).unwrap();
        assert_eq!(
            named,
            "           wl-probe-4242    [001] d..1.  5.5: sonde_7_0: (f+0x0/0x10) a=1"
        );
        let e = parse_event(&named, &[]).unwrap();
        assert_eq!((e.comm.as_str(), e.pid), ("wl-probe", 4242));
        // Gone, a name already there, a value that only looks like one: the line stays.
        assert_eq!(with_comm(line, |_| None), None);
        assert_eq!(with_comm("  cat-12  [001] d..1.  5.5: e: s=\"<...>-1\"", comm), None);
        assert_eq!(with_comm(line, |_| Some("two words".into())), None);
    }
}
