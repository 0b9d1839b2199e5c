//! A call's sentiment as lists, filters and the dashboard group it.

use serde::{Deserialize, Serialize};

/// `sentimentLevel`: the customer's overall sentiment folded to three levels, or `unknown` for a
/// call never analysed (the column's default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum SentimentLevel {
    Positive,
    Neutral,
    Negative,
    #[default]
    Unknown,
}

text_enum!(SentimentLevel { Positive = "positive", Neutral = "neutral", Negative = "negative", Unknown = "unknown" });
