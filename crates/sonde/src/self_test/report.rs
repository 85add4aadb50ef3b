//! The self-test's findings and their two renderings: aligned text, and one `self_test` record.

use sonde_kernel::features::kconfig::KernelConfig;
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Kernel,
    Provider,
}

#[derive(Debug)]
pub struct Check {
    pub group: Group,
    pub name: &'static str,
    pub ok: bool,
    /// sonde cannot run without it (else it only limits what programs may use).
    pub needed: bool,
    /// What was found or tried, one line.
    pub detail: String,
    /// When missing: what to do about it.
    pub fix: Option<String>,
}

pub struct Report {
    release: String,
    config: Option<String>,
    pub checks: Vec<Check>,
}

impl Report {
    pub fn new(release: String, config: Option<&KernelConfig>) -> Report {
        let config = config.map(|c| c.path.display().to_string());
        Report { release, config, checks: Vec::new() }
    }

    pub fn add(&mut self, c: Check) {
        self.checks.push(c);
    }

    pub fn needed_ok(&self) -> bool {
        self.checks.iter().all(|c| c.ok || !c.needed)
    }

    fn missing(&self) -> Vec<&Check> {
        self.checks.iter().filter(|c| !c.ok).collect()
    }

    pub fn text(&self) -> String {
        let mut out = String::new();
        let config =
            self.config.as_deref().unwrap_or("not found (no /proc/config.gz or /boot/config-*)");
        let _ =
            writeln!(out, "sonde self-test: Linux {} (kernel config: {})", self.release, config);
        for (group, title) in
            [(Group::Kernel, "Kernel"), (Group::Provider, "Providers (attached and detached)")]
        {
            let _ = writeln!(out, "\n{}", title);
            for c in self.checks.iter().filter(|c| c.group == group) {
                let verdict = match (c.ok, c.needed) {
                    (true, _) => "ok",
                    (false, true) => "FAILED",
                    (false, false) => "missing",
                };
                let _ = writeln!(out, "  {:<8} {:<20} {}", verdict, c.name, c.detail);
                if let (false, Some(fix)) = (c.ok, &c.fix) {
                    let _ = writeln!(out, "  {:<8} {:<20} -> {}", "", "", fix);
                }
            }
        }
        let missing = self.missing();
        let names = |needed: bool| -> Vec<&str> {
            missing.iter().filter(|c| c.needed == needed).map(|c| c.name).collect()
        };
        let _ = writeln!(out);
        let (needed, optional) = (names(true), names(false));
        let summary = match (needed.is_empty(), optional.is_empty()) {
            (true, true) => "sonde can run here; everything works.".to_string(),
            (true, false) => format!("sonde can run here; missing: {}.", optional.join(", ")),
            (false, true) => format!("sonde cannot run here: {} failed.", needed.join(", ")),
            (false, false) => format!(
                "sonde cannot run here: {} failed; also missing: {}.",
                needed.join(", "),
                optional.join(", ")
            ),
        };
        let _ = writeln!(out, "{}", summary);
        out
    }

    pub fn json(&self) -> String {
        let check = |c: &Check| {
            serde_json::json!({
                "name": c.name,
                "ok": c.ok,
                "needed": c.needed,
                "detail": c.detail,
                "fix": if c.ok { None } else { c.fix.clone() },
            })
        };
        let group = |g: Group| -> Vec<serde_json::Value> {
            self.checks.iter().filter(|c| c.group == g).map(check).collect()
        };
        let missing: Vec<&str> = self.missing().iter().map(|c| c.name).collect();
        let data = serde_json::json!({
            "kernel": { "release": self.release, "config": self.config },
            "ok": self.needed_ok(),
            "missing": missing,
            "checks": group(Group::Kernel),
            "providers": group(Group::Provider),
        });
        sonde_output::Record::new(sonde_output::Type::SelfTest, data).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &'static str, ok: bool, needed: bool) -> Check {
        let fix = Some(format!("fix {name}"));
        Check { group: Group::Kernel, name, ok, needed, detail: format!("about {name}"), fix }
    }

    #[test]
    fn optional_misses_do_not_fail_and_are_named() {
        let mut r = Report::new("6.1.0".into(), None);
        r.add(check("ring buffer", true, true));
        r.add(check("kprobes", false, false));
        assert!(r.needed_ok());
        let text = r.text();
        assert!(text.contains("  missing  kprobes              about kprobes\n"), "{text}");
        assert!(text.contains("-> fix kprobes"), "{text}");
        assert!(!text.contains("fix ring buffer"), "{text}");
        assert!(text.ends_with("sonde can run here; missing: kprobes.\n"), "{text}");
        let schema = sonde_schema::Schema::records().unwrap();
        let record = schema.check_line(&r.json()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(record["type"], "self_test");
        let j = &record["data"];
        assert_eq!(j["ok"], true);
        assert_eq!(j["missing"], serde_json::json!(["kprobes"]));
        assert_eq!(j["checks"][0]["fix"], serde_json::Value::Null);
        assert_eq!(j["checks"][1]["fix"], "fix kprobes");
    }

    #[test]
    fn a_needed_miss_fails() {
        let mut r = Report::new("5.4.0".into(), None);
        r.add(check("ring buffer", false, true));
        assert!(!r.needed_ok());
        assert!(r.text().contains("  FAILED   ring buffer"));
        assert!(r.text().ends_with("sonde cannot run here: ring buffer failed.\n"), "{}", r.text());
        let record: serde_json::Value = serde_json::from_str(&r.json()).unwrap();
        assert_eq!(record["data"]["ok"], false);
    }
}
