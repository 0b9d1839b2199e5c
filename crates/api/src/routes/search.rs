//! Keyword search over a project's calls (decisions §4): the query language, language-aware
//! matching, BM25 ranking with ties newest first, `from`/`to`, and highlighted snippets.

use std::collections::HashMap;

use axum::extract::State;
use axum::Json;
use callscope_domain::{CallId, CallListing, PageRequest};
use callscope_search::{QueryError, SearchError};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::error::Problem;
use crate::extract::{ApiQuery, ProjectPath, ProjectScope};
use crate::views::{DateRangeQuery, PageInfo, PageQuery};
use crate::{ApiError, AppState};

/// Query of a search.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct SearchQuery {
    /// Words (all must match), `"phrases"`, `OR` between two terms, `-` before a word or phrase
    /// to exclude it. Case- and diacritic-insensitive; inflected forms match.
    pub q: String,
}

/// A call that matches a search.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallSearchHitView {
    /// The call summary's fields, without `sizeBytes`.
    #[serde(flatten)]
    pub call: CallListing,
    /// About 200 characters of plain text around the best match, every match in
    /// `<mark>…</mark>`, everything else HTML-escaped.
    pub snippet: String,
    /// BM25 relevance; hits are ordered by it.
    pub relevance: f64,
}

/// A page of search hits.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallSearchPage {
    /// The hits of this page, most relevant first (ties: newest first).
    pub data: Vec<CallSearchHitView>,
    /// Where the page stands.
    #[serde(flatten)]
    pub page: PageInfo,
}

/// Search the project's calls by keyword.
#[utoipa::path(get, path = "/v1/projects/{projectId}/calls/search", tag = "Calls", params(ProjectPath, SearchQuery, PageQuery, DateRangeQuery),
    responses((status = 200, description = "A page of hits, most relevant first", body = CallSearchPage),
        (status = 400, description = "A query that cannot be parsed (invalid_query, with the position), or a parameter of the wrong type", body = Problem),
        (status = 422, description = "An empty or exclusion-only query, one of more than 500 characters or 32 words, page bounds, or from after to", body = Problem),
        (status = 503, description = "The search index is being built, or the database is unavailable", body = Problem)))]
pub async fn search_calls(
    State(state): State<AppState>,
    scope: ProjectScope,
    ApiQuery(params): ApiQuery<SearchQuery>,
    ApiQuery(paging): ApiQuery<PageQuery>,
    ApiQuery(dates): ApiQuery<DateRangeQuery>,
) -> Result<Json<CallSearchPage>, ApiError> {
    let query = callscope_search::parse(&params.q).map_err(|e| match e {
        QueryError::Syntax { .. } => ApiError::InvalidQuery(format!("q: {e}")),
        QueryError::NothingToFind(message) => ApiError::invalid("q", message),
        QueryError::TooLarge(message) => ApiError::invalid("q", message),
    })?;
    let request: PageRequest = paging.validate()?;
    let (from, to) = dates.bounds()?;
    let Some(search) = state.search.clone() else {
        return Err(ApiError::Busy("search is not served by this process".into()));
    };
    let offset = usize::try_from(request.offset()).unwrap_or(usize::MAX);
    let hits = search.search(scope.id(), query.clone(), from, to, offset, request.page_size as usize).await.map_err(|e| match e {
        SearchError::Store(store) => ApiError::from(store),
        SearchError::Building { .. } => ApiError::Busy(e.to_string()),
        SearchError::Index(index) => {
            tracing::error!(error = %index, "search index failed");
            ApiError::Busy("the search index is unavailable; try again shortly".into())
        }
    })?;
    let ids: Vec<CallId> = hits.hits.iter().map(|(id, _)| *id).collect();
    let mut summaries: HashMap<CallId, _> = state.store.call_summaries(scope.id(), &ids).await?.into_iter().map(|s| (s.id, s)).collect();
    let mut documents: HashMap<CallId, _> = state.store.search_documents(Some(scope.id()), &ids).await?.into_iter().map(|d| (d.id, d)).collect();
    let mut data = Vec::with_capacity(ids.len());
    for (id, relevance) in hits.hits {
        // A call erased after the index was read is left out.
        let (Some(summary), Some(document)) = (summaries.remove(&id), documents.remove(&id)) else { continue };
        let snippet = callscope_search::snippet(&query, document.language, &[&document.full_text, &document.summary, &document.title]);
        data.push(CallSearchHitView {
            call: CallListing::of(&summary).without_size(),
            snippet,
            relevance: (f64::from(relevance) * 10_000.0).round() / 10_000.0,
        });
    }
    Ok(Json(CallSearchPage { data, page: PageInfo::new(hits.total, request) }))
}
