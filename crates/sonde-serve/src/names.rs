//! Metric and label names: Prometheus's character set, sonde's prefix, the reserved names.
//!
//! - A map's metric is `sonde_` + its name without the `@` (`@opens` -> `sonde_opens`); the
//!   anonymous map `@` takes the program file's name (`opens.bt` -> `sonde_opens`). Any
//!   character outside `[a-zA-Z0-9_]` becomes `_`. The prefix keeps a program's maps apart
//!   from other exporters' metrics on the same Prometheus.
//! - `sonde_serve_` is sonde's own (self-metrics): no map may be named into it.
//! - Label names are `[a-zA-Z_][a-zA-Z0-9_]*`, never starting with `__` (Prometheus's own),
//!   and never `le`, `quantile` or `value`, which the exposition itself uses.

/// Every map metric starts with this.
pub const PREFIX: &str = "sonde_";
/// sonde's own metrics start with this; no map may be named into it.
pub const SELF_PREFIX: &str = "sonde_serve_";
/// Label names the exposition uses itself: a histogram's bound, a summary's quantile, a
/// string-valued map's value.
pub const RESERVED_LABELS: [&str; 3] = ["le", "quantile", "value"];

/// `[a-zA-Z0-9_]` kept, anything else `_`.
pub fn sanitize(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect()
}

/// The metric name of map `map` (as written: `@opens`, `@`, or ply's plain `opens`) in the
/// program file whose name without extension is `stem`.
pub fn metric_name(map: &str, stem: &str) -> String {
    let bare = map.strip_prefix('@').unwrap_or(map);
    let base = if bare.is_empty() { stem } else { bare };
    format!("{PREFIX}{}", sanitize(base))
}

/// Whether `name` may be a label name of a map's metric.
pub fn valid_label(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first_ok
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with("__")
        && !RESERVED_LABELS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_names_become_prefixed_metric_names() {
        assert_eq!(metric_name("@opens", "x"), "sonde_opens");
        assert_eq!(metric_name("opens", "x"), "sonde_opens");
        assert_eq!(metric_name("@", "syscalls-by.comm"), "sonde_syscalls_by_comm");
        assert_eq!(metric_name("@bytes_2", "x"), "sonde_bytes_2");
    }

    #[test]
    fn label_names_follow_prometheus() {
        for ok in ["comm", "flags", "_x", "key0", "pid"] {
            assert!(valid_label(ok), "{ok}");
        }
        for bad in ["", "0", "1a", "__name__", "a-b", "le", "quantile", "value", "é"] {
            assert!(!valid_label(bad), "{bad}");
        }
    }
}
