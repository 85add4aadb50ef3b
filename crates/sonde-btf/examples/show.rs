//! Prints what BTF says about names: `cargo run -p sonde-btf --example show -- task_struct wake_up_new_task`.
//! A name that is a function prints its prototype; a struct/union prints its members.

use sonde_btf::{Btf, Kind, NamedKind};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let btf = Btf::load_vmlinux()?;
    for name in std::env::args().skip(1) {
        if let Some(f) = btf.find_func(&name) {
            println!("func #{}: {}", f.id, btf.type_name(f.id));
            for p in &f.params {
                println!("  param {}: {} (#{})", p.name, btf.type_name(p.ty), p.ty);
            }
            println!("  returns {} (#{})", btf.type_name(f.ret), f.ret);
            continue;
        }
        let Some(id) = btf.find_named(NamedKind::Any, &name) else {
            println!("{name}: not found");
            continue;
        };
        println!("{} (#{id}), size {:?}", btf.type_name(id), btf.size_of(id));
        match btf.kind(btf.strip(id)) {
            Kind::Struct { members, .. } | Kind::Union { members, .. } => {
                for m in members {
                    let bits = if m.bitfield_size > 0 {
                        format!(":{}", m.bitfield_size)
                    } else {
                        String::new()
                    };
                    println!(
                        "  +{:<5} {}{bits}  [{}]",
                        m.bit_offset / 8,
                        m.name,
                        btf.type_name(m.ty)
                    );
                }
            }
            other => println!("  {other:?}"),
        }
    }
    Ok(())
}
