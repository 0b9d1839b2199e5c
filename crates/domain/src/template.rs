//! Analysis templates (decisions §6): a project's own questions, asked of every call analysed
//! while the template is active.

use serde::{Deserialize, Serialize};

use crate::{ApiKeyId, ProjectId, TemplateFieldId, TemplateId, Timestamp, ValidationErrors, Validator};

/// Longest template name (the name may be empty).
pub const TEMPLATE_NAME_MAX: usize = 200;
/// Longest template description.
pub const TEMPLATE_DESCRIPTION_MAX: usize = 2000;
/// Most fields in a template.
pub const TEMPLATE_FIELDS_MAX: usize = 20;
/// Longest field label.
pub const FIELD_LABEL_MAX: usize = 200;
/// Longest field prompt.
pub const FIELD_PROMPT_MAX: usize = 2000;
/// Most options of a choice field.
pub const FIELD_OPTIONS_MAX: usize = 50;
/// Longest option.
pub const FIELD_OPTION_MAX: usize = 200;

/// What kind of answer a field expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AnswerType {
    /// Free text.
    Text,
    /// A number.
    Number,
    /// Yes or no.
    Boolean,
    /// A calendar date, `YYYY-MM-DD`.
    Date,
    /// Exactly one of the options.
    SingleChoice,
    /// Any of the options.
    MultiChoice,
}

text_enum!(AnswerType { Text = "TEXT", Number = "NUMBER", Boolean = "BOOLEAN", Date = "DATE", SingleChoice = "SINGLE_CHOICE", MultiChoice = "MULTI_CHOICE" });

impl AnswerType {
    /// Whether the type chooses among `options`.
    pub fn is_choice(self) -> bool {
        matches!(self, AnswerType::SingleChoice | AnswerType::MultiChoice)
    }
}

/// One question of a template, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TemplateField {
    /// The field's id, kept across replacements that send it back.
    pub id: TemplateFieldId,
    /// Short label, 1–200 characters.
    pub label: String,
    /// The question asked of the call, 1–2000 characters.
    pub prompt: String,
    /// Expected answer type.
    pub answer_type: AnswerType,
    /// Choices (choice types only).
    pub options: Vec<String>,
    /// Whether an answer is expected in every call.
    pub is_required: bool,
    /// Position in the template.
    pub display_order: i32,
}

/// A stored template.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalysisTemplate {
    /// The template's id.
    pub id: TemplateId,
    /// Its project.
    pub project_id: ProjectId,
    /// The API key that created it.
    pub user_id: ApiKeyId,
    /// Name, 0–200 characters.
    pub name: String,
    /// Description.
    pub description: Option<String>,
    /// Whether calls are analysed with it (at most one per project).
    pub is_active: bool,
    /// The questions, by display order.
    pub fields: Vec<TemplateField>,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// A field as a client sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldInput {
    /// An existing field's id, to keep it on replacement.
    pub id: Option<TemplateFieldId>,
    /// Label.
    pub label: String,
    /// Prompt.
    pub prompt: String,
    /// Answer type.
    pub answer_type: AnswerType,
    /// Options, for choice types.
    pub options: Option<Vec<String>>,
    /// Default false.
    pub is_required: Option<bool>,
    /// Default: the field's index.
    pub display_order: Option<i64>,
}

/// A validated template body (create or full replacement).
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateInput {
    /// Trimmed name (may be empty).
    pub name: String,
    /// Description, `None` when blank.
    pub description: Option<String>,
    /// `None` keeps the current state on replacement (false on create).
    pub is_active: Option<bool>,
    /// Fields with ids assigned, ordered by display order.
    pub fields: Vec<TemplateField>,
}

impl TemplateInput {
    /// Checks a body. `existing` are the ids of the template being replaced (empty on create): a
    /// field that sends one of them keeps it, any other id is refused.
    ///
    /// # Errors
    /// Every broken rule, by field path (`fields[2].options`).
    pub fn parse(
        name: &str,
        description: Option<&str>,
        is_active: Option<bool>,
        fields: &[FieldInput],
        existing: &[TemplateFieldId],
    ) -> Result<Self, ValidationErrors> {
        let mut v = Validator::default();
        let name = v.text("name", name, 0, TEMPLATE_NAME_MAX);
        let description = description.and_then(|d| v.optional_text("description", d, TEMPLATE_DESCRIPTION_MAX));
        if fields.len() > TEMPLATE_FIELDS_MAX {
            v.error("fields", format!("must have at most {TEMPLATE_FIELDS_MAX} items"));
        }
        let mut seen = Vec::new();
        let mut parsed: Vec<TemplateField> = fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let at = |name: &str| format!("fields[{i}].{name}");
                let id = match f.id {
                    Some(id) if !existing.contains(&id) => {
                        v.error(at("id"), "is not a field of this template (omit it for a new field)");
                        id
                    }
                    Some(id) if seen.contains(&id) => {
                        v.error(at("id"), "is used by two fields");
                        id
                    }
                    Some(id) => id,
                    None => TemplateFieldId::new(),
                };
                seen.push(id);
                let label = v.text(&at("label"), &f.label, 1, FIELD_LABEL_MAX);
                let prompt = v.text(&at("prompt"), &f.prompt, 1, FIELD_PROMPT_MAX);
                let options: Vec<String> = f.options.clone().unwrap_or_default();
                if f.answer_type.is_choice() {
                    if options.is_empty() || options.len() > FIELD_OPTIONS_MAX {
                        v.error(at("options"), format!("must have 1 to {FIELD_OPTIONS_MAX} options for a choice field"));
                    }
                } else if !options.is_empty() {
                    v.error(at("options"), "are only allowed for SINGLE_CHOICE and MULTI_CHOICE fields");
                }
                let options: Vec<String> =
                    options.iter().enumerate().map(|(j, o)| v.text(&format!("fields[{i}].options[{j}]"), o, 1, FIELD_OPTION_MAX)).collect();
                let mut unique = options.clone();
                unique.sort();
                unique.dedup();
                if unique.len() != options.len() {
                    v.error(at("options"), "must not repeat an option");
                }
                let display_order = match f.display_order {
                    None => i as i32,
                    Some(o) => i32::try_from(o).ok().filter(|o| *o >= 0).unwrap_or_else(|| {
                        v.error(at("displayOrder"), "must be between 0 and 2147483647");
                        0
                    }),
                };
                TemplateField { id, label, prompt, answer_type: f.answer_type, options, is_required: f.is_required.unwrap_or(false), display_order }
            })
            .collect();
        v.finish()?;
        parsed.sort_by_key(|f| f.display_order); // stable: ties keep the order sent
        Ok(Self { name, description, is_active, fields: parsed })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(answer_type: AnswerType, options: Option<Vec<&str>>) -> FieldInput {
        FieldInput {
            id: None,
            label: "Outcome".into(),
            prompt: "What was the outcome?".into(),
            answer_type,
            options: options.map(|o| o.into_iter().map(String::from).collect()),
            is_required: None,
            display_order: None,
        }
    }

    fn fields_of(err: ValidationErrors) -> Vec<String> {
        err.0.into_iter().map(|e| e.field).collect()
    }

    #[test]
    fn options_belong_to_choice_fields_only() {
        let ok =
            TemplateInput::parse("", None, None, &[field(AnswerType::Text, None), field(AnswerType::SingleChoice, Some(vec!["yes", "no"]))], &[])
                .unwrap();
        assert_eq!(ok.fields[1].display_order, 1, "display order defaults to the index");
        assert!(!ok.fields[0].is_required);
        let err = TemplateInput::parse(
            "t",
            None,
            None,
            &[
                field(AnswerType::Number, Some(vec!["1"])),
                field(AnswerType::MultiChoice, None),
                field(AnswerType::MultiChoice, Some(vec!["a", ""])),
                field(AnswerType::SingleChoice, Some(vec!["a", "a"])),
            ],
            &[],
        )
        .unwrap_err();
        assert_eq!(fields_of(err), ["fields[0].options", "fields[1].options", "fields[2].options[1]", "fields[3].options"]);
    }

    #[test]
    fn ids_are_kept_only_for_existing_fields() {
        let existing = TemplateFieldId::new();
        let mut kept = field(AnswerType::Text, None);
        kept.id = Some(existing);
        let parsed = TemplateInput::parse("t", None, None, &[kept.clone(), field(AnswerType::Date, None)], &[existing]).unwrap();
        assert_eq!(parsed.fields[0].id, existing);
        assert_ne!(parsed.fields[1].id, existing);
        let err = TemplateInput::parse("t", None, None, &[kept.clone()], &[]).unwrap_err();
        assert_eq!(fields_of(err), ["fields[0].id"]);
        let err = TemplateInput::parse("t", None, None, &[kept.clone(), kept], &[existing]).unwrap_err();
        assert_eq!(fields_of(err), ["fields[1].id"]);
    }

    #[test]
    fn limits_hold() {
        let many = vec![field(AnswerType::Text, None); 21];
        assert_eq!(fields_of(TemplateInput::parse("t", None, None, &many, &[]).unwrap_err()), ["fields"]);
        assert!(TemplateInput::parse(&"n".repeat(201), None, None, &[], &[]).is_err());
        assert!(TemplateInput::parse(&"n".repeat(200), None, None, &[], &[]).is_ok());
    }
}
