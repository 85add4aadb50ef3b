//! Reading an aggregation in a probe (`if (@calls[pid] > 100)`, `for ($kv : @bytes)`), as
//! bpftrace does: its CPUs' values combined in the program with `bpf_map_lookup_percpu_elem`
//! (Linux 5.19; lower/agg_read.rs), the way printing combines them. count() and sum() add up;
//! min() and max() take the smallest or largest value of the CPUs that have one; avg() is the
//! CPUs' sums over their counts. Stats and histograms can only be printed.

use super::check::Checker;
use crate::model::tir::AggFunc;
use crate::model::types::Type;
use sonde_syntax::ast::Span;
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// The type a read of aggregation `func` over `map` gives, or an error said at `span`.
    pub(super) fn agg_read_type(
        &mut self,
        map: usize,
        func: AggFunc,
        signed: bool,
        span: Span,
    ) -> Option<Type> {
        let name = self.maps.name(map).to_string();
        if !matches!(
            func,
            AggFunc::Count | AggFunc::Sum | AggFunc::Min | AggFunc::Max | AggFunc::Avg
        ) {
            let d = Diagnostic::error(
                span,
                format!(
                    "`{}` holds {}() values, which can only be printed, not read in a probe",
                    name,
                    func.name()
                ),
            )
            .with_help(format!(
                "print it with `print({})`; count(), sum(), min(), max() and avg() can be read",
                name
            ));
            self.error(d);
            return None;
        }
        let percpu_lookup = self.env.has_helper(sonde_bpf::helper::MAP_LOOKUP_PERCPU_ELEM);
        if self.cpu_ids.is_none() {
            self.cpu_ids = self.env.cpu_ids();
        }
        if !percpu_lookup || self.cpu_ids.is_none() {
            let why = if percpu_lookup {
                "this system does not say which CPUs it has (/sys/devices/system/cpu/possible)"
            } else {
                "that needs the kernel's bpf_map_lookup_percpu_elem (Linux 5.19 and later), which this kernel lacks"
            };
            let d = Diagnostic::error(
                span,
                format!(
                    "`{}` holds {}() values, kept per CPU: reading them in a probe combines the CPUs' values, and {}",
                    name,
                    func.name(),
                    why
                ),
            )
            .with_help(format!(
                "keep a plain copy to read (`@copy[k] += 1` beside the aggregation), or print it with `print({})`",
                name
            ));
            self.error(d);
            return None;
        }
        Some(if signed && func != AggFunc::Count { Type::S64 } else { Type::U64 })
    }
}
