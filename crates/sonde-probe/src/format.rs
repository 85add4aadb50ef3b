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
}
