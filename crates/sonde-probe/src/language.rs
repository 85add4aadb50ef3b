//! `--to-language`: the same probe as a sonde program (the BPF face), so a quick ftrace probe can
//! grow into an aggregation without being rewritten by hand. The language types `argN` and casts
//! from the same BTF, so fetches translate member by member; what the language cannot read
//! (`$stackN`, `@SYM`, `@0xADDR`, registers in uprobes, packet `xdata`) is one sentence.

use crate::def::FetchType;
use crate::env::Env;
use crate::error::ProbeError;
use crate::expr::{self, ExprKind};
use crate::fetch::{Base, FetchExpr, Step};
use crate::{arch, filter, Probe, Target};

/// The probe as one line of the sonde language.
pub fn to_language(probe: &Probe, env: &dyn Env) -> Result<String, ProbeError> {
    let e = expr::parse(&probe.source)?;
    let no =
        |fetch: &str, why: &'static str| ProbeError::NotInLanguage { fetch: fetch.into(), why };
    let spec = match e.kind {
        ExprKind::Kprobe => format!("kprobe:{}", e.target),
        ExprKind::Kretprobe => format!("kretprobe:{}", e.target),
        ExprKind::Uprobe => format!("uprobe:{}", e.target),
        ExprKind::Uretprobe => format!("uretprobe:{}", e.target),
        ExprKind::Event => format!("tracepoint:{}", e.target.replacen(['/', ':'], ":", 1)),
    };
    // (name, the value as the language reads it, printf conversion, printf arguments)
    let mut fields: Vec<(String, String, String, Vec<String>)> = Vec::new();
    match &probe.target {
        Target::Dynamic(def) => {
            let unwrapped = probe.unwrapped.iter();
            for (((name, fx), arg), members) in e.args.iter().zip(&def.args).zip(unwrapped) {
                let raw = fetch(fx, e.kind).map_err(|why| no(&fx.text, why))? + members;
                let (value, conv, args) = print(name, &raw, arg.ty.as_ref())
                    .ok_or_else(|| no(&fx.text, "the language cannot print it as ftrace does"))?;
                fields.push((name.clone(), value, conv, args));
            }
        }
        Target::Tracepoint { group, event } => {
            // Without their types here, a tracepoint's fields print through `print`, which the
            // language types from the format file.
            let list: Vec<String> = env
                .tracepoint_fields(group, event)
                .unwrap_or_default()
                .iter()
                .filter(|f| !f.starts_with("common_"))
                .map(|f| format!("args->{f}"))
                .collect();
            let pred = predicate(probe, &fields, env)?;
            return Ok(format!("{spec}{pred} {{ print({}); }}", list.join(", ")));
        }
    }
    let pred = predicate(probe, &fields, env)?;
    let fmt: Vec<String> = fields.iter().map(|(n, _, c, _)| format!("{n}={c}")).collect();
    let args: Vec<String> = fields.iter().flat_map(|f| f.3.clone()).collect();
    let mut call = format!("printf(\"{}\\n\"", fmt.join(" "));
    for a in args {
        call += &format!(", {a}");
    }
    Ok(format!("{spec}{pred} {{ {call}); }}"))
}

/// ` /PREDICATE/` from the ftrace filter, each field replaced by the value it names.
fn predicate(
    probe: &Probe,
    fields: &[(String, String, String, Vec<String>)],
    env: &dyn Env,
) -> Result<String, ProbeError> {
    let Some(f) = &probe.filter else { return Ok(String::new()) };
    let tp = match &probe.target {
        Target::Tracepoint { group, event } => env.tracepoint_fields(group, event),
        Target::Dynamic(_) => None,
    };
    let names: Vec<String> = match &tp {
        Some(t) => t.clone(),
        None => fields.iter().map(|f| f.0.clone()).collect(),
    };
    let render = |field: &str, op: &str, value: &str| {
        let no = |why| ProbeError::NotInLanguage { fetch: format!("{field}{op}{value}"), why };
        let lhs = match field {
            "common_pid" => "pid".to_string(),
            f if f.starts_with("common_") => return Err(no("the language has no such field")),
            f if tp.is_some() => format!("args->{f}"),
            f => fields.iter().find(|x| x.0 == f).map(|x| x.1.clone()).unwrap_or_default(),
        };
        let value = language_value(value);
        match op {
            "~" | "=~" => Err(no("the language has no glob match")),
            "&" => Ok(format!("({lhs} & {value})")),
            op => Ok(format!("{lhs} {op} {value}")),
        }
    };
    Ok(format!(" /{}/", filter::rewrite(f, &names, &render)?))
}

/// A filter's value as the language writes it: an ftrace string (`"..."` or `'...'`, which has
/// no escapes) as a string literal with its `"` and `\` escaped, so no text of it can end the
/// literal and reach the program around it; a number or a word as it is.
fn language_value(value: &str) -> String {
    let quoted = value.len() >= 2 && (value.starts_with('"') || value.starts_with('\''));
    if !quoted {
        return value.to_string();
    }
    let mut s = String::from("\"");
    for c in value[1..value.len() - 1].chars() {
        if matches!(c, '"' | '\\') {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('"');
    s
}

/// The language's expression for a FETCH.
fn fetch(fx: &FetchExpr, kind: ExprKind) -> Result<String, &'static str> {
    let user = matches!(kind, ExprKind::Uprobe | ExprKind::Uretprobe);
    let mut s = match &fx.base {
        Base::Arg(n) => format!("arg{n}"),
        Base::Reg(_) if user => return Err("registers are read in kprobes only (`regs->REG`)"),
        Base::Reg(r) => format!("regs->{}", arch::register(r).ok_or("no such register")?),
        Base::Retval => "retval".into(),
        Base::Comm => "comm".into(),
        Base::Stack(_) => return Err("the language has no `$stackN`"),
        Base::Symbol(_) | Base::Addr(_) => return Err("the language reads no kernel globals"),
    };
    if let Some(cast) = &fx.cast {
        s = format!("(({cast}){s})");
    }
    let chain = fx.chain.as_slice();
    if let Some(pkt) = &fx.packet {
        if let Some(Step::Arrow(m)) = chain.first() {
            if ["cdata", "sdata", "ldata", "qdata", "Sdata"].contains(&m.as_str()) {
                return Err("`xdata` members have no counterpart in the language");
            }
        }
        // The header past those below it, as the definition does (IPv4 without options).
        let name = pkt.ty.trim_start_matches("struct ").trim_end_matches([' ', '*']);
        let layer = match name {
            "ethhdr" => 2,
            "iphdr" => 3,
            _ => 4,
        };
        let skip: u32 = (pkt.layer..layer).map(|l| if l == 2 { 14 } else { 20 }).sum();
        let data = format!("((struct sk_buff *){s})->data");
        let at = if skip == 0 { data } else { format!("({data} + {skip})") };
        s = format!("(({}){at})", pkt.ty);
    }
    for step in chain {
        match step {
            Step::Arrow(m) => s += &format!("->{m}"),
            Step::Dot(m) => s += &format!(".{m}"),
            Step::Index(i) => s += &format!("[{i}]"),
        }
    }
    Ok(s)
}

/// (the value for filters, the printf conversion, its arguments), formatted as sonde probe's
/// output is: strings, dotted `ip_`, byte-swapped `B16_`/`b16_`...
fn print(name: &str, raw: &str, ty: Option<&FetchType>) -> Option<(String, String, Vec<String>)> {
    let ty = ty?;
    if matches!(ty, FetchType::String | FetchType::Ustring) {
        let v = if raw == "comm" { raw.to_string() } else { format!("str({raw})") };
        return Some((v.clone(), "%s".into(), vec![v]));
    }
    let conv = match ty {
        FetchType::Signed(_) => "%d",
        FetchType::Unsigned(_) | FetchType::Bitfield { .. } => "%u",
        FetchType::Hex(_) => "0x%x",
        FetchType::Symbol => return Some((raw.into(), "%s".into(), vec![format!("ksym({raw})")])),
        _ => return None,
    };
    if name.starts_with("ip_") {
        let bytes = (0..4).map(|i| format!("({raw} >> {}) & 0xff", 8 * i)).collect();
        return Some((raw.into(), "%u.%u.%u.%u".into(), bytes));
    }
    for (prefix, n) in [("16_", 2), ("32_", 4), ("64_", 8)] {
        let hex = name.strip_prefix('B').is_some_and(|r| r.starts_with(prefix));
        if hex || name.strip_prefix('b').is_some_and(|r| r.starts_with(prefix)) {
            let swapped: Vec<String> = (0..n)
                .map(|i| format!("((({raw}) >> {}) & 0xff) << {}", 8 * i, 8 * (n - 1 - i)))
                .collect();
            let conv = if hex { "0x%x" } else { "%u" };
            return Some((raw.into(), conv.into(), vec![format!("({})", swapped.join(" | "))]));
        }
    }
    Some((raw.into(), conv.into(), vec![raw.into()]))
}
