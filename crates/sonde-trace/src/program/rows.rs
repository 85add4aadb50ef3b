//! `--summary-rows` for the compiled summary: its maps keyed by (thread, syscall[, errno]) get
//! that many entries instead of the compiler's default (the hand-built summary sizes its own,
//! `fast::rewrite`).

use super::{Plan, MAP_ERRNO, MAP_MAX, MAP_MIN, MAP_SQUARES, MAP_STATS};
use sonde_compile::abi::FIRST_USER_MAP;
use sonde_compile::Compiled;

/// The summary maps of `c`, which the plan's program made, sized by `--summary-rows`.
pub fn size_summary_maps(c: &mut Compiled, plan: &Plan) {
    let Some(rows) = plan.summary_rows else { return };
    let names = [MAP_STATS, MAP_MIN, MAP_MAX, MAP_SQUARES, MAP_ERRNO];
    for (i, m) in c.user_maps.iter().enumerate() {
        if names.contains(&m.name.trim_start_matches('@')) {
            if let Some(def) = c.maps.get_mut(FIRST_USER_MAP + i) {
                def.max_entries = rows;
            }
        }
    }
}
