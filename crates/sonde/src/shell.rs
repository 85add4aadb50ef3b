//! Words for a POSIX shell: every word sonde writes into a script, or shows as a command a user
//! may paste, goes through [`quote`], so no byte of user text is ever read as shell syntax.

/// `word` as one shell word: unchanged when it holds only characters no shell treats specially,
/// otherwise inside single quotes (each `'` written `'\''`), where nothing is expanded.
pub fn quote(word: &str) -> String {
    const PLAIN: &str = "-_./=:,+@%";
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || PLAIN.contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Words joined into one shell command line that runs exactly those words.
pub fn join<S: AsRef<str>>(words: &[S]) -> String {
    words.iter().map(|w| quote(w.as_ref())).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::{join, quote};
    use std::process::Command;

    const HOSTILE: &[&str] = &[
        "plain",
        "a b",
        "q'd",
        "''",
        ";",
        "$(touch PWNED)",
        "`touch PWNED`",
        "*",
        "",
        "line\nbreak",
        "\\n",
        "$HOME",
        "a\"b",
        "!x",
        "-n",
    ];

    #[test]
    fn plain_words_stay_as_they_are_and_the_rest_is_single_quoted() {
        assert_eq!(quote("/sys/kernel/tracing/kprobe_events"), "/sys/kernel/tracing/kprobe_events");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("q'd"), r"'q'\''d'");
        assert_eq!(quote(""), "''");
    }

    #[test]
    fn a_shell_reads_back_exactly_the_words_it_was_given() {
        let line = format!("printf '[%s]' {}", join(HOSTILE));
        let out = Command::new("/bin/sh").arg("-c").arg(&line).output().unwrap();
        assert!(out.status.success(), "{line}");
        let want: String = HOSTILE.iter().map(|w| format!("[{w}]")).collect();
        assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    }
}
