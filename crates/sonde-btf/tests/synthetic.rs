//! Parsing and resolution on small hand-built BTF blobs, one concern per test.

mod common;

use common::Builder;
use sonde_btf::{
    Btf, BtfError, Func, Kind, Linkage, Member, MemberAt, NamedKind, Param, SecVar, TypeId,
};

fn load(b: &Builder) -> Btf {
    Btf::from_bytes(b.build()).expect("valid BTF")
}

#[test]
fn every_kind_decodes() {
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    let chr = b.int_enc("char", 1, 2, 0, 8);
    let bool_ = b.int_enc("_Bool", 1, 4, 0, 8);
    let ptr = b.ptr(chr);
    let arr = b.array(chr, int, 16);
    let st = b.struct_("pair", 8, &[("a", int, 0), ("b", int, 32)]);
    let un = b.union_("either", 4, &[("i", int, 0), ("c", chr, 0)]);
    let en = b.enum32("state", 4, true, &[("NEG", -1i32 as u32), ("ONE", 1)]);
    let e64 = b.enum64("big", false, &[("HUGE", u64::MAX), ("SMALL", 2)]);
    let fwd = b.fwd("opaque", true);
    let td = b.typedef("pid_t", int);
    let vol = b.volatile(int);
    let cst = b.const_(chr);
    let rst = b.restrict(ptr);
    let proto = b.func_proto(int, &[("x", int), ("", 0)]);
    let func = b.func("printk", proto, 1);
    let var = b.var("jiffies", int, 1);
    let sec = b.datasec(".data", 64, &[(var, 8, 4)]);
    let flt = b.float("double", 8);
    let dtag = b.decl_tag("nonnull", func, 0);
    let ttag = b.type_tag("user", cst);
    let btf = load(&b);

    assert_eq!(btf.kind(TypeId::VOID), Kind::Void);
    assert_eq!(
        btf.kind(TypeId(int)),
        Kind::Int {
            name: "int".into(),
            size: 4,
            signed: true,
            char: false,
            bool: false,
            bits: 32,
            bit_offset: 0
        }
    );
    assert!(matches!(btf.kind(TypeId(chr)), Kind::Int { char: true, signed: false, size: 1, .. }));
    assert!(matches!(btf.kind(TypeId(bool_)), Kind::Int { bool: true, .. }));
    assert_eq!(btf.kind(TypeId(ptr)), Kind::Ptr(TypeId(chr)));
    assert_eq!(
        btf.kind(TypeId(arr)),
        Kind::Array { elem: TypeId(chr), index: TypeId(int), len: 16 }
    );
    assert_eq!(
        btf.kind(TypeId(st)),
        Kind::Struct {
            name: "pair".into(),
            size: 8,
            members: vec![
                Member { name: "a".into(), ty: TypeId(int), bit_offset: 0, bitfield_size: 0 },
                Member { name: "b".into(), ty: TypeId(int), bit_offset: 32, bitfield_size: 0 },
            ],
        }
    );
    assert!(
        matches!(btf.kind(TypeId(un)), Kind::Union { ref name, size: 4, ref members } if name == "either" && members.len() == 2)
    );
    assert_eq!(
        btf.kind(TypeId(en)),
        Kind::Enum {
            name: "state".into(),
            size: 4,
            signed: true,
            values: vec![("NEG".into(), -1), ("ONE".into(), 1)]
        }
    );
    assert_eq!(
        btf.kind(TypeId(e64)),
        Kind::Enum {
            name: "big".into(),
            size: 8,
            signed: false,
            values: vec![("HUGE".into(), -1), ("SMALL".into(), 2)]
        }
    );
    assert_eq!(btf.kind(TypeId(fwd)), Kind::Fwd { name: "opaque".into(), union: true });
    assert_eq!(btf.kind(TypeId(td)), Kind::Typedef { name: "pid_t".into(), ty: TypeId(int) });
    assert_eq!(btf.kind(TypeId(vol)), Kind::Volatile(TypeId(int)));
    assert_eq!(btf.kind(TypeId(cst)), Kind::Const(TypeId(chr)));
    assert_eq!(btf.kind(TypeId(rst)), Kind::Restrict(TypeId(ptr)));
    assert_eq!(
        btf.kind(TypeId(proto)),
        Kind::FuncProto {
            params: vec![Param { name: "x".into(), ty: TypeId(int) }],
            ret: TypeId(int),
            variadic: true
        }
    );
    assert_eq!(
        btf.kind(TypeId(func)),
        Kind::Func { name: "printk".into(), proto: TypeId(proto), linkage: Linkage::Global }
    );
    assert_eq!(
        btf.kind(TypeId(var)),
        Kind::Var { name: "jiffies".into(), ty: TypeId(int), linkage: Linkage::Global }
    );
    assert_eq!(
        btf.kind(TypeId(sec)),
        Kind::Datasec {
            name: ".data".into(),
            size: 64,
            vars: vec![SecVar { ty: TypeId(var), offset: 8, size: 4 }]
        }
    );
    assert_eq!(btf.kind(TypeId(flt)), Kind::Float { name: "double".into(), size: 8 });
    assert_eq!(
        btf.kind(TypeId(dtag)),
        Kind::DeclTag { name: "nonnull".into(), ty: TypeId(func), component: Some(0) }
    );
    assert_eq!(btf.kind(TypeId(ttag)), Kind::TypeTag { tag: "user".into(), ty: TypeId(cst) });
    // Past the last id reads as void rather than failing.
    assert_eq!(btf.kind(TypeId(ttag + 1)), Kind::Void);
    assert_eq!(btf.max_id(), TypeId(ttag));
}

#[test]
fn decl_tag_on_the_type_itself_has_no_component() {
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    let tag = b.decl_tag("t", int, -1);
    assert_eq!(
        load(&b).kind(TypeId(tag)),
        Kind::DeclTag { name: "t".into(), ty: TypeId(int), component: None }
    );
}

/// struct outer { int a; union { int b; struct { int c; int d; }; }; int e; } with the
/// anonymous union at byte 4 and the inner struct at byte 0 of it.
fn nested() -> (Btf, u32, u32) {
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    let inner = b.struct_("", 8, &[("c", int, 0), ("d", int, 32)]);
    let un = b.union_("", 8, &[("b", int, 0), ("", inner, 0)]);
    let outer = b.struct_("outer", 16, &[("a", int, 0), ("", un, 32), ("e", int, 96)]);
    let td = b.typedef("outer_t", outer);
    (load(&b), outer, td)
}

#[test]
fn members_of_anonymous_members_are_found_with_accumulated_offsets() {
    let (btf, outer, td) = nested();
    let int = TypeId(1);
    let at = |name| btf.member(TypeId(outer), name);
    assert_eq!(at("a"), Some(MemberAt { ty: int, bit_offset: 0, bitfield_size: 0 }));
    assert_eq!(at("b"), Some(MemberAt { ty: int, bit_offset: 32, bitfield_size: 0 }));
    assert_eq!(at("c"), Some(MemberAt { ty: int, bit_offset: 32, bitfield_size: 0 }));
    assert_eq!(at("d"), Some(MemberAt { ty: int, bit_offset: 64, bitfield_size: 0 }));
    assert_eq!(at("d").unwrap().byte_offset(), 8);
    assert_eq!(at("e"), Some(MemberAt { ty: int, bit_offset: 96, bitfield_size: 0 }));
    assert_eq!(at("nope"), None);
    assert_eq!(at(""), None);
    // Through a typedef, as `outer_t x; x.c` would.
    assert_eq!(btf.member(TypeId(td), "c"), at("c"));
    assert_eq!(btf.member_names(TypeId(outer)), ["a", "b", "c", "d", "e"]);
    // Not a struct: nothing.
    assert_eq!(btf.member(int, "a"), None);
    assert!(btf.member_names(int).is_empty());
}

#[test]
fn bitfields_with_kind_flag_pack_size_into_the_offset() {
    let mut b = Builder::new();
    let uint = b.int("unsigned int", 4, false);
    let s = b.composite(
        4,
        "flags",
        4,
        true,
        &[("lo", uint, 3 << 24), ("hi", uint, (5 << 24) | 3), ("whole", uint, 32)],
    );
    let btf = load(&b);
    assert_eq!(
        btf.member(TypeId(s), "lo"),
        Some(MemberAt { ty: TypeId(uint), bit_offset: 0, bitfield_size: 3 })
    );
    assert_eq!(
        btf.member(TypeId(s), "hi"),
        Some(MemberAt { ty: TypeId(uint), bit_offset: 3, bitfield_size: 5 })
    );
    assert_eq!(btf.member(TypeId(s), "whole").unwrap().bitfield_size, 0);
}

#[test]
fn bitfields_without_kind_flag_live_in_the_int_type() {
    let mut b = Builder::new();
    let uint = b.int("unsigned int", 4, false);
    // Old encoding: a 4-bit int at bit offset 2 within the member's storage unit.
    let nibble = b.int_enc("unsigned int", 4, 0, 2, 4);
    let s = b.struct_("old", 8, &[("n", nibble, 32), ("u", uint, 0)]);
    let btf = load(&b);
    assert_eq!(
        btf.member(TypeId(s), "n"),
        Some(MemberAt { ty: TypeId(nibble), bit_offset: 34, bitfield_size: 4 })
    );
    assert_eq!(btf.member(TypeId(s), "u").unwrap().bitfield_size, 0);
    let Kind::Struct { members, .. } = btf.kind(TypeId(s)) else { panic!() };
    assert_eq!((members[0].bit_offset, members[0].bitfield_size), (34, 4));
}

#[test]
fn enums_read_values_by_signedness() {
    let mut b = Builder::new();
    let u = b.enum32("u", 4, false, &[("MAX", u32::MAX)]);
    let s64 = b.enum64("s64", true, &[("MIN", i64::MIN as u64), ("M1", -1i64 as u64)]);
    let u64_ = b.enum64("u64", false, &[("BIG", 1 << 40)]);
    let btf = load(&b);
    let values = |id| match btf.kind(TypeId(id)) {
        Kind::Enum { values, .. } => values.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    assert_eq!(values(u), [u32::MAX as i64]);
    assert_eq!(values(s64), [i64::MIN, -1]);
    assert_eq!(values(u64_), [1 << 40]);
    assert_eq!(btf.find_named(NamedKind::Enum, "s64"), Some(TypeId(s64)));
    assert_eq!(btf.size_of(TypeId(s64)), Some(8));
}

#[test]
fn enumerators_are_found_by_name() {
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    b.struct_("TCP_CLOSE", 4, &[("x", int, 0)]);
    let tcp = b.enum32("", 4, false, &[("TCP_ESTABLISHED", 1), ("TCP_FIN_WAIT1", 4)]);
    let s64 = b.enum64("s64", true, &[("M1", -1i64 as u64)]);
    let btf = load(&b);
    assert_eq!(btf.enumerator("TCP_FIN_WAIT1"), Some((4, TypeId(tcp))));
    assert_eq!(btf.enumerator("M1"), Some((-1, TypeId(s64))));
    // A struct of that name is not an enumerator.
    assert_eq!(btf.enumerator("TCP_CLOSE"), None);
    assert_eq!(btf.enumerator("TCP_FIN"), None);
}

#[test]
fn find_func_resolves_the_prototype() {
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    let task = b.struct_("task_struct", 16, &[("pid", int, 0)]);
    let ptask = b.ptr(task);
    let p1 = b.func_proto(0, &[("p", ptask)]);
    let wake = b.func("wake_up_new_task", p1, 0);
    let p_void = b.func_proto(int, &[]);
    let getpid = b.func("getpid", p_void, 1);
    let p_var = b.func_proto(int, &[("fmt", ptask), ("", 0)]);
    let printk = b.func("_printk", p_var, 1);
    let btf = load(&b);

    assert_eq!(
        btf.find_func("wake_up_new_task"),
        Some(Func {
            name: "wake_up_new_task".into(),
            id: TypeId(wake),
            proto: TypeId(p1),
            params: vec![Param { name: "p".into(), ty: TypeId(ptask) }],
            ret: TypeId::VOID,
            variadic: false,
            linkage: Linkage::Static,
        })
    );
    let g = btf.find_func("getpid").unwrap();
    assert!(g.params.is_empty() && !g.variadic && g.ret == TypeId(int) && g.id == TypeId(getpid));
    let p = btf.find_func("_printk").unwrap();
    assert!(p.variadic && p.params.len() == 1 && p.id == TypeId(printk));
    // A struct is not a function, and prefixes/suffixes of names do not match.
    assert_eq!(btf.find_func("task_struct"), None);
    assert_eq!(btf.find_func("wake_up_new"), None);
    assert_eq!(btf.find_func("up_new_task"), None);
    assert_eq!(btf.find_func(""), None);
    assert_eq!(btf.func_count(), 3);
    let funcs: Vec<_> = btf.funcs().collect();
    assert_eq!(
        funcs,
        [
            ("wake_up_new_task", TypeId(wake)),
            ("getpid", TypeId(getpid)),
            ("_printk", TypeId(printk))
        ]
    );
}

#[test]
fn find_named_filters_by_kind_and_prefers_definitions() {
    let mut b = Builder::new();
    b.fwd("foo", false);
    let int = b.int("int", 4, true);
    let td = b.typedef("foo", int);
    let st = b.struct_("foo", 4, &[("x", int, 0)]);
    let un = b.union_("foo", 4, &[("x", int, 0)]);
    let flt = b.float("double", 8);
    let btf = load(&b);
    assert_eq!(btf.find_named(NamedKind::Struct, "foo"), Some(TypeId(st)));
    assert_eq!(btf.find_named(NamedKind::Union, "foo"), Some(TypeId(un)));
    assert_eq!(btf.find_named(NamedKind::Typedef, "foo"), Some(TypeId(td)));
    assert_eq!(btf.find_named(NamedKind::Any, "foo"), Some(TypeId(td)));
    assert_eq!(btf.find_named(NamedKind::Int, "int"), Some(TypeId(int)));
    assert_eq!(btf.find_named(NamedKind::Float, "double"), Some(TypeId(flt)));
    assert_eq!(btf.find_named(NamedKind::Enum, "foo"), None);
    assert_eq!(btf.find_named(NamedKind::Int, "foo"), None);

    let mut b = Builder::new();
    let only_fwd = b.fwd("bar", false);
    let btf = load(&b);
    assert_eq!(btf.find_named(NamedKind::Struct, "bar"), None);
    assert_eq!(btf.find_named(NamedKind::Any, "bar"), Some(TypeId(only_fwd)));
}

#[test]
fn a_name_stored_as_the_suffix_of_a_longer_string_is_found() {
    let mut b = Builder::new();
    let long = b.str("struct_task_struct");
    let int = b.int("int", 4, true);
    // name_off points into the middle of "struct_task_struct": the name is "task_struct".
    let x = b.str("x");
    let st = b.raw(long + 7, 4, 1, 0, 4, &[x, int, 0]);
    let btf = load(&b);
    assert_eq!(btf.find_named(NamedKind::Struct, "task_struct"), Some(TypeId(st)));
    assert_eq!(btf.name(TypeId(st)), "task_struct");
    assert_eq!(btf.find_named(NamedKind::Struct, "struct_task_struct"), None);
}

#[test]
fn strip_and_size_of_follow_chains() {
    let mut b = Builder::new();
    let chr = b.int("char", 1, false);
    let int = b.int("int", 4, true);
    let pid = b.typedef("pid_t", int);
    let cpid = b.const_(pid);
    let vcpid = b.volatile(cpid);
    let tag = b.type_tag("rcu", vcpid);
    let arr = b.array(chr, int, 16);
    let arr2 = b.array(arr, int, 3);
    let ptr = b.ptr(arr2);
    let fwd = b.fwd("opaque", false);
    let huge = b.array(arr2, int, u32::MAX);
    let huger = b.array(huge, int, u32::MAX);
    let proto = b.func_proto(int, &[]);
    let btf = load(&b);
    assert_eq!(btf.strip(TypeId(tag)), TypeId(int));
    assert_eq!(btf.strip(TypeId(int)), TypeId(int));
    assert_eq!(btf.strip(TypeId::VOID), TypeId::VOID);
    assert_eq!(btf.size_of(TypeId(tag)), Some(4));
    assert_eq!(btf.size_of(TypeId(arr)), Some(16));
    assert_eq!(btf.size_of(TypeId(arr2)), Some(48));
    assert_eq!(btf.size_of(TypeId(ptr)), Some(8));
    assert_eq!(btf.size_of(TypeId(fwd)), None);
    assert_eq!(btf.size_of(TypeId::VOID), None);
    assert_eq!(btf.size_of(TypeId(proto)), None);
    assert_eq!(btf.size_of(TypeId(huge)), Some(48 * u32::MAX as usize));
    assert_eq!(btf.size_of(TypeId(huger)), None, "overflow is None, not a wrap");
}

#[test]
fn cycles_terminate() {
    let mut b = Builder::new();
    // Type 1 is a typedef of itself; type 2 a pointer to itself; 3 a struct holding itself anonymously.
    let loop_td = b.typedef("loop", 1);
    let loop_ptr = b.ptr(2);
    let loop_st = b.struct_("s", 4, &[("", 3, 0), ("", 3, 0)]);
    let btf = load(&b);
    assert_eq!(btf.strip(TypeId(loop_td)), TypeId(loop_td));
    assert_eq!(btf.size_of(TypeId(loop_td)), None);
    assert_eq!(btf.size_of(TypeId(loop_ptr)), Some(8));
    assert!(btf.type_name(TypeId(loop_ptr)).contains('*'));
    assert_eq!(btf.member(TypeId(loop_st), "x"), None);
    assert!(btf.member_names(TypeId(loop_st)).is_empty());
}

#[test]
fn type_names_read_as_c() {
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    let chr = b.int("char", 1, false);
    let task = b.struct_("task_struct", 8, &[("pid", int, 0)]);
    let ptask = b.ptr(task);
    let cchr = b.const_(chr);
    let pcchr = b.ptr(cchr);
    let comm = b.array(chr, int, 16);
    let pcomm = b.ptr(comm);
    let proto = b.func_proto(int, &[]);
    let fptr = b.ptr(proto);
    let pchr = b.ptr(chr);
    let cpchr = b.const_(pchr);
    let user = b.type_tag("user", cchr);
    let puser = b.ptr(user);
    let anon = b.union_("", 4, &[("i", int, 0)]);
    let panon = b.ptr(anon);
    let u32_ = b.typedef("u32", int);
    let en = b.enum32("e", 4, false, &[]);
    let fwd = b.fwd("sock", false);
    let pptask = b.ptr(ptask);
    let ptrs = b.array(pchr, int, 4);
    let vproto = b.func_proto(0, &[("a", ptask), ("", 0)]);
    let func = b.func("wake_up_new_task", vproto, 0);
    let flt = b.float("double", 8);
    let vol = b.volatile(int);
    let btf = load(&b);
    let name = |id| btf.type_name(TypeId(id));
    assert_eq!(name(ptask), "struct task_struct *");
    assert_eq!(name(pcchr), "const char *");
    assert_eq!(name(comm), "char[16]");
    assert_eq!(name(pcomm), "char (*)[16]");
    assert_eq!(name(fptr), "int (*)(void)");
    assert_eq!(name(cpchr), "char *const");
    assert_eq!(name(puser), "const char __user *");
    assert_eq!(name(panon), "union {...} *");
    assert_eq!(name(u32_), "u32");
    assert_eq!(name(en), "enum e");
    assert_eq!(name(fwd), "struct sock");
    assert_eq!(name(pptask), "struct task_struct **");
    assert_eq!(name(ptrs), "char *[4]");
    assert_eq!(name(vproto), "void(struct task_struct *, ...)");
    assert_eq!(name(func), "void wake_up_new_task(struct task_struct *, ...)");
    assert_eq!(name(flt), "double");
    assert_eq!(name(vol), "volatile int");
    assert_eq!(btf.type_name(TypeId::VOID), "void");
}

#[test]
fn split_btf_numbers_ids_after_the_base() {
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    let task = b.struct_("task_struct", 4, &[("pid", int, 0)]);
    let base_proto = b.func_proto(int, &[]);
    let base_func = b.func("schedule", base_proto, 1);
    let base = load(&b);
    assert!(!base.is_split());
    assert_eq!(base.first_id(), TypeId(1));

    let mut m = Builder::split(base.max_id().0, b.str_len());
    let ptask = m.ptr(task);
    let s = m.struct_("mod_state", 16, &[("owner", ptask, 0), ("count", int, 64)]);
    let ps = m.ptr(s);
    let proto = m.func_proto(int, &[("st", ps)]);
    let mod_func = m.func("mod_open", proto, 0);
    let modbtf = Btf::from_split_bytes(m.build(), &base).unwrap();
    assert!(modbtf.is_split());
    assert_eq!(ptask, base.max_id().0 + 1);
    assert_eq!(modbtf.first_id(), TypeId(ptask));
    assert_eq!(modbtf.max_id(), TypeId(mod_func));
    assert_eq!(modbtf.find_func("mod_open").unwrap().params[0].ty, TypeId(ps));
    assert_eq!(modbtf.type_name(TypeId(mod_func)), "int mod_open(struct mod_state *)");
    // Split types refer to base types; both resolve through the split view.
    assert_eq!(modbtf.type_name(TypeId(ptask)), "struct task_struct *");
    assert_eq!(
        modbtf.member(TypeId(s), "count"),
        Some(MemberAt { ty: TypeId(int), bit_offset: 64, bitfield_size: 0 })
    );
    assert_eq!(modbtf.find_named(NamedKind::Struct, "mod_state"), Some(TypeId(s)));
    assert_eq!(modbtf.find_named(NamedKind::Struct, "task_struct"), Some(TypeId(task)));
    assert_eq!(modbtf.kind(TypeId(int)), base.kind(TypeId(int)));
    // The base knows nothing of the module.
    assert_eq!(base.find_named(NamedKind::Struct, "mod_state"), None);
    assert_eq!(base.kind(TypeId(s)), Kind::Void);
    // Stacking on split BTF is refused.
    assert!(matches!(
        Btf::from_split_bytes(Builder::split(modbtf.max_id().0, 0).build(), &modbtf),
        Err(BtfError::BaseIsSplit)
    ));
    // Base functions first; the module's own are those from first_id() on.
    assert_eq!(
        modbtf.funcs().collect::<Vec<_>>(),
        [("schedule", TypeId(base_func)), ("mod_open", TypeId(mod_func))]
    );
    assert_eq!(modbtf.funcs().filter(|&(_, id)| id >= modbtf.first_id()).count(), 1);
}

#[test]
fn split_btf_names_may_live_in_either_string_section() {
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    let shared = b.str("module_fn");
    let base = load(&b);
    let mut m = Builder::split(base.max_id().0, b.str_len());
    let proto = m.func_proto(int, &[]);
    // One FUNC named via a base string, one via its own.
    let f1 = m.raw(shared, 12, 0, 0, proto, &[]);
    let f2 = m.func("own_fn", proto, 0);
    let modbtf = Btf::from_split_bytes(m.build(), &base).unwrap();
    assert_eq!(modbtf.find_func("module_fn").map(|f| f.id), Some(TypeId(f1)));
    assert_eq!(modbtf.find_func("own_fn").map(|f| f.id), Some(TypeId(f2)));
    assert_eq!(modbtf.func_count(), 2);
}

#[test]
fn malformed_input_is_an_error() {
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    b.struct_("s", 4, &[("x", int, 0)]);
    let good = b.build();

    let err = |bytes: Vec<u8>| Btf::from_bytes(bytes).unwrap_err();
    assert!(matches!(err(vec![]), BtfError::Truncated { .. }));
    assert!(matches!(
        err(b"\x7fELF\x02\x01\x01\x00".to_vec()),
        BtfError::BadMagic { found: 0x457f }
    ));
    let mut v2 = good.clone();
    v2[2] = 2;
    assert!(matches!(err(v2), BtfError::UnsupportedVersion(2)));
    assert!(matches!(err(good[..20].to_vec()), BtfError::Truncated { what: "header" }));
    // Cutting the string section off makes its section run past the end.
    assert!(matches!(
        err(good[..good.len() - 1].to_vec()),
        BtfError::Truncated { what: "string section" }
    ));
    // A type section ending mid-record.
    let mut short = good.clone();
    let type_len = u32::from_le_bytes(short[12..16].try_into().unwrap());
    short[12..16].copy_from_slice(&(type_len - 4).to_le_bytes());
    assert!(matches!(err(short), BtfError::Truncated { what: "type section" }));
    // A kind from the future.
    let mut future = Builder::new();
    future.raw(0, 25, 0, 0, 0, &[]);
    assert!(matches!(err(future.build()), BtfError::UnknownKind { id: 1, kind: 25 }));
    // Header length below the minimum.
    let mut small_hdr = good.clone();
    small_hdr[4..8].copy_from_slice(&8u32.to_le_bytes());
    assert!(matches!(err(small_hdr), BtfError::Malformed(_)));
}

#[test]
fn errors_read_as_sentences() {
    let e = BtfError::NoKernelBtf { path: Btf::VMLINUX_PATH.into() };
    assert_eq!(
        e.to_string(),
        "this kernel has no BTF (/sys/kernel/btf/vmlinux is missing): kernel types are unavailable; integer arguments still work"
    );
    assert_eq!(
        BtfError::BadMagic { found: 0x457f }.to_string(),
        "this is not BTF data: it starts with 0x457f, but BTF starts with 0xeb9f"
    );
    assert_eq!(
        BtfError::Truncated { what: "type section" }.to_string(),
        "the BTF data is truncated: its type section runs past the end of the data"
    );
}

#[test]
fn module_names_cannot_escape_sysfs() {
    let base = load(&Builder::new());
    for name in ["", "..", "../../etc/passwd", "."] {
        assert!(
            matches!(Btf::load_module(name, &base), Err(BtfError::NoModuleBtf { .. })),
            "{name}"
        );
    }
    assert!(matches!(
        Btf::load_module("surely_no_such_module_xyz", &base),
        Err(BtfError::NoModuleBtf { .. })
    ));
}

#[test]
fn an_empty_blob_has_only_void() {
    let btf = load(&Builder::new());
    assert_eq!(btf.max_id(), TypeId(0));
    assert_eq!(btf.func_count(), 0);
    assert_eq!(btf.find_named(NamedKind::Any, "int"), None);
}

#[test]
fn typedefs_with_a_prefix_in_one_pass() {
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    let ptr = b.ptr(int);
    let sched = b.typedef("btf_trace_sched_switch", ptr);
    b.struct_("btf_trace_not_a_typedef", 4, &[("a", int, 0)]);
    let irq = b.typedef("btf_trace_irq_handler_entry", ptr);
    b.typedef("pid_t", int);
    let btf = load(&b);
    assert_eq!(
        btf.typedefs_with_prefix("btf_trace_"),
        [
            ("btf_trace_sched_switch".to_string(), TypeId(sched)),
            ("btf_trace_irq_handler_entry".to_string(), TypeId(irq))
        ]
    );
    assert!(btf.typedefs_with_prefix("nothing_").is_empty());
}

#[test]
fn definitions_read_as_c() {
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    let chr = b.int_enc("char", 1, 0, 0, 8);
    let uint = b.int("unsigned int", 4, false);
    let arr = b.array(chr, int, 16);
    let ptr = b.ptr(chr);
    let inner = b.union_("", 4, &[("i", int, 0), ("c", chr, 0)]);
    let st = b.struct_(
        "task",
        32,
        &[("pid", int, 0), ("comm", arr, 32), ("", inner, 160), ("name", ptr, 192)],
    );
    // kind_flag: each offset word is (bitfield size << 24) | bit offset.
    let bits =
        b.composite(4, "flags", 4, true, &[("on", uint, 1 << 24), ("mode", uint, (3 << 24) | 1)]);
    let en = b.enum32("state", 4, true, &[("NEG", -1i32 as u32), ("ONE", 1)]);
    let btf = load(&b);
    assert_eq!(
        btf.definition(TypeId(st)).unwrap(),
        "struct task {\n\tint pid;\n\tchar comm[16];\n\tunion {\n\t\tint i;\n\t\tchar c;\n\t};\n\tchar *name;\n};"
    );
    assert_eq!(
        btf.definition(TypeId(bits)).unwrap(),
        "struct flags {\n\tunsigned int on: 1;\n\tunsigned int mode: 3;\n};"
    );
    assert_eq!(btf.definition(TypeId(en)).unwrap(), "enum state {\n\tNEG = -1,\n\tONE = 1,\n};");
    assert_eq!(btf.definition(TypeId(int)), None);
}
