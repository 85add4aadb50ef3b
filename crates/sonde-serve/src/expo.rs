//! Families -> text: Prometheus's text format 0.0.4, or OpenMetrics 1.0.0 (which ends with
//! `# EOF`, names a counter's family without `_total`, and writes `le` as a float).
//!
//! Every string a program or the system supplies (a comm, a file name, a map's comment) goes
//! through [`label_value`] or [`help_text`]: a backslash, a quote or a newline cannot end a
//! label or a line early.

use crate::model::{Bound, Family, Kind, Sample};
use std::fmt::Write;

/// An exposition format, chosen per scrape from the `Accept` header ([`crate::accept`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `text/plain; version=0.0.4`.
    Text,
    /// `application/openmetrics-text; version=1.0.0`.
    OpenMetrics,
}

impl Format {
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Text => "text/plain; version=0.0.4; charset=utf-8",
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
        }
    }
}

/// The whole exposition of `families`, in order.
pub fn render(families: &[Family], format: Format) -> String {
    let mut out = String::new();
    for f in families {
        family(&mut out, f, format);
    }
    if format == Format::OpenMetrics {
        out.push_str("# EOF\n");
    }
    out
}

fn family(out: &mut String, f: &Family, format: Format) {
    // Text 0.0.4 names a counter by its sample (`x_total`); OpenMetrics by its family (`x`).
    let declared = match (f.kind, format) {
        (Kind::Counter, Format::Text) => format!("{}_total", f.name),
        _ => f.name.clone(),
    };
    let _ = writeln!(out, "# HELP {} {}", declared, help_text(&f.help, format));
    let _ = writeln!(out, "# TYPE {} {}", declared, f.kind.word());
    for s in &f.samples {
        sample(out, &f.name, s, format);
    }
}

fn sample(out: &mut String, name: &str, s: &Sample, format: Format) {
    out.push_str(name);
    out.push_str(s.suffix);
    let le = s.bound.map(|b| bound(b, format));
    let pairs = s.labels.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    let pairs: Vec<(&str, &str)> = pairs.chain(le.as_deref().map(|v| ("le", v))).collect();
    if !pairs.is_empty() {
        out.push('{');
        for (i, (k, v)) in pairs.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{}=\"{}\"", k, label_value(v));
        }
        out.push('}');
    }
    let _ = writeln!(out, " {}", s.value);
}

/// `le`'s text: the integer (text format), or as OpenMetrics's canonical float (`1023.0`).
fn bound(b: Bound, format: Format) -> String {
    match (b, format) {
        (Bound::Inf, _) => "+Inf".into(),
        (Bound::Le(v), Format::Text) => v.to_string(),
        (Bound::Le(v), Format::OpenMetrics) => format!("{v}.0"),
    }
}

/// A label value as both formats escape it: `\` `"` and newline.
pub fn label_value(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// HELP text: text 0.0.4 escapes `\` and newline; OpenMetrics also `"`. A carriage return,
/// which neither format escapes but a reader may take for a line end, becomes a space.
pub fn help_text(v: &str, format: Format) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '"' if format == Format::OpenMetrics => out.push_str("\\\""),
            '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
