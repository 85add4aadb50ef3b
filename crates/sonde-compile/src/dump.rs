//! Printers for `-S/--dump` and golden tests: the typed program and annotated disassembly.

use crate::lower::{Compiled, ProgramDef};
use crate::sema::tir::{MapValue, TProgram};
use sonde_bpf::disasm;

/// The typed program: one line per map and event, then each probe's typed tree.
pub fn typed(tp: &TProgram) -> String {
    let mut out = String::new();
    for m in &tp.maps {
        let keys: Vec<String> = m.keys.iter().map(|k| k.to_string()).collect();
        let value = match &m.value {
            MapValue::Plain(t) => t.to_string(),
            MapValue::Agg { func, signed } => format!("{}({})", func.name(), if *signed { "signed" } else { "unsigned" }),
        };
        out.push_str(&format!("map {}[{}] -> {}\n", m.name, keys.join(", "), value));
    }
    for (i, e) in tp.events.iter().enumerate() {
        let args: Vec<String> = e.args.iter().map(|t| t.to_string()).collect();
        out.push_str(&format!("event {}: {:?} ({})\n", i, e.kind, args.join(", ")));
    }
    for p in &tp.probes {
        let sites: Vec<String> = p.sites.iter().map(|s| s.point.describe()).collect();
        out.push_str(&format!("probe {} [{}]\n", p.probe, sites.join(", ")));
        for (name, ty) in &p.vars {
            out.push_str(&format!("  var ${}: {}\n", name, ty));
        }
        crate::dump_tir::probe(tp, p, &mut out);
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
        Some(m) if i >= crate::lower::FIRST_USER_MAP && m.kind != crate::lower::MapKind::StackTrace => format!("@{}", m.name),
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
            text = text.replace(&format!("map_fd({})", map), &format!("map_fd({})", map_label(map)));
            text = text.replace(&format!("map_value({})", map), &format!("map_value({})", map_label(map)));
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
