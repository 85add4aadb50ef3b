//! `--fprobe`: the expression as a BTF-aware fprobe event (`f:sonde/NAME SYM[%return] ...` in
//! `dynamic_events`, Linux 6.4+): arguments by their names in the function's prototype and `->`
//! done by the kernel, which also picks each value's type from BTF. sonde-probe still resolves the
//! expression first, so a wrong member is caught here with the same sentence; the type is written
//! only where the kernel cannot infer the one surftrace prints (strings, S/U/X prefixes).

use crate::def::FetchType;
use crate::env::Env;
use crate::error::ProbeError;
use crate::expr::{self, ExprKind};
use crate::fetch::{Base, Step};
use crate::{Probe, Target};

/// The `f:` line of a `p` or `r` expression already built into `probe`.
pub fn fprobe_line(probe: &Probe, env: &dyn Env) -> Result<String, ProbeError> {
    let e = expr::parse(&probe.source)?;
    let no = |what: &str, why: &'static str| ProbeError::NotFprobe { what: what.into(), why };
    let Target::Dynamic(def) = &probe.target else {
        return Err(no(&probe.source, "fprobes take `p` and `r` expressions"));
    };
    let suffix = match e.kind {
        ExprKind::Kprobe if e.target.contains('+') => {
            return Err(no(&e.target, "an fprobe sits at a function's entry or return, not inside"))
        }
        ExprKind::Kprobe => "",
        ExprKind::Kretprobe => "%return",
        _ => return Err(no(&probe.source, "fprobes take `p` and `r` expressions")),
    };
    let func = env.btf().and_then(|b| b.find_func(&e.target));
    let mut line = format!("f:{}/{} {}{suffix}", def.group, def.event, e.target);
    let args = e.args.iter().zip(&def.args).zip(&probe.unwrapped);
    for (((name, fx), arg), unwrapped) in args {
        if fx.cast.is_some() || fx.packet.is_some() {
            return Err(no(&fx.text, "casts have no fprobe form: drop --fprobe"));
        }
        let mut s = match &fx.base {
            Base::Arg(n) => match func.as_ref().and_then(|f| f.params.get(*n as usize)) {
                Some(p) if !p.name.is_empty() => p.name.clone(),
                _ => format!("$arg{}", n + 1),
            },
            Base::Reg(_) => return Err(no(&fx.text, "fprobes read no registers: drop --fprobe")),
            Base::Retval => "$retval".into(),
            Base::Comm => "$comm".into(),
            Base::Stack(n) => format!("$stack{n}"),
            Base::Symbol(sym) => format!("@{sym}"),
            Base::Addr(a) => format!("@{a:#x}"),
        };
        for step in &fx.chain {
            match step {
                Step::Arrow(m) => s += &format!("->{m}"),
                Step::Dot(m) => s += &format!(".{m}"),
                Step::Index(_) => {
                    return Err(no(
                        &fx.text,
                        "the kernel's BTF fetches take no `[i]`: drop --fprobe",
                    ))
                }
            }
        }
        s += unwrapped;
        let ty = match &arg.ty {
            Some(t @ (FetchType::String | FetchType::Ustring)) => Some(t),
            t if fx.format.is_some() => t.as_ref(),
            _ => None,
        };
        line += &format!(" {name}={s}");
        if let Some(t) = ty {
            line += &format!(":{t}");
        }
    }
    Ok(line)
}
