//! Names that mean something only in some probes (`argN`, `retval`, `caller`, `regs`,
//! `args.FIELD`): the site's provider says what (`provider/context.rs`).

use crate::model::tir::TExpr;
use crate::provider::context::{self, ContextName, Cx};
use crate::sema::check::Checker;
use sonde_syntax::ast::Span;

impl Checker<'_> {
    pub(in crate::sema) fn context(&mut self, name: ContextName, span: Span) -> TExpr {
        if self.refused_in_map_for(span) {
            return self.poisoned(span);
        }
        // No site: its spec failed to expand and was reported already.
        if self.sites.is_empty() && matches!(name, ContextName::Arg(_) | ContextName::Retval) {
            return self.poisoned(span);
        }
        let cx = Cx { env: self.env, opts: self.opts, span };
        match context::resolve(self.sites.first(), name, &cx) {
            Ok(e) => e,
            Err(d) => {
                self.error(d);
                self.poisoned(span)
            }
        }
    }
}
