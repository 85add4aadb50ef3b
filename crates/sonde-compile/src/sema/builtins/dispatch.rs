//! Uses of builtins, checked through the registry: the arguments' number and form first (the
//! usage sentence), then the builtin's own checker; names that are none get the nearest.

use super::spec::{Aggregate, Call, Check, Form, Spec};
use super::table;
use crate::model::tir::{TExpr, TExprKind, TStmtKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{Expr, Span};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// A call in an expression: a function, a variable spelled as a call, or a mistake.
    pub(in crate::sema) fn call_expr(&mut self, name: &str, args: &[Expr], span: Span) -> TExpr {
        if let Some(call) = self.fn_call(name, args, span) {
            return call;
        }
        let name = table::unprefixed(name);
        let Some(spec) = table::call(name, args.is_empty()) else {
            return self.unknown_function(name, span);
        };
        let c = Call { spec, name, args, span };
        match (&spec.check, spec.form) {
            (Check::Value(check), _) if spec.fits(args) => {
                let t = check(self, &c);
                held_to_its_type(spec, &t);
                t
            }
            (Check::Value(_), _) => self.usage(&c),
            (Check::Stmt(_), _) => {
                let msg = format!("{}() returns nothing; call it as a statement", name);
                self.error(Diagnostic::error(span, msg));
                self.poisoned(span)
            }
            (Check::Agg(_), _) => {
                let msg = format!("{}() is an aggregation: assign it to a map", name);
                let help = format!("for example `@name[key] = {}(...)`", name);
                self.error(Diagnostic::error(span, msg).with_help(help));
                self.poisoned(span)
            }
            (_, Form::Variable { call: true, .. }) if args.is_empty() => {
                self.variable(spec, name, span)
            }
            (_, Form::Variable { call: true, .. })
                if args.len() == 1 && super::variables::task_path(name).is_some() =>
            {
                self.task_field(name, Some(&args[0]), span)
            }
            (_, Form::Variable { call: true, .. }) => self.usage(&c),
            _ => {
                let msg = format!("`{}` is a variable, not a function: write `{}`", name, name);
                self.error(Diagnostic::error(span, msg));
                self.poisoned(span)
            }
        }
    }

    /// A builtin statement (`printf(...)`); `None` when `name` is none, `Some(None)` after an
    /// error.
    pub(in crate::sema) fn statement_call(
        &mut self,
        name: &str,
        args: &[Expr],
        span: Span,
    ) -> Option<Option<TStmtKind>> {
        let spec = table::statement(name)?;
        let Check::Stmt(check) = spec.check else { return None };
        Some(self.checked(Call { spec, name, args, span }, check))
    }

    /// An aggregation assigned to a map (`count()`); `None` when `name` is none, `Some(None)`
    /// after an error.
    pub(in crate::sema) fn aggregation(
        &mut self,
        name: &str,
        args: &[Expr],
        span: Span,
    ) -> Option<Aggregate> {
        let spec = table::aggregation(name)?;
        let Check::Agg(check) = spec.check else { return None };
        Some(self.checked(Call { spec, name, args, span }, check))
    }

    /// The call handed to its checker when its arguments fit, else its usage sentence.
    fn checked<T>(&mut self, c: Call, check: fn(&mut Checker, &Call) -> Option<T>) -> Option<T> {
        if !c.spec.fits(c.args) {
            return self.usage_error(&c);
        }
        check(self, &c)
    }

    /// A builtin variable, or `None` when `name` is none. With `shadowed`, only those that a
    /// map or script enum of the same name would not hide (the caller looks for those first),
    /// else only those they would.
    pub(in crate::sema) fn builtin_variable(
        &mut self,
        name: &str,
        span: Span,
        shadowed: bool,
    ) -> Option<TExpr> {
        let name = table::unprefixed(name);
        let spec = table::variable(name)?;
        match spec.form {
            Form::Variable { shadowed: s, .. } if s == shadowed => {
                Some(self.variable(spec, name, span))
            }
            _ => None,
        }
    }

    fn variable(&mut self, spec: &'static Spec, name: &str, span: Span) -> TExpr {
        match &spec.check {
            Check::Builtin(b) => {
                let ty = spec.fixed_type().cloned().unwrap_or(Type::U64);
                TExpr { kind: TExprKind::Builtin(*b), ty, span }
            }
            Check::Var(check) => check(self, name, span),
            _ => self.poisoned(span),
        }
    }

    /// The builtin's usage sentence for this call, said at `span`.
    pub(super) fn usage_at(&mut self, c: &Call, span: Span) -> TExpr {
        let mut d = Diagnostic::error(span, c.spec.usage(c.name));
        if let Some(help) = c.spec.usage_help {
            d = d.with_help(help);
        }
        self.error(d);
        self.poisoned(span)
    }

    /// The usage sentence, said at the call.
    pub(super) fn usage(&mut self, c: &Call) -> TExpr {
        self.usage_at(c, c.span)
    }

    /// The usage sentence, for checkers that give nothing after an error.
    pub(super) fn usage_error<T>(&mut self, c: &Call) -> Option<T> {
        self.usage(c);
        None
    }

    fn unknown_function(&mut self, name: &str, span: Span) -> TExpr {
        let mut d = Diagnostic::error(span, format!("unknown function `{}`", name));
        if let Some(best) = sonde_syntax::closest(name, table::call_names()) {
            d = d.with_help(format!("did you mean `{}`?", best));
        }
        self.error(d);
        self.poisoned(span)
    }

    pub(in crate::sema) fn unknown_variable(&mut self, name: &str, span: Span) -> TExpr {
        let mut d = Diagnostic::error(span, format!("unknown variable `{}`", name));
        if let Some(best) = sonde_syntax::closest(name, table::variable_names()) {
            d = d.with_help(format!("did you mean `{}`?", best));
        }
        self.error(d);
        self.poisoned(span)
    }
}

/// A function the registry gives a type returns that type, or the placeholder of an error.
fn held_to_its_type(spec: &Spec, t: &TExpr) {
    let placeholder = matches!(t.kind, TExprKind::Int(0)) && t.ty == Type::S64;
    debug_assert!(
        placeholder || spec.fixed_type().is_none_or(|ty| *ty == t.ty),
        "{}() gave a `{}`, not the registry's type",
        spec.name,
        t.ty
    );
}
