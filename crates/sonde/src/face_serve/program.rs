//! One served program: compiled as a script is (sonde-compile), its maps named as metrics
//! (sonde-serve), then loaded and attached by the language face's own `load.rs` and
//! `attach.rs`.

use crate::error::Failure;
use crate::host_env::HostEnv;
use crate::run::bpf;
use sonde_compile::provider::AttachPoint;
use sonde_compile::tir::{AggFunc, EventKind, MapInfo, MapValue};
use sonde_compile::{Compiled, Options};
use sonde_serve::source::map_sources;
use sonde_serve::{Aggregation, MapMetric};
use sonde_syntax::diag::SourceFile;
use std::path::Path;

/// A program compiled, with the metric of each exported map.
pub struct Prepared {
    /// The file as named on the command line (the `program` label).
    pub file: String,
    pub source: SourceFile,
    pub compiled: Compiled,
    /// (user map index, its metric), for every map not marked `// metric: skip`.
    pub metrics: Vec<(usize, MapMetric)>,
    /// What the program prints (printf, print...), if anything: it goes to stdout.
    pub prints: bool,
}

/// A program in the kernel: what the scrape reads.
pub struct Loaded {
    pub prepared: Prepared,
    /// Its maps and programs in the kernel.
    pub kernel: bpf::Loaded,
    /// What keeps its probes attached, and since when (the interval probes' runs are set
    /// against it).
    pub attached: bpf::Attached,
}

/// Reads and compiles `path`, names its maps and sizes them (series.rs, `max_series` unless
/// the program says otherwise); refuses a program with nothing to export.
pub fn prepare(path: &Path, env: &HostEnv, max_series: u32) -> Result<Prepared, Failure> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::Usage(format!("cannot read {}: {}", file, e)))?;
    let source = SourceFile { name: file.clone(), text };
    let compile_error = |d| Failure::Compile(d, source.clone());
    let ast = sonde_syntax::parse(&source.text).map_err(compile_error)?;
    let mut opts = Options::new();
    opts.start_ns = sonde_kernel::host::clock::monotonic_ns();
    let mut typed = sonde_compile::check(&ast, env, &opts).map_err(compile_error)?;
    for w in &typed.warnings {
        eprint!("{}", sonde_syntax::render(w, &source, crate::error::stderr_is_terminal()));
    }
    let sources = map_sources(&ast, &source.text).map_err(|e| {
        Failure::Usage(format!("{}:{}: {}; nothing was loaded", file, e.line, e.message))
    })?;
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut metrics = Vec::new();
    for (i, info) in typed.maps.iter().enumerate() {
        let agg = aggregation(info);
        let metric =
            MapMetric::new(&info.name, agg, info.keys.len(), sources.get(&info.name), &file, &stem)
                .map_err(|e| Failure::Usage(format!("{}: {}; nothing was loaded", file, e)))?;
        metrics.extend(metric.map(|m| (i, m)));
    }
    let exported = metrics.iter().map(|(i, m)| (*i, sources.get(&m.map)));
    super::series::bound(&mut typed, exported, max_series);
    let compiled = sonde_compile::lower(&typed, &opts).map_err(compile_error)?;
    let prints = compiled.events.iter().any(|e| prints(&e.kind));
    if metrics.is_empty() {
        return Err(Failure::Usage(nothing_to_export(&file, &compiled, prints)));
    }
    Ok(Prepared { file, source, compiled, metrics, prints })
}

/// Why a program has no metric, as one sentence.
fn nothing_to_export(file: &str, compiled: &Compiled, prints: bool) -> String {
    let why = if !compiled.user_maps.is_empty() {
        "every map it has is marked `// metric: skip`"
    } else if prints {
        "its only output is printing (printf, print, time...), which is not a metric; `sonde serve` \
         exports maps: count into one instead (`@calls[probe] = count();`)"
    } else {
        "it has no maps, so there is nothing to export"
    };
    format!("{}: {}; nothing was loaded", file, why)
}

/// Events that print something (exit() and clear() do not).
fn prints(kind: &EventKind) -> bool {
    !matches!(kind, EventKind::Exit | EventKind::ClearMap { .. })
}

fn aggregation(info: &MapInfo) -> Aggregation {
    match info.value {
        MapValue::Plain(_) => Aggregation::Plain,
        MapValue::Agg { func, signed } => match func {
            AggFunc::Count => Aggregation::Count,
            AggFunc::Sum => Aggregation::Sum { signed },
            AggFunc::Min => Aggregation::Min,
            AggFunc::Max => Aggregation::Max,
            AggFunc::Avg => Aggregation::Avg,
            AggFunc::Stats => Aggregation::Stats,
            AggFunc::Quantize { bits: 0 } => Aggregation::Hist { signed },
            // Prometheus buckets are powers of two: a finer hist() gives no samples.
            AggFunc::Quantize { .. } => Aggregation::Plain,
            AggFunc::Lhist { min, max, step } => Aggregation::Lhist { min, max, step },
            // No samples (see sonde_serve::mapping's families).
            AggFunc::Tseries { .. } => Aggregation::Plain,
        },
    }
}

/// Creates the maps, loads the programs and attaches them, then runs BEGIN.
pub fn load(prepared: Prepared, env: &HostEnv) -> Result<Loaded, Failure> {
    if prepared.prints {
        eprintln!(
            "sonde: {}: what it prints goes to standard output; its maps are the metrics",
            prepared.file
        );
    }
    let c = &prepared.compiled;
    let kernel = bpf::Loaded::load(c, &prepared.source)?;
    let attached = kernel.attach(c, env, Default::default())?;
    let loaded = Loaded { prepared, kernel, attached };
    super::events::run_special(&loaded, &AttachPoint::Begin)?;
    Ok(loaded)
}

/// Runs `p`'s END probes, then detaches it (a program removed or replaced by a reload).
pub fn unload(p: Loaded) {
    end(&p);
    p.attached.detach(false).finish();
}

/// Runs `p`'s END probes and reads what they print; a failure is said, and the stop goes on.
pub fn end(p: &Loaded) {
    if let Err(e) = super::events::run_special(p, &AttachPoint::End) {
        eprintln!("sonde: {}: END: {}", p.prepared.file, e.sentence());
    }
}
