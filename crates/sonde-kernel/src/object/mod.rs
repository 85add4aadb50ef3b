//! Kernel objects made through bpf(2): maps, programs and the BTF they carry, ring buffers.
//! `name` and `btf` come first (the names the kernel keeps, the kernel's own BTF), then
//! `func_info` (the BTF of helper callbacks), `map` and `prog`, then `ringbuf` over a map.

pub mod btf;
pub mod func_info;
pub mod map;
pub mod map_batch;
mod name;
pub mod prog;
pub mod ringbuf;
pub mod verifier_stats;
