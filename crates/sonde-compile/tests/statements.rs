//! Statements bpftrace accepts that do nothing visible: an expression whose value nothing keeps
//! is run, with a warning, as a C compiler warns of a statement without effect.

mod common;

use common::FixtureEnv;
use sonde_compile::Options;

fn checked(program: &str) -> Result<Vec<String>, Vec<String>> {
    let ast = sonde_syntax::parse(program).unwrap();
    match sonde_compile::check(&ast, &FixtureEnv::new(), &Options::new()) {
        Ok(typed) => Ok(typed.warnings.iter().map(|w| w.message.clone()).collect()),
        Err(errors) => Err(errors.iter().map(|d| d.message.clone()).collect()),
    }
}

#[test]
fn an_expression_statement_is_kept_with_a_warning() {
    let w = checked("tracepoint:syscalls:sys_enter_read { args->count; 1 + 2; }").unwrap();
    assert_eq!(w, ["this expression does nothing: assign it or print it"; 2]);
}

#[test]
fn an_expression_statement_is_still_checked() {
    let e = checked("tracepoint:syscalls:sys_enter_read { args->nosuchfield; }").unwrap_err();
    assert!(e.iter().any(|m| m.contains("nosuchfield")), "{:?}", e);
}

/// A tracepoint record's first 8 bytes are out of a BPF program's reach (the kernel's rule; a
/// syscall tracepoint keeps the registers' address there): its `common_*` header is refused by
/// name, not by the verifier.
#[test]
fn a_tracepoint_header_field_is_refused_by_name() {
    let e = checked("tracepoint:syscalls:sys_enter_read { @ = args->common_pid; }").unwrap_err();
    let want = "`common_pid` is in the record's header, which the kernel lets no BPF program read";
    assert_eq!(e, [want]);
}

/// A statement after `exit()`, `return`, `break` or `continue` in its block never runs: a
/// warning at it, once a block.
#[test]
fn a_statement_after_exit_is_warned_about() {
    let w = checked("interval:ms:100 { @ = 1; exit(); @ = 2; @ = 3; }").unwrap();
    assert_eq!(w, ["this statement is never reached: `exit()` before it ends the probe"]);
    let w = checked("BEGIN { while (1) { break; @ = 1; } }").unwrap();
    assert_eq!(w, ["this statement is never reached: `break` before it leaves the loop"]);
    assert!(checked("BEGIN { if (1) { exit(); } @ = 1; }").unwrap().is_empty());
}
