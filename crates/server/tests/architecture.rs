//! The README's line of crate dependencies says what the Cargo files say: a newcomer reads the
//! architecture from it, so it must not drift from the code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each crate of ours (short name: `callscope` for the binary, `api` for `callscope-api`) and
/// the crates of ours among its `[dependencies]`.
fn from_cargo_files(root: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let short = |name: &str| name.strip_prefix("callscope-").unwrap_or(name).to_owned();
    let mut graph = BTreeMap::new();
    for entry in std::fs::read_dir(root.join("crates")).expect("crates/") {
        let manifest = std::fs::read_to_string(entry.expect("an entry").path().join("Cargo.toml")).expect("a Cargo.toml per crate");
        let mut name = None;
        let mut deps = BTreeSet::new();
        let mut section = "";
        for line in manifest.lines().map(str::trim) {
            if line.starts_with('[') {
                section = line;
                continue;
            }
            let key = line.split(['=', '.', ' ']).next().unwrap_or_default();
            match section {
                "[package]" if key == "name" => name = line.split('"').nth(1).map(short),
                "[dependencies]" if key.starts_with("callscope-") => {
                    deps.insert(short(key));
                }
                _ => {}
            }
        }
        graph.insert(name.expect("a package name"), deps);
    }
    graph
}

/// The graph the README states: `` `a → {b, c}` `` and `` `a → b` `` in its architecture section.
fn from_readme(readme: &str) -> BTreeMap<String, BTreeSet<String>> {
    let section = readme.split("## Architecture").nth(1).expect("an architecture section");
    let line = section.lines().find(|l| l.contains('→')).expect("a dependency line");
    let mut graph = BTreeMap::new();
    for code in line.split('`').skip(1).step_by(2) {
        let Some((from, to)) = code.split_once('→') else { continue };
        let to = to.trim().trim_start_matches('{').trim_end_matches('}');
        graph.insert(from.trim().to_owned(), to.split(',').map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).collect());
    }
    graph
}

#[test]
fn the_readme_dependency_line_matches_the_cargo_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let stated = from_readme(&readme);
    let actual = from_cargo_files(&root);
    for (krate, deps) in &actual {
        let said = stated.get(krate).cloned().unwrap_or_default();
        assert_eq!(&said, deps, "the README's dependencies of `{krate}` (a crate it does not list has none)");
    }
    for krate in stated.keys() {
        assert!(actual.contains_key(krate), "the README names a crate `{krate}` that does not exist");
    }
}
