//! bpftrace's map iteration, `for ($kv : @map) { ... $kv.0 ... $kv.1 ... }`: the body runs once
//! per element with `$kv` the tuple (key, value), the key itself a tuple when the map has several
//! (`$kv.0.1`). It becomes a callback of `bpf_for_each_map_elem` (kernel 5.13), which has no
//! probe context: the probe's variables are copied in and out (lower/map_for.rs), and what needs
//! the context (`args`, `argN`, `retval`, `regs`, `func`, stacks) is refused in the body. Over an
//! aggregation, `$kv.1` is its CPUs' values combined (agg_read.rs).

use super::check::Checker;
use crate::model::tir::{MapValue, TStmtKind};
use crate::model::types::Type;
use sonde_syntax::ast::{Block, Expr, ExprKind, Span};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    pub(super) fn map_for(
        &mut self,
        var: &str,
        m: &Expr,
        body: &Block,
        span: Span,
    ) -> Option<TStmtKind> {
        let ExprKind::Map { name, keys } = &m.kind else {
            let d = Diagnostic::error(m.span, "a `for` loop runs over a map or a range")
                .with_help("write `for ($kv : @map) { ... }` or `for ($i : 0..N) { ... }`");
            self.error(d);
            return None;
        };
        if !keys.is_empty() {
            let d =
                Diagnostic::error(m.span, "a `for` loop runs over a whole map, not one element")
                    .with_help(format!("write `for ($kv : {}) {{ ... }}`", name));
            self.error(d);
            return None;
        }
        if !self.env.has_helper(sonde_bpf::helper::FOR_EACH_MAP_ELEM) {
            let d = Diagnostic::error(
                span,
                "`for ($kv : @map)` needs the kernel's bpf_for_each_map_elem (Linux 5.13 and later), which this kernel lacks",
            )
            .with_help(format!(
                "print the map with `print({})`, or loop over a range of keys: `for ($i : 0..N) {{ ... {}[$i] ... }}`",
                name, name
            ));
            self.error(d);
            return None;
        }
        let map = self.maps.get_or_create(name, m.span);
        let value = match self.maps.value(map) {
            Some(MapValue::Plain(t)) => t.clone(),
            Some(MapValue::Agg { func, signed }) => {
                let (func, signed) = (*func, *signed);
                self.agg_read_type(map, func, signed, m.span)?
            }
            // Learnt in pass 1; pass 2 reports a map that is never assigned.
            None => Type::S64,
        };
        let key = match self.maps.keys(map) {
            Some([]) => {
                let d = Diagnostic::error(
                    m.span,
                    format!(
                        "`{}` has no keys: it holds one value, there is nothing to loop over",
                        name
                    ),
                )
                .with_help(format!("read it as `{}`", name));
                self.error(d);
                return None;
            }
            Some([k]) => k.clone(),
            Some(ks) => Type::Tuple(ks.iter().cloned().collect()),
            None => Type::S64,
        };
        self.scopes.push(Vec::new());
        let var = self.declare(var, Type::Tuple(vec![key, value].into()));
        self.map_for += 1;
        let body = self.loop_body(body);
        self.map_for -= 1;
        for i in self.scopes.pop().unwrap_or_default() {
            self.vars[i].live = false;
        }
        Some(TStmtKind::MapFor { map, var, body })
    }

    /// In a `for ($kv : @map)` body, what reads the probe's context is refused (true) with a
    /// sentence saying what to write instead.
    pub(super) fn refused_in_map_for(&mut self, span: Span) -> bool {
        if let Some(f) = self.in_fn {
            let d = Diagnostic::error(
                span,
                format!("`fn {}` runs without a probe's context: it cannot read arguments, `retval`, `regs`, `func` or stacks", self.funcs[f].name),
            )
            .with_help("read it in the probe and pass it to the function as a parameter");
            self.error(d);
            return true;
        }
        if self.map_for == 0 {
            return false;
        }
        let d = Diagnostic::error(
            span,
            "a `for` body run as a BPF callback (`for ($kv : @map)`, or a range whose bounds are known only at run time) runs without the probe's context: it cannot read arguments, `retval`, `regs`, `func` or stacks",
        )
        .with_help("read it into a variable before the loop (`$x = args.fd;`) and use the variable in the body");
        self.error(d);
        true
    }
}
