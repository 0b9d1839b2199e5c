//! Numbers as people say them and ASR writes them, in English and Polish, read into values.
//!
//! A number is one or more *groups*: a group is what one spoken number says ("two hundred and
//! nineteen", "dwadzieścia jeden", "1985", "four"). One group is a [`Number::Cardinal`];
//! several groups said one after another are read digit by digit, the way identifiers and
//! phone numbers are ("five five five one two three", "nineteen eighty five", "pięćset
//! dwanaście, zero dziewięćdziesiąt"): a [`Number::Digits`]. Ordinals ("twenty-first", "15th",
//! "dwudziestego pierwszego", "15-go"), decimals ("two point four", "86,40") and money
//! ("eighty-six pounds forty", "89 złotych") have kinds of their own.
//!
//! Polish numbers decline: every case form of a cardinal ("dwóch", "czternastu",
//! "pięćdziesięciu") and of an ordinal ("piętnastego", "piętnastej", "piętnastym") is known.

use crate::token::{tokens, Token};

/// What a stretch of words says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Number {
    /// One spoken number.
    Cardinal(u64),
    /// Several numbers said one after another: their digits, in order.
    Digits(String),
    /// An ordinal, with the form it was said in.
    Ordinal { value: u32, form: OrdinalForm },
    /// A decimal: the whole part and the digits after the point, as said ("2.4", "86.40").
    Decimal { whole: u64, fraction: String },
    /// An amount of money: major and minor units, and the currency word as said.
    Money { major: u64, minor: Option<u64>, currency: String },
}

impl Number {
    /// The value in digits, as a normalised text shows it: "21", "4471", "15", "86.40".
    pub fn digits(&self) -> String {
        match self {
            Self::Cardinal(n) => n.to_string(),
            Self::Digits(d) => d.clone(),
            Self::Ordinal { value, .. } => value.to_string(),
            Self::Decimal { whole, fraction } => format!("{whole}.{fraction}"),
            Self::Money { major, minor: Some(minor), .. } => format!("{major}.{minor:02}"),
            Self::Money { major, minor: None, .. } => major.to_string(),
        }
    }

    /// A count, when the number is one: a cardinal, or digits that read as one ("14").
    pub fn count(&self) -> Option<u64> {
        match self {
            Self::Cardinal(n) => Some(*n),
            Self::Digits(d) if d.len() <= 6 => d.parse().ok(),
            _ => None,
        }
    }
}

/// The form of an ordinal, which tells what it counts in Polish.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrdinalForm {
    /// A form a day of the month takes: English, digits, Polish "-ego", "-y" and "-ym" ("do
    /// piętnastego", "piętnasty", "przed piętnastym").
    Day,
    /// A Polish feminine form ("o piętnastej", "przed piętnastą", "piętnasta"): an hour
    /// (godzina), not a day.
    Hour,
    /// Any other Polish case ("na trzecim piętrze", "drugiemu"): neither.
    Other,
}

/// The form a Polish ordinal's ending says.
fn ordinal_form(ending: &str) -> OrdinalForm {
    match ending {
        // Genitive ("do piętnastego"), nominative, and instrumental ("przed piętnastym").
        "ego" | "iego" | "y" | "i" | "ym" | "im" => OrdinalForm::Day,
        "ej" | "iej" | "a" | "ia" => OrdinalForm::Hour,
        _ => OrdinalForm::Other,
    }
}

/// A number found in a text: the words it was read from (token indices, end exclusive, and
/// byte offsets) and what they say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumberMention {
    /// Index of the first word.
    pub first: usize,
    /// Index after the last word.
    pub end: usize,
    /// Byte offset of the first word.
    pub start_byte: usize,
    /// Byte offset after the last word.
    pub end_byte: usize,
    /// What they say.
    pub value: Number,
}

/// One word of a spoken number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    /// 0–9.
    Unit(u64),
    /// 10–19.
    Teen(u64),
    /// 20, 30, … 90.
    Tens(u64),
    /// A Polish hundreds word: 100, 200, … 900.
    Hundreds(u64),
    /// English "hundred": multiplies the group before it.
    Hundred,
    /// Thousand, million.
    Scale(u64),
    /// An ordinal word (1–19, and the tens 20–90).
    Ordinal { value: u32, form: OrdinalForm },
    /// "double" and "triple": the next digit said two or three times.
    Repeat(usize),
    /// "oh": zero, between other digits.
    Oh,
}

/// `(folded forms, value)` of the Polish cardinals up to 19, every case form.
const PL_UNITS: &[(&[&str], u64)] = &[
    (&["zero", "zera", "zerem"], 0),
    (&["jeden", "jedna", "jedno", "jednego", "jednej", "jednemu", "jednym"], 1),
    (&["dwa", "dwie", "dwoch", "dwu", "dwom", "dwoma", "dwaj"], 2),
    (&["trzy", "trzech", "trzem", "trzema"], 3),
    (&["cztery", "czterech", "czterem", "czterema"], 4),
    (&["piec", "pieciu", "piecioma"], 5),
    (&["szesc", "szesciu", "szescioma"], 6),
    (&["siedem", "siedmiu", "siedmioma"], 7),
    (&["osiem", "osmiu", "osmioma"], 8),
    (&["dziewiec", "dziewieciu", "dziewiecioma"], 9),
];

/// Stems of the Polish 10–19 ("czternaście", "czternastu", "czternastoma").
const PL_TEENS: &[(&str, u64)] = &[
    ("dziesi", 10),
    ("jedenas", 11),
    ("dwanas", 12),
    ("dwunas", 12),
    ("trzynas", 13),
    ("czternas", 14),
    ("pietnas", 15),
    ("szesnas", 16),
    ("siedemnas", 17),
    ("osiemnas", 18),
    ("dziewietnas", 19),
];

const PL_TENS: &[(&[&str], u64)] = &[
    (&["dwadziescia", "dwudziestu", "dwudziestoma"], 20),
    (&["trzydziesci", "trzydziestu", "trzydziestoma"], 30),
    (&["czterdziesci", "czterdziestu", "czterdziestoma"], 40),
    (&["piecdziesiat", "piecdziesieciu", "piecdziesiecioma"], 50),
    (&["szescdziesiat", "szescdziesieciu", "szescdziesiecioma"], 60),
    (&["siedemdziesiat", "siedemdziesieciu", "siedemdziesiecioma"], 70),
    (&["osiemdziesiat", "osiemdziesieciu", "osiemdziesiecioma"], 80),
    (&["dziewiecdziesiat", "dziewiecdziesieciu", "dziewiecdziesiecioma"], 90),
];

const PL_HUNDREDS: &[(&[&str], u64)] = &[
    (&["sto", "stu"], 100),
    (&["dwiescie", "dwustu"], 200),
    (&["trzysta", "trzystu"], 300),
    (&["czterysta", "czterystu"], 400),
    (&["piecset", "pieciuset"], 500),
    (&["szescset", "szesciuset"], 600),
    (&["siedemset", "siedmiuset"], 700),
    (&["osiemset", "osmiuset"], 800),
    (&["dziewiecset", "dziewieciuset"], 900),
];

/// Stems of Polish ordinals; the ending decides that the word is one (see [`ORDINAL_ENDINGS`]).
const PL_ORDINALS: &[(&str, u32)] = &[
    ("pierwsz", 1),
    ("drug", 2),
    ("trzec", 3),
    ("czwart", 4),
    ("piat", 5),
    ("szost", 6),
    ("siodm", 7),
    ("osm", 8),
    ("dziewiat", 9),
    ("dziesiat", 10),
    ("jedenast", 11),
    ("dwunast", 12),
    ("trzynast", 13),
    ("czternast", 14),
    ("pietnast", 15),
    ("szesnast", 16),
    ("siedemnast", 17),
    ("osiemnast", 18),
    ("dziewietnast", 19),
    ("dwudziest", 20),
    ("trzydziest", 30),
    ("czterdziest", 40),
    ("piecdziesiat", 50),
    ("szescdziesiat", 60),
    ("siedemdziesiat", 70),
    ("osiemdziesiat", 80),
    ("dziewiecdziesiat", 90),
];

/// The endings of a Polish ordinal (adjective declension). Not "-u"
/// ("czternastu" is a cardinal) nor "-ek" ("czwartek", "piątek" are weekdays).
const ORDINAL_ENDINGS: &[&str] = &["y", "a", "e", "ego", "emu", "ym", "ej", "ych", "ymi", "i", "ie", "iego", "iemu", "im", "iej", "ich", "imi"];

const EN_UNITS: &[&str] = &["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
const EN_TEENS: &[&str] = &["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"];
const EN_TENS: &[&str] = &["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
const EN_ORDINALS: &[&str] = &[
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth",
    "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
];
const EN_TENS_ORDINALS: &[&str] = &["twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", "seventieth", "eightieth", "ninetieth"];

/// Currency words: `(folded form, whether it is the minor unit)`.
const CURRENCIES: &[(&str, bool)] = &[
    ("pound", false),
    ("pounds", false),
    ("quid", false),
    ("dollar", false),
    ("dollars", false),
    ("euro", false),
    ("euros", false),
    ("zloty", false),
    ("zlote", false),
    ("zlotych", false),
    ("zlotego", false),
    ("zl", false),
    ("pln", false),
    ("gbp", false),
    ("eur", false),
    ("usd", false),
    ("pence", true),
    ("penny", true),
    ("cent", true),
    ("cents", true),
    ("grosz", true),
    ("grosze", true),
    ("groszy", true),
    ("gr", true),
];

fn word(folded: &str) -> Option<Word> {
    if let Some(i) = EN_UNITS.iter().position(|w| *w == folded) {
        return Some(Word::Unit(i as u64));
    }
    if folded == "nought" {
        return Some(Word::Unit(0));
    }
    if let Some(i) = EN_TEENS.iter().position(|w| *w == folded) {
        return Some(Word::Teen(10 + i as u64));
    }
    if let Some(i) = EN_TENS.iter().position(|w| *w == folded) {
        return Some(Word::Tens(20 + 10 * i as u64));
    }
    if let Some(i) = EN_ORDINALS.iter().position(|w| *w == folded) {
        return Some(Word::Ordinal { value: i as u32 + 1, form: OrdinalForm::Day });
    }
    if let Some(i) = EN_TENS_ORDINALS.iter().position(|w| *w == folded) {
        return Some(Word::Ordinal { value: 20 + 10 * i as u32, form: OrdinalForm::Day });
    }
    match folded {
        "hundred" => return Some(Word::Hundred),
        "thousand" | "tysiac" | "tysiace" | "tysiecy" | "tysiaca" | "tysiacem" => return Some(Word::Scale(1000)),
        "million" | "milion" | "miliony" | "milionow" | "miliona" => return Some(Word::Scale(1_000_000)),
        "double" => return Some(Word::Repeat(2)),
        "triple" => return Some(Word::Repeat(3)),
        "oh" => return Some(Word::Oh),
        _ => {}
    }
    if let Some(&(_, n)) = PL_UNITS.iter().find(|(forms, _)| forms.contains(&folded)) {
        return Some(Word::Unit(n));
    }
    if let Some(&(_, n)) = PL_TENS.iter().find(|(forms, _)| forms.contains(&folded)) {
        return Some(Word::Tens(n));
    }
    if let Some(&(_, n)) = PL_HUNDREDS.iter().find(|(forms, _)| forms.contains(&folded)) {
        return Some(Word::Hundreds(n));
    }
    // Ordinals before teens: "piętnastego" shares the teens' stem.
    if let Some((value, form)) = polish_ordinal(folded) {
        return Some(Word::Ordinal { value, form });
    }
    for &(stem, n) in PL_TEENS {
        if let Some(ending) = folded.strip_prefix(stem) {
            // "dziesięć", "dziesięciu"; "czternaście", "czternastu", "czternastoma".
            if matches!(ending, "ec" | "eciu" | "ecioma" | "cie" | "tu" | "toma") {
                return Some(Word::Teen(n));
            }
        }
    }
    None
}

/// Whether a folded word is one digit as an English number is read out: "oh", "zero" to
/// "nine", or a digit written as such.
pub fn is_read_out_digit(folded: &str) -> bool {
    EN_UNITS.contains(&folded) || folded == "oh" || (folded.len() == 1 && folded.as_bytes()[0].is_ascii_digit())
}

/// A Polish ordinal word (folded): its value and the form its ending says.
pub fn polish_ordinal(folded: &str) -> Option<(u32, OrdinalForm)> {
    PL_ORDINALS.iter().find_map(|&(stem, value)| {
        let ending = folded.strip_prefix(stem)?;
        ORDINAL_ENDINGS.contains(&ending).then(|| (value, ordinal_form(ending)))
    })
}

/// A digits word with an ordinal suffix: "21st", "15th", "3rd".
fn digit_ordinal(folded: &str) -> Option<u32> {
    let digits = folded.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &folded[digits.len()..];
    if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    matches!(suffix, "st" | "nd" | "rd" | "th").then(|| digits.parse().ok()).flatten()
}

/// A group being read: its value so far and what may follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// A unit, teen or digits: a following number starts a new group, except "hundred".
    Closed,
    /// Tens without a unit yet: "twenty" may take "one".
    Tens,
    /// Hundreds: may take tens, a teen or a unit ("two hundred and five", "sto dwadzieścia").
    Hundreds,
    /// After a scale: may take a whole group below it ("two thousand and five").
    Scale,
}

/// The numbers of a text, each with the words it was read from.
pub fn numbers(text: &str) -> Vec<NumberMention> {
    numbers_in(text, &tokens(text))
}

/// [`numbers`] over words already split.
pub fn numbers_in(text: &str, words: &[Token<'_>]) -> Vec<NumberMention> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        match read_at(text, words, i) {
            Some((end, value)) => {
                out.push(NumberMention { first: i, end, start_byte: words[i].start, end_byte: words[end - 1].end, value });
                i = end;
            }
            None => i += 1,
        }
    }
    out
}

/// Whether the text between two words lets a number go on across it: spacing, a hyphen, a
/// comma or a dot between digit groups ("600-123-456", "five five five, one two three").
fn joins(text: &str, before: &Token<'_>, after: &Token<'_>) -> bool {
    let gap = &text[before.end..after.start];
    // Across a comma only spoken digits go on ("five five five, one two three"), not written
    // numbers ("March 1, 2026").
    if gap.contains(',') && (before.is_digits() || after.is_digits()) {
        return false;
    }
    gap.chars().count() <= 3 && gap.chars().all(|c| c.is_whitespace() || matches!(c, ',' | '-' | '–'))
}

/// The number starting at word `i`: where it ends and what it says.
fn read_at(text: &str, words: &[Token<'_>], i: usize) -> Option<(usize, Number)> {
    let first = &words[i];
    if let Some(value) = digit_ordinal(&first.folded) {
        return Some((i + 1, Number::Ordinal { value, form: OrdinalForm::Day }));
    }
    // "15-go", "15-tego": an ordinal in digits, Polish style.
    if first.is_digits() && words.get(i + 1).is_some_and(|w| matches!(w.folded.as_str(), "go" | "ego" | "tego") && &text[first.end..w.start] == "-") {
        return Some((i + 2, Number::Ordinal { value: first.text.parse().ok()?, form: OrdinalForm::Day }));
    }
    // A sum with its thousands after a comma, as English text writes it ("1,240"): a whole
    // number, money after it or not, never the decimal 1.240.
    if let Some(whole) = thousands_after_a_comma(first.text) {
        let (end, value) = match currency_after(words, i + 1) {
            Some((end, currency, false)) => (end, Number::Money { major: whole, minor: None, currency }),
            _ => (i + 1, Number::Cardinal(whole)),
        };
        return Some((end, value));
    }
    // A written decimal ("86.40", "86,40"), money after it or not.
    if let Some((whole, fraction)) = written_decimal(first.text) {
        let (end, value) = match currency_after(words, i + 1) {
            Some((end, currency, false)) if fraction.len() == 2 => (end, Number::Money { major: whole, minor: fraction.parse().ok(), currency }),
            _ => (i + 1, Number::Decimal { whole, fraction }),
        };
        return Some((end, value));
    }
    let (end, groups) = read_groups(text, words, i)?;
    let mut end = end;
    // A lone ordinal word, or a tens word and an ordinal: "twenty-first", "dwudziestego pierwszego".
    if let [Group::Ordinal { value, form }] = groups[..] {
        return Some((end, Number::Ordinal { value, form }));
    }
    let values: Vec<u64> = groups.iter().map(Group::cardinal).collect::<Option<_>>()?;
    // "two point four", "dwa przecinek pięć".
    if values.len() == 1 && words.get(end).is_some_and(|w| matches!(w.folded.as_str(), "point" | "przecinek")) {
        if let Some((after, fraction)) = read_groups(text, words, end + 1).filter(|(_, g)| g.iter().all(|g| g.cardinal().is_some())) {
            let digits: String = fraction.iter().filter_map(Group::cardinal).map(|n| n.to_string()).collect();
            return Some((after, Number::Decimal { whole: values[0], fraction: digits }));
        }
    }
    if values.len() == 1 {
        // "eighty-six pounds forty (pence)", "89 złotych", "dwadzieścia złotych pięćdziesiąt groszy".
        if let Some((after, currency, minor_unit)) = currency_after(words, end) {
            if minor_unit {
                return Some((after, Number::Money { major: 0, minor: Some(values[0]), currency }));
            }
            end = after;
            // "eighty-six pounds and forty pence".
            let and = words.get(end).is_some_and(|w| w.folded == "and")
                && words.get(end + 2).is_some_and(|w| CURRENCIES.contains(&(w.folded.as_str(), true)));
            let minor = read_groups(text, words, if and { end + 1 } else { end }).and_then(|(after, g)| match g[..] {
                [Group::Cardinal(n)] if n < 100 => Some((after, n)),
                _ => None,
            });
            let (end, minor) = match minor {
                Some((after, n)) => (currency_after(words, after).filter(|c| c.2).map_or(after, |c| c.0), Some(n)),
                None => (end, None),
            };
            return Some((end, Number::Money { major: values[0], minor, currency }));
        }
        return Some((end, Number::Cardinal(values[0])));
    }
    Some((end, Number::Digits(groups.iter().map(Group::digits).collect())))
}

/// "1,240" (one to three digits, a comma, three digits) as 1240. A Polish decimal comma with
/// three digits after it ("0,125") reads so too: spoken sums are far more common than
/// thousandths.
fn thousands_after_a_comma(text: &str) -> Option<u64> {
    let (thousands, units) = text.split_once(',')?;
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !(1..=3).contains(&thousands.len()) || units.len() != 3 || !digits(thousands) || !digits(units) {
        return None;
    }
    format!("{thousands}{units}").parse().ok()
}

/// "86.40" or "86,40" as (whole, fraction digits); not "15.12.2026" nor "5:30".
fn written_decimal(text: &str) -> Option<(u64, String)> {
    let (whole, fraction) = text.split_once(['.', ','])?;
    if whole.is_empty() || fraction.is_empty() || !whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((whole.parse().ok()?, fraction.to_owned()))
}

/// A currency word at `at` (after "and", in English): where it ends, the word, and whether it
/// is a minor unit.
fn currency_after(words: &[Token<'_>], at: usize) -> Option<(usize, String, bool)> {
    let w = words.get(at)?;
    CURRENCIES.iter().find(|(c, _)| *c == w.folded).map(|&(_, minor)| (at + 1, w.text.to_owned(), minor))
}

/// A group read: a cardinal, or an ordinal, or digits as written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Group {
    Cardinal(u64),
    /// Digits written as digits, kept with their leading zeros.
    Written(String),
    Ordinal {
        value: u32,
        form: OrdinalForm,
    },
}

impl Group {
    fn cardinal(&self) -> Option<u64> {
        match self {
            Self::Cardinal(n) => Some(*n),
            Self::Written(d) => d.parse().ok(),
            Self::Ordinal { .. } => None,
        }
    }

    fn digits(&self) -> String {
        match self {
            Self::Cardinal(n) => n.to_string(),
            Self::Written(d) => d.clone(),
            Self::Ordinal { value, .. } => value.to_string(),
        }
    }
}

/// The groups said from word `i` on, joined across spacing, hyphens and commas; where they end.
fn read_groups(text: &str, words: &[Token<'_>], i: usize) -> Option<(usize, Vec<Group>)> {
    let mut groups: Vec<Group> = Vec::new();
    // The group being read: its value below the last scale, above it, and what may follow.
    let mut current: Option<(u64, u64, Open)> = None;
    let mut repeat = 1;
    let mut at = i;
    let close = |groups: &mut Vec<Group>, current: &mut Option<(u64, u64, Open)>| {
        if let Some((low, high, _)) = current.take() {
            groups.push(Group::Cardinal(high + low));
        }
    };
    while at < words.len() {
        if at > i && !joins(text, &words[at - 1], &words[at]) {
            break;
        }
        let w = &words[at];
        if w.is_digits() && w.text.len() <= 12 {
            close(&mut groups, &mut current);
            for _ in 0..repeat {
                groups.push(Group::Written(w.text.to_owned()));
            }
            repeat = 1;
            at += 1;
            continue;
        }
        // "and" inside a number: "two hundred and five", "two thousand and one".
        if w.folded == "and" && matches!(current, Some((_, _, Open::Hundreds | Open::Scale))) {
            if words.get(at + 1).and_then(|n| word(&n.folded)).is_some_and(|n| matches!(n, Word::Unit(_) | Word::Teen(_) | Word::Tens(_))) {
                at += 1;
                continue;
            }
            break;
        }
        let Some(kind) = word(&w.folded) else { break };
        match (kind, current) {
            (Word::Repeat(n), _) => {
                if !words.get(at + 1).and_then(|n| word(&n.folded)).is_some_and(|n| matches!(n, Word::Unit(_) | Word::Oh))
                    && !words.get(at + 1).is_some_and(Token::is_digits)
                {
                    break;
                }
                close(&mut groups, &mut current);
                repeat = n;
            }
            (Word::Oh, _) => {
                // Only among digits: "seven oh three", not "oh, I see".
                let digit_before = !groups.is_empty() || current.is_some();
                let digit_after = words.get(at + 1).and_then(|n| word(&n.folded)).is_some_and(|n| matches!(n, Word::Unit(_) | Word::Oh));
                if !(digit_before && digit_after) {
                    break;
                }
                close(&mut groups, &mut current);
                for _ in 0..repeat {
                    groups.push(Group::Cardinal(0));
                }
                repeat = 1;
            }
            (Word::Unit(u), Some((low, high, Open::Tens | Open::Hundreds | Open::Scale))) if u > 0 && low % 10 == 0 => {
                current = Some((low + u, high, Open::Closed));
            }
            (Word::Unit(u), _) => {
                close(&mut groups, &mut current);
                if repeat > 1 {
                    for _ in 0..repeat {
                        groups.push(Group::Cardinal(u));
                    }
                    repeat = 1;
                } else {
                    current = Some((u, 0, Open::Closed));
                }
            }
            (Word::Teen(t), Some((low, high, Open::Hundreds | Open::Scale))) if low % 100 == 0 => current = Some((low + t, high, Open::Closed)),
            (Word::Teen(t), _) => {
                close(&mut groups, &mut current);
                current = Some((t, 0, Open::Closed));
            }
            (Word::Tens(t), Some((low, high, Open::Hundreds | Open::Scale))) if low % 100 == 0 => current = Some((low + t, high, Open::Tens)),
            (Word::Tens(t), _) => {
                close(&mut groups, &mut current);
                current = Some((t, 0, Open::Tens));
            }
            (Word::Hundreds(h), Some((0, high, Open::Scale))) => current = Some((h, high, Open::Hundreds)),
            (Word::Hundreds(h), _) => {
                close(&mut groups, &mut current);
                current = Some((h, 0, Open::Hundreds));
            }
            (Word::Hundred, Some((low, high, _))) if (1..100).contains(&low) => current = Some((low * 100, high, Open::Hundreds)),
            (Word::Hundred, None) => current = Some((100, 0, Open::Hundreds)),
            (Word::Hundred, _) => break,
            (Word::Scale(s), Some((low, high, _))) if high == 0 || s < high => current = Some((0, high + low.max(1) * s, Open::Scale)),
            (Word::Scale(s), None) => current = Some((0, s, Open::Scale)),
            (Word::Scale(_), _) => break,
            (Word::Ordinal { value, form }, current_group) => {
                // "twenty-first", "dwudziestego pierwszego": tens and a unit ordinal.
                let tens = match (current_group, groups.last()) {
                    (Some((low, 0, Open::Tens)), _) => Some(low),
                    (None, Some(Group::Ordinal { value: tens, .. })) if tens % 10 == 0 && *tens >= 20 && value < 10 && groups.len() == 1 => {
                        Some(u64::from(*tens))
                    }
                    _ => None,
                };
                if let Some(tens) = tens.filter(|_| value < 10) {
                    current = None;
                    groups.clear();
                    groups.push(Group::Ordinal { value: tens as u32 + value, form });
                    at += 1;
                    break;
                }
                if current_group.is_some() || !groups.is_empty() {
                    break;
                }
                groups.push(Group::Ordinal { value, form });
                // A tens ordinal may take a unit ordinal next ("dwudziestego pierwszego").
                if value % 10 != 0 || value < 20 {
                    at += 1;
                    break;
                }
            }
        }
        at += 1;
    }
    close(&mut groups, &mut current);
    // "second" alone is a unit of time more often than an ordinal.
    if let [Group::Ordinal { value: 2, .. }] = groups[..] {
        if words[i].folded == "second" && (i == 0 || words[i - 1].folded != "the") {
            return None;
        }
    }
    (!groups.is_empty() && at > i).then_some((at, groups))
}

/// A stretch a normalised text replaced: `(normalised byte range, original byte range)`.
pub type Replaced = (std::ops::Range<usize>, std::ops::Range<usize>);

/// A text with each number in digits ("I paid eighty-six pounds forty twice" → "I paid 86.40
/// twice"; ordinals as their number), and for each replaced stretch its place in both texts:
/// `(normalised byte range, original byte range)`. Text outside numbers is kept as written.
pub fn normalise(text: &str) -> (String, Vec<Replaced>) {
    let mut out = String::with_capacity(text.len());
    let mut map = Vec::new();
    let mut from = 0;
    for mention in numbers(text) {
        out.push_str(&text[from..mention.start_byte]);
        let start = out.len();
        out.push_str(&mention.value.digits());
        if let Number::Money { currency, .. } = &mention.value {
            out.push(' ');
            out.push_str(currency);
        }
        map.push((start..out.len(), mention.start_byte..mention.end_byte));
        from = mention.end_byte;
    }
    out.push_str(&text[from..]);
    (out, map)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<Number> {
        numbers(text).into_iter().map(|m| m.value).collect()
    }

    fn digits(text: &str) -> String {
        normalise(text).0
    }

    #[test]
    fn english_cardinals_compounds_and_digit_sequences() {
        assert_eq!(read("two hundred and nineteen"), [Number::Cardinal(219)]);
        assert_eq!(read("twenty-one days"), [Number::Cardinal(21)]);
        assert_eq!(read("two thousand and five"), [Number::Cardinal(2005)]);
        assert_eq!(read("one thousand two hundred"), [Number::Cardinal(1200)]);
        assert_eq!(read("nineteen eighty five"), [Number::Digits("1985".into())]);
        assert_eq!(read("five five five, one two three"), [Number::Digits("555123".into())]);
        assert_eq!(read("seven oh three double four"), [Number::Digits("70344".into())]);
        assert_eq!(read("oh, I see, two forms"), [Number::Cardinal(2)]);
        assert_eq!(read("600-123-456"), [Number::Digits("600123456".into())]);
        assert_eq!(read("order 4471"), [Number::Cardinal(4471)]);
    }

    #[test]
    fn polish_cardinals_in_every_case() {
        assert_eq!(read("w ciągu czternastu dni"), [Number::Cardinal(14)]);
        assert_eq!(read("dwudziestu jeden dni"), [Number::Cardinal(21)]);
        assert_eq!(read("sto dwadzieścia trzy"), [Number::Cardinal(123)]);
        assert_eq!(read("dwa tysiące dwadzieścia sześć"), [Number::Cardinal(2026)]);
        assert_eq!(read("pięćset dwanaście, zero dziewięćdziesiąt, sześćset sześćdziesiąt cztery"), [Number::Digits("512090664".into())]);
        assert_eq!(read("trzech dni roboczych"), [Number::Cardinal(3)]);
        assert_eq!(read("pięćdziesięciu"), [Number::Cardinal(50)]);
        // Weekdays are not ordinals.
        assert!(read("w czwartek albo w piątek").is_empty());
    }

    #[test]
    fn ordinals_in_words_and_digits() {
        let ord = |value| Number::Ordinal { value, form: OrdinalForm::Day };
        assert_eq!(read("the twenty-first of May"), [ord(21)]);
        assert_eq!(read("by the 15th"), [ord(15)]);
        assert_eq!(read("do piętnastego grudnia"), [ord(15)]);
        assert_eq!(read("do dwudziestego pierwszego"), [ord(21)]);
        assert_eq!(read("trzydziestego pierwszego grudnia"), [ord(31)]);
        assert_eq!(read("do 15-go"), [ord(15)]);
        assert_eq!(read("o czternastej"), [Number::Ordinal { value: 14, form: OrdinalForm::Hour }]);
        assert!(read("wait a second").is_empty());
        assert_eq!(read("the second of March"), [ord(2)]);
    }

    #[test]
    fn decimals_and_money() {
        assert_eq!(digits("eighty-six pounds forty"), "86.40 pounds");
        assert_eq!(digits("eighty-six pounds and forty pence"), "86.40 pounds");
        assert_eq!(digits("it was 86,40 zł"), "it was 86.40 zł");
        assert_eq!(digits("89 złotych"), "89 złotych");
        assert_eq!(digits("dwadzieścia złotych pięćdziesiąt groszy"), "20.50 złotych");
        assert_eq!(digits("two point four gigahertz"), "2.4 gigahertz");
        assert_eq!(digits("the 2.4 band"), "the 2.4 band");
        assert_eq!(digits("I paid £86.40 twice"), "I paid £86.40 twice");
        // Thousands after a comma are a whole sum, not a decimal (stop 52's review).
        assert_eq!(read("1,240"), [Number::Cardinal(1240)]);
        assert_eq!(digits("a bill of 1,240 pounds, or £1,500"), "a bill of 1240 pounds, or £1500");
        assert_eq!(digits("rata 2,50 zł"), "rata 2.50 zł");
        assert_eq!(read("1,2400"), [Number::Decimal { whole: 1, fraction: "2400".into() }]);
    }

    #[test]
    fn the_map_leads_back_to_the_spoken_words() {
        let text = "Refund of eighty-six pounds forty, within five days.";
        let (normal, map) = normalise(text);
        assert_eq!(normal, "Refund of 86.40 pounds, within 5 days.");
        assert_eq!(&text[map[0].1.clone()], "eighty-six pounds forty");
        assert_eq!(&normal[map[1].0.clone()], "5");
    }
}
