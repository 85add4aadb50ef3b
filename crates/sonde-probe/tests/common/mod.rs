//! A fixture kernel: the types of the surftrace guide's examples (offsets from its 4.19 kernel
//! where the guide shows them), built as real BTF with sonde-btf's writer, and an `Env` over it.
#![allow(dead_code)]

use sonde_btf::builder::{Builder, KIND_FLAG};
use sonde_btf::Btf;
use sonde_probe::{Env, FunctionMiss, UserSite};

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
    packet_types(&mut b);
    let u16_ = b.int("short unsigned int", 2, false);
    let common = b.struct_("sock_common", 0x88, &[("skc_dport", u16_, 0xc * 8)]);
    b.struct_("sock", 0x300, &[("__sk_common", common, 0)]);
    let _ = KIND_FLAG;
    Btf::from_bytes(b.build()).expect("fixture BTF")
}

/// The skb and the headers of surftrace's packet parsing (sk_buff's `data` at 4.19's 0xe8, as
/// in the guide's example; the headers as in include/uapi/linux).
fn packet_types(b: &mut Builder) {
    let int = b.int("int", 4, true);
    let u8_ = b.int("unsigned char", 1, false);
    let u16_ = b.int("short unsigned int", 2, false);
    let u32_ = b.int("unsigned int", 4, false);
    let be16 = b.typedef("__be16", u16_);
    let be32 = b.typedef("__be32", u32_);
    let data = b.ptr(u8_);
    let skb =
        b.struct_("sk_buff", 0xe8 + 0x20, &[("len", u32_, 0x70 * 8), ("data", data, 0xe8 * 8)]);
    let skb_ptr = b.ptr(skb);
    let mac = b.array(u8_, int, 6);
    b.struct_("ethhdr", 14, &[("h_dest", mac, 0), ("h_source", mac, 48), ("h_proto", be16, 96)]);
    b.composite(
        4,
        "iphdr",
        20,
        true,
        &[
            ("ihl", u8_, bf(4, 0)),
            ("version", u8_, bf(4, 4)),
            ("tos", u8_, bf(0, 8)),
            ("tot_len", be16, bf(0, 16)),
            ("id", be16, bf(0, 32)),
            ("frag_off", be16, bf(0, 48)),
            ("ttl", u8_, bf(0, 64)),
            ("protocol", u8_, bf(0, 72)),
            ("check", u16_, bf(0, 80)),
            ("saddr", be32, bf(0, 96)),
            ("daddr", be32, bf(0, 128)),
        ],
    );
    let echo = b.struct_("", 4, &[("id", be16, 0), ("sequence", be16, 16)]);
    let un = b.union_("", 4, &[("echo", echo, 0), ("gateway", be32, 0)]);
    b.struct_(
        "icmphdr",
        8,
        &[("type", u8_, 0), ("code", u8_, 8), ("checksum", u16_, 16), ("un", un, 32)],
    );
    b.struct_("udphdr", 8, &[("source", be16, 0), ("dest", be16, 16), ("len", be16, 32)]);
    b.struct_("tcphdr", 20, &[("source", be16, 0), ("dest", be16, 16), ("seq", be32, 32)]);
    let p = b.func_proto(int, &[("skb", skb_ptr), ("pfmemalloc", u8_)]);
    b.func("__netif_receive_skb_core", p, 1);
    let pp = b.ptr(skb_ptr);
    let p = b.func_proto(int, &[("pskb", pp)]);
    b.func("netif_receive_skb_list_internal", p, 1);
}

pub struct Fixture {
    pub btf: Option<Btf>,
}

impl Fixture {
    pub fn new() -> Fixture {
        Fixture { btf: Some(fixture_btf()) }
    }
}

const FUNCTIONS: [&str; 5] = [
    "wake_up_new_task",
    "do_filp_open",
    "do_sys_openat2",
    "__netif_receive_skb_core",
    "netif_receive_skb_list_internal",
];

impl Env for Fixture {
    fn btf(&self) -> Option<&Btf> {
        self.btf.as_ref()
    }
    fn kernel_function(&self, name: &str) -> Result<(), FunctionMiss> {
        if FUNCTIONS.contains(&name) {
            return Ok(());
        }
        if name == "do_int3" {
            return Err(FunctionMiss::Blacklisted);
        }
        Err(FunctionMiss::Unknown(
            FUNCTIONS
                .iter()
                .filter(|f| f.contains(name) || name.contains(*f))
                .map(|s| s.to_string())
                .collect(),
        ))
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
            ("tprog", "work") => Ok(UserSite { path: "/opt/tprog".into(), offset: 0x1139 }),
            (b, _) => Err(format!("no binary or library named {b}")),
        }
    }
    fn user_types(&self, path: &str) -> Result<Btf, String> {
        match path {
            "/opt/tprog" => Ok(tprog_btf()),
            p => Err(format!("{p} has no type information")),
        }
    }
}

/// The types of a user program: a `struct pt` unlike any of the kernel's.
fn tprog_btf() -> Btf {
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    let long = b.int("long", 8, true);
    let ch = b.int_enc("char", 1, 0, 0, 8);
    let idx = b.int("unsigned int", 4, false);
    let name = b.array(ch, idx, 8);
    b.struct_("pt", 24, &[("x", int, 0), ("y", long, 64), ("name", name, 128)]);
    Btf::from_bytes(b.build()).unwrap()
}
