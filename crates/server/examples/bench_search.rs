//! Search and list latency at scale (issues 8 and 9): loads synthetic calls (English and
//! Polish contact-centre transcripts of realistic length, one to three action items each) into
//! a SQLite database the way workers store them, builds the search index from it, starts the
//! real server on loopback and times `GET …/calls/search` over a mix of queries, `GET …/calls`
//! over pages and date bounds, and `GET …/action-items` over filters and sort keys.
//!
//!   cargo run --release --example bench_search -- [CALLS] [DIR]
//!
//! CALLS defaults to 100000. DIR (default: a temporary directory) keeps the data, so a second
//! run with the same DIR skips loading.

use std::sync::Arc;
use std::time::{Duration, Instant};

use callscope::{Application, Config};
use callscope_domain::{Language, NewProject, SystemClock};
use callscope_store::testing::{store_call, text_call};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const EN_TOPICS: &[&[&str]] = &[
    &[
        "I would like a refund for the {item} I ordered.",
        "The refund will reach your card within five working days.",
        "Could you confirm the refund amount of {amount} dollars?",
        "I have started the refund for order {order}.",
    ],
    &[
        "My parcel has not arrived yet.",
        "The courier says the delivery to {city} is delayed.",
        "We will send the parcel again by express delivery.",
        "Can you give me the tracking number for order {order}?",
    ],
    &[
        "There is a mistake on my invoice from {month}.",
        "I will correct the invoice and email it to you.",
        "The invoice shows {amount} dollars instead of the agreed price.",
        "Please send the corrected invoice to the billing address.",
    ],
    &[
        "I cannot log in, my password does not work.",
        "I have sent a password reset link to your email.",
        "Your account was locked after three failed attempts.",
        "Please choose a new password with at least twelve characters.",
    ],
    &[
        "My credit card was blocked while I was in {city}.",
        "For security we blocked the card after an unusual payment.",
        "I have unblocked your credit card now.",
        "A new card will be posted to your address.",
    ],
    &[
        "I want to cancel my contract.",
        "The contract can be terminated with one month notice.",
        "There is an early termination fee of {amount} dollars.",
        "I will send the termination confirmation by email.",
    ],
    &[
        "The internet connection keeps dropping every evening.",
        "Please restart the router and check the cables.",
        "A technician will visit you on {day} between nine and twelve.",
        "We see an outage in {city} that affects your line.",
    ],
    &[
        "I would like to upgrade to the premium plan.",
        "The premium plan costs {amount} dollars a month.",
        "The upgrade will be active from tomorrow.",
        "You will also get unlimited calls abroad.",
    ],
];
const EN_SMALL_TALK: &[&str] = &[
    "Hello, thank you for calling customer service, my name is {name}.",
    "How can I help you today?",
    "Could you give me your customer number, please?",
    "Thank you, one moment please.",
    "Is there anything else I can help you with?",
    "Thank you for your patience.",
    "Have a nice day, goodbye.",
    "Yes, that is correct.",
    "Okay, I understand.",
    "Let me check that for you.",
];
const PL_TOPICS: &[&[&str]] = &[
    &[
        "Chciałbym zgłosić reklamację {item}.",
        "Reklamacja zostanie rozpatrzona w ciągu czternastu dni.",
        "Proszę przesłać zdjęcia uszkodzenia do reklamacji.",
        "Przyjąłem reklamację do zamówienia {order}.",
    ],
    &[
        "Chcę zwrotu pieniędzy za zamówienie {order}.",
        "Zwrot {amount} złotych trafi na konto w ciągu pięciu dni.",
        "Zwrotem zajmie się dział księgowości w {city_loc}.",
        "Potwierdzam zwrot towaru.",
    ],
    &[
        "Paczka jeszcze do mnie nie dotarła.",
        "Kurier ma opóźnienie z dostawą do {city_gen}.",
        "Wyślemy paczkę ponownie kurierem ekspresowym.",
        "Proszę podać numer przesyłki z zamówienia {order}.",
    ],
    &[
        "Na fakturze za {month} jest błąd.",
        "Wystawię fakturę korygującą i wyślę ją mailem.",
        "Faktura pokazuje {amount} złotych zamiast uzgodnionej kwoty.",
        "Proszę o przesłanie faktury na adres firmy.",
    ],
    &[
        "Nie mogę się zalogować, hasło nie działa.",
        "Wysłałem link do zmiany hasła na pana adres e-mail.",
        "Konto zostało zablokowane po trzech nieudanych próbach.",
        "Proszę ustawić nowe hasło.",
    ],
    &[
        "Chcę wypowiedzieć umowę.",
        "Umowę można wypowiedzieć z miesięcznym okresem wypowiedzenia.",
        "Za wcześniejsze rozwiązanie umowy jest opłata {amount} złotych.",
        "Potwierdzenie wypowiedzenia umowy wyślę mailem.",
    ],
    &[
        "Internet ciągle się rozłącza wieczorem.",
        "Proszę zrestartować router i sprawdzić kable.",
        "Technik przyjedzie w {day} między dziewiątą a dwunastą.",
        "Widzimy awarię w {city_loc}, która dotyczy pana łącza.",
    ],
    &[
        "Proszę o zmianę adresu do korespondencji.",
        "Nowy adres to ulica {street} w {city_loc}.",
        "Adres został zmieniony w systemie.",
        "Kolejna faktura przyjdzie na nowy adres.",
    ],
];
const PL_SMALL_TALK: &[&str] = &[
    "Dzień dobry, dziękuję za telefon, nazywam się {name}.",
    "W czym mogę pomóc?",
    "Proszę podać numer klienta.",
    "Dziękuję, proszę chwilę poczekać.",
    "Czy mogę jeszcze w czymś pomóc?",
    "Dziękuję za cierpliwość.",
    "Do widzenia, miłego dnia.",
    "Tak, zgadza się.",
    "Rozumiem.",
    "Już sprawdzam.",
];
const EN_NAMES: &[&str] = &["Anna", "John", "Maria", "Peter", "Kate", "Tom", "Laura", "Mark"];
const PL_NAMES: &[&str] = &["Anna", "Piotr", "Katarzyna", "Tomasz", "Magdalena", "Krzysztof", "Agnieszka", "Paweł"];
const CITIES: &[(&str, &str, &str)] = &[
    ("London", "Łodzi", "Łodzi"),
    ("Manchester", "Warszawie", "Warszawy"),
    ("Leeds", "Krakowie", "Krakowa"),
    ("Bristol", "Gdańsku", "Gdańska"),
    ("Glasgow", "Poznaniu", "Poznania"),
    ("Cardiff", "Wrocławiu", "Wrocławia"),
];
const EN_ITEMS: &[&str] = &["kettle", "toaster", "headphones", "printer", "vacuum cleaner", "phone case"];
const PL_ITEMS: &[&str] = &["czajnika", "tostera", "słuchawek", "drukarki", "odkurzacza", "etui"];
const MONTHS: &[&str] = &["January", "March", "June", "September", "November"];
const PL_MONTHS: &[&str] = &["styczeń", "marzec", "czerwiec", "wrzesień", "listopad"];

fn fill(template: &str, rng: &mut StdRng, language: Language) -> String {
    let city = CITIES[rng.gen_range(0..CITIES.len())];
    let pick = |rng: &mut StdRng, list: &[&str]| list[rng.gen_range(0..list.len())].to_owned();
    let (name, item, month) = match language {
        Language::En => (pick(rng, EN_NAMES), pick(rng, EN_ITEMS), pick(rng, MONTHS)),
        Language::Pl => (pick(rng, PL_NAMES), pick(rng, PL_ITEMS), pick(rng, PL_MONTHS)),
    };
    let day = if language == Language::En { "Monday" } else { "poniedziałek" };
    template
        .replace("{name}", &name)
        .replace("{item}", &item)
        .replace("{month}", &month)
        .replace("{city}", city.0)
        .replace("{city_loc}", city.1)
        .replace("{city_gen}", city.2)
        .replace("{amount}", &rng.gen_range(10..2000).to_string())
        .replace("{order}", &rng.gen_range(100_000..999_999).to_string())
        .replace("{day}", day)
        .replace("{street}", "Piotrkowska")
}

/// A call of 300 to 1,000 words: small talk around one to three topics.
fn synthetic_call(rng: &mut StdRng) -> callscope_store::NewCall {
    let language = if rng.gen_bool(0.5) { Language::En } else { Language::Pl };
    let (topics, talk) = match language {
        Language::En => (EN_TOPICS, EN_SMALL_TALK),
        Language::Pl => (PL_TOPICS, PL_SMALL_TALK),
    };
    let chosen: Vec<&[&str]> = (0..rng.gen_range(1..=3)).map(|_| topics[rng.gen_range(0..topics.len())]).collect();
    let target_words = rng.gen_range(300..1000);
    let mut lines = vec![fill(talk[0], rng, language)];
    let mut words = 0;
    while words < target_words {
        let sentence = if rng.gen_bool(0.6) {
            let topic = chosen[rng.gen_range(0..chosen.len())];
            topic[rng.gen_range(0..topic.len())]
        } else {
            talk[rng.gen_range(1..talk.len())]
        };
        let line = fill(sentence, rng, language);
        words += line.split_whitespace().count();
        lines.push(line);
    }
    let title: String = fill(chosen[0][0], rng, language).trim_end_matches('.').chars().take(60).collect();
    let summary = chosen.iter().map(|t| fill(t[1], rng, language)).collect::<Vec<_>>().join(" ");
    let mut call = text_call(language, &title, &lines.join("\n"), &summary);
    // One to three action items, for the action item list's benchmark.
    if let Some(analysis) = call.analysis.as_mut() {
        for _ in 0..rng.gen_range(1..=3) {
            let topic = chosen[rng.gen_range(0..chosen.len())];
            let due = chrono::Utc::now() + chrono::TimeDelta::days(rng.gen_range(-30..30));
            analysis.action_items.push(callscope_domain::NewActionItem {
                id: callscope_domain::ActionItemId::new(),
                description: fill(topic[3], rng, language),
                responsible_party: Some(if rng.gen_bool(0.7) { "agent".into() } else { "customer".into() }),
                deadline_mentioned: Some(if language == Language::En { "by Friday".into() } else { "do piątku".into() }),
                due_at: rng.gen_bool(0.8).then_some(due),
                evidence: Some(fill(topic[3], rng, language)),
                priority: callscope_domain::ActionItemPriority::ALL[rng.gen_range(0..3)],
            });
        }
    }
    call
}

const QUERIES: &[(&str, &str)] = &[
    ("one common word", "refund"),
    ("one common word (pl)", "reklamacja"),
    ("inflected form (pl)", "zwrotem"),
    ("folded diacritics (pl)", "lodz"),
    ("two words", "invoice mistake"),
    ("three words (pl)", "faktura kwota błąd"),
    ("phrase", "\"credit card\""),
    ("phrase (pl)", "\"numer przesyłki\""),
    ("OR", "router OR outage"),
    ("exclusion", "refund -kettle"),
    ("phrase and word", "\"early termination\" fee"),
    ("rare words", "Glasgow headphones"),
    ("no match", "xylophone"),
];

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize - 1;
    sorted[rank.min(sorted.len() - 1)]
}

fn report(name: &str, mut ms: Vec<f64>) {
    ms.sort_by(f64::total_cmp);
    println!("| {name} | {} | {:.2} | {:.2} | {:.2} |", ms.len(), percentile(&ms, 50.0), percentile(&ms, 99.0), ms[ms.len() - 1]);
}

fn urlencode(q: &str) -> String {
    url::form_urlencoded::byte_serialize(q.as_bytes()).collect()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let calls: usize = args.get(1).map_or(Ok(100_000), |a| a.parse())?;
    let temp = tempfile::tempdir()?;
    let dir = args.get(2).map_or_else(|| temp.path().to_owned(), std::path::PathBuf::from);
    let config = Config {
        listen: "127.0.0.1:0".into(),
        data_dir: dir.join("data"),
        rate_limit_per_minute: 0,
        workers: 0,
        search_sync_interval_ms: 60_000,
        analysis_engine: callscope::config::AnalysisEngine::Rules,
        ..Config::default()
    };
    std::fs::create_dir_all(&config.data_dir)?;
    let clock = Arc::new(SystemClock);
    let store = callscope::startup::open_store(&config, clock.clone()).await?;
    let first_page = callscope_domain::PageRequest { page: 1, page_size: 1 };
    // The calls' project by its name: the list is newest first, and "bench-items" is newer.
    let project = match store.list_organizations().await?.first() {
        Some(org) => {
            let all = store.list_projects(org.id, callscope_domain::PageRequest { page: 1, page_size: 10 }).await?.items;
            all.iter().find(|p| p.name == "bench").ok_or_else(|| anyhow::anyhow!("no project \"bench\" in {}", dir.display()))?.id
        }
        None => {
            let org = store.create_organization("bench").await?;
            store.create_project(org.id, &NewProject::parse("bench", None, None, None)?).await?.id
        }
    };
    let existing = usize::try_from(store.list_calls(project, &callscope_store::CallFilter::default(), first_page).await?.total)?;
    let mut rng = StdRng::seed_from_u64(8 + existing as u64);
    if existing < calls {
        let started = Instant::now();
        let mut bytes = 0usize;
        for i in existing..calls {
            let call = synthetic_call(&mut rng);
            bytes += call.transcript.full_text.len();
            store_call(store.as_ref(), project, &call).await;
            if (i + 1) % 10_000 == 0 {
                eprintln!("loaded {} calls ({:.0} a second)", i + 1, (i + 1 - existing) as f64 / started.elapsed().as_secs_f64());
            }
        }
        println!(
            "loaded {} calls ({:.0} MiB of transcript) in {:.0} s",
            calls - existing,
            bytes as f64 / 1_048_576.0,
            started.elapsed().as_secs_f64()
        );
    }
    let total = store.list_calls(project, &callscope_store::CallFilter::default(), first_page).await?.total;
    // A second project with exactly 100,000 action items (50,000 short calls, two items each),
    // for the action item list at the size issue 9 names.
    let org = store.list_organizations().await?[0].id;
    let projects = store.list_projects(org, callscope_domain::PageRequest { page: 1, page_size: 10 }).await?.items;
    let items_project = match projects.iter().find(|p| p.name == "bench-items") {
        Some(p) => p.id,
        None => {
            let id = store.create_project(org, &NewProject::parse("bench-items", None, None, None)?).await?.id;
            let started = Instant::now();
            for _ in 0..calls / 2 {
                let mut call = synthetic_call(&mut rng);
                call.transcript = callscope_domain::CallTranscript { full_text: "Hello.".into(), ..Default::default() };
                if let Some(analysis) = call.analysis.as_mut() {
                    analysis.action_items.truncate(2);
                    while analysis.action_items.len() < 2 {
                        let mut extra = analysis.action_items[0].clone();
                        extra.id = callscope_domain::ActionItemId::new();
                        analysis.action_items.push(extra);
                    }
                }
                store_call(store.as_ref(), id, &call).await;
            }
            println!("loaded {} calls with two action items each in {:.0} s", calls / 2, started.elapsed().as_secs_f64());
            id
        }
    };
    // A key for this run (the bootstrap key is written only on the first start).
    let secret = callscope_domain::ApiKeySecret::generate();
    store.create_api_key(org, "bench", &secret.digest()).await?;
    let key = secret.expose().to_owned();

    // Indexing from scratch, as `callscope reindex` does.
    let search = callscope::startup::open_search(&config, &store).await?;
    search.clear().await?;
    let started = Instant::now();
    let done = search.catch_up(None).await?;
    let seconds = started.elapsed().as_secs_f64();
    let index_bytes = search.index().size_on_disk();
    let indexed = search.index().len();
    drop(search);
    store.close().await;

    // The real server over the same database and index.
    let app = Application::build(&config, clock).await?;
    let base = format!("http://{}", app.local_addr());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until_stopped(async {
        let _ = stopped.await;
    }));
    let client = reqwest::Client::new();
    let get = |path: String| {
        let request = client.get(format!("{base}{path}")).header("X-API-Key", &key);
        async move {
            let started = Instant::now();
            let response = request.send().await.expect("request");
            let status = response.status();
            let body = response.bytes().await.expect("body");
            assert!(status.is_success(), "{status}: {}", String::from_utf8_lossy(&body));
            (started.elapsed().as_secs_f64() * 1000.0, body)
        }
    };
    let calls_path = format!("/v1/projects/{}/calls", project.0);
    // Warm-up: the first request of each kind pays for page faults.
    for (_, q) in QUERIES {
        get(format!("{calls_path}/search?q={}", urlencode(q))).await;
    }
    println!();
    println!(
        "{total} calls to search; index of {indexed} calls built in {seconds:.1} s ({:.0} calls a second); {:.0} MiB on disk ({:.1} KiB a call)",
        done.indexed as f64 / seconds,
        index_bytes as f64 / 1_048_576.0,
        index_bytes as f64 / 1024.0 / indexed.max(1) as f64
    );
    println!();
    println!("| request | n | p50 ms | p99 ms | max ms |");
    println!("|---|---|---|---|---|");
    let mut all = Vec::new();
    for (name, q) in QUERIES {
        let mut ms = Vec::new();
        let mut matched = 0;
        for round in 0..40 {
            let page = if round % 4 == 3 { 2 } else { 1 };
            let (took, body) = get(format!("{calls_path}/search?q={}&page={page}", urlencode(q))).await;
            if round == 0 {
                matched = serde_json::from_slice::<serde_json::Value>(&body)?["total"].as_u64().unwrap_or(0);
            }
            ms.push(took);
        }
        all.extend(ms.iter().copied());
        report(&format!("search: {name}, `{q}` ({matched} hits)"), ms);
    }
    report("search: all of the above", all);
    let (mut list, mut bounded) = (Vec::new(), Vec::new());
    for i in 0..400u64 {
        let page = 1 + (i * 37) % 200;
        list.push(get(format!("{calls_path}?page={page}&pageSize=25")).await.0);
        bounded.push(get(format!("{calls_path}?page={page}&from=2020-01-01T00:00:00Z&to=2100-01-01T00:00:00Z")).await.0);
    }
    report("list: pages 1–200", list);
    report("list: pages 1–200 within from/to", bounded);

    // The action item list (issue 9) over the items the calls carry.
    let items_path = format!("/v1/projects/{}/action-items", items_project.0);
    // The first list after the start reads the project's items into the list's index.
    let (first, body) = get(items_path.clone()).await;
    let page = serde_json::from_slice::<serde_json::Value>(&body)?;
    let items_total = page["totalCount"].as_u64().unwrap_or(0);
    println!();
    println!("first action item list after the start, which reads all {items_total} items into memory: {first:.0} ms");
    println!();
    println!("| request | n | p50 ms | p99 ms | max ms |");
    println!("|---|---|---|---|---|");
    let item_queries: &[(&str, &str)] = &[
        ("newest first", ""),
        ("status filter", "status=PENDING,IN_PROGRESS"),
        ("by priority", "sortBy=PRIORITY"),
        ("by call date, oldest first", "sortBy=CALL_DATE&sortDir=ASC"),
        ("by status", "sortBy=STATUS"),
        ("responsible party", "responsibleParty=Customer"),
        ("text search", "search=invoice"),
        ("call date bounds", "from=2020-01-01T00:00:00Z&to=2100-01-01T00:00:00Z&priority=HIGH"),
        ("page 100", "page=100"),
        ("text search, no match", "search=xylophone"),
        ("a party nobody is", "responsibleParty=nobody"),
        ("a call-date window with no calls", "from=2020-01-01T00:00:00Z&to=2020-01-02T00:00:00Z"),
    ];
    for (name, query) in item_queries {
        let mut ms = Vec::new();
        for _ in 0..40 {
            ms.push(get(format!("{items_path}?{query}")).await.0);
        }
        report(&format!("action items ({items_total}): {name} `{query}`"), ms);
    }
    // Lists that follow an edit: each reads the change log and applies the changed item first.
    let first_id = page["items"][0]["id"].as_str().unwrap_or_default().to_owned();
    let mut after_edit = Vec::new();
    for round in 0..40 {
        let response = client
            .patch(format!("{base}{items_path}/{first_id}"))
            .header("X-API-Key", &key)
            .json(&serde_json::json!({ "notes": format!("benchmark edit {round}") }))
            .send()
            .await?;
        assert!(response.status().is_success(), "PATCH: {}", response.status());
        after_edit.push(get(format!("{items_path}?search=invoice")).await.0);
    }
    report(&format!("action items ({items_total}): `search=invoice` right after a PATCH"), after_edit);
    let _ = stop.send(());
    let _ = tokio::time::timeout(Duration::from_secs(10), server).await;
    Ok(())
}
