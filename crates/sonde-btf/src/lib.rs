//! Reads the kernel's BTF (BPF Type Format) so sonde can type kernel data:
//! `kprobe:wake_up_new_task { arg0->comm }`, `((struct task_struct *)arg0)->mm->mm_users`,
//! fentry's `args->filename` and `retval`.
//!
//! ```no_run
//! use sonde_btf::{Btf, NamedKind};
//! let btf = Btf::load_vmlinux()?;
//! let f = btf.find_func("wake_up_new_task").unwrap();
//! assert_eq!(btf.type_name(f.params[0].ty), "struct task_struct *");
//! let task = btf.find_named(NamedKind::Struct, "task_struct").unwrap();
//! let comm = btf.member(task, "comm").unwrap(); // offset in bits, type char[16]
//! # Ok::<(), sonde_btf::BtfError>(())
//! ```
//!
//! # Why a parser of our own, and not `btf-rs`
//!
//! Start-up cost decides it: sonde's whole start-up budget is 20 ms. Measured on Linux 6.18
//! (5.5 MB vmlinux BTF, 126,610 types, 56,277 functions; release build, 2-core VM):
//!
//! | | load | wake_up_new_task + task_struct.comm |
//! |---|---|---|
//! | `btf-rs` 2.0 (`Btf::from_file`) | 140–175 ms | ~0.1 ms |
//! | this crate (`Btf::load_vmlinux`) | 0.85 ms | 0.32 ms (also find_named + type_name) |
//!
//! `btf-rs` parses every type and builds name maps up front. The format is small (a
//! header, a type section, a string section), so this crate does only what every lookup
//! needs: one pass recording each record's offset and name offset (`index.rs`),
//! and resolves everything else on demand. Names are not hashed up front (~10 ms for
//! vmlinux's 70k names); a lookup searches the string section for `name\0` with SIMD
//! memmem and scans the name-offset array (~0.1–0.2 ms each).
//!
//! The file is memory-mapped (Linux 6.16+ allows it for vmlinux): sysfs serves reads 4 KiB
//! at a time, so `std::fs::read` alone costs ~4.4 ms; the mapping costs ~40 us. Elsewhere
//! (older kernels, module BTF) the file is read. `cargo run --release -p sonde-btf
//! --example load_time` measures it again; debug builds are ~10x slower.
//!
//! # What kernel BTF looks like (for the compiler)
//!
//! - `char` is an INT named "char", size 1, with *no* encoding flags (neither signed nor
//!   char): only the name tells it from `unsigned char`.
//! - Type tags depend on the compiler that built the kernel: a GCC-built kernel has no
//!   `__user`/`__rcu` tags, so `do_sys_openat2`'s `filename` reads `const char *`, not
//!   `const char __user *`. User pointers cannot be told apart from BTF there.
//! - Members are often inside anonymous structs/unions: [`Btf::member`] looks through them
//!   and adds up offsets, as C does. Offsets are in bits; bitfields have `bitfield_size > 0`.
//! - Pointers have no size in BTF; [`Btf::size_of`] says 8.

mod btf;
pub mod builder;
mod decode;
mod definition;
mod error;
mod header;
mod index;
mod lookup;
mod macros;
mod model;
mod name;
mod raw;
mod resolve;
mod source;

pub use btf::Btf;
pub use error::BtfError;
pub use model::{Func, Kind, Linkage, Member, MemberAt, NamedKind, Param, SecVar, TypeId};
