//! Action items from what people commit to in a call, without a model: first-person promises
//! ("I'll send you the form by Friday", "wyślę jutro potwierdzenie", "oddzwonimy do piątku") are
//! the speaker's; requests ("could you send us the photos", "proszę przesłać zdjęcia") are the
//! other party's. The deadline said with it is kept verbatim and resolved against the call's
//! date; urgency words and near deadlines set the priority.

use chrono::{DateTime, TimeZone, Utc};

use crate::text::{capitalise, fold, parties};

/// `LOW`, `MEDIUM`, `HIGH` (decisions §5): the domain's, so that what the analysis sets is
/// what the store keeps.
pub use callscope_domain::ActionItemPriority as Priority;

/// An action item found in the call.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionDraft {
    pub description: String,
    /// The speaker's name or role.
    pub responsible_party: String,
    /// The deadline as said, verbatim.
    pub deadline_mentioned: Option<String>,
    pub due_at: Option<DateTime<Utc>>,
    pub priority: Priority,
    /// The sentence it comes from.
    pub evidence: String,
    /// Index of the turn.
    pub turn: usize,
}

/// One speaker's turn.
#[derive(Debug, Clone, Copy)]
pub struct SpokenTurn<'a> {
    pub speaker: &'a str,
    pub text: &'a str,
}

const EN_PROMISE: &[&[&str]] = &[
    &["i", "will"],
    &["i", "ll"],
    &["we", "will"],
    &["we", "ll"],
    &["i", "am", "going", "to"],
    &["i", "m", "going", "to"],
    &["we", "are", "going", "to"],
    &["we", "re", "going", "to"],
    &["let", "me"],
    &["i", "shall"],
    &["i", "promise", "to"],
    &["i", "need", "to"],
    &["i", "have", "to"],
    &["we", "need", "to"],
];
const EN_REQUEST: &[&[&str]] = &[
    &["could", "you"],
    &["can", "you"],
    &["would", "you"],
    &["please"],
    &["you", "need", "to"],
    &["you", "will", "need", "to"],
    &["make", "sure", "you"],
];
/// Verbs that make a promise an action (not "I'll be honest", "I'll take a seat").
const EN_VERBS: &[&str] = &[
    "send", "email", "e", "call", "ring", "phone", "check", "look", "arrange", "book", "schedule", "process", "refund", "issue", "cancel", "update",
    "forward", "prepare", "contact", "follow", "confirm", "review", "fix", "replace", "deliver", "ship", "escalate", "investigate", "get", "reply",
    "transfer", "post", "order", "pay", "sign", "return", "submit", "upload", "share", "visit", "remind", "let", "text", "write", "provide",
    "organise", "organize", "raise", "resend", "credit", "reset", "activate", "install", "repair", "collect", "notify", "inform", "chase", "sort",
    "put", "push", "give", "drop", "scan", "open", "pass",
];
/// Courtesies that end a sentence ("…, if that's all right?") without making it a condition or
/// a question.
const COURTESY_TAGS: &[&[&str]] = &[
    &["if", "that", "s", "all", "right"],
    &["if", "that", "s", "alright"],
    &["if", "that", "s", "ok"],
    &["if", "that", "s", "okay"],
    &["if", "that", "s", "fine"],
    &["if", "that", "works"],
    &["if", "that", "works", "for", "you"],
    &["if", "that", "suits", "you"],
    &["jesli", "to", "nie", "problem"],
    &["jesli", "to", "nie", "jest", "problem"],
    &["jezeli", "to", "nie", "problem"],
];
/// The company's people, whose "will call you" is the agent's side's task.
const EN_COMPANY_ROLES: &[&str] = &[
    "engineer", "engineers", "technician", "team", "crew", "specialist", "handler", "adviser", "advisor", "assessor", "manager", "department",
    "someone", "surveyor", "installer", "fitter", "nurse", "doctor",
];
/// Words that make a company's "will" hearsay or a hope.
const EN_HEARSAY: &[&str] = &["told", "said", "says", "say", "promised", "hope", "hopefully", "apparently", "supposedly", "heard", "not", "won", "t"];
/// What the company's people do beyond [`EN_VERBS`].
const EN_COMPANY_DOES: &[&str] = &["come", "acknowledge", "assess", "inspect", "survey", "fit", "respond", "attend"];
/// The company's people, in the nominative, whose "zadzwoni" is the agent's side's task.
const PL_COMPANY_ROLES: &[&str] = &[
    "likwidator", "likwidatorka", "technik", "lekarz", "kierownik", "kierowniczka", "konsultant", "konsultantka", "doradca", "serwisant", "monter",
    "rzeczoznawca", "opiekun", "opiekunka", "specjalista", "specjalistka", "dzial", "ktos", "zespol", "koordynator", "koordynatorka", "inspektor",
    "instalator",
];
/// Verbs that report what someone else said or promised (folded).
const PL_REPORTING: &[&str] = &[
    "slysze", "slyszalam", "slyszalem", "mowia", "mowi", "mowili", "mowila", "mowil", "powiedzieli", "powiedziala", "powiedzial", "obiecali",
    "obiecala", "obiecal", "twierdzi", "twierdzili", "nadzieje", "wiem",
];
/// What the company's people will do, in the third person (folded).
const PL_COMPANY_WILL: &[&str] = &[
    "zadzwoni", "oddzwoni", "skontaktuje", "przyjedzie", "odezwie", "wysle", "przesle", "umowi", "zajmie", "obejrzy", "oceni", "przygotuje",
    "rozpatrzy", "przyjdzie", "napisze", "odpowie", "polaczy",
];
/// First-person future forms of Polish verbs of action (folded: no diacritics).
pub(crate) const PL_PROMISE: &[&str] = &[
    "wysle", "wyslemy", "zadzwonie", "zadzwonimy", "oddzwonie", "oddzwonimy", "sprawdze", "sprawdzimy", "przygotuje", "przygotujemy", "przesle",
    "przeslemy", "skontaktuje", "skontaktujemy", "zwroce", "zwrocimy", "umowie", "umowimy", "zamowie", "zamowimy", "wystawie", "wystawimy",
    "anuluje", "anulujemy", "przekaze", "przekazemy", "potwierdze", "potwierdzimy", "naprawie", "naprawimy", "wymienie", "wymienimy", "dostarcze",
    "dostarczymy", "odesle", "odeslemy", "zglosze", "zglosimy", "poinformuje", "poinformujemy", "odezwe", "odezwiemy", "przyjade", "przyjedziemy",
    "zaplace", "zaplacimy", "oplace", "podpisze", "podpiszemy", "zalatwie", "zalatwimy", "rozpatrzymy", "rozpatrze", "wyjasnie", "wyjasnimy",
    "dosle", "doslemy", "zweryfikuje", "zweryfikujemy", "zaktualizuje", "zaktualizujemy", "uruchomie", "uruchomimy", "zlece", "zlecimy",
    "zarezerwuje", "zarezerwujemy", "przypomne", "przypomnimy", "napisze", "napiszemy", "dam", "damy", "postaram", "postaramy", "musze", "musimy",
    "bede", "bedziemy", "zloze", "zlozymy", "ustawie", "ustawimy", "wrzuce", "zrobie", "dolacze", "podstawie", "podstawimy", "popytam",
    "zaakceptuje",
];
/// Polish requests to the other party: "proszę przesłać", "czy może pan wysłać", "musi pan".
const PL_REQUEST: &[&[&str]] = &[
    &["prosze", "przeslac"],
    &["prosze", "wyslac"],
    &["prosze", "o"],
    &["prosze", "zadzwonic"],
    &["prosze", "podpisac"],
    &["prosze", "sprawdzic"],
    &["prosze", "dostarczyc"],
    &["prosze", "odeslac"],
    &["prosze", "uzupelnic"],
    &["prosze", "wypelnic"],
    &["prosze", "oplacic"],
    &["czy", "moze", "pan"],
    &["czy", "moze", "pani"],
    &["czy", "mogliby", "panstwo"],
    &["musi", "pan"],
    &["musi", "pani"],
    &["trzeba", "bedzie"],
];
const URGENT: &[&str] = &[
    "urgent", "urgently", "asap", "immediately", "pilne", "pilna", "pilny", "pilnej", "pilnego", "pilnie", "natychmiast", "priorytet", "priorytetowo",
];
const URGENT_PHRASES: &[&[&str]] = &[&["as", "soon", "as", "possible"], &["right", "away"], &["jak", "najszybciej"], &["od", "razu"]];
const CONDITIONAL: &[&str] = &["if", "unless", "jesli", "jezeli", "gdyby", "jakby"];
/// Polish "when I will…" that makes a clause the speaker's condition ("sama zadzwonię, jak będę
/// chciała"; not "sprawdzę, kiedy będzie technik", a question).
const PL_WHEN: &[&[&str]] = &[&["jak", "bede"], &["kiedy", "bede"], &["gdy", "bede"]];

/// Words of a sentence with their byte offsets.
fn words(sentence: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in sentence.char_indices().chain(std::iter::once((sentence.len(), ' '))) {
        match (start, c.is_alphanumeric()) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                out.push((s, i, fold(&sentence[s..i])));
                start = None;
            }
            _ => {}
        }
    }
    out
}

fn starts_with(ws: &[(usize, usize, String)], at: usize, phrase: &[&str]) -> bool {
    ws.len() >= at + phrase.len() && ws[at..at + phrase.len()].iter().zip(phrase).all(|(w, p)| w.2 == *p)
}

/// When a call took place, and where: deadlines are resolved on the local calendar ("jutro" at
/// 00:30 in Warsaw is the day after that local date, not after the UTC one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallTime {
    pub at: DateTime<Utc>,
    pub zone: chrono_tz::Tz,
}

impl CallTime {
    pub fn new(at: DateTime<Utc>, zone: chrono_tz::Tz) -> Self {
        Self { at, zone }
    }

    /// The call's local date and time.
    pub fn local(self) -> chrono::NaiveDateTime {
        self.at.with_timezone(&self.zone).naive_local()
    }

    /// The last second of a local day, as an instant.
    pub fn end_of(self, day: chrono::NaiveDate) -> Option<DateTime<Utc>> {
        self.zone.from_local_datetime(&day.and_hms_opt(23, 59, 59)?).latest().map(|t| t.with_timezone(&Utc))
    }
}

/// A call in UTC.
impl From<DateTime<Utc>> for CallTime {
    fn from(at: DateTime<Utc>) -> Self {
        Self::new(at, chrono_tz::UTC)
    }
}

/// Words that make a date a deadline ("by Wednesday", "do piątku"), not a day something
/// happens on ("the bank holiday on Monday").
const DEADLINE_MARKERS: &[&str] = &["by", "until", "till", "before", "latest", "do", "przed", "najpozniej", "within"];

/// The deadline said in `text` (see `callscope_text::temporal`), as said and as the last second
/// of its day in the call's zone, resolved against the call's local time: in the first sentence
/// that says one, the first marked as a deadline ("With the bank holiday on Monday it'll take
/// longer, but you'll have it back by Wednesday"), else the first. A time alone is no mark
/// ("Jutro rano będzie, bo dziś system mam zablokowany do południa").
pub(crate) fn deadline_in(text: &str, call: CallTime) -> Option<(String, DateTime<Utc>)> {
    use callscope_text::temporal::Expression;
    let at = call.local();
    crate::text::sentences(text).into_iter().find_map(|sentence| {
        let resolved: Vec<(bool, String, DateTime<Utc>)> = callscope_text::deadlines(sentence)
            .into_iter()
            .filter_map(|d| {
                let day = d.expression.resolve(at)?;
                let span = &sentence[d.start..d.end];
                let before = sentence[..d.start].rsplit(|c: char| !c.is_alphanumeric()).find(|w| !w.is_empty());
                let opening = span.split(|c: char| !c.is_alphanumeric()).find(|w| !w.is_empty());
                let marked = match d.expression {
                    Expression::Time { .. } => false,
                    Expression::Days(_) | Expression::WorkingDays(_) => true,
                    _ => [before, opening].into_iter().flatten().any(|w| DEADLINE_MARKERS.contains(&fold(w).as_str())),
                };
                Some((marked, span.to_owned(), call.end_of(day)?))
            })
            .collect();
        let chosen = resolved.iter().position(|r| r.0).unwrap_or(0);
        resolved.into_iter().nth(chosen).map(|(_, said, due)| (said, due))
    })
}

/// Action items in the call's turns. A request is the other party's when the call has two
/// speakers (with more, whom it is addressed to is unknown and it is left out).
pub fn extract_actions(turns: &[SpokenTurn<'_>], call: impl Into<CallTime>) -> Vec<ActionDraft> {
    let call = call.into();
    merge_accepted(find_actions(turns, call, Reach::Precise), turns)
}

/// One item where a request was answered by a promise to do it ("Could you measure the doors by
/// Tuesday?" — "Yes, I'll get my tape out and measure them"): the person asked says, in their
/// next turn, they will do something. The fuller description is kept, and a deadline either
/// one said. Then one item where a party promises the same document again (see
/// [`merge_restated`]).
pub fn merge_accepted(items: Vec<ActionDraft>, turns: &[SpokenTurn<'_>]) -> Vec<ActionDraft> {
    merge_restated(merge_answered(items, turns))
}

/// One item where the same party promises the same Polish document twice in a call ("Chętnie
/// przygotuję ofertę" at the start, "Ofertę razem z wzorem cesji przygotuję i wyślę pani mailem.
/// Będzie ją pani miała dzisiaj" at the end): the later words are the commitment as it was
/// settled, so they are kept, with the earlier deadline when they say none. Documents are told
/// by the first one each item names, so "wyślę fakturę" and "wyślę korektę faktury" stay two.
fn merge_restated(items: Vec<ActionDraft>) -> Vec<ActionDraft> {
    use crate::antecedents::{first_polish_document, sends_or_prepares};
    let mut out: Vec<ActionDraft> = Vec::new();
    for item in items {
        // Both must send or prepare it ("Umówię technika" is no "umowa"), and not by two
        // different deadlines ("fakturę za luty dziś", "fakturę za marzec w przyszłym tygodniu").
        let document = first_polish_document(&item.description).filter(|_| sends_or_prepares(&item.description));
        let earlier = document.and_then(|d| {
            out.iter().position(|e| {
                e.responsible_party == item.responsible_party
                    && first_polish_document(&e.description) == Some(d)
                    && sends_or_prepares(&e.description)
                    && !(said_own_deadline(e) && said_own_deadline(&item) && e.due_at != item.due_at)
            })
        });
        match earlier {
            Some(at) => {
                let earlier = std::mem::replace(&mut out[at], item);
                let kept = &mut out[at];
                if kept.due_at.is_none() {
                    (kept.deadline_mentioned, kept.due_at) = (earlier.deadline_mentioned, earlier.due_at);
                }
                kept.priority = kept.priority.max(earlier.priority);
            }
            None => out.push(item),
        }
    }
    out
}

/// Whether an item's deadline was said in its own sentence (not found in the dialogue around it).
fn said_own_deadline(item: &ActionDraft) -> bool {
    item.deadline_mentioned.as_deref().is_some_and(|said| item.evidence.contains(said))
}

/// The request-and-acceptance half of [`merge_accepted`].
fn merge_answered(items: Vec<ActionDraft>, turns: &[SpokenTurn<'_>]) -> Vec<ActionDraft> {
    let speaker = |item: &ActionDraft| turns.get(item.turn).map(|t| t.speaker);
    let mut out: Vec<ActionDraft> = Vec::new();
    for item in items {
        let promise = speaker(&item) == Some(item.responsible_party.as_str());
        // The owner's turn right after the request's turn (the other party's, asked).
        let answered = out.iter().rposition(|request| {
            speaker(request) != Some(request.responsible_party.as_str())
                && request.responsible_party == item.responsible_party
                && (request.turn + 1..=item.turn).filter(|&t| turns.get(t).map(|x| x.speaker) == Some(item.responsible_party.as_str())).count() == 1
                && turns.get(item.turn).map(|x| x.speaker) == Some(item.responsible_party.as_str())
        });
        match answered.filter(|_| promise) {
            Some(at) => {
                let request = &mut out[at];
                if item.description.split_whitespace().count() > request.description.split_whitespace().count() {
                    request.description = item.description;
                    request.evidence = item.evidence;
                    request.turn = item.turn;
                }
                if request.due_at.is_none() {
                    (request.deadline_mentioned, request.due_at) = (item.deadline_mentioned, item.due_at);
                }
                request.priority = request.priority.max(item.priority);
            }
            None => out.push(item),
        }
    }
    out
}

/// Where the precise search finds items, before requests and their acceptance are merged: each
/// item's turn and evidence, to tell which of [`propose_actions`]'s candidates it holds sure.
/// "Let me check" is mostly done while the customer waits, so the model decides those.
pub fn find_precise(turns: &[SpokenTurn<'_>], call: impl Into<CallTime>) -> Vec<(usize, String)> {
    let call = call.into();
    find_actions(turns, call, Reach::Precise).into_iter().filter(|a| !fold(&a.evidence).contains("let me")).map(|a| (a.turn, a.evidence)).collect()
}

/// Candidate action items for a model to confirm: every promise and request, whatever its verb
/// ("I'll have the engineer ring you", "can you keep the receipt"), and offers ("I can send
/// you…"). Many are not items; [`extract_actions`] keeps only the sure ones, this keeps all
/// that might be, so that a yes or no per candidate decides.
pub fn propose_actions(turns: &[SpokenTurn<'_>], call: impl Into<CallTime>) -> Vec<ActionDraft> {
    let call = call.into();
    find_actions(turns, call, Reach::Wide)
}

/// How far [`find_actions`] reaches: only promises and requests with a verb of action, or all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    Precise,
    Wide,
}

/// Promises a wide search adds: offers and assurances that are commitments as often as not.
const EN_WIDE_PROMISE: &[&[&str]] = &[&["i", "can"], &["we", "can"], &["i", "ll", "make", "sure"], &["we", "ll", "make", "sure"]];
/// Requests a wide search adds.
/// Polish requests a wide search adds: "wystarczy wypełnić", "trzeba ją przelać", "potrzebuję skanu".
const PL_WIDE_REQUEST: &[&[&str]] = &[&["wystarczy"], &["trzeba"], &["potrzebuje"], &["potrzebujemy"], &["musi", "pan"], &["musi", "pani"]];
const EN_WIDE_REQUEST: &[&[&str]] = &[
    &["you", "ll", "need", "to"],
    &["i", "need", "you", "to"],
    &["we", "need", "you", "to"],
    &["remember", "to"],
    &["don", "t", "forget", "to"],
    &["you", "have", "to"],
    &["you", "must"],
];
/// Words after "I'll" that make no action ("I'll be honest", "I can't"), states and feelings
/// among them ("I'll sleep better", "we'll know").
const NOT_ACTIONS: &[&str] = &[
    "be", "still", "take", "try", "see", "tell", "t", "not", "never", "only", "sleep", "feel", "know", "love", "like", "hope", "think", "enjoy",
    "miss", "understand", "believe", "wait",
];
/// Words read past between a promise and its verb ("I'll also order", "we'll just check").
const ADVERBS: &[&str] = &["also", "just", "definitely", "personally", "then", "now", "certainly", "quickly", "first", "gladly"];
/// Words read past at the start of a Polish clause.
const PL_FILLERS: &[&str] = &[
    "dobrze", "tak", "to", "ja", "my", "oczywiscie", "no", "ok", "okej", "juz", "jeszcze", "zaraz", "wiec", "i", "a", "wobec", "tego", "dzisiaj",
    "jutro", "teraz", "od", "razu", "w", "takim", "razie", "sam", "sama", "chetnie",
];
/// Words between a Polish modal and its infinitive ("musimy to zgłosić", "damy panu znać").
const PL_BETWEEN_MODAL: &[&str] = &["to", "sie", "panu", "pani", "panstwu", "go", "ja", "je", "jeszcze", "ci", "wam", "tez", "juz"];
/// Polish infinitives of a state or a deliberation, no task.
const PL_NOT_ACTIONS: &[&str] = &["byc", "czekac", "miec", "przemyslec", "zastanowic", "pomyslec", "policzyc", "poczekac"];

/// First-person Polish verbs that are no promise ("dziękuję", "rozumiem", "chcę").
const PL_NOT_PROMISES: &[&str] = &[
    "dziekuje", "prosze", "przepraszam", "zapraszam", "pozdrawiam", "rozumiem", "mysle", "chce", "chcemy", "moge", "mozemy", "licze", "sadze",
    "widze", "widzimy", "slucham", "jestem", "jestesmy", "mam", "mamy", "wiem", "wiemy", "pamietam", "dzwonie", "zgadzam", "ciesze", "boje",
    "obawiam", "sprawdzam", "szukam", "czekam", "czekamy", "poprosze", "potrzebuje", "potrzebujemy", "zastanowie",
];

/// Whether a Polish word (as said) looks like a verb in the first person: "wypełnię", "ustawimy",
/// "wgram", "powiem". The model confirms; this only proposes.
fn polish_first_person(word: &str) -> bool {
    let folded = fold(word);
    if folded.chars().count() < 4 || PL_NOT_PROMISES.contains(&folded.as_str()) {
        return false;
    }
    // "-łam", "-łem", "-liśmy": the past, something done, not promised.
    if ["lam", "lem", "lismy", "lysmy"].iter().any(|e| folded.ends_with(e)) {
        return false;
    }
    word.ends_with('ę')
        || ["emy", "imy", "ymy", "amy"].iter().any(|e| folded.ends_with(e))
        || (folded.chars().count() >= 5 && (folded.ends_with("am") || folded.ends_with("iem")))
}

/// Whether a Polish word read as a first-person verb is written as another word: in a text
/// that writes diacritics, "umowie" (in the contract) is not "umówię" (I'll arrange), nor
/// "przesle" "prześlę". The singular first person ends in "ę".
fn spelled_as_another_word(word: &str, sentence: &str) -> bool {
    let writes_diacritics = sentence.chars().any(|c| "ąćęłńóśźżĄĆĘŁŃÓŚŹŻ".contains(c));
    writes_diacritics && fold(word).ends_with('e') && !word.ends_with('ę') && !word.ends_with('Ę')
}

/// How many words of an object may stand before a Polish verb of promise and be taken into the
/// item's words.
const FRONTED_OBJECT: usize = 6;

/// Objects that leave an item's words saying nothing ("send you those", "wyślę je").
const PRONOUNS: &[&str] = &["those", "them", "it", "that", "this", "these", "one", "je", "to", "go", "ja", "te"];
/// "I'm …ing" that is not a commitment in progress ("I'm calling about", "I'm afraid").
const NOT_IN_PROGRESS: &[&str] = &["going", "calling", "speaking", "ringing", "trying", "wondering", "having", "hoping", "phoning"];
/// Subjects of "will" whose sentence is no one's task ("it'll take a week", "you'll get a text").
const NOT_DOERS: &[&str] = &["i", "we", "you", "it", "that", "this", "there", "which", "what", "who", "he", "she"];
/// Where a sentence splits into clauses that may each hold an item ("I'll email the summary, and
/// you'll need to accept it by Friday").
const CLAUSE_BREAKS: &[&str] = &[", and ", ", but ", ", so ", "; ", ", a ", ", i ", ", ale ", ", więc "];

/// A sentence's clauses, split where [`CLAUSE_BREAKS`] join them.
fn clauses(sentence: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    // Lowercasing can change a character's byte length outside ASCII ('ẞ' to 'ß' shrinks, 'Ⱥ' to
    // 'ⱥ' grows, so the totals may still agree): split only when no character's did, so that the
    // lowercase text's offsets are the sentence's.
    let keeps_offsets = |c: char| {
        let mut lower = c.to_lowercase();
        lower.next().is_some_and(|l| l.len_utf8() == c.len_utf8()) && lower.next().is_none()
    };
    if !sentence.chars().all(keeps_offsets) {
        return vec![sentence];
    }
    let lower = sentence.to_lowercase();
    let mut at = 0;
    while at < lower.len() {
        match CLAUSE_BREAKS.iter().find(|b| lower[at..].starts_with(**b)) {
            Some(b) => {
                out.push(sentence[start..at].trim());
                // The clause starts after the comma, with its conjunction.
                start = at + 1;
                at += b.len();
            }
            None => at += lower[at..].chars().next().map_or(1, char::len_utf8),
        }
    }
    out.push(sentence[start..].trim());
    out.retain(|c| !c.is_empty());
    out
}

fn find_actions(turns: &[SpokenTurn<'_>], call: CallTime, reach: Reach) -> Vec<ActionDraft> {
    let wide = reach == Reach::Wide;
    // In a wide search a promise needs any verb after it, not one from the list.
    let is_action = |word: &str| EN_VERBS.contains(&word) || (wide && !NOT_ACTIONS.contains(&word) && !ADVERBS.contains(&word));
    let speakers = parties(turns.iter().map(|t| t.speaker));
    let other = |me: &str| {
        if speakers.len() == 2 {
            speakers.iter().find(|s| **s != me).copied()
        } else {
            None
        }
    };
    let mut out: Vec<ActionDraft> = Vec::new();
    for (turn_index, turn) in turns.iter().enumerate() {
        let first_turn = !turns[..turn_index].iter().any(|t| t.speaker == turn.speaker);
        let sentences: Vec<&str> = turn.text.split_inclusive(['.', '!', '?', '…']).map(str::trim).filter(|s| !s.is_empty()).collect();
        // The two turns before this one: what an item's "it" may stand for.
        let earlier: Vec<&str> = turns[turn_index.saturating_sub(2)..turn_index].iter().map(|t| t.text).collect();
        for (sentence_index, whole) in sentences.iter().copied().enumerate() {
            let parts = clauses(whole);
            let mut from_sentence: Vec<ActionDraft> = Vec::new();
            // A condition that opens its clause holds the clauses after it too ("Gdyby nadal nie
            // było prądu, a u sąsiadów już by był, proszę zadzwonić"), not those before it; a
            // sentence opened by "wtedy" is a condition's consequence ("Wtedy wyślemy nowy").
            let mut held = false;
            for (clause_index, sentence) in parts.iter().copied().enumerate() {
                let mut ws = words(sentence);
                // "I'll let you know by the fifth, if that's all right?": a courtesy, neither a
                // condition nor a question.
                let courtesy = COURTESY_TAGS
                    .iter()
                    .find(|tag| ws.len() > tag.len() && ws[ws.len() - tag.len()..].iter().map(|w| w.2.as_str()).eq(tag.iter().copied()));
                if let Some(tag) = courtesy {
                    ws.truncate(ws.len() - tag.len());
                }
                let end = if courtesy.is_some() { ws.last().map_or(sentence.len(), |w| w.1) } else { sentence.len() };
                let lead = ws.iter().map(|w| w.2.as_str()).find(|w| !PL_FILLERS.contains(w));
                let opens_a_condition = lead.is_some_and(|w| CONDITIONAL.contains(&w) || (w == "wtedy" && clause_index == 0));
                let conditional = held
                    || opens_a_condition
                    || ws.iter().any(|w| CONDITIONAL.contains(&w.2.as_str()))
                    || (0..ws.len()).any(|i| PL_WHEN.iter().any(|p| starts_with(&ws, i, p)));
                held |= opens_a_condition;
                if conditional {
                    continue;
                }
                let question = whole.ends_with('?') && !(courtesy.is_some() && clause_index + 1 == parts.len());
                // The first word past fillers ("Dobrze, wypełnię…", "To ja powiem…"): where a
                // Polish verb in the first person says the speaker will do something.
                let first_word = ws.iter().position(|w| !PL_FILLERS.contains(&w.2.as_str())).unwrap_or(0);
                // (where the action's words start, who does it)
                let mut found: Option<(usize, &str)> = None;
                for i in 0..ws.len() {
                    if !question {
                        let wide_promise = if wide { EN_WIDE_PROMISE.iter().find(|p| starts_with(&ws, i, p)) } else { None };
                        let promise = wide_promise.or_else(|| EN_PROMISE.iter().find(|p| starts_with(&ws, i, p)));
                        // "I need to cancel my contract" in a speaker's first turn is why they
                        // called, done during the call.
                        let why_they_called = first_turn && promise.is_some_and(|p| p.contains(&"need") || p.contains(&"have"));
                        if let Some(p) = promise.filter(|_| !why_they_called) {
                            let mut verb = i + p.len();
                            while ws.get(verb).is_some_and(|w| ADVERBS.contains(&w.2.as_str())) {
                                verb += 1;
                            }
                            // "I'll make sure the refund goes through": a promise of the future
                            // only ("Let me make sure I have your address" is done now).
                            let future = p.iter().any(|w| matches!(*w, "ll" | "will"));
                            let makes_sure = future && ws.get(verb).is_some_and(|w| w.2 == "make") && ws.get(verb + 1).is_some_and(|w| w.2 == "sure");
                            // "I'll fill in the form", not "let me fill you in".
                            let fills = ws.get(verb).is_some_and(|w| w.2 == "fill")
                                && ws.get(verb + 1).is_some_and(|w| matches!(w.2.as_str(), "in" | "out" | "it" | "that" | "this" | "the" | "them"))
                                && !ws.get(verb + 2).is_some_and(|w| matches!(w.2.as_str(), "you" | "me" | "him" | "her" | "us"));
                            // "I'll take it to the post office": carried, not "take a look".
                            let carries = ws.get(verb).is_some_and(|w| w.2 == "take")
                                && ws.get(verb + 1).is_some_and(|w| matches!(w.2.as_str(), "it" | "them"))
                                && ws.get(verb + 2).is_some_and(|w| matches!(w.2.as_str(), "to" | "in" | "into" | "back"));
                            if makes_sure || fills || carries || ws.get(verb).is_some_and(|w| is_action(w.2.as_str())) {
                                found = Some((verb, turn.speaker));
                                break;
                            }
                        }
                        // "I'm raising a refund for you now": a commitment in progress.
                        let in_progress = starts_with(&ws, i, &["i", "m"]) || starts_with(&ws, i, &["we", "re"]);
                        // "I'm moving to Canada", "into a new flat": a state, not a task.
                        let relocating = ws.get(i + 2).is_some_and(|w| w.2 == "moving")
                            && ws
                                .get(i + 3)
                                .is_some_and(|w| matches!(w.2.as_str(), "to" | "into" | "house" | "abroad" | "out" | "away" | "flat" | "home"));
                        if wide
                            && in_progress
                            && !relocating
                            && ws.get(i + 2).is_some_and(|w| w.2.ends_with("ing") && !NOT_IN_PROGRESS.contains(&w.2.as_str()))
                        {
                            found = Some((i + 2, turn.speaker));
                            break;
                        }
                        // "The complaints team will contact you": the speaker's side will. The
                        // company's people are sure enough for the precise search too ("The
                        // engineer will come on the ninth", "Our complaints team will acknowledge
                        // it").
                        // Not what others said or one hopes ("They told me someone will call me
                        // back").
                        let hearsay = ws[..i].iter().any(|w| EN_HEARSAY.contains(&w.2.as_str()));
                        let company = i > 0 && EN_COMPANY_ROLES.contains(&ws[i - 1].2.as_str()) && !hearsay;
                        if (wide || company)
                            && i > 0
                            && matches!(ws[i].2.as_str(), "will" | "ll")
                            && !NOT_DOERS.contains(&ws[i - 1].2.as_str())
                            && ws.get(i + 1).is_some_and(|w| EN_VERBS.contains(&w.2.as_str()) || company && EN_COMPANY_DOES.contains(&w.2.as_str()))
                        {
                            // The item's words start with its subject ("the complaints team").
                            let subject =
                                (0..i).rev().take(3).find(|&j| matches!(ws[j].2.as_str(), "the" | "our" | "a" | "an" | "your")).unwrap_or(i - 1);
                            found = Some((subject, turn.speaker));
                            break;
                        }
                        // "muszę", "będę", "postaram się" need an action after them: not a
                        // state ("muszę być w pracy", "będę czekać").
                        let modal = matches!(ws[i].2.as_str(), "musze" | "musimy" | "bede" | "bedziemy" | "postaram" | "postaramy" | "dam" | "damy");
                        // The infinitive next, past a pronoun or two ("musimy to zgłosić", "damy
                        // panu znać", "postaram się to załatwić"); not a state or a deliberation
                        // ("muszę być", "będę czekać", "muszę to przemyśleć").
                        let infinitive = ws.iter().skip(i + 1).take(3).find(|w| !PL_BETWEEN_MODAL.contains(&w.2.as_str()));
                        let next_is_action = infinitive.is_some_and(|w| w.2.ends_with('c') && !PL_NOT_ACTIONS.contains(&w.2.as_str()));
                        if wide && i == first_word && (!modal || next_is_action) && polish_first_person(&sentence[ws[i].0..ws[i].1]) {
                            found = Some((first_word, turn.speaker));
                            break;
                        }
                        // "Likwidator zadzwoni do pana w poniedziałek", "Ktoś z działu rozliczeń
                        // oddzwoni": the company's side will, a task of the agent's.
                        if PL_COMPANY_WILL.contains(&ws[i].2.as_str()) {
                            let subject = (i.saturating_sub(4)..i).find(|&j| PL_COMPANY_ROLES.contains(&ws[j].2.as_str()));
                            // "Kierownik obiecał, że zadzwoni": what was said ("że" between);
                            // "Za każdym razem słyszę: ktoś oddzwoni", "mam nadzieję, że…": what
                            // others said or one hopes; "Technik nie przyjedzie": no task.
                            let said_or_denied = subject.is_some_and(|j| ws[j + 1..i].iter().any(|w| matches!(w.2.as_str(), "ze" | "nie")));
                            let reported = ws[..i].iter().any(|w| PL_REPORTING.contains(&w.2.as_str()));
                            // The subject in the verb's own clause ("Skargą zajmie się kierownik,
                            // przesle panu odpowiedź" is no "kierownik prześle").
                            let apart = subject.is_some_and(|j| sentence[ws[j].1..ws[i].0].contains([',', ':', ';']));
                            let not_theirs = said_or_denied || reported || apart;
                            if let Some(j) = subject.filter(|_| !not_theirs) {
                                let from = if j > 0 && matches!(ws[j - 1].2.as_str(), "nasz" | "nasza") { j - 1 } else { j };
                                found = Some((from, turn.speaker));
                                break;
                            }
                        }
                        // "Odpowiedź na piśmie dostanie pan w ciągu czternastu dni": the company
                        // answers, the agent's side's task.
                        if ws[i].2 == "odpowiedz"
                            && i == first_word
                            && !ws.iter().any(|w| w.2 == "nie")
                            && ws
                                .iter()
                                .skip(i + 1)
                                .take(6)
                                .any(|w| matches!(w.2.as_str(), "dostanie" | "otrzyma" | "dostana" | "otrzymaja" | "przyjdzie"))
                        {
                            found = Some((i, turn.speaker));
                            break;
                        }
                        // "Decyzję w sprawie rekompensaty dostanie pan na piśmie": what the
                        // caller will receive, the company sends.
                        if matches!(ws[i].2.as_str(), "dostanie" | "otrzyma")
                            && ws.get(i + 1).is_some_and(|w| matches!(w.2.as_str(), "pan" | "pani" | "panstwo"))
                            && i > first_word
                            && ws[i - 1].2 != "nie"
                            // Not a suggestion's consequence ("Może pani zapisać się do
                            // powiadomień, wtedy dostanie pani wiadomość").
                            && !ws[..i].iter().any(|w| matches!(w.2.as_str(), "wtedy" | "moze" | "mozna"))
                        {
                            found = Some((first_word, turn.speaker));
                            break;
                        }
                        if PL_PROMISE.contains(&ws[i].2.as_str())
                            // After a preposition it is a noun's case ("jest w umowie").
                            // After a question word it asks ("Nie wiem, co zrobię").
                            && (i == 0
                                || !matches!(ws[i - 1].2.as_str(), "nie" | "czy" | "w" | "we" | "na" | "o" | "po" | "przy" | "co" | "jak" | "gdzie" | "kiedy"))
                            && !spelled_as_another_word(&sentence[ws[i].0..ws[i].1], sentence)
                            && (!modal || next_is_action)
                        {
                            // Polish puts the object first as often as not ("Zaktualizowaną
                            // polisę prześlemy mailem", "Formularz upoważnienia do polecenia
                            // zapłaty wyślę"): the item's words start with it, after the
                            // last comma before the verb ("Jasne, zdjęcie wyślę").
                            let mut start =
                                (first_word..i).rev().find(|&j| sentence[ws[j].1..ws[j + 1].0].contains(',')).map_or(first_word, |j| j + 1);
                            while start < i && PL_FILLERS.contains(&ws[start].2.as_str()) {
                                start += 1;
                            }
                            let from = if i > start && i - start <= FRONTED_OBJECT { start } else { i };
                            found = Some((from, turn.speaker));
                            break;
                        }
                    }
                    let wide_request = if wide { EN_WIDE_REQUEST.iter().find(|p| starts_with(&ws, i, p)) } else { None };
                    if let Some(p) = wide_request.or_else(|| EN_REQUEST.iter().find(|p| starts_with(&ws, i, p))) {
                        let verb = i + p.len();
                        if let (Some(w), Some(them)) = (ws.get(verb), other(turn.speaker)) {
                            if is_action(w.2.as_str()) {
                                found = Some((verb, them));
                                break;
                            }
                        }
                    }
                    // "Nie musi pan nic wypełniać", "nie trzeba": asked not to.
                    let negated = i > 0 && ws[i - 1].2 == "nie" && !sentence[ws[i - 1].1..ws[i].0].contains(|c: char| c.is_ascii_punctuation());
                    if let Some(p) = PL_REQUEST.iter().find(|p| !negated && starts_with(&ws, i, p)) {
                        if let Some(them) = other(turn.speaker) {
                            if ws.len() > i + p.len() {
                                found = Some((i + p.len().min(1), them));
                                break;
                            }
                        }
                    }
                    let pl_wide_request = if wide && !negated { PL_WIDE_REQUEST.iter().find(|p| starts_with(&ws, i, p)) } else { None };
                    if let (Some(p), Some(them)) = (pl_wide_request, other(turn.speaker)) {
                        // From the infinitive when one follows ("trzeba ją przelać" reads
                        // "przelać"), else from the request itself ("potrzebuję skanu").
                        let infinitive = (i + p.len()..ws.len().min(i + p.len() + 3)).find(|&j| ws[j].2.ends_with('c'));
                        // "Trzeba mieć swoje naczynia": a state to be in, not a task.
                        let a_state = infinitive.is_some_and(|j| PL_NOT_ACTIONS.contains(&ws[j].2.as_str()));
                        if ws.len() > i + p.len() && !a_state {
                            found = Some((infinitive.unwrap_or(i), them));
                            break;
                        }
                    }
                }
                let Some((from, mut who)) = found else { continue };
                // The other party's next turn: whether an offer was taken up.
                let answer = turns.get(turn_index + 1).filter(|next| next.speaker != turn.speaker).map(|next| next.text);
                if let Some(why) = crate::not_tasks::not_a_task(sentence, answer) {
                    tracing::trace!(?why, sentence, "not an action item");
                    continue;
                }
                if crate::not_tasks::is_offer(sentence) {
                    who = turn.speaker;
                }
                let clause = sentence[ws[from].0..end].trim_end_matches(['.', '!', '?', ',']).trim();
                // "Email it over on Monday": named by what the call said it is, where it says
                // plainly (the sentences and clauses before it, then the two turns before).
                let before: Vec<&str> = sentences[..sentence_index].iter().chain(&parts[..clause_index]).copied().collect();
                let named = crate::antecedents::name_the_object(clause, &before, &earlier)
                    .or_else(|| crate::antecedents::name_the_polish_object(clause, &before, &earlier));
                // "Send you those" says nothing on its own: the whole clause does ("I took photos
                // of the mud, I'll send you those").
                let vague = named.is_none()
                    && clause.split_whitespace().count() < 4
                    && clause.rsplit(|c: char| !c.is_alphanumeric()).find(|w| !w.is_empty()).is_some_and(|w| PRONOUNS.contains(&fold(w).as_str()));
                let clause = if vague { sentence.trim_end_matches(['.', '!', '?', ',']).trim() } else { named.as_deref().unwrap_or(clause) };
                let description = capitalise(clause);
                if description.split_whitespace().count() < 2 {
                    continue;
                }
                let urgent =
                    ws.iter().any(|w| URGENT.contains(&w.2.as_str())) || (0..ws.len()).any(|i| URGENT_PHRASES.iter().any(|p| starts_with(&ws, i, p)));
                if out.iter().chain(&from_sentence).any(|a| fold(&a.description) == fold(&description)) {
                    continue;
                }
                // "Oddzwonię na pewno" after "Oddzwonię do pana w ciągu trzydziestu minut": the
                // same promise said again, in fewer words.
                let first = |d: &str| d.split_whitespace().next().map(fold);
                let restated = description.split_whitespace().count() <= 3
                    && out.iter().chain(&from_sentence).any(|a| a.responsible_party == who && first(&a.description) == first(&description));
                if restated {
                    continue;
                }
                let due = deadline_in(sentence, call);
                from_sentence.push(ActionDraft {
                    description,
                    responsible_party: who.to_owned(),
                    deadline_mentioned: due.as_ref().map(|d| d.0.clone()),
                    due_at: due.map(|d| d.1),
                    // Set below, once the deadline is known.
                    priority: if urgent { Priority::High } else { Priority::Low },
                    evidence: sentence.to_owned(),
                    turn: turn_index,
                });
            }
            // The only item of its sentence takes a deadline said in another clause of it ("I'll
            // send the form, and you'll have it by Friday").
            if let [only] = from_sentence.as_mut_slice() {
                if only.due_at.is_none() {
                    if let Some((said, due)) = deadline_in(whole, call) {
                        (only.deadline_mentioned, only.due_at) = (Some(said), Some(due));
                    }
                }
            }
            out.extend(from_sentence);
        }
    }
    settle_deadlines(&mut out, turns, call);
    out
}

/// Gives the items without a deadline of their own one said beside them (see
/// [`deadlines_from_the_dialogue`]), then their priority. Run on the items that are kept: a
/// model that drops candidates leaves more items alone in their turn.
pub(crate) fn settle_deadlines(items: &mut [ActionDraft], turns: &[SpokenTurn<'_>], call: CallTime) {
    deadlines_from_the_dialogue(items, turns, call);
    for item in items {
        let soon = item.due_at.is_some_and(|d| (d.with_timezone(&call.zone).date_naive() - call.local().date()).num_days() <= 1);
        if soon || item.priority == Priority::High {
            item.priority = Priority::High;
        } else if item.due_at.is_some() {
            item.priority = Priority::Medium;
        }
    }
}

/// A deadline said beside an item rather than in its sentence: later in its turn, when the turn
/// holds no other item ("I'll send you the form. You'll have it by Thursday."); in the turn it
/// answers, when it opens by accepting ("Dobrze, przeleję" after "trzeba ją przelać w ciągu
/// trzech dni"), from the sentence that shares its words; or in the other party's answer, when
/// that holds no item of its own ("— I'll post it. — Before Friday?").
fn deadlines_from_the_dialogue(items: &mut [ActionDraft], turns: &[SpokenTurn<'_>], call: CallTime) {
    let per_turn = |items: &[ActionDraft], turn: usize| items.iter().filter(|i| i.turn == turn).count();
    for at in 0..items.len() {
        if items[at].due_at.is_some() {
            continue;
        }
        let turn = items[at].turn;
        let Some(this) = turns.get(turn) else { continue };
        let mut found = None;
        if per_turn(items, turn) == 1 {
            // Only after the item's own words: a deadline before them belongs to something said
            // earlier ("the technician comes on Monday. Before then, could you…").
            let after = this.text.find(items[at].evidence.as_str()).map_or(this.text.len(), |i| i + items[at].evidence.len());
            found = deadline_in(&this.text[after..], call);
        }
        if found.is_none() {
            // With other items in the turn, the sentence right after the item's, unless its
            // deadline is another item's ("Formularz wyślę panu mailem. Będzie go pan miał w
            // ciągu godziny, […] proszę podpisać obie.").
            let after = this.text.find(items[at].evidence.as_str()).map(|i| i + items[at].evidence.len());
            let next = after.and_then(|after| crate::text::sentences(&this.text[after..]).into_iter().find(|s| s.chars().any(char::is_alphanumeric)));
            let anothers = |said: &str| items.iter().any(|i| i.turn == turn && i.evidence.contains(said));
            found = next.and_then(|s| deadline_in(s, call)).filter(|(said, _)| !anothers(said));
        }
        let other = |t: &&SpokenTurn<'_>| t.speaker != this.speaker;
        if found.is_none() {
            // "— Formularz wyślę pani mailem. — A kiedy? — Najpóźniej dziś do szesnastej."
            let asked_when = turns.get(turn + 1).filter(other).is_some_and(|t| asks_when(t.text));
            let answer = turns.get(turn + 2).filter(|t| t.speaker == this.speaker);
            if asked_when {
                found = answer.and_then(|t| deadline_in(t.text, call));
            }
        }
        if found.is_none() && opens_by_accepting(this.text) {
            let asked = turn.checked_sub(1).and_then(|t| turns.get(t)).filter(other);
            // The item's words, with the object it was named by ("Fine, I'll send it over" →
            // "Send the copy of the sales invoice over", asked for "within fourteen days").
            let said = format!("{} {}", items[at].evidence, items[at].description);
            // In that sentence, the clause that shares them ("Odpowiedź dostanie pan w ciągu
            // trzydziestu dni, a kosztorys proszę dosłać do końca przyszłego tygodnia").
            let sentence = asked.and_then(|asked| sentence_sharing_words(asked.text, &said));
            let clause = sentence.and_then(|s| clauses(s).into_iter().find_map(|c| sentence_sharing_words(c, &said)));
            found = clause.and_then(|c| deadline_in(c, call)).or_else(|| sentence.and_then(|s| deadline_in(s, call)));
        }
        if found.is_none() {
            let answer = turns.get(turn + 1).filter(other);
            if answer.is_some() && per_turn(items, turn + 1) == 0 {
                found = answer.and_then(|t| deadline_in(t.text, call));
            }
        }
        if let Some((said, due)) = found {
            (items[at].deadline_mentioned, items[at].due_at) = (Some(said), Some(due));
        }
    }
}

/// Whether a turn asks when the thing just promised will be done: a bare "A kiedy?" or "By
/// when?", or a short question that points back to it ("Kiedy mogę się jej spodziewać?"; not
/// "When will the engineer come?").
fn asks_when(text: &str) -> bool {
    let words: Vec<String> = words(text).into_iter().map(|w| w.2).collect();
    let points_back = words.iter().any(|w| matches!(w.as_str(), "it" | "that" | "them" | "jej" | "ja" | "go" | "je" | "to"));
    // "And how long does that take?", "Jak długo to potrwa?"
    // Not "How long has it been leaking?", which asks about the past.
    let how_long = words.windows(2).any(|w| matches!((w[0].as_str(), w[1].as_str()), ("how", "long") | ("jak", "dlugo")))
        && words.iter().any(|w| matches!(w.as_str(), "take" | "takes" | "potrwa" | "zajmie"));
    text.trim_end().ends_with('?')
        && words.len() <= 8
        && (how_long || words.iter().any(|w| matches!(w.as_str(), "kiedy" | "when")))
        && (words.len() <= 4 || points_back)
}

/// Whether a turn opens by accepting what was asked ("Sure, …", "Dobrze, …", "A, no tak").
fn opens_by_accepting(text: &str) -> bool {
    const ACCEPT: &[&str] =
        &["sure", "ok", "okay", "yes", "yeah", "fine", "right", "alright", "dobrze", "tak", "jasne", "oczywiscie", "zgoda", "ok", "racja", "no"];
    fold(text).split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).take(3).any(|w| ACCEPT.contains(&w))
}

/// The sentence of `text` that shares a word with `evidence` (by the first five letters, so
/// that "przelać" and "przeleję" are one word), if any.
fn sentence_sharing_words<'a>(text: &'a str, evidence: &str) -> Option<&'a str> {
    let prefixes = |s: &str| -> Vec<String> {
        fold(s).split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 5).map(|w| w.chars().take(5).collect()).collect()
    };
    let wanted = prefixes(evidence);
    text.split_inclusive(['.', '!', '?']).find(|sentence| prefixes(sentence).iter().any(|p| wanted.contains(p)))
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn a_sentence_whose_lowercase_moves_its_characters_is_not_split_inside_one() {
        // 'ẞ' lowercases one byte shorter and 'Ⱥ' one longer: the lengths agree, the offsets do not.
        let sentence = "phone 9-1182ẞ, a Ⱥ call, and I'll send it";
        assert_eq!(clauses(sentence), [sentence]);
        assert_eq!(clauses("I'll send it, and you'll sign it"), ["I'll send it", "and you'll sign it"]);
    }

    /// Each draft as (description, who, deadline, priority).
    fn outline(items: &[ActionDraft]) -> Vec<(&str, &str, Option<&str>, &str)> {
        items.iter().map(|a| (a.description.as_str(), a.responsible_party.as_str(), a.deadline_mentioned.as_deref(), a.priority.as_str())).collect()
    }

    fn call() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 18, 10, 0, 0).unwrap()
    }

    fn t<'a>(speaker: &'a str, text: &'a str) -> SpokenTurn<'a> {
        SpokenTurn { speaker, text }
    }

    /// Each item as (who, deadline said, day due).
    fn due(items: &[ActionDraft]) -> Vec<(&str, Option<&str>, Option<String>)> {
        items.iter().map(|a| (a.responsible_party.as_str(), a.deadline_mentioned.as_deref(), a.due_at.map(|d| d.date_naive().to_string()))).collect()
    }

    /// The deadlines users met wrong (issue 35): another clause's deadline, the shortest span, a
    /// month lost, any number as a day, a deadline in the next sentence or the other's answer.
    #[test]
    fn each_item_takes_its_own_deadline() {
        let items = extract_actions(
            &[t("agent", "Please sign it and send it back by November 20th, and I'll process it today."), t("customer", "Okay.")],
            call(),
        );
        assert_eq!(
            due(&items),
            [("customer", Some("by November 20th"), Some("2026-11-20".into())), ("agent", Some("today"), Some("2026-11-18".into()))]
        );
        let items = extract_actions(&[t("agent", "Prześlę panu zwrot w ciągu czternastu dni."), t("customer", "Dobrze.")], call());
        assert_eq!(due(&items), [("agent", Some("w ciągu czternastu dni"), Some("2026-12-02".into()))]);
        let items = extract_actions(&[t("agent", "I'll send you the contract by the 15th of January.")], call());
        assert_eq!(due(&items), [("agent", Some("by the 15th of January"), Some("2027-01-15".into()))]);
        let items = extract_actions(&[t("agent", "Could you send us the 2 forms by the end of the week?"), t("customer", "Sure.")], call());
        assert_eq!(due(&items), [("customer", Some("by the end of the week"), Some("2026-11-20".into()))]);
        let items = extract_actions(&[t("agent", "I'll call you back by 5 pm.")], call());
        assert_eq!(due(&items), [("agent", Some("by 5 pm"), Some("2026-11-18".into()))]);
        let items = extract_actions(&[t("agent", "I'll send you the form. You'll have it by Thursday.")], call());
        assert_eq!(due(&items), [("agent", Some("by Thursday"), Some("2026-11-19".into()))]);
        let items = extract_actions(&[t("agent", "I'll post the new card to you."), t("customer", "Before Friday?"), t("agent", "Yes.")], call());
        assert_eq!(due(&items), [("agent", Some("Before Friday"), Some("2026-11-20".into()))]);
    }

    /// A deadline is resolved on the project's calendar: half past midnight in Warsaw is still
    /// the day before in UTC, and "tomorrow" is the day after the local date.
    #[test]
    fn deadlines_follow_the_calls_time_zone() {
        let call = CallTime::new(Utc.with_ymd_and_hms(2026, 11, 18, 23, 30, 0).unwrap(), chrono_tz::Europe::Warsaw);
        let items = extract_actions(&[t("agent", "I'll call you back tomorrow."), t("customer", "Thanks.")], call);
        let due = items[0].due_at.unwrap();
        assert_eq!(due.with_timezone(&chrono_tz::Europe::Warsaw).to_rfc3339(), "2026-11-20T23:59:59+01:00");
        let utc = extract_actions(&[t("agent", "I'll call you back tomorrow."), t("customer", "Thanks.")], call.at);
        assert_eq!(utc[0].due_at.unwrap().to_rfc3339(), "2026-11-19T23:59:59+00:00", "the same instant, in UTC");
    }

    #[test]
    fn a_deadline_before_the_item_or_in_the_request_it_accepts_is_found_right() {
        let items = extract_actions(
            &[
                t("agent", "The technician will be with you on Monday. Before then, could you email us a couple of photos of the doors?"),
                t("customer", "Of course."),
            ],
            call(),
        );
        assert_eq!(due(&items), [("customer", None, None)], "Monday is the technician's, said before the request");
        let items = extract_actions(
            &[
                t("agent", "Kurier przyjedzie w poniedziałek. Umowa musi do nas wrócić podpisana w ciągu trzech dni."),
                t("customer", "A, no tak. Dobrze, wyślę podpisaną umowę."),
                t("agent", "Świetnie. To w poniedziałek pellet będzie u pana."),
            ],
            call(),
        );
        assert_eq!(due(&items), [("customer", Some("w ciągu trzech dni"), Some("2026-11-21".into()))]);
    }

    /// Tuning calls (tune3): the deadline among a sentence's dates, "how long?" asked of a
    /// promise, and the request an acceptance answers found by the object the item was named by.
    #[test]
    fn a_deadline_proper_beats_a_day_things_happen_on() {
        let items = extract_actions(
            &[t(
                "agent",
                "Once it's in, I'll put the refund for April through. With the bank holiday on Monday it'll take a bit longer, but you'll have it back by Wednesday.",
            )],
            call(),
        );
        assert_eq!(due(&items), [("agent", Some("by Wednesday"), Some("2026-11-25".into()))]);
        let items = extract_actions(
            &[
                t("agent", "I'll open an investigation with the courier and come back to you."),
                t("customer", "And how long does that take, love?"),
                t("agent", "Within two working days. If they can't get it back, we'll either refund you or send a new one."),
            ],
            call(),
        );
        assert_eq!(due(&items), [("agent", Some("Within two working days"), Some("2026-11-20".into()))]);
        let items = extract_actions(
            &[
                t("agent", "Done, you're covered to drive it away. One thing: we'll need a copy of the sales invoice within fourteen days, just to confirm the value."),
                t("customer", "Fine, I'll send it over."),
            ],
            call(),
        );
        assert_eq!(due(&items), [("customer", Some("within fourteen days"), Some("2026-12-02".into()))]);
        let items = extract_actions(
            &[
                t("agent", "Odpowiedź dostanie pan na piśmie w ciągu trzydziestu dni, a kosztorys z ASO proszę dosłać do końca przyszłego tygodnia, to go dołączymy do sprawy."),
                t("customer", "Wyślę, oczywiście, że wyślę. Ale trzydzieści dni?"),
            ],
            call(),
        );
        assert_eq!(
            due(&items),
            [
                ("agent", Some("w ciągu trzydziestu dni"), Some("2026-12-18".into())),
                ("customer", Some("do końca przyszłego tygodnia"), Some("2026-11-27".into()))
            ]
        );
        // A time alone marks no deadline: tomorrow morning is when it arrives.
        let items = extract_actions(
            &[t("agent", "Duplikat wyślę pani mailem. Jutro rano będzie na skrzynce, bo dziś system faktur mam zablokowany do południa.")],
            call(),
        );
        assert_eq!(due(&items), [("agent", Some("Jutro rano"), Some("2026-11-19".into()))]);
    }

    /// A party that promises the same document again makes one item, with the later words and
    /// deadline; another document, or the other party's, stays apart (tuning calls, tune2).
    #[test]
    fn the_same_document_promised_twice_is_one_item() {
        let items = extract_actions(
            &[
                t("agent", "Gratuluję! Chętnie przygotuję ofertę. Poproszę imię, nazwisko i datę urodzenia."),
                t("customer", "Anna Nowak, dwunasty maja osiemdziesiątego."),
                t("agent", "Ofertę razem z wzorem cesji przygotuję i wyślę pani mailem. Będzie ją pani miała dzisiaj przed siedemnastą."),
                t("customer", "Dobrze, fakturę za luty opłacę jutro."),
                t("agent", "Korektę faktury też wyślę. Umówię technika na wtorek."),
                t("customer", "A umowę?"),
                t("agent", "Umowę wyślę pani mailem. Kopię polisy wyślę jutro, a kopię umowy w piątek."),
            ],
            call(),
        );
        assert_eq!(
            outline(&items).iter().map(|i| (i.1, i.0)).collect::<Vec<_>>(),
            [
                ("agent", "Ofertę razem z wzorem cesji przygotuję i wyślę pani mailem"),
                ("customer", "Fakturę za luty opłacę jutro"),
                ("agent", "Korektę faktury też wyślę"),
                ("agent", "Umówię technika na wtorek"),
                ("agent", "Umowę wyślę pani mailem"),
                ("agent", "Kopię polisy wyślę jutro"),
            ]
        );
        assert_eq!(due(&items)[0], ("agent", Some("dzisiaj przed siedemnastą"), Some("2026-11-18".into())));
    }

    /// A deadline in the sentence right after the item's, or in the answer to "when?" (tuning
    /// calls, issue 35).
    #[test]
    fn a_deadline_said_next_or_asked_for_is_the_items() {
        let items = extract_actions(
            &[
                t("konsultant", "Skontaktuję się dziś z likwidatorem. Oddzwonię do pana z odpowiedzią. Najpóźniej w ciągu trzech dni roboczych."),
                t("klient", "Dobrze."),
            ],
            call(),
        );
        assert_eq!(
            due(&items),
            [
                ("konsultant", Some("dziś"), Some("2026-11-18".into())),
                ("konsultant", Some("w ciągu trzech dni roboczych"), Some("2026-11-23".into()))
            ]
        );
        let items = extract_actions(
            &[t("konsultant", "Formularz wyślę pani mailem."), t("klient", "A kiedy?"), t("konsultant", "Najpóźniej jutro do szesnastej.")],
            call(),
        );
        assert_eq!(due(&items), [("konsultant", Some("Najpóźniej jutro do szesnastej"), Some("2026-11-19".into()))]);
        // A question about something else is no "when?" for the item.
        let items = extract_actions(
            &[t("agent", "I'll send you the form."), t("customer", "When will the engineer come?"), t("agent", "On Monday.")],
            call(),
        );
        assert_eq!(due(&items), [("agent", None, None)]);
    }

    #[test]
    fn english_promises_and_requests() {
        let items = extract_actions(
            &[
                t("agent", "Thank you for calling. I'll send you the return label by Friday."),
                t("customer", "Great. I'll be honest, I was worried."),
                t("agent", "Could you email us a photo of the damage? We will process the refund within five days."),
                t("customer", "Sure. If it doesn't arrive I will call again."),
                t("agent", "I will check in the system tomorrow."),
                t("agent", "Let me escalate this to my manager, it is urgent."),
            ],
            call(),
        );
        assert_eq!(
            outline(&items),
            [
                ("Send you the return label by Friday", "agent", Some("by Friday"), "MEDIUM"),
                ("Email us a photo of the damage", "customer", None, "LOW"),
                ("Process the refund within five days", "agent", Some("within five days"), "MEDIUM"),
                ("Check in the system tomorrow", "agent", Some("tomorrow"), "HIGH"),
                ("Escalate this to my manager, it is urgent", "agent", None, "HIGH"),
            ]
        );
        assert_eq!(items[0].due_at.unwrap().to_rfc3339(), "2026-11-20T23:59:59+00:00");
        assert_eq!(items[0].evidence, "I'll send you the return label by Friday.");
        assert_eq!(items[1].turn, 2);
        // Verbs the fresh tuning calls promised with (tune3), and a transfer that is none.
        let items = extract_actions(
            &[
                t("agent", "I'll push the refund through as soon as the screenshot's in."),
                t("customer", "Okay."),
                t("agent", "I'll open an investigation with the courier and come back to you. I'll put you through to the keypad now."),
                t("customer", "Thanks."),
            ],
            call(),
        );
        let described: Vec<&str> = items.iter().map(|a| a.description.as_str()).collect();
        assert_eq!(
            described,
            ["Push the refund through as soon as the screenshot's in", "Open an investigation with the courier and come back to you"]
        );
    }

    #[test]
    fn a_wide_search_proposes_every_promise_and_request_whatever_the_verb() {
        let turns = [
            t("agent", "I'll have the engineer ring you on Monday. I'll be honest, it is busy."),
            t("customer", "Okay. Can you keep my old number?"),
            t("agent", "I can waive the fee. You'll need to keep the receipt. If it fails I will replace it."),
        ];
        let precise: Vec<String> = extract_actions(&turns, call()).into_iter().map(|a| a.description).collect();
        assert!(precise.is_empty(), "none of these verbs is on the precise list: {precise:?}");
        let wide: Vec<(String, String)> = propose_actions(&turns, call()).into_iter().map(|a| (a.description, a.responsible_party)).collect();
        let expected = [
            ("Have the engineer ring you on Monday", "agent"),
            ("Keep my old number", "agent"),
            ("Waive the fee", "agent"),
            ("Keep the receipt", "customer"),
        ];
        assert_eq!(wide, expected.map(|(d, w)| (d.to_owned(), w.to_owned())), "not \"be honest\", not the conditional");
    }

    /// Items a supervisor could not read without the call (tuning calls, issue 35): the thing to
    /// send stood before the Polish verb or behind an English "it".
    #[test]
    fn an_item_names_what_is_to_be_done() {
        let items = extract_actions(
            &[
                t("konsultant", "Formularz upoważnienia do polecenia zapłaty wyślę pani mailem zaraz po rozmowie."),
                t("klient", "Jasne, zdjęcie tabliczki wyślę wam jeszcze dzisiaj."),
            ],
            call(),
        );
        let described: Vec<&str> = items.iter().map(|a| a.description.as_str()).collect();
        assert_eq!(
            described,
            ["Formularz upoważnienia do polecenia zapłaty wyślę pani mailem zaraz po rozmowie", "Zdjęcie tabliczki wyślę wam jeszcze dzisiaj"]
        );
        let items = extract_actions(
            &[
                t("agent", "We will need the crime reference before we can settle anything, though."),
                t("customer", "Fine. I'll ring the police on Monday and get it to you."),
            ],
            call(),
        );
        assert_eq!(outline(&items), [("Ring the police on Monday and get the crime reference to you", "customer", Some("on Monday"), "MEDIUM")]);
        assert_eq!(items[0].evidence, "I'll ring the police on Monday and get it to you.", "the evidence is as said");
        let items = extract_actions(
            &[
                t("konsultant", "Płatność przyjęta. Wypowiedzenie musi być jeszcze złożone na piśmie, z podpisem."),
                t("klient", "Do recepcji to ja już nie wejdę. Wyślę je w poniedziałek listem poleconym."),
            ],
            call(),
        );
        assert_eq!(items[0].description, "Wyślę je (wypowiedzenie) w poniedziałek listem poleconym");
        // A promise said again in fewer words is the same item (tune3).
        let items = extract_actions(
            &[
                t("konsultant", "Oddzwonię do pana w ciągu trzydziestu minut z godziną przyjazdu lawety."),
                t("klient", "Dobrze, czekam."),
                t("konsultant", "Oddzwonię na pewno."),
            ],
            call(),
        );
        assert_eq!(items.len(), 1, "{items:?}");
    }

    /// The candidates a wide search proposes in an agent's sentence that the customer answers
    /// "Rozumiem.".
    fn proposed_for(text: &str) -> Vec<String> {
        let turns = [t("konsultant", text), t("klient", "Rozumiem.")];
        propose_actions(&turns, call()).into_iter().map(|a| a.description).collect()
    }

    /// Polish sentences that only look like promises or requests (tuning calls, issue 35).
    #[test]
    fn polish_words_that_only_look_like_promises_are_none() {
        for text in [
            "Przy umowie na dwa lata cena jest niższa.",
            "Dobrze, będę czekać.",
            "Nie musi pan nic wypełniać, wszystko zrobię.",
            "W poniedziałek muszę być w pracy.",
            "Skargą zajmie się kierownik, przesle panu odpowiedź.",
            "Jest w umowie",
        ] {
            let found = proposed_for(text);
            assert!(
                found.iter().all(|d| !d.contains("umowie")
                    && !d.contains("czekać")
                    && !d.contains("wypełniać")
                    && !d.contains("być")
                    && !d.contains("przesle")),
                "{text}: {found:?}"
            );
        }
        assert!(proposed_for("Trzeba mieć swoje naczynia, woda będzie w beczkowozie.").is_empty());
        let turns = [t("customer", "Thanks, I'll sleep a bit better now. We'll know in advance next time.")];
        assert!(propose_actions(&turns, call()).is_empty(), "states and feelings are no tasks");
        // Without diacritics in the text, the spelling says nothing: "umowie" may be "umówię".
        let found = extract_actions(&[t("konsultant", "Umowie montera na jutro."), t("klient", "Dobrze.")], call());
        assert_eq!(outline(&found), [("Umowie montera na jutro", "konsultant", Some("na jutro"), "HIGH")]);
    }

    /// A condition holds the clauses after it, not those before it; "wtedy" and "jak będę" are
    /// conditions; "Sprawdzę…" is a sentence of its own (tuning calls, issue 35).
    #[test]
    fn a_condition_holds_the_clauses_after_it() {
        for text in [
            "Gdyby po dziewiętnastej nadal nie było prądu, a u sąsiadów już by był, proszę zadzwonić jeszcze raz.",
            "Wtedy wyślemy nowy rowerek albo zwrócimy pieniądze, do wyboru.",
            "Nie, nie, sama zadzwonię, jak będę chciała.",
            "Sprawdzę… Tak, kurier oznaczył doręczenie w sobotę o czternastej.",
        ] {
            let found = proposed_for(text);
            assert!(found.is_empty(), "{text}: {found:?}");
        }
        let items = extract_actions(&[t("agent", "I'll send the form today, and if it doesn't come, call us."), t("customer", "Okay.")], call());
        assert_eq!(outline(&items), [("Send the form today", "agent", Some("today"), "HIGH")]);
        // A condition in the middle of its clause holds no clause after it; "wtedy" inside a
        // sentence is "then"; "kiedy będzie" asks; "Nie, proszę…" is no negated request; a
        // modal finds its infinitive a few words on.
        let items = extract_actions(
            &[t("agent", "I'll email you the quote if you like, and I'll book the engineer for Monday."), t("customer", "Great.")],
            call(),
        );
        assert_eq!(outline(&items), [("Book the engineer for Monday", "agent", Some("for Monday"), "MEDIUM")]);
        for text in [
            "Oddzwonię w piątek, wtedy będę wiedział więcej.",
            "Dowiem się, kiedy będzie technik.",
            "Nie, proszę przesłać skan mailem.",
            "Musimy to zgłosić do działu technicznego.",
            "Damy panu znać jutro.",
            "Postaram się to załatwić do piątku.",
        ] {
            assert_eq!(proposed_for(text).len(), 1, "{text}");
        }
        for text in ["Muszę to jeszcze przemyśleć.", "Będę czekał, choć, nie ukrywam, jestem rozczarowany.", "Muszę coś ugotować."] {
            assert_eq!(proposed_for(text), Vec::<String>::new(), "{text}");
        }
    }

    /// What a caller needs in their first turn is why they called (tuning calls, issue 35).
    #[test]
    fn the_callers_reason_is_no_item() {
        let turns = [
            t("agent", "Saltmarsh Telecom, Imogen speaking. How can I help?"),
            t("customer", "Hi, I need to cancel my contract. I'm moving to Canada."),
            t("agent", "Of course. I'll send you a final bill."),
            t("customer", "Fine. I need to return the router too, I suppose."),
        ];
        let found: Vec<(String, String)> = propose_actions(&turns, call()).into_iter().map(|a| (a.description, a.responsible_party)).collect();
        assert_eq!(
            found,
            [("Send you a final bill".to_owned(), "agent".to_owned()), ("Return the router too".to_owned(), "customer".to_owned())],
            "not the reason for the call, nor the move (a state)"
        );
    }

    #[test]
    fn polish_promises_and_requests() {
        let items = extract_actions(
            &[
                t("konsultant", "Dzień dobry. Wyślę jutro potwierdzenie mailem."),
                t("klient", "Dobrze, a kiedy będzie zwrot?"),
                t("konsultant", "Zwrócimy pieniądze do piątku. Proszę przesłać zdjęcia uszkodzenia."),
                t("klient", "Jeśli nie dostanę maila, zadzwonię jeszcze raz."),
                t("konsultant", "Oddzwonimy w przyszłym tygodniu, sprawa jest pilna."),
            ],
            call(),
        );
        assert_eq!(
            outline(&items),
            [
                ("Wyślę jutro potwierdzenie mailem", "konsultant", Some("jutro"), "HIGH"),
                ("Zwrócimy pieniądze do piątku", "konsultant", Some("do piątku"), "MEDIUM"),
                ("Przesłać zdjęcia uszkodzenia", "klient", None, "LOW"),
                ("Oddzwonimy w przyszłym tygodniu, sprawa jest pilna", "konsultant", Some("w przyszłym tygodniu"), "HIGH"),
            ]
        );
        assert_eq!(items[1].due_at.unwrap().to_rfc3339(), "2026-11-20T23:59:59+00:00");
    }

    /// What the company's people will do is the agent's side's task; what others were heard to
    /// promise, or what one hopes, is not (tuning calls, tune2 and tune3).
    #[test]
    fn the_companys_people_will_is_the_agents_item() {
        let items = extract_actions(
            &[
                t("agent", "Likwidator zadzwoni do pana w poniedziałek i umówi oględziny auta."),
                t("customer", "Trzeci raz prosiłam. Za każdym razem słyszę: ktoś oddzwoni do końca dnia."),
                t("agent", "Rozumiem. Ktoś z działu rozliczeń oddzwoni do pani w ciągu czterdziestu ośmiu godzin."),
                t("customer", "Kierownik obiecał, że zadzwoni. Mam nadzieję, że tym razem ktoś obejrzy te buty uważniej."),
                t("agent", "Po wizycie nasz lekarz konsultant zadzwoni do pani."),
            ],
            call(),
        );
        assert_eq!(
            outline(&items).iter().map(|i| (i.0, i.1)).collect::<Vec<_>>(),
            [
                ("Likwidator zadzwoni do pana w poniedziałek i umówi oględziny auta", "agent"),
                ("Ktoś z działu rozliczeń oddzwoni do pani w ciągu czterdziestu ośmiu godzin", "agent"),
                ("Nasz lekarz konsultant zadzwoni do pani", "agent"),
            ]
        );
        // In English too, but not when quoted.
        let items = extract_actions(
            &[
                t(
                    "agent",
                    "The engineer will come on the ninth of July. Our complaints team will acknowledge it in writing within five working days.",
                ),
                t("customer", "That's what the last one said. 'Someone will call you back.' Nobody did."),
            ],
            call(),
        );
        assert_eq!(
            outline(&items).iter().map(|i| (i.1, i.0)).collect::<Vec<_>>(),
            [
                ("agent", "The engineer will come on the ninth of July"),
                ("agent", "Our complaints team will acknowledge it in writing within five working days")
            ]
        );
        let items = extract_actions(&[t("agent", "Zarejestrowałem. Odpowiedź na piśmie dostanie pan w ciągu czternastu dni.")], call());
        assert_eq!(due(&items), [("agent", Some("w ciągu czternastu dni"), Some("2026-12-02".into()))]);
        let items = extract_actions(
            &[
                t("agent", "Decyzję w sprawie rekompensaty dostanie pan na piśmie. A ja jeszcze dziś ustawię raty kwartalne w systemie."),
                t("customer", "Dobrze, paragon z apteki wrzucę do aplikacji jutro rano. Przelew zrobię do siódmego."),
                t("agent", "Zrobimy to razem. Może pani zapisać się do powiadomień, wtedy dostanie pani wiadomość."),
            ],
            call(),
        );
        assert_eq!(
            outline(&items).iter().map(|i| (i.1, i.0)).collect::<Vec<_>>(),
            [
                ("agent", "Decyzję w sprawie rekompensaty dostanie pan na piśmie"),
                ("agent", "Dziś ustawię raty kwartalne w systemie"),
                ("customer", "Paragon z apteki wrzucę do aplikacji jutro rano"),
                ("customer", "Przelew zrobię do siódmego"),
            ]
        );
    }

    /// A courtesy at the end is no condition or question, and "I'll make sure" promises (tune2,
    /// tune3).
    #[test]
    fn a_courtesy_is_no_condition_and_making_sure_is_a_promise() {
        let items = extract_actions(
            &[
                t("customer", "So I'll send the certificate by the fifteenth of January, if that's all right?"),
                t("agent", "Of course. I'll make sure the refund goes through."),
                t("customer", "If the refund is late, I'll call again."),
            ],
            call(),
        );
        assert_eq!(
            outline(&items).iter().map(|i| (i.1, i.0)).collect::<Vec<_>>(),
            [("customer", "Send the certificate by the fifteenth of January"), ("agent", "Make sure the refund goes through")]
        );
        // A thing carried or a form filled in is a task; "take a look" is not.
        let items = extract_actions(
            &[
                t("customer", "I'll take it to the post office next week. I'll fill in the form on Tuesday."),
                t("agent", "Great, I'll take a look now."),
            ],
            call(),
        );
        assert_eq!(
            outline(&items).iter().map(|i| (i.1, i.0)).collect::<Vec<_>>(),
            [("customer", "Take it to the post office next week"), ("customer", "Fill in the form on Tuesday")]
        );
    }

    /// What a review found the new rules took wrongly (stop 48): a negation, hearsay, "let me
    /// make sure", "fill you in", a question word before a promise word, "how long has it been".
    #[test]
    fn negations_hearsay_and_checks_now_are_no_items() {
        let items = extract_actions(
            &[
                t("agent", "Technik nie przyjedzie w piątek. Let me just make sure I have your address right. Let me fill you in."),
                t("customer", "They told me someone will call me back within a day. Nie wiem, co zrobię."),
            ],
            call(),
        );
        assert_eq!(outline(&items), []);
        let items = extract_actions(
            &[t("customer", "I'll send photos of the leak."), t("agent", "How long has it been leaking?"), t("customer", "Since Monday.")],
            call(),
        );
        assert_eq!(due(&items), [("customer", None, None)]);
    }
}
