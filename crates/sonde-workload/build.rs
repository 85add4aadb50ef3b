// Export the uprobe target in .dynsym: the release profile strips .symtab, and an executable
// exports nothing by default.
fn main() {
    println!("cargo:rustc-link-arg-bins=-Wl,--export-dynamic-symbol=sonde_workload_target");
}
