use super::*;
use crate::model::{labels, Number};

fn opens() -> Family {
    let mut f = Family::new("sonde_opens", "Files opened.", Kind::Counter);
    f.push(labels(&[("comm", "sh"), ("flags", "0")]), Number::U(7));
    f
}

fn latency() -> Family {
    let mut f = Family::new("sonde_read_bytes", "Read sizes.", Kind::Histogram);
    let l = labels(&[("comm", "wl")]);
    f.push_part("_bucket", l.clone(), Some(Bound::Le(0)), Number::U(0));
    f.push_part("_bucket", l.clone(), Some(Bound::Le(1023)), Number::U(4));
    f.push_part("_bucket", l.clone(), Some(Bound::Inf), Number::U(5));
    f.push_part("_count", l, None, Number::U(5));
    f
}

#[test]
fn text_names_a_counter_by_its_sample() {
    let text = render(&[opens()], Format::Text);
    assert_eq!(
        text,
        "# HELP sonde_opens_total Files opened.\n\
         # TYPE sonde_opens_total counter\n\
         sonde_opens_total{comm=\"sh\",flags=\"0\"} 7\n"
    );
}

#[test]
fn openmetrics_names_the_family_and_ends_with_eof() {
    let text = render(&[opens()], Format::OpenMetrics);
    assert_eq!(
        text,
        "# HELP sonde_opens Files opened.\n\
         # TYPE sonde_opens counter\n\
         sonde_opens_total{comm=\"sh\",flags=\"0\"} 7\n\
         # EOF\n"
    );
}

#[test]
fn le_is_an_integer_in_text_and_a_float_in_openmetrics() {
    let text = render(&[latency()], Format::Text);
    assert!(text.contains("sonde_read_bytes_bucket{comm=\"wl\",le=\"1023\"} 4\n"), "{text}");
    assert!(text.contains("sonde_read_bytes_bucket{comm=\"wl\",le=\"+Inf\"} 5\n"), "{text}");
    assert!(text.contains("sonde_read_bytes_count{comm=\"wl\"} 5\n"), "{text}");
    let om = render(&[latency()], Format::OpenMetrics);
    assert!(om.contains("sonde_read_bytes_bucket{comm=\"wl\",le=\"1023.0\"} 4\n"), "{om}");
    assert!(om.contains("le=\"0.0\"} 0\n"), "{om}");
    assert!(om.contains("le=\"+Inf\"} 5\n"), "{om}");
}

#[test]
fn a_sample_without_labels_has_no_braces() {
    let mut f = Family::new("sonde_n", "n", Kind::Gauge);
    f.push(vec![], Number::I(-2));
    assert_eq!(render(&[f], Format::Text), "# HELP sonde_n n\n# TYPE sonde_n gauge\nsonde_n -2\n");
}

#[test]
fn label_values_cannot_break_out() {
    // A comm can hold any byte but NUL: here a quote, a backslash, a newline and a fake sample.
    let evil = "a\"b\\c\nsonde_fake 1";
    let mut f = Family::new("sonde_x", "x", Kind::Gauge);
    f.push(labels(&[("comm", evil)]), Number::U(1));
    let text = render(&[f], Format::Text);
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.ends_with("sonde_x{comm=\"a\\\"b\\\\c\\nsonde_fake 1\"} 1\n"), "{text}");
}

#[test]
fn help_is_escaped_per_format() {
    assert_eq!(help_text("a\\b\nc\"d\re", Format::Text), "a\\\\b\\nc\"d e");
    assert_eq!(help_text("a\\b\nc\"d", Format::OpenMetrics), "a\\\\b\\nc\\\"d");
}

#[test]
fn content_types() {
    assert!(Format::Text.content_type().starts_with("text/plain; version=0.0.4"));
    assert!(Format::OpenMetrics.content_type().contains("version=1.0.0"));
}
