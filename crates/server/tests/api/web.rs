//! The web application in a real browser: Debian's headless Chromium driven over WebDriver
//! (chromedriver), against a real server whose worker runs the real pipeline (whisper tiny.en,
//! espeak-ng recordings). One story, as a person would use it: sign in, create a project,
//! upload two calls and watch them complete, open one, play it and see the highlight move,
//! seek by clicking a word, finish an action item and see the board's counters change, search
//! with a phrase and an exclusion, recategorise, switch to Polish; and markup in a file name and
//! a transcript shown as text. Screenshots of each page go to `CALLSCOPE_SCREENSHOTS` (default:
//! `screenshots/` in Cargo's test scratch directory).

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use callscope_domain::{ActionItemId, ActionItemPriority, Language, NewActionItem, PiiSpan, ProjectId, SentimentLevel, TimedWord};
use callscope_store::testing::{store_call, text_call};
use callscope_store::Backend;
use serde_json::{json, Value};

use crate::helpers::{generated_call, spawn_app_with, spoken_call, wav_bytes, Piece, TestApp};

/// The key WebDriver puts an element's reference under.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A headless Chromium session over chromedriver, stopped when dropped.
struct Browser {
    http: reqwest::Client,
    session: String,
    driver: Child,
}

impl Browser {
    async fn start() -> Self {
        Self::start_in("en-GB").await
    }

    /// A browser whose language (the `Accept-Language` and `navigator.language` a page sees) is
    /// `language`.
    async fn start_in(language: &str) -> Self {
        let driver_path = std::env::var("CALLSCOPE_TEST_CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".into());
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        // In a process group of its own, which Chromium joins: dropping the browser kills both.
        let driver = Command::new(&driver_path)
            .process_group(0)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {driver_path} (scripts/test installs chromium-driver): {e}"));
        let http = reqwest::Client::new();
        let base = format!("http://127.0.0.1:{port}");
        let capabilities = json!({"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": std::env::var("CALLSCOPE_TEST_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()),
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000",
                     "--autoplay-policy=no-user-gesture-required", format!("--lang={language}")],
            "prefs": {"intl.accept_languages": language},
        }}}});
        let deadline = Instant::now() + Duration::from_secs(30);
        let session = loop {
            if let Ok(response) = http.post(format!("{base}/session")).json(&capabilities).send().await {
                let body: Value = response.json().await.unwrap();
                let id = body["value"]["sessionId"].as_str().unwrap_or_else(|| panic!("no session: {body}"));
                break format!("{base}/session/{id}");
            }
            assert!(Instant::now() < deadline, "chromedriver did not start");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        Self { http, session, driver }
    }

    async fn command(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut request = self.http.request(method, format!("{}{path}", self.session));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let answer: Value = request.send().await.unwrap().json().await.unwrap();
        answer["value"].clone()
    }

    /// Opens `url`. A move to another route of the page already open changes only the fragment:
    /// the page stays, and the app draws the new route a moment later, so until then the last
    /// route's elements would answer the next wait. Such a move returns once the app says it
    /// shows the new address (`main[data-shows]`, set after a route is drawn).
    async fn go(&self, url: &str) {
        let same_page = "const target = new URL(arguments[0], location.href);
             const moves = target.hash !== '' && target.href !== location.href && target.href.split('#')[0] === location.href.split('#')[0];
             if (moves) delete document.getElementById('main')?.dataset.shows;
             return moves;";
        let moves_route = self.script(same_page, json!([url])).await == json!(true);
        self.command(reqwest::Method::POST, "/url", Some(json!({"url": url}))).await;
        if moves_route {
            self.until("document.getElementById('main')?.dataset.shows === location.hash", |v| *v == json!(true)).await;
        }
    }

    /// The first element matching `css`, once there is one (within 60 s).
    async fn wait(&self, css: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let found = self.command(reqwest::Method::POST, "/element", Some(json!({"using": "css selector", "value": css}))).await;
            if let Some(id) = found[ELEMENT].as_str() {
                return id.to_owned();
            }
            assert!(
                Instant::now() < deadline,
                "no {css} after 60 s ({found}); the page says: {}",
                self.script("return document.body.innerText", json!([])).await
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn click(&self, css: &str) {
        let id = self.wait(css).await;
        // To the middle of the window, as a person scrolls to what they click: WebDriver's own
        // scrolling leaves it at an edge, where the sticky player can cover it.
        self.script("document.querySelector(arguments[0]).scrollIntoView({ block: 'center' })", json!([css])).await;
        let answer = self.command(reqwest::Method::POST, &format!("/element/{id}/click"), Some(json!({}))).await;
        assert!(answer.get("error").is_none(), "clicking {css}: {answer}");
    }

    async fn type_into(&self, css: &str, text: &str) {
        let id = self.wait(css).await;
        self.command(reqwest::Method::POST, &format!("/element/{id}/clear"), Some(json!({}))).await;
        let answer = self.command(reqwest::Method::POST, &format!("/element/{id}/value"), Some(json!({"text": text}))).await;
        assert!(answer.get("error").is_none(), "typing into {css}: {answer}");
    }

    async fn script(&self, body: &str, args: Value) -> Value {
        self.command(reqwest::Method::POST, "/execute/sync", Some(json!({"script": body, "args": args}))).await
    }

    /// Runs a function body that answers by calling its last argument (WebDriver's async script).
    async fn script_async(&self, body: &str, args: Value) -> Value {
        self.command(reqwest::Method::POST, "/execute/async", Some(json!({"script": body, "args": args}))).await
    }

    /// `performance.now()` at the first animation frame at which `condition` holds: when the
    /// page got there, not when a poll from here noticed (within 60 s).
    async fn moment_when(&self, condition: &str) -> f64 {
        let script = format!(
            "const done = arguments[arguments.length - 1]; const until = performance.now() + 60000;
             const look = () => {{ if ({condition}) done(performance.now()); else if (performance.now() > until) done(null); else requestAnimationFrame(look); }};
             look();"
        );
        let at = self.script_async(&script, json!([])).await;
        at.as_f64().unwrap_or_else(|| panic!("{condition} did not hold within 60 s"))
    }

    /// The value of `expression` once `done` holds for it (within 90 s).
    async fn until(&self, expression: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let value = self.script(&format!("return {expression}"), json!([])).await;
            if done(&value) {
                return value;
            }
            if Instant::now() > deadline {
                let page = self.script("return location.href + '\\n' + document.body.innerText", json!([])).await;
                panic!("{expression} is still {value}; the page: {page}");
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Runs `setup`, then `step` at every animation frame for `ms`, then `finish` (a function
    /// body); answers with the gaps between frames and what `finish` returned.
    async fn frames(&self, setup: &str, step: &str, finish: &str, ms: u32) -> (Value, Value) {
        let script = format!(
            "const done = arguments[arguments.length - 1]; {setup}
             const gaps = []; let last = performance.now(); const start = last;
             const frame = (now) => {{ gaps.push(now - last); last = now; {step}
               if (now - start < {ms}) requestAnimationFrame(frame); else done([gaps, (() => {{ {finish} }})()]); }};
             requestAnimationFrame(frame);"
        );
        let answer = self.script_async(&script, json!([])).await;
        (answer[0].clone(), answer[1].clone())
    }

    /// What a screen reader is told about each thing on the page a person can reach (links,
    /// buttons, form controls, the player, charts, whatever is in the tab order): the role and
    /// name that Chromium's accessibility tree computes, read through WebDriver's computed role
    /// and label. Answers the ones left without a name, with their role and markup.
    ///
    /// Chromium builds its accessibility tree after the DOM changes, not with it, and leaves out
    /// what `content-visibility: auto` has not rendered (the transcript's turns off screen):
    /// such an element has role "none" and no name until it is drawn, which a screen reader's
    /// move to it does. An element found unnamed is therefore brought into view and read again
    /// for up to 3 s; only one still unnamed and still on the page is reported.
    async fn unnamed_in_accessibility_tree(&self) -> Vec<String> {
        let reachable = self
            .script(
                "return [...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, audio, svg[role], [tabindex=\"0\"]')]
                   .filter(e => e.getClientRects().length)",
                json!([]),
            )
            .await;
        let mut suspects: Vec<Value> = Vec::new();
        for element in reachable.as_array().unwrap() {
            if !self.named(element).await {
                suspects.push(element.clone());
            }
        }
        let scrolled = !suspects.is_empty();
        for _ in 0..10 {
            if suspects.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
            let mut left = Vec::new();
            for element in suspects {
                let on_page = self
                    .script(
                        "const e = arguments[0]; if (e.isConnected) e.scrollIntoView({ block: 'center' }); return e.isConnected",
                        json!([element]),
                    )
                    .await
                    == json!(true);
                if on_page && !self.named(&element).await {
                    left.push(element);
                }
            }
            suspects = left;
        }
        if scrolled {
            // The screenshot shows the page from its top, as it was.
            self.script("window.scrollTo(0, 0)", json!([])).await;
        }
        let mut unnamed = Vec::new();
        for element in &suspects {
            let id = element[ELEMENT].as_str().unwrap();
            let role = self.command(reqwest::Method::GET, &format!("/element/{id}/computedrole"), None).await;
            let markup = self.script("return arguments[0].outerHTML.slice(0, 200)", json!([element])).await;
            unnamed.push(format!("{role}: {markup}"));
        }
        unnamed
    }

    /// Whether the accessibility tree gives the element a name.
    async fn named(&self, element: &Value) -> bool {
        let id = element[ELEMENT].as_str().unwrap();
        let label = self.command(reqwest::Method::GET, &format!("/element/{id}/computedlabel"), None).await;
        label.as_str().is_some_and(|l| !l.trim().is_empty())
    }

    /// Makes downloads observable: a link's click records its file's name and blob instead of
    /// saving it.
    async fn catch_downloads(&self) {
        self.script(
            "window.downloads = []; const blobUrl = URL.createObjectURL.bind(URL); URL.createObjectURL = (b) => { window.lastBlob = b; return blobUrl(b); };
             HTMLAnchorElement.prototype.click = function () { window.downloads.push([this.download, window.lastBlob]); };",
            json!([]),
        )
        .await;
    }

    /// Clicks the link labelled `label` among `links` (a CSS selector) and answers the file it
    /// downloads: its name and its text.
    async fn download(&self, links: &str, label: &str) -> (String, String) {
        self.script(
            "window.downloads = []; [...document.querySelectorAll(arguments[0])].find(a => a.textContent === arguments[1]).dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }))",
            json!([links, label]),
        )
        .await;
        self.until("window.downloads.length", |v| v.as_u64() == Some(1)).await;
        let file = self
            .script_async(
                "const done = arguments[arguments.length - 1]; const [name, blob] = window.downloads[0]; blob.text().then(t => done([name, t]));",
                json!([]),
            )
            .await;
        (file[0].as_str().unwrap().to_owned(), file[1].as_str().unwrap().to_owned())
    }

    async fn screenshot(&self, dir: &Path, name: &str) {
        // Every page shown is also checked for things a screen reader could not name.
        let unnamed = self.unnamed_in_accessibility_tree().await;
        assert!(unnamed.is_empty(), "{name}: without a name in the accessibility tree: {unnamed:#?}");
        use base64::Engine;
        let png = self.command(reqwest::Method::GET, "/screenshot", None).await;
        let bytes = base64::engine::general_purpose::STANDARD.decode(png.as_str().unwrap()).unwrap();
        std::fs::write(dir.join(format!("{name}.png")), bytes).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // The whole group: chromedriver and the Chromium processes it started.
        let _ = Command::new("kill").args(["-s", "KILL", "--", &format!("-{}", self.driver.id())]).status();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn screenshots() -> PathBuf {
    let dir = std::env::var_os("CALLSCOPE_SCREENSHOTS").map_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots"), PathBuf::from);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test]
async fn a_person_works_through_the_web_application_in_a_real_browser() {
    let app = spawn_app_with(Backend::Sqlite, |c| {
        c.workers = 1;
        // The settings page registers a webhook on loopback; it retries only when told to.
        c.webhooks_allow_private = true;
        c.webhook_dispatch = true;
        c.webhook_poll_interval_ms = 100;
        c.webhook_retry_delays = "1h".into();
    })
    .await;
    let shots = screenshots();
    let files = tempfile::tempdir().unwrap();
    let invoice = files.path().join("invoice call.wav");
    std::fs::write(
        &invoice,
        generated_call(
            2,
            &[
                Piece::Says(0, "en-us", "Good morning, this is Anna from billing. How can I help you today?"),
                Piece::Silence(0.5),
                Piece::Says(1, "en-gb", "Hello. I have not received the invoice for November."),
                Piece::Silence(0.5),
                Piece::Says(0, "en-us", "Let me look. Please hold."),
                Piece::Music(0, 5.0),
                Piece::Says(0, "en-us", "I am sorry about that. I will send you the invoice by Friday."),
                Piece::Silence(0.5),
                Piece::Says(1, "en-gb", "Thank you very much, that is great."),
                Piece::Silence(0.5),
            ],
        ),
    )
    .unwrap();
    // A file name with markup in it: the lists must show it as text.
    let marked = files.path().join("<img src=x onerror=alert(1)>.wav");
    std::fs::write(
        &marked,
        spoken_call(
            2,
            &[(0, "en-us", "Technical support, how can I help?"), (1, "en-gb", "My router is broken and I want a refund for the outage.")],
        ),
    )
    .unwrap();

    let browser = Browser::start().await;
    browser.go(&app.url("/")).await;
    browser.wait("#api-key").await;
    browser.screenshot(&shots, "1-sign-in").await;
    browser.type_into("#api-key", "not a key").await;
    browser.click("form button[type=submit]").await;
    browser.until("document.querySelector('.error').textContent", |v| v.as_str().is_some_and(|s| !s.is_empty())).await;
    browser.type_into("#api-key", &app.key).await;
    browser.click("form button[type=submit]").await;
    browser.type_into("#project-name", "Support").await;
    browser.click("form button[type=submit]").await;

    // Two files at once through the file picker, then their jobs to the end.
    browser.type_into("#upload-roles", "agent,customer").await;
    let input = browser.wait("#upload-files").await;
    let paths = format!("{}\n{}", invoice.display(), marked.display());
    browser.command(reqwest::Method::POST, &format!("/element/{input}/value"), Some(json!({"text": paths}))).await;
    let done = browser.until("document.querySelectorAll('.upload.completed').length", |v| v.as_u64() == Some(2)).await;
    assert_eq!(done, 2);
    let project = browser.script("return location.hash.split('/')[2]", json!([])).await.as_str().unwrap().to_owned();
    let project_id = ProjectId(project.parse().unwrap());
    app.post_json(&format!("/v1/projects/{project}/categories"), &json!({"name": "Billing", "description": "invoice, payment"})).await;

    // Markup in a stored transcript and file name stays text.
    let mut hostile =
        text_call(Language::En, "<b>bold</b> title", "<script>window.pwned = 1</script> hello\n<img src=x onerror=\"window.pwned = 2\">", "s");
    hostile.filename = "<svg onload=\"window.pwned = 3\">.wav".into();
    let hostile_id = store_call(app.store.as_ref(), project_id, &hostile).await;

    // A new address (the list as it is now), so the page reads the list again.
    browser.go(&app.url(&format!("/#/p/{project}/calls?page=1"))).await;
    browser.until("document.querySelectorAll('table.calls tbody tr').length", |v| v.as_u64() == Some(3)).await;
    let listed = browser.script("return document.querySelector('table.calls').innerText", json!([])).await;
    assert!(listed.as_str().unwrap().contains("<img src=x onerror=alert(1)>.wav"), "{listed}");
    assert!(listed.as_str().unwrap().contains("<svg onload=\"window.pwned = 3\">.wav"), "{listed}");
    assert_eq!(browser.script("return document.querySelectorAll('table.calls img, table.calls svg, table.calls b').length", json!([])).await, 0);
    browser.screenshot(&shots, "2-calls").await;
    // Ordered by the longest pause: the call put on hold first, the one never measured last, and
    // the figure in a column of its own.
    browser.go(&app.url(&format!("/#/p/{project}/calls?sortBy=LONGEST_NON_TALK"))).await;
    let first = browser
        .until("document.querySelector('main').dataset.shows === location.hash && document.querySelector('table.calls td.figure') ? [...document.querySelectorAll('table.calls tbody tr')].map(r => r.innerText) : null", |v| !v.is_null())
        .await;
    let rows: Vec<&str> = first.as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
    assert!(rows[0].contains("invoice call.wav") && rows[2].contains("<svg onload"), "{rows:?}");
    assert_eq!(browser.script("return document.getElementById('sort-by').value", json!([])).await, "LONGEST_NON_TALK");
    browser.go(&app.url(&format!("/#/p/{project}/calls/{}", hostile_id.0))).await;
    browser.wait("#transcript").await;
    let said = browser.script("return document.getElementById('transcript').innerText", json!([])).await;
    assert!(said.as_str().unwrap().contains("<script>window.pwned = 1</script> hello"), "{said}");
    assert_eq!(
        browser.script("return [window.pwned ?? null, document.querySelectorAll('main script, main img:not([alt=\"\"])').length]", json!([])).await,
        json!([null, 0])
    );

    // The invoice call: play it and watch the highlight move.
    browser.go(&app.url(&format!("/#/p/{project}/calls"))).await;
    browser.until("document.querySelectorAll('table.calls tbody tr').length", |v| v.as_u64() == Some(3)).await;
    let href = browser
        .script("return [...document.querySelectorAll('table.calls tbody tr')].find(r => r.innerText.includes('invoice call.wav')).querySelector('a.call-link').getAttribute('href')", json!([]))
        .await;
    browser.go(&app.url(&format!("/{}", href.as_str().unwrap()))).await;
    browser.wait("#transcript .w").await;
    browser.until("document.getElementById('player').readyState", |v| v.as_u64().is_some_and(|s| s >= 2)).await;
    browser.script("document.getElementById('player').play()", json!([])).await;
    let first = browser.until("document.querySelector('.w.now')?.dataset.i ?? null", |v| !v.is_null()).await;
    let first: u64 = first.as_str().unwrap().parse().unwrap();
    let later = browser.until("Number(document.querySelector('.w.now')?.dataset.i ?? -1)", |v| v.as_u64().is_some_and(|i| i > first + 2)).await;
    assert!(later.as_u64().unwrap() > first, "the highlight moved with the recording");
    browser.script("document.getElementById('player').pause()", json!([])).await;
    // The player streams through an audio link, not the key: the link alone answers a Range.
    let streamed = browser
        .script_async(
            "const done = arguments[arguments.length - 1]; const src = document.getElementById('player').currentSrc;
             fetch(src, { headers: { Range: 'bytes=0-99' }, credentials: 'omit' })
               .then(r => done([new URL(src).pathname, src.includes(sessionStorage.getItem('callscope.key')), r.status, r.headers.get('content-range')]))",
            json!([]),
        )
        .await;
    assert!(streamed[0].as_str().unwrap().starts_with("/audio/v1."), "{streamed}");
    assert_eq!(streamed[1], false, "no key in the player's URL: {streamed}");
    assert_eq!(streamed[2], 206, "{streamed}");
    assert!(streamed[3].as_str().unwrap().starts_with("bytes 0-99/"), "{streamed}");
    // The timeline under the player: a lane per speaker and one of the pauses, where the hold
    // music shows; the characteristics card plays a pause from its start.
    assert_eq!(browser.script("return document.querySelectorAll('#timeline .lane').length", json!([])).await, 3);
    assert_eq!(browser.script("return document.querySelectorAll('#timeline .seg.pause-music').length", json!([])).await, 1);
    let card = browser.script("return document.getElementById('characteristics').innerText", json!([])).await;
    assert!(card.as_str().unwrap().contains("On hold (music or tones)"), "{card}");
    browser.screenshot(&shots, "3-call").await;
    let pause_start = browser.script("return document.querySelector('#pauses button').textContent", json!([])).await;
    browser.click("#pauses button").await;
    let [minutes, secs] = pause_start.as_str().unwrap().split(':').map(|p| p.parse::<f64>().unwrap()).collect::<Vec<_>>()[..] else {
        panic!("a clock: {pause_start}")
    };
    browser.until("document.getElementById('player').currentTime", |v| v.as_f64().is_some_and(|t| (t - (minutes * 60.0 + secs)).abs() < 1.5)).await;
    browser.script("document.getElementById('player').pause()", json!([])).await;
    browser.screenshot(&shots, "3-call-characteristics").await;

    // A click on a word plays from it.
    let word = browser.script("const w = document.querySelectorAll('#transcript .w')[8]; return [w.dataset.start, w.dataset.i]", json!([])).await;
    let start_ms: f64 = word[0].as_str().unwrap().parse().unwrap();
    browser.click(&format!("#transcript .w[data-i='{}']", word[1].as_str().unwrap())).await;
    let position =
        browser.until("document.getElementById('player').currentTime", |v| v.as_f64().is_some_and(|t| t * 1000.0 >= start_ms - 50.0)).await;
    assert!((position.as_f64().unwrap() * 1000.0 - start_ms).abs() < 1500.0, "{position} s against a word at {start_ms} ms");
    browser.script("document.getElementById('player').pause()", json!([])).await;

    // The action item edited in place: owner, deadline and notes are what the API then holds.
    browser.type_into("#items-title ~ ul .item input.owner", "Anna").await;
    browser.type_into("#items-title ~ ul .item input.notes", "Sent by e-mail").await;
    browser.script("const d = document.querySelector('#items-title ~ ul .item input.deadline'); d.value = '2026-12-04'; d.dispatchEvent(new Event('change'));", json!([])).await;
    browser.click("#items-title").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let items: Value = app.get(&format!("/v1/projects/{project}/action-items?search=Anna")).await.json().await.unwrap();
        let item = &items["items"][0];
        if item["notes"] == "Sent by e-mail" && item["dueAt"].as_str().is_some_and(|d| d.starts_with("2026-12-0")) {
            assert_eq!(item["responsibleParty"], "Anna");
            break;
        }
        assert!(Instant::now() < deadline, "the edits did not arrive: {items}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // A task the analysis missed, added on the page; then merged into the first item.
    // Its description is long, as people write them: the other item's merge picker, as wide as
    // its longest option, ran out of its card and the page scrolled sideways (stop 52).
    let annex = "Post the signed annex to the head office in Kraków with a copy of the amended contract and the new direct debit mandate";
    browser.type_into("#new-item", annex).await;
    browser.click("form.add-item button[type=submit]").await;
    browser.until("document.querySelectorAll('#items-title ~ ul .item').length", |v| v.as_u64() == Some(2)).await;
    let added: Value = app.get(&format!("/v1/projects/{project}/action-items?search=annex")).await.json().await.unwrap();
    assert_eq!(added["items"][0]["description"], annex, "{added}");
    let past_the_card = browser
        .script(
            "return [...document.querySelectorAll('#items-title ~ ul .item select.merge')].map(s => s.getBoundingClientRect().right - s.closest('.card').getBoundingClientRect().right)",
            json!([]),
        )
        .await;
    assert!(past_the_card.as_array().is_some_and(|o| o.len() == 2 && o.iter().all(|x| x.as_f64().is_some_and(|x| x <= 0.0))), "{past_the_card}");
    // At phone width the one column holds them too: nothing runs off the side.
    browser.command(reqwest::Method::POST, "/window/rect", Some(json!({"width": 390, "height": 844}))).await;
    browser.until("window.innerWidth", |v| v.as_u64().is_some_and(|w| w <= 400)).await;
    let widths = browser.script("return [document.documentElement.scrollWidth, window.innerWidth]", json!([])).await;
    assert!(widths[0].as_u64() <= widths[1].as_u64(), "the call page with two items is wider than a phone: {widths}");
    browser.command(reqwest::Method::POST, "/window/rect", Some(json!({"width": 1280, "height": 1000}))).await;
    browser.until("window.innerWidth", |v| v.as_u64().is_some_and(|w| w > 1000)).await;
    browser
        .script(
            "const s = document.querySelectorAll('#items-title ~ ul .item select.merge')[1]; s.value = s.options[1].value; s.dispatchEvent(new Event('change'));",
            json!([]),
        )
        .await;
    browser.until("document.querySelectorAll('#items-title ~ ul .item').length", |v| v.as_u64() == Some(1)).await;
    let merged: Value = app.get(&format!("/v1/projects/{project}/action-items?search=annex")).await.json().await.unwrap();
    assert!(merged["items"][0]["notes"].as_str().is_some_and(|n| n.contains("Merged: Post the signed annex")), "{merged}");
    browser.script("document.getElementById('items-title').scrollIntoView()", json!([])).await;
    browser.screenshot(&shots, "3-call-items").await;

    // Recategorise through the picker.
    browser
        .script("const p = document.getElementById('category'); p.value = [...p.options].find(o => o.text.includes('Billing')).value;", json!([]))
        .await;
    browser.click("#save-category").await;
    browser.until("document.querySelector('.category-path')?.textContent", |v| v.as_str() == Some("Billing")).await;

    // The list's filters: the category (with its subtree) just chosen.
    browser.go(&app.url(&format!("/#/p/{project}/calls?page=1"))).await;
    browser.until("document.querySelectorAll('table.calls tbody tr').length", |v| v.as_u64() == Some(3)).await;
    browser
        .script(
            "const c = document.getElementById('filter-category'); c.value = [...c.options].find(o => o.text.includes('Billing')).value;",
            json!([]),
        )
        .await;
    browser.click("form.filters button[type=submit]").await;
    let filtered = browser.until("document.querySelectorAll('table.calls tbody tr').length", |v| v.as_u64() == Some(1)).await;
    assert_eq!(filtered, 1);
    assert!(browser
        .script("return document.querySelector('table.calls tbody').innerText", json!([]))
        .await
        .as_str()
        .unwrap()
        .contains("invoice call.wav"));

    // Finish the promised invoice on the call page; the board's counters follow.
    browser.go(&app.url(&format!("/#/p/{project}/actions"))).await;
    let before = browser.until("document.querySelector('[data-status=DONE] .count')?.textContent", |v| v.is_string()).await;
    assert_eq!(before, "0");
    let pending_before: u64 = browser
        .script("return document.querySelector('[data-status=PENDING] .count').textContent", json!([]))
        .await
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(pending_before >= 1, "the promise to send the invoice is an action item");
    browser.screenshot(&shots, "4-action-items").await;
    browser.script("const s = document.querySelector('select.status'); s.value = 'DONE'; s.dispatchEvent(new Event('change'));", json!([])).await;
    browser.until("document.querySelector('[data-status=DONE] .count')?.textContent", |v| v.as_str() == Some("1")).await;
    let pending_after = browser.script("return document.querySelector('[data-status=PENDING] .count').textContent", json!([])).await;
    assert_eq!(pending_after.as_str().unwrap().parse::<u64>().unwrap(), pending_before - 1);

    // The board's filters and sort: by owner, highest priority first.
    browser.script("document.getElementById('item-owner').value = 'Anna'; document.getElementById('item-sort').value = 'PRIORITY';", json!([])).await;
    browser.click("form.filters button[type=submit]").await;
    browser.until("location.hash", |v| v.as_str().is_some_and(|h| h.contains("responsibleParty=Anna") && h.contains("sortBy=PRIORITY"))).await;
    let owned = browser.until("document.querySelector('table.items tbody')?.innerText ?? null", |v| v.is_string()).await;
    assert!(owned.as_str().unwrap().contains("invoice call.wav"), "{owned}");

    // Search with a phrase and an exclusion: the invoice call, not the refund call.
    let deadline = Instant::now() + Duration::from_secs(60);
    for attempt in 0.. {
        // The index follows the database a moment later; each try is a new address, so the page
        // renders again (and `go` returns once it has).
        browser.go(&app.url(&format!("/#/p/{project}/calls?q={}&try={attempt}", urlencode("\"the invoice\" -refund")))).await;
        let rows = browser.script("return document.querySelectorAll('table.calls tbody tr').length", json!([])).await;
        if rows.as_u64() == Some(1) {
            break;
        }
        assert!(Instant::now() < deadline, "the search never found the call: {rows}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let hit = browser.script("return document.querySelector('table.calls tbody').innerText", json!([])).await;
    assert!(hit.as_str().unwrap().contains("invoice call.wav") && !hit.as_str().unwrap().contains("onerror"), "{hit}");
    assert!(
        browser.script("return document.querySelectorAll('table.calls mark').length", json!([])).await.as_u64().unwrap() >= 1,
        "the match is marked"
    );

    // The dashboard draws what the calls say: three calls, one of them in Billing.
    browser.go(&app.url(&format!("/#/p/{project}/dashboard"))).await;
    let drawn = browser
        .until("[...document.querySelectorAll('#main svg .bar-value')].map(b => Number(b.dataset.value))", |v| {
            v.as_array().is_some_and(|a| a.len() >= 5)
        })
        .await;
    let counts: Vec<u64> = drawn.as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(counts[..4].iter().sum::<u64>(), 3, "every call in the distribution: {counts:?}");
    assert_eq!(counts[4], 1, "one call in Billing: {counts:?}");
    assert!(
        browser.script("return document.querySelectorAll('#main svg .day').length", json!([])).await.as_u64().unwrap() >= 1,
        "a day in the trend"
    );
    // The trend has a share axis and a legend, in the page's language.
    let axis = browser.script("return [...document.querySelectorAll('#trend-title ~ * svg text')].map(t => t.textContent)", json!([])).await;
    for label in ["positive", "neutral", "negative", "0%", "50%", "100%"] {
        assert!(axis.as_array().unwrap().iter().any(|t| t == label), "{label} in {axis}");
    }
    // The daily characteristics: the one measured day and the average.
    browser.wait("#daily-characteristics table").await;
    assert_eq!(browser.script("return document.querySelectorAll('#daily-characteristics tbody tr').length", json!([])).await, 2);
    let columns = browser.script("return [...document.querySelectorAll('#daily-characteristics svg text')].map(t => t.textContent)", json!([])).await;
    for label in ["Share nobody talks", "0%", "100%"] {
        assert!(columns.as_array().unwrap().iter().any(|t| t == label), "{label} in {columns}");
    }
    browser.screenshot(&shots, "6-dashboard").await;
    // A category's bar opens its calls: Billing's one call.
    browser
        .script("document.querySelector('#main svg a.drill').dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }))", json!([]))
        .await;
    browser.until("location.hash", |v| v.as_str().is_some_and(|h| h.contains("/calls?categoryId="))).await;
    browser.until("document.querySelectorAll('table.calls tbody tr').length", |v| v.as_u64() == Some(1)).await;
    browser.go(&app.url(&format!("/#/p/{project}/dashboard"))).await;
    browser.wait("#main svg .bar-value").await;
    // Another time zone: the page asks for the days in it, and every call is still counted.
    browser
        .script("const z = document.getElementById('time-zone'); z.value = 'Europe/Warsaw'; z.dispatchEvent(new Event('change'));", json!([]))
        .await;
    let redrawn = browser
        .until(
            "document.querySelector('main').dataset.shows.includes('tz=Europe%2FWarsaw') && document.getElementById('time-zone')?.value === 'Europe/Warsaw' \
             ? [...document.querySelectorAll('#main svg .bar-value')].map(b => Number(b.dataset.value)) : []",
            |v| v.as_array().is_some_and(|a| a.len() >= 5),
        )
        .await;
    let counts: Vec<u64> = redrawn.as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(counts[..4].iter().sum::<u64>(), 3, "every call in the distribution in Warsaw time: {counts:?}");

    // Settings: the tree, a template, a preset and a webhook, each through its form.
    browser.go(&app.url(&format!("/#/p/{project}/settings"))).await;
    browser.script("window.confirm = () => true", json!([])).await;
    browser.type_into("#category-name", "Complaints").await;
    browser.click("#categories form button[type=submit]").await;
    browser
        .until("[...document.querySelectorAll('#categories .tree .rename')].map(i => i.value)", |v| {
            v.as_array().is_some_and(|a| a.iter().any(|n| n == "Complaints"))
        })
        .await;
    // Moved under Billing: it is shown one level down, and the API holds the new parent.
    browser
        .script(
            "const li = [...document.querySelectorAll('#categories .tree li')].find(l => l.querySelector('.rename').value === 'Complaints');
             const billing = [...document.querySelectorAll('#categories .tree li')].find(l => l.querySelector('.rename').value === 'Billing');
             const move = li.querySelector('select'); move.value = billing.dataset.id;
             [...li.querySelectorAll('button')].find(b => b.textContent === 'Move').click();",
            json!([]),
        )
        .await;
    browser
        .until("[...document.querySelectorAll('#categories .tree li.depth-1 .rename')].map(i => i.value)", |v| {
            v.as_array().is_some_and(|a| a.iter().any(|n| n == "Complaints"))
        })
        .await;
    let tree: Value = app.get(&format!("/v1/projects/{project}/categories")).await.json().await.unwrap();
    let billing = tree.as_array().unwrap().iter().find(|c| c["name"] == "Billing").unwrap();
    assert_eq!(billing["children"][0]["name"], "Complaints", "moved under Billing: {tree}");
    browser.script("const i = [...document.querySelectorAll('#categories .tree .rename')].find(i => i.value === 'Complaints'); i.value = 'Complaints and praise'; i.nextElementSibling.click();", json!([])).await;
    browser
        .until("[...document.querySelectorAll('#categories .tree .rename')].map(i => i.value)", |v| {
            v.as_array().is_some_and(|a| a.iter().any(|n| n == "Complaints and praise"))
        })
        .await;
    browser.script("const i = [...document.querySelectorAll('#categories .tree .rename')].find(i => i.value === 'Complaints and praise'); i.parentElement.querySelector('button.danger').click();", json!([])).await;
    browser
        .until("[...document.querySelectorAll('#categories .tree .rename')].map(i => i.value)", |v| v.as_array().is_some_and(|a| a.len() == 1))
        .await;
    browser.type_into("#template-name", "Billing QA").await;
    browser.type_into("#templates .field .label", "Invoice sent").await;
    browser.type_into("#templates .field .prompt", "What was the call about?").await;
    browser.script("document.querySelector('#templates .field .type').value = 'SINGLE_CHOICE'", json!([])).await;
    browser.type_into("#templates .field .options", "invoice, refund").await;
    browser.click("#templates form button[type=submit]").await;
    browser
        .until("document.querySelector('#templates ul')?.innerText ?? ''", |v| {
            v.as_str().is_some_and(|s| s.contains("Billing QA") && s.contains("active"))
        })
        .await;
    browser.type_into("#preset-name", "Support line").await;
    browser.type_into("#preset-speakers", "Agent, Customer").await;
    browser.click("#presets form button[type=submit]").await;
    browser.click("#presets ul button:not(.danger)").await;
    browser
        .until("document.querySelector('#presets ul')?.innerText ?? ''", |v| {
            v.as_str().is_some_and(|s| s.contains("Agent, Customer") && s.contains("default"))
        })
        .await;
    // A rule, a condition at a time: the customer saying "invoice".
    browser.type_into("#rule-name", "Invoice").await;
    browser.script("document.getElementById('rule-phrase-by').value = 'customer'", json!([])).await;
    browser.type_into("#rule-phrase-phrases", "invoice").await;
    browser.click("#rule-add-condition").await;
    browser.click("#rule-form button[type=submit]").await;
    browser
        .until("document.querySelector('#rules ul.rules')?.innerText ?? ''", |v| {
            v.as_str().is_some_and(|s| s.contains("Invoice") && s.contains("the customer says: invoice"))
        })
        .await;
    // The worker files the calls stored before the rule between jobs; the list follows on its own.
    browser
        .until("document.querySelector('#rules ul.rules')?.innerText ?? ''", |v| v.as_str().is_some_and(|s| !s.contains("checking earlier calls")))
        .await;
    // The vocabulary, a term a line with its spoken forms after a colon: a refusal names the line
    // a person wrote it on (the fourth, past a blank one), and what is saved is what the API holds.
    browser.type_into("#vocabulary-terms", "Brightwater: bright water, write water\n\nAcme\nACME").await;
    browser.click("#vocabulary form button[type=submit]").await;
    let refused =
        browser.until("document.querySelector('#vocabulary .error')?.textContent ?? ''", |v| v.as_str().is_some_and(|s| !s.is_empty())).await;
    assert!(refused.as_str().unwrap().starts_with("line 4: "), "{refused}");
    browser.type_into("#vocabulary-terms", "Brightwater: bright water, write water\n\nAcme").await;
    // The company's names in their own box: a refusal there names it.
    browser.type_into("#vocabulary-company", "Acme").await;
    browser.click("#vocabulary form button[type=submit]").await;
    let refused = browser
        .until("document.querySelector('#vocabulary .error')?.textContent ?? ''", |v| v.as_str().is_some_and(|s| s.starts_with("The company's")))
        .await;
    assert!(refused.as_str().unwrap().starts_with("The company's names, line 1: "), "{refused}");
    browser.type_into("#vocabulary-company", "Volt Dom: wolt dom").await;
    browser.click("#vocabulary form button[type=submit]").await;
    browser.until("document.querySelector('#vocabulary label')?.textContent ?? ''", |v| v.as_str().is_some_and(|s| s.ends_with("(2 terms)"))).await;
    let vocabulary: Value = app.get(&format!("/v1/projects/{project}/vocabulary")).await.json().await.unwrap();
    assert_eq!(
        vocabulary,
        json!({"terms": [
            {"term": "Brightwater", "spokenForms": ["bright water", "write water"], "company": false},
            {"term": "Acme", "spokenForms": [], "company": false},
            {"term": "Volt Dom", "spokenForms": ["wolt dom"], "company": true}
        ]})
    );
    let shown = browser.script("return document.getElementById('vocabulary-terms').value", json!([])).await;
    assert_eq!(shown, json!("Brightwater: bright water, write water\nAcme"));
    let shown = browser.script("return document.getElementById('vocabulary-company').value", json!([])).await;
    assert_eq!(shown, json!("Volt Dom: wolt dom"));
    browser.type_into("#webhook-url", "http://127.0.0.1:9/hook").await;
    browser.click("#webhooks form button[type=submit]").await;
    let secret = browser.until("document.getElementById('webhook-secret')?.textContent ?? ''", |v| v.as_str().is_some_and(|s| !s.is_empty())).await;
    assert!(secret.as_str().unwrap().starts_with("whsec_"), "the secret, once: {secret}");
    browser.screenshot(&shots, "7-settings").await;
    browser.script("[...document.querySelectorAll('#webhooks ul button')].find(b => b.textContent === 'Send a test').click()", json!([])).await;
    browser.until("document.getElementById('deliveries').innerText", |v| v.as_str().is_some_and(|s| s.contains("webhook.test"))).await;
    // Nothing listens on port 9: the attempt fails, the next retry is an hour away, and
    // Redeliver sends it again now.
    let refreshed_attempts = "([...document.querySelectorAll('#webhooks ul button')].find(b => b.textContent === 'Deliveries').click(), \
        Number(document.querySelector('#deliveries td.number')?.textContent ?? 0))";
    browser.until(refreshed_attempts, |v| v.as_u64() == Some(1)).await;
    browser.script("[...document.querySelectorAll('#deliveries button')].find(b => b.textContent === 'Send again').click()", json!([])).await;
    browser.until(refreshed_attempts, |v| v.as_u64() == Some(2)).await;
    browser.script("[...document.querySelectorAll('#webhooks ul button')].find(b => b.textContent === 'Pause').click()", json!([])).await;
    browser.until("document.querySelector('#webhooks ul')?.innerText ?? ''", |v| v.as_str().is_some_and(|s| s.contains("paused"))).await;
    assert!(browser.script("return document.getElementById('webhook-secret')", json!([])).await.is_null(), "shown once only");

    // Re-analysis applies the new template; its answer's quote plays its moment.
    browser.go(&app.url(&format!("/{}", href.as_str().unwrap()))).await;
    browser.wait("#transcript .w").await;
    browser.script("[...document.querySelectorAll('main button')].find(b => b.textContent === 'Re-analyse').click()", json!([])).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    for attempt in 0.. {
        browser.go(&app.url(&format!("/{}?again={attempt}", href.as_str().unwrap()))).await;
        let answered = browser.script("return !!document.getElementById('answers-title')", json!([])).await;
        if answered == json!(true) {
            break;
        }
        assert!(Instant::now() < deadline, "the re-analysis never answered the template");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let answers = browser.script("return document.getElementById('answers-title').parentElement.innerText", json!([])).await;
    assert!(answers.as_str().unwrap().contains("invoice"), "{answers}");
    // Re-analysed, the call is filed by the rule, with the customer's words as its evidence; the
    // list filters by the rule and shows its label.
    let filed = browser.script("return document.getElementById('rule-matches')?.innerText ?? ''", json!([])).await;
    assert!(filed.as_str().unwrap().contains("Invoice") && filed.as_str().unwrap().contains("invoice for November"), "{filed}");
    browser.go(&app.url(&format!("/#/p/{project}/calls"))).await;
    browser.until("document.querySelectorAll('#filter-rule option').length", |v| v.as_u64() == Some(2)).await;
    browser.script("const s = document.getElementById('filter-rule'); s.value = s.options[1].value", json!([])).await;
    browser.click("form.filters button[type=submit]").await;
    let listed = browser
        .until(
            "location.hash.includes('ruleId=') && document.querySelector('main').dataset.shows === location.hash \
             ? [...document.querySelectorAll('table.calls tbody tr')].map(r => r.innerText) : null",
            |v| !v.is_null(),
        )
        .await;
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert!(listed[0].as_str().unwrap().contains("invoice call.wav") && listed[0].as_str().unwrap().contains("Invoice"), "{listed}");
    browser.go(&app.url(&format!("/{}", href.as_str().unwrap()))).await;
    browser.wait("#answers-title ~ dl a.quote").await;
    browser.script("document.getElementById('player').currentTime = 0", json!([])).await;
    // (A script's click: WebDriver aims at the middle of the box, which a quote over two lines does not cover.)
    browser.script("document.querySelector('#answers-title ~ dl a.quote').click()", json!([])).await;
    browser.until("document.getElementById('player').currentTime", |v| v.as_f64().is_some_and(|t| t > 1.0)).await;
    browser.script("document.getElementById('player').pause()", json!([])).await;

    // The transcript downloads as text, subtitles and JSON, named after the upload; the audio
    // keeps its file's name.
    browser.catch_downloads().await;
    let mut files = Vec::new();
    for label in ["Download transcript", "Subtitles (SRT)", "Subtitles (WebVTT)", "Call as JSON"] {
        files.push(browser.download("main a", label).await);
    }
    assert_eq!(files[0].0, "invoice call.txt");
    assert!(files[0].1.contains("invoice") && files[0].1.starts_with("[00:00:0"), "{}", files[0].1);
    assert_eq!(files[1].0, "invoice call.srt");
    assert!(files[1].1.starts_with("1\n00:00:0") && files[1].1.contains(" --> "), "{}", files[1].1);
    assert_eq!(files[2].0, "invoice call.vtt");
    assert!(files[2].1.starts_with("WEBVTT\n\n1\n00:00:0") && files[2].1.contains("<v "), "{}", files[2].1);
    assert_eq!(files[3].0, "invoice call.json");
    let detail: Value = serde_json::from_str(&files[3].1).unwrap();
    assert!(detail["turns"].as_array().is_some_and(|t| !t.is_empty()), "{detail}");
    browser
        .script(
            "window.downloads = []; [...document.querySelectorAll('main a')].find(a => a.textContent === 'Download audio').dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }))",
            json!([]),
        )
        .await;
    let audio = browser
        .until("window.downloads.length ? [window.downloads[0][0], window.downloads[0][1].size, window.downloads[0][1].type] : null", |v| {
            !v.is_null()
        })
        .await;
    // The speakers' names swap in one go, and the bars follow.
    let names = || browser.script("return [...document.querySelectorAll('.bars .who')].map(w => w.textContent)", json!([]));
    let before = names().await;
    assert_eq!(before.as_array().map(Vec::len), Some(2), "{before}");
    browser.click("#swap-speakers").await;
    let swapped =
        browser.until("[...document.querySelectorAll('.bars .who')].map(w => w.textContent)", |v| v[0] == before[1] && v[1] == before[0]).await;
    assert_ne!(swapped, before);
    browser.click("#swap-speakers").await;
    browser.until("[...document.querySelectorAll('.bars .who')].map(w => w.textContent)", |v| *v == before).await;
    assert_eq!(audio[0], "invoice call.wav", "the audio keeps its file's name: {audio}");
    assert!(audio[1].as_u64().unwrap() > 100_000 && audio[2].as_str().unwrap().starts_with("audio/"), "{audio}");

    // Delete, after confirming: the call with markup goes.
    browser.go(&app.url(&format!("/#/p/{project}/calls/{}", hostile_id.0))).await;
    browser.wait("#transcript").await;
    browser.script("window.confirm = () => true; document.querySelector('main button.danger').click()", json!([])).await;
    browser
        .until(
            "document.querySelector('main').dataset.shows === location.hash ? document.querySelectorAll('table.calls tbody tr').length : null",
            |v| v.as_u64() == Some(2),
        )
        .await;

    // A file dropped on the drop zone is uploaded like a chosen one.
    browser
        .script(
            "const rate = 8000, n = rate; const b = new DataView(new ArrayBuffer(44 + n * 2));
             const text = (o, s) => [...s].forEach((c, i) => b.setUint8(o + i, c.charCodeAt(0)));
             text(0, 'RIFF'); b.setUint32(4, 36 + n * 2, true); text(8, 'WAVEfmt '); b.setUint32(16, 16, true); b.setUint16(20, 1, true);
             b.setUint16(22, 1, true); b.setUint32(24, rate, true); b.setUint32(28, rate * 2, true); b.setUint16(32, 2, true); b.setUint16(34, 16, true);
             text(36, 'data'); b.setUint32(40, n * 2, true);
             for (let i = 0; i < n; i++) b.setInt16(44 + i * 2, Math.round(3000 * Math.sin(i * 2 * Math.PI * 440 / rate)), true);
             const files = new DataTransfer(); files.items.add(new File([b.buffer], 'dropped.wav', { type: 'audio/wav' }));
             document.getElementById('dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: files, bubbles: true, cancelable: true }));",
            json!([]),
        )
        .await;
    browser.until("document.querySelectorAll('.upload.completed').length", |v| v.as_u64() == Some(1)).await;
    browser.until("document.querySelectorAll('table.calls tbody tr').length", |v| v.as_u64() == Some(3)).await;

    // Polish.
    browser.click("#language").await;
    browser
        .until("document.querySelector('header nav').innerText", |v| v.as_str().is_some_and(|s| s.contains("Rozmowy") && s.contains("Zadania")))
        .await;
    assert_eq!(browser.script("return document.documentElement.lang", json!([])).await, "pl");
    // The page under the header follows once its data is in: language names, not codes.
    browser
        .until("[...document.querySelectorAll('#upload-language option')].map(o => o.textContent)", |v| *v == json!(["angielski", "polski"]))
        .await;
    browser.screenshot(&shots, "5-calls-pl").await;

    // At phone width nothing runs off the side, and a turn's time is a button the keyboard reaches.
    browser.command(reqwest::Method::POST, "/window/rect", Some(json!({"width": 390, "height": 844}))).await;
    for page in [format!("/#/p/{project}/calls?phone=1"), format!("/#/p/{project}/actions?phone=1"), format!("/#/p/{project}/settings?phone=1")] {
        browser.go(&app.url(&page)).await;
        browser.wait("main h1").await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let widths = browser.script("return [document.documentElement.scrollWidth, window.innerWidth]", json!([])).await;
        assert!(widths[0].as_u64() <= widths[1].as_u64(), "{page} is wider than the phone: {widths}");
    }
    // The settings page was the last: its vocabulary in Polish, with the count's plural form.
    let label = browser.until("document.querySelector('#vocabulary label')?.textContent ?? ''", |v| v.as_str().is_some_and(|s| !s.is_empty())).await;
    assert_eq!(label, json!("Terminy (2 terminy)"));
    browser.script("document.getElementById('vocabulary').scrollIntoView()", json!([])).await;
    browser.screenshot(&shots, "7-vocabulary-pl-phone").await;
    browser.go(&app.url(&format!("/{}", href.as_str().unwrap()))).await;
    browser.wait("#transcript .turn .when").await;
    let widths = browser.script("return [document.documentElement.scrollWidth, window.innerWidth]", json!([])).await;
    assert!(widths[0].as_u64() <= widths[1].as_u64(), "the call page is wider than the phone: {widths}");
    browser.screenshot(&shots, "8-call-phone").await;
    let second = browser.wait("#transcript .turn:nth-child(2) .when").await;
    let turn_start: f64 =
        browser.script("return Number(document.querySelector('#transcript .turn:nth-child(2)').dataset.start)", json!([])).await.as_f64().unwrap();
    browser.command(reqwest::Method::POST, &format!("/element/{second}/value"), Some(json!({"text": "\u{E007}"}))).await;
    browser.until("document.getElementById('player').currentTime", |v| v.as_f64().is_some_and(|t| (t * 1000.0 - turn_start).abs() < 600.0)).await;
    browser.script("document.getElementById('player').pause()", json!([])).await;
    // Word by word from the keyboard: Tab reaches a word, the arrows move, Enter plays from it.
    let first_word = browser.wait("#transcript .w[tabindex='0']").await;
    browser.command(reqwest::Method::POST, &format!("/element/{first_word}/value"), Some(json!({"text": "\u{E014}\u{E014}\u{E014}"}))).await;
    let focused = browser.script("return [document.activeElement.dataset.i, Number(document.activeElement.dataset.start)]", json!([])).await;
    assert_eq!(focused[0], "3", "three words on: {focused}");
    browser
        .command(
            reqwest::Method::POST,
            &format!("/element/{}/value", browser.wait("#transcript .w[data-i='3']").await),
            Some(json!({"text": "\u{E007}"})),
        )
        .await;
    let word_start = focused[1].as_f64().unwrap();
    browser.until("document.getElementById('player').currentTime", |v| v.as_f64().is_some_and(|t| (t * 1000.0 - word_start).abs() < 600.0)).await;
    browser.script("document.getElementById('player').pause()", json!([])).await;
    browser.command(reqwest::Method::POST, "/window/rect", Some(json!({"width": 1280, "height": 1000}))).await;

    // The key never reached a URL, and signing out forgets it.
    assert!(!browser.script("return location.href", json!([])).await.as_str().unwrap().contains(&app.key));
    browser.click("#sign-out").await;
    browser.wait("#api-key").await;
    assert_eq!(browser.script("return sessionStorage.length", json!([])).await, 0);
}

/// Puts `seconds` of quiet tone at 8 kHz in the audio store as `call`'s recording, as a worker
/// leaves one.
#[tokio::test]
async fn uploads_wait_their_turn_and_their_jobs_are_polled_gently() {
    // Twelve uploads a minute, then one every five seconds; no workers, so every job stays
    // queued and is followed for as long as the test looks.
    let app = spawn_app_with(Backend::Sqlite, |c| {
        c.workers = 0;
        c.rate_limit_uploads_per_minute = 12;
    })
    .await;
    let project = app.create_project("Queue").await["id"].as_str().unwrap().to_owned();
    let files = tempfile::tempdir().unwrap();
    let paths: Vec<String> = (0..14)
        .map(|i| {
            let path = files.path().join(format!("call-{i:02}.wav"));
            std::fs::write(&path, wav_bytes(8_000, 1, 0.2 + i as f32 * 0.01)).unwrap();
            path.display().to_string()
        })
        .collect();

    let browser = Browser::start().await;
    browser.go(&app.url("/")).await;
    browser.type_into("#api-key", &app.key).await;
    browser.click("form button[type=submit]").await;
    browser.until("document.querySelector('main')?.innerText ?? ''", |v| v.as_str().is_some_and(|s| s.contains("Projects"))).await;
    browser.go(&app.url(&format!("/#/p/{project}/calls"))).await;
    let input = browser.wait("#upload-files").await;
    browser.script("performance.setResourceTimingBufferSize(100000)", json!([])).await;
    browser.command(reqwest::Method::POST, &format!("/element/{input}/value"), Some(json!({"text": paths.join("\n")}))).await;

    // Photographed while the two the budget turned away wait their Retry-After.
    let waiting = "[...document.querySelectorAll('.upload')].filter(r => /sending again in \\d+ s/.test(r.innerText)).length";
    browser.until(waiting, |v| v.as_u64().is_some_and(|n| n > 0)).await;
    let shots = screenshots();
    browser.screenshot(&shots, "9-uploads-waiting").await;

    // The two the budget turned away waited their Retry-After and went through: every job is
    // queued, none failed.
    let queued = "[...document.querySelectorAll('.upload')].filter(r => /Queued \\d+%/.test(r.innerText)).length";
    browser.until(queued, |v| v.as_u64() == Some(14)).await;
    assert_eq!(browser.script("return document.querySelectorAll('.upload.failed').length", json!([])).await, 0);
    let sent = browser
        .script(
            "const e = performance.getEntriesByType('resource').filter(x => x.name.includes('/calls/upload')); \
             let most = 0; for (const a of e) { const at = a.startTime + 0.01; \
               most = Math.max(most, e.filter(b => b.startTime <= at && b.responseEnd >= at).length); } \
             return [e.length, most];",
            json!([]),
        )
        .await;
    assert!(sent[0].as_u64().unwrap() >= 16, "fourteen uploads and the retries of two: {sent}");
    assert!(sent[1].as_u64().unwrap() <= 2, "never more than two at once: {sent}");

    // Fourteen jobs that do not move are asked after longer and longer waits, one request at a
    // time: far fewer than one a second each.
    let polls = "performance.getEntriesByType('resource').filter(x => x.name.includes('/calls/jobs/')).length";
    let before = browser.script(&format!("return {polls}"), json!([])).await.as_u64().unwrap();
    tokio::time::sleep(Duration::from_secs(8)).await;
    let during = browser.script(&format!("return {polls}"), json!([])).await.as_u64().unwrap() - before;
    assert!(during <= 40, "{during} job requests in 8 s for 14 jobs (one a second each would be 112)");

    // The queue at phone width, and in Polish.
    browser.command(reqwest::Method::POST, "/window/rect", Some(json!({"width": 390, "height": 844}))).await;
    browser.screenshot(&shots, "9-uploads-phone").await;
    browser.command(reqwest::Method::POST, "/window/rect", Some(json!({"width": 1280, "height": 1000}))).await;
    browser.click("#language").await;
    browser.until("document.documentElement.lang", |v| v == "pl").await;
    browser.screenshot(&shots, "9-uploads-pl").await;
}

async fn keep_recording(app: &TestApp, call: &mut callscope_store::NewCall, seconds: f32) {
    let audio = wav_bytes(8_000, 1, seconds);
    call.size_bytes = i64::try_from(audio.len()).unwrap();
    let storage = callscope::startup::open_storage(&app.config).unwrap();
    let mut writer = storage.writer(&call.storage_path).await.unwrap();
    writer.write(&audio).await.unwrap();
    writer.finish().await.unwrap();
}

/// Gives a stored call's turns timed words, as speech recognition would: 300 ms a word from
/// each turn's start, the turns' speakers alternating.
fn with_words(mut call: callscope_store::NewCall) -> callscope_store::NewCall {
    call.transcript.words = call
        .transcript
        .turns
        .iter()
        .enumerate()
        .flat_map(|(turn, t)| {
            t.text.split_whitespace().enumerate().map(move |(i, w)| {
                let at = t.start_ms + i64::try_from(i).unwrap() * 300;
                TimedWord { text: w.into(), start_ms: at, end_ms: at + 280, speaker: turn % 2, confidence: None }
            })
        })
        .collect();
    call
}

/// What the main story leaves out, over calls stored as a worker stores them: the browser's own
/// language chosen at first, paging, the sentiment, language, date and overdue filters, the
/// board's overdue mark and its link to the moment in the call, masked personal data, and the
/// consequences a category's delete states.
#[tokio::test]
async fn the_lists_page_filter_and_mark_what_people_look_for() {
    let app = spawn_app_with(Backend::Sqlite, |c| c.workers = 0).await;
    let project = app.create_project("Sales").await["id"].as_str().unwrap().to_owned();
    let project_id = ProjectId(project.parse().unwrap());
    let levels = [SentimentLevel::Positive, SentimentLevel::Neutral, SentimentLevel::Negative, SentimentLevel::Unknown];
    let mut overdue = (String::new(), String::new());
    for i in 0..30 {
        let language = if i % 2 == 0 { Language::En } else { Language::Pl };
        let text = "Good morning, how can I help?\nMy parcel never came.\nI will send a new one by Monday.";
        let mut call = with_words(text_call(language, &format!("Call {i:02}"), text, ""));
        call.analysis.as_mut().unwrap().sentiment_level = levels[i % levels.len()];
        if i == 0 {
            // The first call's promise is overdue, and its recording is there to play.
            let item = NewActionItem {
                id: ActionItemId::new(),
                description: "Send a new parcel".into(),
                responsible_party: Some("agent".into()),
                deadline_mentioned: Some("by Monday".into()),
                due_at: Some(chrono::Utc::now() - chrono::TimeDelta::days(1)),
                evidence: Some("I will send a new one by Monday.".into()),
                priority: ActionItemPriority::High,
            };
            overdue.1 = item.id.0.to_string();
            call.analysis.as_mut().unwrap().action_items.push(item);
            keep_recording(&app, &mut call, 15.0).await;
        }
        let id = store_call(app.store.as_ref(), project_id, &call).await;
        if i == 0 {
            overdue.0 = id.0.to_string();
        }
    }

    // A browser set to Polish gets Polish at once; the switch then chooses English.
    let browser = Browser::start_in("pl").await;
    browser.go(&app.url("/")).await;
    browser.type_into("#api-key", &app.key).await;
    browser.click("form button[type=submit]").await;
    browser.until("document.documentElement.lang", |v| v == "pl").await;
    browser.until("document.querySelector('main')?.innerText ?? ''", |v| v.as_str().is_some_and(|s| s.contains("Projekty"))).await;
    browser.click("#language").await;
    browser.until("document.documentElement.lang", |v| v == "en").await;

    // Thirty calls are two pages; the second holds five.
    browser.go(&app.url(&format!("/#/p/{project}/calls"))).await;
    browser.until("document.querySelectorAll('table.calls tbody tr').length", |v| v.as_u64() == Some(25)).await;
    let pager = browser.script("return document.querySelector('nav.pager').innerText", json!([])).await;
    assert!(pager.as_str().unwrap().contains("Page 1 of 2 (30)"), "{pager}");
    browser.script("[...document.querySelectorAll('nav.pager a')].find(a => a.textContent === 'Next').click()", json!([])).await;
    browser.until("document.querySelectorAll('table.calls tbody tr').length", |v| v.as_u64() == Some(5)).await;

    // Negative English calls: the 3rd, 7th, … of the thirty, seven of them.
    let apply = |script: &str| format!("{script} document.querySelector('form.filters button[type=submit]').click();");
    browser
        .script(
            &apply("document.getElementById('filter-sentiment').value = 'negative'; document.getElementById('filter-language').value = 'en';"),
            json!([]),
        )
        .await;
    browser.until("location.hash", |v| v.as_str().is_some_and(|h| h.contains("sentimentLevel=negative") && h.contains("language=en"))).await;
    let rows = browser.until("document.querySelectorAll('table.calls tbody tr').length", |v| v.as_u64() == Some(7)).await;
    assert_eq!(rows, 7);
    let shown = browser.script("return [...document.querySelectorAll('table.calls tbody tr')].map(r => r.innerText).join('\\n')", json!([])).await;
    assert!(!shown.as_str().unwrap().contains("positive") && shown.as_str().unwrap().contains("negative"), "{shown}");
    // The filtered list downloads as CSV: the same seven calls.
    browser.catch_downloads().await;
    let csv = browser.download("form.filters a", "Download CSV").await;
    assert_eq!(csv.0, "calls.csv");
    let lines: Vec<&str> = csv.1.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 8, "a header and the seven calls: {}", csv.1);
    assert!(lines[1..].iter().all(|l| l.contains(",en,") && l.contains(",negative,")), "{}", csv.1);

    // From tomorrow on there is nothing; to today, everything (days as the browser counts them).
    browser.go(&app.url(&format!("/#/p/{project}/calls"))).await;
    browser.wait("#from").await;
    browser.script(&apply("document.getElementById('from').value = new Date(Date.now() + 86400000).toLocaleDateString('en-CA');"), json!([])).await;
    browser.until("document.querySelector('#call-list')?.innerText ?? ''", |v| v.as_str().is_some_and(|s| s.contains("No calls here yet."))).await;
    browser
        .script(
            &apply("document.getElementById('from').value = ''; document.getElementById('to').value = new Date().toLocaleDateString('en-CA');"),
            json!([]),
        )
        .await;
    browser.until("document.querySelector('nav.pager')?.innerText ?? ''", |v| v.as_str().is_some_and(|s| s.contains("(30)"))).await;

    // With overdue items: the first call only.
    browser.go(&app.url(&format!("/#/p/{project}/calls"))).await;
    browser.wait("#filter-overdue").await;
    browser.script(&apply("document.getElementById('filter-overdue').checked = true;"), json!([])).await;
    let only = browser
        .until(
            "location.hash.includes('hasOverdueItems=true') ? [...document.querySelectorAll('table.calls tbody tr')].map(r => r.innerText) : null",
            |v| v.as_array().is_some_and(|a| a.len() == 1),
        )
        .await;
    assert!(only[0].as_str().unwrap().contains("Call 00"), "{only}");

    // The board marks the item overdue and counts it; its link plays its moment in the call.
    browser.go(&app.url(&format!("/#/p/{project}/actions"))).await;
    browser.until("document.querySelector('[data-status=OVERDUE] .count')?.textContent", |v| v == "1").await;
    let marked = browser.script("return [...document.querySelectorAll('table.items tr.overdue')].map(r => r.innerText)", json!([])).await;
    assert!(marked[0].as_str().unwrap().contains("Send a new parcel") && marked[0].as_str().unwrap().contains("Overdue"), "{marked}");
    // The items download as CSV, the overdue one marked so.
    let csv = browser.download("form.filters a", "Download CSV").await;
    assert_eq!(csv.0, "action-items.csv");
    let parcel = csv.1.split("\r\n").find(|l| l.contains("Send a new parcel")).unwrap_or_default();
    assert!(parcel.contains(",PENDING,") && parcel.contains(",true,"), "the overdue item's row: {}", csv.1);
    browser.click("table.items tr.overdue td:last-child a").await;
    browser.until("location.hash", |v| v.as_str().is_some_and(|h| h.contains(&overdue.0) && h.contains(&format!("item={}", overdue.1)))).await;
    let evidence_start = browser
        .until("[...document.querySelectorAll('#transcript .w')].find(w => w.textContent === 'will')?.dataset.start ?? null", |v| !v.is_null())
        .await;
    let evidence_ms: f64 = evidence_start.as_str().unwrap().parse().unwrap();
    browser
        .until("document.getElementById('player').readyState >= 1 ? document.getElementById('player').currentTime : null", |v| {
            v.as_f64().is_some_and(|t| (t * 1000.0 - evidence_ms).abs() < 1_000.0)
        })
        .await;
    let item_shown = browser.script("return document.querySelector('.item.overdue')?.innerText ?? ''", json!([])).await;
    assert!(item_shown.as_str().unwrap().contains("Overdue"), "{item_shown}");

    // A project that masks personal data shows the placeholders, marked with their type.
    let masked = app.create_project("Masked").await["id"].as_str().unwrap().to_owned();
    let response = app.patch_json(&format!("/v1/projects/{masked}"), &json!({"piiRedaction": "mask"})).await;
    assert_eq!(response.status(), 200);
    let mut call = with_words(text_call(Language::En, "Call back", "Call me on [PHONE_NUMBER] please.", ""));
    call.transcript.pii_spans =
        vec![PiiSpan { kind: "PHONE_NUMBER".into(), turn: 0, start: 11, end: 25, confidence: 0.9, start_ms: 900, end_ms: 1_180 }];
    let masked_call = store_call(app.store.as_ref(), ProjectId(masked.parse().unwrap()), &call).await;
    browser.go(&app.url(&format!("/#/p/{masked}/calls/{}", masked_call.0))).await;
    let pii = browser.until("document.querySelector('#transcript .w.pii')?.getAttribute('aria-label') ?? null", |v| !v.is_null()).await;
    assert_eq!(pii, "[PHONE_NUMBER] (PHONE_NUMBER)");
    let said = browser.script("return document.getElementById('transcript').innerText", json!([])).await;
    assert!(said.as_str().unwrap().contains("Call me on [PHONE_NUMBER] please."), "{said}");

    // A transcript the recognizer was unsure of carries a warning that names a better model,
    // in the page's language, and its unsure words are marked.
    let mut call = with_words(text_call(Language::Pl, "Niewyraźna", "Dwa jeden ef em, tajm tajm tajm.", ""));
    for (word, confidence) in call.transcript.words.iter_mut().zip([0.9, 0.3, 0.2, 0.35, 0.4, 0.3]) {
        word.confidence = Some(confidence);
    }
    call.transcript.quality = callscope_domain::TranscriptQuality::assess(&call.transcript.words, Some("whisper-base"));
    call.analysis.as_mut().unwrap().summary.as_mut().unwrap().sentiment.turn_scores = vec![Some(-0.5)];
    call.recorded_at = Some("2026-11-20T08:30:00Z".parse().unwrap());
    let garbled = store_call(app.store.as_ref(), project_id, &call).await;
    browser.go(&app.url(&format!("/#/p/{project}/calls/{}", garbled.0))).await;
    let notice = browser.until("document.getElementById('transcript-quality')?.innerText ?? null", |v| !v.is_null()).await;
    let notice = notice.as_str().unwrap();
    assert!(notice.contains("mean word confidence 41%") && notice.contains("unsure words 83%"), "{notice}");
    assert!(notice.contains("callscope models pull deepdml/faster-whisper-large-v3-turbo-ct2"), "{notice}");
    let unsure = browser.script("return document.querySelectorAll('#transcript .w.unsure').length", json!([])).await;
    assert_eq!(unsure, 5);
    // The day the call took place, which its deadlines count from, not the upload's (in a tooltip).
    let recorded = browser.script("return document.querySelector('.facts .recorded')?.innerText ?? null", json!([])).await;
    assert!(recorded.as_str().is_some_and(|r| r.contains("20 Nov 2026")), "{recorded}");
    // The sentiment of each speaker over the call, quarter by quarter.
    let quarters = browser.script("return document.getElementById('sentiment-quarters').innerText", json!([])).await;
    assert!(quarters.as_str().is_some_and(|q| q.contains("Quarter 4") && q.contains("negative -0.50")), "{quarters}");
    // And each turn's, beside its speaker.
    let mood = browser.script("return document.querySelector('#transcript .turn .mood')?.innerText ?? null", json!([])).await;
    assert_eq!(mood, "negative -0.50");
    browser.screenshot(&screenshots(), "9-unreliable-transcript").await;
    // In Polish, at phone width: the warning is translated and nothing runs off the side.
    browser.click("#language").await;
    browser.command(reqwest::Method::POST, "/window/rect", Some(json!({"width": 390, "height": 844}))).await;
    let notice = browser
        .until("document.getElementById('transcript-quality')?.innerText ?? ''", |v| {
            v.as_str().is_some_and(|s| s.contains("średnia pewność słów 41%"))
        })
        .await;
    assert!(notice.as_str().unwrap().contains("callscope models pull deepdml/faster-whisper-large-v3-turbo-ct2"), "{notice}");
    let quarters = browser.script("return document.getElementById('sentiment-quarters').innerText", json!([])).await;
    assert!(quarters.as_str().is_some_and(|q| q.contains("Ćwierć 4") && q.contains("negatywny -0.50")), "{quarters}");
    // No English left on the page in Polish: the language is named, not coded.
    let facts = browser.script("return document.querySelector('.facts').innerText", json!([])).await;
    assert!(
        facts.as_str().is_some_and(|f| (f.contains("angielski") || f.contains("polski")) && !f.contains(" en ") && !f.contains(" pl ")),
        "{facts}"
    );
    // Counted nouns take the form their number asks for, in Polish three of them.
    let counted = browser
    .script_async(
        "const done = arguments[0]; import('/app/i18n.js').then(m => done([1, 2, 5, 12, 22, 25, 101, 112].map(n => m.count(n, 'call', 'pl')).concat([m.count(1, 'call', 'en'), m.count(3, 'word', 'en'), m.count(4, 'turn', 'pl')])))",
        json!([]),
    )
    .await;
    assert_eq!(
        counted,
        json!([
            "1 rozmowa", "2 rozmowy", "5 rozmów", "12 rozmów", "22 rozmowy", "25 rozmów", "101 rozmów", "112 rozmów", "1 call", "3 words",
            "4 wypowiedzi"
        ])
    );
    let widths = browser.script("return [document.documentElement.scrollWidth, window.innerWidth]", json!([])).await;
    assert!(widths[0].as_u64() <= widths[1].as_u64(), "the warning is wider than the phone: {widths}");
    browser.screenshot(&screenshots(), "9-unreliable-transcript-pl-phone").await;
    browser.click("#language").await;
    browser.command(reqwest::Method::POST, "/window/rect", Some(json!({"width": 1280, "height": 1000}))).await;
    browser.go(&app.url(&format!("/#/p/{project}/calls/{}", overdue.0))).await;
    browser.wait("#transcript .w").await;
    let none = browser.script("return document.getElementById('transcript-quality')", json!([])).await;
    assert!(none.is_null(), "a call without a verdict carries no warning");

    // Deleting a category says what goes with it; refusing keeps it.
    let billing = app.post_json(&format!("/v1/projects/{project}/categories"), &json!({"name": "Billing"})).await.json::<Value>().await.unwrap();
    let billing_id = billing["id"].as_str().unwrap();
    let child = json!({"name": "Refunds", "parentId": billing_id});
    assert_eq!(app.post_json(&format!("/v1/projects/{project}/categories"), &child).await.status(), 201);
    let moved = app.patch_json(&format!("/v1/projects/{project}/calls/{}/category", overdue.0), &json!({"categoryId": billing_id})).await;
    assert_eq!(moved.status(), 200);
    browser.go(&app.url(&format!("/#/p/{project}/settings"))).await;
    browser.wait("#categories .tree").await;
    browser
        .script(
            "window.confirm = (message) => { window.asked = message; return false; };
             [...document.querySelectorAll('#categories .tree li')].find(l => l.querySelector('.rename').value === 'Billing').querySelector('button.danger').click();",
            json!([]),
        )
        .await;
    let asked = browser.until("window.asked ?? null", |v| !v.is_null()).await;
    assert_eq!(asked, "Delete \"Billing\"? Categories below it, deleted with it: 1. Calls that become uncategorized: 1.");
    let tree: Value = app.get(&format!("/v1/projects/{project}/categories")).await.json().await.unwrap();
    assert_eq!(tree[0]["name"], "Billing", "refused, so kept: {tree}");
}

/// `s` percent-encoded for a query string.
fn urlencode(s: &str) -> String {
    s.bytes().map(|b| if b.is_ascii_alphanumeric() || b == b'-' { char::from(b).to_string() } else { format!("%{b:02X}") }).collect()
}

/// The call page of a one-hour call (about 10,000 words in 720 turns, with its recording) in the
/// real browser: how long until it is interactive, and how smoothly it highlights while playing
/// and scrolls. A benchmark, not a test: `scripts/bench-web` runs it and prints the figures.
#[tokio::test]
#[ignore = "a benchmark: scripts/bench-web"]
async fn bench_the_call_page_of_a_one_hour_call() {
    let app = spawn_app_with(Backend::Sqlite, |_| {}).await;
    let project: Value = app.create_project("Long calls").await;
    let project = project["id"].as_str().unwrap().to_owned();
    let (turns, per_turn, turn_ms) = (720_usize, 14_usize, 5_000_i64);
    let vocabulary =
        ["the", "invoice", "payment", "customer", "router", "refund", "account", "tomorrow", "number", "delivery", "please", "thank", "you"];
    let mut call = text_call(Language::En, "A one-hour call", "Hello.", "");
    let (mut lines, mut words) = (Vec::new(), Vec::new());
    for turn in 0..turns {
        let start = i64::try_from(turn).unwrap() * turn_ms;
        let said: Vec<&str> = (0..per_turn).map(|w| vocabulary[(turn * 7 + w * 3) % vocabulary.len()]).collect();
        for (w, text) in said.iter().enumerate() {
            let at = start + i64::try_from(w).unwrap() * 320;
            words.push(callscope_domain::TimedWord { text: (*text).into(), start_ms: at, end_ms: at + 300, speaker: turn % 2, confidence: None });
        }
        lines.push(callscope_domain::Turn {
            speaker_id: format!("speaker_{}", turn % 2 + 1),
            text: said.join(" "),
            start_ms: start,
            end_ms: start + 4_800,
        });
    }
    call.transcript.full_text = lines.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join("\n");
    call.transcript.turns = lines;
    call.transcript.words = words;
    call.duration_s = 3_600.0;
    keep_recording(&app, &mut call, 3_600.0).await;
    let id = store_call(app.store.as_ref(), ProjectId(project.parse().unwrap()), &call).await;

    let browser = Browser::start().await;
    browser.go(&app.url("/")).await;
    browser.script("sessionStorage.setItem('callscope.key', arguments[0])", json!([app.key])).await;
    let mut loads = Vec::new();
    for attempt in 0..5 {
        // A fresh page load each time (the path changes), timed from navigation start.
        browser.go(&app.url(&format!("/?load={attempt}#/p/{project}/calls/{}", id.0))).await;
        loads.push(browser.moment_when("document.querySelectorAll('#transcript .w').length === 10080").await);
    }
    // Where the last load's time went: when each request the page made had its answer.
    let requests = browser
        .script(
            "return performance.getEntriesByType('resource').filter(r => !r.name.includes('/audio/')).map(r => [new URL(r.name).pathname.replace(/[0-9a-f-]{36}/g, '{id}'), Math.round(r.startTime), Math.round(r.responseEnd)])",
            json!([]),
        )
        .await;
    browser.until("document.getElementById('player').readyState", |v| v.as_u64().is_some_and(|s| s >= 1)).await;
    // Playing from three quarters in: the player asks for that part of the file with Range.
    let seek_to_playing = browser
        .script_async(
            "const done = arguments[arguments.length - 1]; const p = document.getElementById('player'); const started = performance.now();
             p.addEventListener('playing', () => { done(performance.now() - started); p.pause(); }, { once: true });
             p.currentTime = 2700; p.play();",
            json!([]),
        )
        .await;
    // Frame intervals while it plays from the middle (the highlight moves and scrolls along).
    // Playing from the middle: the highlight moves and the transcript follows it.
    let (playing, highlighted) = browser
        .frames(
            "const p = document.getElementById('player'); p.currentTime = 1800; p.play(); const moved = new Set();",
            "const w = document.querySelector('.w.now'); if (w) moved.add(w.dataset.i);",
            "p.pause(); return moved.size;",
            5_000,
        )
        .await;
    let (scrolling, _) = browser.frames("const t = document.getElementById('transcript');", "t.scrollTop += 400;", "return null;", 3_000).await;
    let stats = |gaps: &Value| {
        let mut g: Vec<f64> = gaps.as_array().unwrap().iter().skip(1).filter_map(Value::as_f64).collect();
        g.sort_by(f64::total_cmp);
        let at = |q: f64| g[((g.len() as f64 - 1.0) * q).round() as usize];
        (g.len(), at(0.5), at(0.95), g[g.len() - 1])
    };
    loads.sort_by(f64::total_cmp);
    println!("call page of a one-hour call: 720 turns, 10,080 words, 57.6 MB of audio");
    println!("interactive after (ms, 5 fresh loads): median {:.0}, worst {:.0}", loads[2], loads[4]);
    for request in requests.as_array().unwrap() {
        println!("  {} requested at {} ms, answered at {} ms", request[0].as_str().unwrap(), request[1], request[2]);
    }
    println!("from seeking to 45:00 to playing there: {:.0} ms", seek_to_playing.as_f64().unwrap());
    let (frames, p50, p95, worst) = stats(&playing);
    println!("playing, 5 s: {frames} frames, interval p50 {p50:.1} ms, p95 {p95:.1} ms, worst {worst:.1} ms; {highlighted} words highlighted");
    let (frames, p50, p95, worst) = stats(&scrolling);
    println!("scrolling the transcript, 3 s: {frames} frames, interval p50 {p50:.1} ms, p95 {p95:.1} ms, worst {worst:.1} ms");
}

/// The calls list with 100,000 calls in the project (`CALLSCOPE_BENCH_CALLS` for another
/// number): how long the page takes to show a page of calls after a fresh load, after going to
/// another page and with a filter, beside the same requests made straight to the API. Run by
/// `scripts/bench-web`.
#[tokio::test]
#[ignore = "a benchmark: scripts/bench-web"]
async fn bench_the_calls_list_at_100000_calls() {
    let count: usize = std::env::var("CALLSCOPE_BENCH_CALLS").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let app = spawn_app_with(Backend::Sqlite, |c| c.workers = 0).await;
    let project = app.create_project("Many calls").await["id"].as_str().unwrap().to_owned();
    let project_id = ProjectId(project.parse().unwrap());
    let levels = [SentimentLevel::Positive, SentimentLevel::Neutral, SentimentLevel::Negative, SentimentLevel::Unknown];
    let loading = Instant::now();
    for i in 0..count {
        let language = if i % 2 == 0 { Language::En } else { Language::Pl };
        let mut call = text_call(language, &format!("Call {i}"), "Hello, how can I help?\nMy invoice is missing.", "");
        call.analysis.as_mut().unwrap().sentiment_level = levels[i % levels.len()];
        store_call(app.store.as_ref(), project_id, &call).await;
    }
    println!("calls list: {count} calls loaded in {:.0} s", loading.elapsed().as_secs_f64());

    let pages = count.div_ceil(25);
    let page_at = |i: usize| 1 + (i * 397) % pages.max(1);
    let list = format!("/v1/projects/{project}/calls");
    // Forty requests straight to the API, timed to the last byte.
    let time_api = |path: &dyn Fn(usize) -> String| {
        let paths: Vec<String> = (0..40).map(path).collect();
        let app = &app;
        async move {
            let mut ms = Vec::new();
            for path in paths {
                let started = Instant::now();
                let response = app.get(&path).await;
                assert!(response.status().is_success(), "{path}");
                response.bytes().await.unwrap();
                ms.push(started.elapsed().as_secs_f64() * 1000.0);
            }
            ms
        }
    };
    let api_ms = time_api(&|i| format!("{list}?page={}&pageSize=25", page_at(i))).await;

    // The n-th call has the n-th level and alternates languages, so each pair below holds a
    // quarter of the calls.
    let filters = [("negative", "en"), ("neutral", "pl"), ("positive", "en"), ("unknown", "pl")];
    let filtered = |i: usize| {
        let (level, language) = filters[i % filters.len()];
        format!("sentimentLevel={level}&language={language}&page={}", 1 + (i * 7) % (count / 100).max(1))
    };
    let api_filtered_ms = time_api(&|i| format!("{list}?{}&pageSize=25", filtered(i))).await;

    let browser = Browser::start().await;
    browser.go(&app.url("/")).await;
    browser.script("sessionStorage.setItem('callscope.key', arguments[0])", json!([app.key])).await;
    let mut fresh_ms = Vec::new();
    for attempt in 0..5 {
        browser.go(&app.url(&format!("/?load={attempt}#/p/{project}/calls"))).await;
        fresh_ms.push(
            browser.moment_when("document.querySelectorAll('table.calls tbody tr').length === 25 && document.querySelector('nav.pager')").await,
        );
    }
    // Another page, or a filter: from the change of address to the new rows drawn.
    let change = |hash: String| {
        format!(
            "const done = arguments[arguments.length - 1];
             const before = document.querySelector('table.calls tbody tr')?.innerText;
             const started = performance.now(); location.hash = {hash:?};
             const look = () => {{ const row = document.querySelector('table.calls tbody tr');
               if (row && row.innerText !== before) done(performance.now() - started); else requestAnimationFrame(look); }};
             requestAnimationFrame(look);"
        )
    };
    let mut page_ms = Vec::new();
    for i in 1..21 {
        page_ms.push(browser.script_async(&change(format!("#/p/{project}/calls?page={}", page_at(i))), json!([])).await.as_f64().unwrap());
    }
    let mut filter_ms = Vec::new();
    for i in 0..12 {
        let hash = format!("#/p/{project}/calls?{}", filtered(i));
        filter_ms.push(browser.script_async(&change(hash), json!([])).await.as_f64().unwrap());
    }
    let report = |name: &str, mut ms: Vec<f64>| {
        ms.sort_by(f64::total_cmp);
        let at = |q: f64| ms[((ms.len() as f64 - 1.0) * q).round() as usize];
        println!("| {name} | {} | {:.0} | {:.0} | {:.0} |", ms.len(), at(0.5), at(0.95), ms[ms.len() - 1]);
    };
    println!("| calls list, {count} calls | n | p50 ms | p95 ms | max ms |");
    println!("|---|---|---|---|---|");
    report("`GET /calls` straight to the API (page of 25)", api_ms);
    report("`GET /calls` with a sentiment and language filter, straight to the API", api_filtered_ms);
    report("the page, fresh load to 25 rows drawn", fresh_ms);
    report("the page, another page to its rows drawn", page_ms);
    report("the page, a sentiment and language filter to its rows drawn", filter_ms);
}
