//! Typed identifiers. Every id the service mints is a time-ordered UUID v7; the newtypes keep an
//! organization id from being passed where a project id is meant.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub Uuid);

        impl $name {
            /// A new, time-ordered id.
            pub fn new() -> Self {
                Self(Uuid::now_v7())
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = uuid::Error;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s).map(Self)
            }
        }

        impl From<Uuid> for $name {
            fn from(id: Uuid) -> Self {
                Self(id)
            }
        }
    };
}

id_type!(
    /// An organization (tenant).
    OrgId
);
id_type!(
    /// An organization's API key (not the secret itself).
    ApiKeyId
);
id_type!(
    /// A project inside an organization.
    ProjectId
);
id_type!(
    /// A project's category taxonomy (one per project).
    TaxonomyId
);
id_type!(
    /// A node of a category tree.
    CategoryId
);
id_type!(
    /// An action item extracted from a call.
    ActionItemId
);
id_type!(
    /// A named list of speaker names.
    SpeakerPresetId
);
id_type!(
    /// An analysis template.
    TemplateId
);
id_type!(
    /// A field (question) of an analysis template.
    TemplateFieldId
);
id_type!(
    /// A registered webhook.
    WebhookId
);
id_type!(
    /// One event's delivery to one webhook.
    WebhookDeliveryId
);
id_type!(
    /// A processing job of an upload.
    JobId
);
id_type!(
    /// A call (its transcript and analysis); the spec also calls it `transcriptId`.
    CallId
);
id_type!(
    /// A project's rule that files calls under a label.
    RuleId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_ids_are_uuid_v7_and_ordered() {
        let a = ProjectId::new();
        let b = ProjectId::new();
        assert_eq!(a.0.get_version_num(), 7);
        assert!(a < b, "v7 ids minted later sort later");
    }

    #[test]
    fn ids_parse_from_their_display_form() {
        let id = OrgId::new();
        assert_eq!(id.to_string().parse::<OrgId>().unwrap(), id);
        assert!("not-a-uuid".parse::<OrgId>().is_err());
    }
}
