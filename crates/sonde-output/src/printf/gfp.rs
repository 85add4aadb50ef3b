//! bpftrace's `%gr`: a GFP (memory allocation) flags word by the names of its flags, compound
//! names first, in the order of the kernel's `__def_gfpflag_names` (include/trace/events/
//! mmflags.h), as bpftrace's `GFPFlags::format` writes them; bits no name covers are left in hex.

const DMA: u64 = 1 << 0;
const HIGHMEM: u64 = 1 << 1;
const DMA32: u64 = 1 << 2;
const MOVABLE: u64 = 1 << 3;
const HIGH: u64 = 1 << 5;
const IO: u64 = 1 << 6;
const FS: u64 = 1 << 7;
const ZERO: u64 = 1 << 8;
const DIRECT_RECLAIM: u64 = 1 << 10;
const KSWAPD_RECLAIM: u64 = 1 << 11;
const WRITE: u64 = 1 << 12;
const NOWARN: u64 = 1 << 13;
const RETRY_MAYFAIL: u64 = 1 << 14;
const NOFAIL: u64 = 1 << 15;
const NORETRY: u64 = 1 << 16;
const MEMALLOC: u64 = 1 << 17;
const COMP: u64 = 1 << 18;
const NOMEMALLOC: u64 = 1 << 19;
const HARDWALL: u64 = 1 << 20;
const THISNODE: u64 = 1 << 21;
const ACCOUNT: u64 = 1 << 22;
const ZEROTAGS: u64 = 1 << 23;
const SKIP_ZERO: u64 = 1 << 24;
const SKIP_KASAN: u64 = 1 << 25;
const NO_OBJ_EXT: u64 = 1 << 26;

const RECLAIM: u64 = DIRECT_RECLAIM | KSWAPD_RECLAIM;
const KERNEL: u64 = RECLAIM | IO | FS;
const NOIO: u64 = RECLAIM;
const NOFS: u64 = NOIO | IO;
const USER: u64 = NOFS | FS | HARDWALL;
const HIGHUSER: u64 = USER | HIGHMEM;
const HIGHUSER_MOVABLE: u64 = HIGHUSER | MOVABLE | SKIP_KASAN;
const TRANSHUGE_LIGHT: u64 = (HIGHUSER_MOVABLE | COMP | NOMEMALLOC | NOWARN) & !RECLAIM;

const NAMES: &[(u64, &str)] = &[
    (TRANSHUGE_LIGHT | DIRECT_RECLAIM, "GFP_TRANSHUGE"),
    (TRANSHUGE_LIGHT, "GFP_TRANSHUGE_LIGHT"),
    (HIGHUSER_MOVABLE, "GFP_HIGHUSER_MOVABLE"),
    (HIGHUSER, "GFP_HIGHUSER"),
    (USER, "GFP_USER"),
    (KERNEL | ACCOUNT, "GFP_KERNEL_ACCOUNT"),
    (KERNEL, "GFP_KERNEL"),
    (NOFS, "GFP_NOFS"),
    (HIGH | KSWAPD_RECLAIM, "GFP_ATOMIC"),
    (NOIO, "GFP_NOIO"),
    (KSWAPD_RECLAIM | NOWARN, "GFP_NOWAIT"),
    (DMA, "GFP_DMA"),
    (HIGHMEM, "__GFP_HIGHMEM"),
    (DMA32, "GFP_DMA32"),
    (HIGH, "__GFP_HIGH"),
    (IO, "__GFP_IO"),
    (FS, "__GFP_FS"),
    (ZERO, "__GFP_ZERO"),
    (DIRECT_RECLAIM, "__GFP_DIRECT_RECLAIM"),
    (KSWAPD_RECLAIM, "__GFP_KSWAPD_RECLAIM"),
    (WRITE, "__GFP_WRITE"),
    (NOWARN, "__GFP_NOWARN"),
    (RETRY_MAYFAIL, "__GFP_RETRY_MAYFAIL"),
    (NOFAIL, "__GFP_NOFAIL"),
    (NORETRY, "__GFP_NORETRY"),
    (MEMALLOC, "__GFP_MEMALLOC"),
    (COMP, "__GFP_COMP"),
    (NOMEMALLOC, "__GFP_NOMEMALLOC"),
    (HARDWALL, "__GFP_HARDWALL"),
    (THISNODE, "__GFP_THISNODE"),
    (ACCOUNT, "__GFP_ACCOUNT"),
    (ZEROTAGS, "__GFP_ZEROTAGS"),
    (SKIP_ZERO, "__GFP_SKIP_ZERO"),
    (SKIP_KASAN, "__GFP_SKIP_KASAN"),
    (NO_OBJ_EXT, "__GFP_NO_OBJ_EXT"),
];

/// `GFP_KERNEL|__GFP_ZERO`, `0` for none, leftover bits as `0x...`.
pub(super) fn names(flags: u64) -> String {
    if flags == 0 {
        return "0".into();
    }
    let mut left = flags;
    let mut out: Vec<String> = Vec::new();
    for &(mask, name) in NAMES {
        if left & mask == mask {
            out.push(name.into());
            left &= !mask;
        }
    }
    if left != 0 {
        out.push(format!("0x{:x}", left));
    }
    out.join("|")
}
