//! Typing statements: assignments, aggregations, output calls, control flow.

use super::check::Checker;
use super::tir::{AggFunc, EventDef, EventKind, MapValue, TExpr, TExprKind, TStmt, TStmtKind};
use crate::types::Type;
use sonde_output::printf::{self, Piece};
use sonde_syntax::ast::{BinOp, Block, Expr, ExprKind, Probe, Span, Stmt, StmtKind};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    pub fn probe(&mut self, probe: &Probe) -> (Option<TExpr>, Vec<TStmt>) {
        let pred = probe.predicate.as_ref().map(|p| self.scalar(p, "a predicate"));
        let body = self.block(&probe.body);
        (pred, body)
    }

    fn block(&mut self, b: &Block) -> Vec<TStmt> {
        self.scoped(b)
    }

    pub(super) fn stmt(&mut self, s: &Stmt) -> Option<TStmt> {
        let span = s.span;
        let kind = match &s.kind {
            StmtKind::Expr(e) => return self.call_stmt(e),
            StmtKind::Assign { target, value } => self.assign(target, value)?,
            StmtKind::AssignOp { target, op, value } => {
                // `x op= v` is `x = x op v`.
                let combined = Expr {
                    kind: ExprKind::Binary {
                        op: *op,
                        lhs: Box::new(target.clone()),
                        rhs: Box::new(value.clone()),
                    },
                    span,
                };
                if let ExprKind::Map { name, .. } = &target.kind {
                    if let Some(MapValue::Agg { .. }) =
                        self.maps.lookup(name).and_then(|m| self.maps.value(m))
                    {
                        if *op == BinOp::Add && is_one(value) {
                            // `@x++` on an aggregation counts, as in bpftrace.
                            let count = Expr {
                                kind: ExprKind::Call { name: "count".into(), args: vec![] },
                                span,
                            };
                            return self.assign(target, &count).map(|kind| TStmt { kind, span });
                        }
                    }
                }
                self.assign(target, &combined)?
            }
            StmtKind::If { cond, then, els } => {
                let cond = self.scalar(cond, "an `if` condition");
                let then = self.block(then);
                let els = els.as_ref().map(|b| self.block(b)).unwrap_or_default();
                TStmtKind::If { cond, then, els }
            }
            StmtKind::Return => TStmtKind::Return,
            StmtKind::Delete(e) => match &e.kind {
                ExprKind::Map { name, keys } => {
                    let map = self.maps.get_or_create(name, e.span);
                    let keys = self.map_keys(map, keys, e.span);
                    TStmtKind::Delete { map, keys }
                }
                _ => {
                    self.error(Diagnostic::error(
                        e.span,
                        "delete takes a map element: `delete m[key]`",
                    ));
                    return None;
                }
            },
            StmtKind::Let { name, ty, value } => {
                self.let_stmt(name, ty.as_ref(), value.as_ref(), span)?
            }
            StmtKind::While { cond, body } => self.while_stmt(cond, body),
            StmtKind::For { var, iter, body } => self.for_stmt(var, iter, body, span)?,
            StmtKind::Unroll { count, body } => self.unroll(count, body)?,
            StmtKind::Break | StmtKind::Continue => self.jump(s)?,
            StmtKind::Seq(b) => {
                TStmtKind::Seq(b.stmts.iter().filter_map(|s| self.stmt(s)).collect())
            }
            StmtKind::Block(b) => {
                let stmts = self.block(b);
                TStmtKind::If {
                    cond: TExpr { kind: TExprKind::Int(1), ty: Type::S64, span },
                    then: stmts,
                    els: vec![],
                }
            }
        };
        Some(TStmt { kind, span })
    }

    fn assign(&mut self, target: &Expr, value: &Expr) -> Option<TStmtKind> {
        match &target.kind {
            ExprKind::Var(name) => {
                let v = self.expr(value);
                if matches!(v.ty, Type::Void | Type::Struct(_)) {
                    self.error(Diagnostic::error(
                        value.span,
                        format!("a variable cannot hold a `{}`", v.ty),
                    ));
                    return None;
                }
                let var = match self.var_index(name) {
                    Some(i) if self.vars[i].ty == Type::Void => {
                        // `let $x;` learns its type here.
                        self.vars[i].ty = v.ty.clone();
                        i
                    }
                    Some(i) => {
                        if !self.vars[i].ty.compatible(&v.ty) {
                            let msg = format!(
                                "`${}` holds a `{}`, cannot assign a `{}`",
                                name, self.vars[i].ty, v.ty
                            );
                            self.error(Diagnostic::error(value.span, msg));
                            return None;
                        }
                        // A longer string widens the variable (pass 2 starts at the widest).
                        if let (Type::Str(a), Type::Str(b)) = (&self.vars[i].ty, &v.ty) {
                            if b > a {
                                self.vars[i].ty = Type::Str(*b);
                            }
                        }
                        i
                    }
                    None => {
                        let outer = self.scopes.len();
                        // A variable assigned without `let` belongs to the whole probe.
                        let saved = std::mem::take(&mut self.scopes);
                        let i = self.declare(name, v.ty.clone());
                        self.scopes = saved;
                        debug_assert_eq!(outer, self.scopes.len());
                        i
                    }
                };
                Some(TStmtKind::SetVar { var, value: v })
            }
            ExprKind::Map { name, keys } => {
                let map = self.maps.get_or_create(name, target.span);
                if let ExprKind::Call { name: f, args } = &value.kind {
                    if let Some(agg) = self.aggregation(f, args, value.span) {
                        let Some((func, arg)) = agg else {
                            self.maps.assignment_failed(map);
                            return None;
                        };
                        let signed = arg.as_ref().is_some_and(|a| a.ty.is_signed());
                        if let Err(d) =
                            self.maps.use_value(map, MapValue::Agg { func, signed }, value.span)
                        {
                            self.error(d);
                        }
                        let keys = self.map_keys(map, keys, target.span);
                        return Some(TStmtKind::Aggregate { map, keys, func, arg });
                    }
                }
                let keys = self.map_keys(map, keys, target.span);
                let before = self.diags.len();
                let v = self.expr(value);
                if self.diags.len() > before {
                    self.maps.assignment_failed(map);
                }
                if matches!(v.ty, Type::Void | Type::Struct(_) | Type::Array { .. }) {
                    self.maps.assignment_failed(map);
                    self.error(Diagnostic::error(
                        value.span,
                        format!("a map cannot hold a `{}`", v.ty),
                    ));
                    return None;
                }
                if let Err(d) = self.maps.use_value(map, MapValue::Plain(v.ty.clone()), value.span)
                {
                    self.error(d);
                }
                Some(TStmtKind::MapStore { map, keys, value: v })
            }
            _ => {
                self.error(Diagnostic::error(
                    target.span,
                    "only maps (`@name[key]`) and variables (`$name`) can be assigned",
                ));
                None
            }
        }
    }

    /// `Some` if `name` is an aggregation function; inner `None` after an error.
    fn aggregation(
        &mut self,
        name: &str,
        args: &[Expr],
        span: Span,
    ) -> Option<Option<(AggFunc, Option<TExpr>)>> {
        let func = match name {
            "count" => AggFunc::Count,
            "sum" => AggFunc::Sum,
            "min" => AggFunc::Min,
            "max" => AggFunc::Max,
            "avg" => AggFunc::Avg,
            "stats" => AggFunc::Stats,
            "quantize" | "hist" => AggFunc::Quantize,
            "lhist" => {
                if args.len() != 4 {
                    self.error(Diagnostic::error(span, "lhist() takes a value, a minimum, a maximum and a step: lhist(x, 0, 100, 10)"));
                    return Some(None);
                }
                let mut consts = [0i64; 3];
                for (i, a) in args[1..].iter().enumerate() {
                    consts[i] = match constant(a) {
                        Some(v) => v,
                        None => {
                            self.error(Diagnostic::error(
                                a.span,
                                "lhist()'s bounds and step must be constant integers",
                            ));
                            return Some(None);
                        }
                    };
                }
                let [min, max, step] = consts;
                if step <= 0 || max <= min || (max - min) / step > 1000 {
                    self.error(Diagnostic::error(
                        span,
                        "lhist() needs min < max and 0 < step, with at most 1000 buckets",
                    ));
                    return Some(None);
                }
                let arg = self.scalar(&args[0], "lhist()'s value");
                return Some(Some((AggFunc::Lhist { min, max, step }, Some(arg))));
            }
            _ => return None,
        };
        let want = if func == AggFunc::Count { 0 } else { 1 };
        if args.len() != want {
            let msg = if want == 0 {
                "count() takes no arguments".to_string()
            } else {
                format!("{}() takes one value", name)
            };
            self.error(Diagnostic::error(span, msg));
            return Some(None);
        }
        let arg = args.first().map(|a| self.scalar(a, &format!("{}()'s value", name)));
        Some(Some((func, arg)))
    }

    /// Statements that are calls: printf, print, exit, clear...
    fn call_stmt(&mut self, e: &Expr) -> Option<TStmt> {
        let span = e.span;
        let ExprKind::Call { name, args } = &e.kind else {
            self.error(Diagnostic::error(
                span,
                "this expression does nothing: assign it or print it",
            ));
            return None;
        };
        let kind = match name.as_str() {
            "printf" => self.printf(args, span)?,
            "signal" => self.signal(args, span)?,
            "join" => self.join(args, span)?,
            "warnf" | "errorf" | "system" => self.formatted(name, args, span)?,
            "override" => self.override_return(args, span)?,
            "cat" => {
                let [Expr { kind: ExprKind::Str(path), .. }] = args.as_slice() else {
                    self.error(Diagnostic::error(span, "cat() takes a file name as a string literal, like `cat(\"/proc/loadavg\")` (bpftrace's format arguments are not supported)"));
                    return None;
                };
                let kind = EventKind::Cat { path: path.clone() };
                let event = self.add_event(EventDef { kind, args: vec![] });
                TStmtKind::Emit { event, args: vec![] }
            }
            "time" => self.printf(&time_as_printf(args, span), span)?,
            "print" => {
                // `print(@m)`, and bpftrace's `print(@m, N)`: the N largest entries.
                let whole_map = match args.as_slice() {
                    [one] => Some((one, 0)),
                    [one, Expr { kind: ExprKind::Int(n), .. }] if is_map_name(one) => {
                        Some((one, *n as usize))
                    }
                    [one, _, _] if is_map_name(one) => {
                        self.error(Diagnostic::error(span, "print(@map, top, div) is bpftrace's; sonde prints the top entries as they are: write `print(@map, top)`"));
                        return None;
                    }
                    _ => None,
                };
                if let Some((one, top)) = whole_map {
                    if let Some(map) = self.map_operand(one) {
                        let event = self.add_event(EventDef {
                            kind: EventKind::PrintMap { map, top },
                            args: vec![],
                        });
                        return Some(TStmt { kind: TStmtKind::Emit { event, args: vec![] }, span });
                    }
                }
                let values: Vec<TExpr> = args.iter().map(|a| self.expr(a)).collect();
                let types = values.iter().map(|v| v.ty.clone()).collect();
                let event = self.add_event(EventDef { kind: EventKind::Print, args: types });
                TStmtKind::Emit { event, args: values }
            }
            "exit" => {
                let code = match args.len() {
                    0 => TExpr { kind: TExprKind::Int(0), ty: Type::S64, span },
                    1 => self.scalar(&args[0], "the exit code"),
                    _ => {
                        self.error(Diagnostic::error(
                            span,
                            "exit() takes at most one argument, the exit code",
                        ));
                        return None;
                    }
                };
                let event =
                    self.add_event(EventDef { kind: EventKind::Exit, args: vec![Type::S64] });
                TStmtKind::Exit { event, code }
            }
            "clear" | "zero" => {
                let map = match args.as_slice() {
                    [one] => self.map_operand(one),
                    _ => None,
                };
                let Some(map) = map else {
                    self.error(Diagnostic::error(
                        span,
                        format!("{}() takes one map, e.g. `{}(@name)`", name, name),
                    ));
                    return None;
                };
                let event =
                    self.add_event(EventDef { kind: EventKind::ClearMap { map }, args: vec![] });
                TStmtKind::Emit { event, args: vec![] }
            }
            "delete" => {
                let [target] = args.as_slice() else {
                    self.error(Diagnostic::error(
                        span,
                        "delete() takes one map element: `delete(@m[key])`",
                    ));
                    return None;
                };
                return self.stmt(&Stmt { kind: StmtKind::Delete(target.clone()), span });
            }
            _ => {
                // Evaluate for its errors (unknown function, misuse); if it has none, say it does
                // nothing (one complaint per mistake is enough).
                let before = self.diags.len();
                self.expr(e);
                if self.diags.len() == before {
                    self.error(Diagnostic::error(
                        span,
                        format!("the value of `{}()` is unused", name),
                    ));
                }
                return None;
            }
        };
        Some(TStmt { kind, span })
    }

    /// A map named as a whole (`@m`, `m`) in print/clear.
    fn map_operand(&mut self, e: &Expr) -> Option<usize> {
        match &e.kind {
            ExprKind::Map { name, keys } if keys.is_empty() => {
                self.maps.lookup(name).or_else(|| {
                    if self.discovering {
                        Some(self.maps.get_or_create(name, e.span))
                    } else {
                        self.error(Diagnostic::error(
                            e.span,
                            format!("map `{}` is never assigned", name),
                        ));
                        None
                    }
                })
            }
            ExprKind::Ident(name) => self.maps.lookup(name),
            _ => None,
        }
    }

    pub(super) fn printf(&mut self, args: &[Expr], span: Span) -> Option<TStmtKind> {
        let Some(Expr { kind: ExprKind::Str(format), span: fspan }) = args.first() else {
            self.error(Diagnostic::error(
                span,
                "printf() needs a format string literal as its first argument",
            ));
            return None;
        };
        let pieces = match printf::parse(format) {
            Ok(p) => p,
            Err(e) => {
                self.error(Diagnostic::error(*fspan, format!("bad printf format: {}", e)));
                return None;
            }
        };
        let specs: Vec<_> = pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Conv(s) => Some(s),
                _ => None,
            })
            .collect();
        let values: Vec<TExpr> = args[1..].iter().map(|a| self.expr(a)).collect();
        if specs.len() != values.len() {
            self.error(Diagnostic::error(
                span,
                format!(
                    "the format has {} conversion(s) but {} value(s) follow it",
                    specs.len(),
                    values.len()
                ),
            ));
            return None;
        }
        let mut types = Vec::new();
        for (spec, v) in specs.iter().zip(&values) {
            // Timestamps and kernel addresses print as text with %s and as numbers otherwise.
            let textual = matches!(
                v.ty,
                Type::Walltime
                    | Type::Strftime(_)
                    | Type::CgroupPath
                    | Type::Strerror
                    | Type::SyscallName
                    | Type::Username
                    | Type::Sym
                    | Type::USym
                    | Type::Stack { .. }
            );
            let ok = if spec.wants_any() {
                true
            } else if spec.wants_string() {
                textual || matches!(v.ty, Type::Str(_) | Type::Bytes(_) | Type::Inet | Type::Buf(_))
            } else {
                v.ty.is_scalar()
            };
            let as_number = textual && !spec.wants_string() && !spec.wants_any();
            types.push(if as_number { Type::U64 } else { v.ty.clone() });
            if !ok {
                let want = if spec.wants_string() { "a string" } else { "an integer" };
                self.error(
                    Diagnostic::error(
                        v.span,
                        format!("`%{}` needs {}, found `{}`", spec.conv, want, v.ty),
                    )
                    .with_label(*fspan, "format here"),
                );
            }
        }
        let event = self.add_event(EventDef {
            kind: EventKind::Printf { format: format.clone() },
            args: types,
        });
        Some(TStmtKind::Emit { event, args: values })
    }
}

/// `@m` (a map named without keys), as `print(@m, N)` takes it.
fn is_map_name(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Map { keys, .. } if keys.is_empty())
}

fn is_one(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Int(1))
}

/// A constant integer, allowing a leading minus.
pub(super) fn constant(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v) => Some(*v as i64),
        ExprKind::Unary { op: sonde_syntax::ast::UnOp::Neg, expr } => constant(expr).map(|v| -v),
        _ => None,
    }
}

/// bpftrace's `time(fmt)` (default `"%H:%M:%S\n"`) is `printf("%s", strftime(fmt, nsecs))`.
fn time_as_printf(args: &[Expr], span: Span) -> Vec<Expr> {
    let e = |kind| Expr { kind, span };
    let format = match args.first() {
        Some(f) => f.clone(),
        None => e(ExprKind::Str(b"%H:%M:%S\n".to_vec())),
    };
    let mut rest: Vec<Expr> = vec![format, e(ExprKind::Ident("nsecs".into()))];
    rest.extend(args.iter().skip(1).cloned());
    let call = e(ExprKind::Call { name: "strftime".into(), args: rest });
    vec![e(ExprKind::Str(b"%s".to_vec())), call]
}
