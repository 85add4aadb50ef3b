// Integration tests symbolize their own functions; `strip = true` in the release
// profile removes .symtab, so export them in .dynsym instead (tests only).
fn main() {
    println!("cargo:rustc-link-arg-tests=-Wl,--export-dynamic");
}
