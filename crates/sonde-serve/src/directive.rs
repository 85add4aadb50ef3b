//! The `// metric:` comment line: how a program spells what the map's text cannot say.
//!
//! ```text
//! // Files opened, by command and open(2) flags.
//! // metric: name=opens labels=cmd,flags
//! @o[comm, args->flags] = count();
//! ```
//!
//! Items, separated by blanks, on one or more `// metric:` lines directly above the map's
//! first assignment (or its `let @m = ...` declaration):
//! - `labels=A,B,...`: one label name per key position, in order; `_` keeps the name the key
//!   expression gives;
//! - `name=NAME`: the metric's name after `sonde_` instead of the map's;
//! - `max=N`: the map holds at most N elements, whatever `--max-series` says;
//! - `skip`: not a metric (a map holding start times, say).

use crate::names::valid_label;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Directive {
    pub skip: bool,
    pub name: Option<String>,
    /// Per key position: a label name, or None for `_`.
    pub labels: Option<Vec<Option<String>>>,
    /// `max=N`: this map's size instead of `--max-series`.
    pub max: Option<u32>,
}

impl Directive {
    /// Adds what a later line says.
    pub fn merge(&mut self, other: Directive) {
        self.skip |= other.skip;
        if other.name.is_some() {
            self.name = other.name;
        }
        if other.labels.is_some() {
            self.labels = other.labels;
        }
        if other.max.is_some() {
            self.max = other.max;
        }
    }
}

/// A comment's text (after `//`): None when it is not a directive, else the directive or what
/// is wrong with it.
pub fn parse(comment: &str) -> Option<Result<Directive, String>> {
    let body = comment.trim().strip_prefix("metric:")?;
    // `labels=a, b` reads as one item.
    let body = body.split(',').map(str::trim).collect::<Vec<_>>().join(",");
    let mut d = Directive::default();
    for item in body.split_whitespace() {
        if let Err(e) = apply(&mut d, item) {
            return Some(Err(e));
        }
    }
    Some(Ok(d))
}

fn apply(d: &mut Directive, item: &str) -> Result<(), String> {
    match item.split_once('=') {
        None if item == "skip" => d.skip = true,
        Some(("name", n)) => {
            let ok = !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !ok {
                return Err(format!(
                    "`// metric: name={n}`: a metric name is letters, digits and `_`"
                ));
            }
            d.name = Some(n.to_string());
        }
        Some(("max", n)) => match n.parse::<u32>() {
            Ok(n) if n > 0 => d.max = Some(n),
            _ => {
                return Err(format!(
                    "`// metric: max={n}`: the size is a whole number from 1 to {}",
                    u32::MAX
                ))
            }
        },
        Some(("labels", list)) => {
            let mut labels = Vec::new();
            for l in list.split(',') {
                if l == "_" {
                    labels.push(None);
                } else if valid_label(l) {
                    labels.push(Some(l.to_string()));
                } else {
                    return Err(format!(
                        "`// metric: labels=...`: `{l}` cannot be a label name (letters, digits and \
                         `_`, not starting with a digit or `__`, not `le`, `quantile` or `value`)"
                    ));
                }
            }
            d.labels = Some(labels);
        }
        _ => {
            return Err(format!(
            "`// metric:` does not know `{item}` (it takes `labels=A,B`, `name=NAME`, `max=N` and `skip`)"
        ))
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_comments_are_not_directives() {
        assert_eq!(parse("Files opened."), None);
        assert_eq!(parse("metrics are nice"), None);
    }

    #[test]
    fn items() {
        let d = parse(" metric: name=opens labels=cmd, _ ,flags").unwrap().unwrap();
        assert_eq!(d.name.as_deref(), Some("opens"));
        assert_eq!(d.labels, Some(vec![Some("cmd".into()), None, Some("flags".into())]));
        assert!(!d.skip);
        assert!(parse("metric: skip").unwrap().unwrap().skip);
        assert_eq!(parse("metric: max=100").unwrap().unwrap().max, Some(100));
    }

    #[test]
    fn mistakes_are_said() {
        let e = parse("metric: labels=le").unwrap().unwrap_err();
        assert!(e.contains("`le` cannot be a label name"), "{e}");
        let e = parse("metric: colour=red").unwrap().unwrap_err();
        assert!(e.contains("does not know `colour=red`"), "{e}");
        let e = parse("metric: name=a-b").unwrap().unwrap_err();
        assert!(e.contains("letters, digits"), "{e}");
        for bad in ["0", "-1", "4294967296", "lots"] {
            let e = parse(&format!("metric: max={bad}")).unwrap().unwrap_err();
            assert!(e.contains("a whole number from 1 to 4294967295"), "{e}");
        }
    }

    #[test]
    fn later_lines_add_to_earlier_ones() {
        let mut d = parse("metric: name=a").unwrap().unwrap();
        d.merge(parse("metric: labels=x").unwrap().unwrap());
        assert_eq!(d.name.as_deref(), Some("a"));
        assert_eq!(d.labels, Some(vec![Some("x".into())]));
    }
}
