//! How many distinct keys a map can have, judged from its key expressions: a map whose keys
//! are bounded (a CPU, a probe, `x % 16`, a comparison) within `--max-series` stays a plain
//! hash, which then never fills; any other (a pid, a tid, a comm, a string, a stack, a member
//! read from the kernel) is unbounded and becomes an LRU map, where the recent series make room.
//!
//! Only what the expression itself limits counts: `args->flags` could in fact take few values,
//! but nothing in the program says so, so it is unbounded.

use sonde_syntax::ast::{BinOp, Expr, ExprKind, UnOp};

/// The most distinct values one key expression can take, once the host is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// At most this many.
    Values(u64),
    /// `cpu`: the host's possible CPUs.
    Cpus,
    /// `probe`, `func`: the program's attach points.
    Probes,
    Unbounded,
}

/// What [`Bound::Cpus`] and [`Bound::Probes`] come to on this host, for this program.
#[derive(Clone, Copy, Debug)]
pub struct Host {
    pub cpus: u64,
    pub probes: u64,
}

impl Bound {
    pub fn resolve(self, host: Host) -> Option<u64> {
        match self {
            Bound::Values(n) => Some(n),
            Bound::Cpus => Some(host.cpus),
            Bound::Probes => Some(host.probes),
            Bound::Unbounded => None,
        }
    }
}

/// The bound of one key position.
pub fn of(e: &Expr) -> Bound {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Str(_) => Bound::Values(1),
        ExprKind::Ident(n) if n == "cpu" => Bound::Cpus,
        ExprKind::Ident(n) if n == "probe" || n == "func" => Bound::Probes,
        ExprKind::Unary { op: UnOp::Not, .. } => Bound::Values(2),
        ExprKind::Binary { op, lhs, rhs } => binary(*op, lhs, rhs),
        ExprKind::Ternary { then, els, .. } => sum(of(then), of(els)),
        ExprKind::Cast { ty, .. } if ty.base == "bool" && ty.pointers == 0 => Bound::Values(2),
        ExprKind::Cast { ty, expr } if is_byte(&ty.base) && ty.pointers == 0 => {
            narrower(of(expr), 256)
        }
        _ => Bound::Unbounded,
    }
}

/// Each key position's bound in `keys`, a tuple spread.
pub fn of_keys(keys: &[Expr]) -> Vec<Bound> {
    let spread = keys.iter().flat_map(|k| match &k.kind {
        ExprKind::Tuple(elems) => elems.iter().collect::<Vec<_>>(),
        _ => vec![k],
    });
    spread.map(of).collect()
}

/// The distinct keys a map can have, written with keys of `assignments` (each one's bounds by
/// position): the sum of each one's product; None when any is unbounded or none is known.
pub fn keys(assignments: &[Vec<Bound>], host: Host) -> Option<u64> {
    let product =
        |a: &Vec<Bound>| a.iter().try_fold(1u64, |acc, b| acc.checked_mul(b.resolve(host)?));
    let mut total = None;
    for a in assignments {
        total = Some(total.unwrap_or(0u64).checked_add(product(a)?)?);
    }
    total
}

fn binary(op: BinOp, lhs: &Expr, rhs: &Expr) -> Bound {
    use BinOp::*;
    match (op, &rhs.kind) {
        (Lt | Le | Gt | Ge | Eq | Ne | And | Or, _) => Bound::Values(2),
        // A signed left side gives (-n, n): 2n - 1 values.
        (Mod, ExprKind::Int(n)) if *n > 0 => narrower(of(lhs), n.saturating_mul(2) - 1),
        (BitAnd, ExprKind::Int(m)) => narrower(of(lhs), m.saturating_add(1)),
        _ => Bound::Unbounded,
    }
}

fn sum(a: Bound, b: Bound) -> Bound {
    match (a, b) {
        (Bound::Values(a), Bound::Values(b)) => Bound::Values(a.saturating_add(b)),
        (a, b) if a == b => a,
        _ => Bound::Unbounded,
    }
}

/// `b`, or at most `n` values.
fn narrower(b: Bound, n: u64) -> Bound {
    match b {
        Bound::Values(v) => Bound::Values(v.min(n)),
        _ => Bound::Values(n),
    }
}

fn is_byte(base: &str) -> bool {
    matches!(base, "u8" | "s8" | "i8" | "int8" | "uint8" | "char" | "unsigned char")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_bound(src: &str) -> Option<u64> {
        let text = format!("tracepoint:syscalls:sys_enter_read {{ @m[{src}] = count(); }}");
        let ast = sonde_syntax::parse(&text).unwrap();
        let sonde_syntax::ast::StmtKind::Assign { target, .. } = &ast.probes[0].body.stmts[0].kind
        else {
            panic!("not an assignment")
        };
        let ExprKind::Map { keys: k, .. } = &target.kind else { panic!("not a map") };
        keys(&[of_keys(k)], Host { cpus: 4, probes: 3 })
    }

    #[test]
    fn unbounded_keys() {
        for k in ["pid", "tid", "comm", "args->flags", "$fd", "str(args->filename)", "kstack"] {
            assert_eq!(key_bound(k), None, "{k}");
        }
        assert_eq!(key_bound("cpu, pid"), None);
        assert_eq!(key_bound("pid % 0"), None);
        assert_eq!(key_bound("pid / 16"), None);
    }

    #[test]
    fn bounded_keys() {
        assert_eq!(key_bound("cpu"), Some(4));
        assert_eq!(key_bound("probe"), Some(3));
        assert_eq!(key_bound("cpu, probe"), Some(12));
        assert_eq!(key_bound("(cpu, args->ret < 0)"), Some(8));
        assert_eq!(key_bound("pid % 16"), Some(31));
        assert_eq!(key_bound("args->flags & 0xff"), Some(256));
        assert_eq!(key_bound("(u8)pid"), Some(256));
        assert_eq!(key_bound("pid == 1 ? \"init\" : \"other\""), Some(2));
        assert_eq!(key_bound("\"all\""), Some(1));
    }

    #[test]
    fn every_assignment_counts() {
        let host = Host { cpus: 4, probes: 3 };
        let cpu = vec![Bound::Cpus];
        assert_eq!(keys(&[cpu.clone(), vec![Bound::Values(2)]], host), Some(6));
        assert_eq!(keys(&[cpu, vec![Bound::Unbounded]], host), None);
        assert_eq!(keys(&[], host), None);
    }
}
