//! SIGHUP: the program files and directories are read again. A program whose text is
//! unchanged keeps running (and its counts); a new or changed one is compiled and loaded, and
//! replaces its old version only once it is attached; a removed one runs END and is detached.
//! A program that no longer compiles, loads or fits beside the others is reported (log and
//! `sonde_serve_reload_failures_total`) and its old version, if any, keeps running.

use super::program::{self, Loaded, Prepared};
use super::ServeArgs;
use crate::host_env::HostEnv;
use sonde_serve::catalog::check_unique;
use std::collections::BTreeMap;

/// What the reloads so far came to, for the self-metrics.
#[derive(Default)]
pub struct Reloads {
    pub total: u64,
    /// Programs a reload could not (re)load, and how many times.
    pub failures: BTreeMap<String, u64>,
    /// Whether the last reload loaded everything; None before the first.
    pub last_ok: Option<bool>,
}

impl Reloads {
    fn failed(&mut self, file: &str, why: &str) {
        eprintln!("sonde: reload: {}: {}; the running version (if any) is kept", file, why);
        *self.failures.entry(file.to_string()).or_default() += 1;
        self.last_ok = Some(false);
    }
}

/// What became of one program file of the new list.
enum Plan {
    /// Unchanged: index into the old list.
    Keep(usize),
    /// New or changed, compiled; its old version's index.
    Fresh(Box<Prepared>, Option<usize>),
    /// Could not be compiled: its old version's index.
    Failed(Option<usize>),
}

/// Reads the programs again and returns the new list; `served` is consumed.
pub fn reload(served: Vec<Loaded>, args: &ServeArgs, reloads: &mut Reloads) -> Vec<Loaded> {
    reloads.total += 1;
    reloads.last_ok = Some(true);
    let files = match super::files::expand(&args.programs) {
        Ok(f) => f,
        Err(e) => {
            reloads.failed("the program list", &e.sentence());
            return served;
        }
    };
    let env = HostEnv::new();
    let mut old: Vec<Option<Loaded>> = served.into_iter().map(Some).collect();
    let position = |old: &[Option<Loaded>], name: &str| {
        old.iter().position(|l| l.as_ref().is_some_and(|l| l.prepared.file == name))
    };
    let mut plans = Vec::new();
    for f in &files {
        let name = f.display().to_string();
        let was = position(&old, &name);
        let text = std::fs::read_to_string(f).ok();
        let same = was.and_then(|i| old[i].as_ref()).map(|l| &l.prepared.source.text);
        if text.is_some() && same == text.as_ref() {
            plans.push((name, Plan::Keep(was.unwrap_or_default())));
            continue;
        }
        match program::prepare(f, &env, args.max_series) {
            Ok(p) => plans.push((name, Plan::Fresh(Box::new(p), was))),
            Err(e) => {
                reloads.failed(&name, &e.sentence());
                plans.push((name, Plan::Failed(was)));
            }
        }
    }
    // Old versions named by the new list; the others are removed at the end.
    let mut staying = vec![false; old.len()];
    for (_, plan) in &plans {
        if let Plan::Keep(i) | Plan::Failed(Some(i)) | Plan::Fresh(_, Some(i)) = plan {
            staying[*i] = true;
        }
    }
    let mut new = Vec::new();
    for (name, plan) in plans {
        let kept = match plan {
            Plan::Keep(i) | Plan::Failed(Some(i)) => old[i].take(),
            Plan::Failed(None) => None,
            Plan::Fresh(p, was) => {
                match fits(&new, &old, &staying, was, &p)
                    .and_then(|_| program::load(*p, &env).map_err(|e| e.sentence()))
                {
                    Ok(loaded) => {
                        if let Some(previous) = was.and_then(|i| old[i].take()) {
                            program::unload(previous);
                        }
                        Some(loaded)
                    }
                    Err(why) => {
                        reloads.failed(&name, &why);
                        was.and_then(|i| old[i].take())
                    }
                }
            }
        };
        new.extend(kept);
    }
    // What is left was removed from the list.
    for gone in old.into_iter().flatten() {
        eprintln!("sonde: reload: {}: removed", gone.prepared.file);
        program::unload(gone);
    }
    new
}

/// Whether `p`'s metrics clash with none of the programs that will run beside it: the new
/// list so far and the old versions staying, but for the one `p` replaces.
fn fits(
    new: &[Loaded],
    old: &[Option<Loaded>],
    staying: &[bool],
    replaces: Option<usize>,
    p: &Prepared,
) -> Result<(), String> {
    let others = old
        .iter()
        .enumerate()
        .filter(|&(i, _)| staying[i] && Some(i) != replaces)
        .filter_map(|(_, l)| l.as_ref())
        .chain(new);
    let metrics = others
        .flat_map(|l| l.prepared.metrics.iter().map(move |(_, m)| (l.prepared.file.as_str(), m)));
    let mine = p.metrics.iter().map(|(_, m)| (p.file.as_str(), m));
    check_unique(metrics.chain(mine))
}
