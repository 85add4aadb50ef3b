//! bpftrace's `config = { ... }` settings: which sonde honours, and which it accepts as no-ops.

use crate::model::types::StackMode;
use sonde_syntax::ast::Setting;
use sonde_syntax::diag::Diagnostic;

/// The settings sonde honours.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub missing: MissingProbes,
    /// How `kstack`/`ustack` print where the call does not say (`stack_mode`).
    pub stack_mode: StackMode,
}

/// What to do with a probe spec that names nothing on this kernel (`missing_probes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissingProbes {
    /// The default: the program is refused.
    Error,
    /// Skip the spec, saying so in a warning (`ignore` and `warn` both: sonde never drops a
    /// probe without a word).
    Skip,
}

/// Settings bpftrace knows that change nothing here (buffer sizes, output of its runtime): accepted
/// so its scripts run unmodified.
const ACCEPTED: &[&str] = &[
    "max_strlen",
    "max_map_keys",
    "max_bpf_progs",
    "max_probes",
    "max_type_res_iterations",
    "perf_rb_pages",
    "log_size",
    "on_stack_limit",
    "print_maps_on_exit",
    "cache_user_symbols",
    "cpp_demangle",
    "lazy_symbolication",
    "str_trunc_trailer",
    "show_debug_info",
    "unstable_map_decl",
    "unstable_import",
    "unstable_macro",
    "license",
];

/// Reads the settings, reporting unknown names and bad values.
pub fn read(config: &[Setting], diags: &mut Vec<Diagnostic>) -> Config {
    let mut missing = MissingProbes::Error;
    let mut stack_mode = StackMode::Bpftrace;
    for s in config {
        // bpftrace also spells them as its environment variables: `BPFTRACE_MAX_STRLEN`.
        let name = s.name.strip_prefix("BPFTRACE_").map(str::to_ascii_lowercase);
        let name = name.as_deref().unwrap_or(&s.name);
        match name {
            "missing_probes" => {
                missing = match s.value.as_str() {
                    "error" => MissingProbes::Error,
                    "warn" | "ignore" => MissingProbes::Skip,
                    v => {
                        diags.push(Diagnostic::error(
                            s.value_span,
                            format!("`missing_probes` is `error`, `warn` or `ignore`, not `{}`", v),
                        ));
                        continue;
                    }
                }
            }
            "stack_mode" => match StackMode::named(&s.value) {
                Some(m) => stack_mode = m,
                None => diags.push(Diagnostic::error(
                    s.value_span,
                    format!("`stack_mode` is `bpftrace`, `perf` or `raw`, not `{}`", s.value),
                )),
            },
            n if ACCEPTED.contains(&n) => {}
            n => {
                let mut d = Diagnostic::error(s.span, format!("unknown config setting `{}`", n));
                let known = ACCEPTED.iter().copied().chain(["missing_probes", "stack_mode"]);
                if let Some(best) = sonde_syntax::closest(n, known) {
                    d = d.with_help(format!("did you mean `{}`?", best));
                }
                diags.push(d);
            }
        }
    }
    Config { missing, stack_mode }
}
