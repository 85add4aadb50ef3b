//! `tracepoint:CATEGORY:NAME` (also `CATEGORY/NAME`), with globs; `args`/`data` typed from the format file.

use super::context::{read_field, record_field, Answer, ContextName, Cx};
use super::tracepoint_types::parse_typed;
use crate::env::{Env, EnvError};
use crate::model::site::{AttachPoint, ProgKind, Site};
use sonde_glob::{glob_match, is_glob};
use sonde_syntax::diag::Diagnostic;
use std::rc::Rc;

pub fn expand(definition: &str, env: &dyn Env) -> Result<Vec<Site>, String> {
    let (category, name) = definition
        .split_once([':', '/'])
        .ok_or_else(|| format!("`{}` is not a tracepoint: expected CATEGORY:NAME", definition))?;
    let names: Vec<(String, String)> = if is_glob(category) || is_glob(name) {
        let all = env.tracepoints().map_err(|e| e.to_string())?;
        let hits: Vec<_> = all
            .into_iter()
            .filter(|(c, n)| glob_match(category, c) && glob_match(name, n))
            .collect();
        if hits.is_empty() {
            return Err(format!("no tracepoint matches `{}`", definition));
        }
        hits
    } else {
        vec![(category.to_string(), name.to_string())]
    };
    names
        .into_iter()
        .map(|(c, n)| {
            let text = env.tracepoint_format(&c, &n).map_err(|e| match e {
                EnvError::NotFound(_) => unknown(&c, &n, env),
                EnvError::Unavailable(s) => s,
            })?;
            let args = parse_typed(&c, &n, &text, env)?;
            Ok(Site {
                point: AttachPoint::Tracepoint { category: c, name: n },
                kind: ProgKind::Tracepoint,
                args: Some(Rc::new(args)),
                func: None,
                syscall_wrapper: false,
                written: None,
            })
        })
        .collect()
}

fn unknown(category: &str, name: &str, env: &dyn Env) -> String {
    let mut msg = format!("unknown tracepoint `{}:{}`", category, name);
    if let Ok(all) = env.tracepoints() {
        let full: Vec<String> = all.iter().map(|(c, n)| format!("{}:{}", c, n)).collect();
        let want = format!("{}:{}", category, name);
        if let Some(best) = sonde_syntax::closest(&want, full.iter().map(String::as_str)) {
            msg.push_str(&format!(" (did you mean `{}`?)", best));
        }
    }
    msg
}

/// `args->FIELD` (or `data->FIELD`): a field of the tracepoint's record.
pub fn context(site: &Site, name: ContextName, cx: &Cx) -> Answer {
    match name {
        ContextName::Field { field, .. } => record_field(site, field, cx.span).map(|r| {
            let f = r?;
            match f.offset < HEADER_READABLE_FROM {
                true => Err(header_field(field, cx.span)),
                false => Ok(read_field(site, f, cx)),
            }
        }),
        _ => None,
    }
}

/// The kernel lets a tracepoint program read its record only past the first 8 bytes (a syscall
/// tracepoint's hold the registers' address there, over the `common_*` header).
const HEADER_READABLE_FROM: usize = 8;

fn header_field(field: &str, span: sonde_syntax::ast::Span) -> Diagnostic {
    let msg =
        format!("`{field}` is in the record's header, which the kernel lets no BPF program read");
    let help = "`pid`, `tid`, `comm` and `cpu` say what the header holds";
    Diagnostic::error(span, msg).with_help(help)
}
