//! `sonde probe --show` and `-o`: the tracefs commands a run performs, as shell commands a user
//! may read or run, every user text quoted.

use crate::shell::quote;
use sonde_probe::{Probe, Target};

/// A definition and the tracefs file it is appended to.
pub struct Line {
    pub file: &'static str,
    pub text: String,
}

/// A shell command writing `text` and a newline, byte for byte: `printf '%s\\n'`, since `echo`
/// expands backslashes in some shells (dash, busybox).
fn write_line(text: &str) -> String {
    format!("printf '%s\\n' {}", quote(text))
}

/// The tracefs commands a run performs, for `--show` and `-o`.
pub struct Plan<'a> {
    pub root: String,
    pub probes: &'a [Probe],
    pub lines: &'a [Option<Line>],
    pub stack: bool,
}

/// How the commands name sonde's instance and event group: this run's names (`--show`), or the
/// shell variables a script sets from its own pid (`-o`), so each copy of a script has its own.
#[derive(Clone, Copy)]
pub enum Names {
    ThisRun,
    PerCopy,
}

/// The script's variables: `I` its instance, `G` its event group.
const SCRIPT_VARS: &str = "I={root}/instances/sonde-$$\nG=sonde_$$\n";

impl Plan<'_> {
    fn instance(&self) -> String {
        format!("{}/instances/sonde-{}", self.root, std::process::id())
    }

    /// The instance directory as a shell word.
    fn instance_word(&self, names: Names) -> String {
        match names {
            Names::ThisRun => quote(&self.instance()),
            Names::PerCopy => "\"$I\"".into(),
        }
    }

    /// A tracefs file of the instance, as a shell word.
    fn path(&self, file: &str, names: Names) -> String {
        format!("{}{}", self.instance_word(names), quote(&format!("/{file}")))
    }

    /// A file of the event's directory in the instance.
    fn event_path(&self, p: &Probe, file: &str, names: Names) -> String {
        let (g, e) = p.event();
        match (names, &p.target) {
            (Names::PerCopy, Target::Dynamic(_)) => format!(
                "{}{}\"$G\"{}",
                self.instance_word(names),
                quote("/events/"),
                quote(&format!("/{e}/{file}"))
            ),
            _ => self.path(&format!("events/{g}/{e}/{file}"), names),
        }
    }

    /// A shell command appending `text` (which names `p`'s event) to tracefs file `file`.
    fn append(&self, p: &Probe, file: &str, text: &str, names: Names) -> String {
        let file = quote(&format!("{}/{file}", self.root));
        let word = match (names, &p.target) {
            (Names::PerCopy, Target::Dynamic(def)) => {
                let (head, tail) = split_group(text, &def.group, &def.event);
                format!("{}\"$G\"{}", quote(head), quote(tail))
            }
            _ => quote(text),
        };
        format!("printf '%s\\n' {word} >> {file}")
    }

    pub fn commands(&self, names: Names) -> Vec<String> {
        let mut c = Vec::new();
        for (p, l) in self.probes.iter().zip(self.lines) {
            if let Some(l) = l {
                c.push(self.append(p, l.file, &l.text, names));
            }
        }
        c.push(format!("mkdir {}", self.instance_word(names)));
        for p in self.probes {
            if let Some(f) = &p.filter {
                c.push(format!("{} > {}", write_line(f), self.event_path(p, "filter", names)));
            }
            c.push(format!("echo 1 > {}", self.event_path(p, "enable", names)));
        }
        if self.stack {
            c.push(format!("echo 1 > {}", self.path("options/stacktrace", names)));
        }
        if let Names::ThisRun = names {
            c.push(format!("cat {}", self.path("trace_pipe", names)));
        }
        c
    }

    pub fn script(&self) -> String {
        let names = Names::PerCopy;
        // The clean-up goes on past a step that fails (`set -e` would end it there).
        let mut s = String::from("#!/bin/sh\n# Written by `sonde probe -o`.\n");
        s += &SCRIPT_VARS.replace("{root}", &quote(&self.root));
        s += "cat=\ncleanup() {\n  set +e\n";
        // The reader holds trace_pipe open, which keeps the instance from going.
        s += "  [ -n \"$cat\" ] && kill \"$cat\" 2>/dev/null && wait \"$cat\" 2>/dev/null\n";
        for p in self.probes {
            s += &format!("  echo 0 > {} 2>/dev/null\n", self.event_path(p, "enable", names));
        }
        s += &format!("  rmdir {} 2>/dev/null\n", self.instance_word(names));
        for (p, l) in self.probes.iter().zip(self.lines) {
            if let (Target::Dynamic(def), Some(l)) = (&p.target, l) {
                let removal = format!("-:{}/{}", def.group, def.event);
                s += &format!("  {}\n", self.append(p, l.file, &removal, names));
            }
        }
        s += "}\ntrap cleanup EXIT\ntrap 'exit 0' INT TERM HUP\nset -e\n";
        for c in self.commands(names) {
            s += &c;
            s.push('\n');
        }
        // A shell runs a trap only once the command in the foreground ends, and `cat` of
        // trace_pipe never does: in the background, `wait` is what a signal interrupts.
        s += &format!("cat {} &\ncat=$!\nwait \"$cat\"\n", self.path("trace_pipe", names));
        s
    }
}

/// `text` (a definition or removal naming `group/event`) around its group: the part before the
/// group and the part after it.
fn split_group<'t>(text: &'t str, group: &str, event: &str) -> (&'t str, &'t str) {
    let key = format!(":{group}/{event}");
    match text.find(&key) {
        Some(i) => (&text[..=i], &text[i + 1 + group.len()..]),
        None => (text, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::{Line, Names, Plan};
    use sonde_probe::{Definition, Location, Probe, Target};
    use std::os::unix::process::CommandExt;
    use std::path::PathBuf;
    use std::process::{Child, Command};
    use std::time::{Duration, Instant};

    /// A running copy of the script in a process group of its own: a test that fails half way
    /// kills the whole group (the shell and its background `cat`) rather than leaving it.
    struct Copy(Child);

    impl Drop for Copy {
        fn drop(&mut self) {
            if self.0.try_wait().is_ok_and(|done| done.is_none()) {
                unsafe { libc::kill(-(self.0.id() as i32), libc::SIGKILL) };
                let _ = self.0.wait();
            }
        }
    }

    /// Every field a user's text reaches, each holding what a shell would act on.
    const HOSTILE: &str = "a'; touch PWNED; echo '$(touch PWNED)`touch PWNED`\\n\"x\"";

    fn probe(path: &str) -> Probe {
        let def = Definition {
            ret: false,
            maxactive: None,
            group: "sonde".into(),
            event: "sonde_1_0".into(),
            location: Location::File { path: path.into(), offset: 0x10 },
            args: Vec::new(),
        };
        let filter = Some(format!("common_pid==1 && comm==\"{HOSTILE}\""));
        Probe { source: String::new(), target: Target::Dynamic(def), filter, unwrapped: vec![] }
    }

    /// A directory standing in for tracefs, with the script `p.sh` written for it.
    struct Stage {
        dir: PathBuf,
        root: PathBuf,
        def: Definition,
        filter: String,
    }

    impl Stage {
        fn new(tag: &str) -> Stage {
            let dir = std::env::temp_dir()
                .join(format!("sonde-probe-script-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let root = dir.join("tracefs");
            std::fs::create_dir_all(&root).unwrap();
            let probes = [probe(&format!("/tmp/{HOSTILE}/bin"))];
            let Target::Dynamic(def) = probes[0].target.clone() else { unreachable!() };
            let lines = [Some(Line { file: "uprobe_events", text: def.to_string() })];
            let plan = Plan {
                root: root.display().to_string(),
                probes: &probes,
                lines: &lines,
                stack: true,
            };
            std::fs::write(dir.join("p.sh"), plan.script()).unwrap();
            for c in plan.commands(Names::ThisRun) {
                assert!(!c.starts_with("echo '"), "user text goes through printf '%s\\n': {c}");
            }
            let filter = probes[0].filter.clone().unwrap();
            Stage { dir, root, def, filter }
        }

        /// Starts one copy of the script; tracefs makes an instance's directories itself, the
        /// `mkdir` shim stands in for that, with `trace_pipe` a FIFO (`cat` blocks on it) when
        /// `block`.
        fn start(&self, block: bool) -> Copy {
            let pipe = if block { "mkfifo \"$1/trace_pipe\"" } else { ": > \"$1/trace_pipe\"" };
            let shim = format!(
                "mkdir() {{ command mkdir -p \"$1/events/sonde_$$/sonde_1_0\" \"$1/options\"; {pipe}; }}; . ./p.sh"
            );
            let mut sh = Command::new("sh");
            sh.args(["-c", &shim]).current_dir(&self.dir).process_group(0);
            Copy(sh.spawn().unwrap())
        }

        /// The instance of the copy whose shell is `pid`.
        fn instance(&self, pid: u32) -> PathBuf {
            self.root.join(format!("instances/sonde-{pid}"))
        }

        fn events(&self) -> String {
            std::fs::read_to_string(self.root.join("uprobe_events")).unwrap_or_default()
        }

        /// The definition and removal lines the copy whose shell is `pid` writes.
        fn lines_of(&self, pid: u32) -> (String, String) {
            let group = format!("sonde_{pid}");
            let def = Definition { group: group.clone(), ..self.def.clone() };
            (format!("{def}\n"), format!("-:{group}/sonde_1_0\n"))
        }
    }

    impl Drop for Stage {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    /// Waits (up to 10 s) for `done`.
    fn until(what: &str, mut done: impl FnMut() -> bool) {
        let start = Instant::now();
        while !done() {
            assert!(start.elapsed() < Duration::from_secs(10), "never happened: {what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn term(copy: &Copy) {
        let ok = Command::new("kill").args(["-TERM", &copy.0.id().to_string()]).status();
        assert!(ok.unwrap().success());
    }

    /// The script, run by `sh` against a directory standing in for tracefs, writes each user
    /// text byte for byte and runs nothing of it.
    #[test]
    fn the_script_writes_every_user_text_as_it_is_and_runs_none_of_it() {
        let stage = Stage::new("text");
        let mut copy = stage.start(false);
        let pid = copy.0.id();
        assert!(copy.0.wait().unwrap().success());
        assert!(!stage.dir.join("PWNED").exists());
        let (def, removal) = stage.lines_of(pid);
        assert_eq!(stage.events(), format!("{def}{removal}"));
        let event_dir = stage.instance(pid).join(format!("events/sonde_{pid}/sonde_1_0"));
        let filter = std::fs::read_to_string(event_dir.join("filter")).unwrap();
        assert_eq!(filter, format!("{}\n", stage.filter));
        assert_eq!(std::fs::read_to_string(event_dir.join("enable")).unwrap(), "0\n");
    }

    /// `kill -TERM` stops a script blocked reading trace_pipe, and a second copy has names of its
    /// own: it starts beside the first, and its end leaves the first's event enabled.
    #[test]
    fn term_stops_the_script_and_copies_keep_to_their_own_names() {
        let stage = Stage::new("copies");
        let mut first = stage.start(true);
        let mut second = stage.start(true);
        let (p1, p2) = (first.0.id(), second.0.id());
        let enable = |pid: u32| {
            let e = stage.instance(pid).join(format!("events/sonde_{pid}/sonde_1_0/enable"));
            std::fs::read_to_string(e).unwrap_or_default()
        };
        until("both copies enable their events", || enable(p1) == "1\n" && enable(p2) == "1\n");
        term(&second);
        until("the second copy stops on TERM", || second.0.try_wait().unwrap().is_some());
        assert_eq!(enable(p2), "0\n");
        assert_eq!(enable(p1), "1\n", "the second copy's end disabled the first's event");
        term(&first);
        until("the first copy stops on TERM", || first.0.try_wait().unwrap().is_some());
        assert_eq!(enable(p1), "0\n");
        let events = stage.events();
        for pid in [p1, p2] {
            let (def, removal) = stage.lines_of(pid);
            assert!(events.contains(&def) && events.contains(&removal), "{pid}: {events}");
        }
        assert!(!stage.dir.join("PWNED").exists());
    }
}
