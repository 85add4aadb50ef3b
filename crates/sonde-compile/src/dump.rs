//! The `-S/--dump` printer, which the golden tests also compare: the typed program as indented
//! text (every expression with its type after a colon, maps and variables by name, so a reader
//! can check what the checker inferred), then each program's annotated disassembly.

use crate::lower::{Compiled, ProgramDef};
use crate::model::tir::{
    AggFunc, KernelText, MapValue, StrRead, TExpr, TExprKind, TProbe, TProgram, TStmt, TStmtKind,
};
use sonde_bpf::disasm;
use std::fmt::Write;

/// The typed program: one line per map and event, then each probe's typed tree.
pub fn typed(tp: &TProgram) -> String {
    let mut out = String::new();
    for m in &tp.maps {
        let keys: Vec<String> = m.keys.iter().map(|k| k.to_string()).collect();
        let value = match &m.value {
            MapValue::Plain(t) => t.to_string(),
            MapValue::Agg { func: AggFunc::Quantize { bits }, signed } if *bits > 0 => {
                format!("quantize({}, {} bits)", if *signed { "signed" } else { "unsigned" }, bits)
            }
            MapValue::Agg { func, signed } => {
                format!("{}({})", func.name(), if *signed { "signed" } else { "unsigned" })
            }
        };
        out.push_str(&format!("map {}[{}] -> {}\n", m.name, keys.join(", "), value));
    }
    for (i, e) in tp.events.iter().enumerate() {
        let args: Vec<String> = e.args.iter().map(|t| t.to_string()).collect();
        out.push_str(&format!("event {}: {:?} ({})\n", i, e.kind, args.join(", ")));
    }
    for f in &tp.funcs {
        out.push_str(&format!("fn {} ({} parameters) -> {}\n", f.name, f.params, f.ret));
        let names = Names { tp, vars: f.vars.iter().map(|(n, _)| n.as_str()).collect() };
        for (name, ty) in &f.vars {
            out.push_str(&format!("  var ${}: {}\n", name, ty));
        }
        for s in &f.body {
            names.stmt(s, 1, &mut out);
        }
    }
    for p in &tp.probes {
        let sites: Vec<String> = p.sites.iter().map(|s| s.point.describe()).collect();
        out.push_str(&format!("probe {} [{}]\n", p.probe, sites.join(", ")));
        for (name, ty) in &p.vars {
            out.push_str(&format!("  var ${}: {}\n", name, ty));
        }
        typed_probe(tp, p, &mut out);
    }
    out
}

/// Disassembly of one program, each run of instructions headed by the source line it came from.
pub fn program(p: &ProgramDef, maps: &[crate::lower::MapDef], source: &str) -> String {
    // Show which map each map load names (the fds are only known once the maps exist).
    let mut insns = p.insns.clone();
    for &(at, map) in &p.relocs {
        insns[at].imm = map as i32;
    }
    let map_label = |i: usize| match maps.get(i) {
        Some(m)
            if i >= crate::abi::FIRST_USER_MAP && m.kind != crate::lower::MapKind::StackTrace =>
        {
            format!("@{}", m.name)
        }
        Some(m) => m.name.clone(),
        None => i.to_string(),
    };
    let mut out = format!("program {} ({:?}, {} instructions)\n", p.name, p.kind, p.insns.len());
    let mut last_line = usize::MAX;
    let mut i = 0;
    while i < p.insns.len() {
        let (line, _) = sonde_syntax::line_col(source, p.spans[i].lo);
        if line != last_line {
            let text = source.lines().nth(line.saturating_sub(1)).unwrap_or("").trim();
            out.push_str(&format!("; {}: {}\n", line, text));
            last_line = line;
        }
        let (mut text, used) = disasm::disasm_one(&insns, i);
        if let Some(&(_, map)) = p.relocs.iter().find(|(at, _)| *at == i) {
            text =
                text.replace(&format!("map_fd({})", map), &format!("map_fd({})", map_label(map)));
            text = text
                .replace(&format!("map_value({})", map), &format!("map_value({})", map_label(map)));
        }
        out.push_str(&format!("{:4}: {}\n", i, text));
        i += used.max(1);
    }
    out
}

/// All maps and programs.
pub fn compiled(c: &Compiled, source: &str) -> String {
    let mut out = String::new();
    for (i, m) in c.maps.iter().enumerate() {
        out.push_str(&format!(
            "map {} {}: {:?} key {} value {} entries {}\n",
            i, m.name, m.kind, m.key_size, m.value_size, m.max_entries
        ));
    }
    for p in &c.programs {
        out.push_str(&program(p, &c.maps, source));
    }
    out
}

fn typed_probe(tp: &TProgram, p: &TProbe, out: &mut String) {
    let names = Names { tp, vars: p.vars.iter().map(|(n, _)| n.as_str()).collect() };
    if let Some(pred) = &p.predicate {
        let _ = writeln!(out, "  / {} /", names.expr(pred));
    }
    for s in &p.body {
        names.stmt(s, 1, out);
    }
}

struct Names<'a> {
    tp: &'a TProgram,
    vars: Vec<&'a str>,
}

impl Names<'_> {
    fn map(&self, m: usize) -> String {
        self.tp.maps.get(m).map(|m| m.name.clone()).unwrap_or_else(|| format!("map{}", m))
    }

    fn var(&self, v: usize) -> String {
        format!("${}", self.vars.get(v).copied().unwrap_or("?"))
    }

    fn keys(&self, keys: &[TExpr]) -> String {
        if keys.is_empty() {
            return String::new();
        }
        format!("[{}]", self.list(keys))
    }

    fn list(&self, es: &[TExpr]) -> String {
        es.iter().map(|e| self.expr(e)).collect::<Vec<_>>().join(", ")
    }

    fn stmt(&self, s: &TStmt, depth: usize, out: &mut String) {
        let pad = "  ".repeat(depth);
        let line = match &s.kind {
            TStmtKind::Emit { event, args } => format!("emit event{}({})", event, self.list(args)),
            TStmtKind::Exit { event, code } => format!("exit event{}({})", event, self.expr(code)),
            TStmtKind::MapStore { map, keys, value } => {
                format!("{}{} = {}", self.map(*map), self.keys(keys), self.expr(value))
            }
            TStmtKind::Aggregate { map, keys, func, arg } => format!(
                "{}{} <- {}({})",
                self.map(*map),
                self.keys(keys),
                func.name(),
                arg.as_ref().map(|a| self.expr(a)).unwrap_or_default()
            ),
            TStmtKind::Delete { map, keys } => {
                format!("delete {}{}", self.map(*map), self.keys(keys))
            }
            TStmtKind::SetVar { var, value } => {
                format!("{} = {}", self.var(*var), self.expr(value))
            }
            TStmtKind::Return => "return".into(),
            TStmtKind::Signal(sig) => format!("signal({})", self.expr(sig)),
            TStmtKind::Join { event, arr, user } => {
                format!(
                    "join{} event{}({})",
                    if *user { "_user" } else { "" },
                    event,
                    self.expr(arr)
                )
            }
            TStmtKind::Override(rc) => format!("override({})", self.expr(rc)),
            TStmtKind::KernelPrintf { to, format, args } => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                let name = match to {
                    KernelText::TracePipe => "debugf",
                    KernelText::Iterator => "seq_printf",
                };
                format!("{}({:?}, {})", name, String::from_utf8_lossy(format), args.join(", "))
            }
            TStmtKind::If { cond, then, els } => {
                let _ = writeln!(out, "{}if {}", pad, self.expr(cond));
                for t in then {
                    self.stmt(t, depth + 1, out);
                }
                if !els.is_empty() {
                    let _ = writeln!(out, "{}else", pad);
                    for e in els {
                        self.stmt(e, depth + 1, out);
                    }
                }
                return;
            }
            TStmtKind::ZeroVar { var } => format!("{} = zero", self.var(*var)),
            TStmtKind::Break => "break".into(),
            TStmtKind::Continue => "continue".into(),
            TStmtKind::Loop { cond, body, step } => {
                let _ = writeln!(out, "{}while {}", pad, self.expr(cond));
                for t in body {
                    self.stmt(t, depth + 1, out);
                }
                if !step.is_empty() {
                    let _ = writeln!(out, "{}step", pad);
                    for t in step {
                        self.stmt(t, depth + 1, out);
                    }
                }
                return;
            }
            TStmtKind::Seq(stmts) => {
                for t in stmts {
                    self.stmt(t, depth, out);
                }
                return;
            }
            TStmtKind::RangeFor { var, start, end, body, .. } => {
                let (v, s, e) = (self.var(*var), self.var(*start), self.var(*end));
                let _ = writeln!(out, "{}for {} : {}..{} (bpf_loop)", pad, v, s, e);
                for t in body {
                    self.stmt(t, depth + 1, out);
                }
                return;
            }
            TStmtKind::MapFor { map, var, body } => {
                let _ = writeln!(out, "{}for {} : {}", pad, self.var(*var), self.map(*map));
                for t in body {
                    self.stmt(t, depth + 1, out);
                }
                return;
            }
        };
        let _ = writeln!(out, "{}{}", pad, line);
    }

    fn expr(&self, e: &TExpr) -> String {
        let inner = match &e.kind {
            TExprKind::Int(v) => format!("{}", *v as i64),
            TExprKind::Str(b) => format!("{:?}", String::from_utf8_lossy(b)),
            TExprKind::Builtin(b) => format!("{:?}", b).to_lowercase(),
            TExprKind::CtxLoad { offset } => format!("ctx[{}]", offset),
            TExprKind::CtxBuf { offset, len } => format!("ctx[{}..{}]", offset, offset + len),
            TExprKind::CtxDataLoc { offset } => format!("data_loc(ctx[{}])", offset),
            TExprKind::Var(v) => self.var(*v),
            TExprKind::MapGet { map, keys } => format!("{}{}", self.map(*map), self.keys(keys)),
            TExprKind::ReadBuf { ptr, len, user } => format!(
                "buf{}({}, {})",
                if *user { "_user" } else { "" },
                self.expr(ptr),
                self.expr(len)
            ),
            TExprKind::StrLen(s) => format!("len({})", self.expr(s)),
            TExprKind::PercpuAddr { var, cpu: Some(c) } => {
                format!("per_cpu_ptr(btf#{}, {})", var, self.expr(c))
            }
            TExprKind::PercpuAddr { var, cpu: None } => format!("this_cpu_ptr(btf#{})", var),
            TExprKind::StackLen { user, frames } => {
                format!("len({}({}))", if *user { "ustack" } else { "kstack" }, frames)
            }
            TExprKind::Bswap { arg, bytes } => format!("bswap{}({})", bytes * 8, self.expr(arg)),
            TExprKind::Inet { family, addr } => {
                format!("ntop({}, {})", self.expr(family), self.expr(addr))
            }
            TExprKind::Tuple(items) => {
                let parts: Vec<String> = items.iter().map(|i| self.expr(i)).collect();
                format!("({})", parts.join(", "))
            }
            TExprKind::Field { base, offset } => format!("{}@{}", self.expr(base), offset),
            TExprKind::MapHas { map, keys } => {
                format!("has_key({}{})", self.map(*map), self.keys(keys))
            }
            TExprKind::MapFind { map, keys, var } => {
                format!("find({}{}, {})", self.map(*map), self.keys(keys), self.var(*var))
            }
            TExprKind::MapLen { map } => format!("len({})", self.map(*map)),
            TExprKind::VarAddr(v) => format!("&{}", self.var(*v)),
            TExprKind::MapDelete { map, keys } => {
                format!("delete({}{})", self.map(*map), self.keys(keys))
            }
            TExprKind::Neg(x) => format!("-{}", self.expr(x)),
            TExprKind::Not(x) => format!("!{}", self.expr(x)),
            TExprKind::BitNot(x) => format!("~{}", self.expr(x)),
            TExprKind::Binary { op, lhs, rhs } => {
                format!("({} {} {})", self.expr(lhs), op.symbol(), self.expr(rhs))
            }
            TExprKind::Divide { op, lhs, rhs, warning } => {
                format!(
                    "({} {} {} else 1, warn event{})",
                    self.expr(lhs),
                    op.symbol(),
                    self.expr(rhs),
                    warning
                )
            }
            TExprKind::Ternary { cond, then, els } => {
                format!("({} ? {} : {})", self.expr(cond), self.expr(then), self.expr(els))
            }
            TExprKind::Cast(x) => format!("cast({})", self.expr(x)),
            TExprKind::CallFn { func, args } => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!("{}({})", self.tp.funcs[*func].name, args.join(", "))
            }
            TExprKind::Then { first, value } => {
                let mut stmts = String::new();
                first.iter().for_each(|s| self.stmt(s, 0, &mut stmts));
                let stmts: Vec<&str> = stmts.lines().map(str::trim).collect();
                format!("({{ {}; {} }})", stmts.join("; "), self.expr(value))
            }
            TExprKind::Read { ptr, offset, user } => {
                format!("read{}({} + {})", if *user { "_user" } else { "" }, self.expr(ptr), offset)
            }
            TExprKind::ReadStr { ptr, user, len } => {
                let user = if *user { "_user" } else { "" };
                match len {
                    StrRead::Bounded(n) => {
                        format!("str{}({}, {})", user, self.expr(ptr), self.expr(n))
                    }
                    _ => format!("str{}({})", user, self.expr(ptr)),
                }
            }
            TExprKind::ReadMem { ptr, user } => {
                format!("mem{}({})", if *user { "_user" } else { "" }, self.expr(ptr))
            }
            TExprKind::Strcmp(a, b) => format!("strcmp({}, {})", self.expr(a), self.expr(b)),
            TExprKind::StrContains(a, b) => {
                format!("strcontains({}, {})", self.expr(a), self.expr(b))
            }
            TExprKind::StrConcat(a, b) => {
                format!("str_concat({}, {})", self.expr(a), self.expr(b))
            }
            TExprKind::Strncmp(a, b, n) => {
                format!("strncmp({}, {}, {})", self.expr(a), self.expr(b), n)
            }
        };
        format!("{}:{}", inner, e.ty)
    }
}
