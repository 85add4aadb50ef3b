//! The registry: every builtin, one entry each, in four tables by where it is written. The
//! checker finds uses here, wrong calls get their usage sentence from here, misspelt names their
//! nearest, and docs/builtins.md is written from it.

mod aggregations;
mod functions;
mod statements;
mod variables;

use super::spec::{Form, Spec};

/// `argN`'s entry stands for `arg0`, `arg1`...
pub const ARG_N: &str = "argN";

/// The four tables: variables, functions, statements, aggregations.
pub const TABLES: [(&str, &[Spec]); 4] = [
    ("Variables", variables::VARIABLES),
    ("Functions", functions::FUNCTIONS),
    ("Statements", statements::STATEMENTS),
    ("Aggregations", aggregations::AGGREGATIONS),
];

/// Every builtin, in the tables' order.
pub fn all() -> impl Iterator<Item = &'static Spec> {
    TABLES.into_iter().flat_map(|(_, t)| t.iter())
}

fn named(form: impl Fn(Form) -> bool, name: &str) -> Option<&'static Spec> {
    all().find(|s| form(s.form) && s.names().any(|n| n == name))
}

/// bpftrace's own spelling of every builtin, `__builtin_comm` for `comm`, which a user macro
/// or map of the same name cannot hide.
const RAW_PREFIX: &str = "__builtin_";

/// `name` without bpftrace's `__builtin_`.
pub fn unprefixed(name: &str) -> &str {
    name.strip_prefix(RAW_PREFIX).unwrap_or(name)
}

/// The variable `name` is: `pid`, or `argN` for `arg3`.
pub fn variable(name: &str) -> Option<&'static Spec> {
    let name = unprefixed(name);
    let numbered =
        name.len() > 3 && name.starts_with("arg") && name[3..].bytes().all(|c| c.is_ascii_digit());
    let name = if numbered { ARG_N } else { name };
    named(|f| matches!(f, Form::Variable { .. }), name)
}

/// What a call `name(...)` in an expression is: a function; a variable spelled as a call (with
/// no arguments); a statement or an aggregation (both refused there); a variable.
pub fn call(name: &str, no_args: bool) -> Option<&'static Spec> {
    let name = unprefixed(name);
    let callable = variable(name).filter(|s| matches!(s.form, Form::Variable { call: true, .. }));
    named(|f| f == Form::Function, name)
        .or(callable.filter(|_| no_args))
        .or_else(|| named(|f| matches!(f, Form::Statement | Form::Aggregation), name))
        .or_else(|| variable(name))
}

pub fn statement(name: &str) -> Option<&'static Spec> {
    named(|f| f == Form::Statement, name)
}

pub fn aggregation(name: &str) -> Option<&'static Spec> {
    named(|f| f == Form::Aggregation, name)
}

/// The names a misspelt variable may have meant.
pub fn variable_names() -> impl Iterator<Item = &'static str> {
    all()
        .filter(|s| matches!(s.form, Form::Variable { .. }) && s.name != ARG_N)
        .flat_map(Spec::names)
}

/// The names a misspelt call may have meant: every builtin written as a call, the variables
/// spelled as calls last.
pub fn call_names() -> impl Iterator<Item = &'static str> {
    let calls = all().filter(|s| !matches!(s.form, Form::Variable { .. }));
    let variables = all().filter(|s| matches!(s.form, Form::Variable { call: true, .. }));
    calls.chain(variables).flat_map(Spec::names)
}
