//! The flame graph in a real browser: headless chromium loads an SVG drawn from a call tree,
//! and the page it builds holds the title and every frame (a malformed SVG shows chromium's
//! XML error page instead). Skipped, saying so, where chromium is not installed.

use sonde_graph::folded::Folded;
use std::process::Command;

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
}

#[test]
fn chromium_renders_the_flame_graph_with_its_frames() {
    let Some(browser) = chromium() else {
        println!("skipped: chromium not installed (apt-get install chromium)");
        return;
    };
    let mut f = Folded::new();
    f.add_stack(&["vfs_read", "rw_verify_area"], 300);
    f.add_stack(&["vfs_read", "read_iter_zero", "iov_iter_zero"], 700);
    let dir = std::env::temp_dir().join(format!("sonde-graph-browser-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("vfs_read.svg");
    let file = std::fs::File::create(&path).unwrap();
    sonde_graph::svg::write(&f, "vfs_read: 2 calls", "ns", file).unwrap();
    let out = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("file://{}", path.display()))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!dom.contains("This page contains the following errors"), "{dom}");
    assert!(dom.contains("<svg"), "{dom}");
    assert!(dom.contains("vfs_read: 2 calls"), "no title: {dom}");
    for frame in ["vfs_read", "rw_verify_area", "read_iter_zero", "iov_iter_zero"] {
        assert!(dom.contains(&format!("<title>{frame} (")), "no frame {frame}: {dom}");
    }
}
