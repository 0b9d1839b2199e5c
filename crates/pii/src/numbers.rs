//! Numbers as ASR writes them: digit groups ("600 123 456"), words ("five five five, one two
//! three", "pięćset sześćdziesiąt", "double seven", "nineteen eighty five") or a mix. A
//! [`Run`] is a stretch of such tokens; its [`Piece`]s are the smallest parts that carry
//! digits, so that a detector can try any contiguous part of a run.

use crate::text::{joins_number, Token};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumWord {
    /// 0–9.
    Unit(u32),
    /// 10–19.
    Teen(u32),
    /// 20, 30, … 90.
    Tens(u32),
    /// 100, 200, … 900 in one word (Polish "sto", "pięćset").
    Hundreds(u32),
    /// English "hundred": multiplies what came before.
    Hundred,
    Thousand,
    /// "double"/"triple": the next digit said two or three times.
    Repeat(u32),
    /// English "oh" for zero, only between other digits.
    Oh,
}

fn classify(n: u32) -> NumWord {
    match n {
        0..=9 => NumWord::Unit(n),
        10..=19 => NumWord::Teen(n),
        _ => NumWord::Tens(n),
    }
}

/// The number a (folded) word stands for, in English or Polish, cardinal or ordinal.
pub(crate) fn number_word(w: &str) -> Option<NumWord> {
    use NumWord::*;
    let cardinal = match w {
        "zero" => Unit(0),
        "one" | "jeden" | "jedna" | "jedno" => Unit(1),
        "two" | "dwa" | "dwie" => Unit(2),
        "three" | "trzy" => Unit(3),
        "four" | "cztery" => Unit(4),
        "five" | "piec" => Unit(5),
        "six" | "szesc" => Unit(6),
        "seven" | "siedem" => Unit(7),
        "eight" | "osiem" => Unit(8),
        "nine" | "dziewiec" => Unit(9),
        "ten" | "dziesiec" => Teen(10),
        "eleven" | "jedenascie" => Teen(11),
        "twelve" | "dwanascie" => Teen(12),
        "thirteen" | "trzynascie" => Teen(13),
        "fourteen" | "czternascie" => Teen(14),
        "fifteen" | "pietnascie" => Teen(15),
        "sixteen" | "szesnascie" => Teen(16),
        "seventeen" | "siedemnascie" => Teen(17),
        "eighteen" | "osiemnascie" => Teen(18),
        "nineteen" | "dziewietnascie" => Teen(19),
        "twenty" | "dwadziescia" => Tens(20),
        "thirty" | "trzydziesci" => Tens(30),
        "forty" | "czterdziesci" => Tens(40),
        "fifty" | "piecdziesiat" => Tens(50),
        "sixty" | "szescdziesiat" => Tens(60),
        "seventy" | "siedemdziesiat" => Tens(70),
        "eighty" | "osiemdziesiat" => Tens(80),
        "ninety" | "dziewiecdziesiat" => Tens(90),
        "sto" => Hundreds(100),
        "dwiescie" => Hundreds(200),
        "trzysta" => Hundreds(300),
        "czterysta" => Hundreds(400),
        "piecset" => Hundreds(500),
        "szescset" => Hundreds(600),
        "siedemset" => Hundreds(700),
        "osiemset" => Hundreds(800),
        "dziewiecset" => Hundreds(900),
        "hundred" => Hundred,
        "thousand" | "tysiac" | "tysiace" | "tysiecy" => Thousand,
        "double" => Repeat(2),
        "triple" => Repeat(3),
        "oh" => Oh,
        _ => return english_ordinal(w).or_else(|| polish_ordinal(w)),
    };
    Some(cardinal)
}

fn english_ordinal(w: &str) -> Option<NumWord> {
    let n = match w {
        "first" => 1,
        "second" => 2,
        "third" => 3,
        "fourth" => 4,
        "fifth" => 5,
        "sixth" => 6,
        "seventh" => 7,
        "eighth" => 8,
        "ninth" => 9,
        "tenth" => 10,
        "eleventh" => 11,
        "twelfth" => 12,
        "thirteenth" => 13,
        "fourteenth" => 14,
        "fifteenth" => 15,
        "sixteenth" => 16,
        "seventeenth" => 17,
        "eighteenth" => 18,
        "nineteenth" => 19,
        "twentieth" => 20,
        "thirtieth" => 30,
        _ => return None,
    };
    Some(classify(n))
}

fn polish_ordinal(w: &str) -> Option<NumWord> {
    callscope_text::number::polish_ordinal(w).map(|(n, _)| classify(n))
}

/// Words phone-quality ASR writes for a digit said alone ("free one two" for 3-1-2, "six
/// for two" for 6-4-2), with how sure that reading is: a word of its own in ordinary English
/// ("to", "for") is a digit only between spoken digits, two or more of them before it (so "two to
/// three days" stays a range), the rarer ones ("free", "tree", "won", "ate") also after one
/// spoken digit or before two.
fn sound_alike(w: &str) -> Option<(u32, bool)> {
    match w {
        "free" | "tree" => Some((3, true)),
        "won" => Some((1, true)),
        "ate" => Some((8, true)),
        "for" | "fore" => Some((4, false)),
        "to" | "too" => Some((2, false)),
        _ => None,
    }
}

/// A spoken digit word (not a written digit, not "oh"): what a sound-alike needs around it.
fn spoken_unit(t: &Token<'_>) -> bool {
    matches!(number_word(&t.folded), Some(NumWord::Unit(_)))
}

/// Digits written as a token: "600", "15th", "3rd".
fn digit_token(t: &Token<'_>) -> Option<String> {
    if t.is_digits() {
        return Some(t.text.to_owned());
    }
    let digits: String = t.text.chars().take_while(char::is_ascii_digit).collect();
    let rest = &t.lower[digits.len()..];
    (!digits.is_empty() && matches!(rest, "st" | "nd" | "rd" | "th")).then_some(digits)
}

/// Digits from one or more tokens, the smallest unit a detector may take or leave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
    /// First and last token (indices into the text's tokens).
    pub first: usize,
    pub last: usize,
    pub digits: String,
    /// Spelled in words (ASR style) rather than digits.
    pub spoken: bool,
}

/// Consecutive number tokens.
#[derive(Debug, Clone)]
pub(crate) struct Run {
    pub pieces: Vec<Piece>,
    /// A `+` right before the first token.
    pub plus: bool,
}

impl Run {
    /// The digits of pieces `i..=j`.
    pub fn digits(&self, i: usize, j: usize) -> String {
        self.pieces[i..=j].iter().map(|p| p.digits.as_str()).collect()
    }
}

/// A number being spoken in words: `high` thousands plus `low`; `slot` says what may still
/// join (4: after "thousand", 3: after hundreds, 2: after tens, 1: complete).
#[derive(Debug, Clone, Copy)]
struct Group {
    first: usize,
    last: usize,
    high: u32,
    low: u32,
    slot: u8,
    /// A lone unit (which English "hundred" may multiply).
    lone_unit: bool,
}

impl Group {
    fn digits(&self) -> String {
        (self.high * 1000 + self.low).to_string()
    }
}

/// Finds the number runs among `tokens` of `text`.
pub(crate) fn runs(text: &str, tokens: &[Token<'_>]) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut pieces: Vec<Piece> = Vec::new();
    let mut group: Option<Group> = None;
    let mut repeat: Option<u32> = None;
    let mut run_start = 0;
    let flush = |group: &mut Option<Group>, pieces: &mut Vec<Piece>| {
        if let Some(g) = group.take() {
            pieces.push(Piece { first: g.first, last: g.last, digits: g.digits(), spoken: true });
        }
    };
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        let in_run = !pieces.is_empty() || group.is_some() || repeat.is_some();
        if in_run && !joins_number(&text[tokens[i - 1].end..t.start]) {
            flush(&mut group, &mut pieces);
            if !pieces.is_empty() {
                let plus = text[..tokens[run_start].start].ends_with('+');
                runs.push(Run { pieces: std::mem::take(&mut pieces), plus });
            }
            repeat = None;
        }
        if pieces.is_empty() && group.is_none() {
            run_start = i;
        }
        if let Some(d) = digit_token(t) {
            flush(&mut group, &mut pieces);
            pieces.push(Piece { first: i, last: i, digits: d, spoken: false });
            i += 1;
            continue;
        }
        let word = number_word(&t.folded);
        let neighbour_numeric =
            |k: usize| tokens.get(k).is_some_and(|n| digit_token(n).is_some() || number_word(&n.folded).is_some_and(|w| w != NumWord::Oh));
        let in_run_now = group.is_some() || !pieces.is_empty();
        // A sound-alike inside spoken digits: right after a spoken unit with one after it, or
        // (for the rarer words) before two spoken units.
        let alike = || {
            let (digit, rare) = sound_alike(&t.folded)?;
            let after = |k: usize| tokens.get(k).is_some_and(spoken_unit) && joins_number(&text[tokens[k - 1].end..tokens[k].start]);
            // Digits read out so far in this run ("two to three" is a range, "six two to one" a
            // number).
            let said = pieces.iter().map(|p| p.digits.len()).sum::<usize>() + group.map_or(0, |g| g.digits().len());
            let before_spoken = in_run_now && i > 0 && spoken_unit(&tokens[i - 1]) && (rare || said >= 2);
            (before_spoken && (after(i + 1) || rare) || rare && after(i + 1) && after(i + 2)).then_some(NumWord::Unit(digit))
        };
        let word = match word {
            None => alike(),
            w => w,
        };
        let word = match word {
            // "oh" and "o" are zero only between numbers.
            Some(NumWord::Oh) if (group.is_some() || !pieces.is_empty()) || neighbour_numeric(i + 1) => Some(NumWord::Unit(0)),
            None if t.lower == "o" && (group.is_some() || !pieces.is_empty()) && neighbour_numeric(i + 1) => Some(NumWord::Unit(0)),
            Some(NumWord::Oh) => None,
            w => w,
        };
        // "and" inside "one hundred and twenty".
        if word.is_none() && t.lower == "and" {
            if let Some(g) = group {
                if g.slot >= 3 && tokens.get(i + 1).is_some_and(|n| number_word(&n.folded).is_some()) {
                    i += 1;
                    continue;
                }
            }
        }
        let Some(word) = word else {
            flush(&mut group, &mut pieces);
            if !pieces.is_empty() {
                let plus = text[..tokens[run_start].start].ends_with('+');
                runs.push(Run { pieces: std::mem::take(&mut pieces), plus });
            }
            repeat = None;
            i += 1;
            continue;
        };
        let start = |v: u32, slot: u8, lone: bool| Group { first: i, last: i, high: 0, low: v, slot, lone_unit: lone };
        match word {
            NumWord::Repeat(n) => {
                flush(&mut group, &mut pieces);
                repeat = Some(n);
                run_start = if pieces.is_empty() { i } else { run_start };
                i += 1;
                continue;
            }
            NumWord::Unit(u) if repeat.is_some() => {
                flush(&mut group, &mut pieces);
                let n = repeat.take().unwrap_or(1);
                let first = if i > 0 { i - 1 } else { i };
                pieces.push(Piece { first, last: i, digits: u.to_string().repeat(n as usize), spoken: true });
            }
            NumWord::Unit(u) => match &mut group {
                Some(g) if g.slot >= 3 || (g.slot == 2 && u != 0) => {
                    g.low += u;
                    g.slot = 1;
                    g.last = i;
                    g.lone_unit = false;
                }
                _ => {
                    flush(&mut group, &mut pieces);
                    group = Some(start(u, 1, u != 0));
                    if u == 0 {
                        flush(&mut group, &mut pieces);
                    }
                }
            },
            NumWord::Teen(v) | NumWord::Tens(v) => {
                let slot = if matches!(word, NumWord::Teen(_)) { 1 } else { 2 };
                match &mut group {
                    Some(g) if g.slot >= 3 => {
                        g.low += v;
                        g.slot = slot;
                        g.last = i;
                        g.lone_unit = false;
                    }
                    _ => {
                        flush(&mut group, &mut pieces);
                        group = Some(start(v, slot, false));
                    }
                }
            }
            NumWord::Hundreds(h) => match &mut group {
                Some(g) if g.slot == 4 => {
                    g.low = h;
                    g.slot = 3;
                    g.last = i;
                }
                _ => {
                    flush(&mut group, &mut pieces);
                    group = Some(start(h, 3, false));
                }
            },
            NumWord::Hundred => match &mut group {
                Some(g) if (g.lone_unit || (g.slot <= 2 && g.low < 100 && g.high == 0)) && g.low > 0 => {
                    g.low *= 100;
                    g.slot = 3;
                    g.last = i;
                    g.lone_unit = false;
                }
                Some(g) if g.slot == 4 => {
                    g.low = 100;
                    g.slot = 3;
                    g.last = i;
                }
                _ => {
                    flush(&mut group, &mut pieces);
                    group = Some(start(100, 3, false));
                }
            },
            NumWord::Thousand => match &mut group {
                Some(g) if g.high == 0 && g.low < 1000 => {
                    g.high = g.low.max(1);
                    g.low = 0;
                    g.slot = 4;
                    g.last = i;
                    g.lone_unit = false;
                }
                _ => {
                    flush(&mut group, &mut pieces);
                    group = Some(Group { first: i, last: i, high: 1, low: 0, slot: 4, lone_unit: false });
                }
            },
            NumWord::Oh => unreachable!("mapped above"),
        }
        i += 1;
    }
    flush(&mut group, &mut pieces);
    if !pieces.is_empty() {
        let plus = text[..tokens[run_start].start].ends_with('+');
        runs.push(Run { pieces, plus });
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::tokens;

    fn digits(text: &str) -> Vec<String> {
        let t = tokens(text);
        runs(text, &t).iter().map(|r| r.digits(0, r.pieces.len() - 1)).collect()
    }

    #[test]
    fn spoken_and_written_numbers_become_digits() {
        assert_eq!(digits("call 600 123 456 please"), ["600123456"]);
        assert_eq!(digits("five five five, one two three, four five six seven"), ["5551234567"]);
        assert_eq!(digits("pięćset sześćdziesiąt siedem, osiemset dziewięćdziesiąt"), ["567890"]);
        assert_eq!(digits("double seven oh nine"), ["7709"]);
        assert_eq!(digits("nineteen eighty five"), ["1985"]);
        assert_eq!(digits("tysiąc dziewięćset osiemdziesiątego piątego"), ["1985"]);
        assert_eq!(digits("two thousand and five"), ["2005"]);
        assert_eq!(digits("one hundred and twenty three"), ["123"]);
        assert_eq!(digits("zero zero forty eight"), ["0048"]);
        assert_eq!(digits("+48 600-123-456"), ["48600123456"]);
        assert!(runs("+48 600", &tokens("+48 600"))[0].plus);
        assert_eq!(digits("dwudziestego piątego"), ["25"]);
        assert_eq!(digits("I have one, and then two dogs"), ["1", "2"]);
        assert_eq!(digits("it was 15th or so"), ["15"]);
    }

    #[test]
    fn words_phone_asr_writes_for_digits_count_only_among_spoken_digits() {
        assert_eq!(digits("free one two, five five five, nine for six eight"), ["3125559468"]);
        assert_eq!(digits("six two to one, won two three"), ["6221123"]);
        assert_eq!(digits("seven seven ate"), ["778"]);
        // Ordinary English stays words.
        assert_eq!(digits("I paid for two items"), ["2"]);
        assert_eq!(digits("send it to 600 123 456"), ["600123456"]);
        assert_eq!(digits("a tree fell on the line"), Vec::<String>::new());
        assert_eq!(digits("press one for sales"), ["1"]);
        // Ranges are not digits read out.
        assert_eq!(digits("I'll call you back in two to three days"), ["2", "3"]);
        assert_eq!(digits("five to seven working days, one for each"), ["5", "7", "1"]);
    }
}
