use super::*;

fn entry(tid: u32, nr: u32, time_ns: u64) -> Entry {
    Entry { tid, pid: 1, time_ns, nr, args: [0; 6], comm: "t".into(), strings: Vec::new() }
}

fn call(tid: u32, nr: u32, time_ns: u64, exit_ns: u64) -> Call {
    Call { entry: entry(tid, nr, time_ns), exit_ns, ret: 0 }
}

#[test]
fn calls_without_interleaving_print_whole() {
    let mut f = InFlight::new(true);
    f.enter(entry(1, 0, 10));
    assert_eq!(f.exit(1, 0, 20, 0), [Piece::Whole(call(1, 0, 10, 20))]);
    // A call that began after another's entry and ends after it does not interrupt it.
    f.enter(entry(1, 0, 30));
    f.enter(entry(2, 39, 31));
    assert_eq!(f.exit(1, 0, 40, 0), [Piece::Whole(call(1, 0, 30, 40))]);
    assert_eq!(f.exit(2, 39, 41, 0), [Piece::Whole(call(2, 39, 31, 41))]);
}

#[test]
fn a_later_line_interrupts_an_open_call() {
    let mut f = InFlight::new(true);
    f.enter(entry(1, 0, 10)); // a blocking read in thread 1
    f.enter(entry(3, 35, 11)); // a nanosleep in thread 3
    f.enter(entry(2, 39, 12)); // thread 2's getpid, done first
    assert_eq!(
        f.exit(2, 39, 13, 0),
        [
            Piece::Interrupted(entry(1, 0, 10)),
            Piece::Interrupted(entry(3, 35, 11)),
            Piece::Whole(call(2, 39, 12, 13))
        ]
    );
    // Shown once: the next line interrupts nothing again.
    f.enter(entry(2, 39, 14));
    assert_eq!(f.exit(2, 39, 15, 0), [Piece::Whole(call(2, 39, 14, 15))]);
    assert_eq!(f.exit(1, 0, 16, 0), [Piece::Continued(call(1, 0, 10, 16))]);
    assert_eq!(f.event(), [], "nothing left unshown");
    assert_eq!(f.exit(3, 35, 17, 0), [Piece::Continued(call(3, 35, 11, 17))]);
}

#[test]
fn events_interrupt_and_mismatches_drop() {
    let mut f = InFlight::new(true);
    f.enter(entry(1, 35, 10));
    assert_eq!(f.event(), [Piece::Interrupted(entry(1, 35, 10))]);
    // An exit of another syscall than the entry (a lost record) prints nothing.
    assert_eq!(f.exit(1, 0, 11, 0), []);
    assert_eq!(f.exit(1, 35, 11, 0), []);
}

#[test]
fn without_interleaving_calls_are_held_until_their_exit() {
    let mut f = InFlight::new(false);
    f.copied_at_entry(1, 1, b"x".to_vec());
    f.enter(entry(1, 0, 10));
    f.enter(entry(2, 39, 11));
    assert_eq!(f.exit(2, 39, 12, 0), [Piece::Whole(call(2, 39, 11, 12))]);
    assert_eq!(f.event(), []);
    f.string(1, 7, b"y".to_vec());
    let Piece::Whole(c) = &f.exit(1, 0, 13, 0)[0] else { panic!() };
    assert_eq!(c.entry.strings, [(1, b"x".to_vec()), (7, b"y".to_vec())]);
}

/// The entry program sends its copies, then its record; another CPU's records may land between
/// them. The entry a line interrupts must still show its copies (the record race: it showed
/// their pointers when the copies came after the record and after the interrupting line).
#[test]
fn copies_before_the_entry_record_wait_for_it_by_thread() {
    let mut f = InFlight::strace();
    f.enter(entry(2, 39, 9));
    f.copied_at_entry(1, 1, b"/etc".to_vec());
    f.copied_at_entry(1, 13, b"stat".to_vec());
    // Thread 2's exit lands between thread 1's copies and its entry record.
    assert_eq!(f.exit(2, 39, 10, 0), [Piece::Whole(call(2, 39, 9, 10))]);
    f.enter(entry(1, 0, 11));
    f.enter(entry(3, 39, 12));
    let with_copies =
        Entry { strings: vec![(1, b"/etc".to_vec()), (13, b"stat".to_vec())], ..entry(1, 0, 11) };
    assert_eq!(
        f.exit(3, 39, 13, 0),
        [Piece::Interrupted(with_copies), Piece::Whole(call(3, 39, 12, 13))]
    );
}

#[test]
fn copies_whose_entry_record_was_lost_are_not_given_to_the_next_call() {
    let mut f = InFlight::new(true);
    // Lost entry record: its copies are dropped at the thread's exit record...
    f.copied_at_entry(1, 1, b"old".to_vec());
    assert_eq!(f.exit(1, 0, 10, 0), []);
    f.enter(entry(1, 0, 11));
    assert_eq!(f.exit(1, 0, 12, 0), [Piece::Whole(call(1, 0, 11, 12))]);
    // ... or when another call's copy at the same index comes first.
    f.copied_at_entry(1, 1, b"old".to_vec());
    f.copied_at_entry(1, 1, b"new".to_vec());
    f.enter(entry(1, 0, 13));
    let Piece::Whole(c) = &f.exit(1, 0, 14, 0)[0] else { panic!() };
    assert_eq!(c.entry.strings, [(1, b"new".to_vec())]);
}

#[test]
fn calls_that_never_return_print_at_their_entry() {
    let mut f = InFlight::new(true);
    f.enter(entry(1, 0, 10));
    f.enter(entry(2, 0, 11));
    assert_eq!(
        f.no_return(entry(2, 231, 12)),
        [Piece::Interrupted(entry(1, 0, 10)), Piece::NoReturn(entry(2, 231, 12))]
    );
    assert_eq!(f.exit(2, 0, 13, 0), [], "the thread's earlier call is forgotten");
    assert_eq!(
        InFlight::new(false).no_return(entry(2, 231, 12)),
        [Piece::NoReturn(entry(2, 231, 12))]
    );
}

#[test]
fn strace_splits_a_call_when_anything_happens_before_its_exit() {
    let mut f = InFlight::strace();
    // Nothing in between: whole.
    f.enter(entry(1, 0, 10));
    assert_eq!(f.exit(1, 0, 11, 0), [Piece::Whole(call(1, 0, 10, 11))]);
    // 1 enters, 2 enters, 1 exits, 2 exits (strace -f: `A( <unfinished ...>`, `B(
    // <unfinished ...>`, `<... A resumed>`, `<... B resumed>`); perf's rule printed both whole.
    f.enter(entry(1, 0, 20));
    f.enter(entry(2, 39, 21));
    assert_eq!(
        f.exit(1, 0, 22, 0),
        [
            Piece::Interrupted(entry(1, 0, 20)),
            Piece::Interrupted(entry(2, 39, 21)),
            Piece::Continued(call(1, 0, 20, 22))
        ]
    );
    assert_eq!(f.exit(2, 39, 23, 0), [Piece::Continued(call(2, 39, 21, 23))]);
    // A call that began before another's short one: split by it; the short one is whole.
    f.enter(entry(3, 35, 30));
    f.enter(entry(2, 39, 31));
    assert_eq!(
        f.exit(2, 39, 32, 0),
        [Piece::Interrupted(entry(3, 35, 30)), Piece::Whole(call(2, 39, 31, 32))]
    );
    // The main thread's futex begins, then the sleeper's exit splits it (the join of
    // `thread-sleep`).
    f.enter(entry(2, 202, 33));
    assert_eq!(
        f.exit(3, 35, 34, 0),
        [Piece::Interrupted(entry(2, 202, 33)), Piece::Continued(call(3, 35, 30, 34))]
    );
    assert_eq!(f.exit(2, 202, 35, 0), [Piece::Continued(call(2, 202, 33, 35))]);
    // An event splits too; an exit of another syscall than the entry prints nothing.
    f.enter(entry(1, 0, 40));
    assert_eq!(f.event(), [Piece::Interrupted(entry(1, 0, 40))]);
    assert_eq!(f.exit(1, 3, 41, 0), []);
}
