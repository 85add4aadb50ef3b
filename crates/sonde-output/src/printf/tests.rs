//! Expected strings come from glibc's printf (checked with a throwaway C program).

use super::*;

fn f(fmt: &str, args: &[Value]) -> String {
    String::from_utf8(format(&parse(fmt.as_bytes()).unwrap(), args)).unwrap()
}
fn i(v: i64) -> Value {
    Value::int(v)
}
fn u(v: u64) -> Value {
    Value::uint(v)
}
fn s(v: &str) -> Value {
    Value::str(v)
}

#[test]
fn parse_pieces() {
    let p = parse(b"pid %-08.3ld: %s%%\n").unwrap();
    assert_eq!(p.len(), 5);
    assert_eq!(p[0], Piece::Literal(b"pid ".to_vec()));
    let Piece::Conv(spec) = &p[1] else { panic!() };
    assert_eq!(
        *spec,
        Spec {
            flags: Flags { minus: true, zero: true, ..Flags::default() },
            width: Some(8),
            precision: Some(3),
            length: Length::L,
            conv: 'd',
        }
    );
    assert!(spec.wants_integer() && !spec.wants_string() && spec.is_signed());
    assert_eq!(spec.int_bits(), 64);
    assert_eq!(p[2], Piece::Literal(b": ".to_vec()));
    let Piece::Conv(spec) = &p[3] else { panic!() };
    assert!(spec.wants_string() && !spec.wants_integer());
    assert_eq!(p[4], Piece::Literal(b"%\n".to_vec()));
    // `%%` merges into the surrounding literal.
    assert_eq!(parse(b"a%%b").unwrap(), [Piece::Literal(b"a%b".to_vec())]);
    assert_eq!(parse(b"").unwrap(), []);
}

#[test]
fn parse_lengths_and_counts() {
    let lens: Vec<Length> =
        specs(&parse(b"%hhd%hd%d%ld%lld%jd%zd%td%.d").unwrap()).map(|s| s.length).collect();
    use Length::*;
    assert_eq!(lens, [Hh, H, None, L, Ll, J, Z, T, None]);
    let p = parse(b"%.d").unwrap();
    assert_eq!(specs(&p).next().unwrap().precision, Some(0));
    assert_eq!(
        specs(&parse(b"%c %p %u %x").unwrap()).map(Spec::int_bits).collect::<Vec<_>>(),
        [8, 64, 64, 64]
    );
    assert_eq!(specs(&parse(b"%s%d%%%x").unwrap()).count(), 3);
}

#[test]
fn parse_errors() {
    assert_eq!(parse(b"ab %q"), Err(FormatError::UnknownConversion { pos: 3, conv: 'q' }));
    assert_eq!(parse(b"%k"), Err(FormatError::UnknownConversion { pos: 0, conv: 'k' }));
    assert_eq!(parse(b"%n"), Err(FormatError::UnknownConversion { pos: 0, conv: 'n' }));
    assert_eq!(parse("%é".as_bytes()), Err(FormatError::UnknownConversion { pos: 0, conv: 'é' }));
    assert_eq!(parse(b"%*d"), Err(FormatError::StarWidth { pos: 0 }));
    assert_eq!(parse(b"x%.*s"), Err(FormatError::StarWidth { pos: 1 }));
    assert_eq!(parse(b"50%"), Err(FormatError::TrailingPercent { pos: 2 }));
    assert_eq!(parse(b"%-0"), Err(FormatError::TrailingPercent { pos: 0 }));
    assert_eq!(parse(b"%ll"), Err(FormatError::TrailingPercent { pos: 0 }));
    assert_eq!(parse(b"%ls"), Err(FormatError::LengthNotAllowed { pos: 0, conv: 's' }));
    assert_eq!(parse(b"%hc"), Err(FormatError::LengthNotAllowed { pos: 0, conv: 'c' }));
    let msg = parse(b"%*d").unwrap_err().to_string();
    assert!(msg.contains("not supported"), "{msg}");
    let msg = parse(b"%q").unwrap_err().to_string();
    assert!(msg.contains("'%q'"), "{msg}");
}

#[test]
fn decimal() {
    assert_eq!(f("%d %i %u", &[i(42), i(-42), u(42)]), "42 -42 42");
    assert_eq!(f("%5d|%-5d|%05d", &[i(-42), i(-42), i(-42)]), "  -42|-42  |-0042");
    assert_eq!(f("%+d %+d % d % d", &[i(5), i(-5), i(5), i(-5)]), "+5 -5  5 -5");
    assert_eq!(f("%+5d|%-+5d|%+05d", &[i(5), i(5), i(5)]), "   +5|+5   |+0005");
    assert_eq!(f("%.5d %8.5d %-8.5d|", &[i(42), i(-42), i(42)]), "00042   -00042 00042   |");
    assert_eq!(f("%ld", &[i(i64::MIN)]), "-9223372036854775808");
    assert_eq!(f("%d", &[i(i32::MIN as i64)]), "-2147483648");
    assert_eq!(f("%ld", &[u(5000000005)]), "5000000005");
    assert_eq!(
        f("%llu %zu %jd %td", &[u(u64::MAX), i(-1), i(-1), i(-2)]),
        "18446744073709551615 18446744073709551615 -1 -2"
    );
    assert_eq!(f("%.0d|%5.0d|", &[i(0), i(0)]), "|     |");
}

#[test]
fn truncation_follows_length() {
    // No modifier: the whole 64-bit value, as bpftrace prints it.
    assert_eq!(f("%d", &[u(5000000005)]), "5000000005");
    assert_eq!(f("%u", &[i(-1)]), "18446744073709551615");
    assert_eq!(f("%d", &[i(-5000000005)]), "-5000000005");
    assert_eq!(f("%lu", &[i(-1)]), "18446744073709551615");
    assert_eq!(f("%hd", &[i(70000)]), "4464");
    assert_eq!(f("%hhd", &[i(200)]), "-56");
    assert_eq!(f("%hhd", &[i(-129)]), "127");
    assert_eq!(f("%hhu", &[i(-1)]), "255");
}

#[test]
fn hex_and_octal() {
    assert_eq!(f("%x %X %o", &[u(3054), u(3054), u(8)]), "bee BEE 10");
    assert_eq!(f("%x", &[i(-1)]), "ffffffffffffffff");
    assert_eq!(f("%lx", &[i(-1)]), "ffffffffffffffff");
    assert_eq!(f("%llx", &[i(-1)]), "ffffffffffffffff");
    assert_eq!(f("%hx", &[i(-1)]), "ffff");
    assert_eq!(f("%hhx", &[i(-1)]), "ff");
    assert_eq!(f("%o", &[i(-1)]), "1777777777777777777777");
    assert_eq!(f("%lo", &[i(-1)]), "1777777777777777777777");
    assert_eq!(f("%#x %#X %#o %#x", &[u(255), u(255), u(8), u(0)]), "0xff 0XFF 010 0");
    assert_eq!(
        f("%#010x|%#-10x|%#10x", &[u(0xab), u(0xab), u(0xab)]),
        "0x000000ab|0xab      |      0xab"
    );
    assert_eq!(f("%08.3x|%.0x|%.0o|%#.0o", &[u(0x1f), u(0), u(0), u(0)]), "     01f|||0");
    assert_eq!(f("%#.3o|%#5o", &[u(8), u(8)]), "010|  010");
    // '+' and ' ' only apply to signed conversions.
    assert_eq!(f("%+u % u %+x", &[u(5), u(5), u(5)]), "5 5 5");
}

#[test]
fn chars_strings_pointers() {
    assert_eq!(f("%c%c%c", &[u(b'a' as u64), u(b'b' as u64), u(b'c' as u64)]), "abc");
    assert_eq!(
        f("%3c|%-3c|%05c", &[u(b'x' as u64), u(b'y' as u64), u(b'z' as u64)]),
        "  x|y  |    z"
    );
    assert_eq!(f("%s=%d", &[s("pid"), i(7)]), "pid=7");
    assert_eq!(
        f("%10s|%-10s|%05s", &[s("bash"), s("bash"), s("ab")]),
        "      bash|bash      |   ab"
    );
    assert_eq!(f("%.2s|%.0s|%6.2s", &[s("bash"), s("bash"), s("abcdef")]), "ba||    ab");
    assert_eq!(f("[%s]", &[s("sh\0garbage")]), "[sh]");
    assert_eq!(f("%p", &[u(0xffffffff81000000)]), "0xffffffff81000000");
    assert_eq!(f("%18p|%-8p|", &[u(0x10), u(0x10)]), "              0x10|0x10    |");
    assert_eq!(
        f("%+p|% p|%020p|%.5p", &[u(0x1234), u(0x1234), u(0x1234), u(0x12)]),
        "+0x1234| 0x1234|0x000000000000001234|0x00012"
    );
    assert_eq!(f("%p|%10p|%-8p|", &[u(0), u(0), u(0)]), "(nil)|     (nil)|(nil)   |");
}

#[test]
fn percent_literals() {
    assert_eq!(f("100%% done", &[]), "100% done");
    assert_eq!(f("%%d", &[]), "%d");
    // glibc ignores flags and width on %%.
    assert_eq!(f("a%5%b", &[]), "a%b");
}

#[test]
fn raw_bytes_pass_through() {
    let p = parse(b"\xff%s\n").unwrap();
    assert_eq!(format(&p, &[Value::Str(vec![0x80, 0x01, 0])]), b"\xff\x80\x01\n");
    assert_eq!(format(&parse(b"%c").unwrap(), &[u(0)]), b"\0");
}

#[test]
fn mismatched_and_missing_args() {
    // A symbol prints its name under %s and its address under integer conversions.
    let sym = Value::Sym { addr: 0x1000, name: Some("do_sys_open".into()) };
    assert_eq!(f("%s %lx %p", &[sym.clone(), sym.clone(), sym]), "do_sys_open 1000 0x1000");
    assert_eq!(f("%s|%5d|", &[i(-3), s("ab")]), "-3|   ab|");
    assert_eq!(f("%s", &[Value::Bytes(vec![1, 0xab])]), "01 ab");
    let t = Value::Tuple(vec![i(1), s("x")]);
    assert_eq!(f("%s", &[t]), "(1, x)");
    assert_eq!(f("a=%d b=%d.", &[i(1)]), "a=1 b=.");
    assert_eq!(f("%d", &[i(1), i(2)]), "1");
}

#[test]
fn v_prints_values_as_print_does() {
    assert_eq!(
        f("%v|%v|%v", &[i(-7), u(u64::MAX), s("bash\0junk")]),
        "-7|18446744073709551615|bash"
    );
    let sym = Value::sym_at(0x1010, "vfs_read", 0x1000);
    let tuple = Value::Tuple(vec![s("sh"), i(2)]);
    assert_eq!(
        f("%v %v %v", &[sym, tuple, Value::Bytes(vec![1, 0xab])]),
        "vfs_read+0x10 (sh, 2) 01 ab"
    );
    // Strings print escaped, as `print` shows them.
    assert_eq!(f("[%v]", &[s("a\tb")]), "[a\\x09b]");
    assert_eq!(f("%6v|%-6v|%.2v|%.1v", &[i(42), s("ab"), s("bash"), s("é")]), "    42|ab    |ba|");
    assert_eq!(parse(b"%lv"), Err(FormatError::LengthNotAllowed { pos: 0, conv: 'v' }));
}

#[test]
fn buffers_print_escaped_as_hex_escapes_or_as_hex_bytes() {
    let b = Value::Buf(b"Hi\0\n".to_vec());
    assert_eq!(
        f("%r|%rx|%rh|%s", &[b.clone(), b.clone(), b.clone(), b]),
        "Hi\\x00\\x0a|\\x48\\x69\\x00\\x0a|48 69 00 0a|Hi\\x00\\x0a"
    );
    // `%rx` is one conversion; `%rxy` leaves `y` as text.
    assert_eq!(f("%rxy", &[Value::Buf(vec![1])]), "\\x01y");
    assert!(parse(b"%lrx").is_err());
}

#[test]
fn floats_print_as_bpftrace_streams_them() {
    // No precision: the stream's general form, six significant digits.
    assert_eq!(f("%f|%e|%g|%G", &[i(3), i(-2), u(1234567), i(100000)]), "3|-2|1.23457e+06|100000");
    assert_eq!(
        f("%.2f|%.3e|%.2g|%.0f", &[i(3), i(1500), i(1500), i(7)]),
        "3.00|1.500e+03|1.5e+03|7"
    );
    assert_eq!(
        f("%8.1f|%-6g|%+g|%08.2f", &[i(5), i(2), i(4), i(-3)]),
        "     5.0|2     |+4|-0003.00"
    );
    assert!(parse(b"%hf").is_ok());
}

#[test]
fn gr_names_gfp_flags_compound_names_first() {
    assert_eq!(f("%gr", &[u(1)]), "GFP_DMA");
    assert_eq!(f("%gr", &[u(0)]), "0");
    // GFP_KERNEL (reclaim, IO, FS) and __GFP_ZERO.
    assert_eq!(f("%gr", &[u(0xcc0 | 0x100)]), "GFP_KERNEL|__GFP_ZERO");
    assert_eq!(f("%gr|%g", &[u(1 << 40), i(2)]), "0x10000000000|2");
}
