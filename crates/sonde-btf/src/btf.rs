//! The loaded BTF: vmlinux alone, or a module's split BTF stacked on vmlinux.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::BtfError;
use crate::index::{self, Layer};
use crate::model::TypeId;
use crate::raw::Rec;
use crate::source::{self, Bytes};

const SYSFS_DIR: &str = "/sys/kernel/btf";

/// Kernel type information. Cheap to clone (the data is shared), `Send` and `Sync`.
#[derive(Clone)]
pub struct Btf {
    /// vmlinux, when this is a module's split BTF.
    base: Option<Arc<Layer>>,
    own: Arc<Layer>,
}

impl std::fmt::Debug for Btf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Btf")
            .field("split", &self.base.is_some())
            .field("first_id", &self.own.first_id)
            .field("types", &self.own.len())
            .finish()
    }
}

impl Btf {
    /// Where the running kernel publishes its own BTF.
    pub const VMLINUX_PATH: &'static str = "/sys/kernel/btf/vmlinux";

    /// Loads the running kernel's BTF from [`Btf::VMLINUX_PATH`].
    pub fn load_vmlinux() -> Result<Btf, BtfError> {
        let path = PathBuf::from(Self::VMLINUX_PATH);
        let bytes = source::load_sysfs(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => BtfError::NoKernelBtf { path: path.clone() },
            _ => BtfError::Io { path: path.clone(), source: e },
        })?;
        Self::base_from(bytes)
    }

    /// Loads base (non-split) BTF from a file, e.g. a saved copy of another kernel's vmlinux BTF.
    pub fn load_file(path: impl AsRef<Path>) -> Result<Btf, BtfError> {
        let path = path.as_ref();
        let bytes =
            std::fs::read(path).map_err(|e| BtfError::Io { path: path.to_owned(), source: e })?;
        Self::from_bytes(bytes)
    }

    /// Parses base (non-split) BTF from memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Btf, BtfError> {
        Self::base_from(Bytes::Owned(bytes))
    }

    /// Loads a loaded module's split BTF from `/sys/kernel/btf/<name>` on top of `base`
    /// (which must be vmlinux's). The result sees both: its ids continue after the base's.
    pub fn load_module(name: &str, base: &Btf) -> Result<Btf, BtfError> {
        let path = Path::new(SYSFS_DIR).join(name);
        // A name with a slash (or "..") would read some other file.
        if name.is_empty() || name.contains('/') || name == "." || name == ".." {
            return Err(BtfError::NoModuleBtf { module: name.to_owned(), path });
        }
        let bytes = source::load_sysfs(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                BtfError::NoModuleBtf { module: name.to_owned(), path: path.clone() }
            }
            _ => BtfError::Io { path: path.clone(), source: e },
        })?;
        Self::split_from(bytes, base)
    }

    /// Parses split BTF (a module's) from memory, on top of `base`.
    pub fn from_split_bytes(bytes: Vec<u8>, base: &Btf) -> Result<Btf, BtfError> {
        Self::split_from(Bytes::Owned(bytes), base)
    }

    fn base_from(bytes: Bytes) -> Result<Btf, BtfError> {
        Ok(Btf { base: None, own: Arc::new(Layer::build(bytes, 1, 0)?) })
    }

    fn split_from(bytes: Bytes, base: &Btf) -> Result<Btf, BtfError> {
        if base.base.is_some() {
            return Err(BtfError::BaseIsSplit);
        }
        let b = &base.own;
        let str_start = u32::try_from(b.strings().len())
            .map_err(|_| BtfError::Malformed("base strings exceed 4 GiB".into()))?;
        let own = Layer::build(bytes, b.first_id + b.len(), str_start)?;
        Ok(Btf { base: Some(b.clone()), own: Arc::new(own) })
    }

    /// The highest type id; valid ids are `1..=max_id()` (plus 0, void).
    pub fn max_id(&self) -> TypeId {
        TypeId(self.own.first_id + self.own.len() - 1)
    }

    /// The first id of this BTF's own types: 1 for vmlinux, just past vmlinux's for a module.
    pub fn first_id(&self) -> TypeId {
        TypeId(self.own.first_id)
    }

    /// Whether this is a module's split BTF.
    pub fn is_split(&self) -> bool {
        self.base.is_some()
    }

    /// The name of a type ("" for void, anonymous types and ids that do not exist).
    pub fn name(&self, id: TypeId) -> &str {
        self.rec(id).map_or("", |r| self.str_at(r.name_off))
    }

    pub(crate) fn layers(&self) -> impl Iterator<Item = &Layer> {
        self.base.as_deref().into_iter().chain(std::iter::once(&*self.own))
    }

    /// The record of a type id; `None` for void and ids past the end.
    pub(crate) fn rec(&self, id: TypeId) -> Option<Rec<'_>> {
        self.layers().find(|l| l.contains(id.0))?.rec(id.0)
    }

    /// A string by its name offset. Split BTF's offsets continue after the base's strings.
    pub(crate) fn str_at(&self, off: u32) -> &str {
        match &self.base {
            Some(base) if off < self.own.str_start => base.str_at(off as usize),
            _ => self.own.str_at((off - self.own.str_start) as usize),
        }
    }

    /// All type ids named exactly `name`, in id order.
    pub(crate) fn ids_named(&self, name: &str) -> Vec<TypeId> {
        if name.is_empty() || name.contains('\0') {
            return Vec::new();
        }
        let mut needle = Vec::with_capacity(name.len() + 1);
        needle.extend_from_slice(name.as_bytes());
        needle.push(0);
        // String offsets (in the offset space shared with the base) where `name` starts.
        let mut cands = Vec::new();
        for layer in self.layers() {
            let shift = layer.str_start as usize;
            let offsets = index::string_offsets(layer.strings(), &needle).into_iter();
            cands.extend(offsets.filter_map(|o| u32::try_from(o + shift).ok()));
        }
        let cands = index::CandidateSet::new(cands);
        if cands.is_empty() {
            return Vec::new();
        }
        self.layers().flat_map(|l| l.ids_with_name_off(&cands)).map(TypeId).collect()
    }
}
