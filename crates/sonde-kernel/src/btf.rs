//! Kernel functions in BTF, for fentry/fexit: a FUNC's type id in vmlinux or in a module's split
//! BTF, and for a module the BTF object fd the program load needs (`attach_btf_obj_fd`).
//!
//! Only what attaching needs is parsed: the header, each type's size (to step over it) and the
//! names of FUNCs. Typed access to arguments is the compiler's business.

use crate::error::{KernelError, Result};
use crate::sys::{self, cmd, BtfInfo, IdAttr, InfoAttr};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::sync::OnceLock;

const VMLINUX: &str = "/sys/kernel/btf/vmlinux";
const BTF_DIR: &str = "/sys/kernel/btf";
const MAGIC: u16 = 0xeb9f;
const KIND_FUNC: u32 = 12;

/// One BTF blob's FUNCs: (name offset, type id) pairs and the strings to read names from.
#[derive(Debug)]
pub struct Btf {
    funcs: Vec<(u32, u32)>,
    /// Types in this blob (ids `first_id..first_id + count`).
    count: u32,
    /// The string section (for split BTF, its own part only).
    strings: Vec<u8>,
    /// Split BTF: the base's string section, which offsets below its length refer to.
    base_strings: Option<&'static [u8]>,
}

impl Btf {
    /// vmlinux's BTF, parsed once per process (about 10 ms for 6 MB).
    pub fn vmlinux() -> Result<&'static Btf> {
        static CELL: OnceLock<Btf> = OnceLock::new();
        if let Some(b) = CELL.get() {
            return Ok(b);
        }
        let data = std::fs::read(VMLINUX).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => KernelError::NoBtf,
            _ => KernelError::Io {
                path: VMLINUX.into(),
                source: e,
            },
        })?;
        let btf = parse(&data, 1, None).ok_or_else(|| bad(VMLINUX))?;
        Ok(CELL.get_or_init(|| btf))
    }

    /// A module's split BTF (`/sys/kernel/btf/<module>`), numbered after vmlinux's.
    pub fn module(module: &str) -> Result<Btf> {
        let base = Btf::vmlinux()?;
        if module.is_empty() || module.contains('/') || module.starts_with('.') {
            return Err(KernelError::Parse {
                path: BTF_DIR.into(),
                text: module.into(),
            });
        }
        let path = format!("{BTF_DIR}/{module}");
        let data = std::fs::read(&path).map_err(KernelError::io(&path))?;
        parse(&data, base.count + 1, Some(&base.strings)).ok_or_else(|| bad(&path))
    }

    /// The type id of the FUNC `name` (a linear scan: under 3 ms over vmlinux's ~56k functions).
    pub fn func_id(&self, name: &str) -> Option<u32> {
        self.funcs().find(|&(n, _)| n == name).map(|(_, id)| id)
    }

    /// Every FUNC name with its id, in BTF order.
    pub fn funcs(&self) -> impl Iterator<Item = (&str, u32)> {
        self.funcs
            .iter()
            .filter_map(|&(off, id)| Some((self.name(off as usize)?, id)))
    }

    fn name(&self, off: usize) -> Option<&str> {
        let (s, off) = match self.base_strings {
            Some(b) if off < b.len() => (b, off),
            Some(b) => (&self.strings[..], off - b.len()),
            None => (&self.strings[..], off),
        };
        let tail = s.get(off..)?;
        let end = tail.iter().position(|&b| b == 0)?;
        std::str::from_utf8(&tail[..end]).ok()
    }
}

/// A kernel function found in BTF: what [`crate::prog::ProgSpec::fentry`] and
/// [`crate::prog::LoadOptions`] need.
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
    if let Some(btf_id) = Btf::vmlinux()?.func_id(name) {
        return Ok(BtfFunc {
            name: name.into(),
            btf_id,
            module: None,
            obj_fd: None,
        });
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
        let Ok(btf) = Btf::module(&m) else { continue };
        if let Some(btf_id) = btf.func_id(name) {
            return find_func_in(&m, name).map(|f| BtfFunc { btf_id, ..f });
        }
    }
    Err(KernelError::NoBtfFunction { name: name.into() })
}

/// Find `name` in `module`'s BTF ("vmlinux" for the kernel itself), with the module's BTF fd.
pub fn find_func_in(module: &str, name: &str) -> Result<BtfFunc> {
    if module == "vmlinux" {
        let btf_id = Btf::vmlinux()?
            .func_id(name)
            .ok_or_else(|| KernelError::NoBtfFunction { name: name.into() })?;
        return Ok(BtfFunc {
            name: name.into(),
            btf_id,
            module: None,
            obj_fd: None,
        });
    }
    let btf_id = Btf::module(module)?
        .func_id(name)
        .ok_or_else(|| KernelError::NoBtfFunction {
            name: format!("{module}:{name}"),
        })?;
    let fd = kernel_btf_fd(module)?.ok_or_else(|| KernelError::NoBtfFunction {
        name: format!("{module}:{name}"),
    })?;
    Ok(BtfFunc {
        name: name.into(),
        btf_id,
        module: Some(module.into()),
        obj_fd: Some(fd),
    })
}

/// An fd for the kernel's BTF object named `name` ("vmlinux" or a module), by walking the loaded
/// BTF objects (BPF_BTF_GET_NEXT_ID). None if no kernel BTF has that name.
pub fn kernel_btf_fd(name: &str) -> Result<Option<OwnedFd>> {
    // Before 5.11 the kernel's BTF has no id, modules have none, and `bpf_btf_info` has no name.
    if crate::version::running().is_some_and(|v| v < (5, 11)) {
        return Ok(None);
    }
    let mut attr = IdAttr::default();
    loop {
        match sys::bpf(cmd::BTF_GET_NEXT_ID, &mut attr) {
            Ok(_) => {}
            Err(libc::ENOENT) => return Ok(None),
            Err(e) => {
                return Err(KernelError::Syscall {
                    op: "bpf(BPF_BTF_GET_NEXT_ID)",
                    errno: e,
                })
            }
        }
        attr.id = attr.next_id;
        let mut by_id = IdAttr {
            id: attr.id,
            ..Default::default()
        };
        let fd = match sys::bpf_fd(cmd::BTF_GET_FD_BY_ID, &mut by_id) {
            Ok(fd) => fd,
            Err(libc::ENOENT) => continue, // freed meanwhile
            Err(e) => {
                return Err(KernelError::Syscall {
                    op: "bpf(BPF_BTF_GET_FD_BY_ID)",
                    errno: e,
                })
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

fn bad(path: &str) -> KernelError {
    KernelError::Parse {
        path: path.into(),
        text: "(BTF header or type section)".into(),
    }
}

fn u32_at(d: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(d.get(at..at + 4)?.try_into().ok()?))
}

/// Parse a (little-endian, native) BTF blob whose first type has id `first_id`. For split BTF,
/// `base_strings` is the base's string section, which string offsets below its length refer to.
fn parse(data: &[u8], first_id: u32, base_strings: Option<&'static [u8]>) -> Option<Btf> {
    if u16::from_le_bytes(data.get(0..2)?.try_into().ok()?) != MAGIC {
        return None;
    }
    let hdr_len = u32_at(data, 4)? as usize;
    let type_off = u32_at(data, 8)? as usize;
    let type_len = u32_at(data, 12)? as usize;
    let str_off = u32_at(data, 16)? as usize;
    let str_len = u32_at(data, 20)? as usize;
    let types = data.get(hdr_len + type_off..hdr_len + type_off + type_len)?;
    let strings = data.get(hdr_len + str_off..hdr_len + str_off + str_len)?;
    let mut funcs = Vec::new();
    let mut at = 0;
    let mut id = first_id;
    while at < types.len() {
        let name_off = u32_at(types, at)? as usize;
        let info = u32_at(types, at + 4)?;
        let vlen = (info & 0xffff) as usize;
        let kind = (info >> 24) & 0x1f;
        let extra = match kind {
            1 | 14 | 17 => 4,          // INT, VAR, DECL_TAG
            3 => 12,                   // ARRAY
            4 | 5 => 12 * vlen,        // STRUCT, UNION
            6 | 13 => 8 * vlen,        // ENUM, FUNC_PROTO
            15 | 19 => 12 * vlen,      // DATASEC, ENUM64
            2 | 7..=12 | 16 | 18 => 0, // PTR, FWD, TYPEDEF, qualifiers, FUNC, FLOAT, TYPE_TAG
            _ => return None,          // a kind newer than this parser: cannot step over it
        };
        if kind == KIND_FUNC {
            funcs.push((name_off as u32, id));
        }
        at += 12 + extra;
        id += 1;
    }
    Some(Btf {
        funcs,
        count: id - first_id,
        strings: strings.to_vec(),
        base_strings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-made blob: INT "int", FUNC_PROTO, FUNC "f" -> ids 1, 2, 3.
    fn blob() -> Vec<u8> {
        let strings = b"\0int\0f\0".to_vec();
        let mut types = Vec::new();
        let mut t = |name: u32, info: u32, sz: u32, extra: &[u8]| {
            types.extend(name.to_le_bytes());
            types.extend(info.to_le_bytes());
            types.extend(sz.to_le_bytes());
            types.extend(extra);
        };
        t(1, 1 << 24, 4, &[0, 0, 0, 32]);
        t(0, (13 << 24) | 1, 1, &[0; 8]);
        t(5, 12 << 24, 2, &[]);
        let mut d = Vec::new();
        d.extend(MAGIC.to_le_bytes());
        d.extend([1, 0]);
        d.extend(24u32.to_le_bytes());
        d.extend(0u32.to_le_bytes());
        d.extend((types.len() as u32).to_le_bytes());
        d.extend((types.len() as u32).to_le_bytes());
        d.extend((strings.len() as u32).to_le_bytes());
        d.extend(types);
        d.extend(strings);
        d
    }

    #[test]
    fn funcs_are_found_by_name_with_their_ids() {
        let b = parse(&blob(), 1, None).unwrap();
        assert_eq!(b.count, 3);
        assert_eq!(b.func_id("f"), Some(3));
        assert_eq!(b.func_id("int"), None);
    }

    #[test]
    fn split_btf_numbers_after_its_base_and_reads_base_strings() {
        let base: &'static Btf = Box::leak(Box::new(parse(&blob(), 1, None).unwrap()));
        // The module's FUNC points at the base's "f" (offset 5): its id follows the base's three.
        let split = parse(&blob(), base.count + 1, Some(&base.strings)).unwrap();
        assert_eq!(split.func_id("f"), Some(6));
    }

    #[test]
    fn garbage_is_not_btf() {
        assert!(parse(b"not btf at all, not at all", 1, None).is_none());
    }
}
