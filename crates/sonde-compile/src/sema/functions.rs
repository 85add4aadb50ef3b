//! bpftrace's functions, `fn name($a: int64, ...): int64 { ... }`, checked once each and called
//! from probes (and from functions written after them) by name. Each becomes a BPF global
//! function: the kernel's verifier checks it once for any integer arguments, however many
//! places call it. So a function's parameters and value are integers (or pointers, passed as
//! integers), and its body runs without the probe's context.

use super::check::Checker;
use crate::model::tir::{TExpr, TExprKind, TStmt, TStmtKind};
use crate::model::types::Type;
use sonde_syntax::ast::{Expr, FnDef, Span};
use sonde_syntax::diag::Diagnostic;

/// BPF passes a call's arguments in five registers.
const MOST_PARAMS: usize = 5;

/// What a call of a function is checked against.
#[derive(Clone, Debug)]
pub(super) struct FnSig {
    pub name: String,
    pub params: Vec<Type>,
    /// `Type::Void` when it returns nothing.
    pub ret: Type,
}

/// Each function's signature, its types read as casts read them; mistakes go to `diags`.
pub(super) fn signatures(
    funcs: &[FnDef],
    btf: Option<&sonde_btf::Btf>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<FnSig> {
    let mut out: Vec<FnSig> = Vec::new();
    for f in funcs {
        if out.iter().any(|s| s.name == f.name) {
            diags.push(Diagnostic::error(f.span, format!("`fn {}` is defined twice", f.name)));
        }
        if super::builtins::table::call(&f.name, false).is_some()
            || super::builtins::table::call(&f.name, true).is_some()
        {
            let msg = format!("`fn {}` has the name of a builtin function", f.name);
            diags.push(Diagnostic::error(f.span, msg).with_help("give it another name"));
        }
        if f.params.len() > MOST_PARAMS {
            let msg = format!(
                "`fn {}` takes {} parameters; a BPF function takes at most {MOST_PARAMS}",
                f.name,
                f.params.len()
            );
            diags.push(Diagnostic::error(f.span, msg).with_help("pass the others through a map"));
        }
        let mut param = |ty: &sonde_syntax::ast::TypeName, span: Span, what: &str| {
            let resolved = match ty.base.as_str() {
                "string" | "str" if ty.pointers == 0 => Ok(Type::Str(0)),
                _ => super::typename::resolve(ty, btf),
            };
            match resolved {
                Ok(t @ (Type::Int { .. } | Type::Ptr { .. })) => t,
                Ok(Type::Void) if what == "returns" => Type::Void,
                Ok(_) => {
                    let msg = format!("a function's {what} an integer or a pointer, not `{ty}`");
                    diags.push(Diagnostic::error(span, msg));
                    Type::S64
                }
                Err(e) => {
                    diags.push(Diagnostic::error(span, e));
                    Type::S64
                }
            }
        };
        let params = f.params.iter().map(|p| param(&p.ty, p.span, "parameter is")).collect();
        let ret = f.ret.as_ref().map_or(Type::Void, |t| param(t, t.span, "returns"));
        out.push(FnSig { name: f.name.clone(), params, ret });
    }
    out
}

impl Checker<'_> {
    /// The body of function `index`: its parameters are its first variables, then the value
    /// `return value;` sets.
    pub(super) fn fn_body(&mut self, f: &FnDef, index: usize) -> Vec<TStmt> {
        let sig = self.funcs[index].clone();
        self.in_fn = Some(index);
        for (p, ty) in f.params.iter().zip(&sig.params) {
            let v = self.declare(&p.name, ty.clone());
            self.vars[v].declared = true;
        }
        if sig.ret != Type::Void {
            self.declare("(return value)", sig.ret.clone());
        }
        let body = self.scoped(&f.body);
        self.in_fn = None;
        body
    }

    /// `return value;` in a function: its value, converted to the function's type, then back.
    /// (The parser writes a probe's `return value;` as the value dropped, then `return`.)
    pub(super) fn return_value(&mut self, value: &Expr, span: Span) -> Option<TStmtKind> {
        let Some(index) = self.in_fn else {
            let msg = "internal error: `return VALUE` outside a `fn`";
            self.error(Diagnostic::error(span, msg));
            return None;
        };
        let params = self.funcs[index].params.len();
        if self.funcs[index].ret == Type::Void {
            let msg = format!("`fn {}` returns nothing: write `return;`", self.funcs[index].name);
            self.error(Diagnostic::error(span, msg));
            return None;
        }
        let v = self.scalar(value, "a function's value");
        let v = self.convert_for(params, value, v)?;
        Some(TStmtKind::Seq(vec![
            TStmt { kind: TStmtKind::SetVar { var: params, value: v }, span },
            TStmt { kind: TStmtKind::Return, span },
        ]))
    }

    /// A bare `return;` in a function that returns a value is a mistake.
    pub(super) fn bare_return(&mut self, span: Span) -> Option<TStmtKind> {
        if let Some(index) = self.in_fn.filter(|&i| self.funcs[i].ret != Type::Void) {
            let msg =
                format!("`fn {}` returns a value: write `return VALUE;`", self.funcs[index].name);
            self.error(Diagnostic::error(span, msg));
            return None;
        }
        Some(TStmtKind::Return)
    }

    /// `name(args)` where `name` is a function of the program; None when it is not one.
    pub(super) fn fn_call(&mut self, name: &str, args: &[Expr], span: Span) -> Option<TExpr> {
        let index = self.funcs.iter().position(|f| f.name == name)?;
        let sig = self.funcs[index].clone();
        // The verifier refuses recursion; a function calls only those written before it.
        if self.in_fn.is_some_and(|current| index >= current) {
            let msg = format!("`{name}()` is not written before this function: a BPF function calls only functions defined above it, never itself");
            self.error(Diagnostic::error(span, msg));
            return Some(self.poisoned(span));
        }
        if args.len() != sig.params.len() {
            let msg =
                format!("`{name}()` takes {} argument(s), {} given", sig.params.len(), args.len());
            self.error(Diagnostic::error(span, msg));
            return Some(self.poisoned(span));
        }
        let mut typed = Vec::new();
        for (a, ty) in args.iter().zip(&sig.params) {
            let v = self.scalar(a, "a function's argument");
            typed.push(TExpr { span: v.span, kind: TExprKind::Cast(Box::new(v)), ty: ty.clone() });
        }
        Some(TExpr { kind: TExprKind::CallFn { func: index, args: typed }, ty: sig.ret, span })
    }
}
