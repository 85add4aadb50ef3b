//! `sonde serve`'s pure half: a program's maps as Prometheus metrics, and the HTTP server
//! scrapers read them from. The binary (`crates/sonde/src/face_serve.rs`) loads the programs
//! and reads their maps; this crate decides what they look like.
//!
//! - [`source`] and [`directive`]: what the program text says about each map: label names
//!   from the key expressions, HELP from the comment above, `// metric:` lines.
//! - [`names`]: metric and label names (the `sonde_` prefix, the character set).
//! - [`mapping`]: one map's aggregation and entries -> metric families; [`buckets`] for
//!   hist()/lhist(); [`fold`] for keys that print alike; [`catalog`] refuses two maps that
//!   would share a name.
//! - [`model`]: families and samples, format-free (OTLP's sums, gauges and histograms map
//!   onto it one-to-one).
//! - [`expo`]: the text format 0.0.4 and OpenMetrics 1.0.0; [`accept`] picks one per scrape.
//! - [`http`] and [`routes`]: `GET /metrics` and `GET /healthz` over HTTP/1.1.
//! - [`notify`]: systemd's readiness notification (`Type=notify`).
//! - [`promtool`]: Prometheus's own check of an exposition, for tests.

pub mod accept;
pub mod bound;
pub mod buckets;
pub mod catalog;
pub mod directive;
pub mod expo;
pub mod fold;
pub mod http;
pub mod mapping;
pub mod model;
pub mod names;
pub mod notify;
pub mod promtool;
pub mod routes;
pub mod source;

pub use expo::{render, Format};
pub use mapping::{Aggregation, BucketMemory, MapMetric};
pub use model::{Family, Kind, Number};
