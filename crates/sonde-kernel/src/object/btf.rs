//! Kernel functions in BTF, for fentry/fexit: a FUNC's type id in vmlinux or in a module's split
//! BTF (read with `sonde-btf`, the one BTF reader), and for a module the BTF object fd the program
//! load needs (`attach_btf_obj_fd`).

use crate::error::{KernelError, Result};
use crate::sys::{self, cmd, BtfInfo, IdAttr, InfoAttr};
use sonde_btf::{Btf, BtfError};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::path::Path;
use std::sync::OnceLock;

const BTF_DIR: &str = "/sys/kernel/btf";

/// Kernel BTF, needed for tp_btf/fentry programs and typed struct access.
pub fn vmlinux_available() -> bool {
    Path::new(Btf::VMLINUX_PATH).is_file()
}

/// vmlinux's BTF, indexed once per process.
fn vmlinux() -> Result<&'static Btf> {
    static CELL: OnceLock<Btf> = OnceLock::new();
    if let Some(b) = CELL.get() {
        return Ok(b);
    }
    let btf = Btf::load_vmlinux().map_err(|e| match e {
        BtfError::NoKernelBtf { .. } => KernelError::NoBtf,
        e => KernelError::Btf(e),
    })?;
    Ok(CELL.get_or_init(|| btf))
}

/// The id of the FUNC `name` in `btf` (for split BTF, in the module's own part or its base).
fn func_id(btf: &Btf, name: &str) -> Option<u32> {
    btf.find_func(name).map(|f| f.id.0)
}

/// A kernel function found in BTF: what [`crate::object::prog::ProgSpec::fentry`] and
/// [`crate::object::prog::LoadOptions`] need.
#[derive(Debug)]
pub struct BtfFunc {
    pub name: String,
    pub btf_id: u32,
    /// The module the function lives in; None for vmlinux.
    pub module: Option<String>,
    obj_fd: Option<OwnedFd>,
}

impl BtfFunc {
    /// The module's BTF object, to pass as `attach_btf_obj_fd`; None for vmlinux functions.
    pub fn obj_fd(&self) -> Option<BorrowedFd<'_>> {
        self.obj_fd.as_ref().map(|f| f.as_fd())
    }
}

/// Find the kernel function `name`: in vmlinux, else in the first module whose BTF has it.
pub fn find_func(name: &str) -> Result<BtfFunc> {
    if let Some(btf_id) = func_id(vmlinux()?, name) {
        return Ok(BtfFunc { name: name.into(), btf_id, module: None, obj_fd: None });
    }
    let mut modules: Vec<String> = std::fs::read_dir(BTF_DIR)
        .map_err(KernelError::io(BTF_DIR))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|m| m != "vmlinux")
        .collect();
    modules.sort();
    for m in modules {
        // A module unloaded under us, or a blob we cannot read, just does not have the function.
        if let Ok(f) = find_func_in(&m, name) {
            return Ok(f);
        }
    }
    Err(KernelError::NoBtfFunction { name: name.into() })
}

/// Find `name` in `module`'s BTF ("vmlinux" for the kernel itself), with the module's BTF fd.
pub fn find_func_in(module: &str, name: &str) -> Result<BtfFunc> {
    if module == "vmlinux" {
        let btf_id = func_id(vmlinux()?, name)
            .ok_or_else(|| KernelError::NoBtfFunction { name: name.into() })?;
        return Ok(BtfFunc { name: name.into(), btf_id, module: None, obj_fd: None });
    }
    let btf = Btf::load_module(module, vmlinux()?).map_err(KernelError::Btf)?;
    let btf_id = func_id(&btf, name)
        .ok_or_else(|| KernelError::NoBtfFunction { name: format!("{module}:{name}") })?;
    let fd = kernel_btf_fd(module)?
        .ok_or_else(|| KernelError::NoBtfFunction { name: format!("{module}:{name}") })?;
    Ok(BtfFunc { name: name.into(), btf_id, module: Some(module.into()), obj_fd: Some(fd) })
}

/// An fd for the kernel's BTF object named `name` ("vmlinux" or a module), by walking the loaded
/// BTF objects (BPF_BTF_GET_NEXT_ID). None if no kernel BTF has that name.
pub fn kernel_btf_fd(name: &str) -> Result<Option<OwnedFd>> {
    // Before 5.11 the kernel's BTF has no id, modules have none, and `bpf_btf_info` has no name.
    if crate::sys::version::running().is_some_and(|v| v < (5, 11)) {
        return Ok(None);
    }
    let mut attr = IdAttr::default();
    loop {
        match sys::bpf(cmd::BTF_GET_NEXT_ID, &mut attr) {
            Ok(_) => {}
            Err(libc::ENOENT) => return Ok(None),
            Err(e) => {
                return Err(KernelError::Syscall { op: "bpf(BPF_BTF_GET_NEXT_ID)", errno: e })
            }
        }
        attr.id = attr.next_id;
        let mut by_id = IdAttr { id: attr.id, ..Default::default() };
        let fd = match sys::bpf_fd(cmd::BTF_GET_FD_BY_ID, &mut by_id) {
            Ok(fd) => fd,
            Err(libc::ENOENT) => continue, // freed meanwhile
            Err(e) => {
                return Err(KernelError::Syscall { op: "bpf(BPF_BTF_GET_FD_BY_ID)", errno: e })
            }
        };
        let mut buf = [0u8; 64];
        let mut info = BtfInfo {
            name: sys::addr_mut(&mut buf),
            name_len: buf.len() as u32,
            ..Default::default()
        };
        let mut iattr = InfoAttr {
            bpf_fd: fd.as_raw_fd() as u32,
            info_len: std::mem::size_of::<BtfInfo>() as u32,
            info: sys::addr_btf_info(&mut info),
        };
        sys::bpf(cmd::OBJ_GET_INFO_BY_FD, &mut iattr)
            .map_err(KernelError::sys("bpf(BPF_OBJ_GET_INFO_BY_FD)"))?;
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        if info.kernel_btf != 0 && &buf[..end] == name.as_bytes() {
            return Ok(Some(fd));
        }
    }
}
