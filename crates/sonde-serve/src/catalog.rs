//! Every exported map of every program, checked once at start: two maps must not write under
//! the same sample name, and none may write under sonde's own `sonde_serve_` names.

use crate::mapping::MapMetric;
use crate::names::SELF_PREFIX;
use std::collections::HashMap;

/// Fails with a sentence naming both maps when two metrics clash; `metrics` are each with the
/// program file they come from.
pub fn check_unique<'a>(
    metrics: impl IntoIterator<Item = (&'a str, &'a MapMetric)>,
) -> Result<(), String> {
    let mut owner: HashMap<String, (&str, &MapMetric)> = HashMap::new();
    for (file, m) in metrics {
        if m.name.starts_with(SELF_PREFIX) {
            return Err(format!(
                "{file}: map {} would be metric {}, but `{SELF_PREFIX}` names are sonde's own: \
                 rename the map or give it `// metric: name=...`",
                m.map, m.name
            ));
        }
        for sample in m.sample_names() {
            if let Some((other_file, other)) = owner.get(&sample) {
                return Err(format!(
                    "{file}: map {} and {other_file}: map {} would both be metric {sample}: \
                     rename one of them or give it `// metric: name=...`",
                    m.map, other.map
                ));
            }
            owner.insert(sample, (file, m));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::Aggregation;

    fn m(map: &str, agg: Aggregation) -> MapMetric {
        MapMetric::new(map, agg, 0, None, "x.bt", "x").unwrap().unwrap()
    }

    #[test]
    fn distinct_maps_pass() {
        let (a, b) = (m("@a", Aggregation::Count), m("@b", Aggregation::Stats));
        assert_eq!(check_unique([("a.bt", &a), ("b.bt", &b)]), Ok(()));
    }

    #[test]
    fn the_same_name_in_two_programs_is_refused() {
        let (a, b) = (m("@opens", Aggregation::Count), m("@opens", Aggregation::Max));
        let e = check_unique([("a.bt", &a), ("b.bt", &b)]).unwrap_err();
        assert_eq!(
            e,
            "b.bt: map @opens and a.bt: map @opens would both be metric sonde_opens: rename one \
             of them or give it `// metric: name=...`"
        );
    }

    #[test]
    fn suffixes_clash_too() {
        // stats() writes sonde_lat_avg, which a map @lat_avg would also be.
        let (a, b) = (m("@lat", Aggregation::Stats), m("@lat_avg", Aggregation::Max));
        assert!(check_unique([("a.bt", &a), ("b.bt", &b)]).is_err());
        let (c, d) =
            (m("@x", Aggregation::Hist { signed: false }), m("@x_bucket", Aggregation::Max));
        assert!(check_unique([("a.bt", &c), ("b.bt", &d)]).is_err());
    }

    #[test]
    fn sondes_own_names_are_reserved() {
        let a = m("@serve_x", Aggregation::Count);
        let e = check_unique([("a.bt", &a)]).unwrap_err();
        assert!(e.contains("`sonde_serve_` names are sonde's own"), "{e}");
    }
}
