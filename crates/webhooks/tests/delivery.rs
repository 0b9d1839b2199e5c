//! Deliveries against a real HTTPS receiver on loopback, on both databases: signatures checked
//! by an independent verifier, retries, failures in words, addresses refused at delivery time,
//! and dispatchers that stop or run side by side.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use callscope_domain::{Clock, DeliveryStatus, NewProject, ProjectId, SystemClock, WebhookDelivery};
use callscope_store::testing::TestDatabase;
use callscope_store::{both_backends, connect, Backend, ClaimLimits, DeliveryAttempt, Store, StoreOptions};
use callscope_webhooks::testing::{raise_event, verify_independently, Receiver, Reply};
use callscope_webhooks::{Dispatcher, DispatcherSettings, Resolve, RetrySchedule, Sender, SenderSettings};

struct Setup {
    _db: TestDatabase,
    store: Arc<dyn Store>,
    project: ProjectId,
}

async fn setup(backend: Backend) -> Setup {
    let db = TestDatabase::new(backend).await;
    let store = connect(&StoreOptions { url: db.url().to_owned(), max_connections: 8 }, Arc::new(SystemClock)).await.expect("connect");
    store.migrate().await.expect("migrate");
    let org = store.create_organization("acme").await.unwrap();
    let project = store.create_project(org.id, &NewProject::parse("hooks", None, None, None).unwrap()).await.unwrap().id;
    Setup { _db: db, store, project }
}

fn sender(receiver: &Receiver, timeout: Duration, allow_private: bool, resolver: Option<Box<dyn Resolve>>) -> Arc<Sender> {
    let settings = SenderSettings { timeout, allow_private, extra_roots_pem: Some(receiver.ca_pem().as_bytes().to_vec()) };
    Arc::new(match resolver {
        Some(resolver) => Sender::with_resolver(settings, resolver).unwrap(),
        None => Sender::new(settings).unwrap(),
    })
}

fn dispatcher(store: &Arc<dyn Store>, sender: Arc<Sender>, retries: &str, lease: Duration) -> Dispatcher {
    let settings = DispatcherSettings {
        retries: RetrySchedule::parse(retries).unwrap(),
        poll_interval: Duration::from_millis(20),
        batch: 16,
        per_endpoint: 4,
        lease,
    };
    Dispatcher::new(store.clone(), Arc::new(SystemClock), sender, settings)
}

async fn only_delivery(s: &Setup, webhook: callscope_domain::WebhookId) -> WebhookDelivery {
    let deliveries = s.store.list_deliveries(s.project, webhook, 100).await.unwrap();
    assert_eq!(deliveries.len(), 1, "{deliveries:?}");
    deliveries.into_iter().next().unwrap()
}

async fn wait_until(s: &Setup, webhook: callscope_domain::WebhookId, done: impl Fn(&[WebhookDelivery]) -> bool) -> Vec<WebhookDelivery> {
    for _ in 0..500 {
        let deliveries = s.store.list_deliveries(s.project, webhook, 100).await.unwrap();
        if done(&deliveries) {
            return deliveries;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("deliveries did not get there: {:?}", s.store.list_deliveries(s.project, webhook, 100).await.unwrap());
}

/// Host names the test decides: for addresses the system resolver would never give.
struct Table(Vec<(&'static str, Vec<IpAddr>)>);

impl Resolve for Table {
    fn resolve<'a>(
        &'a self,
        host: &'a str,
        _port: u16,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = std::io::Result<Vec<IpAddr>>> + Send + 'a>> {
        let found = self.0.iter().find(|(name, _)| *name == host).map(|(_, a)| a.clone());
        Box::pin(async move { found.ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "unknown host")) })
    }
}

both_backends!(
    a_delivery_is_signed_and_an_independent_verifier_accepts_it,
    a_500_is_retried_on_the_schedule_until_it_succeeds,
    timeouts_refusals_and_redirects_fail_in_words_until_given_up,
    a_dispatcher_that_dies_between_attempts_loses_nothing_and_sends_nothing_twice,
    addresses_that_are_not_public_are_refused_at_delivery_time,
    paused_webhooks_get_nothing_raised_while_paused_and_redelivery_sends_again,
    a_redelivery_asked_during_an_attempt_is_not_undone_by_it,
    a_dead_endpoint_holds_its_own_slots_and_delays_no_one_else,
);

async fn a_delivery_is_signed_and_an_independent_verifier_accepts_it(backend: Backend) {
    let s = setup(backend).await;
    let receiver = Receiver::start().await;
    let secret = callscope_domain::generate_secret();
    let hook = s.store.create_webhook(s.project, &receiver.url("localhost"), &["call.failed".into()], &secret).await.unwrap();
    let other = s.store.create_webhook(s.project, &receiver.url("localhost"), &["action_item.created".into()], &secret).await.unwrap();
    raise_event(s.store.as_ref(), s.project, 1).await;
    assert!(s.store.list_deliveries(s.project, other.id, 100).await.unwrap().is_empty(), "not subscribed: no delivery");

    let queued = only_delivery(&s, hook.id).await;
    assert_eq!((queued.status.as_str(), queued.attempts, queued.event_type.as_str()), ("PENDING", 0, "call.failed"));
    let d = dispatcher(&s.store, sender(&receiver, Duration::from_secs(10), true, None), "5s", Duration::from_secs(60));
    assert_eq!(d.run_once().await.unwrap(), 1);
    assert_eq!(d.run_once().await.unwrap(), 0, "a delivered event is not sent again");

    let got = receiver.received();
    assert_eq!(got.len(), 1);
    let request = &got[0];
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/hook"));
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("webhook-id"), Some(queued.event_id.to_string().as_str()));
    let timestamp: i64 = request.header("webhook-timestamp").unwrap().parse().unwrap();
    assert!((SystemClock.now().timestamp() - timestamp).abs() < 30);
    assert!(request.header("webhook-signature").unwrap().starts_with("v1,"));
    let body = request.json();
    assert_eq!(body["id"], queued.event_id.to_string());
    assert_eq!(body["type"], "call.failed");
    assert_eq!(body["projectId"], s.project.0.to_string());
    assert_eq!(body["data"]["originalFilename"], "call-1.wav");
    assert!(body["createdAt"].as_str().unwrap().ends_with('Z'));

    verify_independently(&secret, &got).expect("standardwebhooks verifies our signature");
    let mut tampered = got.clone();
    tampered[0].body = br#"{"tampered": true}"#.to_vec();
    assert!(verify_independently(&secret, &tampered).is_err(), "the verifier does check the body");
    assert!(verify_independently(&callscope_domain::generate_secret(), &got).is_err(), "and the secret");

    let done = only_delivery(&s, hook.id).await;
    assert_eq!((done.status.as_str(), done.attempts, done.response_code), ("SUCCEEDED", 1, Some(200)));
    assert_eq!((done.error_message, done.next_attempt_at), (None, None));
    assert!(done.last_attempt_at.is_some());
}

async fn a_500_is_retried_on_the_schedule_until_it_succeeds(backend: Backend) {
    let s = setup(backend).await;
    let receiver = Receiver::start().await;
    receiver.reply_with([Reply::Status(500), Reply::Status(503)]);
    let secret = callscope_domain::generate_secret();
    let hook = s.store.create_webhook(s.project, &receiver.url("localhost"), &["*".into()], &secret).await.unwrap();
    raise_event(s.store.as_ref(), s.project, 1).await;
    let d = dispatcher(&s.store, sender(&receiver, Duration::from_secs(10), true, None), "300ms,300ms", Duration::from_secs(60));

    d.run_once().await.unwrap();
    let first = only_delivery(&s, hook.id).await;
    assert_eq!((first.status.as_str(), first.attempts, first.response_code), ("RETRYING", 1, Some(500)));
    assert_eq!(first.error_message.as_deref(), Some("HTTP 500"));
    let wait = first.next_attempt_at.unwrap() - first.last_attempt_at.unwrap();
    assert_eq!(wait, chrono::TimeDelta::milliseconds(300), "the first delay of the schedule");
    assert_eq!(d.run_once().await.unwrap(), 0, "not before its time");

    tokio::time::sleep(Duration::from_millis(350)).await;
    d.run_once().await.unwrap();
    let second = only_delivery(&s, hook.id).await;
    assert_eq!((second.status.as_str(), second.attempts, second.error_message.as_deref()), ("RETRYING", 2, Some("HTTP 503")));

    tokio::time::sleep(Duration::from_millis(350)).await;
    d.run_once().await.unwrap();
    let done = only_delivery(&s, hook.id).await;
    assert_eq!((done.status.as_str(), done.attempts, done.response_code, done.error_message), ("SUCCEEDED", 3, Some(200), None));
    let got = receiver.received();
    assert_eq!(got.len(), 3);
    assert!(got.iter().all(|r| r.header("webhook-id") == got[0].header("webhook-id")), "every attempt has the event's id");
    verify_independently(&secret, &got).expect("every attempt is signed");
}

async fn timeouts_refusals_and_redirects_fail_in_words_until_given_up(backend: Backend) {
    let s = setup(backend).await;
    let receiver = Receiver::start().await;
    receiver.reply_with([Reply::Slow(Duration::from_secs(3)), Reply::Redirect("https://localhost:1/elsewhere".into())]);
    let secret = callscope_domain::generate_secret();
    let slow = s.store.create_webhook(s.project, &receiver.url("localhost"), &["call.failed".into()], &secret).await.unwrap();
    let refused_port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let refused_url = format!("https://127.0.0.1:{refused_port}/hook");
    let refused = s.store.create_webhook(s.project, &refused_url, &["call.failed".into()], &secret).await.unwrap();
    raise_event(s.store.as_ref(), s.project, 1).await;
    let d = dispatcher(&s.store, sender(&receiver, Duration::from_millis(500), true, None), "100ms", Duration::from_secs(60));

    d.run_once().await.unwrap();
    let timed_out = only_delivery(&s, slow.id).await;
    assert_eq!((timed_out.status.as_str(), timed_out.response_code), ("RETRYING", None));
    assert_eq!(timed_out.error_message.as_deref(), Some("timed out after 500 ms"));
    let no_one = only_delivery(&s, refused.id).await;
    assert_eq!(no_one.error_message.as_deref(), Some("connection refused"));

    tokio::time::sleep(Duration::from_millis(150)).await;
    d.run_once().await.unwrap();
    let redirected = only_delivery(&s, slow.id).await;
    assert_eq!((redirected.status.as_str(), redirected.attempts, redirected.response_code), ("FAILED", 2, Some(302)));
    assert_eq!(redirected.error_message.as_deref(), Some("HTTP 302 (redirects are not followed)"));
    assert_eq!(receiver.received().len(), 2, "the redirect was not followed");
    let gave_up = only_delivery(&s, refused.id).await;
    assert_eq!((gave_up.status.as_str(), gave_up.attempts, gave_up.next_attempt_at), ("FAILED", 2, None));
    assert_eq!(d.run_once().await.unwrap(), 0, "given up: no more attempts");
}

async fn a_dispatcher_that_dies_between_attempts_loses_nothing_and_sends_nothing_twice(backend: Backend) {
    let s = setup(backend).await;
    let receiver = Receiver::start().await;
    receiver.reply_with([Reply::Status(500)]);
    let secret = callscope_domain::generate_secret();
    let hook = s.store.create_webhook(s.project, &receiver.url("localhost"), &["*".into()], &secret).await.unwrap();
    let send = sender(&receiver, Duration::from_secs(10), true, None);
    raise_event(s.store.as_ref(), s.project, 0).await;

    // The first dispatcher makes the first attempt (500) and dies before the retry.
    let (_stop, stopped) = tokio::sync::watch::channel(false);
    let first = tokio::spawn(dispatcher(&s.store, send.clone(), "400ms", Duration::from_secs(60)).run(stopped));
    wait_until(&s, hook.id, |d| d.iter().any(|d| d.status.as_str() == "RETRYING")).await;
    first.abort();
    let _ = first.await;
    // Events raised while no dispatcher runs wait in the database.
    for n in 1..=4 {
        raise_event(s.store.as_ref(), s.project, n).await;
    }
    // A process that took a delivery and died before sending it holds it only until its lease
    // runs out.
    let held = s.store.claim_deliveries("dead-process", Duration::from_millis(600), &ClaimLimits::total(1)).await.unwrap();
    assert_eq!(held.len(), 1);

    // Two dispatchers come back side by side.
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let a = tokio::spawn(dispatcher(&s.store, send.clone(), "400ms", Duration::from_secs(60)).run(stopped.clone()));
    let b = tokio::spawn(dispatcher(&s.store, send.clone(), "400ms", Duration::from_secs(60)).run(stopped));
    let deliveries = wait_until(&s, hook.id, |d| d.len() == 5 && d.iter().all(|d| d.status.as_str() == "SUCCEEDED")).await;
    stop.send(true).unwrap();
    a.await.unwrap();
    b.await.unwrap();

    let got = receiver.received();
    let ids: Vec<&str> = got.iter().map(|r| r.header("webhook-id").unwrap()).collect();
    assert_eq!(got.len(), 6, "one failed attempt and five deliveries: {ids:?}");
    let mut distinct = ids[1..].to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 5, "every event reached the receiver exactly once: {ids:?}");
    let retried = deliveries.iter().find(|d| d.attempts == 2).expect("the event of the first attempt");
    assert_eq!(retried.event_id.to_string(), ids[0]);
    assert_eq!(deliveries.iter().filter(|d| d.attempts == 1).count(), 4);
    verify_independently(&secret, &got).expect("all signed");
}

async fn addresses_that_are_not_public_are_refused_at_delivery_time(backend: Backend) {
    let s = setup(backend).await;
    let receiver = Receiver::start().await;
    let secret = callscope_domain::generate_secret();
    // Registered while the check was off (or while the name pointed elsewhere).
    let loopback = s.store.create_webhook(s.project, &receiver.url("127.0.0.1"), &["*".into()], &secret).await.unwrap();
    let rebound = s.store.create_webhook(s.project, "https://hooks.example.com/in", &["*".into()], &secret).await.unwrap();
    let mixed = s.store.create_webhook(s.project, "https://mixed.example.com/in", &["*".into()], &secret).await.unwrap();
    raise_event(s.store.as_ref(), s.project, 1).await;
    let table = Table(vec![
        ("hooks.example.com", vec!["10.0.0.5".parse().unwrap()]),
        ("mixed.example.com", vec!["93.184.216.34".parse().unwrap(), "169.254.169.254".parse().unwrap()]),
    ]);
    let d = dispatcher(&s.store, sender(&receiver, Duration::from_secs(10), false, Some(Box::new(table))), "5s", Duration::from_secs(60));
    d.run_once().await.unwrap();

    for (hook, message) in [
        (loopback.id, "address 127.0.0.1 is not public"),
        (rebound.id, "address 10.0.0.5 is not public"),
        (mixed.id, "address 169.254.169.254 is not public"),
    ] {
        let refused = only_delivery(&s, hook).await;
        assert_eq!((refused.status.as_str(), refused.attempts, refused.next_attempt_at), ("FAILED", 1, None), "not retried");
        assert_eq!(refused.error_message.as_deref(), Some(message));
    }
    assert!(receiver.received().is_empty(), "nothing reached the loopback receiver");

    // The connection goes to the address that was checked: `receiver.test` exists only in the
    // table, and the delivery still arrives. (The webhooks above go, with their deliveries.)
    for hook in [loopback.id, rebound.id, mixed.id] {
        s.store.delete_webhook(s.project, hook).await.unwrap();
        assert!(s.store.list_deliveries(s.project, hook, 100).await.is_err());
    }
    let named = s.store.create_webhook(s.project, &receiver.url("receiver.test"), &["*".into()], &secret).await.unwrap();
    raise_event(s.store.as_ref(), s.project, 2).await;
    let table = Table(vec![("receiver.test", vec!["127.0.0.1".parse().unwrap()])]);
    let d = dispatcher(&s.store, sender(&receiver, Duration::from_secs(10), true, Some(Box::new(table))), "5s", Duration::from_secs(60));
    d.run_once().await.unwrap();
    assert_eq!(only_delivery(&s, named.id).await.status.as_str(), "SUCCEEDED");
    assert_eq!(receiver.received().len(), 1);
}

async fn paused_webhooks_get_nothing_raised_while_paused_and_redelivery_sends_again(backend: Backend) {
    let s = setup(backend).await;
    let receiver = Receiver::start().await;
    let secret = callscope_domain::generate_secret();
    let hook = s.store.create_webhook(s.project, &receiver.url("localhost"), &["call.failed".into()], &secret).await.unwrap();
    raise_event(s.store.as_ref(), s.project, 1).await;
    assert!(!s.store.toggle_webhook(s.project, hook.id).await.unwrap().active);
    raise_event(s.store.as_ref(), s.project, 2).await;
    assert!(s.store.toggle_webhook(s.project, hook.id).await.unwrap().active);
    raise_event(s.store.as_ref(), s.project, 3).await;

    let d = dispatcher(&s.store, sender(&receiver, Duration::from_secs(10), true, None), "5s", Duration::from_secs(60));
    d.run_once().await.unwrap();
    let got = receiver.received();
    let files: Vec<String> = got.iter().map(|r| r.json()["data"]["originalFilename"].as_str().unwrap().to_owned()).collect();
    assert_eq!(files.len(), 2);
    assert!(files.contains(&"call-1.wav".into()) && files.contains(&"call-3.wav".into()), "the event raised while paused never goes out: {files:?}");

    // A test event goes to a paused webhook too, and only to it.
    let also = s.store.create_webhook(s.project, &receiver.url("localhost"), &["*".into()], &secret).await.unwrap();
    s.store.toggle_webhook(s.project, hook.id).await.unwrap();
    let test = s.store.create_test_delivery(s.project, hook.id, &serde_json::json!({"message": "hello"})).await.unwrap();
    assert_eq!((test.event_type.as_str(), test.status.as_str()), ("webhook.test", "PENDING"));
    assert!(s.store.list_deliveries(s.project, also.id, 100).await.unwrap().is_empty());
    d.run_once().await.unwrap();
    let got = receiver.wait_for(3, Duration::from_secs(5)).await;
    assert_eq!(got[2].json()["type"], "webhook.test");
    assert_eq!(got[2].json()["data"]["message"], "hello");

    // Redelivery sends a delivered event again, with the same id, and counts the attempt.
    let log = s.store.list_deliveries(s.project, hook.id, 100).await.unwrap();
    assert_eq!(log.len(), 3);
    assert_eq!(log[0].id, test.id, "most recent first");
    assert_eq!(s.store.list_deliveries(s.project, hook.id, 2).await.unwrap().len(), 2, "limit");
    let oldest = log.last().unwrap();
    let again = s.store.redeliver(s.project, hook.id, oldest.id).await.unwrap();
    assert_eq!((again.status.as_str(), again.attempts), ("PENDING", 1));
    d.run_once().await.unwrap();
    let got = receiver.wait_for(4, Duration::from_secs(5)).await;
    assert_eq!(got[3].header("webhook-id"), Some(oldest.event_id.to_string().as_str()));
    let after = s.store.list_deliveries(s.project, hook.id, 100).await.unwrap();
    let redelivered = after.iter().find(|d| d.id == oldest.id).unwrap();
    assert_eq!((redelivered.status.as_str(), redelivered.attempts), ("SUCCEEDED", 2));

    // Another project's webhook and delivery ids lead nowhere.
    let other = ProjectId::new();
    assert!(s.store.list_deliveries(other, hook.id, 100).await.is_err());
    assert!(s.store.redeliver(other, hook.id, oldest.id).await.is_err());
    assert!(s.store.redeliver(s.project, also.id, oldest.id).await.is_err(), "a delivery of another webhook");
    assert!(s.store.create_test_delivery(other, hook.id, &serde_json::json!({})).await.is_err());
}

/// A person asks for a delivery again while a dispatcher's attempt at it is in flight: the
/// attempt ending afterwards (here, giving up) does not undo the redelivery, which is due at
/// once and goes to the next dispatcher.
async fn a_redelivery_asked_during_an_attempt_is_not_undone_by_it(backend: Backend) {
    let s = setup(backend).await;
    let hook = s.store.create_webhook(s.project, "https://hooks.example.com/in", &["*".into()], &callscope_domain::generate_secret()).await.unwrap();
    let delivery = s.store.create_test_delivery(s.project, hook.id, &serde_json::json!({"message": "hello"})).await.unwrap();
    assert_eq!(s.store.claim_deliveries("dispatcher-a", Duration::from_secs(60), &ClaimLimits::total(10)).await.unwrap().len(), 1);

    let asked = s.store.redeliver(s.project, hook.id, delivery.id).await.unwrap();
    assert_eq!(asked.status, DeliveryStatus::Pending);
    let gave_up = DeliveryAttempt {
        status: DeliveryStatus::Failed,
        response_code: Some(500),
        error_message: Some("the receiver answered 500".into()),
        attempted_at: SystemClock.now(),
        next_attempt_at: None,
        retry_step: 1,
    };
    assert!(!s.store.finish_delivery(delivery.id, "dispatcher-a", &gave_up).await.unwrap(), "the redelivery superseded the attempt");
    let after = only_delivery(&s, hook.id).await;
    assert_eq!(after.status, DeliveryStatus::Pending);
    assert_eq!((after.attempts, after.response_code), (1, None), "the attempt counts, its outcome is not recorded");
    assert_eq!(s.store.claim_deliveries("dispatcher-b", Duration::from_secs(60), &ClaimLimits::total(10)).await.unwrap().len(), 1, "due now");
}

async fn a_dead_endpoint_holds_its_own_slots_and_delays_no_one_else(backend: Backend) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let s = setup(backend).await;
    let receiver = Receiver::start().await;
    // A dead endpoint: it takes connections and never answers, so each attempt waits out the
    // 1.5 s time-out. It counts the connections it holds at once.
    let dead = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let dead_url = format!("https://127.0.0.1:{}/hook", dead.local_addr().unwrap().port());
    let (open, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    tokio::spawn({
        let (open, most) = (open.clone(), most.clone());
        async move {
            while let Ok((mut socket, _)) = dead.accept().await {
                let now = open.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                let open = open.clone();
                tokio::spawn(async move {
                    let mut sink = [0u8; 1024];
                    while tokio::io::AsyncReadExt::read(&mut socket, &mut sink).await.is_ok_and(|n| n > 0) {}
                    open.fetch_sub(1, Ordering::SeqCst);
                });
            }
        }
    });
    let secret = callscope_domain::generate_secret();
    s.store.create_webhook(s.project, &dead_url, &["call.failed".into()], &secret).await.unwrap();
    for n in 0..10 {
        raise_event(s.store.as_ref(), s.project, n).await;
    }
    let settings = DispatcherSettings {
        retries: RetrySchedule::parse("1h").unwrap(),
        poll_interval: Duration::from_millis(20),
        batch: 16,
        per_endpoint: 2,
        lease: Duration::from_secs(60),
    };
    let d = Dispatcher::new(s.store.clone(), Arc::new(SystemClock), sender(&receiver, Duration::from_millis(1_500), true, None), settings);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let running = tokio::spawn(d.run(stopped));
    tokio::time::sleep(Duration::from_millis(300)).await;

    // Another organization's webhook, subscribed now: its delivery goes out at once, not after
    // the dead endpoint's attempts time out.
    let healthy = s.store.create_webhook(s.project, &receiver.url("localhost"), &["call.failed".into()], &secret).await.unwrap();
    raise_event(s.store.as_ref(), s.project, 10).await;
    let raised = std::time::Instant::now();
    receiver.wait_for(1, Duration::from_secs(10)).await;
    assert!(raised.elapsed() < Duration::from_millis(1_000), "delivered in {:?}, not held behind 1.5 s time-outs", raised.elapsed());
    wait_until(&s, healthy.id, |d| d.iter().all(|d| d.status == DeliveryStatus::Succeeded)).await;
    assert!(most.load(Ordering::SeqCst) <= 2, "the dead endpoint had {} attempts at once", most.load(Ordering::SeqCst));
    stop.send(true).unwrap();
    tokio::time::timeout(Duration::from_secs(10), running).await.expect("stops after the attempts under way").unwrap();
}
