//! Checks against the running kernel's BTF. Skipped (with a note) where the kernel has none.

use std::sync::OnceLock;

use sonde_btf::{Btf, Kind, NamedKind, TypeId};

fn vmlinux() -> Option<&'static Btf> {
    static BTF: OnceLock<Option<Btf>> = OnceLock::new();
    BTF.get_or_init(|| {
        if !std::path::Path::new(Btf::VMLINUX_PATH).exists() {
            eprintln!(
                "note: {} is missing: skipping the tests against kernel BTF",
                Btf::VMLINUX_PATH
            );
            return None;
        }
        Some(Btf::load_vmlinux().expect("the kernel's BTF loads"))
    })
    .as_ref()
}

fn task_struct(btf: &Btf) -> TypeId {
    btf.find_named(NamedKind::Struct, "task_struct").expect("struct task_struct")
}

#[test]
fn task_struct_pid_is_a_typedefd_signed_int() {
    let Some(btf) = vmlinux() else { return };
    let pid = btf.member(task_struct(btf), "pid").expect("task_struct.pid");
    assert_eq!(pid.bitfield_size, 0);
    assert_eq!(btf.type_name(pid.ty), "pid_t");
    assert!(matches!(btf.kind(pid.ty), Kind::Typedef { ref name, .. } if name == "pid_t"));
    assert!(matches!(btf.kind(btf.strip(pid.ty)), Kind::Int { size: 4, signed: true, .. }));
    assert_eq!(btf.size_of(pid.ty), Some(4));
    assert_eq!(btf.find_named(NamedKind::Typedef, "pid_t"), Some(pid.ty));
}

#[test]
fn task_struct_comm_is_char_16() {
    let Some(btf) = vmlinux() else { return };
    let task = task_struct(btf);
    let comm = btf.member(task, "comm").expect("task_struct.comm");
    let Kind::Array { elem, len, .. } = btf.kind(btf.strip(comm.ty)) else {
        panic!("comm is {:?}", btf.kind(comm.ty))
    };
    assert_eq!(len, 16);
    assert!(
        matches!(btf.kind(btf.strip(elem)), Kind::Int { ref name, size: 1, .. } if name == "char")
    );
    assert_eq!(btf.type_name(comm.ty), "char[16]");
    assert_eq!(btf.size_of(comm.ty), Some(16));
    assert!(
        comm.bit_offset % 8 == 0
            && (comm.bit_offset / 8) as usize + 16 <= btf.size_of(task).unwrap()
    );
    assert!(btf.member_names(task).iter().any(|n| n == "comm"));
}

#[test]
fn wake_up_new_task_takes_a_task_pointer() {
    let Some(btf) = vmlinux() else { return };
    let f = btf.find_func("wake_up_new_task").expect("wake_up_new_task");
    assert_eq!(f.params.len(), 1);
    assert_eq!(f.params[0].name, "p");
    assert_eq!(btf.kind(f.params[0].ty), Kind::Ptr(task_struct(btf)));
    assert_eq!(btf.type_name(f.params[0].ty), "struct task_struct *");
    assert!(f.ret.is_void());
    assert!(matches!(btf.kind(f.id), Kind::Func { ref name, .. } if name == "wake_up_new_task"));
    assert!(btf.funcs().any(|(name, id)| name == "wake_up_new_task" && id == f.id));
}

#[test]
fn do_sys_openat2_takes_dfd_filename_how() {
    let Some(btf) = vmlinux() else { return };
    let f = btf.find_func("do_sys_openat2").expect("do_sys_openat2");
    let names: Vec<_> = f.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["dfd", "filename", "how"]);
    // `long` before Linux 6.x's change to `int`: either way a signed integer.
    assert!(
        matches!(btf.kind(btf.strip(f.ret)), Kind::Int { signed: true, size: 4 | 8, .. }),
        "{}",
        btf.type_name(f.ret)
    );
    let filename = btf.type_name(f.params[1].ty);
    assert!(filename == "const char *" || filename == "const char __user *", "{filename}");
    assert_eq!(btf.type_name(f.params[2].ty), "struct open_how *");
}

#[test]
fn mm_users_is_found_inside_mm_structs_anonymous_struct() {
    let Some(btf) = vmlinux() else { return };
    let mm = btf.find_named(NamedKind::Struct, "mm_struct").expect("struct mm_struct");
    let size = btf.size_of(mm).unwrap();
    let users = btf.member(mm, "mm_users").expect("mm_struct.mm_users");
    assert!(
        users.bit_offset % 8 == 0 && (users.byte_offset() as usize) + 4 <= size,
        "{users:?} in {size} bytes"
    );
    assert_eq!(btf.type_name(users.ty), "atomic_t");
    assert_eq!(btf.size_of(users.ty), Some(4));
    let counter = btf.member(users.ty, "counter").expect("atomic_t.counter");
    assert_eq!(counter.bit_offset, 0);
    assert!(btf.member_names(mm).iter().any(|n| n == "mm_users"));
    // task_struct.mm leads there.
    let mm_ptr = btf.member(task_struct(btf), "mm").unwrap();
    assert_eq!(btf.kind(mm_ptr.ty), Kind::Ptr(mm));
}

#[test]
fn task_struct_has_bitfields() {
    let Some(btf) = vmlinux() else { return };
    let task = task_struct(btf);
    let bitfields: Vec<_> = btf
        .member_names(task)
        .into_iter()
        .filter_map(|n| Some((btf.member(task, &n)?, n)))
        .filter(|(m, _)| m.bitfield_size > 0)
        .collect();
    assert!(!bitfields.is_empty(), "task_struct has sched_reset_on_fork:1 and friends");
    for (m, name) in &bitfields {
        assert!(m.bitfield_size < 32, "{name}: {m:?}");
    }
    if let Some(m) = btf.member(task, "in_execve") {
        assert_eq!(m.bitfield_size, 1);
    }
}

#[test]
fn casts_find_common_names() {
    let Some(btf) = vmlinux() else { return };
    let u64_ = btf.find_named(NamedKind::Typedef, "u64").expect("u64");
    assert!(matches!(btf.kind(btf.strip(u64_)), Kind::Int { size: 8, signed: false, .. }));
    assert!(btf.find_named(NamedKind::Int, "int").is_some());
    assert!(btf.find_named(NamedKind::Int, "char").is_some());
    assert!(btf.find_named(NamedKind::Struct, "no_such_struct_anywhere").is_none());
    assert!(btf.find_func("no_such_function_anywhere").is_none());
    assert!(btf.func_count() > 10_000);
    assert_eq!(btf.funcs().count(), btf.func_count());
}

#[test]
fn every_type_decodes_and_names() {
    let Some(btf) = vmlinux() else { return };
    for id in 1..=btf.max_id().0 {
        let id = TypeId(id);
        let name = btf.type_name(id);
        assert!(!name.contains('?'), "type {id} reads as {name}");
        let _ = btf.kind(id);
    }
}

#[test]
fn a_read_copy_indexes_like_the_mapping() {
    let Some(btf) = vmlinux() else { return };
    let copy = Btf::load_file(Btf::VMLINUX_PATH).unwrap();
    assert_eq!(copy.max_id(), btf.max_id());
    assert_eq!(copy.find_func("wake_up_new_task"), btf.find_func("wake_up_new_task"));
}
