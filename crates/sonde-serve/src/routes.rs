//! What `sonde serve` answers: `GET /metrics` (the exposition, in the format the scraper
//! asked for), `GET /healthz`; HEAD like GET; 405 for another method on those paths, 404
//! for any other path.

use crate::accept::negotiate;
use crate::expo::Format;
use crate::http::{Request, Response};

const GET_HEAD: &str = "GET, HEAD";

/// The answer to `req`; `metrics` makes the exposition in the format given, only when asked
/// (None when it cannot be had: a 503).
pub fn route(req: &Request, metrics: impl FnOnce(Format) -> Option<String>) -> Response {
    let known = matches!(req.path.as_str(), "/metrics" | "/healthz");
    if !known {
        return Response::text(404, "not found: sonde serves /metrics and /healthz\n");
    }
    if req.method != "GET" && req.method != "HEAD" {
        let mut r = Response::text(405, "method not allowed: use GET\n");
        r.allow = Some(GET_HEAD);
        return r;
    }
    if req.path == "/healthz" {
        return Response::text(200, "ok\n");
    }
    let format = negotiate(req.accept.as_deref());
    match metrics(format) {
        Some(body) => Response {
            status: 200,
            content_type: format.content_type(),
            body: body.into_bytes(),
            allow: None,
        },
        None => Response::text(503, "the metrics cannot be read now\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(method: &str, path: &str, accept: Option<&str>) -> Request {
        Request { method: method.into(), path: path.into(), accept: accept.map(String::from) }
    }

    fn body(f: Format) -> Option<String> {
        Some(format!("{f:?}\n"))
    }

    #[test]
    fn metrics_in_the_format_asked_for() {
        let r = route(&req("GET", "/metrics", None), body);
        assert_eq!((r.status, r.body.as_slice()), (200, &b"Text\n"[..]));
        let om = Some("application/openmetrics-text; version=1.0.0");
        let r = route(&req("GET", "/metrics", om), body);
        assert_eq!(r.body, b"OpenMetrics\n");
        assert!(r.content_type.starts_with("application/openmetrics-text"));
    }

    #[test]
    fn health_other_paths_and_methods() {
        assert_eq!(route(&req("GET", "/healthz", None), body).status, 200);
        assert_eq!(route(&req("GET", "/", None), body).status, 404);
        assert_eq!(route(&req("POST", "/nope", None), body).status, 404);
        let r = route(&req("POST", "/metrics", None), |_| panic!("not asked"));
        assert_eq!((r.status, r.allow), (405, Some(GET_HEAD)));
        assert_eq!(route(&req("DELETE", "/healthz", None), body).status, 405);
    }

    #[test]
    fn metrics_that_cannot_be_had_are_a_503() {
        assert_eq!(route(&req("GET", "/metrics", None), |_| None).status, 503);
    }
}
