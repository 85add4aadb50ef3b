//! `sonde probe`'s library: surftrace's one-line expressions (`p do_filp_open dfd=%0
//! name=%1->name f:dfd==-100`) turned into kprobetrace.rst definitions
//! (`p:sonde/sonde_1_0 do_filp_open dfd=%di:s32 name=+0x0(+0x0(%si)):string`), with member
//! offsets and fetch types from the kernel's BTF. Pure: the running system is reached through
//! [`Env`], so the goldens use fixture BTF; the binary writes the definitions to tracefs.

mod arch;
pub mod def;
mod def_parse;
mod env;
mod error;
pub mod expr;
pub mod fetch;
mod filter;
pub mod format;
mod fprobe;
mod language;
mod packet;
pub mod record;
mod resolve;
mod types;

pub use def::{Arg, Definition, Fetch, FetchType, Location};
pub use def_parse::DefinitionSyntax;
pub use env::{near_functions, Env, FunctionMiss, UserSite};
pub use error::ProbeError;
pub use expr::ExprKind;
pub use fprobe::fprobe_line;
pub use language::to_language;

/// One expression, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    /// The expression as the user wrote it.
    pub source: String,
    pub target: Target,
    /// The filter as it will be written to the event's `filter` file.
    pub filter: Option<String>,
    /// Per argument, the members sonde-probe walked into to reach the integer it prints
    /// (`.counter` of an `atomic_t`), which a sonde program must write out.
    pub unwrapped: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// A kprobe or uprobe event sonde creates.
    Dynamic(Definition),
    /// An existing tracepoint (`e GROUP/EVENT`).
    Tracepoint { group: String, event: String },
}

impl Probe {
    /// The tracefs group and event name the probe's records carry.
    pub fn event(&self) -> (&str, &str) {
        match &self.target {
            Target::Dynamic(d) => (&d.group, &d.event),
            Target::Tracepoint { group, event } => (group, event),
        }
    }
}

/// Resolve expression `text`; a dynamic event is named `group/event`.
pub fn build(text: &str, env: &dyn Env, group: &str, event: &str) -> Result<Probe, ProbeError> {
    let e = expr::parse(text)?;
    let mut unwrapped_all = Vec::new();
    let (target, fields) = match e.kind {
        ExprKind::Event => {
            let (g, ev) = e
                .target
                .split_once(['/', ':'])
                .ok_or_else(|| ProbeError::BadTarget { target: e.target.clone() })?;
            let fields = env
                .tracepoint_fields(g, ev)
                .ok_or_else(|| ProbeError::UnknownEvent { name: e.target.clone() })?;
            (Target::Tracepoint { group: g.into(), event: ev.into() }, fields)
        }
        kind => {
            let (location, function, offset) = location(&e, env)?;
            let binary = match &location {
                Location::File { path, .. } => Some(path.as_str()),
                _ => None,
            };
            let function = function.as_deref();
            let site = resolve::Site { kind, function, binary, offset, expr: text };
            let (args, unwrapped): (Vec<_>, Vec<_>) = e
                .args
                .iter()
                .map(|(name, fx)| resolve::resolve_arg(env, &site, name, fx))
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .unzip();
            unwrapped_all = unwrapped;
            let fields = args.iter().map(|a| a.name.clone()).collect();
            let def = Definition {
                ret: kind.is_return(),
                maxactive: None,
                group: group.into(),
                event: event.into(),
                location,
                args,
            };
            (Target::Dynamic(def), fields)
        }
    };
    let filter = e.filter.as_deref().map(|f| filter::check(f, &fields)).transpose()?;
    Ok(Probe { source: text.trim().to_string(), target, filter, unwrapped: unwrapped_all })
}

/// `SYM[+OFF]` or `BIN:SYM[+OFF]` to a location, and the kernel function it is in.
fn location(e: &expr::Expr, env: &dyn Env) -> Result<(Location, Option<String>, u64), ProbeError> {
    let bad = || ProbeError::BadTarget { target: e.target.clone() };
    if matches!(e.kind, ExprKind::Uprobe | ExprKind::Uretprobe) {
        let (bin, sym) = e.target.rsplit_once(':').ok_or_else(bad)?;
        let site = env
            .user_function(bin, sym)
            .map_err(|why| ProbeError::UserTarget { target: e.target.clone(), why })?;
        // uprobe_events splits a definition on blanks and ends it at a newline.
        if site.path.contains(|c: char| c.is_whitespace() || c.is_control()) {
            let why =
                "uprobe_events cannot name a file whose path holds a blank or a control character"
                    .into();
            return Err(ProbeError::UserTarget { target: e.target.clone(), why });
        }
        return Ok((Location::File { path: site.path, offset: site.offset }, None, 0));
    }
    let (name, offset) = match e.target.split_once('+') {
        Some((n, o)) => (n, def_parse::number(o).ok_or_else(bad)?),
        None => (e.target.as_str(), 0),
    };
    if !expr::is_name(name) && !name.contains('.') || (e.kind.is_return() && offset != 0) {
        return Err(bad());
    }
    env.kernel_function(name).map_err(|miss| match miss {
        FunctionMiss::Unknown(near) => ProbeError::UnknownFunction { name: name.into(), near },
        FunctionMiss::Blacklisted => ProbeError::Blacklisted { name: name.into() },
        FunctionMiss::NotTraceable => ProbeError::NotTraceable { name: name.into() },
    })?;
    let loc = Location::Symbol { module: None, name: name.into(), offset };
    Ok((loc, Some(name.to_string()), offset))
}
