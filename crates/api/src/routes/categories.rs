//! The project's category tree (decisions §7).

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use callscope_domain::{build_tree, Category, CategoryId, CategoryMove, CategoryNode, CategoryPatch, NewCategory, Validator};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::Problem;
use crate::extract::{ApiJson, InProject, ProjectPath, ProjectScope};
use crate::views::{not_null, nullable, Located, Stamps};
use crate::{ApiError, AppState};

/// A category.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CategoryView {
    /// The category's id.
    pub id: Uuid,
    /// The project's taxonomy.
    pub taxonomy_id: Uuid,
    /// Name, unique among its siblings regardless of case.
    #[schema(example = "Refunds")]
    pub name: String,
    /// What belongs here (classification reads it).
    pub description: Option<String>,
    /// Parent category; null for a root.
    pub parent_id: Option<Uuid>,
    /// 0-based position among its siblings.
    pub display_order: i32,
    /// When it was made and when it last changed.
    #[serde(flatten)]
    pub stamps: Stamps,
}

impl From<Category> for CategoryView {
    fn from(c: Category) -> Self {
        Self {
            id: c.id.0,
            taxonomy_id: c.taxonomy_id.0,
            name: c.name,
            description: c.description,
            parent_id: c.parent_id.map(|p| p.0),
            display_order: c.display_order,
            stamps: Stamps::new(c.created_at, c.updated_at),
        }
    }
}

/// A node of the tree: the category, its call counts and its children.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CategoryTreeNode {
    /// The category.
    #[serde(flatten)]
    pub category: CategoryView,
    /// Calls whose primary category is this node.
    pub call_count: u64,
    /// Calls filed here or anywhere below.
    pub total_call_count: u64,
    /// Children, by display order then name.
    #[schema(no_recursion)]
    pub children: Vec<CategoryTreeNode>,
}

impl From<CategoryNode> for CategoryTreeNode {
    fn from(node: CategoryNode) -> Self {
        Self {
            category: node.category.into(),
            call_count: node.call_count,
            total_call_count: node.total_call_count,
            children: node.children.into_iter().map(Into::into).collect(),
        }
    }
}

/// Body of a category create.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"name": "Refunds", "description": "Customer asks for money back", "parentId": null}))]
pub struct CreateCategoryRequest {
    /// Name, 1–200 characters.
    pub name: String,
    /// Description, at most 2000 characters.
    #[serde(default)]
    pub description: Option<String>,
    /// Parent category of the same project; absent or null for a root.
    #[serde(default)]
    pub parent_id: Option<Uuid>,
    /// 0-based position among the siblings; default after the last one.
    #[serde(default)]
    pub display_order: Option<i64>,
}

/// Body of a category update: absent fields stay; `description: null` clears it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"name": "Refunds and returns", "description": null}))]
pub struct UpdateCategoryRequest {
    /// New name.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = String)]
    pub name: Option<Option<String>>,
    /// New description, or null to clear it.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub description: Option<Option<String>>,
}

/// Body of a move: `parentId` null makes the category a root, absent keeps its parent;
/// `displayOrder` is the position among the new siblings (absent: last).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"parentId": null, "displayOrder": 0}))]
pub struct MoveCategoryRequest {
    /// New parent, or null for the roots.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Uuid>)]
    pub parent_id: Option<Option<Uuid>>,
    /// 0-based position among the new siblings.
    #[serde(default)]
    pub display_order: Option<i64>,
}

/// The category tree with call counts.
#[utoipa::path(get, path = "/v1/projects/{projectId}/categories", tag = "Categories", params(ProjectPath),
    responses((status = 200, description = "Root categories, each with its subtree", body = [CategoryTreeNode])))]
pub async fn get_category_tree(State(state): State<AppState>, scope: ProjectScope) -> Result<Json<Vec<CategoryTreeNode>>, ApiError> {
    let categories = state.store.list_categories(scope.id()).await?;
    let counts = state.store.category_call_counts(scope.id()).await?;
    Ok(Json(build_tree(categories, &counts).into_iter().map(Into::into).collect()))
}

/// Create a category.
#[utoipa::path(post, path = "/v1/projects/{projectId}/categories", tag = "Categories", params(ProjectPath),
    request_body = CreateCategoryRequest,
    responses(
        (status = 201, description = "The category", body = CategoryView, headers(("Location" = String, description = "Path of the new category"))),
        (status = 409, description = "`duplicate_category`: a sibling has the same name", body = Problem),
        (status = 422, description = "A field breaks a rule, `parentId` is not a category of the project, or the tree would pass 20 levels", body = Problem)))]
pub async fn create_category(
    State(state): State<AppState>,
    scope: ProjectScope,
    ApiJson(body): ApiJson<CreateCategoryRequest>,
) -> Result<Located<CategoryView>, ApiError> {
    let new = NewCategory::parse(&body.name, body.description.as_deref(), body.parent_id.map(CategoryId), body.display_order)?;
    let category = state.store.create_category(scope.id(), &new).await?;
    let location = format!("/v1/projects/{}/categories/{}", scope.id(), category.id);
    Ok(Located::created(location, category.into()))
}

/// Get one category.
#[utoipa::path(get, path = "/v1/projects/{projectId}/categories/{id}", tag = "Categories",
    params(ProjectPath, ("id" = Uuid, Path, description = "The category")),
    responses((status = 200, description = "The category", body = CategoryView)))]
pub async fn get_category(State(state): State<AppState>, InProject { scope, id }: InProject<CategoryId>) -> Result<Json<CategoryView>, ApiError> {
    let categories = state.store.list_categories(scope.id()).await?;
    let category = categories.into_iter().find(|c| c.id == id).ok_or_else(|| ApiError::not_found("category"))?;
    Ok(Json(category.into()))
}

/// Rename a category or change its description.
#[utoipa::path(put, path = "/v1/projects/{projectId}/categories/{id}", tag = "Categories",
    params(ProjectPath, ("id" = Uuid, Path, description = "The category")),
    request_body = UpdateCategoryRequest,
    responses((status = 200, description = "The category", body = CategoryView),
        (status = 409, description = "`duplicate_category`", body = Problem), (status = 422, description = "A field breaks a rule", body = Problem)))]
pub async fn update_category(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<CategoryId>,
    ApiJson(body): ApiJson<UpdateCategoryRequest>,
) -> Result<Json<CategoryView>, ApiError> {
    let mut nulls = Validator::default();
    let name = not_null("name", body.name, &mut nulls);
    nulls.finish()?;
    let patch = CategoryPatch::parse(name.as_deref(), body.description.as_ref().map(Option::as_deref))?;
    Ok(Json(state.store.update_category(scope.id(), id, &patch).await?.into()))
}

/// Move a category to another parent (or to the roots) and/or position.
#[utoipa::path(patch, path = "/v1/projects/{projectId}/categories/{id}/move", tag = "Categories",
    params(ProjectPath, ("id" = Uuid, Path, description = "The category")),
    request_body = MoveCategoryRequest,
    responses((status = 200, description = "The moved category", body = CategoryView),
        (status = 409, description = "`category_cycle` or `duplicate_category`", body = Problem),
        (status = 422, description = "`parentId` is not a category of the project, a bad position, or the tree would pass 20 levels", body = Problem)))]
pub async fn move_category(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<CategoryId>,
    ApiJson(body): ApiJson<MoveCategoryRequest>,
) -> Result<Json<CategoryView>, ApiError> {
    let to = CategoryMove::parse(body.parent_id.map(|p| p.map(CategoryId)), body.display_order)?;
    Ok(Json(state.store.move_category(scope.id(), id, &to).await?.into()))
}

/// Delete a category and its subtree; calls filed there become uncategorized.
#[utoipa::path(delete, path = "/v1/projects/{projectId}/categories/{id}", tag = "Categories",
    params(ProjectPath, ("id" = Uuid, Path, description = "The category")),
    responses((status = 204, description = "Deleted")))]
pub async fn delete_category(State(state): State<AppState>, InProject { scope, id }: InProject<CategoryId>) -> Result<StatusCode, ApiError> {
    state.store.delete_category(scope.id(), id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Delete the whole taxonomy.
#[utoipa::path(delete, path = "/v1/projects/{projectId}/categories", tag = "Categories", params(ProjectPath),
    responses((status = 204, description = "All categories deleted")))]
pub async fn clear_categories(State(state): State<AppState>, scope: ProjectScope) -> Result<StatusCode, ApiError> {
    state.store.clear_categories(scope.id()).await?;
    Ok(StatusCode::NO_CONTENT)
}
