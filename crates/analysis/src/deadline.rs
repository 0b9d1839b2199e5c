//! Spoken deadlines, English and Polish, resolved against the date of the call.
//!
//! The answer is a day; [`resolve_deadline`] gives its last second (UTC), so that a task due
//! "by Friday" is overdue only once Friday is over. Weekday names mean the next such day after
//! the call ("Friday" said on a Friday is a week later); "next Friday" is the Friday of the
//! following week. "This week" ends on its Friday (on its Sunday when said at the weekend),
//! "next week" on the following Friday. Dates without a year are the next such date on or
//! after the call.

use chrono::{DateTime, Datelike, Days, NaiveDate, TimeZone, Utc, Weekday};

use crate::text::fold;

/// Lowercase, Polish diacritics removed, words only.
fn words(text: &str) -> Vec<String> {
    fold(text).split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_owned).collect()
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
    /// Polish stems: every case form starts with one ("piątek", "piątku", "środę", "środy").
    const PL: &[(&str, Weekday)] = &[
        ("poniedzial", Weekday::Mon),
        ("wtor", Weekday::Tue),
        ("srod", Weekday::Wed),
        ("czwart", Weekday::Thu),
        ("piat", Weekday::Fri),
        ("sobot", Weekday::Sat),
        ("niedziel", Weekday::Sun),
    ];
    if let Some(&(_, _, d)) = EN.iter().find(|(full, short, _)| w == *full || w == *short || w == format!("{full}s")) {
        return Some(d);
    }
    // "piątego" is the fifth, not Friday.
    if w.ends_with("ego") {
        return None;
    }
    PL.iter().find(|(stem, _)| w.starts_with(stem) && w.len() <= stem.len() + 4).map(|&(_, d)| d)
}

fn month(w: &str) -> Option<u32> {
    const EN: &[&str] = &["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
    const PL: &[&str] = &["stycz", "lut", "marz", "kwie", "maj", "czerw", "lip", "sierp", "wrzes", "pazdziernik", "listopad", "grud"];
    // Full names, or the usual three- or four-letter abbreviations ("dec", "sept").
    let abbreviation = (3..=4).contains(&w.len()) && w != "marc";
    if let Some(i) = EN.iter().position(|m| w == *m || (abbreviation && m.starts_with(w))) {
        return Some(i as u32 + 1);
    }
    if w == "marca" || w == "marzec" {
        return Some(3);
    }
    PL.iter().position(|m| w.starts_with(m) && w.len() <= m.len() + 5).map(|i| i as u32 + 1)
}

/// A small count in words or digits: "two", "trzy", "dwóch", "pięciu", "14".
fn count(w: &str) -> Option<u64> {
    if let Ok(n) = w.parse::<u64>() {
        return (n <= 366).then_some(n);
    }
    Some(match w {
        "a" | "an" | "one" | "jeden" | "jedna" | "jednego" => 1,
        "two" | "dwa" | "dwie" | "dwoch" | "dwu" | "couple" => 2,
        "three" | "trzy" | "trzech" => 3,
        "four" | "cztery" | "czterech" => 4,
        "five" | "piec" | "pieciu" => 5,
        "six" | "szesc" | "szesciu" => 6,
        "seven" | "siedem" | "siedmiu" => 7,
        "eight" | "osiem" | "osmiu" => 8,
        "nine" | "dziewiec" | "dziewieciu" => 9,
        "ten" | "dziesiec" | "dziesieciu" => 10,
        "eleven" | "jedenascie" | "jedenastu" => 11,
        "twelve" | "dwanascie" | "dwunastu" => 12,
        "thirteen" | "trzynascie" | "trzynastu" => 13,
        "fourteen" | "czternascie" | "czternastu" => 14,
        "fifteen" | "pietnascie" | "pietnastu" => 15,
        "sixteen" | "szesnascie" | "szesnastu" => 16,
        "seventeen" | "siedemnascie" | "siedemnastu" => 17,
        "eighteen" | "osiemnascie" | "osiemnastu" => 18,
        "nineteen" | "dziewietnascie" | "dziewietnastu" => 19,
        tens => return tens_count(tens),
    })
}

/// A multiple of ten from twenty up in words: "forty", "czterdzieści", "czterdziestu".
fn tens_count(w: &str) -> Option<u64> {
    Some(match w {
        "twenty" | "dwadziescia" | "dwudziestu" => 20,
        "thirty" | "trzydziesci" | "trzydziestu" => 30,
        "forty" | "czterdziesci" | "czterdziestu" => 40,
        "fifty" | "piecdziesiat" | "piecdziesieciu" => 50,
        "sixty" | "szescdziesiat" | "szescdziesieciu" => 60,
        "seventy" | "siedemdziesiat" | "siedemdziesieciu" => 70,
        "eighty" | "osiemdziesiat" | "osiemdziesieciu" => 80,
        "ninety" | "dziewiecdziesiat" | "dziewiecdziesieciu" => 90,
        _ => return None,
    })
}

/// The count said just before word `i`: one word ("five", "14") or tens and units ("forty
/// eight", "czterdzieści osiem").
fn count_before(w: &[String], i: usize) -> Option<u64> {
    let unit = i.checked_sub(1).and_then(|k| count(&w[k]))?;
    let tens = i.checked_sub(2).and_then(|k| tens_count(&w[k]));
    Some(match tens {
        Some(tens) if unit < 10 => tens + unit,
        _ => unit,
    })
}

/// A day of the month in digits ("15", "15th", "15go") or as an ordinal word.
fn day_of_month(w: &str) -> Option<u32> {
    let digits: String = w.chars().take_while(char::is_ascii_digit).collect();
    let rest = &w[digits.len()..];
    if !digits.is_empty() && matches!(rest, "" | "st" | "nd" | "rd" | "th" | "go" | "ego") {
        return digits.parse().ok().filter(|d| (1..=31).contains(d));
    }
    const EN: &[&str] = &[
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth", "thirteenth",
        "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth",
    ];
    const PL: &[&str] = &[
        "pierwsz", "drugi", "trzeci", "czwart", "piat", "szost", "siodm", "osm", "dziewiat", "dziesiat", "jedenast", "dwunast", "trzynast",
        "czternast", "pietnast", "szesnast", "siedemnast", "osiemnast", "dziewietnast", "dwudziest",
    ];
    // "do czternastej" is an hour (godziny, feminine), not a day (dnia: "do czternastego").
    EN.iter()
        .position(|m| w == *m)
        .or_else(|| PL.iter().position(|m| w.starts_with(m) && w.len() <= m.len() + 4 && !is_polish_hour(w)))
        .map(|i| i as u32 + 1)
}

/// A Polish ordinal in the feminine ending "-ej", which says an hour ("do czternastej", "o
/// piętnastej"): folded words of [`day_of_month`]'s stems.
fn is_polish_hour(w: &str) -> bool {
    const HOURS: &[&str] = &[
        "pierwszej", "drugiej", "trzeciej", "czwartej", "piatej", "szostej", "siodmej", "osmej", "dziewiatej", "dziesiatej", "jedenastej",
        "dwunastej", "trzynastej", "czternastej", "pietnastej", "szesnastej", "siedemnastej", "osiemnastej", "dziewietnastej", "dwudziestej",
    ];
    HOURS.contains(&w)
}

/// The last day of a month; `None` outside the calendar chrono knows (a spoken year can be any
/// number: "by March 300000").
fn last_day_of_month(year: i32, month: u32) -> Option<NaiveDate> {
    let (y, m) = if month == 12 { (year.checked_add(1)?, 1) } else { (year, month + 1) };
    NaiveDate::from_ymd_opt(y, m, 1)?.pred_opt()
}

/// The month after `date`'s, as (year, month).
fn following_month(date: NaiveDate) -> Option<(i32, u32)> {
    Some(if date.month() == 12 { (date.year().checked_add(1)?, 1) } else { (date.year(), date.month() + 1) })
}

/// `date` moved by `days`, `None` past the end of the calendar.
fn plus_days(date: NaiveDate, days: u64) -> Option<NaiveDate> {
    date.checked_add_days(Days::new(days))
}

/// The next `day` strictly after `from`.
fn next_weekday(from: NaiveDate, day: Weekday) -> Option<NaiveDate> {
    let ahead = (7 + day.num_days_from_monday() - from.weekday().num_days_from_monday()) % 7;
    plus_days(from, u64::from(if ahead == 0 { 7 } else { ahead }))
}

/// Monday of `date`'s week.
fn week_start(date: NaiveDate) -> Option<NaiveDate> {
    date.checked_sub_days(Days::new(u64::from(date.weekday().num_days_from_monday())))
}

/// The next date with this month and day on or after `from` (a year later if it has passed).
fn next_date(from: NaiveDate, month: u32, day: u32) -> Option<NaiveDate> {
    let this = NaiveDate::from_ymd_opt(from.year(), month, day);
    match this {
        Some(d) if d >= from => Some(d),
        _ => NaiveDate::from_ymd_opt(from.year().checked_add(1)?, month, day),
    }
}

/// The day a spoken deadline names, or `None` when it names none ("as soon as possible").
pub fn resolve_day(text: &str, call: NaiveDate) -> Option<NaiveDate> {
    let w = words(text);
    let has = |x: &str| w.iter().any(|t| t == x);
    let has_seq = |seq: &[&str]| w.windows(seq.len()).any(|win| win.iter().zip(seq).all(|(a, b)| a == b));
    let next = has("next") || w.iter().any(|t| t.starts_with("przyszl") || t.starts_with("nastepn"));

    // Explicit dates first: ISO, then day.month(.year).
    for t in text.split(|c: char| c.is_whitespace() || c == ',') {
        let t = t.trim_matches(|c: char| !c.is_ascii_digit());
        let parts: Vec<&str> = t.split(['-', '.', '/']).filter(|p| !p.is_empty()).collect();
        let nums: Vec<u32> = parts.iter().filter_map(|p| p.parse().ok()).collect();
        if nums.len() != parts.len() || nums.len() < 2 {
            continue;
        }
        match nums[..] {
            [y, m, d] if y > 1900 => return NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d),
            [d, m, y] if y > 1900 => return NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d),
            [d, m, y] if y < 100 => return NaiveDate::from_ymd_opt(2000 + y as i32, m, d),
            [d, m] if (1..=12).contains(&m) => return next_date(call, m, d),
            _ => {}
        }
    }
    // "15 grudnia", "December 15th", "the 15th of December".
    // "may" is a month only with a day ("May 5th"), not in "may I call back".
    let dated = w.iter().any(|x| day_of_month(x).is_some());
    // Abbreviations ("jan", "mar") only with a day too: "Jan" is also a name.
    let needs_day = |t: &str| t == "may" || (t.len() <= 4 && !matches!(t, "june" | "july" | "maj" | "maja"));
    if let Some(i) = w.iter().position(|t| month(t).is_some() && (dated || !needs_day(t))) {
        let m = month(&w[i]).expect("checked");
        let day = w[..i].iter().rev().take(3).find_map(|t| day_of_month(t)).or_else(|| w[i + 1..].iter().take(2).find_map(|t| day_of_month(t)));
        let year = w[i + 1..].iter().take(3).find_map(|t| t.parse::<i32>().ok().filter(|y| *y > 1900));
        return match (day, year) {
            (Some(d), Some(y)) => NaiveDate::from_ymd_opt(y, m, d),
            (Some(d), None) => next_date(call, m, d),
            // "in December", "do grudnia": the end of that month.
            (None, y) => {
                let y = match y {
                    Some(y) => y,
                    None if m >= call.month() => call.year(),
                    None => call.year().checked_add(1)?,
                };
                last_day_of_month(y, m)
            }
        };
    }
    // "within 48 hours": whole days of them on; fewer than 24 hours is today.
    if let Some(i) = w.iter().position(|t| matches!(t.as_str(), "hour" | "hours" | "godzine" | "godziny" | "godzin")) {
        let days = count_before(&w, i).map_or(0, |n| n / 24);
        return plus_days(call, days);
    }
    if has("today") || has("tonight") || has("dzis") || has("dzisiaj") || has("eod") || has_seq(&["end", "of", "day"]) || has_seq(&["konca", "dnia"])
    {
        return Some(call);
    }
    if has_seq(&["day", "after", "tomorrow"]) || has("pojutrze") {
        return plus_days(call, 2);
    }
    if has("tomorrow") || has("jutro") || has("jutra") {
        return plus_days(call, 1);
    }
    // "in two days", "within a week", "za trzy dni", "w ciągu dwóch tygodni", "za tydzień".
    for (i, t) in w.iter().enumerate() {
        let unit = if t.starts_with("day") || t == "dni" || t == "dzien" || t == "dnia" {
            1
        } else if t.starts_with("weekend") {
            continue;
        } else if t.starts_with("week") || t.starts_with("tydz") || t.starts_with("tygod") {
            7
        } else if t.starts_with("month") || t.starts_with("miesiac") || t.starts_with("miesiec") {
            30
        } else {
            continue;
        };
        // "five working days", "trzech dni roboczych": weekdays only.
        let working_before = i > 0 && matches!(w[i - 1].as_str(), "working" | "business");
        let working_after = w.get(i + 1).is_some_and(|x| x.starts_with("robocz"));
        let working = unit == 1 && (working_before || working_after);
        let n = if working_before { count_before(&w, i - 1) } else { count_before(&w, i) };
        let relative = w[..i].iter().any(|x| matches!(x.as_str(), "in" | "within" | "za" | "ciagu" | "next" | "couple"))
            || (n.is_none() && i > 0 && w[i - 1] == "za");
        if relative && working {
            let mut day = call;
            let mut left = n.unwrap_or(1);
            while left > 0 {
                day = plus_days(day, 1)?;
                if day.weekday().num_days_from_monday() < 5 {
                    left -= 1;
                }
            }
            return Some(day);
        }
        if relative && !(unit == 7 && next && n.is_none()) && !(unit == 30 && next && n.is_none()) {
            return plus_days(call, n.unwrap_or(1) * unit);
        }
    }
    if let Some(day) = w.iter().find_map(|t| weekday(t)) {
        let coming = next_weekday(call, day)?;
        // "next Friday": the Friday of next week.
        if next && week_start(coming) == week_start(call) {
            return plus_days(coming, 7);
        }
        return Some(coming);
    }
    let friday_of = |monday: NaiveDate| plus_days(monday, 4);
    if w.iter().any(|t| t == "weekend" || t == "weekendu") {
        return plus_days(week_start(call)?, 6);
    }
    if w.iter().any(|t| (t.starts_with("week") && !t.starts_with("weekend")) || t.starts_with("tygod") || t == "tydzien") {
        let this_monday = week_start(call)?;
        if next {
            return friday_of(plus_days(this_monday, 7)?);
        }
        let friday = friday_of(this_monday)?;
        return if call <= friday { Some(friday) } else { plus_days(this_monday, 6) };
    }
    if w.iter().any(|t| t.starts_with("month") || t.starts_with("miesiac")) {
        let (y, m) = if next { following_month(call)? } else { (call.year(), call.month()) };
        return last_day_of_month(y, m);
    }
    if w.iter().any(|t| t == "year" || t == "roku") && (has("end") || w.iter().any(|t| t.starts_with("kon"))) {
        return NaiveDate::from_ymd_opt(call.year(), 12, 31);
    }
    // "do czternastej": by an hour, so today.
    if w.windows(2).any(|p| matches!(p[0].as_str(), "do" | "najpozniej") && is_polish_hour(&p[1])) {
        return Some(call);
    }
    // "by the 20th", "do dwudziestego".
    if let Some(d) = w.iter().find_map(|t| day_of_month(t)) {
        let this = NaiveDate::from_ymd_opt(call.year(), call.month(), d).filter(|x| *x >= call);
        return this.or_else(|| {
            let (y, m) = following_month(call)?;
            NaiveDate::from_ymd_opt(y, m, d)
        });
    }
    None
}

/// The deadline as the last second of its day (UTC), resolved against the call's time.
pub fn resolve_deadline(text: &str, call: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let day = resolve_day(text, call.date_naive())?;
    Utc.from_utc_datetime(&day.and_hms_opt(23, 59, 59)?).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wednesday 18 November 2026.
    fn call() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 18).unwrap()
    }

    fn day(text: &str) -> Option<String> {
        resolve_day(text, call()).map(|d| d.format("%Y-%m-%d %a").to_string())
    }

    #[test]
    fn a_polish_hour_is_today_not_a_day_of_the_month() {
        assert_eq!(day("najpóźniej do czternastej").as_deref(), Some("2026-11-18 Wed"));
        assert_eq!(day("do czternastego").as_deref(), Some("2026-12-14 Mon"), "the masculine ordinal is the day");
        assert_eq!(day("do piętnastej jutro").as_deref(), Some("2026-11-19 Thu"), "a day said with the hour wins");
    }

    #[test]
    fn english_deadlines_resolve_against_a_wednesday_call() {
        assert_eq!(call().weekday(), Weekday::Wed);
        assert_eq!(day("by Friday").as_deref(), Some("2026-11-20 Fri"));
        assert_eq!(day("on Wednesday").as_deref(), Some("2026-11-25 Wed"), "the same weekday is a week on");
        assert_eq!(day("next Friday").as_deref(), Some("2026-11-27 Fri"));
        assert_eq!(day("next Monday").as_deref(), Some("2026-11-23 Mon"));
        assert_eq!(day("tomorrow").as_deref(), Some("2026-11-19 Thu"));
        assert_eq!(day("today").as_deref(), Some("2026-11-18 Wed"));
        assert_eq!(day("the day after tomorrow").as_deref(), Some("2026-11-20 Fri"));
        assert_eq!(day("within two days").as_deref(), Some("2026-11-20 Fri"));
        assert_eq!(day("in a week").as_deref(), Some("2026-11-25 Wed"));
        assert_eq!(day("by the end of the week").as_deref(), Some("2026-11-20 Fri"));
        assert_eq!(day("next week").as_deref(), Some("2026-11-27 Fri"));
        assert_eq!(day("end of month").as_deref(), Some("2026-11-30 Mon"));
        assert_eq!(day("by the end of next month").as_deref(), Some("2026-12-31 Thu"));
        assert_eq!(day("December 15").as_deref(), Some("2026-12-15 Tue"));
        assert_eq!(day("by the 15th of January").as_deref(), Some("2027-01-15 Fri"));
        assert_eq!(day("by the 25th").as_deref(), Some("2026-11-25 Wed"));
        assert_eq!(day("by the 5th").as_deref(), Some("2026-12-05 Sat"), "a passed day of this month is next month's");
        assert_eq!(day("2026-12-01").as_deref(), Some("2026-12-01 Tue"));
        assert_eq!(day("12/01/2027").as_deref(), Some("2027-01-12 Tue"), "day first, as in Europe");
        assert_eq!(day("within the hour").as_deref(), Some("2026-11-18 Wed"));
        assert_eq!(day("within five working days").as_deref(), Some("2026-11-25 Wed"), "weekends do not count");
        assert_eq!(day("within forty-eight hours").as_deref(), Some("2026-11-20 Fri"), "two whole days");
        assert_eq!(day("within 24 hours").as_deref(), Some("2026-11-19 Thu"));
        assert_eq!(day("within twenty-one days").as_deref(), Some("2026-12-09 Wed"));
        assert_eq!(day("in fifteen business days").as_deref(), Some("2026-12-09 Wed"));
        assert_eq!(day("as soon as possible"), None);
        assert_eq!(day("later"), None);
    }

    #[test]
    fn polish_deadlines_resolve_against_a_wednesday_call() {
        assert_eq!(day("do piątku").as_deref(), Some("2026-11-20 Fri"));
        assert_eq!(day("w poniedziałek").as_deref(), Some("2026-11-23 Mon"));
        assert_eq!(day("w przyszły piątek").as_deref(), Some("2026-11-27 Fri"));
        assert_eq!(day("w środę").as_deref(), Some("2026-11-25 Wed"));
        assert_eq!(day("jutro").as_deref(), Some("2026-11-19 Thu"));
        assert_eq!(day("pojutrze").as_deref(), Some("2026-11-20 Fri"));
        assert_eq!(day("dzisiaj do końca dnia").as_deref(), Some("2026-11-18 Wed"));
        assert_eq!(day("w przyszłym tygodniu").as_deref(), Some("2026-11-27 Fri"));
        assert_eq!(day("do końca tygodnia").as_deref(), Some("2026-11-20 Fri"));
        assert_eq!(day("za tydzień").as_deref(), Some("2026-11-25 Wed"));
        assert_eq!(day("w ciągu trzech dni").as_deref(), Some("2026-11-21 Sat"));
        assert_eq!(day("za dwa tygodnie").as_deref(), Some("2026-12-02 Wed"));
        assert_eq!(day("w ciągu trzech dni roboczych").as_deref(), Some("2026-11-23 Mon"));
        assert_eq!(day("w ciągu dwudziestu czterech godzin").as_deref(), Some("2026-11-19 Thu"));
        assert_eq!(day("w ciągu dwudziestu jeden dni").as_deref(), Some("2026-12-09 Wed"));
        assert_eq!(day("do końca miesiąca").as_deref(), Some("2026-11-30 Mon"));
        assert_eq!(day("15 grudnia").as_deref(), Some("2026-12-15 Tue"));
        assert_eq!(day("do piętnastego stycznia").as_deref(), Some("2027-01-15 Fri"));
        assert_eq!(day("do 30.11").as_deref(), Some("2026-11-30 Mon"));
        assert_eq!(day("do dwudziestego").as_deref(), Some("2026-11-20 Fri"));
        assert_eq!(day("do końca roku").as_deref(), Some("2026-12-31 Thu"));
        assert_eq!(day("w weekend").as_deref(), Some("2026-11-22 Sun"));
        assert_eq!(day("jak najszybciej"), None);
        assert_eq!(day("Jan odezwie się jutro").as_deref(), Some("2026-11-19 Thu"), "Jan is a name here, not January");
        assert_eq!(day("do maja").as_deref(), Some("2027-05-31 Mon"), "a month alone: its end");
    }

    #[test]
    fn the_deadline_is_the_end_of_its_day() {
        let at = Utc.with_ymd_and_hms(2026, 11, 18, 9, 30, 0).unwrap();
        assert_eq!(resolve_deadline("by Friday", at).unwrap().to_rfc3339(), "2026-11-20T23:59:59+00:00");
    }
}
