//! Deadlines as people say them on the phone, in English and Polish: found by typed rules and
//! resolved against the time of the call.
//!
//! The tagger reads words and the numbers [`crate::number`] found in them, and tries every rule
//! at every word; the longest match wins (maximal munch), so "by the 15th of January" is one
//! deadline, not "the 15th", and "w ciągu czternastu dni roboczych" is not "czternastu dni". A
//! number alone never makes a deadline: "two forms", "order 4471" and "at 5 GB" say nothing
//! about time. A phrase keeps its leading words ("by", "within", "no later than", "do", "w
//! ciągu", "najpóźniej") and trailing ones ("at the latest", "włącznie"), and a time next to a
//! day is one phrase with it ("by 5 pm on Friday").
//!
//! How a phrase becomes a day (the conventions a ticket would follow):
//! - today, tonight, within the hour, end of day: the call's day; tomorrow +1; the day after +2;
//! - within / in / za / w ciągu N days or weeks: N days (7N) on; N hours: the day N hours after
//!   the call's time; N working days: N weekdays on (Saturday and Sunday skipped); in a month:
//!   the same day next month (its last day when it has no such day);
//! - a weekday ("on Friday", "do piątku", "this Friday"): the next such day after the call's
//!   day; "next Friday", "w przyszły piątek": that day of the following week (weeks start on
//!   Monday);
//! - end of the week: its Friday; next week: the following week's Friday; end of the month,
//!   quarter or year (or the next one): its last day;
//! - a date with a month: that date, a year later if it has passed; a day of the month alone
//!   ("by the 15th", "do piętnastego"): the next such day on or after the call's day;
//! - a time of day alone ("by 5 pm", "o siedemnastej"): the call's day if that time is still
//!   ahead, else the next day; with a day, that day.

use chrono::{Datelike, Days, Duration, Months, NaiveDate, NaiveDateTime, NaiveTime, Weekday};

use crate::number::{numbers_in, Number, OrdinalForm};
use crate::token::{tokens, Token};

/// What a deadline says, before it is resolved against a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expression {
    /// A day counted from the call's: 0 today, 1 tomorrow, 2 the day after.
    DaysFromCall(u32),
    /// Within N days.
    Days(u32),
    /// Within N working days (Monday to Friday).
    WorkingDays(u32),
    /// Within N hours of the call's time.
    Hours(u32),
    /// In N months: the same day, N months on.
    Months(u32),
    /// A weekday: the next one after the call's day, or (`next_week`) that of the next week.
    Weekday { day: Weekday, next_week: bool },
    /// The end of a period: `ahead` periods after the call's (0: this one).
    EndOf { period: Period, ahead: u32 },
    /// A date: day, month when said, year when said.
    Date { day: u32, month: Option<u32>, year: Option<i32> },
    /// A time of day alone.
    Time { hour: u32, minute: u32 },
}

/// A stretch of the calendar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    /// Monday to Friday: its end is the Friday.
    Week,
    Month,
    Quarter,
    Year,
}

/// A deadline found in a text: where (byte offsets) and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deadline {
    pub start: usize,
    pub end: usize,
    pub expression: Expression,
}

impl Expression {
    /// The day this deadline names for a call at `call` (local time).
    /// `None` for a day before the call's: that is no deadline ("pierwszego marca 2024").
    pub fn resolve(self, call: NaiveDateTime) -> Option<NaiveDate> {
        self.day(call).filter(|day| *day >= call.date())
    }

    fn day(self, call: NaiveDateTime) -> Option<NaiveDate> {
        let today = call.date();
        match self {
            Self::DaysFromCall(n) | Self::Days(n) => today.checked_add_days(Days::new(u64::from(n))),
            Self::WorkingDays(n) => {
                let mut day = today;
                let mut left = n;
                while left > 0 {
                    day = day.succ_opt()?;
                    if day.weekday().num_days_from_monday() < 5 {
                        left -= 1;
                    }
                }
                Some(day)
            }
            Self::Hours(n) => Some(call.checked_add_signed(Duration::hours(i64::from(n)))?.date()),
            Self::Months(n) => today.checked_add_months(Months::new(n)),
            Self::Weekday { day, next_week } => {
                if next_week {
                    let monday = week_start(today)?.checked_add_days(Days::new(7))?;
                    monday.checked_add_days(Days::new(u64::from(day.num_days_from_monday())))
                } else {
                    let ahead = (7 + day.num_days_from_monday() - today.weekday().num_days_from_monday()) % 7;
                    today.checked_add_days(Days::new(u64::from(if ahead == 0 { 7 } else { ahead })))
                }
            }
            Self::EndOf { period: Period::Week, ahead } => week_start(today)?.checked_add_days(Days::new(4 + 7 * u64::from(ahead))),
            Self::EndOf { period: Period::Month, ahead } => last_day(today.checked_add_months(Months::new(ahead))?),
            Self::EndOf { period: Period::Quarter, ahead } => {
                let quarter_end_month = (today.month0() / 3) * 3 + 3;
                let first = NaiveDate::from_ymd_opt(today.year(), quarter_end_month, 1)?;
                last_day(first.checked_add_months(Months::new(3 * ahead))?)
            }
            Self::EndOf { period: Period::Year, ahead } => NaiveDate::from_ymd_opt(today.year().checked_add(i32::try_from(ahead).ok()?)?, 12, 31),
            Self::Date { day, month: Some(month), year: Some(year) } => NaiveDate::from_ymd_opt(year, month, day),
            Self::Date { day, month: Some(month), year: None } => {
                // That date this year, or the next year that has it (29 February).
                (0..=8).find_map(|ahead| NaiveDate::from_ymd_opt(today.year() + ahead, month, day).filter(|d| *d >= today))
            }
            Self::Date { day, month: None, .. } => {
                // The next such day of a month on or after the call's, skipping months without it.
                (0..=12).find_map(|ahead| {
                    let first = today.with_day(1)?.checked_add_months(Months::new(ahead))?;
                    first.with_day(day).filter(|d| *d >= today)
                })
            }
            Self::Time { hour, minute } => {
                let at = NaiveTime::from_hms_opt(hour, minute, 0)?;
                if at > call.time() {
                    Some(today)
                } else {
                    today.succ_opt()
                }
            }
        }
    }
}

fn week_start(day: NaiveDate) -> Option<NaiveDate> {
    day.checked_sub_days(Days::new(u64::from(day.weekday().num_days_from_monday())))
}

/// The last day of `day`'s month.
fn last_day(day: NaiveDate) -> Option<NaiveDate> {
    day.with_day(1)?.checked_add_months(Months::new(1))?.pred_opt()
}

/// One unit the rules read: a word, or a number read from one or more words.
#[derive(Debug, Clone)]
struct Atom {
    /// The folded word; empty for a number.
    word: String,
    number: Option<Number>,
    start: usize,
    end: usize,
    /// The text right before the atom (spacing and punctuation).
    gap_before: String,
    /// The atom's text as written.
    text: String,
}

impl Atom {
    fn is(&self, words: &[&str]) -> bool {
        words.contains(&self.word.as_str())
    }

    fn count(&self) -> Option<u32> {
        match &self.number {
            Some(n) => n.count().and_then(|n| u32::try_from(n).ok()),
            // "a week", "an hour", "tydzień".
            None if self.is(&["a", "an", "one"]) => Some(1),
            None => None,
        }
    }

    /// A day of the month: an ordinal, or a number from 1 to 31 (next to a month).
    fn day_of_month(&self, ordinal_only: bool) -> Option<u32> {
        match &self.number {
            Some(Number::Ordinal { value, form: OrdinalForm::Day }) if (1..=31).contains(value) => Some(*value),
            Some(Number::Cardinal(n)) if !ordinal_only && (1..=31).contains(n) => u32::try_from(*n).ok(),
            Some(Number::Digits(d)) if !ordinal_only && d.len() <= 2 => d.parse().ok().filter(|n| (1..=31).contains(n)),
            _ => None,
        }
    }

    /// Whether a sentence ends before this atom.
    fn after_sentence_end(&self) -> bool {
        self.gap_before.contains(['.', '?', '!', ';'])
    }
}

fn atoms(text: &str) -> Vec<Atom> {
    let words = tokens(text);
    let mentions = numbers_in(text, &words);
    let mut out = Vec::with_capacity(words.len());
    let mut next_mention = mentions.iter().peekable();
    let mut i = 0;
    let gap = |words: &[Token<'_>], i: usize| -> String {
        let from = if i == 0 { 0 } else { words[i - 1].end };
        text[from..words[i].start].to_owned()
    };
    while i < words.len() {
        if let Some(m) = next_mention.peek().filter(|m| m.first == i) {
            out.push(Atom {
                word: String::new(),
                number: Some(m.value.clone()),
                start: m.start_byte,
                end: m.end_byte,
                gap_before: gap(&words, i),
                text: text[m.start_byte..m.end_byte].to_owned(),
            });
            i = m.end;
            next_mention.next();
            continue;
        }
        out.push(Atom {
            word: words[i].folded.clone(),
            number: None,
            start: words[i].start,
            end: words[i].end,
            gap_before: gap(&words, i),
            text: words[i].text.to_owned(),
        });
        i += 1;
    }
    out
}

fn weekday(w: &str) -> Option<Weekday> {
    const EN: &[(&str, &str, Weekday)] = &[
        ("monday", "mon", Weekday::Mon),
        ("tuesday", "tue", Weekday::Tue),
        ("wednesday", "wed", Weekday::Wed),
        ("thursday", "thu", Weekday::Thu),
        ("friday", "fri", Weekday::Fri),
        ("saturday", "sat", Weekday::Sat),
        ("sunday", "sun", Weekday::Sun),
    ];
    // Singular forms only: "w piątki", "on Fridays" are every week.
    const PL: &[(&[&str], Weekday)] = &[
        (&["poniedzialek", "poniedzialku", "poniedzialkiem"], Weekday::Mon),
        (&["wtorek", "wtorku", "wtorkiem"], Weekday::Tue),
        (&["sroda", "srode", "srody", "srodzie", "sroda"], Weekday::Wed),
        (&["czwartek", "czwartku", "czwartkiem"], Weekday::Thu),
        (&["piatek", "piatku", "piatkiem"], Weekday::Fri),
        (&["sobota", "sobote", "soboty", "sobocie"], Weekday::Sat),
        (&["niedziela", "niedziele", "niedzieli"], Weekday::Sun),
    ];
    EN.iter()
        .find(|(full, short, _)| w == *full || w == *short)
        .map(|&(_, _, d)| d)
        .or_else(|| PL.iter().find(|(forms, _)| forms.contains(&w)).map(|&(_, d)| d))
}

fn month(w: &str) -> Option<u32> {
    const EN: &[&str] = &["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
    const EN_SHORT: &[&str] = &["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    // Genitive ("piętnastego grudnia"), nominative and locative ("w grudniu").
    const PL: &[&[&str]] = &[
        &["stycznia", "styczen", "styczniu"],
        &["lutego", "luty", "lutym"],
        &["marca", "marzec", "marcu"],
        &["kwietnia", "kwiecien", "kwietniu"],
        &["maja", "maj", "maju"],
        &["czerwca", "czerwiec", "czerwcu"],
        &["lipca", "lipiec", "lipcu"],
        &["sierpnia", "sierpien", "sierpniu"],
        &["wrzesnia", "wrzesien", "wrzesniu"],
        &["pazdziernika", "pazdziernik", "pazdzierniku"],
        &["listopada", "listopad", "listopadzie"],
        &["grudnia", "grudzien", "grudniu"],
    ];
    EN.iter()
        .position(|m| *m == w)
        .or_else(|| EN_SHORT.iter().position(|m| *m == w || (w == "sept")))
        .or_else(|| PL.iter().position(|forms| forms.contains(&w)))
        .map(|i| if w == "sept" { 9 } else { i as u32 + 1 })
}

/// Words that may lead a deadline and belong to its phrase, longest first.
const LEADS: &[&[&str]] = &[
    &["no", "later", "than"],
    &["not", "later", "than"],
    &["at", "the", "latest", "by"],
    &["sometime", "before"],
    &["by"],
    &["before"],
    &["until"],
    &["till"],
    &["on"],
    &["for"],
    &["najpozniej", "do"],
    &["najpozniej", "w"],
    &["najpozniej", "we"],
    &["najpozniej"],
    &["nie", "pozniej", "niz"],
    &["do"],
    &["przed"],
    &["w"],
    &["we"],
    &["na"],
    &["dnia"],
];

/// Words after a deadline that belong to its phrase.
const TAILS: &[&[&str]] = &[
    &["at", "the", "latest"],
    &["latest"],
    &["wlacznie"],
    &["najpozniej"],
    &["rano"],
    &["wieczorem"],
    &["po", "poludniu"],
    &["in", "the", "morning"],
    &["in", "the", "afternoon"],
    &["in", "the", "evening"],
    &["morning"],
    &["afternoon"],
    &["evening"],
    &["first", "thing"],
];

/// The words `seq` at `at`: where they end.
fn seq(atoms: &[Atom], at: usize, words: &[&str]) -> Option<usize> {
    (words.iter().enumerate().all(|(k, w)| atoms.get(at + k).is_some_and(|a| a.number.is_none() && a.word == *w))).then_some(at + words.len())
}

/// The longest of `options` matching at `at`.
fn any_seq(atoms: &[Atom], at: usize, options: &[&[&str]]) -> Option<usize> {
    options.iter().filter_map(|o| seq(atoms, at, o)).max()
}

/// The deadlines of a text, left to right, none overlapping.
pub fn deadlines(text: &str) -> Vec<Deadline> {
    let atoms = atoms(text);
    let mut found: Vec<(usize, usize, Expression)> = Vec::new();
    let mut i = 0;
    while i < atoms.len() {
        // The core at `i` or after a lead starting at `i`; the longest wins.
        let mut best: Option<(usize, Expression)> = core(&atoms, i, false);
        if let Some(after_lead) = any_seq(&atoms, i, LEADS) {
            if let Some((end, e)) = core(&atoms, after_lead, true) {
                best = Some((end, e));
            }
        }
        match best {
            Some((end, expression)) if !negated(&atoms, i, end) => {
                let end = any_seq(&atoms, end, TAILS).unwrap_or(end);
                found.push((i, end, expression));
                i = end;
            }
            _ => i += 1,
        }
    }
    let found: Vec<_> = found.into_iter().filter(|(from, to, e)| !context_denies(&atoms, *from, *to, e)).collect();
    merge_times(&atoms, found)
        .into_iter()
        .map(|(from, to, expression)| Deadline { start: atoms[from].start, end: atoms[to - 1].end, expression })
        .collect()
}

/// A time next to a day is one deadline, named by the day ("by 5 pm on Friday", "jutro o
/// dziesiątej").
fn merge_times(atoms: &[Atom], found: Vec<(usize, usize, Expression)>) -> Vec<(usize, usize, Expression)> {
    let mut out: Vec<(usize, usize, Expression)> = Vec::new();
    for (from, to, e) in found {
        if let Some(last) = out.last_mut() {
            let between = &atoms[last.1..from];
            let close = between.len() <= 2 && between.iter().all(|a| a.is(&["on", "at", "o", "w", "we", "the", "this", "of"]));
            let is_time = |e: &Expression| matches!(e, Expression::Time { .. });
            if close && !atoms[from].after_sentence_end() && is_time(&last.2) != is_time(&e) {
                let day = if is_time(&e) { last.2 } else { e };
                *last = (last.0, to, day);
                continue;
            }
        }
        out.push((from, to, e));
    }
    out
}

/// The atoms of the sentence and of the clause (between commas) around `from..to`.
fn surroundings(atoms: &[Atom], from: usize, to: usize, clause: bool) -> std::ops::Range<usize> {
    let ends = |a: &Atom| a.gap_before.contains(['.', '?', '!', ';', '—', '–']) || (clause && a.gap_before.contains([',', ':']));
    let start = (1..=from).rev().find(|&i| ends(&atoms[i])).unwrap_or(0);
    let end = (to..atoms.len()).find(|&i| i > from && ends(&atoms[i])).unwrap_or(atoms.len());
    start..end
}

/// Whether the sentence or clause a match stands in says it is no deadline: it tells of the
/// past ("I called yesterday at five", "technik był w poniedziałek"), asks about a date rather
/// than asking for one ("what's the date today?", "czy jesteście otwarci do dwudziestej?"), or
/// gives opening hours.
fn context_denies(atoms: &[Atom], from: usize, to: usize, expression: &Expression) -> bool {
    let clause_range = surroundings(atoms, from, to, true);
    // The clause without the phrase ("w przyszły piątek" is ahead, whatever "przyszły" looks like).
    let clause: Vec<Atom> = clause_range.filter(|k| !(from..to).contains(k)).map(|k| atoms[k].clone()).collect();
    let clause = clause.as_slice();
    let sentence_range = surroundings(atoms, from, to, false);
    let sentence = &atoms[sentence_range.clone()];
    let has = |words: &[Atom], list: &[&str]| words.iter().any(|a| a.is(list));
    // Words that put a clause ahead of now, or make it a request or an obligation.
    const AHEAD: &[&str] = &[
        "will", "ll", "shall", "going", "gonna", "need", "needs", "must", "should", "have", "has", "can", "could", "would", "please", "let", "want",
        "expect", "is", "are", "am", "be", "bedzie", "beda", "bede", "bedziemy", "zostanie", "musi", "musze", "musimy", "trzeba", "prosze",
        "prosimy", "moze", "mozna", "moge", "mozemy", "niech", "powinien", "powinna", "powinno", "ma", "mam", "maja", "jest", "zeby", "aby", "zebym",
        "zebys", "zeby", "by",
    ];
    // Words that put a clause in the past whatever else it says, and verbs that do unless
    // something puts it ahead ("it will be sent by Friday").
    const PAST: &[&str] = &["ago", "yesterday", "wczoraj", "przedwczoraj", "temu", "zeszlego", "ubieglego", "zeszlym", "ubieglym"];
    const PAST_VERBS: &[&str] = &[
        "was", "were", "had", "did", "ran", "spoke", "said", "told", "went", "came", "paid", "sent", "made", "took", "left", "saw", "bought",
        "broke", "began",
    ];
    let english_past = |a: &Atom| a.word.len() > 4 && a.word.ends_with("ed") && !a.is(&["need", "indeed", "speed", "feed", "seed", "przed"]);
    if has(clause, PAST) || (clause.iter().any(|a| a.is(PAST_VERBS) || english_past(a) || polish_past(&a.text)) && !has(clause, AHEAD)) {
        return true;
    }
    // A question about a date, not a request with one ("So I send it back by Friday?" confirms
    // one).
    let question = sentence
        .iter()
        .take(3)
        .any(|a| a.is(&["what", "whats", "when", "which", "jaki", "jaka", "jakie", "ktory", "ktora", "ktore", "ktorego", "kiedy", "czy"]));
    const REQUEST: &[&str] = &[
        "can", "could", "would", "will", "please", "moze", "mozesz", "mogliby", "moglibyscie", "mogla", "mogl", "mozna", "prosze", "bedzie", "ll",
        "need", "possible", "mozliwe", "moge", "poprosic", "mozemy",
    ];
    if question && !has(sentence, REQUEST) {
        return true;
    }
    // Opening hours: "open until six", "czynne do osiemnastej".
    const HOURS: &[&str] = &[
        "open", "opened", "opens", "close", "closes", "closing", "otwarty", "otwarte", "otwarci", "otwarta", "czynne", "czynny", "zamykaja",
        "zamykamy", "otwieraja", "otwieramy",
    ];
    if matches!(expression, Expression::Time { .. }) && has(sentence, HOURS) {
        return true;
    }
    // The end of a range: "from the 1st to the 15th of June", "od 1 do 15 czerwca".
    let before = from.checked_sub(1).map(|i| &atoms[i]);
    if before.is_some_and(|a| a.is(&["to", "and", "till"])) || atoms[from].is(&["to", "till"]) {
        let opened = clause.iter().take_while(|a| a.start < atoms[from].start).any(|a| a.is(&["from", "between", "od"]));
        if opened {
            return true;
        }
    }
    false
}

/// A Polish verb in the past tense ("był", "dzwoniłam", "przeprowadziliśmy", "trwała"), by its
/// ending as written: "ł" and its forms, or "-li" after a vowel ("zrobili").
fn polish_past(written: &str) -> bool {
    const NOUNS: &[&str] = &[
        "cały", "cała", "całe", "miły", "miła", "stały", "stała", "mały", "mała", "biały", "biała", "przyszły", "przyszłe", "szkoła", "sala",
        "skała", "fala", "wola", "piła", "kula", "dział", "kanał", "sygnał", "materiał", "udział", "rozdział", "kwartał", "szpital", "hotel",
        "model", "cel", "stół", "pół", "dół", "wół",
    ];
    let word = written.to_lowercase();
    if word.chars().count() < 3 || NOUNS.contains(&word.as_str()) {
        return false;
    }
    const ENDINGS: &[&str] = &["ł", "ła", "ło", "ły", "łem", "łam", "łeś", "łaś", "łyśmy", "łyście", "liśmy", "liście"];
    let before_li = word.strip_suffix("li").and_then(|stem| stem.chars().last());
    ENDINGS.iter().any(|e| word.ends_with(e)) || before_li.is_some_and(|c| "aeiouyąęó".contains(c))
}

/// Whether the words around a match make it no deadline: the past ("three days ago", "last
/// Friday"), every week ("every Friday", "from Monday to Friday").
fn negated(atoms: &[Atom], from: usize, to: usize) -> bool {
    let before = |k: usize| from.checked_sub(k).and_then(|i| atoms.get(i));
    let after = atoms.get(to);
    if after.is_some_and(|a| a.is(&["ago", "temu", "back"])) {
        return true;
    }
    if before(1).is_some_and(|a| {
        a.is(&[
            "last", "every", "each", "co", "kazdy", "kazda", "kazdego", "kazdej", "zeszly", "zeszla", "ubiegly", "ubiegla", "ostatni", "ostatnia",
            "since", "od",
        ])
    }) {
        return true;
    }
    // "Monday to Friday", "od poniedziałku do piątku".
    let is_weekday = |a: &Atom| weekday(&a.word).is_some();
    if before(1).is_some_and(|a| a.is(&["to", "do", "through", "till"])) && before(2).is_some_and(is_weekday) {
        return true;
    }
    if atoms[from].is(&["do", "to", "until", "till"]) && before(1).is_some_and(is_weekday) {
        return true;
    }
    // The start of such a range.
    if atoms.get(to).is_some_and(|a| a.is(&["to", "do", "through", "till", "until"])) && atoms.get(to + 1).is_some_and(is_weekday) {
        return true;
    }
    false
}

/// A rule: the deadline whose words start at an atom, where it ends and what it says.
type Rule = fn(&[Atom], usize) -> Option<(usize, Expression)>;

/// The deadline whose words start at `at`: where it ends, what it says. `led`: after a word
/// that leads a deadline ("by", "do"), which a day of the month or an hour alone needs.
fn core(atoms: &[Atom], at: usize, led: bool) -> Option<(usize, Expression)> {
    let always: [Rule; 5] = [relative_day, count, end_of, weekday_rule, date];
    let led_only: [Rule; 2] = [day_alone, led_date];
    let found = always.iter().filter_map(|rule| rule(atoms, at));
    let found: Vec<_> = if led { found.chain(led_only.iter().filter_map(|rule| rule(atoms, at))).collect() } else { found.collect() };
    found.into_iter().chain(time(atoms, at, led)).max_by_key(|(end, _)| *end)
}

fn relative_day(atoms: &[Atom], at: usize) -> Option<(usize, Expression)> {
    use Expression::DaysFromCall;
    const TODAY: &[&[&str]] = &[
        &["today"],
        &["tonight"],
        &["this", "morning"],
        &["this", "afternoon"],
        &["this", "evening"],
        &["later", "today"],
        &["end", "of", "day"],
        &["end", "of", "the", "day"],
        &["end", "of", "today"],
        &["the", "end", "of", "today"],
        &["the", "end", "of", "the", "day"],
        &["end", "of", "day", "today"],
        &["close", "of", "business"],
        &["close", "of", "business", "today"],
        &["eod"],
        &["within", "the", "hour"],
        &["within", "the", "next", "hour"],
        &["in", "the", "next", "hour"],
        &["dzis"],
        &["dzisiaj"],
        &["jeszcze", "dzis"],
        &["jeszcze", "dzisiaj"],
        &["dzis", "wieczorem"],
        &["dzisiaj", "wieczorem"],
        &["konca", "dnia"],
        &["konca", "dzisiejszego", "dnia"],
        &["w", "ciagu", "godziny"],
        &["w", "ciagu", "najblizszej", "godziny"],
        &["w", "ciagu", "pol", "godziny"],
        &["dzisiejszego", "dnia"],
        // Right after the call is the day of the call.
        &["zaraz", "po", "rozmowie"],
        &["zaraz", "po", "naszej", "rozmowie"],
        &["po", "naszej", "rozmowie"],
        &["right", "after", "the", "call"],
        &["right", "after", "this", "call"],
        &["straight", "after", "the", "call"],
        &["straight", "after", "this", "call"],
        &["after", "this", "call"],
        &["as", "soon", "as", "we", "hang", "up"],
        &["as", "soon", "as", "i", "hang", "up"],
    ];
    const TOMORROW: &[&[&str]] = &[&["tomorrow"], &["jutro"], &["jutra"], &["jutrzejszego", "dnia"]];
    const AFTER_TOMORROW: &[&[&str]] = &[&["the", "day", "after", "tomorrow"], &["day", "after", "tomorrow"], &["pojutrze"], &["pojutrza"]];
    if let Some(end) = any_seq(atoms, at, AFTER_TOMORROW) {
        return Some((end, DaysFromCall(2)));
    }
    if let Some(end) = any_seq(atoms, at, TODAY) {
        // "end of day tomorrow".
        if let Some(after) = any_seq(atoms, end, TOMORROW) {
            return Some((after, DaysFromCall(1)));
        }
        return Some((end, DaysFromCall(0)));
    }
    any_seq(atoms, at, TOMORROW).map(|end| (end, DaysFromCall(1)))
}

/// "within five working days", "in two weeks", "w ciągu czternastu dni roboczych", "za tydzień",
/// "in a month", "within 48 hours", "w ciągu doby".
fn count(atoms: &[Atom], at: usize) -> Option<(usize, Expression)> {
    if let Some(found) = led_count(atoms, at) {
        return Some(found);
    }
    // "three days from now", "a month from today", "14 dni od dziś".
    let (end, expression) = counted(atoms, at)?;
    let after = any_seq(atoms, end, &[&["from", "now"], &["from", "today"], &["od", "dzis"], &["od", "dzisiaj"], &["od", "teraz"]])?;
    Some((after, expression))
}

fn led_count(atoms: &[Atom], at: usize) -> Option<(usize, Expression)> {
    const LEAD: &[&[&str]] = &[
        &["within"],
        &["within", "the", "next"],
        &["in"],
        &["in", "the", "next"],
        &["over", "the", "next"],
        &["za"],
        &["w", "ciagu"],
        &["w", "przeciagu"],
        &["w", "terminie"],
        &["w", "ciagu", "najblizszych"],
        &["w", "ciagu", "nastepnych"],
        &["przez", "najblizsze"],
    ];
    let i = any_seq(atoms, at, LEAD)?;
    let (end, expression) = counted(atoms, i)?;
    // "w ciągu czternastu dni od dziś".
    let end = any_seq(atoms, end, &[&["from", "today"], &["from", "now"], &["od", "dzis"], &["od", "dzisiaj"], &["od", "dzisiejszego", "dnia"]])
        .unwrap_or(end);
    Some((end, expression))
}

/// The largest count of days (or weeks, months, hours) a deadline may say.
const MAX_COUNT: u32 = 3660;

/// A count and its unit at `i`: "five working days", "dwóch tygodni", "a month", "48 hours".
fn counted(atoms: &[Atom], i: usize) -> Option<(usize, Expression)> {
    let mut i = i;
    // "in a couple of days", "w ciągu kilku dni" (a few: no day).
    let mut n = None;
    if let Some(after) = any_seq(atoms, i, &[&["a", "couple", "of"], &["couple", "of"], &["a", "couple"]]) {
        n = Some(2);
        i = after;
    } else if let Some(c) = atoms.get(i).and_then(Atom::count) {
        n = Some(c);
        i += 1;
    }
    // Ten years of days at most: a larger count is no deadline (and counting working days one
    // by one must stay cheap).
    if n.is_some_and(|n| n > MAX_COUNT) {
        return None;
    }
    let unit = atoms.get(i)?;
    let working_before = unit.is(&["working", "business", "roboczych", "robocze"]);
    let calendar = unit.is(&["calendar", "kalendarzowych"]);
    let (unit, i) = if working_before || calendar { (atoms.get(i + 1)?, i + 1) } else { (unit, i) };
    let w = unit.word.as_str();
    let mut end = i + 1;
    let expression = match w {
        "day" | "days" | "dni" | "dzien" | "dnia" => {
            let working_after = atoms.get(end).is_some_and(|a| a.is(&["roboczych", "robocze", "roboczego", "working"]));
            if working_after {
                end += 1;
            }
            let n = n?;
            if working_before || working_after {
                Expression::WorkingDays(n)
            } else {
                Expression::Days(n)
            }
        }
        "week" | "weeks" | "tydzien" | "tygodnie" | "tygodni" | "tygodnia" => Expression::Days(7 * n.unwrap_or(1)),
        "fortnight" => Expression::Days(14 * n.unwrap_or(1)),
        "hour" | "hours" | "godzine" | "godziny" | "godzin" => Expression::Hours(n.unwrap_or(1)),
        "doby" | "dobe" => Expression::Hours(24 * n.unwrap_or(1)),
        "dob" => Expression::Hours(24 * n?),
        "month" | "months" | "miesiac" | "miesiace" | "miesiecy" | "miesiaca" => Expression::Months(n.unwrap_or(1)),
        _ => return None,
    };
    // "a few days" has no count; "in a day or two": the later.
    if let Some(after) = seq(atoms, end, &["or", "two"]).or_else(|| seq(atoms, end, &["albo", "dwa"])) {
        if let Expression::Days(1) = expression {
            return Some((after, Expression::Days(2)));
        }
    }
    Some((end, expression))
}

/// "end of the week", "by the end of next month", "do końca kwartału", "next week", "w
/// przyszłym tygodniu", "end of the year".
fn end_of(atoms: &[Atom], at: usize) -> Option<(usize, Expression)> {
    const END: &[&[&str]] = &[
        &["the", "end", "of"],
        &["end", "of"],
        &["the", "end", "of", "the"],
        &["end", "of", "the"],
        &["the", "end", "of", "this"],
        &["end", "of", "this"],
        &["konca"],
        &["koniec"],
        &["koncem"],
        &["z", "koncem"],
        &["na", "koniec"],
        &["pod", "koniec"],
        &["konca", "tego"],
        &["konca", "biezacego"],
        &["koniec", "tego"],
    ];
    let period = |w: &str| -> Option<Period> {
        Some(match w {
            "week" | "tygodnia" | "tydzien" | "tygodniu" => Period::Week,
            "month" | "miesiaca" | "miesiac" | "miesiacu" => Period::Month,
            "quarter" | "kwartalu" | "kwartal" | "kwartale" => Period::Quarter,
            "year" | "roku" | "rok" => Period::Year,
            _ => return None,
        })
    };
    let next = |a: &Atom| a.is(&["next", "przyszlego", "nastepnego", "przyszly", "nastepny", "przyszlym", "nastepnym", "przyszla"]);
    // "month end", "quarter end", "year end", "end-of-month".
    if let (Some(p), Some(end)) = (atoms.get(at).and_then(|a| period(&a.word)), seq(atoms, at + 1, &["end"])) {
        return Some((end, Expression::EndOf { period: p, ahead: 0 }));
    }
    if let Some(i) = any_seq(atoms, at, END) {
        let (ahead, i) = if atoms.get(i).is_some_and(next) { (1, i + 1) } else { (0, i) };
        let word = &atoms.get(i)?.word;
        if let Some(p) = period(word) {
            return Some((i + 1, Expression::EndOf { period: p, ahead }));
        }
        // "the end of December", "do końca grudnia".
        if let Some(m) = month(word) {
            let year = atoms.get(i + 1).and_then(year_of);
            let end = if year.is_some() { i + 2 } else { i + 1 };
            return Some((end, Expression::Date { day: days_in_month(m, year), month: Some(m), year }));
        }
        // "end of today".
        return None;
    }
    // "next week", "this week", "w przyszłym tygodniu", "w tym tygodniu", "next month".
    let this = |a: &Atom| a.is(&["this", "tym", "ten", "biezacym"]);
    let (ahead, i) = match atoms.get(at) {
        Some(a) if next(a) => (1, at + 1),
        Some(a) if this(a) => (0, at + 1),
        _ => return None,
    };
    let p = period(&atoms.get(i)?.word)?;
    // "next week" is the following Friday; "next month" and "this year" their last day.
    Some((i + 1, Expression::EndOf { period: p, ahead }))
}

/// The days of a month (February: 28 unless the year, when said, is a leap year).
fn days_in_month(month: u32, year: Option<i32>) -> u32 {
    let y = year.unwrap_or(2001);
    NaiveDate::from_ymd_opt(y, month, 1).and_then(|d| d.checked_add_months(Months::new(1))).and_then(|d| d.pred_opt()).map_or(28, |d| d.day())
}

/// A year said after a date: "2027", "twenty twenty-seven" (digits 2027), "2027 roku".
fn year_of(atom: &Atom) -> Option<i32> {
    let n: i64 = match &atom.number {
        Some(Number::Cardinal(n)) => i64::try_from(*n).ok()?,
        Some(Number::Digits(d)) => d.parse().ok()?,
        _ => return None,
    };
    (1990..=2100).contains(&n).then(|| i32::try_from(n).ok()).flatten()
}

/// "on Friday", "this Friday", "next Friday", "do piątku", "w przyszły piątek", "w ten piątek".
fn weekday_rule(atoms: &[Atom], at: usize) -> Option<(usize, Expression)> {
    const NEXT: &[&[&str]] = &[
        &["next"],
        &["przyszly"],
        &["przyszla"],
        &["przyszle"],
        &["przyszlego"],
        &["przyszlej"],
        &["przyszla"],
        &["przyszlym"],
        &["nastepny"],
        &["nastepna"],
        &["nastepnego"],
        &["nastepnej"],
    ];
    const THIS: &[&[&str]] = &[
        &["this"],
        &["this", "coming"],
        &["coming"],
        &["the", "coming"],
        &["ten"],
        &["te"],
        &["tego"],
        &["najblizszy"],
        &["najblizsza"],
        &["najblizszego"],
        &["najblizszej"],
        &["najblizszym"],
    ];
    let (next_week, i) = match any_seq(atoms, at, NEXT) {
        Some(i) => (true, i),
        None => (false, any_seq(atoms, at, THIS).unwrap_or(at)),
    };
    let day = weekday(&atoms.get(i)?.word)?;
    let mut end = i + 1;
    // "Friday the 21st": the date says more.
    if let Some(after) = seq(atoms, end, &["the"]) {
        if let Some(d) = atoms.get(after).and_then(|a| a.day_of_month(true)) {
            end = after + 1;
            return Some((end, Expression::Date { day: d, month: None, year: None }));
        }
    }
    // "next week Friday" is not said; "Friday next week" is.
    if let Some(after) = seq(atoms, end, &["next", "week"]).or_else(|| seq(atoms, end, &["w", "przyszlym", "tygodniu"])) {
        return Some((after, Expression::Weekday { day, next_week: true }));
    }
    Some((end, Expression::Weekday { day, next_week }))
}

/// Dates: "the 4th of December", "December 4th", "4 December", "15 grudnia 2027",
/// "piętnastego grudnia", "15.12", "15.12.2026", "2026-12-15", and a day alone after a leading
/// word ("by the 15th", "do piętnastego").
fn date(atoms: &[Atom], at: usize) -> Option<(usize, Expression)> {
    let first = atoms.get(at)?;
    // Written dates: one word with separators.
    if first.number.is_none() {
        if let Some(expression) = written_date(first) {
            return Some((at + 1, expression));
        }
    }
    let i = seq(atoms, at, &["the"]).unwrap_or(at);
    // Day (of) Month (Year).
    if let Some(day) = atoms.get(i).and_then(|a| a.day_of_month(false)) {
        let j = seq(atoms, i + 1, &["of"]).unwrap_or(i + 1);
        if let Some(m) = atoms.get(j).and_then(|a| month(&a.word)).filter(|_| !atoms[j].after_sentence_end()) {
            // "may" is a month only with a day, and not "I may".
            let year = atoms.get(j + 1).and_then(year_of);
            let end = if year.is_some() { j + 2 } else { j + 1 };
            return Some((end, Expression::Date { day, month: Some(m), year }));
        }
    }
    // Month Day (Year): "December 4th", "December the 4th", "May 5".
    if let Some(m) = atoms.get(i).filter(|a| a.number.is_none()).and_then(|a| month(&a.word)) {
        let j = seq(atoms, i + 1, &["the"]).unwrap_or(i + 1);
        if let Some(day) = atoms.get(j).and_then(|a| a.day_of_month(false)).filter(|_| !atoms[j].after_sentence_end()) {
            let year = atoms.get(j + 1).and_then(year_of);
            let end = if year.is_some() { j + 2 } else { j + 1 };
            return Some((end, Expression::Date { day, month: Some(m), year }));
        }
    }
    None
}

/// A day of the month alone, only after a word that leads a deadline: "by the 15th", "do
/// piętnastego", "on the 21st".
fn day_alone(atoms: &[Atom], at: usize) -> Option<(usize, Expression)> {
    let i = seq(atoms, at, &["the"]).unwrap_or(at);
    let day = atoms.get(i)?.day_of_month(true)?;
    // "on the second line", "for the first two weeks": the ordinal counts something else.
    if !stands_alone(atoms, i + 1) {
        return None;
    }
    Some((i + 1, Expression::Date { day, month: None, year: None }))
}

/// After a leading word, "15.12" (read as a decimal) and "2026-12-15" (read as digits) are dates.
fn led_date(atoms: &[Atom], at: usize) -> Option<(usize, Expression)> {
    let a = atoms.get(at)?;
    match a.number.as_ref()? {
        Number::Decimal { whole, fraction } if fraction.len() == 2 => {
            let (day, month) = (u32::try_from(*whole).ok()?, fraction.parse().ok()?);
            ((1..=31).contains(&day) && (1..=12).contains(&month)).then_some((at + 1, Expression::Date { day, month: Some(month), year: None }))
        }
        Number::Digits(_) => {
            let parts: Vec<&str> = a.text.split('-').collect();
            match parts[..] {
                [y, m, d] if y.len() == 4 && m.len() == 2 && d.len() == 2 => {
                    Some((at + 1, Expression::Date { day: d.parse().ok()?, month: Some(m.parse().ok()?), year: Some(y.parse().ok()?) }))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether the words from `next` on let an ordinal before them stand for a day or an hour: the
/// clause ends, or a word follows that cannot be what it counts ("by the 15th, please", "do
/// piętnastego albo", not "on the second line", "na drugą linię").
fn stands_alone(atoms: &[Atom], next: usize) -> bool {
    const FOLLOWS: &[&str] = &[
        "at", "by", "and", "or", "so", "then", "if", "okay", "ok", "please", "latest", "we", "you", "i", "it", "they", "that", "to", "is", "will",
        "when", "because", "as", "thanks", "thank", "right", "yes", "no", "o", "i", "a", "albo", "lub", "wlacznie", "najpozniej", "prosze", "dobrze",
        "bo", "zeby", "ale", "to", "tak", "pani", "pan", "panu", "we", "rano", "wieczorem", "with", "for", "from", "z", "moze", "jak", "czy", "of",
        "next", "this", "then", "ok", "bedzie", "bede", "beda", "bedziemy", "jest", "sa", "musi", "trzeba", "powinien", "powinna", "will", "should",
        "must", "can",
    ];
    let next = atoms.get(next);
    let clause_ends = next.is_none_or(|n| n.gap_before.contains([',', '.', '?', '!', ';', '—', '–']));
    clause_ends || next.is_some_and(|n| n.number.is_none() && n.is(FOLLOWS))
}

/// "15.12", "15.12.2026", "15/12", "2026-12-15" (the last as one word: digits and dashes are
/// split, so it is read from the text).
fn written_date(atom: &Atom) -> Option<Expression> {
    let text = &atom.word;
    // Identifiers that hold a date ("FV/2025/12/31", "INV-2026-0415") are not one.
    if atom.gap_before.ends_with(['/', '-']) && !atom.gap_before.ends_with(" -") {
        return None;
    }
    let parts: Vec<&str> = text.split(['.', '/']).collect();
    if parts.len() < 2 || parts.len() > 3 || !parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let nums: Vec<u32> = parts.iter().filter_map(|p| p.parse().ok()).collect();
    match nums[..] {
        [y, m, d] if y > 1900 => Some(Expression::Date { day: d, month: Some(m), year: Some(i32::try_from(y).ok()?) }),
        [d, m, y] if y > 1900 && (1..=12).contains(&m) => Some(Expression::Date { day: d, month: Some(m), year: Some(i32::try_from(y).ok()?) }),
        [d, m] if (1..=12).contains(&m) && (1..=31).contains(&d) && parts[1].len() == 2 => {
            Some(Expression::Date { day: d, month: Some(m), year: None })
        }
        _ => None,
    }
}

/// A time of day: "5 pm", "five o'clock", "5:30", "half past five", "noon", "o siedemnastej",
/// "do czternastej trzydzieści", "do godziny 17", "przed południem". Only after a word that
/// leads a deadline or next to a day.
fn time(atoms: &[Atom], at: usize, led: bool) -> Option<(usize, Expression)> {
    let a = atoms.get(at)?;
    let time = |hour: u32, minute: u32| (hour < 24 && minute < 60).then_some(Expression::Time { hour, minute });
    if a.is(&["noon", "midday", "poludnia", "poludniem"]) {
        return Some((at + 1, Expression::Time { hour: 12, minute: 0 }));
    }
    if a.is(&["midnight", "polnocy"]) {
        return Some((at + 1, Expression::Time { hour: 23, minute: 59 }));
    }
    // "half past five".
    if let Some(i) = seq(atoms, at, &["half", "past"]) {
        let hour = atoms.get(i)?.count()?;
        return Some((i + 1, time(if hour < 8 { hour + 12 } else { hour }, 30)?));
    }
    // "godziny 17", "godzinie siedemnastej".
    let i = if a.is(&["godziny", "godzinie", "godz"]) { at + 1 } else { at };
    let atom = atoms.get(i)?;
    // "5:30", "17:00".
    if atom.number.is_none() {
        if let Some((h, m)) = atom.word.split_once(':') {
            let (h, m) = (h.parse().ok()?, m.parse().ok()?);
            let (end, hour) = am_pm(atoms, i + 1, h);
            return Some((end, time(hour, m)?));
        }
        return None;
    }
    match atom.number.as_ref()? {
        // "siedemnastej", "czternastej trzydzieści".
        Number::Ordinal { value, form: OrdinalForm::Hour } => {
            let minute = atoms.get(i + 1).and_then(|n| n.count()).filter(|m| *m < 60 && *m > 0);
            let end = if minute.is_some() { i + 2 } else { i + 1 };
            if minute.is_none() && !stands_alone(atoms, end) {
                return None;
            }
            Some((end, time(*value, minute.unwrap_or(0))?))
        }
        Number::Cardinal(h) if i > at && *h < 24 => Some((i + 1, time(u32::try_from(*h).ok()?, 0)?)),
        Number::Cardinal(h) | Number::Decimal { whole: h, .. } if *h <= 12 => {
            let h = u32::try_from(*h).ok()?;
            let minute = match atom.number.as_ref()? {
                Number::Decimal { fraction, .. } if fraction.len() == 2 => fraction.parse().ok()?,
                _ => 0,
            };
            let (end, hour) = am_pm(atoms, i + 1, h);
            if end > i + 1 {
                return Some((end, time(hour, minute)?));
            }
            if let Some(end) = seq(atoms, i + 1, &["o", "clock"]).or_else(|| seq(atoms, i + 1, &["oclock"])) {
                return Some((end, time(if h < 8 { h + 12 } else { h }, 0)?));
            }
            // "by five", at the end of a clause: an hour (of the working day).
            let clause_ends =
                atoms.get(i + 1).is_none_or(|n| n.gap_before.contains([',', '.', '?', '!', ';']) || n.is(&["today", "tonight", "dzis", "dzisiaj"]));
            (led && clause_ends && h >= 1).then(|| (i + 1, Expression::Time { hour: if h < 8 { h + 12 } else { h }, minute }))
        }
        // "five thirty pm": two groups read as digits.
        Number::Digits(d) if d.len() == 3 || d.len() == 4 => {
            let (h, m) = d.split_at(d.len() - 2);
            let (end, hour) = am_pm(atoms, i + 1, h.parse().ok()?);
            (end > i + 1).then_some(())?;
            Some((end, time(hour, m.parse().ok()?)?))
        }
        _ => None,
    }
}

/// "am"/"pm" after an hour: where they end and the hour on a 24-hour clock.
fn am_pm(atoms: &[Atom], at: usize, hour: u32) -> (usize, u32) {
    if let Some(end) = any_seq(atoms, at, &[&["pm"], &["p", "m"], &["in", "the", "afternoon"], &["in", "the", "evening"]]) {
        return (end, if hour < 12 { hour + 12 } else { hour });
    }
    if let Some(end) = any_seq(atoms, at, &[&["am"], &["a", "m"], &["in", "the", "morning"]]) {
        return (end, if hour == 12 { 0 } else { hour });
    }
    (at, hour)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wednesday 18 November 2026, 10:00.
    fn call() -> NaiveDateTime {
        NaiveDate::from_ymd_opt(2026, 11, 18).unwrap().and_hms_opt(10, 0, 0).unwrap()
    }

    /// The phrase found in `text` and its day.
    fn tag(text: &str) -> Vec<(String, String)> {
        deadlines(text)
            .into_iter()
            .map(|d| (text[d.start..d.end].to_owned(), d.expression.resolve(call()).map_or("-".into(), |d| d.format("%Y-%m-%d %a").to_string())))
            .collect()
    }

    fn one(text: &str) -> (String, String) {
        let found = tag(text);
        assert_eq!(found.len(), 1, "{text}: {found:?}");
        found.into_iter().next().unwrap()
    }

    #[test]
    fn the_longest_phrase_wins() {
        assert_eq!(one("w ciągu czternastu dni roboczych"), ("w ciągu czternastu dni roboczych".into(), "2026-12-08 Tue".into()));
        assert_eq!(one("send it by the 15th of January please"), ("by the 15th of January".into(), "2027-01-15 Fri".into()));
        assert_eq!(one("within five working days"), ("within five working days".into(), "2026-11-25 Wed".into()));
        assert_eq!(one("by 5 pm on Friday"), ("by 5 pm on Friday".into(), "2026-11-20 Fri".into()));
        assert_eq!(one("do piętnastego grudnia włącznie"), ("do piętnastego grudnia włącznie".into(), "2026-12-15 Tue".into()));
    }

    /// "Right after the call" is the call's day (tuning calls, issue 35: "wyślę panu mailem
    /// zaraz po rozmowie" had no deadline).
    #[test]
    fn right_after_the_call_is_today() {
        assert_eq!(one("listę wyślę panu mailem zaraz po rozmowie"), ("zaraz po rozmowie".into(), "2026-11-18 Wed".into()));
        assert_eq!(one("I'll email it straight after this call"), ("straight after this call".into(), "2026-11-18 Wed".into()));
        assert_eq!(one("I'll send it as soon as we hang up"), ("as soon as we hang up".into(), "2026-11-18 Wed".into()));
        // After talking with someone else is no deadline.
        assert!(tag("Po rozmowie z kierownikiem oddzwonię do pana.").is_empty());
    }

    #[test]
    fn a_number_alone_is_no_deadline() {
        for text in ["two forms", "order 4471", "the 5 GB plan", "89 złotych", "pięć minut rozmowy", "I waited three days", "room 15"] {
            assert_eq!(tag(text), Vec::<(String, String)>::new(), "{text}");
        }
        assert_eq!(one("please sign 2 forms by the 20th"), ("by the 20th".into(), "2026-11-20 Fri".into()));
        assert_eq!(one("I'll call you by 5 pm"), ("by 5 pm".into(), "2026-11-18 Wed".into()));
        // Counted one by one, a huge count of working days would take for ever.
        assert!(tag("within 4000000000 working days").is_empty());
        assert!(tag("within 2147483647 weeks").is_empty());
    }

    #[test]
    fn the_past_and_every_week_are_no_deadline() {
        for text in ["three days ago", "last Friday", "every Monday", "od poniedziałku do piątku", "Monday to Friday", "w zeszły piątek"] {
            assert_eq!(tag(text), Vec::<(String, String)>::new(), "{text}");
        }
    }

    #[test]
    fn weeks_months_and_their_ends() {
        assert_eq!(one("next Friday").1, "2026-11-27 Fri");
        assert_eq!(one("this Friday").1, "2026-11-20 Fri");
        assert_eq!(one("w przyszły poniedziałek").1, "2026-11-23 Mon");
        assert_eq!(one("by the end of the week").1, "2026-11-20 Fri");
        assert_eq!(one("next week").1, "2026-11-27 Fri");
        assert_eq!(one("do końca przyszłego miesiąca").1, "2026-12-31 Thu");
        assert_eq!(one("end of the quarter").1, "2026-12-31 Thu");
        assert_eq!(one("in a month").1, "2026-12-18 Fri");
        assert_eq!(one("within 48 hours").1, "2026-11-20 Fri");
        assert_eq!(one("do 15.12").1, "2026-12-15 Tue");
        assert_eq!(one("o siedemnastej").1, "2026-11-18 Wed");
        assert_eq!(one("jutro o dziesiątej").1, "2026-11-19 Thu");
    }
}
