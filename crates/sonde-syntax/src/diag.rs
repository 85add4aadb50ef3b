//! Diagnostics: a message about a span of the program, rendered rustc-style with the source line and a caret.

use crate::ast::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// The primary span: where the caret goes.
    pub span: Span,
    /// Secondary spans with a short note each (for example "first used here as a string").
    pub labels: Vec<(Span, String)>,
    /// `help: ...` line, for example "did you mean `pid`?".
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            labels: Vec::new(),
            help: None,
        }
    }
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            message: message.into(),
            span,
            labels: Vec::new(),
            help: None,
        }
    }
    pub fn with_label(mut self, span: Span, note: impl Into<String>) -> Diagnostic {
        self.labels.push((span, note.into()));
        self
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }
}

/// The name of a program given as text on the command line, in locations (`stdin:1:9`):
/// bpftrace's, so what users and scripts match in its messages matches in sonde's.
pub const PROGRAM_TEXT: &str = "stdin";

/// The program text and the name shown in `--> name:line:col` (a file path, or [`PROGRAM_TEXT`]
/// for text given on the command line).
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
}
