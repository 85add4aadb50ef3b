//! The aggregations: per-CPU values merged when read, assigned to a map element.

use crate::model::tir::AggFunc;
use crate::sema::builtins::spec::{arg, base, opt, Check, Form, Kind, Param, Returns, Spec};

const AGGREGATION: Spec = base(Form::Aggregation, Check::Agg(|cx, c| cx.usage_error(c)));

const ONE_VALUE: &[Param] = &[arg("value", Kind::Integer)];

/// What a read of count(), sum(), min(), max() and avg() in a probe gives.
const READ: Returns = Returns::Computed("an integer when read in a probe");
/// The others can only be printed.
const PRINTED: Returns = Returns::Computed("printed only");

pub const AGGREGATIONS: &[Spec] = &[
    Spec {
        name: "count",
        takes: "no arguments",
        returns: READ,
        doc: "Counts the events.",
        example: "tracepoint:syscalls:sys_enter_read { @[comm] = count(); }",
        check: Check::Agg(|cx, c| cx.aggregate(AggFunc::Count, c)),
        ..AGGREGATION
    },
    Spec {
        name: "sum",
        params: ONE_VALUE,
        takes: "one value",
        returns: READ,
        doc: "Adds the values up.",
        example: "tracepoint:syscalls:sys_exit_read /args.ret > 0/ { @[comm] = sum(args.ret); }",
        check: Check::Agg(|cx, c| cx.aggregate(AggFunc::Sum, c)),
        ..AGGREGATION
    },
    Spec {
        name: "min",
        params: ONE_VALUE,
        takes: "one value",
        returns: READ,
        doc: "Keeps the smallest value.",
        example: "tracepoint:syscalls:sys_exit_read { @[comm] = min(args.ret); }",
        check: Check::Agg(|cx, c| cx.aggregate(AggFunc::Min, c)),
        ..AGGREGATION
    },
    Spec {
        name: "max",
        params: ONE_VALUE,
        takes: "one value",
        returns: READ,
        doc: "Keeps the largest value.",
        example: "tracepoint:syscalls:sys_exit_read { @[comm] = max(args.ret); }",
        check: Check::Agg(|cx, c| cx.aggregate(AggFunc::Max, c)),
        ..AGGREGATION
    },
    Spec {
        name: "avg",
        params: ONE_VALUE,
        takes: "one value",
        returns: READ,
        doc: "Averages the values.",
        example: "tracepoint:syscalls:sys_exit_read /args.ret > 0/ { @[comm] = avg(args.ret); }",
        check: Check::Agg(|cx, c| cx.aggregate(AggFunc::Avg, c)),
        ..AGGREGATION
    },
    Spec {
        name: "stats",
        params: ONE_VALUE,
        takes: "one value",
        returns: PRINTED,
        doc: "Keeps the count, the average and the total of the values.",
        example: "tracepoint:syscalls:sys_exit_read /args.ret > 0/ { @[comm] = stats(args.ret); }",
        check: Check::Agg(|cx, c| cx.aggregate(AggFunc::Stats, c)),
        ..AGGREGATION
    },
    Spec {
        name: "quantize",
        also: &["hist"],
        params: &[arg("value", Kind::Integer), opt("bits", Kind::Constant)],
        takes: "a value, and optionally k from 0 to 5: each power of two split into 2^k buckets",
        returns: PRINTED,
        doc: "A histogram of the values in power-of-two buckets; `hist(v, k)` splits each power of two into 2^k buckets.",
        example: "kretprobe:vfs_read { @bytes = hist(retval); }",
        check: Check::Agg(|cx, c| cx.hist(c)),
        ..AGGREGATION
    },
    Spec {
        name: "lhist",
        params: &[
            arg("value", Kind::Integer),
            arg("min", Kind::Constant),
            arg("max", Kind::Constant),
            arg("step", Kind::Constant),
        ],
        takes: "a value, a minimum, a maximum and a step: lhist(x, 0, 100, 10)",
        returns: PRINTED,
        doc: "A histogram of the values in buckets of `step` from `min` to `max` (1000 buckets at most).",
        example: "tracepoint:syscalls:sys_exit_read { @ = lhist(args.ret, 0, 1000, 100); }",
        check: Check::Agg(|cx, c| cx.lhist(c)),
        ..AGGREGATION
    },
    Spec {
        name: "tseries",
        params: &[
            arg("value", Kind::Integer),
            arg("interval", Kind::Constant),
            arg("intervals", Kind::Constant),
            opt("agg", Kind::Text),
        ],
        takes: "a value, an interval, a number of intervals and optionally how an interval combines its values: tseries(x, 100ms, 10, \"avg\")",
        returns: PRINTED,
        doc: "The value over time: the last `intervals` intervals of `interval` (a duration such as `1s`), each holding the last value given in it, or their \"sum\", \"min\", \"max\" or \"avg\"; printed as a graph.",
        example: "tracepoint:syscalls:sys_exit_read { @bytes = tseries(args.ret, 1s, 10, \"sum\"); }",
        check: Check::Agg(|cx, c| cx.tseries(c)),
        ..AGGREGATION
    },
];
