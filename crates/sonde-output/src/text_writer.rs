//! The text writer: bpftrace's text output. Events and maps go to `out`; the start line and
//! warnings to `err`, so a pipe sees only the program's output.

use crate::map::{hist_map_text, map_text, stats_text};
use crate::value::Value;
use crate::writer::{MapEntries, SourceAt, Writer};
use std::io::Write;

/// The line said on stderr for updates a full map refused.
fn map_full_warning(map: &str, dropped: u64, max_entries: u32) -> String {
    format!(
        "sonde: warning: {map}: {dropped} update{} dropped: the map was full ({max_entries} entries); \
         raise its size with `let {map} = hash(N);` before the probes, or keep the newest with `lruhash(N)`\n",
        if dropped == 1 { "" } else { "s" }
    )
}

pub struct TextWriter<O: Write, E: Write> {
    out: O,
    err: E,
}

impl<O: Write, E: Write> TextWriter<O, E> {
    pub fn new(out: O, err: E) -> Self {
        TextWriter { out, err }
    }

    pub fn into_inner(self) -> (O, E) {
        (self.out, self.err)
    }
}

impl<O: Write, E: Write> Writer for TextWriter<O, E> {
    fn attached(&mut self, probes: usize) {
        // One write, so a reader of stderr never sees half the line. bpftrace's current
        // spelling: said once every probe is attached, before BEGIN runs.
        let line = format!("Attached {} probe{}\n", probes, if probes == 1 { "" } else { "s" });
        let _ = self.err.write_all(line.as_bytes());
    }

    fn printf(&mut self, text: &[u8]) {
        let _ = self.out.write_all(text);
    }

    fn print(&mut self, values: Vec<Value>) {
        let parts: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        let _ = writeln!(self.out, "{}", parts.join(", "));
    }

    fn end_of_run(&mut self) {
        // bpftrace's end of a run: two newlines, so the maps after it (or the shell's
        // prompt) start after a blank line even when the program left a line open.
        let _ = self.out.write_all(b"\n\n");
    }

    fn map(&mut self, name: &str, entries: &MapEntries) {
        let text = match entries {
            MapEntries::Values(v) => map_text(name, v),
            MapEntries::Stats(v) => stats_text(name, v),
            MapEntries::Hist(v, kind) => hist_map_text(name, v, *kind),
            MapEntries::Series(v) => crate::tseries::tseries_map_text(name, v),
        };
        let _ = self.out.write_all(text.as_bytes());
    }

    fn lost(&mut self, n: u64) {
        self.flush();
        let line = format!("sonde: warning: {} events lost (the ring buffer was full)\n", n);
        let _ = self.err.write_all(line.as_bytes());
    }

    fn missed(&mut self, probe: &str, runs: u64) {
        self.flush();
        let line = format!(
            "sonde: warning: {probe}: {runs} run{} skipped (it fired while another BPF program ran on its CPU)\n",
            if runs == 1 { "" } else { "s" }
        );
        let _ = self.err.write_all(line.as_bytes());
    }

    fn map_full(&mut self, map: &str, dropped: u64, max_entries: u32) {
        self.flush();
        let _ = self.err.write_all(map_full_warning(map, dropped, max_entries).as_bytes());
    }

    fn flush(&mut self) {
        let _ = self.out.flush();
    }

    fn message(&mut self, level: &str, text: &str, at: &SourceAt) {
        self.flush();
        let line = format!("{}: {}: {}\n", at, level, text);
        let _ = self.err.write_all(line.as_bytes());
    }
}
