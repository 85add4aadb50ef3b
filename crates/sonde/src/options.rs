//! bpftrace's named program options: the words after the program that start with `--`
//! (`sonde opensnoop.bt -- --depth=10 --errname`) are options read by `getopt("name")`; the
//! other words stay positional parameters (`$1`...). As in bpftrace, a `--name` the program
//! never reads is an error naming the ones it does, and `--help` lists them with their
//! descriptions.

use crate::error::Failure;

/// `(positional parameters, named options)`: `--name` has no value, `--name=value` one.
pub fn split(words: &[String]) -> (Vec<String>, Vec<(String, Option<String>)>) {
    let mut positional = Vec::new();
    let mut named = Vec::new();
    for w in words {
        match w.strip_prefix("--").filter(|n| !n.is_empty()) {
            Some(opt) => match opt.split_once('=') {
                Some((n, v)) => named.push((n.to_string(), Some(v.to_string()))),
                None => named.push((opt.to_string(), None)),
            },
            None => positional.push(w.clone()),
        }
    }
    (positional, named)
}

/// What `--help` prints: each option the program reads, with its description.
pub fn help(known: &[(String, String)]) -> String {
    if known.is_empty() {
        return "this program reads no options (getopt(\"name\") reads one)\n".into();
    }
    let mut out = String::from("program options:\n");
    for (name, about) in known {
        match about.is_empty() {
            true => out.push_str(&format!("  --{}\n", name)),
            false => out.push_str(&format!("  --{}: {}\n", name, about)),
        }
    }
    out
}

/// Every option given is one the program reads. `Ok(true)`: `--help` was asked for (and the
/// program reads no option of that name), so the caller prints `help` and stops.
pub fn check(
    named: &[(String, Option<String>)],
    known: &[(String, String)],
) -> Result<bool, Failure> {
    let reads = |n: &str| known.iter().any(|(k, _)| k == n);
    if named.iter().any(|(n, _)| n == "help") && !reads("help") {
        return Ok(true);
    }
    let Some((bad, _)) = named.iter().find(|(n, _)| !reads(n)) else { return Ok(false) };
    let takes = if known.is_empty() {
        "it reads none (getopt(\"name\") reads one)".to_string()
    } else {
        let names: Vec<String> = known.iter().map(|(k, _)| format!("--{}", k)).collect();
        format!("it reads {}", names.join(", "))
    };
    let mut msg = format!("--{}: the program has no such option: {}", bad, takes);
    if let Some(best) = sonde_syntax::closest(bad, known.iter().map(|(k, _)| k.as_str())) {
        msg.push_str(&format!(" (did you mean --{}?)", best));
    }
    Err(Failure::Usage(msg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_with_two_dashes_are_options() {
        let words: Vec<String> =
            ["5", "--depth=10", "-3", "--errname", "bash"].iter().map(|s| s.to_string()).collect();
        let (pos, named) = split(&words);
        assert_eq!(pos, ["5", "-3", "bash"]);
        assert_eq!(
            named,
            [("depth".to_string(), Some("10".to_string())), ("errname".to_string(), None)]
        );
        let known = |names: &[&str]| -> Vec<(String, String)> {
            names.iter().map(|n| (n.to_string(), String::new())).collect()
        };
        assert!(matches!(check(&named, &known(&["errname", "depth"])), Ok(false)));
        let e = check(&named, &known(&["depht", "errname"])).unwrap_err();
        let want = "--depth: the program has no such option: it reads --depht, --errname (did you mean --depht?)";
        assert_eq!(e.sentence(), want);
        let help_asked = [("help".to_string(), None)];
        assert!(matches!(check(&help_asked, &known(&["depth"])), Ok(true)));
        let with_about =
            [("depth".to_string(), "Maximum depth".to_string()), ("errname".into(), String::new())];
        assert_eq!(help(&with_about), "program options:\n  --depth: Maximum depth\n  --errname\n");
    }
}
