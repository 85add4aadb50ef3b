use super::*;
use crate::names::NoNames;
use sonde_compile::EnvError;

#[test]
fn events_are_split_from_syscalls_with_their_options() {
    let (sc, ev) = split("nanosleep,sched:sched_switch/max-stack=8/,sched:*wakeup").unwrap();
    assert_eq!(sc.as_deref(), Some("nanosleep"));
    assert_eq!(
        ev,
        [
            Spec { pattern: "sched:sched_switch".into(), max_stack: Some(8) },
            Spec { pattern: "sched:*wakeup".into(), max_stack: None }
        ]
    );
    assert_eq!(split("sched:sched_switch").unwrap().0, None);
    assert_eq!(split("open*,read").unwrap(), (Some("open*,read".into()), vec![]));
    assert!(matches!(split("sched:x/depth=3/"), Err(EventError::Option(_))));
}

struct Sched;

const SWITCH: &str = "name: sched_switch
ID: 1
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;
\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;
\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;
\tfield:u8 mask[4];\toffset:40;\tsize:4;\tsigned:0;

print fmt: \"\"
";

impl Env for Sched {
    fn tracepoint_format(&self, _: &str, _: &str) -> Result<String, EnvError> {
        Ok(SWITCH.into())
    }
    fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
        Ok(vec![("sched".into(), "sched_switch".into()), ("sched".into(), "sched_wakeup".into())])
    }
}

#[test]
fn fields_come_from_the_format_and_print_as_perf_does() {
    let spec = Spec { pattern: "sched:sched_switch".into(), max_stack: None };
    let ev = resolve(&[spec], &Sched).unwrap();
    assert_eq!(ev.len(), 1);
    let names: Vec<&str> = ev[0].fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["prev_comm", "prev_pid", "prev_state"], "arrays are left out");
    let values =
        [FieldValue::Str(b"app\0\0".to_vec()), FieldValue::Int(12), FieldValue::Int(u64::MAX)];
    assert_eq!(
        ev[0].text(&values, &NoNames),
        r#"sched:sched_switch(prev_comm: "app", prev_pid: 12, prev_state: -1)"#
    );
    assert_eq!(ev[0].json(&values)["prev_state"], -1);
    assert_eq!(ev[0].json(&values)["prev_comm"], "app");
    // The record: in bpftrace's envelope, members in name order, valid.
    let data = ev[0].data(5, 12, 13, "app", &values);
    let record = sonde_output::Record::new(sonde_output::Type::TraceEvent, data).to_string();
    assert_eq!(
        record,
        r#"{"type": "trace_event", "data": {"comm": "app", "event": "sched:sched_switch", "fields": {"prev_comm": "app", "prev_pid": 12, "prev_state": -1}, "pid": 12, "tid": 13, "time_ns": 5}}"#
    );
    sonde_schema::Schema::records().unwrap().check_line(&record).unwrap_or_else(|e| panic!("{e}"));
    let glob = Spec { pattern: "sched:*".into(), max_stack: Some(3) };
    assert_eq!(resolve(&[glob], &Sched).unwrap().len(), 2);
    let none = Spec { pattern: "sched:nope".into(), max_stack: None };
    assert_eq!(resolve(&[none], &Sched), Err(EventError::Unknown("sched:nope".into())));
}
