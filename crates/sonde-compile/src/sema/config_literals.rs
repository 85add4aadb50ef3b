//! bpftrace's `config()` (and the `__builtin_config` it expands to): the settings as a record of
//! constants of the program, written in before the checker runs. A setting sonde honours has
//! the value sonde uses (`max_strlen` is sonde's string size); one it accepts with no effect has
//! the value it was given, or bpftrace's default.

use super::config::{Config, ACCEPTED};
use sonde_syntax::ast::{Expr, ExprKind, Program, Span, TypeName};

/// `program` with each `config()` and `__builtin_config` written as the settings' record.
pub(super) fn write_in(program: &Program, config: &Config, string_size: usize) -> Program {
    super::rewrite::literals(program, &|e| match &e.kind {
        ExprKind::Call { name, args } if name == "config" && args.is_empty() => {
            Some(record(config, string_size, e.span))
        }
        ExprKind::Ident(name) if name == "__builtin_config" => {
            Some(record(config, string_size, e.span))
        }
        _ => None,
    })
}

/// What a setting's value is: bpftrace's types for them.
enum Value {
    Bool(bool),
    Int(u64),
    Text(String),
}

/// bpftrace's defaults for the settings sonde accepts with no effect.
fn default_of(name: &str) -> Value {
    match name {
        "cpp_demangle" | "lazy_symbolication" => Value::Bool(true),
        "show_debug_info" => Value::Bool(false),
        "max_map_keys" => Value::Int(4096),
        "max_bpf_progs" | "max_probes" => Value::Int(1024),
        "log_size" => Value::Int(1_000_000),
        "on_stack_limit" => Value::Int(32),
        "max_type_res_iterations" | "perf_rb_pages" => Value::Int(0),
        "cache_user_symbols" => Value::Text("PER_PROGRAM".into()),
        "license" => Value::Text("GPL".into()),
        "unstable_import" => Value::Text("error".into()),
        _ => Value::Text("warn".into()),
    }
}

/// A value as given, read as the setting's type (text it cannot be read as stays text).
fn given_as(name: &str, text: &str) -> Value {
    match default_of(name) {
        Value::Bool(_) => match text {
            "1" | "true" => Value::Bool(true),
            "0" | "false" => Value::Bool(false),
            _ => Value::Text(text.into()),
        },
        Value::Int(_) => text.parse().map_or(Value::Text(text.into()), Value::Int),
        Value::Text(_) => Value::Text(text.into()),
    }
}

/// Every setting `config = { }` takes, by name, with its value.
fn settings(config: &Config, string_size: usize) -> Vec<(String, Value)> {
    let mut fields = vec![
        ("max_strlen".to_string(), Value::Int(string_size as u64)),
        ("stack_mode".into(), Value::Text(config.stack_mode.name().into())),
        ("print_maps_on_exit".into(), Value::Bool(config.print_maps_on_exit)),
        (
            "missing_probes".into(),
            Value::Text(config.given("missing_probes").unwrap_or("error").into()),
        ),
        ("str_trunc_trailer".into(), Value::Text(config.str_trunc_trailer.clone())),
        ("max_cat_bytes".into(), Value::Int(config.max_cat_bytes as u64)),
    ];
    for name in ACCEPTED {
        let value = config.given(name).map_or_else(|| default_of(name), |v| given_as(name, v));
        fields.push((name.to_string(), value));
    }
    fields
}

fn record(config: &Config, string_size: usize, span: Span) -> Expr {
    let at = |kind| Expr { kind, span };
    let fields = settings(config, string_size).into_iter().map(|(name, value)| {
        let expr = match value {
            Value::Int(n) => at(ExprKind::Int(n)),
            Value::Text(t) => at(ExprKind::Str(t.into_bytes())),
            Value::Bool(b) => {
                let ty = TypeName { base: "bool".into(), pointers: 0, array: None, of: None, span };
                at(ExprKind::Cast { ty, expr: Box::new(at(ExprKind::Int(b as u64))) })
            }
        };
        (name, expr)
    });
    at(ExprKind::Record(fields.collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(config: &Config, name: &str) -> ExprKind {
        let program = sonde_syntax::parse("BEGIN { config() }").unwrap();
        let written = write_in(&program, config, 63);
        let sonde_syntax::ast::StmtKind::Expr(e) = &written.probes[0].body.stmts[0].kind else {
            panic!("not an expression")
        };
        let ExprKind::Record(fields) = &e.kind else { panic!("not a record: {e:?}") };
        fields.iter().find(|(n, _)| n == name).map(|(_, e)| e.kind.clone()).unwrap()
    }

    #[test]
    fn honoured_settings_are_the_values_sonde_uses() {
        let mut c = Config::default();
        assert_eq!(field(&c, "max_strlen"), ExprKind::Int(63));
        assert_eq!(field(&c, "stack_mode"), ExprKind::Str(b"bpftrace".to_vec()));
        c.set("stack_mode", "perf").unwrap();
        c.set("missing_probes", "warn").unwrap();
        assert_eq!(field(&c, "stack_mode"), ExprKind::Str(b"perf".to_vec()));
        assert_eq!(field(&c, "missing_probes"), ExprKind::Str(b"warn".to_vec()));
    }

    #[test]
    fn accepted_settings_are_as_given_or_bpftraces_default() {
        let mut c = Config::default();
        assert_eq!(field(&c, "max_map_keys"), ExprKind::Int(4096));
        c.set("max_map_keys", "10").unwrap();
        assert_eq!(field(&c, "max_map_keys"), ExprKind::Int(10));
        let ExprKind::Cast { expr, .. } = field(&c, "cpp_demangle") else { panic!() };
        assert_eq!(expr.kind, ExprKind::Int(1));
    }
}
