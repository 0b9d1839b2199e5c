//! The dashboards, within inclusive `from`/`to`, with days cut in the time zone `tz` asks for:
//! sentiment (decisions §10: the distribution of levels over the project's calls, a daily trend
//! and the average confidence) and call characteristics (beyond the spec: daily averages).

use std::collections::BTreeMap;

use axum::extract::State;
use axum::Json;
use callscope_domain::{CallFigures, SentimentLevel};
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
        (status = 400, description = "A date that is not RFC 3339", body = Problem),
        (status = 422, description = "from after to, or an unknown time zone", body = Problem)))]
pub async fn sentiment_dashboard(
    State(state): State<AppState>,
    scope: ProjectScope,
    ApiQuery(dates): ApiQuery<DateRangeQuery>,
    ApiQuery(query): ApiQuery<DashboardQuery>,
) -> Result<Json<SentimentDashboard>, ApiError> {
    let (from, to) = dates.bounds()?;
    let tz = query.time_zone()?;
    let calls = state.store.call_sentiments(scope.id(), from, to).await?;
    Ok(Json(dashboard(&calls, tz)))
}

/// Averages of measured calls' characteristics (beyond the spec).
#[derive(Debug, Default, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CharacteristicsAverages {
    /// Measured calls averaged.
    pub calls: u64,
    /// Mean share of a call nobody talks in, 0–1, two decimals.
    pub non_talk_share: f64,
    /// Mean longest stretch nobody talks in, seconds, one decimal.
    pub longest_non_talk_s: f64,
    /// Mean time on hold (music or tones in the pauses), seconds, one decimal.
    pub on_hold_s: f64,
    /// Mean interruptions per call, one decimal.
    pub interruptions: f64,
    /// Mean words per minute of talk, over calls with talk, one decimal; null when none had.
    pub words_per_minute: Option<f64>,
}

/// One day of the characteristics dashboard.
#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CharacteristicsDay {
    /// The day (in `tz`).
    #[schema(value_type = String, format = Date)]
    pub date: NaiveDate,
    /// The day's averages.
    #[serde(flatten)]
    pub averages: CharacteristicsAverages,
}

/// The characteristics dashboard: averages over the range and per day.
#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CharacteristicsDashboard {
    /// Over every measured call in the range.
    pub overall: CharacteristicsAverages,
    /// One entry per day that has measured calls, ascending.
    pub days: Vec<CharacteristicsDay>,
}

/// Sums of measured calls' figures, for their means.
#[derive(Default)]
struct FigureSums {
    calls: u64,
    non_talk_share: f64,
    longest_s: f64,
    on_hold_s: f64,
    interruptions: f64,
    speed: f64,
    with_speed: u64,
}

impl FigureSums {
    fn add(&mut self, duration_s: f64, figures: &CallFigures) {
        self.calls += 1;
        if duration_s > 0.0 {
            self.non_talk_share += (figures.non_talk_ms as f64 / 1000.0 / duration_s).min(1.0);
        }
        self.longest_s += figures.longest_non_talk_ms as f64 / 1000.0;
        self.on_hold_s += figures.music_ms.unwrap_or(0) as f64 / 1000.0;
        self.interruptions += figures.interruption_count as f64;
        if let Some(speed) = figures.words_per_minute {
            self.speed += speed;
            self.with_speed += 1;
        }
    }

    fn averages(&self) -> CharacteristicsAverages {
        let n = self.calls.max(1) as f64;
        CharacteristicsAverages {
            calls: self.calls,
            non_talk_share: round(self.non_talk_share / n, 2),
            longest_non_talk_s: round(self.longest_s / n, 1),
            on_hold_s: round(self.on_hold_s / n, 1),
            interruptions: round(self.interruptions / n, 1),
            words_per_minute: (self.with_speed > 0).then(|| round(self.speed / self.with_speed as f64, 1)),
        }
    }
}

/// Builds the characteristics dashboard from each measured call's creation time, length in
/// seconds and figures.
pub fn characteristics_dashboard(calls: &[(chrono::DateTime<chrono::Utc>, f64, CallFigures)], tz: chrono_tz::Tz) -> CharacteristicsDashboard {
    let mut overall = FigureSums::default();
    let mut days: BTreeMap<NaiveDate, FigureSums> = BTreeMap::new();
    for (created, duration_s, figures) in calls {
        overall.add(*duration_s, figures);
        days.entry(created.with_timezone(&tz).date_naive()).or_default().add(*duration_s, figures);
    }
    CharacteristicsDashboard {
        overall: overall.averages(),
        days: days.into_iter().map(|(date, sums)| CharacteristicsDay { date, averages: sums.averages() }).collect(),
    }
}

/// Call characteristics across the project's calls: averages over the range and per day of
/// non-talk share, longest pause, time on hold, interruptions and talk speed (beyond the spec).
/// Calls transcribed before they were measured are left out.
#[utoipa::path(get, path = "/v1/projects/{projectId}/dashboard/characteristics", tag = "Dashboard",
    params(("projectId" = uuid::Uuid, Path, description = "The project"), DateRangeQuery, DashboardQuery),
    responses((status = 200, description = "The dashboard", body = CharacteristicsDashboard),
        (status = 400, description = "A date that is not RFC 3339", body = Problem),
        (status = 422, description = "from after to, or an unknown time zone", body = Problem)))]
pub async fn characteristics_dashboard_route(
    State(state): State<AppState>,
    scope: ProjectScope,
    ApiQuery(dates): ApiQuery<DateRangeQuery>,
    ApiQuery(query): ApiQuery<DashboardQuery>,
) -> Result<Json<CharacteristicsDashboard>, ApiError> {
    let (from, to) = dates.bounds()?;
    let tz = query.time_zone()?;
    let calls = state.store.call_figures(scope.id(), from, to).await?;
    Ok(Json(characteristics_dashboard(&calls, tz)))
}

impl DashboardQuery {
    /// The zone asked for, UTC by default; 422 for a name that is not one.
    fn time_zone(&self) -> Result<chrono_tz::Tz, ApiError> {
        match self.tz.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            None => Ok(chrono_tz::UTC),
            Some(name) => name.parse().map_err(|_| ApiError::invalid("tz", format!("{name:?} is not an IANA time zone (e.g. Europe/Warsaw)"))),
        }
    }
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

    #[test]
    fn characteristics_are_averaged_per_day_in_the_zone() {
        let at = |d: u32, h: u32| chrono::Utc.with_ymd_and_hms(2026, 11, d, h, 30, 0).unwrap();
        let figures = |non_talk_ms, longest_non_talk_ms, music_ms, interruption_count, words_per_minute| CallFigures {
            non_talk_ms,
            longest_non_talk_ms,
            music_ms,
            interruption_count,
            words_per_minute,
        };
        let calls = vec![
            (at(20, 10), 100.0, figures(20_000, 12_000, Some(10_000), 2, Some(150.0))),
            (at(20, 11), 50.0, figures(5_000, 3_000, Some(0), 1, Some(130.0))),
            // 23:30 UTC is the 21st in Warsaw; a call without talk has no speed.
            (at(20, 23), 10.0, figures(10_000, 10_000, None, 0, None)),
        ];
        let utc = characteristics_dashboard(&calls, chrono_tz::UTC);
        assert_eq!(utc.overall.calls, 3);
        assert_eq!(utc.overall.non_talk_share, round((0.2 + 0.1 + 1.0) / 3.0, 2));
        assert_eq!(utc.overall.words_per_minute, Some(140.0));
        assert_eq!(utc.overall.on_hold_s, round(10.0 / 3.0, 1));
        assert_eq!(utc.days.len(), 1);
        let warsaw = characteristics_dashboard(&calls, chrono_tz::Europe::Warsaw);
        assert_eq!(warsaw.days.len(), 2);
        assert_eq!(warsaw.days[0].averages.interruptions, 1.5);
        assert_eq!(warsaw.days[0].averages.longest_non_talk_s, 7.5);
        assert_eq!(warsaw.days[1].averages.words_per_minute, None);
        assert_eq!(warsaw.days[1].averages.non_talk_share, 1.0);
        let json = serde_json::to_value(&warsaw).unwrap();
        assert_eq!(json["days"][1]["date"], "2026-11-21");
        assert_eq!(json["days"][1]["calls"], 1);
        assert_eq!(characteristics_dashboard(&[], chrono_tz::UTC).overall, CharacteristicsAverages::default());
    }
}
