//! Manual checks and timings: `sonde-sym kallsyms [NAME|0xADDR]`,
//! `sonde-sym uprobe NAME:SYMBOL`, `sonde-sym funcs NAME [GLOB]`,
//! `sonde-sym pid PID 0xADDR...`, `sonde-sym kglob GLOB`.

use std::time::Instant;

use sonde_glob::Glob;
use sonde_symbols::*;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
    let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok();
    let t0 = Instant::now();
    let result: Result<()> = (|| {
        match arg(0) {
            "kallsyms" => {
                let k = KernelSymbols::load()?;
                println!("{} symbols, load {:?}", k.len(), t0.elapsed());
                for q in &args[1..] {
                    let t = Instant::now();
                    match hex(q).filter(|_| q.starts_with("0x")) {
                        Some(a) => println!("{q} -> {:?} ({:?})", k.resolve(a), t.elapsed()),
                        None => println!("{q} -> {:x?} ({:?})", k.address(q), t.elapsed()),
                    }
                }
            }
            "uprobe" => {
                let (file, sym) = arg(1).rsplit_once(':').unwrap_or((arg(1), ""));
                let path = locate(file)?;
                let t = Instant::now();
                let target = resolve_symbol(&path, sym)?;
                println!("{target:?}\nlocate {:?}, resolve {:?}", t - t0, t.elapsed());
            }
            "funcs" => {
                let g = Glob::new(if arg(2).is_empty() { "*" } else { arg(2) });
                let fns = functions(locate(arg(1))?)?;
                for f in fns.iter().filter(|f| g.matches(&f.name)) {
                    println!("{:#x} {:>6} {}", f.address, f.size, f.name);
                }
                eprintln!("{:?}", t0.elapsed());
            }
            "pid" => {
                let mut p = ProcessSymbols::for_pid(arg(1).parse().unwrap_or(0));
                for a in args[2..].iter().filter_map(|a| hex(a)) {
                    println!("{}", p.format(a));
                }
                eprintln!("{:?}", t0.elapsed());
            }
            "kglob" => {
                let k = KernelSymbols::load_names()?;
                let t = TraceableFunctions::load()?;
                let b = Blacklist::load().unwrap_or_default();
                let m = t.matches(arg(1), &b, k.function_names());
                println!("{:?}", m);
            }
            _ => eprintln!("usage: sonde-sym kallsyms|uprobe|funcs|pid|kglob ..."),
        }
        Ok(())
    })();
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
