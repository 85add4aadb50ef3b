//! sonde's compiler: program text -> typed program -> BPF instructions. Pure: it learns about the
//! kernel only through the `Env` trait and never makes a syscall.
//!
//! The pipeline, in order: `sonde_syntax::parse` -> [`check`] -> [`lower`].

mod arch;
pub mod btf_types;
pub mod dump;
pub mod env;
pub mod lower;
pub mod provider;
pub mod sema;
pub mod types;

pub use env::{Env, EnvError, Options};
pub use lower::{lower, Compiled, MapDef, MapKind, ProgramDef};
pub use sema::check;
pub use sema::tir;

use sonde_syntax::diag::Diagnostic;

/// Parse, check and lower a program.
pub fn compile(text: &str, env: &dyn Env, opts: &Options) -> Result<Compiled, Vec<Diagnostic>> {
    let ast = sonde_syntax::parse(text)?;
    let typed = check(&ast, env, opts)?;
    lower(&typed, opts)
}
