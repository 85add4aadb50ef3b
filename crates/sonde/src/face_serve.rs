//! `sonde serve [--listen ADDR:PORT] PROGRAM-FILE|DIR...`: every program compiled, loaded and
//! attached as a script is, its maps read at each scrape of `GET /metrics` and written as
//! Prometheus metrics (crates/sonde-serve decides their names, types and format). What a
//! program prints still goes to stdout. Runs until SIGINT or SIGTERM; docs/serve.md.

mod files;
mod program;
mod scrape;
mod series;

use crate::error::Failure;
use crate::host_env::HostEnv;
use crate::output::{Action, Output};
use crate::signals;
use clap::Args;
use program::{Loaded, Prepared};
use sonde_compile::provider::AttachPoint;
use sonde_kernel::link::Link;
use sonde_kernel::ringbuf::RingBuf;
use sonde_serve::http::{Limits, Server};
use sonde_serve::routes::route;
use sonde_serve::Format;
use sonde_symbols::Symbolizer;
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
    /// Each exported map holds at most N elements, the least recently updated evicted first
    /// (a histogram's element is one key's bucket); `let @m = lruhash(N)` sizes one map itself.
    #[arg(long, value_name = "N", default_value_t = series::DEFAULT_MAX_SERIES,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_series: u32,
    /// Program files, or directories whose `*.bt` and `*.sonde` files are all served.
    #[arg(required = true, value_name = "PROGRAM-FILE|DIR")]
    pub programs: Vec<PathBuf>,
}

pub fn run(args: &ServeArgs) -> Result<i32, Failure> {
    signals::install();
    let files = files::expand(&args.programs)?;
    if !sonde_kernel::sys::has_bpf_capabilities() {
        return Err(Failure::Setup(crate::session::NEEDS_ROOT.into()));
    }
    let env = HostEnv::new();
    let prepared =
        files.iter().map(|f| program::prepare(f, &env)).collect::<Result<Vec<_>, _>>()?;
    let all = prepared.iter().flat_map(|p| p.metrics.iter().map(|(_, m)| (p.file.as_str(), m)));
    sonde_serve::catalog::check_unique(all)
        .map_err(|e| Failure::Usage(format!("{e}; nothing was loaded")))?;
    // Bound before anything is loaded: a port in use costs nothing in the kernel.
    let server = Server::bind(args.listen, Limits::default()).map_err(|e| {
        Failure::Setup(format!("cannot listen on {}: {}; nothing was loaded", args.listen, e))
    })?;
    let addr = server.local_addr().map_err(|e| Failure::Setup(e.to_string()))?;
    let stopper = server.stopper().map_err(|e| Failure::Setup(e.to_string()))?;
    signals::arm();
    let (served, links) = load_all(prepared, &env, args.max_series)?;
    let mut events = served.iter().map(Events::new).collect::<Result<Vec<_>, _>>()?;
    run_special(&served, &mut events, &AttachPoint::Begin)?;
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
    let outcome = serve(&served, &mut events, &scrapes);
    stopper.stop();
    let _ = http.join();
    // END runs, and what it prints is read, before the probes are taken away.
    run_special(&served, &mut events, &AttachPoint::End)?;
    sonde_kernel::link::detach_all(links);
    outcome
}

fn load_all(
    prepared: Vec<Prepared>,
    env: &HostEnv,
    max_series: u32,
) -> Result<(Vec<Loaded>, Vec<Link>), Failure> {
    let mut served = Vec::new();
    let mut links = Vec::new();
    for p in prepared {
        if p.prints {
            eprintln!(
                "sonde: {}: what it prints goes to standard output; its maps are the metrics",
                p.file
            );
        }
        let (loaded, l) = program::load(p, env, max_series)?;
        served.push(loaded);
        links.extend(l);
    }
    Ok((served, links))
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

/// Answers scrapes and reads printed output until a stop signal; fails if the HTTP thread
/// ended on its own.
fn serve(
    served: &[Loaded],
    events: &mut [Events],
    scrapes: &mpsc::Receiver<Ask>,
) -> Result<i32, Failure> {
    let mut scraper = scrape::Scraper::new(served);
    loop {
        match scrapes.recv_timeout(POLL) {
            Ok((format, reply)) => {
                let _ = reply.send(scraper.scrape(format));
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
            return Ok(0);
        }
    }
}

/// Runs each program's BEGIN or END probes and reads what they print.
fn run_special(
    served: &[Loaded],
    events: &mut [Events],
    point: &AttachPoint,
) -> Result<(), Failure> {
    for (p, e) in served.iter().zip(events.iter_mut()) {
        for prog in crate::session::special_programs(&p.prepared.compiled, &p.programs, point) {
            prog.test_run(&[]).map_err(Failure::kernel)?;
        }
        e.drain()?;
    }
    Ok(())
}

/// One program's ring buffer and the writer its records go to (printf, print, clear...).
struct Events<'a> {
    file: &'a str,
    ring: RingBuf,
    output: Output<'a>,
    exit_said: bool,
}

impl<'a> Events<'a> {
    fn new(p: &'a Loaded) -> Result<Events<'a>, Failure> {
        let c = &p.prepared.compiled;
        let ring =
            RingBuf::new(&p.maps[sonde_compile::lower::EVENTS_MAP]).map_err(Failure::kernel)?;
        let text = &p.prepared.source.text;
        let output =
            Output::new(crate::cli::Format::Text, None, text, c, &p.maps, Symbolizer::new(None))
                .source_name(&p.prepared.file);
        Ok(Events { file: &p.prepared.file, ring, output, exit_said: false })
    }

    fn drain(&mut self) -> Result<(), Failure> {
        let (output, exit_said, file) = (&mut self.output, &mut self.exit_said, self.file);
        self.ring
            .drain(|rec| {
                if let Action::Exit(_) = output.record(rec) {
                    if !std::mem::replace(exit_said, true) {
                        eprintln!("sonde: {file}: exit() is ignored: `sonde serve` runs until it is stopped");
                    }
                }
            })
            .map_err(Failure::kernel)?;
        self.output.flush();
        Ok(())
    }
}
