//! strace's flags `sonde trace` does not do yet: each is known to the parser, so that it is refused
//! with one sentence naming it (rather than taken for the command, or silently ignored).

use clap::{Arg, ArgAction, ArgMatches, Command, FromArgMatches};

/// One of strace's flags sonde does not do yet.
pub struct NotYet {
    pub letter: char,
    /// The value it takes, if any (so the value is not taken for the command).
    pub value: Option<&'static str>,
    /// What it does in strace.
    pub does: &'static str,
    /// What sonde offers instead, if anything.
    pub instead: Option<&'static str>,
}

const fn flag(letter: char, does: &'static str) -> NotYet {
    NotYet { letter, value: None, does, instead: None }
}

const fn valued(letter: char, value: &'static str, does: &'static str) -> NotYet {
    NotYet { letter, value: Some(value), does, instead: None }
}

/// strace's flags sonde trace refuses (docs/trace.md lists them from here).
pub const NOT_YET: &[NotYet] = &[
    valued('a', "COLUMN", "the column results are aligned to").or("--all traces every process"),
    valued('b', "SYSCALL", "detaching when a syscall is made"),
    flag('d', "strace's own debugging output"),
    flag('D', "running the tracer as a detached grandchild"),
    valued('E', "VAR=VAL", "changing the command's environment"),
    flag('i', "the instruction pointer at each call"),
    valued('I', "N", "when signals may interrupt the tracer"),
    flag('n', "syscall numbers"),
    valued('O', "OVERHEAD", "the tracer's overhead taken off the summary's times"),
    valued('u', "USER", "running the command as USER")
        .or("--uid USER traces only that user's tasks"),
    flag('V', "strace's version"),
    flag('w', "the summary's times as wall-clock latency"),
    flag('x', "non-ASCII strings in hex"),
    flag('z', "only the calls that succeeded"),
];

impl NotYet {
    /// With what sonde offers instead.
    const fn or(self, instead: &'static str) -> NotYet {
        NotYet { instead: Some(instead), ..self }
    }

    fn id(&self) -> String {
        format!("strace-{}", self.letter)
    }

    /// The one sentence a refused flag gets.
    pub fn sentence(&self) -> String {
        let flag = match self.value {
            Some(v) => format!("-{} {v}", self.letter),
            None => format!("-{}", self.letter),
        };
        let instead = self.instead.map(|i| format!(": {i}")).unwrap_or_default();
        format!("strace's {flag} ({}) is not implemented in sonde trace yet{instead}", self.does)
    }
}

/// The first of strace's flags given that sonde does not do yet.
#[derive(Clone, Debug, Default)]
pub struct Refused(pub Option<String>);

impl FromArgMatches for Refused {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let given = NOT_YET.iter().find(|f| {
            let id = f.id();
            match f.value {
                Some(_) => m.get_many::<String>(&id).is_some_and(|mut v| v.next().is_some()),
                None => m.get_count(&id) > 0,
            }
        });
        Ok(Refused(given.map(NotYet::sentence)))
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Refused::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for Refused {
    fn augment_args(cmd: Command) -> Command {
        let letters: Vec<String> = NOT_YET.iter().map(|f| format!("-{}", f.letter)).collect();
        let note = format!(
            "Refused, not implemented yet: strace's {} (docs/trace.md).",
            letters.join(" ")
        );
        let cmd = cmd.after_help(note);
        NOT_YET.iter().fold(cmd, |cmd, f| {
            let arg = Arg::new(f.id()).short(f.letter).hide(true);
            let arg = match f.value {
                Some(v) => arg.value_name(v).action(ArgAction::Append),
                None => arg.action(ArgAction::Count),
            };
            cmd.arg(arg)
        })
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

#[cfg(test)]
mod tests {
    use super::NOT_YET;

    #[test]
    fn each_refused_letter_is_listed_once_with_a_sentence() {
        let mut letters: Vec<char> = NOT_YET.iter().map(|f| f.letter).collect();
        letters.sort();
        letters.dedup();
        assert_eq!(letters.len(), NOT_YET.len());
        let u = NOT_YET.iter().find(|f| f.letter == 'u').unwrap();
        assert_eq!(
            u.sentence(),
            "strace's -u USER (running the command as USER) is not implemented in sonde trace yet: --uid USER traces only that user's tasks"
        );
    }
}
