//! Embeds every migration template (`migrations/*.sql`) in the store, so that a new migration
//! is a new file there (plus its checksums in `migrations/checksums.txt`), as with
//! `sqlx::migrate!`, which cannot render one schema for two databases.

use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

fn main() {
    let dir = Path::new(&env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("migrations");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = fs::read_dir(&dir)
        .expect("crates/store/migrations is readable")
        .map(|entry| entry.expect("a readable directory entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".sql"))
        .collect();
    names.sort();
    let mut list = String::from("&[\n");
    for name in &names {
        let path = dir.join(name);
        writeln!(list, "    ({name:?}, include_str!({:?})),", path.display().to_string()).expect("writing to a String");
    }
    list.push(']');
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("migration_templates.rs");
    fs::write(out, list).expect("OUT_DIR is writable");
}
