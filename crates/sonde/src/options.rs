//! bpftrace's named program options: the words after the program that start with `--`
//! (`sonde opensnoop.bt -- --depth=10 --errname`) are options read by `getopt("name")`; the
//! other words stay positional parameters (`$1`...). As in bpftrace, a `--name` the program
//! never reads is an error naming the ones it does.

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

/// Every option given is one the program reads.
pub fn check(named: &[(String, Option<String>)], known: &[String]) -> Result<(), Failure> {
    let Some((bad, _)) = named.iter().find(|(n, _)| !known.contains(n)) else { return Ok(()) };
    let takes = if known.is_empty() {
        "it reads none (getopt(\"name\") reads one)".to_string()
    } else {
        let names: Vec<String> = known.iter().map(|k| format!("--{}", k)).collect();
        format!("it reads {}", names.join(", "))
    };
    let mut msg = format!("--{}: the program has no such option: {}", bad, takes);
    if let Some(best) = sonde_syntax::closest(bad, known.iter().map(String::as_str)) {
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
        assert!(check(&named, &["errname".into(), "depth".into()]).is_ok());
        let e = check(&named, &["depht".into(), "errname".into()]).unwrap_err();
        let want = "--depth: the program has no such option: it reads --depht, --errname (did you mean --depht?)";
        assert_eq!(e.sentence(), want);
    }
}
