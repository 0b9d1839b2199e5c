//! What PII detection found in a call: counts per type (the call's `piiStatistics`) and the
//! spans, kept internally for redaction.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A call's `piiStatistics`: how many pieces of personal data were found, by type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PiiStatistics {
    /// All detections.
    #[cfg_attr(feature = "openapi", schema(minimum = 0))]
    pub total_detected: i64,
    /// Detections per type name (`PHONE_NUMBER`, `PESEL`, …).
    pub types: BTreeMap<String, i64>,
}

impl PiiStatistics {
    /// Counts `spans` by type.
    pub fn of(spans: &[PiiSpan]) -> Self {
        let mut types = BTreeMap::new();
        for s in spans {
            *types.entry(s.kind.clone()).or_insert(0) += 1;
        }
        Self { total_detected: spans.len() as i64, types }
    }
}

/// Where one piece of personal data was: never its value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PiiSpan {
    /// Type name.
    #[serde(rename = "type")]
    pub kind: String,
    /// Index of the turn.
    pub turn: usize,
    /// Character offsets in the turn's text as recognised (before any masking).
    pub start: usize,
    pub end: usize,
    /// 0–1.
    pub confidence: f32,
    /// When it was said, from the words' timing.
    pub start_ms: i64,
    pub end_ms: i64,
}
