//! A fixture kernel: the types of the surftrace guide's examples (offsets from its 4.19 kernel
//! where the guide shows them), built as real BTF with sonde-btf's writer, and an `Env` over it.
#![allow(dead_code)]

use sonde_btf::builder::{Builder, KIND_FLAG};
use sonde_btf::Btf;
use sonde_probe::{Env, UserSite};

/// A bitfield member's offset word: size in the top 8 bits (struct with the kind flag).
fn bf(bits: u32, offset: u32) -> u32 {
    (bits << 24) | offset
}

pub fn fixture_btf() -> Btf {
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    let uint = b.int("unsigned int", 4, false);
    let u64_ = b.int("long long unsigned int", 8, false);
    let s64 = b.int("long long int", 8, true);
    let chr = b.int_enc("char", 1, 0, 0, 8);
    let cchr = b.const_(chr);
    let cstr = b.ptr(cchr);
    let comm = b.array(chr, int, 16);
    let ints = b.array(int, int, 4);
    let loff = b.typedef("loff_t", s64);
    let atomic = b.struct_("", 4, &[("counter", int, 0)]);
    let atomic_t = b.typedef("atomic_t", atomic);
    let mm = b.struct_("mm_struct", 0x400, &[("mm_users", atomic_t, 0x58 * 8)]);
    let mm_ptr = b.ptr(mm);
    let rb_node_fwd = b.fwd("rb_node", false);
    let rb_ptr = b.ptr(rb_node_fwd);
    let rb = b.struct_(
        "rb_node",
        24,
        &[("__rb_parent_color", u64_, 0), ("rb_right", rb_ptr, 64), ("rb_left", rb_ptr, 128)],
    );
    let se = b.struct_("sched_entity", 0x100, &[("load", u64_, 0), ("run_node", rb, 0x10 * 8)]);
    // A kind-flag struct: every member's offset word carries a bitfield size.
    let task = b.composite(
        4,
        "task_struct",
        0x1000,
        true,
        &[
            ("pid", int, bf(0, 0x10 * 8)),
            ("se", se, bf(0, 0x88 * 8)),
            ("in_execve", uint, bf(1, 0x7f0 * 8 + 3)),
            ("in_iowait", uint, bf(1, 0x7f0 * 8 + 4)),
            ("mm", mm_ptr, bf(0, 0x850 * 8)),
            ("vals", ints, bf(0, 0x900 * 8)),
            ("comm", comm, bf(0, 0xae0 * 8)),
        ],
    );
    let task_ptr = b.ptr(task);
    let file = b.struct_("file", 0x100, &[("f_flags", uint, 0x40 * 8), ("f_pos", loff, 0x68 * 8)]);
    let file_ptr = b.ptr(file);
    let filename = b.struct_("filename", 32, &[("name", cstr, 0), ("refcnt", int, 0x10 * 8)]);
    let filename_ptr = b.ptr(filename);
    let open_flags = b.struct_("open_flags", 20, &[("open_flag", int, 0)]);
    let cof = b.const_(open_flags);
    let of_ptr = b.ptr(cof);
    b.struct_("kmem_cache", 0x100, &[("size", uint, 0x18 * 8), ("name", cstr, 0x58 * 8)]);
    let p = b.func_proto(0, &[("p", task_ptr)]);
    b.func("wake_up_new_task", p, 1);
    let p = b.func_proto(file_ptr, &[("dfd", int), ("pathname", filename_ptr), ("op", of_ptr)]);
    b.func("do_filp_open", p, 1);
    let _ = KIND_FLAG;
    Btf::from_bytes(b.build()).expect("fixture BTF")
}

pub struct Fixture {
    pub btf: Option<Btf>,
}

impl Fixture {
    pub fn new() -> Fixture {
        Fixture { btf: Some(fixture_btf()) }
    }
}

const FUNCTIONS: [&str; 3] = ["wake_up_new_task", "do_filp_open", "do_sys_openat2"];

impl Env for Fixture {
    fn btf(&self) -> Option<&Btf> {
        self.btf.as_ref()
    }
    fn kernel_function(&self, name: &str) -> Result<(), Vec<String>> {
        if FUNCTIONS.contains(&name) {
            return Ok(());
        }
        Err(FUNCTIONS
            .iter()
            .filter(|f| f.contains(name) || name.contains(*f))
            .map(|s| s.to_string())
            .collect())
    }
    fn kernel_symbol(&self, name: &str) -> bool {
        name == "task_group_cache" || FUNCTIONS.contains(&name)
    }
    fn tracepoint_fields(&self, group: &str, event: &str) -> Option<Vec<String>> {
        (group == "sched" && event == "sched_stat_wait")
            .then(|| ["comm", "pid", "delay"].map(String::from).to_vec())
    }
    fn user_function(&self, binary: &str, symbol: &str) -> Result<UserSite, String> {
        match (binary, symbol) {
            ("bash", "readline") => Ok(UserSite { path: "/usr/bin/bash".into(), offset: 0x8a870 }),
            ("libc", "fopen") => {
                Ok(UserSite { path: "/lib64/libc-2.17.so".into(), offset: 0x6eb40 })
            }
            ("libc", s) => Err(format!("/lib64/libc-2.17.so has no symbol {s}")),
            (b, _) => Err(format!("no binary or library named {b}")),
        }
    }
}
