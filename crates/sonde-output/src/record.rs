//! sonde's one JSON output: NDJSON records in bpftrace's envelope, `{"type": T, "data": D}`, one
//! object a line, spaced as bpftrace spaces them ([`json::to_string`]). Every face writes its
//! records through here; [`Type`] lists every record type, and
//! `docs/schema/records.schema.json` describes each one's `data` (docs/json.md in words).
//!
//! bpftrace's `warnf`/`errorf` objects have no `data` and are written by [`json::located`].

use crate::json;
use std::fmt;

/// Every record type, by the face that writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    // The language: bpftrace's own records.
    AttachedProbes,
    Printf,
    Value,
    Map,
    Hist,
    Stats,
    Tseries,
    Join,
    Syscall,
    Time,
    Cat,
    LostEvents,
    BenchmarkResult,
    // sonde's records any face may write.
    MissedRuns,
    MapFull,
    Exit,
    SelfTest,
    // `sonde trace`.
    TraceCall,
    TraceEvent,
    TraceSummary,
    TraceSignal,
    TraceExit,
    // `sonde probe`.
    ProbeEvent,
    ProbeFrame,
    // `sonde graph`.
    GraphCall,
    GraphSummary,
    GraphError,
}

impl Type {
    pub const ALL: [Type; 27] = [
        Type::AttachedProbes,
        Type::Printf,
        Type::Value,
        Type::Map,
        Type::Hist,
        Type::Stats,
        Type::Tseries,
        Type::Join,
        Type::Syscall,
        Type::Time,
        Type::Cat,
        Type::LostEvents,
        Type::BenchmarkResult,
        Type::MissedRuns,
        Type::MapFull,
        Type::Exit,
        Type::SelfTest,
        Type::TraceCall,
        Type::TraceEvent,
        Type::TraceSummary,
        Type::TraceSignal,
        Type::TraceExit,
        Type::ProbeEvent,
        Type::ProbeFrame,
        Type::GraphCall,
        Type::GraphSummary,
        Type::GraphError,
    ];

    /// The `type` member's value.
    pub fn name(self) -> &'static str {
        match self {
            Type::AttachedProbes => "attached_probes",
            Type::Printf => "printf",
            Type::Value => "value",
            Type::Map => "map",
            Type::Hist => "hist",
            Type::Stats => "stats",
            Type::Tseries => "tseries",
            Type::Join => "join",
            Type::Time => "time",
            Type::Cat => "cat",
            Type::Syscall => "syscall",
            Type::LostEvents => "lost_events",
            Type::BenchmarkResult => "benchmark_result",
            Type::MissedRuns => "missed_runs",
            Type::MapFull => "map_full",
            Type::Exit => "exit",
            Type::SelfTest => "self_test",
            Type::TraceCall => "trace_call",
            Type::TraceEvent => "trace_event",
            Type::TraceSummary => "trace_summary",
            Type::TraceSignal => "trace_signal",
            Type::TraceExit => "trace_exit",
            Type::ProbeEvent => "probe_event",
            Type::ProbeFrame => "probe_frame",
            Type::GraphCall => "graph_call",
            Type::GraphSummary => "graph_summary",
            Type::GraphError => "graph_error",
        }
    }
}

/// `{"type": KIND, "data": DATA}` around data already written in bpftrace's spacing.
pub fn envelope(kind: &str, data: &str) -> String {
    format!("{{\"type\": {}, \"data\": {data}}}", json::quote(kind))
}

/// One record. Its [`Display`](fmt::Display) is the line, without its newline:
/// `writeln!(out, "{record}")` writes it on any output.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub ty: Type,
    pub data: serde_json::Value,
}

impl Record {
    pub fn new(ty: Type, data: serde_json::Value) -> Record {
        Record { ty, data }
    }

    /// Tracing has started on `probes` probes.
    pub fn attached_probes(probes: usize) -> Record {
        Record::new(Type::AttachedProbes, serde_json::json!({ "probes": probes }))
    }

    /// `--mode bench`: bench `name`'s average time per run (ns) over `iters` runs.
    pub fn benchmark_result(name: &str, average_ns: u64, iters: u64) -> Record {
        let data = serde_json::json!({ name: { "average": average_ns, "iters": iters } });
        Record::new(Type::BenchmarkResult, data)
    }

    /// `events` records the kernel dropped because the buffer was full.
    pub fn lost_events(events: u64) -> Record {
        Record::new(Type::LostEvents, serde_json::json!({ "events": events }))
    }

    /// `sonde trace`'s losses: the records dropped, and the calls among `calls_made` that
    /// printed no line for it (lines printed + `calls` = `calls_made`).
    pub fn lost_calls(events: u64, calls: u64, calls_made: u64) -> Record {
        let data =
            serde_json::json!({ "events": events, "calls": calls, "calls_made": calls_made });
        Record::new(Type::LostEvents, data)
    }

    /// Runs of one probe the kernel skipped (sonde's own record; bpftrace has none).
    pub fn missed_runs(probe: &str, runs: u64) -> Record {
        Record::new(Type::MissedRuns, serde_json::json!({ "probe": probe, "runs": runs }))
    }

    /// Updates of map `map` (`@name`) the kernel refused because it held `max_entries`
    /// elements already.
    pub fn map_full(map: &str, dropped: u64, max_entries: u32) -> Record {
        let data =
            serde_json::json!({ "map": map, "dropped": dropped, "max_entries": max_entries });
        Record::new(Type::MapFull, data)
    }

    /// The command sonde ran has ended by itself: `status` as a shell reports it (128+N when
    /// signal N killed it).
    pub fn exit(pid: u32, status: i32) -> Record {
        Record::new(Type::Exit, serde_json::json!({ "pid": pid, "status": status }))
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // bpftrace writes its two counting records with the count beside `data` too:
        // `{"type": "attached_probes", "count": 1, "data": {"probes": 1}}`.
        let count = match self.ty {
            Type::AttachedProbes => self.data.get("probes"),
            Type::LostEvents => self.data.get("events"),
            _ => None,
        };
        let data = json::to_string(&self.data);
        match count {
            Some(n) => write!(
                f,
                "{{\"type\": {}, \"count\": {}, \"data\": {data}}}",
                json::quote(self.ty.name()),
                n
            ),
            None => f.write_str(&envelope(self.ty.name(), &data)),
        }
    }
}

#[cfg(test)]
mod tests;
