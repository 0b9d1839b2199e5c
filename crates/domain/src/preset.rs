//! Speaker presets (decisions §8): named lists of speaker names; at most one per project is the
//! default, used to name speakers when an upload gives no `channel_roles`.

use crate::{ProjectId, SpeakerPresetId, Timestamp, ValidationErrors, Validator};

/// Longest preset name.
pub const PRESET_NAME_MAX: usize = 200;
/// Most speakers in a preset.
pub const PRESET_SPEAKERS_MAX: usize = 20;
/// Longest speaker name.
pub const SPEAKER_NAME_MAX: usize = 100;

/// A stored preset.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeakerPreset {
    /// The preset's id.
    pub id: SpeakerPresetId,
    /// Its project.
    pub project_id: ProjectId,
    /// Name, 1–200 characters.
    pub name: String,
    /// Speaker names in channel order / order of first appearance.
    pub speakers: Vec<String>,
    /// Whether it is the project's default.
    pub is_default: bool,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// A validated create (`name` and `speakers` both set) or update (either may be absent).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PresetInput {
    /// Trimmed name.
    pub name: Option<String>,
    /// Trimmed speaker names.
    pub speakers: Option<Vec<String>>,
}

impl PresetInput {
    /// Checks a preset's fields.
    ///
    /// # Errors
    /// Every broken rule, by field.
    pub fn parse(name: Option<&str>, speakers: Option<&[String]>) -> Result<Self, ValidationErrors> {
        let mut v = Validator::default();
        let name = name.map(|n| v.text("name", n, 1, PRESET_NAME_MAX));
        let speakers = speakers.map(|list| {
            if list.is_empty() || list.len() > PRESET_SPEAKERS_MAX {
                v.error("speakers", format!("must name 1 to {PRESET_SPEAKERS_MAX} speakers"));
            }
            list.iter().enumerate().map(|(i, s)| v.text(&format!("speakers[{i}]"), s, 1, SPEAKER_NAME_MAX)).collect()
        });
        v.finish()?;
        Ok(Self { name, speakers })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speakers_are_bounded_and_trimmed() {
        let ok = PresetInput::parse(Some(" Sales "), Some(&[" Agent ".into(), "Customer".into()])).unwrap();
        assert_eq!(ok.speakers.unwrap(), ["Agent", "Customer"]);
        let err = PresetInput::parse(Some("x"), Some(&[])).unwrap_err();
        assert_eq!(err.0[0].field, "speakers");
        let err = PresetInput::parse(Some("x"), Some(&["a".into(), " ".into(), "b".repeat(101)])).unwrap_err();
        let fields: Vec<_> = err.0.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["speakers[1]", "speakers[2]"]);
        assert!(PresetInput::parse(Some("x"), Some(&vec!["a".to_string(); 21])).is_err());
    }
}
