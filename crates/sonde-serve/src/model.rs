//! The metric model: families of samples, as Prometheus and OpenMetrics define them, before any
//! exposition format is chosen. It maps one-to-one onto OTLP's sums (counters), gauges and
//! histograms, which is how an OTLP exporter would read it.

use std::fmt;

/// A family's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Only goes up (or restarts from 0): its one sample is named `NAME_total`.
    Counter,
    Gauge,
    /// `NAME_bucket{le}` (cumulative) and `NAME_count`.
    Histogram,
    /// `NAME_count` and `NAME_sum`, no quantiles.
    Summary,
}

impl Kind {
    /// The word of the `# TYPE` line (the same in both formats).
    pub fn word(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Histogram => "histogram",
            Kind::Summary => "summary",
        }
    }

    /// The names a family of this kind called `name` puts samples under, the family's own
    /// name first: two families whose lists meet would be read as one.
    pub fn sample_names(self, name: &str) -> Vec<String> {
        let with = |s: &[&str]| s.iter().map(|x| format!("{name}{x}")).collect();
        match self {
            Kind::Counter => with(&["", "_total", "_created"]),
            Kind::Gauge => with(&[""]),
            Kind::Histogram => with(&["", "_bucket", "_count", "_sum", "_created"]),
            Kind::Summary => with(&["", "_count", "_sum", "_created"]),
        }
    }
}

/// A sample's value: sonde's are integers, kept exact; self-metrics may be fractions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    U(u64),
    I(i64),
    F(f64),
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Number::U(v) => write!(f, "{v}"),
            Number::I(v) => write!(f, "{v}"),
            Number::F(v) if v.is_nan() => f.write_str("NaN"),
            Number::F(v) if v.is_infinite() => f.write_str(if v > 0.0 { "+Inf" } else { "-Inf" }),
            Number::F(v) => write!(f, "{v}"),
        }
    }
}

/// A histogram bucket's inclusive upper bound: the `le` label, written by the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Integer values up to and including this one.
    Le(i128),
    /// Every value: the `+Inf` bucket.
    Inf,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Appended to the family's name: `_total`, `_bucket`, `_count`, `_sum` or nothing.
    pub suffix: &'static str,
    /// Label names and values, unescaped, in the order they are written.
    pub labels: Vec<(String, String)>,
    /// A histogram bucket's bound, written as the last label (`le`).
    pub bound: Option<Bound>,
    pub value: Number,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Family {
    /// The family's name: for a counter without its `_total`.
    pub name: String,
    /// One line of text, unescaped.
    pub help: String,
    pub kind: Kind,
    pub samples: Vec<Sample>,
}

impl Family {
    pub fn new(name: impl Into<String>, help: impl Into<String>, kind: Kind) -> Family {
        Family { name: name.into(), help: help.into(), kind, samples: Vec::new() }
    }

    /// Adds the family's main sample: `NAME_total` for a counter, `NAME` for a gauge.
    pub fn push(&mut self, labels: Vec<(String, String)>, value: Number) {
        let suffix = if self.kind == Kind::Counter { "_total" } else { "" };
        self.samples.push(Sample { suffix, labels, bound: None, value });
    }

    /// Adds a sample under `NAME` + `suffix`.
    pub fn push_part(
        &mut self,
        suffix: &'static str,
        labels: Vec<(String, String)>,
        bound: Option<Bound>,
        value: Number,
    ) {
        self.samples.push(Sample { suffix, labels, bound, value });
    }
}

/// `[(name, value)]` from string pairs, for self-metrics and tests.
pub fn labels(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_prometheus_reads_them() {
        assert_eq!(Number::U(u64::MAX).to_string(), "18446744073709551615");
        assert_eq!(Number::I(-3).to_string(), "-3");
        assert_eq!(Number::F(0.25).to_string(), "0.25");
        assert_eq!(Number::F(f64::INFINITY).to_string(), "+Inf");
        assert_eq!(Number::F(f64::NEG_INFINITY).to_string(), "-Inf");
        assert_eq!(Number::F(f64::NAN).to_string(), "NaN");
    }

    #[test]
    fn a_counter_samples_under_total() {
        let mut f = Family::new("sonde_opens", "opens", Kind::Counter);
        f.push(labels(&[("comm", "sh")]), Number::U(3));
        assert_eq!(f.samples[0].suffix, "_total");
        assert!(Kind::Counter.sample_names("a").contains(&"a_total".to_string()));
        assert_eq!(Kind::Gauge.sample_names("a"), ["a"]);
    }
}
