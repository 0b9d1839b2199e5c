//! Field-level validation that reports every broken rule at once, by field name as the client
//! spelled it, so an API answer can list them all in `errors[]`.

use std::fmt;

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The JSON path of the field (`name`, `fields[2].label`).
    pub field: String,
    /// What is wrong, in words ("must be at most 200 characters").
    pub message: String,
}

/// All broken rules of one input, in the order they were found. Never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationErrors(pub Vec<FieldError>);

impl ValidationErrors {
    /// A single broken rule.
    pub fn one(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self(vec![FieldError { field: field.into(), message: message.into() }])
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|e| format!("{}: {}", e.field, e.message)).collect();
        f.write_str(&parts.join("; "))
    }
}

impl std::error::Error for ValidationErrors {}

/// Collects broken rules while a request is checked.
#[derive(Debug, Default)]
pub struct Validator(Vec<FieldError>);

impl Validator {
    /// Records a broken rule.
    pub fn error(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.0.push(FieldError { field: field.into(), message: message.into() });
    }

    /// Checks a required text: trimmed, then `min..=max` characters. Returns the trimmed text.
    pub fn text(&mut self, field: &str, value: &str, min: usize, max: usize) -> String {
        let trimmed = value.trim();
        let len = trimmed.chars().count();
        if len < min {
            if min == 1 {
                self.error(field, "must not be empty");
            } else {
                self.error(field, format!("must be at least {min} characters"));
            }
        } else if len > max {
            self.error(field, format!("must be at most {max} characters"));
        }
        trimmed.to_owned()
    }

    /// Like [`Validator::optional_text`], with a non-answer ("null", "N/A": [`is_non_answer`])
    /// taken as no value, like an empty text.
    pub fn optional_value(&mut self, field: &str, value: &str, max: usize) -> Option<String> {
        self.optional_text(field, value, max).filter(|v| !is_non_answer(v))
    }

    /// Checks an optional text: trimmed, blank becomes `None`, at most `max` characters.
    pub fn optional_text(&mut self, field: &str, value: &str, max: usize) -> Option<String> {
        let trimmed = value.trim();
        if trimmed.chars().count() > max {
            self.error(field, format!("must be at most {max} characters"));
        }
        (!trimmed.is_empty()).then(|| trimmed.to_owned())
    }

    /// `Ok` when nothing was broken.
    ///
    /// # Errors
    /// The broken rules.
    pub fn finish(self) -> Result<(), ValidationErrors> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ValidationErrors(self.0))
        }
    }
}

/// Whether a text stands for no value: empty, a bare pair of quotes, dashes, or a word models
/// (and people) write for "nothing here" ("null", "none", "N/A", "brak"). Such text is never
/// stored as a value: the field is left empty instead.
pub fn is_non_answer(text: &str) -> bool {
    const QUOTES: &[char] = &['"', '\'', '`', '“', '”', '„', '‘', '’', '«', '»'];
    let bare = text.trim().trim_matches(QUOTES).trim().trim_end_matches('.').trim();
    bare.is_empty()
        || bare.chars().all(|c| matches!(c, '-' | '–' | '—' | '?' | '_' | '/' | '.'))
        || matches!(
            bare.to_lowercase().as_str(),
            "null"
                | "none"
                | "nil"
                | "n/a"
                | "n.a"
                | "undefined"
                | "unknown"
                | "not mentioned"
                | "not specified"
                | "not applicable"
                | "no deadline"
                | "brak"
                | "nie dotyczy"
                | "nie podano"
                | "nieznany"
                | "nieznane"
                | "brak terminu"
        )
}
