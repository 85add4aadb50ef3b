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
    let symbol = &unquoted(symbol);
    if binary.is_empty() || symbol.is_empty() {
        return Err(format!("`{}` is not a uprobe: expected BINARY:SYMBOL", definition));
    }
    if let Some((binary, place)) = source_line(binary, symbol) {
        return line_site(binary, &place, retprobe, env);
    }
    if retprobe && symbol.contains('+') {
        return Err(format!("a uretprobe fires when `{}` returns: it takes no offset", symbol));
    }
    if binary == "*" {
        return in_every_mapped_file(symbol, retprobe, env);
    }
    let symbols = match is_glob(symbol) {
        true => matching_functions(binary, symbol, env)?,
        false => vec![symbol.to_string()],
    };
    let mut sites = Vec::with_capacity(symbols.len());
    for symbol in symbols {
        let (path, offset) = env.user_symbol(binary, &symbol).map_err(|e| e.to_string())?;
        if retprobe && is_address(&symbol) {
            returns_from_start(binary, &symbol, &path, offset, env)?;
        }
        let point = AttachPoint::Uprobe { path, symbol, offset, retprobe };
        sites.push(Site::new(point, ProgKind::Kprobe));
    }
    Ok(sites)
}

/// The site of `uprobe:BINARY@FILE:LINE[:COL]`, whose symbol is `@FILE:LINE[:COL]` as written.
fn line_site(
    binary: &str,
    place: &SourceLine,
    retprobe: bool,
    env: &dyn Env,
) -> Result<Vec<Site>, String> {
    let written = match place.column {
        Some(c) => format!("{}:{}:{}", place.file, place.line, c),
        None => format!("{}:{}", place.file, place.line),
    };
    if retprobe {
        return Err(format!(
            "a uretprobe fires when a function returns: `{written}` is a source line"
        ));
    }
    let (path, offset) = env.user_source_line(binary, place).map_err(|e| e.to_string())?;
    let point = AttachPoint::Uprobe { path, symbol: format!("@{written}"), offset, retprobe };
    Ok(vec![Site::new(point, ProgKind::Kprobe)])
}

/// A uretprobe at an address must be at a function's start: elsewhere the return address is not
/// where the kernel takes it from, and the traced process would return to the wrong place.
fn returns_from_start(
    binary: &str,
    address: &str,
    path: &str,
    offset: u64,
    env: &dyn Env,
) -> Result<(), String> {
    let name = function_name(address, path, offset, env);
    match env.user_symbol(binary, &name) {
        Ok((_, start)) if start == offset => Ok(()),
        Ok((_, start)) => Err(format!(
            "a uretprobe fires when a function returns: {} is {}+{:#x}, not the start of {}",
            address,
            name,
            offset.wrapping_sub(start),
            name
        )),
        Err(_) => Err(format!(
            "a uretprobe fires when a function returns: {} in {} starts no function sonde knows",
            address, binary
        )),
    }
}

/// bpftrace's quoted symbol, `"name"` or `"name"+OFF`, as sonde spells it unquoted.
fn unquoted(symbol: &str) -> String {
    let Some(rest) = symbol.strip_prefix('"') else { return symbol.to_string() };
    match rest.split_once('"') {
        Some((name, after)) if after.is_empty() || after.starts_with('+') => {
            format!("{name}{after}")
        }
        _ => symbol.to_string(),
    }
}

/// The probed function's name, as bpftrace's `func` gives it: SYMBOL without its `+OFF`, or
/// the function holding an address or a source line (the spec itself where no function does).
fn function_name(symbol: &str, path: &str, offset: u64, env: &dyn Env) -> String {
    if is_address(symbol) || symbol.starts_with('@') {
        return env.user_function_at(path, offset).unwrap_or_else(|| symbol.to_string());
    }
    let is_offset = |off: &str| match off.strip_prefix("0x") {
        Some(hex) => !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()),
        None => !off.is_empty() && off.bytes().all(|b| b.is_ascii_digit()),
    };
    match symbol.rsplit_once('+') {
        Some((name, off)) if is_offset(off) => name.to_string(),
        _ => symbol.to_string(),
    }
}

/// Is `symbol` an address (`0x401126`, `4198694`) rather than a name? Such a probe has no
/// parameters by name.
fn is_address(symbol: &str) -> bool {
    symbol.starts_with(|c: char| c.is_ascii_digit())
}

/// `uprobe:*:FUNC` (FUNC a name or a glob): FUNC in each file `-p`'s process has mapped that
/// has it.
fn in_every_mapped_file(symbol: &str, retprobe: bool, env: &dyn Env) -> Result<Vec<Site>, String> {
    let glob = Glob::new(symbol);
    let mut sites = Vec::new();
    for binary in env.target_binaries().map_err(|e| e.to_string())? {
        // A mapped file sonde cannot read symbols from (a font, a cache) holds no function.
        let Ok(names) = env.user_functions(&binary) else { continue };
        for name in names.into_iter().filter(|n| glob.matches(n)) {
            let (path, offset) = env.user_symbol(&binary, &name).map_err(|e| e.to_string())?;
            let point = AttachPoint::Uprobe { path, symbol: name, offset, retprobe };
            sites.push(Site::new(point, ProgKind::Kprobe));
        }
    }
    if sites.is_empty() {
        return Err(format!("no file the process has mapped has a function `{}`", symbol));
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
        ContextName::Field { field, .. }
            if !retprobe && !symbol.contains('+') && !is_address(symbol) =>
        {
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
            let name = function_name(symbol, path, offset, cx.env).into_bytes();
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
    if symbol.contains('+') || is_address(symbol) || symbol.starts_with('@') {
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

    /// The Env methods these fixtures do not use: a kernel without tracepoints.
    macro_rules! no_tracepoints {
        () => {
            fn tracepoint_format(&self, _: &str, _: &str) -> Result<String, EnvError> {
                Err(EnvError::NotFound("none".into()))
            }
            fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
                Ok(Vec::new())
            }
        };
    }

    /// A binary with three functions, each at its index times 0x10.
    struct Binary;

    impl Env for Binary {
        no_tracepoints!();
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
    fn a_quoted_name_is_the_name() {
        let sites = expand("./bin:\"main\"", false, &Binary).unwrap();
        assert_eq!(symbols(&sites), [("main".into(), 0x20)]);
        assert_eq!(unquoted("\"main\"+0x4"), "main+0x4");
        assert_eq!(unquoted("\"main\"x"), "\"main\"x");
    }

    /// [`Binary`] mapped into a process with a library that has `lib1`.
    struct Process;

    impl Env for Process {
        no_tracepoints!();
        fn target_binaries(&self) -> Result<Vec<String>, EnvError> {
            Ok(vec!["/bin/prog".into(), "/lib/libx.so".into(), "/etc/unreadable".into()])
        }
        fn user_functions(&self, binary: &str) -> Result<Vec<String>, EnvError> {
            match binary {
                "/lib/libx.so" => Ok(vec!["lib1".into(), "main".into()]),
                "/bin/prog" => Binary.user_functions(binary),
                _ => Err(EnvError::NotFound(format!("{binary} is not an ELF file"))),
            }
        }
        fn user_symbol(&self, binary: &str, symbol: &str) -> Result<(String, u64), EnvError> {
            let names = self.user_functions(binary)?;
            let at = names.iter().position(|n| n == symbol).unwrap();
            Ok((binary.to_string(), at as u64))
        }
    }

    fn paths(sites: &[Site]) -> Vec<(String, String)> {
        let of = |s: &Site| match &s.point {
            AttachPoint::Uprobe { path, symbol, .. } => (path.clone(), symbol.clone()),
            other => panic!("not a uprobe: {other:?}"),
        };
        sites.iter().map(of).collect()
    }

    #[test]
    fn a_star_binary_is_every_mapped_file_that_has_the_function() {
        let sites = expand("*:main", false, &Process).unwrap();
        let want = [("/bin/prog", "main"), ("/lib/libx.so", "main")];
        assert_eq!(paths(&sites), want.map(|(p, s)| (p.to_string(), s.to_string())));
        let sites = expand("*:lib*", false, &Process).unwrap();
        assert_eq!(paths(&sites), [("/lib/libx.so".to_string(), "lib1".to_string())]);
        let err = expand("*:nope", false, &Process).unwrap_err();
        assert_eq!(err, "no file the process has mapped has a function `nope`");
    }

    #[test]
    fn a_star_binary_needs_a_process() {
        let err = expand("*:main", false, &Binary).unwrap_err();
        assert_eq!(err, "`uprobe:*:…` probes the files of one process: give it with -p PID");
    }

    /// [`Binary`] that can say which function holds an offset.
    struct Named;

    impl Env for Named {
        no_tracepoints!();
        fn user_symbol(&self, binary: &str, symbol: &str) -> Result<(String, u64), EnvError> {
            match u64::from_str_radix(symbol.trim_start_matches("0x"), 16) {
                Ok(address) => Ok((binary.to_string(), address - 0x400000)),
                Err(_) => Binary.user_symbol(binary, symbol),
            }
        }
        fn user_function_at(&self, _: &str, offset: u64) -> Option<String> {
            ["fn1", "fn2", "main"].get(offset as usize / 0x10).map(|n| n.to_string())
        }
    }

    #[test]
    fn a_uretprobe_at_an_address_must_start_a_function() {
        let sites = expand("./bin:0x400010", true, &Named).unwrap();
        assert_eq!(symbols(&sites), [("0x400010".into(), 0x10)]);
        let err = expand("./bin:0x400014", true, &Named).unwrap_err();
        let want =
            "a uretprobe fires when a function returns: 0x400014 is fn2+0x4, not the start of fn2";
        assert_eq!(err, want);
        assert!(expand("./bin:0x400014", false, &Named).is_ok());
    }

    #[test]
    fn func_is_the_function_without_its_offset() {
        assert_eq!(function_name("main+0x4", "./bin", 0x24, &Binary), "main");
        assert_eq!(function_name("operator+", "./bin", 0x24, &Binary), "operator+");
        // An address names itself where the binary cannot say which function holds it.
        assert_eq!(function_name("0x401126", "./bin", 0x1126, &Binary), "0x401126");
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
