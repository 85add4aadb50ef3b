//! The function_graph tracer for `sonde graph`. It runs in a tracefs instance of sonde's own
//! (`instances/sonde-<pid>-graph`) where the kernel allows function_graph and set_graph_function
//! there (neither Debian 6.1 nor 6.12 does: 6.12 has the tracer but not the filter), so that a
//! SIGKILLed run never leaves the global tracer on; else in the top-level tracer. Every file it
//! writes is read first and written back when it is dropped (exit, Ctrl-C, SIGTERM). A SIGKILLed
//! run cannot restore anything, so the values of files outside its instance (the top-level
//! tracer, `max_graph_depth`) are also kept in its run record (`run_record`), and the next run
//! puts them back (`leftovers`).

use crate::error::KernelError;
use crate::sys;
use crate::tracefs::instance::Instance;
use crate::tracefs::run_record::{self, Records, RunRecord};
use crate::tracefs::Tracefs;
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    #[error("this kernel has no function_graph tracer (CONFIG_FUNCTION_GRAPH_TRACER is off), so `sonde graph` cannot run here; kernel stacks can still be sampled: `sonde -o flame.svg 'profile:hz:99 {{ @[kstack] = count(); }}'`")]
    NoTracer,
    #[error("the function tracer is in use by someone else ({file} is `{value}`): sonde graph will not overwrite it; once that user is done, `echo {reset} > {path}` frees it")]
    Busy { file: &'static str, value: String, reset: &'static str, path: String },
    #[error(
        "another `sonde graph` (pid {pid}) is using the function tracer: wait for it to finish"
    )]
    OtherSonde { pid: u32 },
    #[error("cannot set {path} to `{value}`: {source}")]
    Write { path: String, value: String, source: std::io::Error },
    #[error("{0}")]
    Kernel(#[from] KernelError),
}

/// What to trace.
pub struct GraphConfig<'a> {
    pub function: &'a str,
    /// Only these processes (empty: all).
    pub pids: &'a [u32],
    /// Follow the pids' new children (`function-fork`).
    pub follow_forks: bool,
    /// Levels below `function` to record (0: no limit).
    pub max_depth: u32,
    /// Also record `sched_process_exec` in the same buffer (to tell a held command's gate
    /// shell from the program it execs, and to name exec'd tasks).
    pub exec_events: bool,
}

pub struct GraphTracer {
    /// The instance's directory, or tracefs' root.
    dir: PathBuf,
    /// Files written and their values before, in order.
    saved: Vec<(PathBuf, String)>,
    /// Where the values of files outside the instance are kept for a next run.
    record: Option<RunRecord>,
    pipe: Option<File>,
    /// `sched_process_exec` lines are in the trace.
    exec_events: bool,
    /// Dropped last, after everything in it is restored.
    instance: Option<Instance>,
}

impl GraphTracer {
    /// Checks the kernel and sets the tracer up; tracing starts at once. What dead runs left
    /// is not cleaned here: `leftovers::clean_dead_runs` first.
    pub fn start(t: &Tracefs, cfg: &GraphConfig) -> Result<GraphTracer, GraphError> {
        let root = t.root();
        if !read(&root.join("available_tracers")).split_whitespace().any(|x| x == "function_graph")
        {
            return Err(GraphError::NoTracer);
        }
        let instance = own_instance(t);
        if instance.is_none() {
            top_level_free(root)?;
        }
        let mut g = GraphTracer {
            dir: instance.as_ref().map_or(root, |i| i.path()).to_path_buf(),
            saved: Vec::new(),
            record: Records::system().create(),
            pipe: None,
            exec_events: false,
            instance,
        };
        g.configure(root, cfg)?;
        Ok(g)
    }

    fn configure(&mut self, root: &Path, cfg: &GraphConfig) -> Result<(), GraphError> {
        self.set("tracing_on", "0")?;
        self.set("current_tracer", "nop")?;
        self.set("set_graph_function", cfg.function)?;
        let pids: Vec<String> = cfg.pids.iter().map(u32::to_string).collect();
        self.set("set_ftrace_pid", &pids.join(" "))?;
        if cfg.pids.is_empty() {
            // Else sonde's own reads of trace_pipe are traced (vfs_read, say), each read adding
            // entries to read: a feedback loop that overflows the buffer.
            let me = std::process::id().to_string();
            self.set_if_present("set_ftrace_notrace_pid", &me)?;
        }
        // The columns sonde-graph's parser reads: cpu, task, duration, overhead marks; the
        // closing brace names its function (to survive lost entries).
        for (opt, on) in [
            ("funcgraph-proc", true),
            ("funcgraph-cpu", true),
            ("funcgraph-duration", true),
            ("funcgraph-overhead", true),
            ("funcgraph-tail", true),
            ("funcgraph-abstime", false),
            // 6.5+: each return value, errors in signed decimal (not the -hex form).
            ("funcgraph-retval", true),
            ("funcgraph-retval-hex", false),
            ("function-fork", cfg.follow_forks),
        ] {
            self.set_if_present(&format!("options/{opt}"), if on { "1" } else { "0" })?;
        }
        const EXEC: &str = "events/sched/sched_process_exec/enable";
        if cfg.exec_events && self.dir.join(EXEC).exists() {
            self.set(EXEC, "1")?;
            self.exec_events = true;
        }
        // Global, top-level only: the deepest level recorded bounds the cost of each call.
        self.set_at(root.join("max_graph_depth"), &cfg.max_depth.to_string())?;
        // Start from an empty buffer (the top-level one was idle: checked above).
        let _ = std::fs::write(self.dir.join("trace"), "");
        self.set("current_tracer", "function_graph")?;
        let pipe = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(self.dir.join("trace_pipe"))
            .map_err(KernelError::io(self.dir.join("trace_pipe").display().to_string()))?;
        self.pipe = Some(pipe);
        self.set("tracing_on", "1")
    }

    /// `sched_process_exec` events are in the trace (see [`GraphConfig::exec_events`]).
    pub fn sees_exec(&self) -> bool {
        self.exec_events
    }

    /// In an instance of sonde's own (else the top-level tracer).
    pub fn in_instance(&self) -> bool {
        self.instance.is_some()
    }

    /// Up to 64 KiB of what the tracer has written (possibly nothing: it never blocks). One
    /// read per call: a busy tracer never runs dry, and the caller must get to check its stop
    /// conditions.
    pub fn read_into(&mut self, buf: &mut Vec<u8>) -> std::io::Result<usize> {
        let Some(p) = self.pipe.as_mut() else { return Ok(0) };
        let mut chunk = [0u8; 1 << 16];
        match p.read(&mut chunk) {
            Ok(k) => {
                buf.extend_from_slice(&chunk[..k]);
                Ok(k)
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => Ok(0),
            Err(e) => Err(e),
        }
    }

    /// Entries the ring buffer overwrote or dropped, summed over CPUs (per_cpu/cpuN/stats).
    pub fn overruns(&self) -> u64 {
        let Ok(cpus) = std::fs::read_dir(self.dir.join("per_cpu")) else { return 0 };
        let mut n = 0;
        for c in cpus.flatten() {
            for l in read(&c.path().join("stats")).lines() {
                if let Some(v) =
                    l.strip_prefix("overrun:").or_else(|| l.strip_prefix("dropped events:"))
                {
                    n += v.trim().parse::<u64>().unwrap_or(0);
                }
            }
        }
        n
    }

    /// Stop tracing (the pipe can still be drained).
    pub fn stop(&mut self) {
        let _ = std::fs::write(self.dir.join("tracing_on"), "0");
    }

    fn set(&mut self, file: &str, value: &str) -> Result<(), GraphError> {
        self.set_at(self.dir.join(file), value)
    }

    fn set_if_present(&mut self, file: &str, value: &str) -> Result<(), GraphError> {
        let p = self.dir.join(file);
        if p.exists() {
            self.set_at(p, value)?;
        }
        Ok(())
    }

    fn set_at(&mut self, path: PathBuf, value: &str) -> Result<(), GraphError> {
        if !self.saved.iter().any(|(p, _)| *p == path) {
            let old = read(&path);
            let inside = self.instance.as_ref().is_some_and(|i| path.starts_with(i.path()));
            if let (Some(r), false) = (&self.record, inside) {
                // Before the write: a SIGKILL between the two leaves a value to restore.
                r.note(&path, &old);
            }
            self.saved.push((path.clone(), old));
        }
        write(&path, value)
    }
}

impl Drop for GraphTracer {
    fn drop(&mut self) {
        self.pipe = None;
        run_record::restore(&self.saved);
        if let Some(r) = self.record.take() {
            r.remove();
        }
    }
}

/// `instances/sonde-<pid>-graph`, if the kernel runs function_graph with set_graph_function
/// there. 6.12 offers function_graph in instances but no set_graph_function there, which this
/// needs: then the top level it is.
fn own_instance(t: &Tracefs) -> Option<Instance> {
    let i = Instance::create_for(t, "graph").ok()?;
    let tracers = read(&i.path().join("available_tracers"));
    (tracers.split_whitespace().any(|x| x == "function_graph")
        && i.path().join("set_graph_function").exists())
    .then_some(i)
}

/// The top-level tracer is free if it is `nop` (what dead runs left is restored before start).
fn top_level_free(root: &Path) -> Result<(), GraphError> {
    let cur = read(&root.join("current_tracer")).trim().to_string();
    if cur == "nop" || cur.is_empty() {
        return Ok(());
    }
    if let Some(pid) = live_claims(root).into_iter().find(|&p| p != std::process::id()) {
        return Err(GraphError::OtherSonde { pid });
    }
    Err(GraphError::Busy {
        file: "current_tracer",
        value: cur,
        reset: "nop",
        path: root.join("current_tracer").display().to_string(),
    })
}

/// Live sonde runs holding the top-level tracer: their record saved its `current_tracer`.
fn live_claims(root: &Path) -> Vec<u32> {
    let tracer = root.join("current_tracer");
    Records::system()
        .list()
        .into_iter()
        .filter(|(pid, _)| !sys::process_gone(*pid))
        .filter(|(_, path)| {
            run_record::read(path, root)
                .is_some_and(|saved| saved.iter().any(|(f, _)| *f == tracer))
        })
        .map(|(pid, _)| pid)
        .collect()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

fn write(p: &Path, value: &str) -> Result<(), GraphError> {
    // A new line ends the value as `echo` does; list files are replaced (O_TRUNC) as with `>`.
    let v = if value.is_empty() { String::new() } else { format!("{value}\n") };
    std::fs::write(p, v).map_err(|source| GraphError::Write {
        path: p.display().to_string(),
        value: value.to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake tracefs whose top-level tracer is `function` (someone else's): the sentence names
    /// it, and nothing in the fake tree was written.
    #[test]
    fn a_busy_tracer_is_named_and_left_alone() {
        let root = std::env::temp_dir().join(format!("sonde-graph-busy-{}", std::process::id()));
        std::fs::create_dir_all(root.join("instances")).unwrap();
        std::fs::write(root.join("available_tracers"), "function_graph function nop\n").unwrap();
        std::fs::write(root.join("current_tracer"), "function\n").unwrap();
        let cfg = GraphConfig {
            function: "vfs_read",
            pids: &[],
            follow_forks: false,
            max_depth: 0,
            exec_events: false,
        };
        let err = GraphTracer::start(&Tracefs::at(&root), &cfg).err().expect("busy");
        let text = err.to_string();
        let entries: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        let current = std::fs::read_to_string(root.join("current_tracer")).unwrap();
        let instances = std::fs::read_dir(root.join("instances")).unwrap().count();
        let _ = std::fs::remove_dir_all(&root);
        assert!(matches!(err, GraphError::Busy { .. }), "{text}");
        assert!(text.contains("in use by someone else (current_tracer is `function`)"), "{text}");
        assert_eq!(current, "function\n");
        assert_eq!(entries.len(), 3, "{entries:?}");
        assert_eq!(instances, 0);
    }
}
