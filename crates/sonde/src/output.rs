//! Output flows one way: ring-buffer records and maps -> the collector (plain values) -> one
//! writer, text or JSON, chosen once here.

use crate::cli::Format;
use crate::collect::Collector;
use crate::error::Failure;
use sonde_compile::tir::{AggFunc, EventKind, MapValue, Sink};
use sonde_compile::Compiled;
use sonde_graph::maps::FoldedWriter;
use sonde_kernel::object::map::Map;
use sonde_output::printf::{self, Piece};
use sonde_output::sink::{Health, Sink as OutputSink};
use sonde_output::value::Value;
use sonde_output::writer::SourceAt;
use sonde_output::{JsonWriter, TextWriter, Writer};
use sonde_symbols::Symbolizer;
use std::io::BufWriter;

pub enum Action {
    Continue,
    Exit(i32),
}

pub struct Output<'a> {
    compiled: &'a Compiled,
    collector: Collector<'a>,
    symbols: Symbolizer,
    writer: Box<dyn Writer>,
    /// Whether stdout still takes what is written.
    health: Health,
    /// Parsed printf formats, by event id.
    formats: Vec<Option<Vec<Piece>>>,
    /// The most bytes of a file `cat()` prints.
    max_cat_bytes: usize,
    /// `-u`: flush after every record, not once per ring-buffer drain.
    unbuffered: bool,
    /// `--no-warnings`: `warnf()` prints nothing.
    no_warnings: bool,
    /// `system()` commands left unrun because a signal asked the run to stop.
    systems_skipped: bool,
    /// The program's text and file name, for the locations `warnf`/`errorf` print.
    program: &'a str,
    source_name: String,
}

/// The writer for `-f` (and `-o FILE.svg`): the one place that looks at the format.
fn writer(
    format: Format,
    flame: Option<&std::path::Path>,
    program: &str,
) -> (Box<dyn Writer>, Health) {
    // Drawing an SVG, sonde writes nothing to stdout: a reader that goes away ends nothing.
    let (sink, health) = match flame {
        Some(_) => OutputSink::new(Box::new(std::io::stdout())),
        None => OutputSink::stdout(),
    };
    let out = BufWriter::with_capacity(1 << 16, sink);
    (writer_into(out, format, flame, program, &health), health)
}

fn writer_into(
    out: BufWriter<OutputSink>,
    format: Format,
    flame: Option<&std::path::Path>,
    program: &str,
    health: &Health,
) -> Box<dyn Writer> {
    if let Some(p) = flame {
        let svg = FoldedWriter::svg(out, p.to_path_buf(), program.into(), health.clone());
        return Box::new(svg);
    }
    match format {
        Format::Folded => Box::new(FoldedWriter::new(out)),
        Format::Text => Box::new(TextWriter::new(out, std::io::stderr())),
        Format::Json => Box::new(JsonWriter::new(out)),
    }
}

impl<'a> Output<'a> {
    pub fn new(
        format: Format,
        flame: Option<&std::path::Path>,
        program: &'a str,
        compiled: &'a Compiled,
        maps: &'a [Map],
        symbols: Symbolizer,
    ) -> Output<'a> {
        let formats = compiled
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::Printf { format }
                | EventKind::Time { format }
                | EventKind::Formatted { format, .. } => printf::parse(format).ok(),
                _ => None,
            })
            .collect();
        let collector = Collector::new(compiled, maps);
        let (writer, health) = writer(format, flame, program);
        Output {
            compiled,
            collector,
            symbols,
            writer,
            health,
            formats,
            unbuffered: false,
            no_warnings: false,
            systems_skipped: false,
            max_cat_bytes: usize::MAX,
            program,
            source_name: sonde_syntax::diag::PROGRAM_TEXT.into(),
        }
    }

    /// The program's file name, for `warnf`/`errorf` locations.
    pub fn source_name(mut self, name: &str) -> Self {
        self.source_name = name.into();
        self
    }

    /// bpftrace's `--no-warnings`: the program's `warnf()` says nothing.
    pub fn without_warnings(mut self, yes: bool) -> Self {
        self.no_warnings = yes;
        self
    }

    /// ply's `-u`: every record reaches stdout as soon as it is written.
    pub fn unbuffered(mut self, yes: bool) -> Self {
        self.unbuffered = yes;
        self
    }

    /// The most bytes of a file `cat()` prints (config `max_cat_bytes`).
    pub fn max_cat_bytes(mut self, n: usize) -> Self {
        self.max_cat_bytes = n;
        self
    }

    /// The first error writing stdout, once there is one.
    pub fn health(&self) -> Health {
        self.health.clone()
    }

    pub fn attached(&mut self, probes: usize) {
        self.writer.attached(probes);
    }

    /// `--mode bench`: one bench's result (see `sonde_output::bench`).
    pub fn bench(&mut self, names: &[String], index: usize, average_ns: u64, runs: u64) {
        self.writer.bench(names, index, average_ns, runs);
        self.writer.flush();
    }

    pub fn flush(&mut self) {
        self.writer.flush();
    }

    /// Handle one ring-buffer record.
    pub fn record(&mut self, rec: &[u8]) -> Action {
        let action = self.handle(rec);
        if self.unbuffered {
            self.writer.flush();
        }
        action
    }

    fn handle(&mut self, rec: &[u8]) -> Action {
        if rec.len() < 8 {
            return Action::Continue;
        }
        let id = u64::from_le_bytes(rec[..8].try_into().unwrap()) as usize;
        let Some(event) = self.compiled.events.get(id) else { return Action::Continue };
        let values = self.collector.values(&event.args, &rec[8..], &mut self.symbols);
        match &event.kind {
            EventKind::Printf { .. } | EventKind::Time { .. } => {
                let text = match &self.formats[id] {
                    Some(pieces) => printf::format(pieces, &values),
                    None => Vec::new(),
                };
                match event.kind {
                    EventKind::Time { .. } => self.writer.printed("time", &text),
                    _ => self.writer.printf(&text),
                }
            }
            EventKind::Print => self.writer.print(values),
            EventKind::Exit => {
                let code = match values.first() {
                    Some(Value::Int { v, .. }) => *v as i32,
                    _ => 0,
                };
                return Action::Exit(code);
            }
            EventKind::PrintMap { map, top, div } => self.print_map(*map, Shown::Asked, *top, *div),
            EventKind::ClearMap { map, keep_keys: false } => self.collector.clear(*map),
            EventKind::ClearMap { map, keep_keys: true } => self.collector.zero(*map),
            EventKind::Join { sep } => {
                let line = crate::decode::join(&rec[8..], sep);
                self.writer.text("join", &line);
            }
            EventKind::Formatted { to, .. } => {
                let text = match &self.formats[id] {
                    Some(pieces) => printf::format(pieces, &values),
                    None => Vec::new(),
                };
                self.formatted(*to, &text);
            }
        }
        Action::Continue
    }

    /// `warnf`/`errorf` text to stderr after the call's location, as bpftrace prints them;
    /// `system`'s command run by `sh -c`, its output printed.
    fn formatted(&mut self, to: Sink, text: &[u8]) {
        let text = String::from_utf8_lossy(text);
        let (level, span) = match to {
            Sink::Warning(_) if self.no_warnings => return,
            Sink::Warning(span) => ("WARNING", span),
            Sink::Error(span) => ("ERROR", span),
            Sink::System => {
                self.system(&text);
                return;
            }
            Sink::Cat => {
                self.cat(&text);
                return;
            }
        };
        let (line, col) = sonde_syntax::line_col(self.program, span.lo);
        let (_, end_col) = sonde_syntax::line_col(self.program, span.hi);
        let at = SourceAt { file: self.source_name.clone(), line, col, end_col };
        let text = text.strip_suffix('\n').unwrap_or(&text);
        self.writer.message(level, text, &at);
    }

    /// `cat()`: the first `max_cat_bytes` of the file, or bpftrace's error line.
    fn cat(&mut self, path: &str) {
        use std::io::Read;
        let mut text = Vec::new();
        let read = std::fs::File::open(path)
            .and_then(|f| f.take(self.max_cat_bytes as u64).read_to_end(&mut text));
        match read {
            Ok(_) => self.writer.printed("cat", &text),
            Err(e) => {
                let why = crate::decode::strerror(e.raw_os_error().unwrap_or(0).into());
                eprintln!("ERROR: failed to open file '{}' ({})", path, why)
            }
        }
    }

    /// `system()`: the command under `sh -c`, its stdout and stderr together, printed when it
    /// exits 0 (as bpftrace: else an error line), followed by a newline as bpftrace prints it.
    fn system(&mut self, command: &str) {
        // Once asked to stop, queued commands are not run: each may fire probes that queue
        // more (a `sched_switch` probe), and Ctrl-C must end the run now.
        if crate::signals::stop_requested().is_some() {
            if !self.systems_skipped {
                eprintln!("sonde: stopping: the system() commands still queued are not run");
                self.systems_skipped = true;
            }
            return;
        }
        self.writer.flush();
        match run_capturing(command) {
            Ok((status, out)) if status.success() => self.writer.text("syscall", &out),
            Ok((status, _)) => {
                eprintln!("sonde: system(\"{}\"): the command exited with {}", command, status)
            }
            Err(e) => eprintln!("sonde: system(\"{}\"): {}", command, e),
        }
    }

    /// Text the kernel formatted: an iterator's bpf_seq_printf output, as printf's, a line at a
    /// time (one JSON record a line, as each printf of a line is one).
    pub fn printed_by_kernel(&mut self, text: &[u8]) {
        for line in text.split_inclusive(|&b| b == b'\n') {
            self.writer.printf(line);
        }
    }

    /// Events the ring buffer had no room for, summed over CPUs.
    pub fn lost_events(&self) -> Result<u64, Failure> {
        self.collector.lost_events().map_err(Failure::kernel)
    }

    pub fn warn_lost(&mut self, n: u64) {
        self.writer.lost(n);
    }

    pub fn warn_missed(&mut self, probe: &str, runs: u64) {
        self.writer.missed(probe, runs);
    }

    pub fn warn_map_full(&mut self, map: &str, dropped: u64, max_entries: u32) {
        self.writer.map_full(map, dropped, max_entries);
    }

    /// The run is over: bpftrace's text output ends with two newlines, whether or not maps
    /// print after it.
    pub fn end_of_run(&mut self) {
        self.writer.end_of_run();
    }

    /// Every map, by name; at the end of the run after `end_of_run`, or on SIGUSR1.
    pub fn print_all_maps(&mut self) {
        // By name, as bpftrace prints them, so output does not depend on declaration order.
        let mut order: Vec<usize> = (0..self.compiled.user_maps.len()).collect();
        order.sort_by(|&a, &b| {
            self.compiled.user_maps[a].name.cmp(&self.compiled.user_maps[b].name)
        });
        for i in order {
            self.print_map(i, Shown::AtExit, 0, 1);
        }
        self.flush();
    }

    /// Map `map`, only its `top` largest entries when `top` is not 0, its integer values
    /// divided by `div`. As bpftrace: a map with no element prints nothing at exit, and a
    /// key-less one its zero when asked for (`print(@)`).
    fn print_map(&mut self, map: usize, shown: Shown, top: usize, div: u64) {
        let info = &self.compiled.user_maps[map];
        let name = &info.name;
        let entries = match self.collector.map(map, &mut self.symbols) {
            Ok(entries) if entries.is_empty() => match shown {
                Shown::AtExit => return,
                Shown::Asked => {
                    self.collector.zero_entry(map, &mut self.symbols).unwrap_or(entries)
                }
            },
            Ok(entries) if top > 0 => entries.top(top).divided(div),
            Ok(entries) => entries.divided(div),
            Err(e) => {
                eprintln!("sonde: cannot read map {}: {}", name, e);
                return;
            }
        };
        match info.value {
            MapValue::Agg { func: AggFunc::Avg, .. } => self.writer.averages(name, &entries),
            _ => self.writer.map(name, &entries),
        }
    }
}

/// `sh -c COMMAND` with its stdout and stderr into one pipe, read to the end.
fn run_capturing(command: &str) -> std::io::Result<(std::process::ExitStatus, Vec<u8>)> {
    use std::io::Read;
    let (mut reader, writer) = std::io::pipe()?;
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c").arg(command).stdout(writer.try_clone()?).stderr(writer);
    let mut child = cmd.spawn()?;
    // Dropping the Command closes sonde's copies of the write end, so the read ends when the
    // command's processes have closed theirs.
    drop(cmd);
    let mut out = Vec::new();
    reader.read_to_end(&mut out)?;
    Ok((child.wait()?, out))
}

/// Why a map prints: the dump at exit (or on SIGUSR1), or a `print(@m)` in the program.
#[derive(Clone, Copy)]
enum Shown {
    AtExit,
    Asked,
}
