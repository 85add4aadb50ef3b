//! The variables the checker types itself: those that are constants of the compiled program
//! (`cpid`, `probe`, `ncpus`), read through the current task (`curtask`, bpftrace's `ppid` and
//! `pcomm`), the probe's context (`argN`, `args`) and stacks.

use crate::model::site::Site;
use crate::model::tir::{Builtin, TExpr, TExprKind};
use crate::model::types::{Type, STACK_DEPTH};
use crate::provider::context::{self, ContextName, Cx};
use crate::sema::check::Checker;
use sonde_syntax::ast::{Expr, ExprKind, Span};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// `cpid` (and bpftrace's `$target`): the `-c` command's pid, a constant.
    pub(in crate::sema) fn child_pid(&mut self, span: Span) -> TExpr {
        match self.opts.child_pid {
            Some(p) => TExpr { kind: TExprKind::Int(p as u64), ty: Type::U32, span },
            None => {
                self.error(Diagnostic::error(
                    span,
                    "`cpid`/`$target` needs a command to trace: run with `-c COMMAND`",
                ));
                self.poisoned(span)
            }
        }
    }

    /// `argN`: the probe's argument N, as its provider says.
    pub(super) fn arg_n(&mut self, name: &str, span: Span) -> TExpr {
        let n = name[3..].parse().unwrap_or(usize::MAX);
        self.context(crate::provider::context::ContextName::Arg(n), span)
    }

    /// `kstack`, `ustack` and ply's `stack` as names: the whole depth, the configured mode.
    pub(super) fn stack_variable(&mut self, name: &str, span: Span) -> TExpr {
        if self.refused_in_map_for(span) {
            return self.poisoned(span);
        }
        self.stack(name == "ustack", self.stack_mode, STACK_DEPTH as u8, span)
    }

    /// `curtask`: typed from BTF where there is some, else a plain integer.
    pub(super) fn curtask(&mut self, span: Span) -> TExpr {
        let task =
            self.env.btf().ok().and_then(|b| crate::btf_types::named(b, "struct task_struct"));
        let ty = match task {
            Some(t) => Type::Ptr { to: Box::new(t), user: false },
            None => Type::U64,
        };
        TExpr { kind: TExprKind::Builtin(Builtin::CurTask), ty, span }
    }

    /// `probe`: the probe's name. Probes that name `probe` get a program per site (see
    /// `names_any` in check.rs), so it is a constant.
    pub(super) fn probe_name(&mut self, span: Span) -> TExpr {
        let name = match self.sites.first() {
            Some(Site { written: Some(w), .. }) => w.to_string(),
            Some(s) => s.point.describe(),
            None => String::new(),
        };
        TExpr::const_str(name.into_bytes(), span)
    }

    /// `args` or `data` alone, as bpftrace has it: a record of the probe's arguments by name
    /// (a uprobe's parameters from debug info, a tracepoint's or fentry's record), each field
    /// read as `args.FIELD` reads it.
    pub(super) fn whole_record(&mut self, name: &str, span: Span) -> TExpr {
        let Some(site) = self.sites.first() else { return self.poisoned(span) };
        let cx = Cx { env: self.env, opts: self.opts, span };
        let names = match context::record_names(site, &cx) {
            Some(Ok(names)) if !names.is_empty() => names,
            Some(Ok(_)) => {
                let msg =
                    format!("`{}` is empty: {} has no arguments", name, site.point.describe());
                self.error(Diagnostic::error(span, msg));
                return self.poisoned(span);
            }
            Some(Err(d)) => {
                self.error(d);
                return self.poisoned(span);
            }
            None => {
                let msg = format!(
                    "`{}` exists in tracepoint, uprobe and fentry/fexit probes (read a kprobe's arguments as arg0..arg5)",
                    name
                );
                self.error(Diagnostic::error(span, msg));
                return self.poisoned(span);
            }
        };
        let before = self.diags.len();
        let fields: Vec<TExpr> = names
            .iter()
            .map(|field| self.context(ContextName::Field { base: name, field }, span))
            .collect();
        if self.diags.len() > before {
            return self.poisoned(span);
        }
        let tuple = self.tuple_of(fields, span);
        Self::named(tuple, names.into())
    }

    /// `ncpus`: the online CPUs when the program is compiled.
    pub(super) fn ncpus(&mut self, span: Span) -> TExpr {
        let Some(n) = self.env.online_cpus() else {
            self.error(Diagnostic::error(span, "`ncpus` needs the number of online CPUs, which this system does not say (/sys/devices/system/cpu/online)"));
            return self.poisoned(span);
        };
        TExpr { kind: TExprKind::Int(u64::from(n)), ty: Type::U32, span }
    }

    /// A field read through a task, as bpftrace's stdlib reads it (see [`task_path`]): of the
    /// current task (`pcomm`), or of the `task` given (`pcomm(curtask)`).
    pub(super) fn task_field(&mut self, name: &str, task: Option<&Expr>, span: Span) -> TExpr {
        let path = task_path(name).unwrap_or_default();
        let whose = if task.is_some() { "task" } else { "curtask" };
        let spelled = format!("{}->{}", whose, path.join("->"));
        if let Err(e) = self.env.btf() {
            self.error(Diagnostic::error(span, format!("`{}` reads {}, but {}", name, spelled, e)));
            return self.poisoned(span);
        }
        let mut e = match task {
            Some(t) => t.clone(),
            None => Expr { kind: ExprKind::Ident("curtask".into()), span },
        };
        for field in path {
            let kind = ExprKind::Member { expr: Box::new(e), field: (*field).into(), arrow: true };
            e = Expr { kind, span };
        }
        self.expr(&e)
    }
}

/// The fields bpftrace's task builtins read: `ppid` is the parent's process id
/// (`real_parent->tgid`, as getppid(2) gives it), `pcomm` the parent's name, `leader_comm` and
/// `leader_tid` the thread group leader's.
pub(super) fn task_path(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "ppid" => &["real_parent", "tgid"],
        "pcomm" => &["real_parent", "comm"],
        "leader_comm" => &["group_leader", "comm"],
        "leader_tid" => &["group_leader", "pid"],
        _ => return None,
    })
}
