//! sonde's compiler: program text -> typed program -> BPF instructions. Pure: it learns about the
//! kernel only through the `Env` trait and never makes a syscall.
//!
//! The pipeline, in order: `sonde_syntax::parse` -> [`check`] -> [`lower`].

//!
//! Its modules form layers; each uses only those below it (docs/architecture.md, and
//! tests/layers.rs, which checks it):
//!
//! ```text
//! 4  dump                         the -S printer
//! 3  sema        lower            check, lower to BPF
//! 2  provider                     probe specs -> sites; what argN, args... mean in them
//! 1  env  btf_types  arch  abi    kernel facts; what programs and runtime agree on
//! 0  model                        types, sites, the typed program
//! ```

pub mod abi;
mod arch;
pub mod btf_types;
pub mod dump;
pub mod env;
pub mod lower;
pub mod model;
pub mod provider;
pub mod sema;

pub use env::{BtfOnly, Env, EnvError, Options, SourceLine};
pub use lower::{lower, Compiled, FunctionDef, MapDef, MapKind, ProgramDef};
pub use model::{tir, types};
pub use sema::check;

use sonde_syntax::diag::Diagnostic;

/// Parse, check and lower a program.
pub fn compile(text: &str, env: &dyn Env, opts: &Options) -> Result<Compiled, Vec<Diagnostic>> {
    let ast = sonde_syntax::parse(text)?;
    let typed = check(&ast, env, opts)?;
    lower(&typed, opts)
}
