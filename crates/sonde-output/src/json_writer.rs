//! The JSON writer: one object per line, bpftrace's `-f json` schema, all on `out`.

use crate::json;
use crate::record::Type;
use crate::value::Value;
use crate::writer::{MapEntries, SourceAt, Writer};
use std::io::Write;

pub struct JsonWriter<O: Write> {
    out: O,
}

impl<O: Write> JsonWriter<O> {
    pub fn new(out: O) -> Self {
        JsonWriter { out }
    }

    pub fn into_inner(self) -> O {
        self.out
    }

    /// One JSON object and its newline.
    fn line(&mut self, text: &str) {
        let _ = writeln!(self.out, "{}", text);
    }
}

impl<O: Write> Writer for JsonWriter<O> {
    fn attached(&mut self, probes: usize) {
        self.line(&json::attached_probes(probes));
        self.flush();
    }

    fn bench(&mut self, names: &[String], index: usize, average_ns: u64, iterations: u64) {
        let name = names.get(index).map_or("", String::as_str);
        self.line(
            &crate::record::Record::benchmark_result(name, average_ns, iterations).to_string(),
        );
    }

    fn printf(&mut self, text: &[u8]) {
        self.line(&json::printf(&String::from_utf8_lossy(text)));
    }

    fn printed(&mut self, kind: &str, text: &[u8]) {
        self.text(kind, text);
    }

    fn text(&mut self, kind: &str, text: &[u8]) {
        self.line(&json::message(kind, &String::from_utf8_lossy(text)));
    }

    fn message(&mut self, level: &str, text: &str, at: &SourceAt) {
        self.line(&json::located(level, text, at));
    }

    fn print(&mut self, mut values: Vec<Value>) {
        let v = if values.len() == 1 { values.remove(0) } else { Value::Tuple(values) };
        self.line(&json::value(&v));
    }

    fn map(&mut self, name: &str, entries: &MapEntries) {
        let text = match entries {
            MapEntries::Values(v) => json::map(name, v),
            MapEntries::Stats(v) => json::stats(name, v),
            MapEntries::Hist(v, kind) => json::hist(name, v, *kind),
            MapEntries::Series(v) => json::tseries(name, v),
        };
        self.line(&text);
    }

    fn averages(&mut self, name: &str, entries: &MapEntries) {
        match entries {
            MapEntries::Values(v) => self.line(&json::map_as(Type::Stats, name, v)),
            other => self.map(name, other),
        }
    }

    fn lost(&mut self, n: u64) {
        self.flush();
        self.line(&json::lost_events(n));
        self.flush();
    }

    fn missed(&mut self, probe: &str, runs: u64) {
        self.flush();
        self.line(&json::missed_runs(probe, runs));
        self.flush();
    }

    fn map_full(&mut self, map: &str, dropped: u64, max_entries: u32) {
        self.flush();
        self.line(&crate::Record::map_full(map, dropped, max_entries).to_string());
        self.flush();
    }

    fn flush(&mut self) {
        let _ = self.out.flush();
    }
}
