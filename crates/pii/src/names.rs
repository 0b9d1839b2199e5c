//! Person names: capitalised words found in the name lists, weighed by how often they are plain
//! words, where they stand in the sentence, and the cues before them ("nazywam się", "pani",
//! "my name is").

use crate::gazetteer::{Gazetteer, NameInfo};
use crate::text::{sentence_initial, Token};
use crate::{clamp, Entity, PiiType};

/// Phrases after which a name follows (folded words).
const STRONG_CUES: &[&[&str]] = &[
    &["nazywam", "sie"],
    &["mam", "na", "imie"],
    &["na", "imie", "mi"],
    &["z", "tej", "strony"],
    &["tu", "mowi"],
    &["moje", "nazwisko", "to"],
    &["nazwisko", "to"],
    &["imie", "i", "nazwisko", "to"],
    &["rozmawia", "pan", "z"],
    &["rozmawiam", "z"],
    &["my", "name", "is"],
    &["name", "is"],
    &["name", "s"],
    &["this", "is"],
    &["it", "s"],
    &["speaking", "with"],
    &["speak", "to"],
    &["speak", "with"],
    &["talk", "to"],
    &["talking", "to"],
    &["ask", "for"],
    &["i", "am"],
    &["i", "m"],
    &["called"],
    &["named"],
];
/// Words right before a name: titles and Polish forms of address.
const HONORIFICS: &[&str] = &[
    "pan", "pani", "pana", "pania", "panem", "panu", "panie", "panstwo", "mr", "mrs", "ms", "miss", "dr", "doktor", "doktorze", "profesor", "dear",
    "drogi", "droga", "szanowny", "szanowna", "kolega", "kolezanka", "kolegi", "kolezanki",
];
/// Capitalised words that are never a name here, though the lists have them.
const NEVER: &[&str] = &[
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december", "monday", "tuesday",
    "wednesday", "thursday", "friday", "saturday", "sunday", "poniedzialek", "wtorek", "sroda", "czwartek", "piatek", "sobota", "niedziela", "god",
    "bog", "boze", "internet", "okay", "ok",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cue {
    None,
    Honorific,
    Strong,
}

fn cue_before(tokens: &[Token<'_>], i: usize) -> Cue {
    if i > 0 && HONORIFICS.contains(&tokens[i - 1].folded.as_str()) {
        return Cue::Honorific;
    }
    for phrase in STRONG_CUES {
        let k = phrase.len();
        if i >= k && tokens[i - k..i].iter().zip(phrase.iter()).all(|(t, w)| t.folded == *w) {
            return Cue::Strong;
        }
    }
    Cue::None
}

/// A word that is far more often an ordinary word than a name ("Will", "Dobry", "Kot").
fn ordinary_word(info: NameInfo) -> bool {
    let popular_first = info.first.is_some_and(|r| r <= 300);
    info.common.is_some_and(|r| r <= 3000) && !popular_first
}

fn name_like(info: NameInfo) -> bool {
    (info.first.is_some() || info.last.is_some()) && !ordinary_word(info)
}

/// The text between two words of one name: a space, or a hyphen of a double surname.
fn joins_name(gap: &str) -> bool {
    matches!(gap, " " | "-" | " - ")
}

pub(crate) fn person_names(text: &str, tokens: &[Token<'_>], gazetteer: &Gazetteer, out: &mut Vec<Entity>) {
    let n = tokens.len();
    let mut i = 0;
    while i < n {
        let t = &tokens[i];
        if !t.is_capitalized() || NEVER.contains(&t.folded.as_str()) {
            i += 1;
            continue;
        }
        let mut cue = cue_before(tokens, i);
        let mut start = i;
        // "Pani Anna", "Mr Smith": the title itself opens the sequence.
        if HONORIFICS.contains(&t.folded.as_str()) {
            if i + 1 < n && tokens[i + 1].is_capitalized() && joins_name(&text[t.end..tokens[i + 1].start]) {
                cue = Cue::Honorific;
                start = i + 1;
            } else {
                i += 1;
                continue;
            }
        }
        let mut end = start;
        while end + 1 < n
            && end - start < 3
            && tokens[end + 1].is_capitalized()
            && !NEVER.contains(&tokens[end + 1].folded.as_str())
            && joins_name(&text[tokens[end].end..tokens[end + 1].start])
        {
            end += 1;
        }
        let infos: Vec<NameInfo> = (start..=end).map(|k| gazetteer.name(&tokens[k].lower)).collect();
        // Trim words that are not names from both ends.
        let (mut a, mut b) = (0, infos.len());
        while a < b && !name_like(infos[a]) {
            a += 1;
        }
        while b > a && !name_like(infos[b - 1]) {
            b -= 1;
        }
        // After a first name, the next capitalised word is the surname even when it is also a
        // word ("Anna Wilk", "Amanda Carter") or in no list ("Grzegorz Brzęczyszczykiewicz").
        if b > a && b < infos.len() && infos[b - 1].first.is_some() && (infos[b].last.is_some_and(|r| r <= 5000) || infos[b].common.is_none()) {
            b += 1;
        }
        // "Denver, CO": a town before a US state's code.
        let state_after = tokens.get(end + 1).is_some_and(|t| t.text.len() == 2 && t.text.bytes().all(|c| c.is_ascii_uppercase()))
            && text[tokens[end].end..].starts_with(", ");
        if state_after {
            i = end + 1;
            continue;
        }
        let initial = sentence_initial(text, tokens, start + a.min(infos.len() - 1));
        let confidence;
        let (first, last);
        if a == b {
            // No word from the lists: only a strong cue makes an unknown word a name.
            if cue != Cue::Strong || infos.iter().any(|&i| ordinary_word(i) || i.common.is_some_and(|r| r <= 20_000)) {
                i = end + 1;
                continue;
            }
            (first, last) = (start, end.min(start + 1));
            confidence = 0.75;
        } else {
            (first, last) = (start + a, start + b - 1);
            let words = &infos[a..b];
            let mut c = if words.len() == 1 {
                if words[0].first.is_some() {
                    0.6
                } else {
                    0.45
                }
            } else if words[0].first.is_some() && words[words.len() - 1].last.is_some() {
                0.9
            } else {
                0.75
            };
            if initial && a == 0 {
                c -= if words.len() == 1 { 0.2 } else { 0.05 };
            }
            c += match (cue, a) {
                (Cue::Strong, 0) => 0.35,
                (Cue::Honorific, 0) => 0.4,
                _ => 0.0,
            };
            confidence = c;
        }
        out.push(Entity { kind: PiiType::PersonName, start: tokens[first].start, end: tokens[last].end, confidence: clamp(confidence) });
        i = end + 1;
    }
}
