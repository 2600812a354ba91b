//! Records where the Python this worker links was installed
//! (`sys.base_prefix` of `PYO3_PYTHON`), so the worker can point CPython at
//! its own standard library whatever `python3` comes first on PATH.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=PYO3_PYTHON");
    let python = std::env::var("PYO3_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let prefix = Command::new(&python)
        .args(["-c", "import sys; print(sys.base_prefix)"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    println!("cargo:rustc-env=ATELIER_PYTHON_HOME={prefix}");
}
