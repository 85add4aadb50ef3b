//! `-l PROGRAM`: what a program's probes match, each spec listed as a pattern of its own (a
//! timer's rate dropped: `interval:ms:100` lists `interval:ms:`, as bpftrace does).

use crate::error::Failure;
use sonde_syntax::ast::ProbeSpec;
use sonde_syntax::diag::SourceFile;

/// The patterns of the program `arg` holds (text with braces, or a file), or `None` when
/// `arg` is a pattern.
pub fn patterns(arg: &str) -> Result<Option<Vec<String>>, Failure> {
    let source = if arg.contains('{') {
        SourceFile { name: sonde_syntax::diag::PROGRAM_TEXT.into(), text: arg.to_string() }
    } else if std::path::Path::new(arg).is_file() {
        let text = std::fs::read_to_string(arg)
            .map_err(|e| Failure::Usage(format!("cannot read {}: {}", arg, e)))?;
        SourceFile { name: arg.to_string(), text }
    } else {
        return Ok(None);
    };
    let ast = sonde_syntax::parse(&source.text).map_err(|d| Failure::Compile(d, source))?;
    let specs = ast.probes.iter().flat_map(|p| &p.specs);
    Ok(Some(specs.filter_map(pattern_of).collect()))
}

/// The listing pattern of one probe spec; `None` for BEGIN and END, which list nothing.
fn pattern_of(spec: &ProbeSpec) -> Option<String> {
    let provider = spec.provider.as_str();
    if provider.eq_ignore_ascii_case("begin") || provider.eq_ignore_ascii_case("end") {
        return None;
    }
    let timer = matches!(
        provider,
        "interval" | "i" | "profile" | "p" | "software" | "s" | "hardware" | "h"
    );
    let definition = match spec.definition.split_once(':') {
        Some((unit, _rate)) if timer => unit,
        _ => spec.definition.as_str(),
    };
    Some(format!("{}:{}", provider, definition))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(program: &str) -> Vec<String> {
        patterns(program).unwrap().unwrap()
    }

    #[test]
    fn a_program_lists_its_specs() {
        assert_eq!(
            of("BEGIN { } tracepoint:xdp:mem_connect, t:sched:* { } interval:ms:100 { exit(); } END { }"),
            ["tracepoint:xdp:mem_connect", "t:sched:*", "interval:ms"]
        );
        assert_eq!(of("software:cpu-clock:1000 { }"), ["software:cpu-clock"]);
        assert_eq!(of("hardware:cache-misses:10 { }"), ["hardware:cache-misses"]);
        assert!(patterns("tracepoint:sched:*").unwrap().is_none());
        assert!(matches!(patterns("tracepoint:sched:x {"), Err(Failure::Compile(..))));
    }
}
