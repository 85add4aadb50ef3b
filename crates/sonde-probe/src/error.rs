//! Every mistake in an expression, as one plain sentence, found before anything is written to
//! tracefs.

fn hint(names: &[String]) -> String {
    match names {
        [] => String::new(),
        n => format!(
            " (did you mean {}?)",
            n.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
        ),
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    #[error("the expression is empty: write `p SYMBOL`, `r SYMBOL`, `e GROUP/EVENT`, `P BIN:SYMBOL` or `R BIN:SYMBOL`")]
    Empty,
    #[error("`{expr}` starts with `{kind}`, which is not p, r, e, P or R")]
    BadKind { expr: String, kind: String },
    #[error("`{expr}` names no function, event or binary to probe")]
    NoTarget { expr: String },
    #[error("`{arg}` is not NAME=FETCH (NAME is letters, digits and _)")]
    BadArgument { arg: String },
    #[error("`{arg}`: tracepoints (`e`) print their own fields and take only a filter (`f:...`)")]
    EventArgs { arg: String },
    #[error("the name `{name}` is used twice in one expression")]
    DuplicateName { name: String },
    #[error("`{expr}` ends with `f:` but no filter")]
    EmptyFilter { expr: String },
    #[error("`{fetch}` cannot be read: {why}")]
    BadFetch { fetch: String, why: &'static str },
    #[error("`{fetch}` cannot be written in the sonde language: {why}")]
    NotInLanguage { fetch: String, why: &'static str },
    #[error("`{what}` cannot be an fprobe: {why}")]
    NotFprobe { what: String, why: &'static str },
    #[error("`{fetch}`: {why}")]
    Packet { fetch: String, why: String },
    #[error("`{target}` is not SYMBOL[+OFFSET]")]
    BadTarget { target: String },
    #[error("the kernel has no function `{name}` to probe{}", hint(.near))]
    UnknownFunction { name: String, near: Vec<String> },
    #[error("kprobes cannot trace `{name}`: the kernel has it, and lists it on the kprobe blacklist (/sys/kernel/debug/kprobes/blacklist)")]
    Blacklisted { name: String },
    #[error(
        "kprobes cannot trace `{name}`: the kernel has it, but marks it notrace or has inlined it"
    )]
    NotTraceable { name: String },
    #[error("this kernel has no tracepoint `{name}`")]
    UnknownEvent { name: String },
    #[error("the kernel has no symbol `{name}` to read with `@{name}`")]
    UnknownSymbol { name: String },
    #[error("`{target}`: {why}")]
    UserTarget { target: String, why: String },
    #[error("`%{reg}` is not a register on x86-64 (use ax, bx, cx, dx, si, di, bp, sp, r8..r15, ip, flags)")]
    BadRegister { reg: String },
    #[error("`%{n}`: x86-64 passes 6 arguments in registers; `{func}` has {count}")]
    NoSuchArg { n: u32, func: String, count: usize },
    #[error("`$retval` exists only in return probes (`r`/`R`), not in `{expr}`")]
    RetvalOnEntry { expr: String },
    #[error("`%N` reads a function's arguments at its entry; `{expr}` is a return probe (use `$retval`)")]
    ArgOnReturn { expr: String },
    #[error(
        "`%N` means the function's arguments only at its entry; at an offset use registers (`%di`)"
    )]
    ArgAtOffset,
    #[error("`{fetch}`: `{ty}` has no member `{member}`{}", hint(.near))]
    NoMember { fetch: String, ty: String, member: String, near: Vec<String> },
    #[error("`{fetch}`: `{op}{member}` needs {needs}, and this is `{ty}`")]
    WrongAccess { fetch: String, op: &'static str, member: String, needs: &'static str, ty: String },
    #[error("`{fetch}`: the kernel's BTF has no type `{ty}`")]
    UnknownType { fetch: String, ty: String },
    #[error("`{fetch}`: {binary} has no type `{ty}` in its debug info")]
    UnknownUserType { fetch: String, ty: String, binary: String },
    #[error("`{fetch}`: {why}")]
    NoUserTypes { fetch: String, why: String },
    #[error("`{fetch}`: the type of this value is unknown; cast it first, e.g. `!(struct file *){fetch}`")]
    Untyped { fetch: String },
    #[error("`{fetch}` is a `{ty}`, which ftrace cannot print whole: name one of its members")]
    Aggregate { fetch: String, ty: String },
    #[error("`{fetch}`: this kernel has no BTF (/sys/kernel/btf/vmlinux), so members and casts cannot be resolved")]
    NoBtf { fetch: String },
    #[error("`{fetch}`: `$comm` has no members")]
    CommChain { fetch: String },
    #[error("the filter `{filter}` does not parse: {why}")]
    BadFilter { filter: String, why: String },
    #[error("the filter `{filter}` names `{field}`, which this probe does not record{}", hint(.near))]
    FilterField { filter: String, field: String, near: Vec<String> },
}
