//! `sonde serve [--listen ADDR:PORT] PROGRAM-FILE|DIR...`: every program compiled, loaded and
//! attached as a script is, its maps read at each scrape of `GET /metrics` and written as
//! Prometheus metrics (crates/sonde-serve decides their names, types and format). What a
//! program prints still goes to stdout. Runs until SIGINT or SIGTERM; docs/serve.md.

mod events;
mod evictions;
mod files;
mod privileges;
mod program;
mod reload;
mod scrape;
mod series;

use crate::error::Failure;
use crate::host_env::HostEnv;
use crate::run::bpf;
use crate::signals;
use clap::Args;
use events::Events;
use program::Loaded;
use sonde_serve::http::{Limits, Server};
use sonde_serve::routes::route;
use sonde_serve::{BucketMemory, Format};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

/// The loopback, and a port outside the Prometheus wiki's exporter allocations (docs/serve.md
/// says why this one).
pub const DEFAULT_LISTEN: &str = "127.0.0.1:19435";

/// How often printed output is read from the programs' ring buffers, at most.
const POLL: Duration = Duration::from_millis(20);
/// How long the HTTP thread waits for a scrape before answering 503.
const SCRAPE_TIMEOUT: Duration = Duration::from_secs(30);

/// Serve every program's maps as Prometheus metrics (docs/serve.md).
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Where to listen: the loopback by default; `0.0.0.0:19435` for every interface.
    #[arg(short = 'l', long, value_name = "ADDR:PORT", default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    /// Each exported map holds at most N elements (a histogram's element is one key's bucket):
    /// one keyed without bound evicts the least recently updated; `// metric: max=N` or
    /// `let @m = lruhash(N)` sizes one map itself.
    #[arg(long, value_name = "N", default_value_t = series::DEFAULT_MAX_SERIES,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_series: u32,
    /// Have the kernel count each probe's runs and run time while sonde serves (it then times
    /// every run of every BPF program), for sonde_serve_probe_runs_total.
    #[arg(long)]
    pub bpf_stats: bool,
    /// Program files, or directories whose `*.bt` and `*.sonde` files are all served.
    #[arg(required = true, value_name = "PROGRAM-FILE|DIR")]
    pub programs: Vec<PathBuf>,
}

pub fn run(args: &ServeArgs) -> Result<i32, Failure> {
    crate::run::prepare(crate::run::Needs::Bpf)?;
    signals::hangup_reloads();
    let prepared = prepare_all(args)?;
    // Bound before anything is loaded: a port in use costs nothing in the kernel.
    let server = Server::bind(args.listen, Limits::default()).map_err(|e| {
        Failure::Setup(format!("cannot listen on {}: {}; nothing was loaded", args.listen, e))
    })?;
    let addr = server.local_addr().map_err(|e| Failure::Setup(e.to_string()))?;
    let stopper = server.stopper().map_err(|e| Failure::Setup(e.to_string()))?;
    signals::arm();
    // On before anything is attached, so every run is counted.
    let _stats = match args.bpf_stats {
        true => Some(sonde_kernel::object::prog::enable_run_stats().map_err(|e| {
            Failure::Setup(format!(
                "--bpf-stats: {e}; the kernel's run statistics need 5.8 and CAP_SYS_ADMIN"
            ))
        })?),
        false => None,
    };
    let env = HostEnv::new();
    let mut served = Vec::new();
    for p in prepared {
        served.push(program::load(p, &env)?);
    }
    // Before the HTTP thread starts, so it inherits the smaller set.
    privileges::drop_unneeded();
    let metrics: usize = served.iter().map(|p| p.prepared.metrics.len()).sum();
    eprintln!(
        "sonde: serving {} map(s) of {} program(s) at http://{}/metrics",
        metrics,
        served.len(),
        addr
    );
    let (asks, scrapes) = mpsc::channel();
    let http = std::thread::Builder::new()
        .name("http".into())
        .spawn(move || server.run(|req| route(req, |format| ask(&asks, format))))
        .map_err(|e| Failure::Setup(format!("cannot start the HTTP thread: {e}")))?;
    tell_systemd("READY=1");
    let (served, outcome) = serve_until_stopped(served, args, &scrapes);
    tell_systemd("STOPPING=1");
    stopper.stop();
    let _ = http.join();
    shut_down(served);
    outcome
}

/// Every program compiled and its maps named, none clashing; nothing loaded yet.
fn prepare_all(args: &ServeArgs) -> Result<Vec<program::Prepared>, Failure> {
    let files = files::expand(&args.programs)?;
    let env = HostEnv::new();
    let prepared = files
        .iter()
        .map(|f| program::prepare(f, &env, args.max_series))
        .collect::<Result<Vec<_>, _>>()?;
    let all = prepared.iter().flat_map(|p| p.metrics.iter().map(|(_, m)| (p.file.as_str(), m)));
    sonde_serve::catalog::check_unique(all)
        .map_err(|e| Failure::Usage(format!("{e}; nothing was loaded")))?;
    Ok(prepared)
}

/// Serves, reloading on SIGHUP, until a stop signal or a failure; the programs then running.
fn serve_until_stopped(
    mut served: Vec<Loaded>,
    args: &ServeArgs,
    scrapes: &mpsc::Receiver<Ask>,
) -> (Vec<Loaded>, Result<i32, Failure>) {
    let mut kept = Kept { run_stats: args.bpf_stats, ..Kept::default() };
    loop {
        match serve(&served, scrapes, &mut kept) {
            Ok(Next::Reload) => {
                let now_us = sonde_kernel::host::clock::monotonic_ns() / 1000;
                tell_systemd(&format!("RELOADING=1\nMONOTONIC_USEC={now_us}"));
                served = reload::reload(served, args, &mut kept.reloads);
                eprintln!("sonde: reloaded: serving {} program(s)", served.len());
                tell_systemd("READY=1");
            }
            Ok(Next::Stop) => return (served, Ok(0)),
            Err(e) => return (served, Err(e)),
        }
    }
}

/// END runs, and what it prints is read, before the probes are taken away (all at once).
fn shut_down(served: Vec<Loaded>) {
    let mut detaching = Vec::new();
    for p in served {
        program::end(&p);
        detaching.push(p.attached.detach(false));
    }
    detaching.into_iter().for_each(bpf::Detaching::finish);
}

/// sd_notify(3) when run as a `Type=notify` systemd service; a failure is said, not fatal.
fn tell_systemd(state: &str) {
    if let Err(e) = sonde_serve::notify::notify(state) {
        eprintln!("sonde: cannot notify systemd ({}): {}", state.lines().next().unwrap_or(""), e);
    }
}

/// What lasts across reloads: each histogram's buckets, the reloads' outcomes.
#[derive(Default)]
pub struct Kept {
    pub buckets: BucketMemory,
    pub reloads: reload::Reloads,
    /// `--bpf-stats`: the kernel counts runs for as long as sonde serves.
    pub run_stats: bool,
}

/// Why [`serve`] returned.
enum Next {
    Stop,
    Reload,
}

/// A scrape asked of the main thread, which owns everything in the kernel: the format, and
/// where the exposition goes.
type Ask = (Format, mpsc::SyncSender<String>);

/// From the HTTP thread: the exposition, or None when the main thread does not answer.
fn ask(asks: &mpsc::Sender<Ask>, format: Format) -> Option<String> {
    let (reply, answer) = mpsc::sync_channel(1);
    asks.send((format, reply)).ok()?;
    answer.recv_timeout(SCRAPE_TIMEOUT).ok()
}

/// Answers scrapes and reads printed output until a stop signal or a reload; fails if the
/// HTTP thread ended on its own.
fn serve(
    served: &[Loaded],
    scrapes: &mpsc::Receiver<Ask>,
    kept: &mut Kept,
) -> Result<Next, Failure> {
    let mut events = Events::for_all(served)?;
    let mut scraper = scrape::Scraper::new(served);
    loop {
        match scrapes.recv_timeout(POLL) {
            Ok((format, reply)) => {
                let _ = reply.send(scraper.scrape(format, kept, &events));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Failure::Setup("the HTTP server stopped unexpectedly".into()))
            }
        }
        for e in events.iter_mut() {
            e.drain()?;
        }
        if signals::stop_requested().is_some() {
            return Ok(Next::Stop);
        }
        if signals::reload_requested() {
            return Ok(Next::Reload);
        }
    }
}
