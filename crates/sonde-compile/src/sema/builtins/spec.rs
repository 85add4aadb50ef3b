//! What the registry says about one builtin: where it is written, its arguments, what it gives,
//! the sentence a wrong call gets, and how the checker types a use of it.

use crate::model::tir::{AggFunc, Builtin, TExpr, TStmtKind};
use crate::sema::check::Checker;

/// An aggregation and the value it takes (none for `count()`); `None` after an error.
pub(in crate::sema) type Aggregate = Option<(AggFunc, Option<TExpr>)>;
use crate::model::types::Type;
use sonde_syntax::ast::{Expr, ExprKind, Span};

/// Where a builtin is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A name: `pid`. With `call`, bpftrace's spelling as a call (`pid()`) is one too. With
    /// `shadowed`, a map or a script's enum of the same name wins: bpftrace's names that came
    /// after ply's leave the programs that already used them as names of their own unchanged.
    Variable { call: bool, shadowed: bool },
    /// A call that is a value: `str(p)`.
    Function,
    /// A call that is a statement and gives nothing: `printf(...)`.
    Statement,
    /// A call assigned to a map element: `@n[comm] = count()`.
    Aggregation,
}

/// What an argument is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Any value.
    Value,
    /// An integer (or a pointer).
    Integer,
    /// A string.
    String,
    /// A pointer or an integer address.
    Address,
    /// A constant integer.
    Constant,
    /// A string literal: anything else is answered with the builtin's usage sentence.
    StrLiteral,
    /// A string literal the builtin checks itself, with a sentence of its own.
    Text,
    /// A literal: an integer, `true`/`false` or a string.
    Literal,
    /// A map named whole: `@m`.
    Map,
    /// A type: `struct task_struct`. Anything else gets the usage sentence.
    Type,
    /// A type or a value.
    TypeOrValue,
    /// A member's name, `comm` or `thread_info.flags`.
    Member,
    /// A stack's print mode: `bpftrace`, `perf` or `raw`.
    Mode,
    /// A signal: its name as a string or its number.
    Signal,
}

impl Kind {
    /// Does `e` have the form this kind asks for? Only forms are checked before the builtin's
    /// own checks; types and values are the builtin's business.
    pub fn written_as(self, e: &Expr) -> bool {
        match self {
            Kind::StrLiteral => matches!(e.kind, ExprKind::Str(_)),
            Kind::Type => matches!(e.kind, ExprKind::TypeArg(_)),
            _ => true,
        }
    }

    /// Kinds whose form is checked by `written_as`.
    pub fn is_form(self) -> bool {
        matches!(self, Kind::StrLiteral | Kind::Type)
    }
}

/// One argument: its name in the docs, its kind, whether it may be left out or repeated.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    pub kind: Kind,
    pub optional: bool,
    /// The last argument may be given any number of times (at least once unless optional).
    pub repeats: bool,
}

/// A required argument.
pub const fn arg(name: &'static str, kind: Kind) -> Param {
    Param { name, kind, optional: false, repeats: false }
}

/// An argument that may be left out.
pub const fn opt(name: &'static str, kind: Kind) -> Param {
    Param { name, kind, optional: true, repeats: false }
}

/// The last argument, given once or more.
pub const fn many(name: &'static str, kind: Kind) -> Param {
    Param { name, kind, optional: false, repeats: true }
}

/// The last argument, given any number of times.
pub const fn any(name: &'static str, kind: Kind) -> Param {
    Param { name, kind, optional: true, repeats: true }
}

/// What a use of the builtin gives.
#[derive(Clone, Debug)]
pub enum Returns {
    /// Always this type; the checker's result is held to it.
    Type(&'static Type),
    /// A type that depends on the use, said in words.
    Computed(&'static str),
    /// Nothing: a statement.
    Nothing,
}

/// One builtin.
pub struct Spec {
    pub name: &'static str,
    /// Other spellings of the same builtin (`execname` for `comm`).
    pub also: &'static [&'static str],
    pub form: Form,
    pub params: &'static [Param],
    /// What a call takes, in words, after "NAME() takes": the sentence a wrong call gets.
    pub takes: &'static str,
    /// A help line under that sentence, with examples, where the sentence has none.
    pub usage_help: Option<&'static str>,
    pub returns: Returns,
    /// One line for the docs.
    pub doc: &'static str,
    /// A whole program that uses it (the tests compile every one).
    pub example: &'static str,
    pub(in crate::sema) check: Check,
}

/// An entry that says only where it is written and how it is checked: the tables fill in the
/// rest (`Spec { name: "pid", ..BASE }`).
pub(in crate::sema) const fn base(form: Form, check: Check) -> Spec {
    Spec {
        name: "",
        also: &[],
        form,
        params: &[],
        takes: "",
        usage_help: None,
        returns: Returns::Nothing,
        doc: "",
        example: "",
        check,
    }
}

/// How the checker types a use.
pub(in crate::sema) enum Check {
    /// A variable that is a value the program reads as it runs (`Returns::Type` is its type).
    Builtin(Builtin),
    /// A variable typed by the checker: the name as written, its span.
    Var(fn(&mut Checker, &str, Span) -> TExpr),
    /// A call that is a value.
    Value(fn(&mut Checker, &Call) -> TExpr),
    /// A call that is a statement; `None` after an error.
    Stmt(fn(&mut Checker, &Call) -> Option<TStmtKind>),
    /// An aggregation and its argument; `None` after an error.
    Agg(fn(&mut Checker, &Call) -> Aggregate),
}

/// One call of a builtin, as the checkers are handed it.
pub(in crate::sema) struct Call<'e> {
    pub spec: &'static Spec,
    /// The name as written (`dyn` for `str`).
    pub name: &'e str,
    pub args: &'e [Expr],
    pub span: Span,
}

impl Spec {
    /// The name and the other spellings.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        std::iter::once(self.name).chain(self.also.iter().copied())
    }

    /// The type every use gives, when the registry says one.
    pub fn fixed_type(&self) -> Option<&Type> {
        match &self.returns {
            Returns::Type(t) => Some(t),
            _ => None,
        }
    }

    /// The fewest and the most arguments (`None`: no limit).
    pub fn arity(&self) -> (usize, Option<usize>) {
        let min = self.params.iter().filter(|p| !p.optional).count();
        let max = match self.params.last() {
            Some(p) if p.repeats => None,
            _ => Some(self.params.len()),
        };
        (min, max)
    }

    /// Do these arguments fit: their number, and the form of those whose kind is a form?
    pub fn fits(&self, args: &[Expr]) -> bool {
        let (min, max) = self.arity();
        let counted = args.len() >= min && max.is_none_or(|m| args.len() <= m);
        counted && args.iter().enumerate().all(|(i, a)| self.param(i).kind.written_as(a))
    }

    /// The parameter argument `i` is given for (a repeated last one for all after it).
    fn param(&self, i: usize) -> &Param {
        let last = self.params.len().saturating_sub(1);
        &self.params[i.min(last)]
    }

    /// The usage sentence: `NAME() takes ...`.
    pub fn usage(&self, name: &str) -> String {
        let takes = if self.takes.is_empty() { "no arguments" } else { self.takes };
        format!("{}() takes {}", name, takes)
    }

    /// How a use is written, for the docs: `pid`, `str(addr[, size])`, `ntop([family, ]addr)`.
    pub fn signature(&self) -> String {
        if let Form::Variable { .. } = self.form {
            return self.name.to_string();
        }
        let mut out = format!("{}(", self.name);
        let mut sep = "";
        for (i, p) in self.params.iter().enumerate() {
            let mut piece = match p.kind {
                Kind::StrLiteral | Kind::Text => format!("\"{}\"", p.name),
                Kind::Map => format!("@{}", p.name),
                _ => p.name.to_string(),
            };
            if p.repeats {
                piece.push_str("...");
            }
            let leading = p.optional && i == 0 && self.params.len() > 1;
            out.push_str(&match (p.optional, leading) {
                (true, true) => format!("[{}, ]", piece),
                (true, false) => format!("[{}{}]", sep, piece),
                (false, _) => format!("{}{}", sep, piece),
            });
            sep = if leading { "" } else { ", " };
        }
        out.push(')');
        out
    }
}
