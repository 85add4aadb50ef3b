//! `/run/sonde`: where runs keep their records (`tracefs::run_record`) and caches (`sonde trace`'s
//! syscall table and programs). Root-only, outside tracefs, emptied by a reboot.

use crate::sys;
use std::fs::DirBuilder;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::Path;

pub const RUN_DIR: &str = "/run/sonde";

/// `dir`, made with mode 0700 if missing, when it can be trusted ([`trusted`]).
pub fn private_dir(dir: &Path) -> Option<&Path> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir).ok()?;
    trusted(dir).then_some(dir)
}

/// A directory itself (not a link to one), owned by this user and writable by no one else:
/// nothing in it was written by another user.
pub fn trusted(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir)
        .is_ok_and(|m| m.is_dir() && m.uid() == sys::euid() && m.mode() & 0o022 == 0)
}
