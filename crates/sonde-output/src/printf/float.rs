//! bpftrace's floating-point conversions `%f %F %e %E %g %G %a %A`: the integer argument as a
//! double, written as a C++ stream writes one (bpftrace formats with `std::stringstream`):
//! without a precision, the stream's general form of 6 significant digits (`%f` of 3 is `3`);
//! with one, fixed (`%.2f`), scientific (`%.2e`) or general (`%.2g`, `%.2a`) with that precision.
//! Letters stay lower case (bpftrace sets no `std::uppercase`).

use super::Spec;

/// The text of `x` under `spec` (its sign included; padding is the caller's).
pub(super) fn text(spec: &Spec, x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x < 0.0 {
            "-inf".into()
        } else {
            "inf".into()
        };
    }
    match (spec.precision, spec.conv) {
        (Some(p), 'f' | 'F') => format!("{:.*}", p, x),
        (Some(p), 'e' | 'E') => scientific(x, p),
        (p, _) => general(x, p.unwrap_or(6)),
    }
}

/// C's `%.{p}e`: one digit, `p` decimals, an exponent of at least two digits.
fn scientific(x: f64, p: usize) -> String {
    let s = format!("{:.*e}", p, x);
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{}e{}{:02}", mantissa, sign, exp.unsigned_abs())
}

/// C's `%.{p}g`: `p` significant digits (0 counts as 1), fixed unless the exponent is below -4
/// or at least `p`, trailing zeros dropped.
fn general(x: f64, p: usize) -> String {
    let p = p.max(1);
    let sci = scientific(x, p - 1);
    let exp: i32 = sci.rsplit_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let (mantissa, e) = sci.split_once('e').unwrap_or((&sci, ""));
        format!("{}e{}", trim_zeros(mantissa), e)
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        trim_zeros(&format!("{:.*}", decimals, x)).to_string()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}
