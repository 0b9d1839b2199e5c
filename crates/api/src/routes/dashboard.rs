//! The sentiment dashboard (decisions §10): the distribution of sentiment levels over the
//! project's calls, a daily trend and the average confidence, within inclusive `from`/`to`,
//! with days cut in the time zone `tz` asks for.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::Json;
use callscope_domain::SentimentLevel;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::error::Problem;
use crate::extract::{ApiQuery, ProjectScope};
use crate::views::DateRangeQuery;
use crate::{ApiError, AppState};

/// Query of the dashboard.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DashboardQuery {
    /// IANA time zone whose days the trend counts in (beyond the spec); default `UTC`.
    #[param(example = "Europe/Warsaw")]
    pub tz: Option<String>,
}

/// How many calls have each sentiment level.
#[derive(Debug, Default, Serialize, ToSchema, PartialEq, Eq)]
pub struct Distribution {
    /// Calls with a positive level.
    pub positive: u64,
    /// Calls with a neutral level.
    pub neutral: u64,
    /// Calls with a negative level.
    pub negative: u64,
    /// Calls without a sentiment.
    pub unknown: u64,
    /// All calls counted.
    pub total: u64,
}

/// One day of the trend.
#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TrendDay {
    /// The day (in `tz`).
    #[schema(value_type = String, format = Date)]
    pub date: NaiveDate,
    /// Share of the day's calls with a known sentiment that are positive, rounded to 0.1.
    pub positive_percent: f64,
    /// … neutral.
    pub neutral_percent: f64,
    /// … negative.
    pub negative_percent: f64,
}

/// The dashboard.
#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SentimentDashboard {
    /// Counts per level.
    pub distribution: Distribution,
    /// One entry per day that has calls, ascending.
    pub trend: Vec<TrendDay>,
    /// Mean sentiment confidence over calls with a sentiment; 0 when none.
    pub average_confidence: f64,
}

fn round(value: f64, places: i32) -> f64 {
    let factor = 10f64.powi(places);
    (value * factor).round() / factor
}

/// Builds the dashboard from each call's creation time, level and confidence.
pub fn dashboard(calls: &[(chrono::DateTime<chrono::Utc>, SentimentLevel, Option<f64>)], tz: chrono_tz::Tz) -> SentimentDashboard {
    let mut distribution = Distribution::default();
    let mut days: BTreeMap<NaiveDate, [u64; 3]> = BTreeMap::new();
    let (mut confidence_sum, mut confidence_n) = (0.0, 0u64);
    for (created, level, confidence) in calls {
        distribution.total += 1;
        let day = days.entry(created.with_timezone(&tz).date_naive()).or_default();
        let slot = match level {
            SentimentLevel::Positive => Some(0),
            SentimentLevel::Neutral => Some(1),
            SentimentLevel::Negative => Some(2),
            SentimentLevel::Unknown => None,
        };
        let Some(i) = slot else {
            distribution.unknown += 1;
            continue;
        };
        day[i] += 1;
        *[&mut distribution.positive, &mut distribution.neutral, &mut distribution.negative][i] += 1;
        confidence_sum += confidence.unwrap_or(0.0);
        confidence_n += 1;
    }
    let trend = days
        .into_iter()
        .map(|(date, [p, n, neg])| {
            let known = (p + n + neg) as f64;
            let share = |x: u64| if known == 0.0 { 0.0 } else { round(100.0 * x as f64 / known, 1) };
            TrendDay { date, positive_percent: share(p), neutral_percent: share(n), negative_percent: share(neg) }
        })
        .collect();
    let average_confidence = if confidence_n == 0 { 0.0 } else { round(confidence_sum / confidence_n as f64, 2) };
    SentimentDashboard { distribution, trend, average_confidence }
}

/// Sentiment across the project's calls: distribution, daily trend, average confidence.
#[utoipa::path(get, path = "/v1/projects/{projectId}/dashboard/sentiment", tag = "Dashboard",
    params(("projectId" = uuid::Uuid, Path, description = "The project"), DateRangeQuery, DashboardQuery),
    responses((status = 200, description = "The dashboard", body = SentimentDashboard),
        (status = 400, description = "A date that is not RFC 3339", body = Problem), (status = 404, description = "No such project", body = Problem),
        (status = 422, description = "from after to, or an unknown time zone", body = Problem)))]
pub async fn sentiment_dashboard(
    State(state): State<AppState>,
    scope: ProjectScope,
    ApiQuery(dates): ApiQuery<DateRangeQuery>,
    ApiQuery(query): ApiQuery<DashboardQuery>,
) -> Result<Json<SentimentDashboard>, ApiError> {
    let (from, to) = dates.bounds()?;
    let tz: chrono_tz::Tz = match query.tz.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        None => chrono_tz::UTC,
        Some(name) => name.parse().map_err(|_| ApiError::invalid("tz", format!("{name:?} is not an IANA time zone (e.g. Europe/Warsaw)")))?,
    };
    let calls = state.store.call_sentiments(scope.id(), from, to).await?;
    Ok(Json(dashboard(&calls, tz)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn levels_are_counted_days_cut_in_the_zone_and_shares_rounded() {
        let at = |d: u32, h: u32| chrono::Utc.with_ymd_and_hms(2026, 11, d, h, 30, 0).unwrap();
        let calls = vec![
            (at(20, 10), SentimentLevel::Positive, Some(0.9)),
            (at(20, 11), SentimentLevel::Negative, Some(0.6)),
            (at(20, 12), SentimentLevel::Negative, Some(0.6)),
            (at(20, 13), SentimentLevel::Unknown, None),
            // 23:30 UTC is already the 21st in Warsaw.
            (at(20, 23), SentimentLevel::Neutral, Some(0.5)),
        ];
        let utc = dashboard(&calls, chrono_tz::UTC);
        assert_eq!(utc.distribution, Distribution { positive: 1, neutral: 1, negative: 2, unknown: 1, total: 5 });
        assert_eq!(utc.trend.len(), 1);
        assert_eq!((utc.trend[0].positive_percent, utc.trend[0].neutral_percent, utc.trend[0].negative_percent), (25.0, 25.0, 50.0));
        assert_eq!(utc.average_confidence, 0.65);
        let warsaw = dashboard(&calls, chrono_tz::Europe::Warsaw);
        assert_eq!(warsaw.trend.len(), 2);
        assert_eq!(warsaw.trend[0].negative_percent, 66.7);
        assert_eq!(warsaw.trend[1].date, NaiveDate::from_ymd_opt(2026, 11, 21).unwrap());
        assert_eq!(warsaw.trend[1].neutral_percent, 100.0);
        let only_unknown = dashboard(&[(at(20, 1), SentimentLevel::Unknown, None)], chrono_tz::UTC);
        assert_eq!(only_unknown.trend[0].positive_percent, 0.0);
        assert_eq!(only_unknown.average_confidence, 0.0);
        assert_eq!(dashboard(&[], chrono_tz::UTC).trend, Vec::new());
    }
}
