//! One line of function_graph output, as sonde configures the tracer: `funcgraph-cpu`,
//! `funcgraph-proc`, `funcgraph-duration`, `funcgraph-overhead` and `funcgraph-irqs` on,
//! `funcgraph-abstime` off; `funcgraph-tail` on or off. For example:
//!
//! ```text
//!  1)  sonde-w-93    |               |  vfs_read() {
//!  1)  sonde-w-93    |   0.871 us    |    rw_verify_area();
//!  1)  sonde-w-93    | + 18.030 us   |  } /* vfs_read */
//!  1)  sonde-w-93    |   ==========> |
//!  ------------------------------------------
//!  0)  sonde-w-93    =>    dd-95
//!  ------------------------------------------
//! CPU:1 [LOST 316 EVENTS]
//! ```

/// The task a line belongs to (`comm-pid` in the proc column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    pub comm: String,
    pub pid: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// `name() {`: a call with children; `depth` levels below the traced function (indentation).
    Entry {
        cpu: u32,
        task: Option<Task>,
        depth: u32,
        name: String,
    },
    /// `name();`: a call without traced children, with its duration (and with
    /// funcgraph-retval, 6.5+, its return value: `name(); /* = 0x0 */`).
    Leaf {
        cpu: u32,
        task: Option<Task>,
        depth: u32,
        ns: u64,
        name: String,
        retval: Option<String>,
    },
    /// `}` or `} /* name */` (funcgraph-tail): the innermost open call returns; with
    /// funcgraph-retval `} /* name = -22 */`.
    Exit {
        cpu: u32,
        task: Option<Task>,
        ns: u64,
        name: Option<String>,
        retval: Option<String>,
    },
    /// `==========>`: an interrupt starts on this CPU; `<==========`: it ends.
    IrqEnter {
        cpu: u32,
    },
    IrqExit {
        cpu: u32,
    },
    /// `from => to`: the CPU switched tasks (or a task came to this CPU).
    Switch {
        cpu: u32,
        from: Option<Task>,
        to: Option<Task>,
    },
    /// `CPU:N [LOST M EVENTS]`: the ring buffer overwrote M entries before they were read.
    Lost {
        cpu: u32,
        events: u64,
    },
    /// `/* sched_process_exec: filename=F pid=N old_pid=N */`: task N exec'd program F (the
    /// tracer's comm column may still show the old name until its next switch).
    Exec {
        cpu: u32,
        pid: u32,
        filename: String,
    },
    /// Separators, headers, other comments, anything else.
    Other,
}

/// Parse one line; never fails (what is not understood is [`Line::Other`]).
pub fn parse(text: &str) -> Line {
    let t = text.trim_end();
    if let Some(l) = lost(t) {
        return l;
    }
    let Some((cpu, rest)) = cpu_prefix(t) else { return Line::Other };
    if rest.contains("==========>") {
        return Line::IrqEnter { cpu };
    }
    if rest.contains("<==========") {
        return Line::IrqExit { cpu };
    }
    let cols: Vec<&str> = rest.split('|').collect();
    if cols.len() == 1 {
        return switch(cpu, rest);
    }
    // [proc] | duration | body: the body is always the last column.
    let body = cols[cols.len() - 1];
    let task = if cols.len() >= 3 { task(cols[0]) } else { None };
    let dur = duration_ns(cols[cols.len() - 2]);
    let b = body.trim();
    // Two spaces after the column bar, then two per level.
    let depth = ((body.len() - body.trim_start().len()).saturating_sub(2) / 2) as u32;
    if let Some(name) = b.strip_suffix("() {") {
        return Line::Entry { cpu, task, depth, name: name.to_string() };
    }
    if let Some(e) = b.strip_prefix("/* sched_process_exec: ") {
        return exec(cpu, e).unwrap_or(Line::Other);
    }
    if let Some(rest) = b.strip_prefix('}') {
        let (name, retval) = comment(rest);
        let name = Some(name.to_string()).filter(|s| !s.is_empty());
        return Line::Exit { cpu, task, ns: dur.unwrap_or(0), name, retval };
    }
    // `name();` possibly followed by a comment (funcgraph-retval's `/* = 0x0 */`).
    if let Some((name, rest)) = b.split_once("();") {
        if !name.is_empty() {
            let (_, retval) = comment(rest);
            let (ns, name) = (dur.unwrap_or(0), name.to_string());
            return Line::Leaf { cpu, task, depth, ns, name, retval };
        }
    }
    Line::Other
}

/// ` /* name = value */` -> (`name`, the value): what follows a closing brace or a leaf.
fn comment(t: &str) -> (&str, Option<String>) {
    let Some(inner) = t.trim().strip_prefix("/*").and_then(|s| s.split("*/").next()) else {
        return ("", None);
    };
    match inner.split_once('=') {
        Some((name, v)) => (name.trim(), Some(v.trim().to_string()).filter(|v| !v.is_empty())),
        None => (inner.trim(), None),
    }
}

/// ` 1) ...`: the CPU column.
fn cpu_prefix(t: &str) -> Option<(u32, &str)> {
    let s = t.trim_start();
    let (n, rest) = s.split_once(')')?;
    Some((n.trim().parse().ok()?, rest))
}

fn lost(t: &str) -> Option<Line> {
    let rest = t.trim().strip_prefix("CPU:")?;
    let (cpu, rest) = rest.split_once(' ')?;
    let n = rest.trim().strip_prefix("[LOST ")?.split_whitespace().next()?;
    Some(Line::Lost { cpu: cpu.parse().ok()?, events: n.parse().ok()? })
}

/// `comm-pid`, centred in its column; comm may itself hold dashes or spaces.
fn task(col: &str) -> Option<Task> {
    let (comm, pid) = col.trim().rsplit_once('-')?;
    Some(Task { comm: comm.to_string(), pid: pid.parse().ok()? })
}

fn exec(cpu: u32, fields: &str) -> Option<Line> {
    let field = |k: &str| {
        fields.split_whitespace().find_map(|w| w.strip_prefix(k)).map(|v| v.trim_end_matches("*/"))
    };
    Some(Line::Exec {
        cpu,
        pid: field("pid=")?.parse().ok()?,
        filename: field("filename=")?.to_string(),
    })
}

fn switch(cpu: u32, rest: &str) -> Line {
    match rest.split_once("=>") {
        Some((from, to)) => Line::Switch { cpu, from: task(from), to: task(to) },
        None => Line::Other,
    }
}

/// `  0.871 us`, `+ 18.030 us`, `! 123.456 us`, `$ 1234567 us`: microseconds with up to three
/// decimals, after an optional overhead mark (+ ! # * @ $).
pub fn duration_ns(col: &str) -> Option<u64> {
    let s = col.trim().trim_start_matches(['+', '!', '#', '*', '@', '$']).trim();
    let num = s.strip_suffix("us")?.trim();
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let us: u64 = int.parse().ok()?;
    let mut f = frac.to_string();
    while f.len() < 3 {
        f.push('0');
    }
    Some(us * 1000 + f.parse::<u64>().ok()?)
}

#[cfg(test)]
mod tests;
