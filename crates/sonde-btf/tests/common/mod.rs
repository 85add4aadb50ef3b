//! The BTF writer tests build blobs with lives in the crate (`sonde_btf::builder`).
#![allow(unused_imports)]
pub use sonde_btf::builder::*;
