//! Is `SYMBOL+OFF` on an instruction boundary? A uprobe writes a breakpoint at the offset, and
//! the kernel single-steps the instruction it decodes there: inside an instruction that is other
//! code than the program's, so the traced process would run something it never contained. The
//! kernel checks kprobe offsets itself (EILSEQ); for uprobes sonde decodes the function from its
//! start to the offset. bpftrace does the same with LLVM's disassembler.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use iced_x86::{Decoder, DecoderOptions};

use crate::error::{Error, Result};

const EM_386: u16 = 3;
const EM_X86_64: u16 = 62;
/// The longest x86 instruction.
const MAX_INSN: u64 = 15;

/// Checks that `off` bytes past the start of `symbol` (at file offset `start` in the ELF at
/// `path`) begins an instruction. Offset 0 always does; non-x86 files are not checked.
pub fn check_boundary(path: &Path, symbol: &str, start: u64, off: u64) -> Result<()> {
    if off == 0 {
        return Ok(());
    }
    let io = |e| Error::io(path, e);
    let file = File::open(path).map_err(io)?;
    let mut ident = [0u8; 20];
    file.read_exact_at(&mut ident, 0).map_err(io)?;
    let little = ident[5] == 1;
    let machine = if little {
        u16::from_le_bytes([ident[18], ident[19]])
    } else {
        u16::from_be_bytes([ident[18], ident[19]])
    };
    let bitness = match machine {
        EM_X86_64 => 64,
        EM_386 => 32,
        _ => return Ok(()),
    };
    // The bytes up to the offset, and enough after it to decode the instruction that holds it.
    let mut code = vec![0u8; (off + MAX_INSN) as usize];
    let n = read_up_to(&file, &mut code, start).map_err(io)?;
    code.truncate(n);
    let mut decoder = Decoder::with_ip(bitness, &code, 0, DecoderOptions::NONE);
    let mut at = 0u64;
    while at < off {
        let insn = decoder.decode();
        if insn.is_invalid() {
            return Err(Error::UndecodableCode {
                path: path.into(),
                symbol: symbol.into(),
                offset: off,
                at,
            });
        }
        if at + insn.len() as u64 > off {
            return Err(Error::OffsetInsideInstruction {
                path: path.into(),
                symbol: symbol.into(),
                offset: off,
                starts: at,
                next: at + insn.len() as u64,
            });
        }
        at += insn.len() as u64;
    }
    Ok(())
}

/// Reads into `buf` from `pos` until it is full or the file ends; the number of bytes read.
fn read_up_to(file: &File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], pos + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ELF header for `machine` and then `code` at file offset 64.
    fn fixture(machine: u16, code: &[u8]) -> tempfile_path::TempPath {
        let mut bytes = vec![0u8; 64];
        bytes[..4].copy_from_slice(b"\x7fELF");
        bytes[4] = 2; // ELFCLASS64
        bytes[5] = 1; // little-endian
        bytes[18..20].copy_from_slice(&machine.to_le_bytes());
        bytes.extend_from_slice(code);
        tempfile_path::TempPath::with(&bytes)
    }

    /// A file in the temporary directory, removed on drop.
    mod tempfile_path {
        pub struct TempPath(pub std::path::PathBuf);
        impl TempPath {
            pub fn with(bytes: &[u8]) -> TempPath {
                use std::sync::atomic::{AtomicU32, Ordering};
                static N: AtomicU32 = AtomicU32::new(0);
                let p = std::env::temp_dir().join(format!(
                    "sonde-insn-{}-{}",
                    std::process::id(),
                    N.fetch_add(1, Ordering::Relaxed)
                ));
                std::fs::write(&p, bytes).unwrap();
                TempPath(p)
            }
        }
        impl Drop for TempPath {
            fn drop(&mut self) {
                let _ = std::fs::remove_file(&self.0);
            }
        }
    }

    // push %rbp (1) ; mov %rsp,%rbp (3) ; mov %rdi,-0x8(%rbp) (4) ; ret (1)
    const CODE: &[u8] = &[0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0x7d, 0xf8, 0xc3];

    #[test]
    fn boundaries_pass() {
        let f = fixture(EM_X86_64, CODE);
        for off in [0, 1, 4, 8] {
            check_boundary(&f.0, "f", 64, off).unwrap_or_else(|e| panic!("+{off}: {e}"));
        }
    }

    #[test]
    fn inside_an_instruction_names_its_bounds() {
        let f = fixture(EM_X86_64, CODE);
        match check_boundary(&f.0, "f", 64, 2) {
            Err(Error::OffsetInsideInstruction { offset: 2, starts: 1, next: 4, .. }) => {}
            other => panic!("{other:?}"),
        }
        let msg = check_boundary(&f.0, "f", 64, 6).unwrap_err().to_string();
        assert!(msg.contains("f+0x4") && msg.contains("f+0x8"), "{msg}");
    }

    #[test]
    fn other_machines_are_not_checked() {
        let f = fixture(183 /* EM_AARCH64 */, &[0xff; 8]);
        check_boundary(&f.0, "f", 64, 3).unwrap();
    }

    #[test]
    fn bytes_that_do_not_decode_are_refused() {
        // 0x06 (push %es) does not exist in 64-bit mode.
        let f = fixture(EM_X86_64, &[0x06, 0x90, 0x90]);
        assert!(matches!(
            check_boundary(&f.0, "f", 64, 1),
            Err(Error::UndecodableCode { at: 0, .. })
        ));
    }
}
