//! bpftrace's settings: `config = { ... }` in the program and its `BPFTRACE_*` environment
//! variables (which win over the program's, as in bpftrace): which sonde honours, and which it
//! accepts as no-ops.

use crate::model::types::StackMode;
use sonde_syntax::ast::Setting;
use sonde_syntax::diag::Diagnostic;

/// The settings sonde honours.
#[derive(Clone, Debug)]
pub struct Config {
    pub missing: MissingProbes,
    /// How `kstack`/`ustack` print where the call does not say (`stack_mode`).
    pub stack_mode: StackMode,
    /// Whether the maps print when the run ends (`print_maps_on_exit`).
    pub print_maps_on_exit: bool,
    /// The characters `str()` keeps (`max_strlen`); None: the session's default.
    pub max_strlen: Option<usize>,
    /// What a string cut at `max_strlen` prints after its characters (`str_trunc_trailer`).
    pub str_trunc_trailer: String,
    /// The most bytes of a file `cat()` prints (`max_cat_bytes`).
    pub max_cat_bytes: usize,
    /// The settings accepted with no effect, and `missing_probes`, as last given (name, value):
    /// what `config()` reports for them.
    pub given: Vec<(String, String)>,
}

/// bpftrace's `max_cat_bytes` default.
pub const MAX_CAT_BYTES: usize = 10240;

/// bpftrace's `str_trunc_trailer` default.
pub const TRUNC_TRAILER: &str = "..";

impl Default for Config {
    fn default() -> Config {
        Config {
            missing: MissingProbes::Error,
            stack_mode: StackMode::Bpftrace,
            print_maps_on_exit: true,
            max_strlen: None,
            str_trunc_trailer: TRUNC_TRAILER.to_string(),
            max_cat_bytes: MAX_CAT_BYTES,
            given: Vec::new(),
        }
    }
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

/// Why a setting was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettingError {
    /// bpftrace has no setting of that name (`closest`: a known name it may be a typo of).
    Unknown { closest: Option<&'static str> },
    /// The value is not one the setting takes: the sentence says which it takes.
    BadValue(String),
}

/// The longest `max_strlen`: a string and its NUL in the largest value a BPF program can
/// address from one register (its 16-bit offsets).
pub const MAX_STRLEN: usize = 32_000;

/// Settings bpftrace knows that change nothing here (buffer sizes, output of its runtime): accepted
/// so its scripts run unmodified.
pub(super) const ACCEPTED: &[&str] = &[
    "max_map_keys",
    "max_bpf_progs",
    "max_probes",
    "max_type_res_iterations",
    "perf_rb_pages",
    "log_size",
    "on_stack_limit",
    "cache_user_symbols",
    "cpp_demangle",
    "lazy_symbolication",
    "show_debug_info",
    "unstable_map_decl",
    "unstable_import",
    "unstable_macro",
    "license",
];

/// The settings sonde honours, by name.
const HONOURED: &[&str] = &[
    "missing_probes",
    "stack_mode",
    "print_maps_on_exit",
    "max_strlen",
    "str_trunc_trailer",
    "max_cat_bytes",
];

impl Config {
    /// Sets `name` (bpftrace's name, or its environment variable's: `BPFTRACE_STACK_MODE`) to
    /// `value`.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), SettingError> {
        let lowered = name.strip_prefix("BPFTRACE_").map(str::to_ascii_lowercase);
        match lowered.as_deref().unwrap_or(name) {
            "missing_probes" => {
                self.missing = match value {
                    "error" => MissingProbes::Error,
                    "warn" | "ignore" => MissingProbes::Skip,
                    v => {
                        let why =
                            format!("`missing_probes` is `error`, `warn` or `ignore`, not `{}`", v);
                        return Err(SettingError::BadValue(why));
                    }
                };
                self.keep("missing_probes", value);
            }
            "stack_mode" => {
                self.stack_mode = StackMode::named(value).ok_or_else(|| {
                    let why =
                        format!("`stack_mode` is `bpftrace`, `perf` or `raw`, not `{}`", value);
                    SettingError::BadValue(why)
                })?
            }
            "print_maps_on_exit" => {
                self.print_maps_on_exit = match value {
                    "1" | "true" => true,
                    "0" | "false" => false,
                    v => {
                        let why =
                            format!("`print_maps_on_exit` is 1 or 0 (true or false), not `{}`", v);
                        return Err(SettingError::BadValue(why));
                    }
                }
            }
            "max_strlen" => {
                self.max_strlen = match value.parse::<usize>() {
                    Ok(n) if (1..=MAX_STRLEN).contains(&n) => Some(n),
                    _ => {
                        let why = format!(
                            "`max_strlen` is a number of bytes from 1 to {}, not `{}`",
                            MAX_STRLEN, value
                        );
                        return Err(SettingError::BadValue(why));
                    }
                }
            }
            "str_trunc_trailer" => self.str_trunc_trailer = value.to_string(),
            "max_cat_bytes" => {
                self.max_cat_bytes = value.parse().map_err(|_| {
                    let why = format!("`max_cat_bytes` is a number of bytes, not `{}`", value);
                    SettingError::BadValue(why)
                })?
            }
            n if ACCEPTED.contains(&n) => self.keep(n, value),
            n => {
                let closest = sonde_syntax::closest(n, ACCEPTED.iter().chain(HONOURED).copied());
                return Err(SettingError::Unknown { closest });
            }
        }
        Ok(())
    }

    fn keep(&mut self, name: &str, value: &str) {
        self.given.retain(|(n, _)| n != name);
        self.given.push((name.to_string(), value.to_string()));
    }

    /// The value `name` was given, if it was.
    pub fn given(&self, name: &str) -> Option<&str> {
        self.given.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The settings of the environment (`BPFTRACE_NAME=value`, as `vars` lists them) that name
    /// a setting sonde knows; others (bpftrace's paths, its debug switches) are not settings.
    /// Err: `(variable, why)` for a known setting with a bad value.
    pub fn from_environment(
        vars: impl Iterator<Item = (String, String)>,
    ) -> Result<Vec<(String, String)>, (String, String)> {
        let mut known = Vec::new();
        for (name, value) in vars.filter(|(n, _)| n.starts_with("BPFTRACE_")) {
            match Config::default().set(&name, &value) {
                Ok(()) => known.push((name, value)),
                Err(SettingError::Unknown { .. }) => {}
                Err(SettingError::BadValue(why)) => return Err((name, why)),
            }
        }
        Ok(known)
    }
}

/// Reads the program's settings, reporting unknown names and bad values, then the
/// environment's (`env`, from [`Config::from_environment`]), which win.
pub fn read(config: &[Setting], env: &[(String, String)], diags: &mut Vec<Diagnostic>) -> Config {
    let mut c = Config::default();
    for s in config {
        match c.set(&s.name, &s.value) {
            Ok(()) => {}
            Err(SettingError::BadValue(why)) => diags.push(Diagnostic::error(s.value_span, why)),
            Err(SettingError::Unknown { closest }) => {
                let lowered = s.name.strip_prefix("BPFTRACE_").map(str::to_ascii_lowercase);
                let n = lowered.as_deref().unwrap_or(&s.name);
                let mut d = Diagnostic::error(s.span, format!("unknown config setting `{}`", n));
                if let Some(best) = closest {
                    d = d.with_help(format!("did you mean `{}`?", best));
                }
                diags.push(d);
            }
        }
    }
    for (name, value) in env {
        // Checked by `from_environment` before.
        let _ = c.set(name, value);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(list: &[(&str, &str)]) -> impl Iterator<Item = (String, String)> {
        list.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect::<Vec<_>>().into_iter()
    }

    #[test]
    fn the_environment_names_settings_and_wins() {
        let env = Config::from_environment(vars(&[
            ("BPFTRACE_STACK_MODE", "raw"),
            ("BPFTRACE_VMLINUX", "/boot/vmlinux"),
            ("PATH", "/bin"),
            ("BPFTRACE_PRINT_MAPS_ON_EXIT", "0"),
        ]))
        .unwrap();
        assert_eq!(env.len(), 2, "{env:?}");
        let c = read(&[], &env, &mut Vec::new());
        assert_eq!(c.stack_mode, StackMode::Raw);
        assert!(!c.print_maps_on_exit);
        let bad = Config::from_environment(vars(&[("BPFTRACE_STACK_MODE", "pretty")]));
        assert_eq!(
            bad.unwrap_err(),
            (
                "BPFTRACE_STACK_MODE".to_string(),
                "`stack_mode` is `bpftrace`, `perf` or `raw`, not `pretty`".to_string()
            )
        );
    }

    #[test]
    fn unknown_names_get_the_closest_known_one() {
        let err = Config::default().set("stack_mod", "raw").unwrap_err();
        assert_eq!(err, SettingError::Unknown { closest: Some("stack_mode") });
        let mut c = Config::default();
        c.set("max_strlen", "100").unwrap();
        c.set("BPFTRACE_STR_TRUNC_TRAILER", "_xxx").unwrap();
        assert_eq!((c.max_strlen, c.str_trunc_trailer.as_str()), (Some(100), "_xxx"));
        assert!(matches!(c.set("max_strlen", "0"), Err(SettingError::BadValue(_))));
        assert!(matches!(c.set("max_strlen", "99999"), Err(SettingError::BadValue(_))));
        let mut c = Config::default();
        c.set("print_maps_on_exit", "false").unwrap();
        assert!(!c.print_maps_on_exit);
    }
}
