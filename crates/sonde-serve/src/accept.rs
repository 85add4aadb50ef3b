//! The exposition format a scraper asked for, from its `Accept` header.
//!
//! Prometheus 2.x sends `application/openmetrics-text;version=1.0.0,
//! application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1`.
//! The range with the highest `q` that sonde can answer wins: OpenMetrics for
//! `application/openmetrics-text` without a version or with 1.0.0, the text format for
//! `text/plain` (without a version or 0.0.4), `text/*` and `*/*`; on a tie OpenMetrics. No
//! header, or nothing sonde can answer, gets the text format, which every scraper reads.

use crate::expo::Format;

pub fn negotiate(accept: Option<&str>) -> Format {
    let mut best: Option<(f32, Format)> = None;
    for range in accept.unwrap_or("").split(',') {
        let Some((q, format)) = offer(range) else { continue };
        let better = match best {
            None => true,
            Some((bq, bf)) => q > bq || (q == bq && format == Format::OpenMetrics && bf != format),
        };
        if q > 0.0 && better {
            best = Some((q, format));
        }
    }
    best.map_or(Format::Text, |(_, f)| f)
}

/// What one media range would get, with its `q`.
fn offer(range: &str) -> Option<(f32, Format)> {
    let mut parts = range.split(';').map(str::trim);
    let media = parts.next()?.to_ascii_lowercase();
    let mut q = 1.0f32;
    let mut version = None;
    for p in parts {
        let Some((k, v)) = p.split_once('=') else { continue };
        match k.trim().to_ascii_lowercase().as_str() {
            "q" => q = v.trim().parse().unwrap_or(0.0),
            "version" => version = Some(v.trim().trim_matches('"').to_string()),
            _ => {}
        }
    }
    let format = match (media.as_str(), version.as_deref()) {
        ("application/openmetrics-text", None | Some("1.0.0")) => Format::OpenMetrics,
        ("text/plain", None | Some("0.0.4")) | ("text/*" | "*/*", _) => Format::Text,
        _ => return None,
    };
    Some((q, format))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROMETHEUS_2: &str = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

    #[test]
    fn prometheus_gets_openmetrics() {
        assert_eq!(negotiate(Some(PROMETHEUS_2)), Format::OpenMetrics);
    }

    #[test]
    fn no_header_or_anything_gets_text() {
        assert_eq!(negotiate(None), Format::Text);
        assert_eq!(negotiate(Some("*/*")), Format::Text);
        assert_eq!(negotiate(Some("application/json")), Format::Text);
        assert_eq!(negotiate(Some("")), Format::Text);
    }

    #[test]
    fn q_decides() {
        let a = "text/plain;version=0.0.4;q=0.9, application/openmetrics-text;q=0.5";
        assert_eq!(negotiate(Some(a)), Format::Text);
        let b = "text/plain;q=0.5, application/openmetrics-text; version=\"1.0.0\"; q=0.6";
        assert_eq!(negotiate(Some(b)), Format::OpenMetrics);
        assert_eq!(negotiate(Some("application/openmetrics-text;q=0")), Format::Text);
    }

    #[test]
    fn versions_sonde_does_not_write_are_not_offered() {
        assert_eq!(negotiate(Some("application/openmetrics-text;version=0.0.1")), Format::Text);
        assert_eq!(negotiate(Some("text/plain;version=1.0.0")), Format::Text);
    }
}
