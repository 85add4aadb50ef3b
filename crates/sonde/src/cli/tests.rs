//! The flags as each face reads them: one vocabulary, checked into settings before any work.

use super::trace::{Layout, Output, Show, Trace};
use super::{Cli, Face, Format};
use crate::child::Command;
use crate::face_trace::stamp::Stamp;
use clap::Parser;
use sonde_trace::line::xlat::Xlat;
use sonde_trace::summary::strace::{Column, SortBy};

fn parse(args: &[&str]) -> Cli {
    let argv = std::iter::once("sonde").chain(args.iter().copied());
    Cli::try_parse_from(argv).unwrap_or_else(|e| panic!("{args:?}: {e}")).settled()
}

pub(crate) fn trace(args: &[&str]) -> Trace {
    let mut all = vec!["trace"];
    all.extend_from_slice(args);
    let Some(Face::Trace(a)) = parse(&all).face else { panic!("{args:?}: not trace") };
    a.settings().unwrap_or_else(|f| panic!("{args:?}: {}", f.sentence()))
}

/// The sentence a face's settings refuse `args` with.
fn refused(args: &[&str]) -> String {
    let cli = parse(args);
    let failure = match cli.face {
        Some(Face::Trace(a)) => a.settings().err(),
        Some(Face::Probe(a)) => a.settings().err(),
        Some(Face::Graph(a)) => a.settings().err(),
        _ => panic!("{args:?}: not a face"),
    };
    let failure = failure.unwrap_or_else(|| panic!("{args:?} was accepted"));
    assert_eq!(failure.exit_code(), 2, "{args:?}");
    failure.sentence()
}

const WORDS: [&str; 7] = ["touch", "a b", "q'd", ";", "$(id)", "*", ""];

fn words() -> Vec<String> {
    WORDS.iter().map(|w| w.to_string()).collect()
}

#[test]
fn the_words_after_the_double_dash_reach_the_command_unchanged_in_every_face() {
    let with = |head: &[&str]| -> Vec<String> {
        head.iter().map(|s| s.to_string()).chain(words()).collect()
    };
    let args = with(&["trace", "-e", "openat", "--"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let Some(Face::Trace(a)) = parse(&args).face else { panic!() };
    assert_eq!(a.settings().unwrap().command, Some(Command::Argv(words())));
    // strace's own spelling, without `--`: everything after the first word is the command's.
    let t = trace(&["-f", "ls", "-la", "-e", "x"]);
    assert_eq!(
        t.command,
        Some(Command::Argv(vec!["ls".into(), "-la".into(), "-e".into(), "x".into()]))
    );
    let args = with(&["probe", "p vfs_read", "--"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let Some(Face::Probe(a)) = parse(&args).face else { panic!() };
    assert_eq!(a.settings().unwrap().command, Some(Command::Argv(words())));
    let args = with(&["graph", "vfs_read", "--"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let Some(Face::Graph(a)) = parse(&args).face else { panic!() };
    assert_eq!(a.settings().unwrap().command, Some(Command::Argv(words())));
    // -c is one line, as typed.
    let Some(Face::Graph(a)) = parse(&["graph", "-c", "ls -l", "vfs_read"]).face else { panic!() };
    assert_eq!(a.settings().unwrap().command, Some(Command::Line("ls -l".into())));
}

#[test]
fn json_is_spelled_alike_in_every_face() {
    assert_eq!(parse(&["-f", "json", "BEGIN {}"]).format, Format::Json);
    assert_eq!(parse(&["--json", "BEGIN {}"]).format, Format::Json);
    assert_eq!(parse(&["BEGIN {}"]).format, Format::Text);
    for spelling in [&["--json"][..], &["--format", "json"]] {
        let mut args = spelling.to_vec();
        args.extend(["--", "true"]);
        assert_eq!(trace(&args).layout, Layout::Json, "{spelling:?}");
        let mut args = vec!["probe"];
        args.extend(spelling);
        args.push("p vfs_read");
        let Some(Face::Probe(a)) = parse(&args).face else { panic!() };
        assert!(a.settings().unwrap().json, "{spelling:?}");
    }
    for spelling in [&["--json"][..], &["--format", "json"], &["-f", "json"]] {
        let mut args = vec!["graph"];
        args.extend(spelling);
        args.push("vfs_read");
        let Some(Face::Graph(a)) = parse(&args).face else { panic!() };
        assert!(a.settings().unwrap().json, "{spelling:?}");
    }
    let argv = ["sonde", "trace", "--json", "--format", "text", "--", "true"];
    assert!(Cli::try_parse_from(argv).is_err(), "--json and --format text disagree");
}

#[test]
fn strace_flags_mean_what_they_mean_in_strace() {
    let t = trace(&["-f", "-e", "trace=openat", "-e", "status=failed", "--", "true"]);
    assert_eq!((t.syscalls.as_deref(), t.failure, t.follow), (Some("openat"), true, true));
    assert_eq!(trace(&["-c", "true"]).show, Show::Summary);
    assert_eq!(trace(&["-C", "true"]).show, Show::Both);
    assert_eq!(trace(&["true"]).show, Show::Lines);
    assert_eq!(trace(&["-t", "true"]).stamp, Stamp::Seconds);
    assert_eq!(trace(&["-tt", "true"]).stamp, Stamp::Micros);
    assert_eq!(trace(&["-ttt", "true"]).stamp, Stamp::Epoch);
    assert_eq!(trace(&["-r", "true"]).stamp, Stamp::Relative);
    assert!(trace(&["-T", "true"]).syscall_times);
    assert!(trace(&["-y", "true"]).decode_fds);
    assert!(!trace(&["-y", "true"]).decode_sockets);
    assert!(trace(&["-yy", "true"]).decode_sockets);
    assert_eq!(trace(&["-s", "100", "true"]).string_limit, 100);
    assert_eq!(trace(&["true"]).string_limit, 32);
    assert!(trace(&["-Z", "true"]).failure);
    assert!(trace(&["--failure", "true"]).failure);
    assert_eq!(trace(&["-p", "1,2"]).pids, [1, 2]);
    assert_eq!(trace(&["true"]).output, Output::Stderr);
    assert_eq!(trace(&["-o", "-", "true"]).output, Output::Stdout);
    assert_eq!(trace(&["-o", "f", "true"]).output, Output::File("f".into()));
    assert!(!trace(&["--no-inherit", "true"]).follow);
    assert_eq!(trace(&["--min-duration", "2", "true"]).min_duration_ns, Some(2_000_000));
    assert_eq!(trace(&["--duration", "2", "true"]).duration_ns, Some(2_000_000_000));
    assert_eq!(trace(&["-P", "/a", "-P", "/b", "true"]).paths, ["/a", "/b"]);
    assert!(trace(&["-Y", "true"]).pid_comms);
    assert!(trace(&["-k", "true"]).strace_stacks);
    assert!(trace(&["-v", "true"]).verbose);
    let ff = trace(&["-ff", "-o", "p", "true"]);
    assert_eq!((ff.per_task.as_deref(), ff.output), (Some("p"), Output::Stderr));
    assert_eq!(trace(&["-ff", "true"]).per_task, None);
    assert_eq!(trace(&["-X", "verbose", "true"]).constants, Xlat::Verbose);
    assert_eq!(trace(&["-S", "count", "true"]).sort, SortBy::By(Column::Calls));
    assert_eq!(trace(&["-U", "calls", "true"]).columns, Some(vec![Column::Calls, Column::Name]));
}

#[test]
fn strace_flags_not_done_yet_are_refused_by_name() {
    let cases: &[(&[&str], &str)] = &[
        (&["-S", "bogus"], "-S: invalid sortby: 'bogus'"),
        (&["-U", "name,bogus"], "-U: unknown column name: 'bogus'"),
        (&["-X", "bogus"], "-X bogus: use raw, abbrev or verbose (as strace)"),
        (&["-P", ""], "-P \"\": a path of 1 to 255 bytes, without NUL"),
        (&["-u", "nobody"], "--uid USER traces only that user's tasks"),
        (&["-a", "40"], "--all traces every process"),
        (&["-tttt"], "-t is given at most three times"),
        (&["-r", "-t"], "-r and -t are two kinds of timestamp"),
        (&["-s", "0"], "-s 0: sonde copies from 1 to 255 bytes"),
        (&["-s", "300"], "-s 300: sonde copies from 1 to 255 bytes"),
        (&["-e", "signal=SIGBOGUS"], "-e signal=SIGBOGUS: `SIGBOGUS` is not a signal"),
        (&["-e", "abbrev=none"], "strace's qualifier abbrev"),
    ];
    for (flags, want) in cases {
        let mut args = vec!["trace"];
        args.extend_from_slice(flags);
        args.extend(["--", "true"]);
        let got = refused(&args);
        assert!(got.contains(want), "{flags:?}: {got}");
        assert!(!got.contains('\n'), "{flags:?}: one sentence: {got}");
    }
}

#[test]
fn faces_refuse_what_does_not_go_together_in_one_sentence() {
    let cases: &[(&[&str], &str)] = &[
        (&["trace"], "say what to trace"),
        (&["trace", "-p", "1", "--", "true"], "say what to trace"),
        (&["probe"], "no expression given"),
        (&["probe", "-p", "1", "p vfs_read", "--", "true"], "two targets"),
        (&["probe", "-c", "ls", "p vfs_read", "--", "true"], "give the command once"),
        (&["graph", "-m", "raw", "--json", "vfs_read"], "--json prints calls as JSON lines"),
        (&["graph", "--step", "2", "vfs_read"], "--step writes one SVG per call"),
    ];
    for (args, want) in cases {
        let got = refused(args);
        assert!(got.contains(want), "{args:?}: {got}");
    }
}

#[test]
fn limits_are_spelled_alike() {
    let Some(Face::Graph(a)) = parse(&["graph", "-d", "2", "-n", "5", "vfs_read"]).face else {
        panic!()
    };
    let g = a.settings().unwrap();
    // funcgraph's -d takes seconds.
    assert_eq!((g.duration_ns, g.max_events), (Some(2_000_000_000), Some(5)));
    let Some(Face::Graph(a)) =
        parse(&["graph", "--max-events", "5", "--min-duration", "1", "vfs_read"]).face
    else {
        panic!()
    };
    let g = a.settings().unwrap();
    assert_eq!((g.max_events, g.min_duration_ns), (Some(5), 1_000_000));
    let Some(Face::Graph(a)) = parse(&["graph", "--count", "5", "vfs_read"]).face else { panic!() };
    assert_eq!(a.settings().unwrap().max_events, Some(5));
    let Some(Face::Probe(a)) = parse(&["probe", "--duration", "500ms", "p vfs_read"]).face else {
        panic!()
    };
    assert_eq!(a.settings().unwrap().duration_ns, Some(500_000_000));
}

#[test]
fn a_program_named_like_a_face_is_a_program_after_the_double_dash() {
    let cli = parse(&["--", "trace"]);
    assert!(cli.face.is_none());
    assert_eq!(cli.program.as_deref(), Some("trace"));
}
