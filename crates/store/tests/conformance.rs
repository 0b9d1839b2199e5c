//! One story of the store, told to both backends: whatever SQLite does, PostgreSQL does too.

use std::sync::Arc;

use callscope_domain::{
    ActionItem, ActionItemId, ActionItemPriority, ActionItemStatus, ActionItemView, ApiKeySecret, CallId, Clock, KeyDigest, Language, ManualClock,
    NewProject, OrgId, PageRequest, PiiRedaction, ProjectId, ProjectPatch, SentimentLevel,
};
use callscope_store::both_backends;
use callscope_store::testing::TestDatabase;
use callscope_store::{connect, Backend, Store, StoreError, StoreOptions};
use chrono::{DateTime, TimeDelta};

async fn open(backend: Backend) -> (TestDatabase, Arc<dyn Store>, Arc<ManualClock>) {
    let db = TestDatabase::new(backend).await;
    let start = DateTime::parse_from_rfc3339("2026-03-01T10:00:00.999Z").unwrap().to_utc();
    let clock = Arc::new(ManualClock::new(start));
    let store = connect(&StoreOptions { url: db.url().to_owned(), max_connections: 8 }, clock.clone()).await.expect("connect");
    assert_eq!(store.backend(), backend);
    store.migrate().await.expect("migrate");
    store.migrate().await.expect("migrating twice is a no-op");
    (db, store, clock)
}

both_backends!(
    bootstrap_happens_once_even_when_raced,
    keys_authenticate_until_revoked,
    projects_are_scoped_to_their_organization,
    project_lists_page_newest_first,
    project_patches_change_only_what_they_name,
);

async fn bootstrap_happens_once_even_when_raced(backend: Backend) {
    let (_db, store, _) = open(backend).await;
    let attempts = (0..6).map(|i| {
        let store = store.clone();
        tokio::spawn(async move { store.bootstrap("default", "bootstrap", &KeyDigest::of(&format!("k{i}"))).await })
    });
    let mut created = 0;
    for attempt in attempts {
        if attempt.await.unwrap().expect("bootstrap").is_some() {
            created += 1;
        }
    }
    assert_eq!(created, 1, "exactly one process creates the default organization");
    let orgs = store.list_organizations().await.unwrap();
    assert_eq!(orgs.len(), 1);
    assert_eq!(orgs[0].name, "default");
    assert_eq!(store.list_api_keys(orgs[0].id).await.unwrap().len(), 1);
}

async fn keys_authenticate_until_revoked(backend: Backend) {
    let (_db, store, clock) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let secret = ApiKeySecret::generate();
    let key = store.create_api_key(org.id, "ci", &secret.digest()).await.unwrap().expect("org exists");
    assert_eq!(key.org_id, org.id);
    assert_eq!(key.revoked_at, None);

    let principal = store.authenticate(&KeyDigest::of(secret.expose())).await.unwrap().expect("valid key");
    assert_eq!((principal.org_id, principal.key_id), (org.id, key.id));
    assert!(store.authenticate(&KeyDigest::of("csk_unknown")).await.unwrap().is_none());

    assert!(store.create_api_key(OrgId::new(), "x", &KeyDigest::of("y")).await.unwrap().is_none(), "a key needs an existing organization");
    let duplicate = store.create_api_key(org.id, "again", &secret.digest()).await;
    assert!(matches!(duplicate, Err(StoreError::Conflict(_))), "{duplicate:?}");

    let revoked = store.revoke_api_key(key.id).await.unwrap().expect("key exists");
    let first_revocation = revoked.revoked_at.expect("revoked");
    assert_eq!(first_revocation, clock.now());
    assert!(store.authenticate(&secret.digest()).await.unwrap().is_none(), "revoked keys do not authenticate");
    clock.advance(TimeDelta::minutes(5));
    let again = store.revoke_api_key(key.id).await.unwrap().unwrap();
    assert_eq!(again.revoked_at, Some(first_revocation), "revoking twice keeps the first time");
    assert!(store.revoke_api_key(callscope_domain::ApiKeyId::new()).await.unwrap().is_none());
}

fn new_project(name: &str) -> NewProject {
    NewProject::parse(name, None, None, None).unwrap()
}

async fn projects_are_scoped_to_their_organization(backend: Backend) {
    let (_db, store, clock) = open(backend).await;
    let acme = store.create_organization("acme").await.unwrap();
    let other = store.create_organization("other").await.unwrap();
    let new = NewProject::parse("Support", Some("Inbound"), Some(Language::Pl), Some(PiiRedaction::Mask)).unwrap();
    let project = store.create_project(acme.id, &new).await.unwrap();
    assert_eq!(project.name, "Support");
    assert_eq!(project.description.as_deref(), Some("Inbound"));
    assert_eq!(project.default_language, Language::Pl);
    assert_eq!(project.pii_redaction, PiiRedaction::Mask);
    assert_eq!(project.created_at, clock.now(), "timestamps keep their milliseconds");
    assert_eq!(project.id.0.get_version_num(), 7);

    assert_eq!(store.get_project(acme.id, project.id).await.unwrap(), Some(project.clone()));
    assert_eq!(store.get_project(other.id, project.id).await.unwrap(), None);
    assert_eq!(store.get_project(acme.id, ProjectId::new()).await.unwrap(), None);
    assert_eq!(store.project_of_job(project.id).await.unwrap(), Some(project.clone()), "workers read it without the organization");
    assert_eq!(store.project_of_job(ProjectId::new()).await.unwrap(), None);
    let patch = ProjectPatch { name: Some("Stolen".into()), ..Default::default() };
    assert_eq!(store.update_project(other.id, project.id, &patch).await.unwrap(), None);
    assert_eq!(store.list_projects(other.id, PageRequest { page: 1, page_size: 10 }).await.unwrap().total, 0);
    assert_eq!(store.get_project(acme.id, project.id).await.unwrap().unwrap().name, "Support");
}

async fn project_lists_page_newest_first(backend: Backend) {
    let (_db, store, clock) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let mut ids = Vec::new();
    for i in 0..7 {
        // Steps of 1 ms and of whole seconds: ordering must hold across both.
        clock.advance(if i % 2 == 0 { TimeDelta::milliseconds(1) } else { TimeDelta::seconds(1) });
        ids.push(store.create_project(org.id, &new_project(&format!("p{i}"))).await.unwrap().id);
    }
    ids.reverse();
    let first = store.list_projects(org.id, PageRequest { page: 1, page_size: 3 }).await.unwrap();
    assert_eq!(first.total, 7);
    assert_eq!(first.total_pages(3), 3);
    assert_eq!(first.items.iter().map(|p| p.id).collect::<Vec<_>>(), ids[..3]);
    let last = store.list_projects(org.id, PageRequest { page: 3, page_size: 3 }).await.unwrap();
    assert_eq!(last.items.iter().map(|p| p.id).collect::<Vec<_>>(), ids[6..]);
    let past = store.list_projects(org.id, PageRequest { page: 4, page_size: 3 }).await.unwrap();
    assert!(past.items.is_empty());
    assert_eq!(past.total, 7);
}

async fn project_patches_change_only_what_they_name(backend: Backend) {
    let (_db, store, clock) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let created = store.create_project(org.id, &NewProject::parse("Sales", Some("Outbound"), None, None).unwrap()).await.unwrap();
    clock.advance(TimeDelta::seconds(3));

    let language_only = ProjectPatch { default_language: Some(Language::Pl), ..Default::default() };
    let updated = store.update_project(org.id, created.id, &language_only).await.unwrap().unwrap();
    assert_eq!(updated.default_language, Language::Pl);
    assert_eq!(updated.name, "Sales");
    assert_eq!(updated.description.as_deref(), Some("Outbound"));
    assert_eq!(updated.pii_redaction, PiiRedaction::None);
    assert_eq!(updated.created_at, created.created_at);
    assert_eq!(updated.updated_at, clock.now());

    let clear = ProjectPatch::parse(Some("Sales EU"), Some(None), None, Some(PiiRedaction::Mask)).unwrap();
    let updated = store.update_project(org.id, created.id, &clear).await.unwrap().unwrap();
    assert_eq!(updated.name, "Sales EU");
    assert_eq!(updated.description, None);
    assert_eq!(updated.pii_redaction, PiiRedaction::Mask);
    assert_eq!(updated.default_language, Language::Pl);
    assert_eq!(store.get_project(org.id, created.id).await.unwrap(), Some(updated));
}

both_backends!(
    a_job_whose_worker_stopped_is_taken_over_and_completes_once,
    retries_and_failures_keep_the_reason,
    deleting_a_category_takes_it_out_of_every_call_that_names_it,
);

fn new_job(sha: &str) -> callscope_domain::NewJob {
    callscope_domain::NewJob {
        id: callscope_domain::JobId::new(),
        original_filename: "call.wav".into(),
        content_type: "audio/wav".into(),
        size_bytes: 1234,
        sha256: sha.into(),
        storage_path: "projects/p/j.wav".into(),
        language: Language::Pl,
        channel_roles: Some(vec!["agent".into(), "customer".into()]),
        recorded_at: None,
    }
}

fn new_call() -> callscope_store::NewCall {
    let pii_spans =
        vec![callscope_domain::PiiSpan { kind: "PERSON_NAME".into(), turn: 0, start: 6, end: 11, confidence: 0.75, start_ms: 400, end_ms: 900 }];
    callscope_store::NewCall {
        id: callscope_domain::CallId::new(),
        filename: "call.wav".into(),
        language: Language::Pl,
        size_bytes: 1234,
        duration_s: 12.5,
        storage_path: "projects/p/j.wav".into(),
        sha256: "ab".into(),
        content_type: "audio/wav".into(),
        sample_rate: 8000,
        channels: 2,
        codec: "pcm_mulaw".into(),
        recorded_at: None,
        created_at: chrono::Utc::now(),
        transcript: callscope_domain::CallTranscript {
            full_text: "Dzień dobry.\nDobry.".into(),
            turns: vec![
                callscope_domain::Turn { speaker_id: "speaker_1".into(), text: "Dzień dobry.".into(), start_ms: 0, end_ms: 900 },
                callscope_domain::Turn { speaker_id: "speaker_2".into(), text: "Dobry.".into(), start_ms: 1000, end_ms: 1400 },
            ],
            speakers: vec![callscope_domain::SpeakerStats {
                speaker_id: "speaker_1".into(),
                name: "agent".into(),
                talk_ratio: 0.692,
                turn_count: 1,
                word_count: 2,
                total_duration_s: 0.9,
                role: None,
                role_confidence: None,
            }],
            words: vec![
                callscope_domain::TimedWord { text: "Dzień".into(), start_ms: 0, end_ms: 400, speaker: 0, confidence: Some(0.875) },
                callscope_domain::TimedWord { text: "dobry.".into(), start_ms: 400, end_ms: 900, speaker: 0, confidence: None },
            ],
            speech_model: Some("whisper-base".into()),
            pii_statistics: callscope_domain::PiiStatistics::of(&pii_spans),
            pii_spans,
            quality: Some(callscope_domain::TranscriptQuality {
                reliable: false,
                mean_word_confidence: 0.41,
                unsure_word_share: 0.5,
                speech_model: Some("whisper-base".into()),
                better_model: Some(callscope_domain::TranscriptQuality::BETTER_MODEL.into()),
            }),
            characteristics: Some(callscope_domain::CallCharacteristics::from_words(
                &[
                    callscope_domain::TimedWord { text: "Dzień".into(), start_ms: 0, end_ms: 400, speaker: 0, confidence: None },
                    callscope_domain::TimedWord { text: "Dobry.".into(), start_ms: 5000, end_ms: 5400, speaker: 1, confidence: None },
                ],
                9000,
            )),
        },
        analysis: Some(callscope_store::CallAnalysisRecord {
            title: Some("Zwrot za czajnik".into()),
            sentiment_level: SentimentLevel::Negative,
            sentiment_confidence: Some(0.8),
            // Not a category of the project: stored as none.
            primary_category: Some(callscope_domain::CategoryId::new()),
            classification: None,
            summary: Some(callscope_domain::StoredSummary {
                sentiment_level: SentimentLevel::Negative,
                ..callscope_store::testing::summary_saying("Klient chce zwrotu.")
            }),
            template_analysis: None,
            action_items: ["Wyślę formularz", "Zadzwonię jutro"]
                .into_iter()
                .map(|d| callscope_domain::NewActionItem {
                    id: callscope_domain::ActionItemId::new(),
                    description: d.into(),
                    responsible_party: Some("agent".into()),
                    deadline_mentioned: Some("jutro".into()),
                    due_at: Some(chrono::Utc::now()),
                    evidence: Some(format!("{d}.")),
                    priority: ActionItemPriority::High,
                })
                .collect(),
        }),
    }
}

async fn a_job_whose_worker_stopped_is_taken_over_and_completes_once(backend: Backend) {
    use callscope_domain::{JobStage, JobStatus};
    use std::time::Duration;
    let (_db, store, clock) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let project = store.create_project(org.id, &new_project("p")).await.unwrap();
    let job = store.create_job(project.id, &new_job("aa")).await.unwrap();
    assert_eq!((job.status, job.stage, job.attempts), (JobStatus::Pending, JobStage::Queued, 0));

    let lease = Duration::from_secs(30);
    let claimed = store.claim_job("worker-a", lease).await.unwrap().expect("a pending job");
    assert_eq!((claimed.id, claimed.status, claimed.attempts), (job.id, JobStatus::Processing, 1));
    assert_eq!(claimed.started_at, Some(clock.now()));
    assert!(store.claim_job("worker-b", lease).await.unwrap().is_none(), "a leased job is not claimed twice");
    assert!(store.heartbeat_job(job.id, "worker-a", lease, JobStage::Decoding, 0.25).await.unwrap());
    let seen = store.get_job(project.id, job.id).await.unwrap();
    assert_eq!((seen.stage, seen.progress), (JobStage::Decoding, 0.25));

    // worker-a stops heartbeating; after the lease, worker-b takes over.
    clock.advance(TimeDelta::seconds(31));
    let taken = store.claim_job("worker-b", lease).await.unwrap().expect("expired lease");
    assert_eq!((taken.id, taken.attempts), (job.id, 2));
    assert!(!store.heartbeat_job(job.id, "worker-a", lease, JobStage::Transcribing, 0.5).await.unwrap(), "the old worker lost it");
    let call = new_call();
    let completed_event = callscope_domain::Event::CallCompleted(callscope_domain::CallCompleted {
        call: callscope_domain::CallListing {
            id: call.id,
            filename: call.filename.clone(),
            language: call.language,
            size_bytes: Some(call.size_bytes),
            duration_s: Some(call.duration_s),
            sentiment_level: SentimentLevel::Neutral,
            primary_category: None,
            action_items_count: 0,
            created_at: clock.now(),
            recorded_at: None,
            title: call.filename.clone(),
            figures: None,
            rule_labels: Vec::new(),
        },
        job_id: job.id,
    });
    assert!(!store.complete_job(job.id, "worker-a", &new_call(), std::slice::from_ref(&completed_event)).await.unwrap());
    assert!(store.complete_job(job.id, "worker-b", &call, std::slice::from_ref(&completed_event)).await.unwrap());
    assert!(!store.complete_job(job.id, "worker-b", &new_call(), &[completed_event]).await.unwrap(), "once only");

    let done = store.get_job(project.id, job.id).await.unwrap();
    assert_eq!((done.status, done.stage, done.progress), (JobStatus::Completed, JobStage::Done, 1.0));
    assert_eq!(done.transcript_id, Some(call.id));
    assert_eq!(done.completed_at, Some(clock.now()));
    let events = store.list_events(project.id).await.unwrap();
    assert_eq!(events.len(), 1, "one call.completed, from the worker that finished");
    assert_eq!(events[0].0, "call.completed");
    let counts = store.category_call_counts(project.id).await.unwrap();
    assert!(counts.is_empty(), "the call exists, uncategorized");
    let transcript = store.get_call_transcript(project.id, call.id).await.unwrap();
    assert_eq!(transcript, call.transcript, "the transcript reads back as written");
    let text = store.get_call_text(project.id, call.id).await.unwrap();
    let written = &call.transcript;
    assert_eq!(
        text,
        callscope_domain::CallText {
            full_text: written.full_text.clone(),
            turns: written.turns.clone(),
            speakers: written.speakers.clone(),
            pii_statistics: written.pii_statistics.clone(),
            quality: written.quality.clone(),
            characteristics: written.characteristics.clone(),
        },
        "the text alone reads back as written"
    );
    let analysis = store.get_call_analysis(project.id, call.id).await.unwrap();
    let written = call.analysis.as_ref().unwrap();
    assert_eq!((analysis.title.as_deref(), analysis.sentiment_level.as_str()), (Some("Zwrot za czajnik"), "negative"));
    assert_eq!(analysis.primary_category, None, "a category from elsewhere is not stored");
    assert_eq!(analysis.summary, written.summary);
    assert_eq!(analysis.classification, None);
    let items: Vec<(i32, &str, &str, &str)> =
        analysis.action_items.iter().map(|a| (a.transcript_index, a.description.as_str(), a.status.as_str(), a.call_filename.as_str())).collect();
    assert_eq!(items, [(0, "Wyślę formularz", "PENDING", "call.wav"), (1, "Zadzwonię jutro", "PENDING", "call.wav")]);
    assert!((analysis.action_items[0].call_date - call.created_at).num_milliseconds().abs() <= 1, "callDate is the call's date");
    assert_eq!(analysis.action_items[1].id, written.action_items[1].id);
    let other = store.create_project(org.id, &new_project("other")).await.unwrap();
    assert!(matches!(store.get_call_transcript(other.id, call.id).await, Err(callscope_store::StoreError::NotFound(_))));
    assert!(matches!(store.get_call_text(other.id, call.id).await, Err(callscope_store::StoreError::NotFound(_))));
    assert!(matches!(store.get_call_analysis(other.id, call.id).await, Err(callscope_store::StoreError::NotFound(_))));
    assert!(store.claim_job("worker-c", lease).await.unwrap().is_none(), "nothing left to do");
}

async fn retries_and_failures_keep_the_reason(backend: Backend) {
    use callscope_domain::JobStatus;
    use std::time::Duration;
    let (_db, store, clock) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let project = store.create_project(org.id, &new_project("p")).await.unwrap();
    let job = store.create_job(project.id, &new_job("bb")).await.unwrap();
    let lease = Duration::from_secs(60);

    store.claim_job("w", lease).await.unwrap().unwrap();
    let later = clock.now() + TimeDelta::seconds(10);
    assert!(store.retry_job(job.id, "w", "storage timed out", later).await.unwrap());
    let waiting = store.get_job(project.id, job.id).await.unwrap();
    assert_eq!(waiting.status, JobStatus::Pending);
    assert_eq!(waiting.error_message.as_deref(), Some("storage timed out"));
    assert!(store.claim_job("w", lease).await.unwrap().is_none(), "not before its time");
    clock.advance(TimeDelta::seconds(10));
    let again = store.claim_job("w", lease).await.unwrap().expect("due now");
    assert_eq!(again.attempts, 2);

    // A worker that stops mid-job gives it back without counting the attempt; only the holder
    // can.
    assert!(!store.release_job(job.id, "someone-else").await.unwrap());
    assert!(store.release_job(job.id, "w").await.unwrap());
    let released = store.get_job(project.id, job.id).await.unwrap();
    assert_eq!((released.status, released.attempts), (JobStatus::Pending, 1));
    assert!(!store.release_job(job.id, "w").await.unwrap(), "once");
    let again = store.claim_job("w", lease).await.unwrap().expect("runnable at once");
    assert_eq!(again.attempts, 2, "the released attempt did not count");

    let failed_event = callscope_domain::Event::CallFailed(Box::new(again.clone()));
    assert!(!store.fail_job(job.id, "someone-else", "x", &failed_event).await.unwrap());
    assert!(store.fail_job(job.id, "w", "the file is not audio", &failed_event).await.unwrap());
    let failed = store.get_job(project.id, job.id).await.unwrap();
    assert_eq!(failed.status, JobStatus::Failed);
    assert_eq!(failed.error_message.as_deref(), Some("the file is not audio"));
    assert!(failed.completed_at.is_some());
    assert_eq!(store.list_events(project.id).await.unwrap(), vec![("call.failed".to_owned(), failed_event.data())]);
    assert!(store.claim_job("w", lease).await.unwrap().is_none(), "failed jobs stay failed");
    assert!(store.find_duplicate_job(project.id, "bb").await.unwrap().is_none(), "a failed upload may be sent again");

    // A failed job can be deleted, with its call.failed event; a pending one cannot.
    let pending = store.create_job(project.id, &new_job("cc")).await.unwrap();
    assert!(!store.delete_failed_job(project.id, pending.id).await.unwrap());
    let other = store.create_project(org.id, &new_project("other")).await.unwrap();
    assert!(!store.delete_failed_job(other.id, job.id).await.unwrap(), "not another project's");
    assert!(store.delete_failed_job(project.id, job.id).await.unwrap());
    assert!(matches!(store.get_job(project.id, job.id).await, Err(StoreError::NotFound(_))));
    assert!(store.list_events(project.id).await.unwrap().is_empty(), "its event went with it");
    assert!(!store.delete_failed_job(project.id, job.id).await.unwrap(), "once");
}

both_backends!(erasing_a_call_takes_its_events_and_their_deliveries);

async fn erasing_a_call_takes_its_events_and_their_deliveries(backend: Backend) {
    use callscope_domain::{CallCompleted, CategoryChange, Event, SentimentLevel};
    let (_db, store, clock) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let project = store.create_project(org.id, &new_project("p")).await.unwrap();
    let hook = store.create_webhook(project.id, "https://hooks.example.com/in", &["*".to_owned()], "whsec_test").await.unwrap();
    let mut calls = Vec::new();
    for sha in ["aa", "bb"] {
        store.create_job(project.id, &new_job(sha)).await.unwrap();
        let job = store.claim_job("w", std::time::Duration::from_secs(60)).await.unwrap().unwrap();
        let call = new_call();
        let completed = Event::CallCompleted(CallCompleted {
            call: callscope_domain::CallListing {
                id: call.id,
                filename: "kowalski-refund.wav".into(),
                language: Language::Pl,
                size_bytes: Some(1234),
                duration_s: Some(12.5),
                sentiment_level: SentimentLevel::Neutral,
                primary_category: None,
                action_items_count: 1,
                created_at: clock.now(),
                recorded_at: None,
                title: "Refund for Jan Kowalski".into(),
                figures: None,
                rule_labels: Vec::new(),
            },
            job_id: job.id,
        });
        let new = callscope_domain::NewActionItem {
            id: ActionItemId::new(),
            description: "Call Jan Kowalski back".into(),
            responsible_party: None,
            deadline_mentioned: None,
            due_at: None,
            evidence: None,
            priority: ActionItemPriority::Medium,
        };
        let extracted = ActionItem::extracted(project.id, call.id, 0, clock.now(), "call.wav", &new, clock.now());
        let item = Event::ActionItemCreated(Box::new(ActionItemView::new(&extracted, clock.now())));
        let moved = Event::CallCategoryChanged(CategoryChange { call_id: call.id, previous_category_id: None, category_id: None });
        assert!(store.complete_job(job.id, "w", &call, &[completed, item, moved]).await.unwrap());
        calls.push(call.id);
    }
    assert_eq!(store.list_events(project.id).await.unwrap().len(), 6);
    assert_eq!(store.list_deliveries(project.id, hook.id, 100).await.unwrap().len(), 6, "each event is to be delivered");

    store.delete_call(project.id, calls[0]).await.unwrap();
    let left = serde_json::to_string(&store.list_events(project.id).await.unwrap()).unwrap();
    assert!(!left.contains(&calls[0].0.to_string()), "nothing of the erased call stays in the outbox: {left}");
    assert_eq!(left.matches(&calls[1].0.to_string()).count(), 3, "the other call's events stay: {left}");
    assert_eq!(store.list_deliveries(project.id, hook.id, 100).await.unwrap().len(), 3, "and only their deliveries");
}

both_backends!(events_past_their_retention_go_with_their_deliveries);

async fn events_past_their_retention_go_with_their_deliveries(backend: Backend) {
    let (_db, store, clock) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let project = store.create_project(org.id, &new_project("p")).await.unwrap();
    let hook = store.create_webhook(project.id, "https://hooks.example.com/in", &["*".to_owned()], "whsec_test").await.unwrap();
    store.create_test_delivery(project.id, hook.id, &serde_json::json!({"n": 1})).await.unwrap();
    clock.advance(TimeDelta::days(20));
    store.create_test_delivery(project.id, hook.id, &serde_json::json!({"n": 2})).await.unwrap();
    clock.advance(TimeDelta::days(15));
    // Thirty days kept: the first event is 35 days old, the second 15.
    assert_eq!(store.prune_events(clock.now() - TimeDelta::days(30)).await.unwrap(), 1);
    let left = store.list_events(project.id).await.unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].1["n"], 2);
    assert_eq!(store.list_deliveries(project.id, hook.id, 100).await.unwrap().len(), 1, "the pruned event's delivery went with it");
    assert_eq!(store.prune_events(clock.now() - TimeDelta::days(30)).await.unwrap(), 0);
}

both_backends!(change_logs_past_their_retention_are_pruned_and_a_reader_behind_them_reads_again);

/// Retention prunes the action item change log and the log of erasures. A process whose item
/// index is older than what was pruned reads the project again instead of keeping items that
/// went; live items' rows, which the log needs, are never pruned.
async fn change_logs_past_their_retention_are_pruned_and_a_reader_behind_them_reads_again(backend: Backend) {
    use callscope_store::{ActionItemQuery, Erasures};

    let (db, store, clock) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let project = store.create_project(org.id, &new_project("p")).await.unwrap().id;
    let kept = callscope_store::testing::store_call(store.as_ref(), project, &new_call()).await;
    let erased = callscope_store::testing::store_call(store.as_ref(), project, &new_call()).await;
    let listed = |store: Arc<dyn Store>| {
        let clock = clock.clone();
        async move {
            let query = ActionItemQuery { page_size: 100, ..Default::default() };
            let list = store.list_action_items(project, &query, clock.now()).await.unwrap();
            // The page's rows are read by id, so an index holding gone items shows in its
            // counters, not in the page.
            assert_eq!(list.total as usize, list.items.len(), "the counters agree with the items");
            let mut ids: Vec<_> = list.items.into_iter().map(|i| i.id).collect();
            ids.sort_by_key(|id| id.0);
            ids
        }
    };
    // Another process lists now, then not again for two months.
    let behind = connect(&StoreOptions { url: db.url().to_owned(), max_connections: 2 }, clock.clone()).await.unwrap();
    let all = listed(store.clone()).await;
    assert_eq!(all.len(), 4);
    assert_eq!(listed(behind.clone()).await, all);

    let mut one_item = None;
    for id in &all {
        if store.get_action_item(project, *id).await.unwrap().call_id == kept {
            one_item = Some(*id);
        }
    }
    let one_item = one_item.unwrap();
    store.delete_action_item(project, one_item).await.unwrap();
    let erased_at = clock.now();
    store.delete_call(project, erased).await.unwrap();
    let left = listed(store.clone()).await;
    assert_eq!(left.len(), 1, "one item deleted, two with their call");
    let retention = TimeDelta::days(30);

    // Housekeeping notes the gone items' rows on its first round and prunes them a retention later.
    clock.advance(TimeDelta::days(31));
    assert_eq!(store.prune_item_changes(clock.now() - retention).await.unwrap(), 0, "first seen gone now");
    assert_eq!(store.prune_deleted_calls(clock.now() - retention).await.unwrap(), 1, "the erasure is 31 days old");
    assert_eq!(
        store.deleted_calls(chrono::DateTime::UNIX_EPOCH).await.unwrap(),
        Erasures { calls: vec![], pruned_through: Some(erased_at) },
        "the log says how far it was pruned"
    );
    clock.advance(TimeDelta::days(31));
    assert_eq!(store.prune_item_changes(clock.now() - retention).await.unwrap(), 3, "the three gone items' rows, not the live one's");
    assert_eq!(store.prune_item_changes(clock.now() - retention).await.unwrap(), 0);
    assert_eq!(store.prune_deleted_calls(clock.now() - retention).await.unwrap(), 0);

    // The process that fell behind no longer finds the changes it missed in the log; it reads
    // the project again and lists what is there.
    assert_eq!(listed(behind.clone()).await, left);
    assert_eq!(listed(store.clone()).await, left);
    // And follows the log from there, as does the process that kept up.
    store.delete_action_item(project, left[0]).await.unwrap();
    assert!(listed(behind.clone()).await.is_empty());
    assert!(listed(store.clone()).await.is_empty());
    assert!(store.get_call_summary(project, kept).await.is_ok());

    // Another erasure later: the horizon only moves forward.
    clock.advance(TimeDelta::days(1));
    store.delete_call(project, kept).await.unwrap();
    let erasures = store.deleted_calls(chrono::DateTime::UNIX_EPOCH).await.unwrap();
    assert_eq!((erasures.calls.len(), erasures.pruned_through), (1, Some(erased_at)));
}

both_backends!(people_add_and_merge_items_and_reanalysis_keeps_what_they_added);

/// A person adds an item the analysis missed and merges a duplicate; each writes its events;
/// re-analysis replaces the analysis's items and keeps the person's, after them.
async fn people_add_and_merge_items_and_reanalysis_keeps_what_they_added(backend: Backend) {
    let (_db, store, clock) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let project = store.create_project(org.id, &new_project("p")).await.unwrap().id;
    let call = callscope_store::testing::store_call(store.as_ref(), project, &new_call()).await;
    let other_call = callscope_store::testing::store_call(store.as_ref(), project, &new_call()).await;
    let items = |call| {
        let store = store.clone();
        async move {
            let analysis = store.get_call_analysis(project, call).await.unwrap();
            analysis.action_items.into_iter().map(|i| (i.transcript_index, i.description)).collect::<Vec<_>>()
        }
    };
    let added = callscope_domain::NewActionItem {
        id: ActionItemId::new(),
        description: "Wyślę aneks do umowy".into(),
        responsible_party: Some("agent".into()),
        deadline_mentioned: None,
        due_at: None,
        evidence: None,
        priority: ActionItemPriority::Medium,
    };
    let stored = store.add_action_item(project, call, &added).await.unwrap();
    assert_eq!((stored.transcript_index, stored.status, stored.id), (2, ActionItemStatus::Pending, added.id));
    assert_eq!(items(call).await.len(), 3);
    assert_eq!(store.list_events(project).await.unwrap().last().unwrap().0, "action_item.created");
    let elsewhere = store.create_project(org.id, &new_project("elsewhere")).await.unwrap().id;
    assert!(matches!(store.add_action_item(elsewhere, call, &added).await, Err(StoreError::NotFound("call"))), "another project's call");

    // Merge the analysis's second item into its first.
    let before = store.get_call_analysis(project, call).await.unwrap().action_items;
    clock.advance(TimeDelta::seconds(1));
    let merged = store.merge_action_items(project, before[1].id, before[0].id).await.unwrap();
    assert_eq!(merged.description, before[0].description);
    assert_eq!(merged.notes.as_deref(), Some("Merged: Zadzwonię jutro"));
    assert_eq!(items(call).await, [(0, before[0].description.clone()), (1, "Wyślę aneks do umowy".to_owned())], "the places close up");
    let events: Vec<String> = store.list_events(project).await.unwrap().into_iter().rev().take(2).map(|e| e.0).collect();
    assert_eq!(events, ["action_item.deleted", "action_item.updated"]);
    let foreign = store.get_call_analysis(project, other_call).await.unwrap().action_items[0].id;
    assert!(matches!(store.merge_action_items(project, foreign, before[0].id).await, Err(StoreError::Rejected(_))), "items of two calls");
    assert!(matches!(store.merge_action_items(project, before[0].id, before[0].id).await, Err(StoreError::Rejected(_))), "an item with itself");
    assert!(matches!(store.merge_action_items(elsewhere, before[0].id, stored.id).await, Err(StoreError::NotFound(_))), "another project's items");

    // Re-analysis: the analysis's items are replaced, the person's stays, after them.
    let job = store.create_reanalysis_job(project, call, None).await.unwrap();
    let claimed = store.claim_job("worker-a", std::time::Duration::from_secs(30)).await.unwrap().unwrap();
    assert_eq!(claimed.id, job.id);
    let mut record = new_call().analysis.unwrap();
    record.action_items.truncate(1);
    assert!(store.complete_reanalysis(job.id, "worker-a", &record, &[]).await.unwrap());
    assert_eq!(items(call).await, [(0, "Wyślę formularz".to_owned()), (1, "Wyślę aneks do umowy".to_owned())]);
}

both_backends!(claims_are_fair_between_organizations_and_reanalysis_goes_first);

async fn claims_are_fair_between_organizations_and_reanalysis_goes_first(backend: Backend) {
    let (_db, store, clock) = open(backend).await;
    let lease = std::time::Duration::from_secs(60);
    let busy = store.create_organization("busy").await.unwrap();
    let busy_project = store.create_project(busy.id, &new_project("bulk")).await.unwrap();
    let small = store.create_organization("small").await.unwrap();
    let small_project = store.create_project(small.id, &new_project("calls")).await.unwrap();
    let call = callscope_store::testing::store_call(store.as_ref(), small_project.id, &new_call()).await;
    // The busy organization queues three long uploads first; the small one a call, then a
    // re-analysis.
    let mut bulk = Vec::new();
    for sha in ["b1", "b2", "b3"] {
        bulk.push(store.create_job(busy_project.id, &new_job(sha)).await.unwrap().id);
        clock.advance(TimeDelta::seconds(1));
    }
    let quick = store.create_job(small_project.id, &new_job("s1")).await.unwrap().id;
    clock.advance(TimeDelta::seconds(1));
    let reanalysis = store.create_reanalysis_job(small_project.id, call, None).await.unwrap().id;
    clock.advance(TimeDelta::seconds(1));

    let mut order = Vec::new();
    while let Some(job) = store.claim_job("w", lease).await.unwrap() {
        order.push(job.id);
    }
    assert_eq!(order, [reanalysis, quick, bulk[0], bulk[1], bulk[2]], "re-analysis first, then the organization with the shorter queue");
}

both_backends!(one_active_template_and_one_default_preset_even_when_raced);
both_backends!(deleting_a_calls_items_at_once_keeps_the_rest_numbered);
both_backends!(items_edited_and_deleted_while_their_call_is_erased);

/// Clients editing and deleting a call's items while another erases the call: each edit or
/// delete either happens or finds its item gone (on PostgreSQL none is chosen as a deadlock
/// victim, though the erasure deletes the items in the table's order, which the renumbering of
/// earlier deletes has made differ from the list's), and the erasure succeeds.
async fn items_edited_and_deleted_while_their_call_is_erased(backend: Backend) {
    let (_db, store, _) = open(backend).await;
    for round in 0..4 {
        let (project, call, items) = call_with_items(&store, 16).await;
        // Deletes from the front renumber (and so move, in the table) every later item first.
        for &id in items.iter().take(4) {
            store.delete_action_item(project, id).await.unwrap();
        }
        let mut racing = Vec::new();
        for (n, &id) in items.iter().enumerate().skip(4) {
            let store = store.clone();
            racing.push(tokio::spawn(async move {
                if n % 2 == 0 {
                    store.delete_action_item(project, id).await.map(drop)
                } else {
                    let patch = callscope_store::ActionItemPatch { notes: Some(format!("round {round}")), ..Default::default() };
                    store.update_action_item(project, id, &patch).await.map(drop)
                }
            }));
        }
        let erasure = {
            let store = store.clone();
            tokio::spawn(async move { store.delete_call(project, call).await })
        };
        for outcome in racing {
            match outcome.await.unwrap() {
                Ok(()) | Err(StoreError::NotFound(_)) => {}
                Err(other) => panic!("an edit or delete racing the erasure failed: {other}"),
            }
        }
        erasure.await.unwrap().expect("the erasure succeeds");
        assert!(matches!(store.get_action_item(project, items[5]).await, Err(StoreError::NotFound(_))));
    }
}

/// A stored call of `count` action items, in a project of its own: the project, the call and
/// the items' ids in list order.
async fn call_with_items(store: &Arc<dyn Store>, count: usize) -> (ProjectId, CallId, Vec<ActionItemId>) {
    let org = store.create_organization("acme").await.unwrap();
    let project = store.create_project(org.id, &new_project("items")).await.unwrap().id;
    let mut call = new_call();
    let analysis = call.analysis.as_mut().unwrap();
    analysis.action_items = (0..count)
        .map(|i| callscope_domain::NewActionItem {
            id: ActionItemId::new(),
            description: format!("task {i}"),
            responsible_party: None,
            deadline_mentioned: None,
            due_at: None,
            evidence: None,
            priority: ActionItemPriority::Medium,
        })
        .collect();
    let items = analysis.action_items.iter().map(|i| i.id).collect();
    callscope_store::testing::store_call(store.as_ref(), project, &call).await;
    (project, call.id, items)
}

/// Clients deleting several items of one call at the same moment all succeed (on PostgreSQL,
/// none is chosen as a deadlock victim), and the items left are numbered 0, 1, … in order.
async fn deleting_a_calls_items_at_once_keeps_the_rest_numbered(backend: Backend) {
    let (_db, store, _) = open(backend).await;
    let (project, _, items) = call_with_items(&store, 24).await;
    // Every other item, all at once, from the back and the front alike.
    let doomed: Vec<_> = items.iter().copied().step_by(2).collect();
    let deletes: Vec<_> = doomed
        .iter()
        .map(|&id| {
            let store = store.clone();
            tokio::spawn(async move { store.delete_action_item(project, id).await })
        })
        .collect();
    for delete in deletes {
        delete.await.unwrap().expect("every delete succeeds");
    }
    let mut left = Vec::new();
    for id in items.iter().skip(1).step_by(2) {
        left.push(store.get_action_item(project, *id).await.unwrap().transcript_index);
    }
    assert_eq!(left, (0..12).collect::<Vec<i32>>(), "the survivors keep their order, numbered from 0");
}

/// Activating templates (or making presets the default) at the same moment leaves exactly one
/// active (or default) and refuses none: each step-down waits for the other's.
async fn one_active_template_and_one_default_preset_even_when_raced(backend: Backend) {
    use callscope_domain::{PresetInput, TemplateInput};

    let (_db, store, _) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let key = store.create_api_key(org.id, "ci", &KeyDigest::of("k")).await.unwrap().unwrap();
    let project = store.create_project(org.id, &new_project("Support")).await.unwrap().id;
    let mut templates = Vec::new();
    let mut presets = Vec::new();
    for i in 0..8 {
        let template = TemplateInput { name: format!("t{i}"), description: None, is_active: None, fields: Vec::new() };
        templates.push(store.create_template(project, key.id, &template).await.unwrap().id);
        let preset = PresetInput { name: Some(format!("p{i}")), speakers: Some(vec!["Agent".into()]) };
        presets.push(store.create_preset(project, &preset).await.unwrap().id);
    }
    for round in 0..3 {
        let raced: Vec<_> = templates
            .iter()
            .zip(&presets)
            .map(|(&template, &preset)| {
                let store = store.clone();
                tokio::spawn(async move {
                    store.set_template_active(project, template, true).await.map(|_| ())?;
                    store.set_default_preset(project, preset).await.map(|_| ())
                })
            })
            .collect();
        for outcome in raced {
            outcome.await.unwrap().unwrap_or_else(|e| panic!("round {round}: {e}"));
        }
        let active = store.list_templates(project).await.unwrap().iter().filter(|t| t.is_active).count();
        let defaults = store.list_presets(project).await.unwrap().iter().filter(|p| p.is_default).count();
        assert_eq!((active, defaults), (1, 1), "round {round}");
    }
}

both_backends!(action_item_lists_agree_with_every_item_after_changes_made_elsewhere);

/// Each list page and total is exactly what filtering and sorting every stored item gives, and
/// stays so while another store over the same database (another process) changes, adds and
/// deletes items: each process answers lists from its own index in memory, which must follow.
async fn action_item_lists_agree_with_every_item_after_changes_made_elsewhere(backend: Backend) {
    use callscope_domain::ActionItem;
    use callscope_store::{ActionItemPatch, ActionItemQuery, ActionItemSort};

    let (db, store, clock) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let project = store.create_project(org.id, &new_project("items")).await.unwrap().id;
    let start = clock.now();
    let mut ids = Vec::new();
    for c in 0..30 {
        clock.advance(TimeDelta::seconds(1));
        let mut call = new_call();
        call.filename = format!("call-{c}.wav");
        // Call dates run the other way from creation, so the two sort keys differ.
        call.recorded_at = Some(start - TimeDelta::days(c));
        let analysis = call.analysis.as_mut().unwrap();
        analysis.action_items = (0..100)
            .map(|i| callscope_domain::NewActionItem {
                id: callscope_domain::ActionItemId::new(),
                description: format!("task {i}: {}", if i % 7 == 0 { "send the INVOICE" } else { "call back" }),
                responsible_party: Some(if i % 5 == 0 { "Łukasz".into() } else { "agent".into() }),
                deadline_mentioned: None,
                due_at: None,
                evidence: None,
                priority: ActionItemPriority::ALL[(i + c as usize) % 3],
            })
            .collect();
        ids.extend(analysis.action_items.iter().map(|i| i.id));
        callscope_store::testing::store_call(store.as_ref(), project, &call).await;
    }
    let read_all = |ids: Vec<callscope_domain::ActionItemId>| {
        let store = store.clone();
        async move {
            let mut all: Vec<ActionItem> = Vec::new();
            for id in ids {
                if let Ok(item) = store.get_action_item(project, id).await {
                    all.push(item);
                }
            }
            all
        }
    };
    let all = read_all(ids.clone()).await;
    let rank = |p: &str| ["LOW", "MEDIUM", "HIGH"].iter().position(|x| *x == p).unwrap();
    let status_rank = |p: &str| ["PENDING", "IN_PROGRESS", "DONE", "CANCELLED"].iter().position(|x| *x == p).unwrap();
    let expect = |all: &[ActionItem], q: &ActionItemQuery, now| -> (Vec<callscope_domain::ActionItemId>, u64, [u64; 5]) {
        let mut hits: Vec<&ActionItem> = all
            .iter()
            .filter(|i| q.priorities.is_empty() || q.priorities.contains(&i.priority))
            .filter(|i| q.responsible_party.as_ref().is_none_or(|p| i.responsible_party.as_ref().map(|r| r.to_lowercase()) == Some(p.to_lowercase())))
            .filter(|i| q.from.is_none_or(|f| i.call_date >= f) && q.to.is_none_or(|t| i.call_date <= t))
            .filter(|i| {
                q.search.as_ref().is_none_or(|s| {
                    let s = s.to_lowercase();
                    i.description.to_lowercase().contains(&s)
                        || i.call_filename.contains(&s)
                        || i.notes.as_ref().is_some_and(|n| n.to_lowercase().contains(&s))
                })
            })
            .collect();
        // Per status, then overdue: open and due before now.
        let mut per_status = [0u64; 5];
        for hit in &hits {
            per_status[status_rank(hit.status.as_str())] += 1;
            if status_rank(hit.status.as_str()) < 2 && hit.due_at.is_some_and(|d| d < now) {
                per_status[4] += 1;
            }
        }
        hits.retain(|i| q.statuses.is_empty() || q.statuses.contains(&i.status));
        hits.sort_by(|a, b| {
            let order = match q.sort {
                ActionItemSort::CreatedAt => a.created_at.cmp(&b.created_at),
                ActionItemSort::CallDate => a.call_date.cmp(&b.call_date),
                ActionItemSort::Priority => rank(a.priority.as_str()).cmp(&rank(b.priority.as_str())),
                ActionItemSort::Status => status_rank(a.status.as_str()).cmp(&status_rank(b.status.as_str())),
            }
            .then(a.id.0.cmp(&b.id.0));
            if q.descending {
                order.reverse()
            } else {
                order
            }
        });
        let total = hits.len() as u64;
        let skip = (q.page * q.page_size) as usize;
        (hits.into_iter().skip(skip).take(q.page_size as usize).map(|i| i.id).collect(), total, per_status)
    };
    let query = |sort, descending, page, page_size| ActionItemQuery { sort, descending, page, page_size, ..Default::default() };
    let day = |d: i64| Some(start - TimeDelta::days(d));
    let cases = [
        ("every item (many)", query(ActionItemSort::CreatedAt, true, 0, 50)),
        ("every item, deep page", query(ActionItemSort::CreatedAt, false, 29, 100)),
        ("wide dates (many)", ActionItemQuery { from: day(400), to: day(-400), ..query(ActionItemSort::Priority, true, 5, 100) }),
        (
            "wide dates and a priority (few)",
            ActionItemQuery {
                from: day(400),
                to: day(-400),
                priorities: vec![ActionItemPriority::High],
                ..query(ActionItemSort::CreatedAt, true, 2, 100)
            },
        ),
        ("narrow dates", ActionItemQuery { from: day(12), to: day(10), ..query(ActionItemSort::CreatedAt, false, 1, 100) }),
        ("rare text (few)", ActionItemQuery { search: Some("invoice".into()), ..query(ActionItemSort::CallDate, true, 1, 100) }),
        ("common text (many)", ActionItemQuery { search: Some("call back".into()), ..query(ActionItemSort::Status, false, 20, 100) }),
        (
            "common text and wide dates (many)",
            ActionItemQuery { search: Some("call".into()), from: day(400), to: day(-400), ..query(ActionItemSort::CreatedAt, true, 3, 100) },
        ),
        ("a file name", ActionItemQuery { search: Some("CALL-17.".into()), ..query(ActionItemSort::CreatedAt, true, 0, 500) }),
        ("a party", ActionItemQuery { responsible_party: Some("łukasz".into()), ..query(ActionItemSort::CallDate, false, 2, 100) }),
        ("no match", ActionItemQuery { search: Some("xylophone".into()), ..query(ActionItemSort::CreatedAt, true, 0, 50) }),
        ("past the end", query(ActionItemSort::CreatedAt, true, 60, 50)),
        (
            "two statuses",
            ActionItemQuery { statuses: vec![ActionItemStatus::InProgress, ActionItemStatus::Done], ..query(ActionItemSort::Status, true, 0, 100) },
        ),
    ];
    let check = |all: Vec<ActionItem>, round: &'static str| {
        let store = store.clone();
        let cases = cases.clone();
        let now = clock.now();
        async move {
            for (name, q) in cases {
                let (want, total, per_status) = expect(&all, &q, now);
                let got = store.list_action_items(project, &q, now).await.unwrap();
                assert_eq!(got.total, total, "{round}, {name}: total");
                assert_eq!([got.pending, got.in_progress, got.done, got.cancelled, got.overdue], per_status, "{round}, {name}: counters");
                assert_eq!(got.items.iter().map(|i| i.id).collect::<Vec<_>>(), want, "{round}, {name}: page");
            }
        }
    };
    check(all, "as stored").await;

    // Another process changes items, deletes some and stores a call with new ones.
    let other = connect(&StoreOptions { url: db.url().to_owned(), max_connections: 2 }, clock.clone()).await.unwrap();
    for (n, id) in ids.iter().enumerate().step_by(37) {
        clock.advance(TimeDelta::milliseconds(5));
        let patch = ActionItemPatch {
            status: Some([ActionItemStatus::InProgress, ActionItemStatus::Done, ActionItemStatus::Cancelled][n % 3]),
            priority: (n % 2 == 0).then_some(ActionItemPriority::High),
            description: (n % 4 == 0).then(|| format!("now about the invoice {n}")),
            notes: Some(format!("zażółć {n}.")),
            // Past due: overdue while open.
            due_at: (n % 2 == 0).then(|| start - TimeDelta::days(1)),
            ..ActionItemPatch::default()
        };
        other.update_action_item(project, *id, &patch).await.unwrap();
    }
    for id in ids.iter().skip(5).step_by(101) {
        other.delete_action_item(project, *id).await.unwrap();
    }
    let mut extra = new_call();
    extra.filename = "call-extra.wav".into();
    extra.recorded_at = Some(start - TimeDelta::days(11));
    ids.extend(extra.analysis.as_ref().unwrap().action_items.iter().map(|i| i.id));
    callscope_store::testing::store_call(other.as_ref(), project, &extra).await;
    let all = read_all(ids.clone()).await;
    assert!(all.len() > 2900 && all.len() < 3002, "some items were deleted: {}", all.len());
    check(all, "after changes elsewhere").await;

    // Notes written elsewhere are searchable here, and an erased call's items are gone.
    let found = store
        .list_action_items(project, &ActionItemQuery { search: Some("ZAŻÓŁĆ 74.".into()), page_size: 10, ..Default::default() }, clock.now())
        .await
        .unwrap();
    assert_eq!(found.items.iter().map(|i| i.id).collect::<Vec<_>>(), vec![ids[74]]);
    let extra_call = other.get_action_item(project, *ids.last().unwrap()).await.unwrap().call_id;
    other.delete_call(project, extra_call).await.unwrap();
    let all = read_all(ids.clone()).await;
    check(all, "after a call was erased elsewhere").await;
}

async fn deleting_a_category_takes_it_out_of_every_call_that_names_it(backend: Backend) {
    use callscope_domain::NewCategory;
    let (_db, store, clock) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let project = store.create_project(org.id, &new_project("p")).await.unwrap();
    let category = |name: &str, parent| NewCategory::parse(name, None, parent, None).unwrap();
    let billing = store.create_category(project.id, &category("Billing", None)).await.unwrap();
    let refunds = store.create_category(project.id, &category("Refunds", Some(billing.id))).await.unwrap();
    let outages = store.create_category(project.id, &category("Outages", None)).await.unwrap();
    store.create_job(project.id, &new_job("aa")).await.unwrap();
    let job = store.claim_job("worker-a", std::time::Duration::from_secs(30)).await.unwrap().unwrap();
    let call = new_call();
    assert!(store.complete_job(job.id, "worker-a", &call, &[]).await.unwrap());
    let matched = |c: &callscope_domain::Category, path: &[&callscope_domain::Category]| callscope_domain::CategoryMatch {
        category_id: c.id,
        category_path: path.iter().map(|p| p.id).collect(),
        category_names: path.iter().map(|p| p.name.clone()).collect(),
        confidence: 1.0,
        evidence: String::new(),
        depth: u32::try_from(path.len() - 1).unwrap(),
    };
    let classified = |primary, secondary, overall_confidence| callscope_domain::Classification {
        primary: Some(primary),
        secondary,
        overall_confidence,
        reasoning: String::new(),
        model_used: "rules".into(),
    };
    // Set by hand to the leaf, with the leaf's parent and another root among the secondary matches.
    let classification =
        classified(matched(&refunds, &[&billing, &refunds]), vec![matched(&outages, &[&outages]), matched(&billing, &[&billing])], 1.0);
    store.set_call_category(project.id, call.id, Some(refunds.id), Some(&classification)).await.unwrap();
    let before = store.changed_calls((chrono::DateTime::UNIX_EPOCH, callscope_domain::CallId(uuid::Uuid::nil())), 10).await.unwrap();

    clock.advance(TimeDelta::seconds(5));
    store.delete_category(project.id, billing.id).await.unwrap();
    let analysis = store.get_call_analysis(project.id, call.id).await.unwrap();
    assert_eq!(analysis.primary_category, None, "the call is uncategorized");
    let left = analysis.classification.expect("the classification stays, without the deleted matches");
    assert_eq!(left.primary, None, "no primary match names a deleted category: {left:?}");
    assert_eq!(left.secondary, [matched(&outages, &[&outages])]);
    assert_eq!(left.overall_confidence, 0.0);
    let events = store.list_events(project.id).await.unwrap();
    let last = events.last().unwrap();
    assert_eq!(last.0, "call.category_changed");
    assert_eq!(last.1, serde_json::json!({"callId": call.id, "previousCategoryId": refunds.id, "categoryId": null}));
    let after = store.changed_calls((chrono::DateTime::UNIX_EPOCH, callscope_domain::CallId(uuid::Uuid::nil())), 10).await.unwrap();
    assert_eq!(after.len(), 1);
    assert!(after[0].1 > before[0].1, "the call changed, so the search index reads it again");

    // The choice made by hand is gone, so re-analysis classifies the call again; a category
    // deleted while the analysis ran is not stored.
    let job = store.create_reanalysis_job(project.id, call.id, None).await.unwrap();
    let claimed = store.claim_job("worker-a", std::time::Duration::from_secs(30)).await.unwrap().unwrap();
    assert_eq!(claimed.id, job.id);
    let record = callscope_store::CallAnalysisRecord {
        title: None,
        sentiment_level: SentimentLevel::Neutral,
        sentiment_confidence: None,
        primary_category: Some(outages.id),
        classification: Some(classified(matched(&outages, &[&outages]), vec![matched(&billing, &[&billing])], 0.7)),
        summary: None,
        template_analysis: None,
        action_items: Vec::new(),
    };
    assert!(store.complete_reanalysis(job.id, "worker-a", &record, &[]).await.unwrap());
    let analysis = store.get_call_analysis(project.id, call.id).await.unwrap();
    assert_eq!(analysis.primary_category, Some(outages.id), "no longer held by the deleted choice");
    let reclassified = analysis.classification.unwrap();
    assert_eq!(reclassified.primary.map(|p| p.category_id), Some(outages.id));
    assert_eq!(reclassified.secondary, [], "Billing was deleted before the analysis was stored");

    // Deleting the new primary category: uncategorized again, with its event.
    clock.advance(TimeDelta::seconds(5));
    store.delete_category(project.id, outages.id).await.unwrap();
    let analysis = store.get_call_analysis(project.id, call.id).await.unwrap();
    assert_eq!((analysis.primary_category, analysis.classification.unwrap().primary), (None, None));
    let last = store.list_events(project.id).await.unwrap().pop().unwrap();
    assert_eq!(last.1, serde_json::json!({"callId": call.id, "previousCategoryId": outages.id, "categoryId": null}));

    // Clearing the whole tree does the same for every call that names any category.
    let support = store.create_category(project.id, &category("Support", None)).await.unwrap();
    let classification = classified(matched(&support, &[&support]), Vec::new(), 0.8);
    store.set_call_category(project.id, call.id, Some(support.id), Some(&classification)).await.unwrap();
    store.clear_categories(project.id).await.unwrap();
    let analysis = store.get_call_analysis(project.id, call.id).await.unwrap();
    assert_eq!(analysis.primary_category, None);
    assert_eq!(analysis.classification, None, "a project without categories classifies nothing");
    let last = store.list_events(project.id).await.unwrap().pop().unwrap();
    assert_eq!(last.1, serde_json::json!({"callId": call.id, "previousCategoryId": support.id, "categoryId": null}));
}

both_backends!(rules_are_kept_per_project_and_their_matches_raise_an_event_once);

async fn rules_are_kept_per_project_and_their_matches_raise_an_event_once(backend: Backend) {
    use callscope_domain::{Party, Require, RuleCondition, RuleEvidence, RuleInput, RuleMatch};
    use callscope_store::testing::{store_call, text_call};
    use callscope_store::{CallFilter, Rejection};
    let (_db, store, _clock) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let project = store.create_project(org.id, &new_project("p")).await.unwrap();
    let other = store.create_project(org.id, &new_project("q")).await.unwrap();
    let input = |name: &str| RuleInput {
        name: name.into(),
        description: String::new(),
        enabled: true,
        require: Require::All,
        conditions: vec![RuleCondition::Phrase { phrases: vec!["manager".into()], said: true, by: Party::Any, window: None }],
    };
    let escalation = store.create_rule(project.id, &input("Escalation")).await.unwrap();
    assert_eq!(store.get_rule(project.id, escalation.id).await.unwrap(), escalation);
    assert!(matches!(store.get_rule(other.id, escalation.id).await, Err(StoreError::NotFound(_))), "another project's");
    assert!(matches!(store.create_rule(project.id, &input(" escalation")).await, Err(StoreError::Rejected(Rejection::DuplicateRule))));
    store.create_rule(other.id, &input("Escalation")).await.expect("the same name in another project");
    let refund = store.create_rule(project.id, &input("Refund")).await.unwrap();
    assert!(matches!(store.replace_rule(project.id, refund.id, &input("ESCALATION")).await, Err(StoreError::Rejected(Rejection::DuplicateRule))));
    let renamed = store.replace_rule(project.id, refund.id, &input("Refunds")).await.unwrap();
    assert_eq!((renamed.input.name.as_str(), renamed.created_at), ("Refunds", refund.created_at));
    let names: Vec<String> = store.list_rules(project.id).await.unwrap().into_iter().map(|r| r.input.name).collect();
    assert_eq!(names, ["Escalation", "Refunds"]);

    let call = store_call(store.as_ref(), project.id, &text_call(Language::En, "t", "Get me your manager.", "s")).await;
    let quiet = store_call(store.as_ref(), project.id, &text_call(Language::En, "u", "Thanks.", "s")).await;
    let found = RuleMatch {
        rule_id: escalation.id,
        label: "Escalation".into(),
        evidence: vec![RuleEvidence { at_ms: 0, text: "Get me your manager.".into() }],
    };
    let evaluated = [escalation.id, refund.id];
    assert_eq!(store.set_rule_matches(project.id, call, &evaluated, std::slice::from_ref(&found)).await.unwrap(), std::slice::from_ref(&found));
    assert_eq!(store.set_rule_matches(project.id, call, &evaluated, std::slice::from_ref(&found)).await.unwrap(), [], "matched already");
    assert!(matches!(store.set_rule_matches(other.id, call, &evaluated, &[]).await, Err(StoreError::NotFound(_))), "another project's call");
    let events = store.list_events(project.id).await.unwrap();
    let matched: Vec<_> = events.iter().filter(|(kind, _)| kind == "call.rule_matched").collect();
    assert_eq!(matched.len(), 1, "one event for the new match");
    assert_eq!(matched[0].1["label"], "Escalation");
    assert_eq!(matched[0].1["callId"], call.0.to_string());
    assert_eq!(matched[0].1["evidence"][0]["text"], "Get me your manager.");
    assert_eq!(store.call_rule_matches(project.id, call).await.unwrap(), std::slice::from_ref(&found));

    let by_rule = |rule| CallFilter { rule: Some(rule), ..CallFilter::default() };
    let listed = store.list_calls(project.id, &by_rule(escalation.id), PageRequest { page: 1, page_size: 10 }).await.unwrap();
    assert_eq!(listed.items.iter().map(|c| c.id).collect::<Vec<_>>(), [call]);
    assert_eq!(listed.items[0].rule_labels, ["Escalation"]);
    let both = RuleMatch { rule_id: refund.id, label: "Refunds; more".into(), evidence: Vec::new() };
    store.set_rule_matches(project.id, call, &[refund.id], std::slice::from_ref(&both)).await.unwrap();
    let summary = store.get_call_summary(project.id, call).await.unwrap();
    assert_eq!(summary.rule_labels, ["Escalation", "Refunds; more"], "in order, whatever a label holds");
    store.set_rule_matches(project.id, call, &evaluated, &[]).await.unwrap();
    assert_eq!(store.call_rule_matches(project.id, call).await.unwrap(), [], "both rules evaluated, neither matched");
    store.set_rule_matches(project.id, call, &evaluated, std::slice::from_ref(&found)).await.unwrap();
    store.set_rule_matches(project.id, call, &[refund.id], &[]).await.unwrap();
    assert!(store.get_call_summary(project.id, quiet).await.unwrap().rule_labels.is_empty());
    assert_eq!(store.list_calls(project.id, &by_rule(refund.id), PageRequest { page: 1, page_size: 10 }).await.unwrap().total, 0);
    assert_eq!(store.call_rule_matches(project.id, quiet).await.unwrap(), []);

    // Evaluating only the other rule leaves this match; evaluating it again without a match
    // takes it away.
    store.set_rule_matches(project.id, call, &[refund.id], &[]).await.unwrap();
    assert_eq!(store.call_rule_matches(project.id, call).await.unwrap().len(), 1);
    store.set_rule_matches(project.id, call, &[escalation.id], &[]).await.unwrap();
    assert_eq!(store.call_rule_matches(project.id, call).await.unwrap(), []);
    // A rule deleted takes its matches with it; a match of a deleted rule is not stored.
    store.set_rule_matches(project.id, call, &[escalation.id], std::slice::from_ref(&found)).await.unwrap();
    store.delete_rule(project.id, escalation.id).await.unwrap();
    assert_eq!(store.call_rule_matches(project.id, call).await.unwrap(), []);
    assert_eq!(store.set_rule_matches(project.id, call, &[escalation.id], &[found]).await.unwrap(), []);
    assert!(matches!(store.delete_rule(project.id, escalation.id).await, Err(StoreError::NotFound(_))));
    // Erasing a call takes its matches.
    let refund_match = RuleMatch { rule_id: refund.id, label: "Refunds".into(), evidence: Vec::new() };
    store.set_rule_matches(project.id, quiet, &[refund.id], &[refund_match]).await.unwrap();
    store.delete_call(project.id, quiet).await.unwrap();
    assert_eq!(store.list_calls(project.id, &by_rule(refund.id), PageRequest { page: 1, page_size: 10 }).await.unwrap().total, 0);

    // At most so many rules a project.
    for i in 1..callscope_domain::RULES_PER_PROJECT_MAX {
        store.create_rule(other.id, &input(&format!("rule {i}"))).await.unwrap();
    }
    assert!(matches!(store.create_rule(other.id, &input("one more")).await, Err(StoreError::Rejected(Rejection::TooManyRules))));
}
