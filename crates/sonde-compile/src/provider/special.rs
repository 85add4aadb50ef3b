//! BEGIN and END: run once, before every other probe and after the last.

use crate::model::site::{AttachPoint, ProgKind, Site};

pub fn expand(provider: &str, definition: &str) -> Result<Vec<Site>, String> {
    if !definition.is_empty() {
        return Err(format!("`{}` takes no definition", provider));
    }
    let begin = provider.eq_ignore_ascii_case("BEGIN");
    let point = if begin { AttachPoint::Begin } else { AttachPoint::End };
    Ok(vec![Site::new(point, ProgKind::RawTracepoint)])
}
