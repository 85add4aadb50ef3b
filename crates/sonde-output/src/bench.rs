//! bpftrace's table of `--mode bench` results: each bench's name, average time per run (ns) and
//! the runs it took, under a heading printed with the first row.

const NAME: &str = "Benchmark";
const TIME: &str = "Time(ns)";
const RUNS: &str = "Iterations";
/// bpftrace's widths: names in at least 40 columns, times in 15.
const NAME_WIDTH: usize = 40;
const TIME_WIDTH: usize = 15;

/// The row of bench `names[index]`, after the heading when it is the first.
pub fn row(names: &[String], index: usize, average_ns: u64, iterations: u64) -> String {
    let width = names.iter().map(String::len).fold(NAME_WIDTH, usize::max) + 1;
    let mut text = String::new();
    if index == 0 {
        text += &format!("{NAME:<width$}{TIME:<TIME_WIDTH$}{RUNS}\n");
        text += &"-".repeat(width + TIME_WIDTH + RUNS.len());
        text.push('\n');
    }
    let name = names.get(index).map_or("", String::as_str);
    text += &format!("{name:<width$}{average_ns:<TIME_WIDTH$}{iterations}\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_line_up_under_bpftraces_heading() {
        let names = vec!["a".to_string(), "b".to_string()];
        let first = row(&names, 0, 12, 100000);
        let want = format!(
            "Benchmark{}Time(ns)       Iterations\n{}\na{}12             100000\n",
            " ".repeat(32),
            "-".repeat(66),
            " ".repeat(40)
        );
        assert_eq!(first, want);
        assert_eq!(row(&names, 1, 7, 10), format!("b{}7              10\n", " ".repeat(40)));
    }

    #[test]
    fn a_long_name_widens_the_name_column() {
        let names = vec!["n".repeat(45)];
        let text = row(&names, 0, 1, 1);
        assert_eq!(text.lines().nth(1).unwrap().len(), 46 + 15 + 10);
    }
}
