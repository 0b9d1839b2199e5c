//! The schema, written once for both backends.
//!
//! Each `.sql` file under `migrations/` is one migration, named `<version>_<description>.sql` as
//! sqlx expects (forward only: no `.up.sql`/`.down.sql` pairs). It is SQL with two additions,
//! rendered for the backend at hand:
//!
//! - Column types that the databases name differently are written as upper-case words:
//!
//!   | template    | PostgreSQL         | SQLite (as sqlx encodes the values) |
//!   |-------------|--------------------|-------------------------------------|
//!   | `UUID`      | `uuid`             | `blob` (16 bytes)                   |
//!   | `TIMESTAMP` | `timestamptz`      | `text` (RFC 3339, UTC)              |
//!   | `JSON`      | `jsonb`            | `text`                              |
//!   | `BOOLEAN`   | `boolean`          | `integer`                           |
//!   | `FALSE`     | `false`            | `0`                                 |
//!   | `TRUE`      | `true`             | `1`                                 |
//!   | `FLOAT`     | `double precision` | `real`                              |
//!   | `BIGINT`    | `bigint`           | `integer`                           |
//!
//!   They are replaced only as whole words, and not in `--` comments, in `'…'` literals or
//!   `"…"` names that close on their line, or after a `.`. (Block comments, literals spanning
//!   lines and `$$` bodies are not recognised: keep type words out of them, or put them in a
//!   block.)
//! - What only one backend runs (PostgreSQL's trigger functions, SQLite's triggers and its own
//!   indexes, comments about one backend) stands between a line `--@ postgres` or `--@ sqlite`
//!   and a line `--@ end`.
//!
//! A database records the checksum of every migration it applied and refuses to start when
//! one changes, so `migrations/checksums.txt` pins what each backend runs and a test holds the
//! rendering to it: a new migration adds its lines there, and a released one is never edited.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::pin::Pin;

use sqlx::error::BoxDynError;
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};

use crate::Backend;

/// `(file name, text)` of every template, in version order (made by `build.rs`).
const TEMPLATES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/migration_templates.rs"));

/// How `backend` spells a type word of the templates; `None` for any other word.
fn spelling(word: &str, backend: Backend) -> Option<&'static str> {
    let (postgres, sqlite) = match word {
        "UUID" => ("uuid", "blob"),
        "TIMESTAMP" => ("timestamptz", "text"),
        "JSON" => ("jsonb", "text"),
        "BOOLEAN" => ("boolean", "integer"),
        "FALSE" => ("false", "0"),
        "TRUE" => ("true", "1"),
        "FLOAT" => ("double precision", "real"),
        "BIGINT" => ("bigint", "integer"),
        _ => return None,
    };
    Some(match backend {
        Backend::Postgres => postgres,
        Backend::Sqlite => sqlite,
    })
}

/// A template that cannot be rendered: a programming error that the tests catch.
#[derive(Debug)]
pub(crate) struct TemplateError {
    file: &'static str,
    /// 1-based; 0 for the file's name.
    line: usize,
    problem: &'static str,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "migrations/{}: {}", self.file, self.problem),
            line => write!(f, "migrations/{} line {line}: {}", self.file, self.problem),
        }
    }
}

impl std::error::Error for TemplateError {}

/// The migrator for one backend.
pub(crate) async fn migrator(backend: Backend) -> Result<Migrator, sqlx::migrate::MigrateError> {
    Migrator::new(Rendered(backend)).await
}

/// Every migration as `backend` runs it; one that renders empty (the other backend's alone) is
/// left out.
pub(crate) fn migrations(backend: Backend) -> Result<Vec<Migration>, TemplateError> {
    migrations_of(TEMPLATES, backend)
}

/// [`migrations`] of the given `(file name, text)` templates.
fn migrations_of(templates: &[(&'static str, &'static str)], backend: Backend) -> Result<Vec<Migration>, TemplateError> {
    let mut migrations = Vec::with_capacity(templates.len());
    for &(file, template) in templates {
        let bad_name = || TemplateError { file, line: 0, problem: "the name is not <version>_<description>.sql" };
        if file.ends_with(".up.sql") || file.ends_with(".down.sql") {
            return Err(TemplateError { file, line: 0, problem: "reversible migrations are not supported" });
        }
        let (version, description) = file.strip_suffix(".sql").and_then(|stem| stem.split_once('_')).ok_or_else(bad_name)?;
        let version: i64 = version.parse().map_err(|_| bad_name())?;
        let sql = render(file, template, backend)?;
        if sql.trim().is_empty() {
            continue;
        }
        if sql.starts_with("-- no-transaction") {
            // sqlx would run such a file outside a transaction; this source does not.
            return Err(TemplateError { file, line: 1, problem: "migrations outside a transaction are not supported" });
        }
        let description = description.replace('_', " ");
        migrations.push(Migration::new(version, Cow::Owned(description), MigrationType::Simple, Cow::Owned(sql), false));
    }
    // In version order, as sqlx orders a folder (the file names sort so only while versions
    // have as many digits).
    migrations.sort_by_key(|migration| migration.version);
    Ok(migrations)
}

#[derive(Debug)]
struct Rendered(Backend);

impl MigrationSource<'static> for Rendered {
    // The trait's future type (futures' `BoxFuture`) spelt out, to need no crate for it.
    #[allow(clippy::type_complexity)]
    fn resolve(self) -> Pin<Box<dyn Future<Output = Result<Vec<Migration>, BoxDynError>> + Send + 'static>> {
        let rendered = migrations(self.0).map_err(BoxDynError::from);
        Box::pin(async move { rendered })
    }
}

/// One template as `backend` runs it.
fn render(file: &'static str, template: &str, backend: Backend) -> Result<String, TemplateError> {
    let mut sql = String::with_capacity(template.len());
    let mut block: Option<Backend> = None;
    for (index, line) in template.split_inclusive('\n').enumerate() {
        let error = |problem| TemplateError { file, line: index + 1, problem };
        match line.trim().strip_prefix("--@ ") {
            Some("postgres" | "sqlite") if block.is_some() => return Err(error("a block inside a block")),
            Some("postgres") => block = Some(Backend::Postgres),
            Some("sqlite") => block = Some(Backend::Sqlite),
            Some("end") if block.is_none() => return Err(error("`--@ end` outside a block")),
            Some("end") => block = None,
            Some(_) => return Err(error("expected `--@ postgres`, `--@ sqlite` or `--@ end`")),
            None if block.is_some_and(|only| only != backend) => {}
            None => spell_types(line, backend, &mut sql),
        }
    }
    if block.is_some() {
        return Err(TemplateError { file, line: template.lines().count(), problem: "a block without `--@ end`" });
    }
    Ok(sql)
}

/// Appends `line` with its type words spelt for `backend`; comments and string literals are
/// copied as they are.
fn spell_types(line: &str, backend: Backend, sql: &mut String) {
    let mut rest = line;
    while let Some(start) = rest.find(|c: char| c == '\'' || c == '"' || c == '-' || c.is_ascii_uppercase()) {
        sql.push_str(&rest[..start]);
        rest = &rest[start..];
        if rest.starts_with("--") {
            break;
        }
        if let Some(quote) = rest.chars().next().filter(|c| *c == '\'' || *c == '"') {
            // A literal or quoted name runs to the next quote of its kind ('' inside one is two
            // back to back); one left open runs to the end of the line.
            let end = rest[1..].find(quote).map_or(rest.len(), |at| at + 2);
            sql.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        }
        let word_len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len()).max(1);
        let (word, after) = rest.split_at(word_len);
        // Not the tail of a longer name, nor a column qualified by its table.
        let starts_word = !sql.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        match spelling(word, backend) {
            Some(spelt) if starts_word => sql.push_str(spelt),
            _ => sql.push_str(word),
        }
        rest = after;
    }
    sql.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    const BACKENDS: [Backend; 2] = [Backend::Postgres, Backend::Sqlite];

    /// `(version, backend, checksum hex)` pinned in `migrations/checksums.txt`.
    fn pinned() -> Vec<(i64, String, String)> {
        include_str!("../migrations/checksums.txt")
            .lines()
            .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
            .map(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                assert_eq!(fields.len(), 3, "checksums.txt: {line:?} is not `version backend sha384`");
                (fields[0].parse().expect("a numeric version"), fields[1].to_owned(), fields[2].to_owned())
            })
            .collect()
    }

    #[test]
    fn every_migration_renders_as_pinned_for_each_backend() {
        let pinned = pinned();
        let mut rendered = Vec::new();
        for backend in BACKENDS {
            for migration in migrations(backend).unwrap() {
                rendered.push((migration.version, backend.name().to_owned(), migration.checksum.iter().map(|byte| format!("{byte:02x}")).collect()));
            }
        }
        let unpinned: Vec<String> = rendered.iter().filter(|r| !pinned.contains(r)).map(|(v, b, sum)| format!("{v} {b} {sum}")).collect();
        assert!(
            unpinned.is_empty(),
            "these renderings are not in migrations/checksums.txt. A new migration: add the lines. \
             A released one: its text changed, and databases that applied it will refuse to start.\n{}",
            unpinned.join("\n")
        );
        let missing: Vec<_> = pinned.iter().filter(|p| !rendered.contains(p)).collect();
        assert!(missing.is_empty(), "pinned migrations no longer rendered: {missing:?}");
    }

    #[test]
    fn type_words_are_spelt_per_backend_outside_comments_and_literals() {
        let line = "    flag BOOLEAN not null default FALSE, note text default 'UUID JSON', \"TRUE\" t.TRUE, -- a UUID here\n";
        let mut postgres = String::new();
        spell_types(line, Backend::Postgres, &mut postgres);
        assert_eq!(postgres, "    flag boolean not null default false, note text default 'UUID JSON', \"TRUE\" t.TRUE, -- a UUID here\n");
        let mut sqlite = String::new();
        spell_types("id UUID, at TIMESTAMP, f FLOAT, n BIGINT, j JSON, MY_UUID UUIDS, t TRUE", Backend::Sqlite, &mut sqlite);
        assert_eq!(sqlite, "id blob, at text, f real, n integer, j text, MY_UUID UUIDS, t 1");
    }

    #[test]
    fn blocks_keep_their_backend_only() {
        let template =
            "create table t (id UUID);\n--@ postgres\ncreate index p on t (id);\n--@ end\n--@ sqlite\ncreate index s on t (id);\n--@ end\n";
        assert_eq!(render("t.sql", template, Backend::Postgres).unwrap(), "create table t (id uuid);\ncreate index p on t (id);\n");
        assert_eq!(render("t.sql", template, Backend::Sqlite).unwrap(), "create table t (id blob);\ncreate index s on t (id);\n");
    }

    #[test]
    fn malformed_blocks_are_named_by_file_and_line() {
        let unclosed = render("a.sql", "select 1;\n--@ sqlite\nselect 2;\n", Backend::Sqlite).unwrap_err();
        assert_eq!(unclosed.to_string(), "migrations/a.sql line 3: a block without `--@ end`");
        let stray = render("b.sql", "--@ end\n", Backend::Postgres).unwrap_err();
        assert_eq!(stray.to_string(), "migrations/b.sql line 1: `--@ end` outside a block");
        let nested = render("c.sql", "--@ sqlite\n--@ postgres\n", Backend::Postgres).unwrap_err();
        assert_eq!(nested.to_string(), "migrations/c.sql line 2: a block inside a block");
        let unknown = render("d.sql", "--@ mysql\n", Backend::Postgres).unwrap_err();
        assert!(unknown.to_string().starts_with("migrations/d.sql line 1: expected"), "{unknown}");
    }

    #[test]
    fn indented_markers_are_markers() {
        let template = "create table t (id UUID);\n    --@ sqlite\ncreate index s on t (id);\n    --@ end\n";
        assert_eq!(render("t.sql", template, Backend::Postgres).unwrap(), "create table t (id uuid);\n");
    }

    #[test]
    fn names_and_kinds_sqlx_would_read_otherwise_are_refused() {
        let refused = |file: &'static str, text: &'static str| migrations_of(&[(file, text)], Backend::Sqlite).unwrap_err().to_string();
        assert_eq!(refused("create_things.sql", "select 1;\n"), "migrations/create_things.sql: the name is not <version>_<description>.sql");
        assert_eq!(refused("1_things.down.sql", "select 1;\n"), "migrations/1_things.down.sql: reversible migrations are not supported");
        assert_eq!(
            refused("1_things.sql", "-- no-transaction\nselect 1;\n"),
            "migrations/1_things.sql line 1: migrations outside a transaction are not supported"
        );
        let ordered = migrations_of(&[("20_b.sql", "select 2;\n"), ("3_a_thing.sql", "select 1;\n")], Backend::Sqlite).unwrap();
        let seen: Vec<(i64, &str)> = ordered.iter().map(|m| (m.version, &*m.description)).collect();
        assert_eq!(seen, [(3, "a thing"), (20, "b")], "by version, not by name");
    }

    #[test]
    fn a_migration_for_one_backend_alone_is_left_out_of_the_other() {
        let postgres: Vec<i64> = migrations(Backend::Postgres).unwrap().iter().map(|m| m.version).collect();
        let sqlite: Vec<i64> = migrations(Backend::Sqlite).unwrap().iter().map(|m| m.version).collect();
        assert!(sqlite.contains(&20261121001400) && !postgres.contains(&20261121001400), "SQLite's search index only");
        for (file, _) in TEMPLATES {
            let version: i64 = file[..file.find('_').unwrap()].parse().unwrap();
            assert!(postgres.contains(&version) || sqlite.contains(&version), "{file} renders empty for both backends");
        }
    }
}
