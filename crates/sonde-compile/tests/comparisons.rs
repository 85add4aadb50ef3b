//! Comparisons that can never hold (or always hold) by the range of an operand's type are
//! warned about, as a C compiler does; those C's conversions make possible are not.

mod common;

use common::FixtureEnv;
use sonde_compile::Options;

fn warnings(program: &str) -> Vec<String> {
    let ast = sonde_syntax::parse(program).unwrap();
    let typed = sonde_compile::check(&ast, &FixtureEnv::new(), &Options::new()).unwrap();
    typed.warnings.iter().map(|w| w.message.clone()).collect()
}

const READ: &str = "tracepoint:syscalls:sys_enter_read";

#[test]
fn foregone_comparisons_are_warned_about() {
    let w = warnings(&format!("{} /args->fd < 0/ {{ }}", READ));
    assert_eq!(w, ["this comparison never holds: a `u32` is from 0 to 4294967295"]);
    let w = warnings(&format!("{} /5000000000 > args->fd/ {{ }}", READ));
    assert_eq!(w, ["this comparison always holds: a `u32` is from 0 to 4294967295"]);
    let w = warnings(&format!("{} /(uint16)args->fd == -1/ {{ }}", READ));
    assert_eq!(w, ["this comparison never holds: a `u16` is from 0 to 65535"]);
}

#[test]
fn comparisons_c_allows_are_not() {
    for cond in ["args->fd == -1", "args->fd > 2", "args->count == -1", "(int32)args->fd < 0"] {
        let w = warnings(&format!("{} /{}/ {{ }}", READ, cond));
        assert!(w.is_empty(), "{}: {:?}", cond, w);
    }
}
