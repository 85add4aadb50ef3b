//! `uprobe:BINARY:SYMBOL[+OFF]` (short `u:`) and `uretprobe:BINARY:SYMBOL` (`ur:`). BINARY is a
//! path or, as in surftrace, a name found on PATH or in the loader's library directories
//! (`bash:readline`, `libc:fopen`). Arguments are `arg0..arg5`, or by name (`args.n`, at a
//! function's entry) from the binary's debug info; pointers are user memory.
//! `uprobe:BINARY@FILE:LINE` (bpftrace's spelling) probes a source line, found in the binary's
//! DWARF line tables; its site's symbol is `@FILE:LINE`, so the probe reads as written.

use super::context::{arg_at_return, arg_register, regs, Answer, ContextName, Cx};
use crate::arch::x86_64::RET_REG;
use crate::env::{Env, SourceLine};
use crate::model::site::{AttachPoint, ProgKind, Site};
use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use sonde_glob::{is_glob, Glob};
use sonde_syntax::diag::Diagnostic;

pub fn expand(definition: &str, retprobe: bool, env: &dyn Env) -> Result<Vec<Site>, String> {
    let Some((binary, symbol)) = definition.rsplit_once(':') else {
        return Err(format!(
            "`{}` is not a uprobe: expected BINARY:SYMBOL, e.g. `uprobe:/bin/bash:readline`",
            definition
        ));
    };
    if binary.is_empty() || symbol.is_empty() {
        return Err(format!("`{}` is not a uprobe: expected BINARY:SYMBOL", definition));
    }
    if let Some((binary, place)) = source_line(binary, symbol) {
        let written = match place.column {
            Some(c) => format!("{}:{}:{}", place.file, place.line, c),
            None => format!("{}:{}", place.file, place.line),
        };
        if retprobe {
            let msg =
                format!("a uretprobe fires when a function returns: `{written}` is a source line");
            return Err(msg);
        }
        let (path, offset) = env.user_source_line(binary, &place).map_err(|e| e.to_string())?;
        let point = AttachPoint::Uprobe { path, symbol: format!("@{written}"), offset, retprobe };
        return Ok(vec![Site::new(point, ProgKind::Kprobe)]);
    }
    if retprobe && symbol.contains('+') {
        return Err(format!("a uretprobe fires when `{}` returns: it takes no offset", symbol));
    }
    let symbols = match is_glob(symbol) {
        true => matching_functions(binary, symbol, env)?,
        false => vec![symbol.to_string()],
    };
    let mut sites = Vec::with_capacity(symbols.len());
    for symbol in symbols {
        let (path, offset) = env.user_symbol(binary, &symbol).map_err(|e| e.to_string())?;
        let point = AttachPoint::Uprobe { path, symbol, offset, retprobe };
        sites.push(Site::new(point, ProgKind::Kprobe));
    }
    Ok(sites)
}

/// `uprobe:BIN@FILE:LINE[:COL]` split at its last colon (`binary`, `last`) as BIN and the
/// source position.
fn source_line<'a>(binary: &'a str, last: &str) -> Option<(&'a str, SourceLine<'a>)> {
    let (binary, rest) = binary.rsplit_once('@')?;
    let last: u64 = last.parse().ok()?;
    let (file, line, column) = match rest.rsplit_once(':') {
        Some((file, line)) => (file, line.parse().ok()?, Some(last)),
        None => (rest, last, None),
    };
    let place = SourceLine { file, line, column };
    (!binary.is_empty() && !file.is_empty()).then_some((binary, place))
}

/// The functions of `binary` whose names match the glob `pattern`, by name.
fn matching_functions(binary: &str, pattern: &str, env: &dyn Env) -> Result<Vec<String>, String> {
    let names = env.user_functions(binary).map_err(|e| e.to_string())?;
    let glob = Glob::new(pattern);
    let found: Vec<String> = names.into_iter().filter(|n| glob.matches(n)).collect();
    if found.is_empty() {
        return Err(format!("no function of {} matches `{}`", binary, pattern));
    }
    Ok(found)
}

/// What `argN`, `retval` and `regs` mean in a uprobe or uretprobe: registers, untyped (user
/// binaries bring no BTF).
pub fn context(site: &Site, name: ContextName, cx: &Cx) -> Answer {
    let AttachPoint::Uprobe { retprobe, ref symbol, ref path, offset } = site.point else {
        return None;
    };
    Some(match name {
        ContextName::Field { .. } if symbol.starts_with('@') => {
            let msg = "a source-line probe has no `args`: they are named at a function's entry";
            Err(Diagnostic::error(cx.span, msg))
        }
        ContextName::Field { field, .. } if !retprobe && !symbol.contains('+') => {
            by_name(path, symbol, field, cx)
        }
        ContextName::Arg(n) if retprobe => Err(arg_at_return(n, "uretprobe", "uprobe", cx.span)),
        ContextName::Arg(n) => {
            arg_register(n, cx.span).map(|offset| cx.expr(TExprKind::CtxLoad { offset }, Type::U64))
        }
        ContextName::Retval if retprobe => {
            Ok(cx.expr(TExprKind::CtxLoad { offset: RET_REG }, Type::S64))
        }
        ContextName::Regs => Ok(regs(cx)),
        // bpftrace's `func` in a uprobe: the function's name, a constant of the site's own
        // program (`sema::check` gives each uprobe naming it one).
        ContextName::Caller => {
            // A source line's: the function it is in.
            let name = match symbol.starts_with('@') {
                true => cx.env.user_function_at(path, offset).unwrap_or_else(|| symbol.clone()),
                false => symbol.clone(),
            };
            let name = name.into_bytes();
            Ok(cx.expr(TExprKind::Str(name.clone()), Type::Str(name.len() + 1)))
        }
        _ => return None,
    })
}

/// The names of the probed function's parameters (what `args` as a whole holds), from the
/// binary's debug info; `None` for a uretprobe or a probe at an offset, which have no `args`.
pub fn param_names(site: &Site, cx: &Cx) -> Option<Result<Vec<String>, Diagnostic>> {
    let AttachPoint::Uprobe { retprobe: false, ref symbol, ref path, .. } = site.point else {
        return None;
    };
    if symbol.contains('+') || symbol.starts_with('@') {
        return None;
    }
    let btf = match cx.env.user_types(path) {
        Ok(b) => b,
        Err(e) => return Some(Err(Diagnostic::error(cx.span, e.to_string()))),
    };
    Some(match btf.find_func(symbol) {
        Some(func) => Ok(func.params.iter().map(|p| p.name.clone()).collect()),
        None => {
            let msg = format!("the debug info of {} has no function `{}`", path, symbol);
            Err(Diagnostic::error(cx.span, msg))
        }
    })
}

/// `args.NAME` at a function's entry: parameter NAME, typed from the binary's debug info (as
/// its casts are), read from the register the x86-64 ABI passes it in.
fn by_name(path: &str, symbol: &str, field: &str, cx: &Cx) -> Result<TExpr, Diagnostic> {
    let span = cx.span;
    let btf = cx.env.user_types(path).map_err(|e| Diagnostic::error(span, e.to_string()))?;
    let Some(func) = btf.find_func(symbol) else {
        let msg = format!("the debug info of {} has no function `{}`", path, symbol);
        return Err(Diagnostic::error(span, msg));
    };
    let Some(n) = func.params.iter().position(|p| p.name == field) else {
        let names: Vec<&str> = func.params.iter().map(|p| p.name.as_str()).collect();
        let msg = format!("`{}` has no parameter `{}`", symbol, field);
        return Err(
            Diagnostic::error(span, msg).with_help(format!("its parameters: {}", names.join(", ")))
        );
    };
    let binary: std::rc::Rc<str> = std::rc::Rc::from(path);
    let ty = crate::btf_types::of_user(crate::btf_types::convert(&btf, func.params[n].ty), &binary);
    // Only what one register holds; a struct passed by value is spread over several.
    if !ty.is_scalar() || func.params[..n].iter().any(|p| btf.size_of(p.ty).unwrap_or(8) > 8) {
        let msg =
            format!("`args.{}` is not passed in one register: read it with a cast of argN", field);
        return Err(Diagnostic::error(span, msg));
    }
    let offset = arg_register(n, span)?;
    Ok(cx.expr(TExprKind::CtxLoad { offset }, ty))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::EnvError;

    /// A binary with three functions, each at its index times 0x10.
    struct Binary;

    impl Env for Binary {
        fn tracepoint_format(&self, _: &str, _: &str) -> Result<String, EnvError> {
            Err(EnvError::NotFound("none".into()))
        }
        fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
            Ok(Vec::new())
        }
        fn user_functions(&self, _: &str) -> Result<Vec<String>, EnvError> {
            Ok(vec!["fn1".into(), "fn2".into(), "main".into()])
        }
        fn user_symbol(&self, binary: &str, symbol: &str) -> Result<(String, u64), EnvError> {
            let names = self.user_functions(binary)?;
            let at = names.iter().position(|n| n == symbol);
            at.map(|i| (binary.to_string(), i as u64 * 0x10))
                .ok_or_else(|| EnvError::NotFound(format!("{binary} has no symbol {symbol}")))
        }
        fn user_source_line(
            &self,
            binary: &str,
            place: &SourceLine,
        ) -> Result<(String, u64), EnvError> {
            match (place.file, place.line, place.column) {
                ("prog.c", 22, None) => Ok((binary.to_string(), 0x1126)),
                ("prog.c", 22, Some(5)) => Ok((binary.to_string(), 0x112a)),
                (file, line, _) => {
                    Err(EnvError::NotFound(format!("line {line} of {file} has no code")))
                }
            }
        }
    }

    fn symbols(sites: &[Site]) -> Vec<(String, u64)> {
        let of = |s: &Site| match &s.point {
            AttachPoint::Uprobe { symbol, offset, .. } => (symbol.clone(), *offset),
            other => panic!("not a uprobe: {other:?}"),
        };
        sites.iter().map(of).collect()
    }

    #[test]
    fn a_wildcard_names_each_matching_function() {
        let sites = expand("./bin:fn*", false, &Binary).unwrap();
        assert_eq!(symbols(&sites), [("fn1".into(), 0), ("fn2".into(), 0x10)]);
        let sites = expand("./bin:*", true, &Binary).unwrap();
        assert_eq!(sites.len(), 3);
    }

    #[test]
    fn a_wildcard_that_matches_nothing_says_so() {
        let err = expand("./bin:nope*", false, &Binary).unwrap_err();
        assert_eq!(err, "no function of ./bin matches `nope*`");
    }

    #[test]
    fn a_source_line_is_one_site_named_as_written() {
        let sites = expand("./bin@prog.c:22", false, &Binary).unwrap();
        assert_eq!(symbols(&sites), [("@prog.c:22".into(), 0x1126)]);
        assert_eq!(sites[0].point.describe(), "uprobe:./bin@prog.c:22");
        let err = expand("./bin@prog.c:23", false, &Binary).unwrap_err();
        assert_eq!(err, "line 23 of prog.c has no code");
        let sites = expand("./bin@prog.c:22:5", false, &Binary).unwrap();
        assert_eq!(symbols(&sites), [("@prog.c:22:5".into(), 0x112a)]);
        assert_eq!(sites[0].point.describe(), "uprobe:./bin@prog.c:22:5");
        let err = expand("./bin@prog.c:22", true, &Binary).unwrap_err();
        assert_eq!(err, "a uretprobe fires when a function returns: `prog.c:22` is a source line");
    }

    #[test]
    fn a_plain_name_is_one_site() {
        let sites = expand("./bin:main", false, &Binary).unwrap();
        assert_eq!(symbols(&sites), [("main".into(), 0x20)]);
    }
}
