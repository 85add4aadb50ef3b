//! `pid` and `tid` as seen from sonde's own pid namespace (bpftrace's `pid(curr_ns)`):
//! `bpf_get_ns_current_pid_tgid(dev, ino, &info, 8)` fills `struct bpf_pidns_info { u32 pid;
//! u32 tgid; }`, or zeroes it for a task outside that namespace.

use super::Lower;
use sonde_bpf::{Insn, Reg, Size};

impl Lower<'_> {
    /// The current thread's (`thread`) or process's id in sonde's pid namespace, in a new register.
    pub(super) fn ns_task_id(&mut self, thread: bool) -> Reg {
        let (dev, ino) = self.opts.pid_namespace.unwrap_or_default();
        let info = self.e.alloc_stack(8);
        self.e.zero_stack(info, 8);
        self.e.emit_all(Insn::ld_imm64(Reg::R1, dev));
        self.e.emit_all(Insn::ld_imm64(Reg::R2, ino));
        self.e.stack_addr(Reg::R3, info);
        self.e.emit(Insn::mov64_imm(Reg::R4, 8));
        self.e.call(sonde_bpf::helper::GET_NS_CURRENT_PID_TGID);
        let d = self.e.alloc_reg();
        let at = if thread { info } else { info + 4 };
        self.e.emit(Insn::load(Size::W, d, self.e.fp, at));
        d
    }
}
