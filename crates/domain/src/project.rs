//! Organizations and projects: the tenancy tree every other resource hangs from.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{OrgId, ProjectId, Timestamp, ValidationErrors, Validator};

/// Longest project name, in characters.
pub const PROJECT_NAME_MAX: usize = 200;
/// Longest project description, in characters.
pub const PROJECT_DESCRIPTION_MAX: usize = 2000;

/// A tenant. API keys and projects belong to exactly one.
#[derive(Debug, Clone, PartialEq)]
pub struct Organization {
    /// The organization's id.
    pub id: OrgId,
    /// Its name, for people.
    pub name: String,
    /// When it was created.
    pub created_at: Timestamp,
}

/// Spoken language of a call. Whisper and the text analysis are told which one to expect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// English.
    #[default]
    En,
    /// Polish.
    Pl,
}

impl Language {
    /// The ISO 639-1 code used in the API and the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::Pl => "pl",
        }
    }
}

/// What the service does with personal data it finds in a transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum PiiRedaction {
    /// Store the transcript as spoken.
    #[default]
    None,
    /// Replace each detected value by a `[TYPE]` placeholder before storing or indexing.
    Mask,
}

impl PiiRedaction {
    /// The value used in the API and the database.
    pub fn as_str(self) -> &'static str {
        match self {
            PiiRedaction::None => "none",
            PiiRedaction::Mask => "mask",
        }
    }
}

/// Error for a stored enum value this build does not know.
#[derive(Debug, thiserror::Error)]
#[error("unknown {kind} {value:?}")]
pub struct UnknownValue {
    kind: &'static str,
    value: String,
}

impl FromStr for Language {
    type Err = UnknownValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "en" => Ok(Language::En),
            "pl" => Ok(Language::Pl),
            _ => Err(UnknownValue { kind: "language", value: s.to_owned() }),
        }
    }
}

impl FromStr for PiiRedaction {
    type Err = UnknownValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" => Ok(PiiRedaction::None),
            "mask" => Ok(PiiRedaction::Mask),
            _ => Err(UnknownValue { kind: "PII redaction mode", value: s.to_owned() }),
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A project: groups calls, categories, templates, presets and webhooks of one team.
#[derive(Debug, Clone, PartialEq)]
pub struct Project {
    /// The project's id.
    pub id: ProjectId,
    /// Its organization.
    pub org_id: OrgId,
    /// Name, 1–200 characters.
    pub name: String,
    /// Free text, at most 2000 characters.
    pub description: Option<String>,
    /// Language assumed for uploads that do not name one.
    pub default_language: Language,
    /// Whether detected PII is masked in what is stored.
    pub pii_redaction: PiiRedaction,
    /// Where its calls take place: spoken deadlines ("tomorrow", "by 5 pm") are resolved in
    /// this zone.
    pub time_zone: chrono_tz::Tz,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// A validated project to insert.
#[derive(Debug, Clone, PartialEq)]
pub struct NewProject {
    /// Trimmed name.
    pub name: String,
    /// Description, `None` when absent or blank.
    pub description: Option<String>,
    /// Default upload language.
    pub default_language: Language,
    /// PII redaction mode.
    pub pii_redaction: PiiRedaction,
    /// Time zone; UTC unless one is given (see [`NewProject::in_time_zone`]).
    pub time_zone: chrono_tz::Tz,
}

/// An IANA time zone name ("Europe/Warsaw") checked, for a request's `field`.
pub fn time_zone(v: &mut Validator, field: &str, raw: &str) -> Option<chrono_tz::Tz> {
    let parsed = raw.trim().parse::<chrono_tz::Tz>().ok();
    if parsed.is_none() {
        v.error(field, "must be an IANA time zone name such as Europe/Warsaw or UTC");
    }
    parsed
}

impl NewProject {
    /// The project in `zone`.
    #[must_use]
    pub fn in_time_zone(self, zone: chrono_tz::Tz) -> Self {
        Self { time_zone: zone, ..self }
    }

    /// Checks and normalises a create request.
    ///
    /// # Errors
    /// Every broken rule, by field.
    pub fn parse(
        name: &str,
        description: Option<&str>,
        default_language: Option<Language>,
        pii_redaction: Option<PiiRedaction>,
    ) -> Result<Self, ValidationErrors> {
        let mut v = Validator::default();
        let name = v.text("name", name, 1, PROJECT_NAME_MAX);
        let description = description.and_then(|d| v.optional_text("description", d, PROJECT_DESCRIPTION_MAX));
        v.finish()?;
        Ok(Self {
            name,
            description,
            default_language: default_language.unwrap_or_default(),
            pii_redaction: pii_redaction.unwrap_or_default(),
            time_zone: chrono_tz::UTC,
        })
    }
}

/// A validated partial update. `None` leaves a field as it is; `description: Some(None)` clears it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectPatch {
    /// New name.
    pub name: Option<String>,
    /// New description, or `Some(None)` to clear it.
    pub description: Option<Option<String>>,
    /// New default language.
    pub default_language: Option<Language>,
    /// New redaction mode.
    pub pii_redaction: Option<PiiRedaction>,
    /// New time zone.
    pub time_zone: Option<chrono_tz::Tz>,
}

impl ProjectPatch {
    /// Checks and normalises a PATCH request.
    ///
    /// # Errors
    /// Every broken rule, by field.
    pub fn parse(
        name: Option<&str>,
        description: Option<Option<&str>>,
        default_language: Option<Language>,
        pii_redaction: Option<PiiRedaction>,
    ) -> Result<Self, ValidationErrors> {
        let mut v = Validator::default();
        let name = name.map(|n| v.text("name", n, 1, PROJECT_NAME_MAX));
        let description = description.map(|d| d.and_then(|d| v.optional_text("description", d, PROJECT_DESCRIPTION_MAX)));
        v.finish()?;
        Ok(Self { name, description, default_language, pii_redaction, time_zone: None })
    }

    /// Applies the patch to a project in memory.
    pub fn apply(&self, project: &mut Project) {
        if let Some(name) = &self.name {
            project.name.clone_from(name);
        }
        if let Some(description) = &self.description {
            project.description.clone_from(description);
        }
        if let Some(language) = self.default_language {
            project.default_language = language;
        }
        if let Some(zone) = self.time_zone {
            project.time_zone = zone;
        }
        if let Some(mode) = self.pii_redaction {
            project.pii_redaction = mode;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_names_are_trimmed_and_bounded() {
        let p = NewProject::parse("  Support  ", Some("  "), None, None).unwrap();
        assert_eq!(p.name, "Support");
        assert_eq!(p.description, None);
        assert_eq!(p.default_language, Language::En);
        assert_eq!(p.pii_redaction, PiiRedaction::None);

        let err = NewProject::parse("   ", None, None, None).unwrap_err();
        assert_eq!(err.0[0].field, "name");
        let long = "ż".repeat(201);
        let err = NewProject::parse(&long, Some(&"x".repeat(2001)), None, None).unwrap_err();
        let fields: Vec<_> = err.0.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["name", "description"]);
        assert!(NewProject::parse(&"ż".repeat(200), None, None, None).is_ok(), "limit counts characters");
    }

    #[test]
    fn patch_can_clear_the_description() {
        let patch = ProjectPatch::parse(None, Some(None), Some(Language::Pl), None).unwrap();
        assert_eq!(patch.description, Some(None));
        assert_eq!(patch.default_language, Some(Language::Pl));
    }
}
