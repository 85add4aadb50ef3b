//! Folded stacks -> an interactive SVG flame graph (hover for name and time, click to zoom,
//! Ctrl-F to search), drawn by inferno as FlameGraph draws it.

use crate::folded::Folded;
use std::io::Write;

/// What the numbers count: `ns` for call graphs, `samples` (or the map's name) for maps. Write
/// a file through `sonde_output::file::write_atomically`, so a failure leaves no cut SVG.
pub fn write<W: Write>(folded: &Folded, title: &str, unit: &str, out: W) -> std::io::Result<()> {
    let mut opts = inferno::flamegraph::Options::default();
    opts.title = title.to_string();
    opts.count_name = unit.to_string();
    let lines: Vec<String> = folded.lines().collect();
    inferno::flamegraph::from_lines(&mut opts, lines.iter().map(String::as_str), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_svg_holds_every_frame_and_the_title() {
        let mut f = Folded::new();
        f.add_stack(&["vfs_read", "rw_verify_area"], 300);
        f.add_stack(&["vfs_read", "read_iter_zero"], 700);
        let mut out = Vec::new();
        write(&f, "vfs_read", "ns", &mut out).unwrap();
        let svg = String::from_utf8(out).unwrap();
        assert!(svg.starts_with("<?xml"));
        for s in ["vfs_read", "rw_verify_area", "read_iter_zero", "700 ns"] {
            assert!(svg.contains(s), "{s} missing");
        }
    }

    #[test]
    fn nothing_to_draw_is_an_error_not_a_panic() {
        let mut out = Vec::new();
        assert!(write(&Folded::new(), "x", "ns", &mut out).is_err());
    }
}
