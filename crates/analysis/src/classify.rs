//! Classification without a model: each category's name and description are its keywords; a
//! category scores by how often its keywords occur in the call, normalised by how many it has,
//! plus a share of its ancestors' score, so that "Billing › Refunds" beats "Billing" when
//! refunds are discussed. Four things keep the words that say little from deciding: a keyword
//! counts less the more categories of the tree share it ("policy" names every child of
//! "Policies"), the call's opening turns, where the caller says why they call, count twice, a
//! word inside a collocation that gives it another sense ("email address", "double-check", the
//! "double oh" of a phone number) is no keyword, and nor are the words a description uses to say
//! how ("the same amount was taken more than once"). The first three, before "double oh", took
//! the 124 tuning calls of the time from 78 to 94 right. "Double oh" and the words that say how
//! moved the 228 tuning calls of stop 51 from 78 to 80 (English) and 88 to 87 (Polish) of 114:
//! within noise; they mend faults seen, not a score.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use callscope_domain::CategoryId;

use crate::text::{fold, sentences, stem, stems};

/// A category of the project's tree.
#[derive(Debug, Clone)]
pub struct CategoryInfo {
    pub id: CategoryId,
    pub parent: Option<CategoryId>,
    pub name: String,
    pub description: Option<String>,
}

/// One category the call belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct CategoryMatch {
    pub category_id: CategoryId,
    /// Ids root → node.
    pub category_path: Vec<CategoryId>,
    /// Names root → node.
    pub category_names: Vec<String>,
    pub confidence: f32,
    pub evidence: String,
    /// 0 for a root.
    pub depth: usize,
}

/// The call's categories.
#[derive(Debug, Clone, PartialEq)]
pub struct Classification {
    pub primary: Option<CategoryMatch>,
    pub secondary: Vec<CategoryMatch>,
    pub overall_confidence: f32,
    pub reasoning: String,
}

/// Words a description uses to say how or how much ("the same amount was taken more than
/// once", "inny niż awaria"), which say nothing of what a call is about and occur in any call:
/// quantifiers and comparatives, indefinite pronouns, auxiliaries and light verbs, prepositions,
/// conjunctions and adverbs of time and degree, English and Polish (folded; Polish with the case
/// forms a description would use). A word matches by its stem, so "others" goes with "other".
/// Words a category's subject can hang on are not here, though some are common: "twice" and
/// "razy", "new", "make" (and model), "sort" (code), "needs" (additional needs), "after"
/// (after-sales), "off" (write-off), "May", "sposób" (płatności), "rzeczy" (osobiste). The
/// shared [`crate::text`] stop list serves every matcher; this one only classification.
#[rustfmt::skip]
const GENERAL_WORDS: &[&str] = &[
    // English
    "more", "most", "less", "least", "than", "once", "same", "other", "another", "some", "such", "each", "every", "both",
    "either", "neither", "nor", "only", "very", "too", "much", "many", "few", "own", "been", "being", "does", "did",
    "done", "doing", "had", "having", "should", "could", "might", "must", "shall", "here", "where", "while", "before",
    "over", "under", "between", "through", "during", "without", "within", "because", "since", "until", "upon", "onto",
    "these", "those", "then", "whether", "whose", "whom", "why", "again", "against", "still", "even", "ever", "never",
    "always", "often", "already", "yet", "get", "gets", "got", "take", "takes", "taken", "took", "give", "gives",
    "given", "gave", "want", "wants", "wanted", "something", "anything", "nothing", "thing", "way", "ways", "kind",
    "someone", "anyone",
    // Polish
    "niz", "wiecej", "mniej", "najwiecej", "raz", "sam", "sama", "samo", "sami", "samego", "samej", "samym", "taki",
    "taka", "takie", "tacy", "takiego", "takiej", "takich", "takim", "kazdy", "kazda", "kazde", "kazdego", "kazdej",
    "kazdym", "inny", "inna", "inni", "innego", "innej", "innym", "oba", "obie", "ani", "tez", "takze", "rowniez",
    "czyli", "gdy", "kiedy", "gdzie", "ktory", "ktora", "ktore", "ktorych", "ktorego", "ktorej", "ktorym", "ktorzy",
    "jako", "przed", "bez", "miedzy", "podczas", "zanim", "potem", "zawsze", "nigdy", "czesto", "zostal", "zostala",
    "zostalo", "zostaly", "zostali", "zostac", "zostanie", "byc", "jakis", "jakas", "jakies", "cos", "cokolwiek", "nic",
    "chce", "chcial", "chciala", "chcialbym", "chcialabym",
];

/// The stems of [`GENERAL_WORDS`].
fn general_stems() -> &'static HashSet<String> {
    static STEMS: OnceLock<HashSet<String>> = OnceLock::new();
    STEMS.get_or_init(|| GENERAL_WORDS.iter().filter_map(|w| stem(w)).collect())
}

fn keywords(c: &CategoryInfo) -> HashMap<String, f32> {
    let mut k = HashMap::new();
    for s in stems(&format!("{} {}", c.name, c.description.as_deref().unwrap_or(""))) {
        if !general_stems().contains(&s) {
            *k.entry(s).or_insert(0.0) += 1.0;
        }
    }
    k
}

/// The category and its ancestors, root first (a cycle stops the walk).
pub(crate) fn chain<'a>(by_id: &HashMap<CategoryId, &'a CategoryInfo>, c: &'a CategoryInfo) -> Vec<&'a CategoryInfo> {
    let mut path = vec![c];
    let mut at = c;
    while let Some(parent) = at.parent.and_then(|p| by_id.get(&p)) {
        if path.iter().any(|x| x.id == parent.id) {
            break;
        }
        path.push(parent);
        at = parent;
    }
    path.reverse();
    path
}

/// The names a model reads and writes for the project's categories: a slug of each category's
/// name up to its first '/' ("Billing / Płatności" → `billing`), made unique with a number. A
/// model picks among these far more reliably than among UUIDs, and they cost fewer tokens.
pub(crate) struct CategoryKeys {
    keys: Vec<(String, CategoryId)>,
}

impl CategoryKeys {
    pub(crate) fn new(categories: &[CategoryInfo]) -> Self {
        let mut keys: Vec<(String, CategoryId)> = Vec::with_capacity(categories.len());
        for c in categories {
            let head = c.name.split('/').next().unwrap_or_default();
            let folded: String = callscope_text::fold(head).chars().map(|ch| if ch.is_ascii_alphanumeric() { ch } else { ' ' }).collect();
            let mut slug = folded.split_whitespace().take(4).collect::<Vec<_>>().join("_");
            if slug.is_empty() {
                slug = "category".into();
            }
            let mut key = slug.clone();
            let mut n = 2;
            // "none" is what a model answers when no category fits.
            while key == "none" || keys.iter().any(|(k, _)| *k == key) {
                key = format!("{slug}_{n}");
                n += 1;
            }
            keys.push((key, c.id));
        }
        CategoryKeys { keys }
    }

    /// The key shown to the model for `id` (empty for an id not in the list).
    pub(crate) fn key(&self, id: CategoryId) -> &str {
        self.keys.iter().find(|(_, i)| *i == id).map_or("", |(k, _)| k)
    }

    /// The category the model named by `key`.
    pub(crate) fn id(&self, key: &str) -> Option<CategoryId> {
        self.keys.iter().find(|(k, _)| k == key).map(|(_, id)| *id)
    }

    /// Every key, in the categories' order.
    pub(crate) fn all(&self) -> Vec<&str> {
        self.keys.iter().map(|(k, _)| k.as_str()).collect()
    }
}

/// The categories by id, for walking up the tree.
pub(crate) fn by_id(categories: &[CategoryInfo]) -> HashMap<CategoryId, &CategoryInfo> {
    categories.iter().map(|c| (c.id, c)).collect()
}

/// How many opening turns count [`OPENING_WEIGHT`] times: the greeting and the caller's reason
/// for calling. On the tuning calls the first two turns counted twice were right on 5 more of
/// 124 calls; three turns, or the first 50 words, on fewer.
const OPENING_TURNS: usize = 2;
const OPENING_WEIGHT: f32 = 2.0;

/// Collocations in which a keyword means something else: the stem of the word, the folded
/// words that change its sense, and whether they stand before it ("email address") or after
/// it ("adres mailowy", "adres e-mail", "double-check").
const OTHER_SENSE: &[(&str, &[&str], Side)] = &[
    ("addres", &["email", "mail", "ip", "web", "website"], Side::Before),
    ("address", &["email", "mail", "ip", "web", "website"], Side::Before),
    // "Adres" stems to "adre", "adresu" and "adresem" to "adres".
    ("adre", &["email", "e", "mail", "mailowy", "mailowego", "mailowym", "ip", "www"], Side::After),
    ("adres", &["email", "e", "mail", "mailowy", "mailowego", "mailowym", "ip", "www"], Side::After),
    ("doubl", &["check", "checked", "checking", "checks"], Side::After),
];

/// Whether the word at `at` is the "double" of a number read out ("seven seven double oh, nine
/// one four"): a digit after it, and after that another digit or the end of the clause, so that
/// "charged double two months running" still says double.
fn reads_out_a_digit(words: &[String], at: usize) -> bool {
    // "o" is how speech recognition often writes the "oh" of a number.
    let digit = |i: usize| words.get(i).is_some_and(|w| w == "o" || callscope_text::number::is_read_out_digit(w));
    words[at] == "double" && digit(at + 1) && (at + 2 == words.len() || digit(at + 2))
}

/// Where a collocation's other word stands.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Before,
    After,
}

/// The stems said in the call, each with how often, the opening turns counting
/// [`OPENING_WEIGHT`] times and words in an [`OTHER_SENSE`] collocation, or the "double" of a
/// number read out, not at all.
fn spoken_counts(turns: &[&str]) -> HashMap<String, f32> {
    let mut counts: HashMap<String, f32> = HashMap::new();
    for (i, turn) in turns.iter().enumerate() {
        let weight = if i < OPENING_TURNS { OPENING_WEIGHT } else { 1.0 };
        // A collocation does not run across a mark ("charged double, check my statement").
        for clause in turn.split(['.', ',', ';', ':', '!', '?', '\n']) {
            let words: Vec<String> = clause.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(fold).collect();
            for (at, word) in words.iter().enumerate() {
                let Some(stem) = stem(word) else { continue };
                let other_sense = OTHER_SENSE.iter().any(|(s, next_to, side)| {
                    let neighbour = match side {
                        Side::Before => at.checked_sub(1).and_then(|b| words.get(b)),
                        Side::After => words.get(at + 1),
                    };
                    *s == stem && neighbour.is_some_and(|n| next_to.contains(&n.as_str()))
                });
                if !other_sense && !reads_out_a_digit(&words, at) {
                    *counts.entry(stem).or_insert(0.0) += weight;
                }
            }
        }
    }
    counts
}

/// How well each category's words fit a text: each category's own score with the keywords it
/// found, and the categories that found any, best first, scored with a share of their
/// ancestors' score.
struct KeywordScores<'a> {
    own: HashMap<CategoryId, (f32, Vec<String>)>,
    ranked: Vec<(f32, &'a CategoryInfo)>,
}

fn keyword_scores<'a>(categories: &'a [CategoryInfo], turns: &[&str]) -> KeywordScores<'a> {
    let counts = spoken_counts(turns);
    let all: Vec<HashMap<String, f32>> = categories.iter().map(keywords).collect();
    let mut shared_by: HashMap<&str, f32> = HashMap::new();
    for k in &all {
        for s in k.keys() {
            *shared_by.entry(s.as_str()).or_insert(0.0) += 1.0;
        }
    }
    // 1/√(categories sharing it): on the tuning calls as good as ln(1 + n/df) and 1/df
    // (right 88, 88 and 86 of 124 before the names' weight was lowered), and gentlest.
    let rarity = |s: &str| 1.0 / shared_by.get(s).copied().unwrap_or(1.0).sqrt();
    let own: HashMap<CategoryId, (f32, Vec<String>)> = categories
        .iter()
        .zip(&all)
        .map(|(c, k)| {
            let k: HashMap<&str, f32> = k.iter().map(|(s, w)| (s.as_str(), w * rarity(s))).collect();
            let total: f32 = k.values().sum();
            let mut hits: Vec<(String, f32)> = k.iter().filter_map(|(s, w)| counts.get(*s).map(|n| ((*s).to_owned(), w * (1.0 + n).ln()))).collect();
            hits.sort_by(|a, b| b.1.total_cmp(&a.1));
            let score = if total > 0.0 { hits.iter().map(|h| h.1).sum::<f32>() / total.sqrt() } else { 0.0 };
            (c.id, (score, hits.into_iter().map(|h| h.0).collect()))
        })
        .collect();
    let by_id = by_id(categories);
    let mut ranked: Vec<(f32, &CategoryInfo)> = categories
        .iter()
        .filter(|c| own[&c.id].0 > 0.0)
        .map(|c| {
            let path = chain(&by_id, c);
            let inherited: f32 = path[..path.len() - 1].iter().map(|a| own[&a.id].0).sum();
            (own[&c.id].0 + 0.3 * inherited, c)
        })
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.name.cmp(&b.1.name)));
    KeywordScores { own, ranked }
}

/// The categories whose words occur in the call's turns, best first, with their scores.
pub(crate) fn keyword_ranking(categories: &[CategoryInfo], turns: &[&str]) -> Vec<(CategoryId, f32)> {
    keyword_scores(categories, turns).ranked.iter().map(|(score, c)| (c.id, *score)).collect()
}

/// Classifies the call's turns into `categories`; `None` when there are none.
pub fn classify(categories: &[CategoryInfo], turns: &[&str]) -> Option<Classification> {
    if categories.is_empty() {
        return None;
    }
    let text = turns.join("\n");
    let KeywordScores { own, ranked } = keyword_scores(categories, turns);
    let by_id = by_id(categories);
    let make = |score: f32, c: &CategoryInfo| {
        let path = chain(&by_id, c);
        let hits = &own[&c.id].1;
        let evidence =
            sentences(&text).into_iter().max_by_key(|s| stems(s).iter().filter(|x| hits.contains(x)).count()).unwrap_or_default().to_owned();
        CategoryMatch {
            category_id: c.id,
            category_path: path.iter().map(|a| a.id).collect(),
            category_names: path.iter().map(|a| a.name.clone()).collect(),
            confidence: ((1.0 - (-score).exp()).min(0.95) * 100.0).round() / 100.0,
            evidence,
            depth: path.len() - 1,
        }
    };
    let Some(&(best, top)) = ranked.first() else {
        return Some(Classification {
            primary: None,
            secondary: Vec::new(),
            overall_confidence: 0.0,
            reasoning: "No category's name or description words occur in the call.".into(),
        });
    };
    let primary = make(best, top);
    let secondary: Vec<CategoryMatch> =
        ranked[1..].iter().filter(|(s, c)| *s >= 0.5 * best && !primary.category_path.contains(&c.id)).take(3).map(|&(s, c)| make(s, c)).collect();
    let reasoning = format!(
        "Words of \"{}\" occur in the call: {}.",
        primary.category_names.join(" › "),
        own[&top.id].1.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
    );
    Some(Classification { overall_confidence: primary.confidence, primary: Some(primary), secondary, reasoning })
}

/// The match for a category chosen elsewhere (by a model weighing the keywords' candidates),
/// with `confidence`, quoting the call's sentence with most of that category's words (none when
/// none occurs). `None` for an id not in `categories`.
pub fn chosen_match(categories: &[CategoryInfo], turns: &[&str], id: CategoryId, confidence: f32) -> Option<CategoryMatch> {
    let mut chosen = match_for(categories, id, confidence)?;
    let text = turns.join("\n");
    let hits = keyword_scores(categories, turns).own.remove(&id).map(|(_, hits)| hits).unwrap_or_default();
    if !hits.is_empty() {
        let best = sentences(&text).into_iter().max_by_key(|s| stems(s).iter().filter(|x| hits.contains(x)).count());
        chosen.evidence = best.unwrap_or_default().to_owned();
    }
    Some(chosen)
}

/// The match for a category chosen elsewhere (by a model, when no category's words occur in the
/// call, so there is no sentence to quote), with `confidence`. `None` for an id not in
/// `categories`.
pub fn match_for(categories: &[CategoryInfo], id: CategoryId, confidence: f32) -> Option<CategoryMatch> {
    let by_id = by_id(categories);
    let path = chain(&by_id, by_id.get(&id)?);
    Some(CategoryMatch {
        category_id: id,
        category_path: path.iter().map(|a| a.id).collect(),
        category_names: path.iter().map(|a| a.name.clone()).collect(),
        confidence,
        evidence: String::new(),
        depth: path.len() - 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: CategoryId = CategoryId(uuid::Uuid::from_u128(1));
    const R: CategoryId = CategoryId(uuid::Uuid::from_u128(2));
    const T: CategoryId = CategoryId(uuid::Uuid::from_u128(3));
    const S: CategoryId = CategoryId(uuid::Uuid::from_u128(4));

    fn cat(id: CategoryId, parent: Option<CategoryId>, name: &str, description: &str) -> CategoryInfo {
        CategoryInfo { id, parent, name: name.into(), description: Some(description.into()) }
    }

    fn tree() -> Vec<CategoryInfo> {
        vec![
            cat(B, None, "Płatności", "faktury, płatności, rachunki"),
            cat(R, Some(B), "Zwroty", "zwrot pieniędzy, zwrot towaru, reklamacja"),
            cat(T, None, "Wsparcie techniczne", "awaria, internet nie działa, router"),
            cat(S, None, "Sales", "new contract, upgrade, offer, price"),
        ]
    }

    #[test]
    fn the_most_specific_matching_category_wins_with_its_path() {
        let c = classify(&tree(), &["Dzień dobry, chciałam złożyć reklamację i prosić o zwrot pieniędzy.", "Zwrotu dokonamy na fakturę korygującą."])
            .unwrap();
        let p = c.primary.unwrap();
        assert_eq!(p.category_id, R);
        assert_eq!(p.category_path, [B, R]);
        assert_eq!(p.category_names, ["Płatności", "Zwroty"]);
        assert_eq!(p.depth, 1);
        assert!(p.evidence.contains("reklamację"), "{}", p.evidence);
        assert!(p.confidence > 0.5 && p.confidence <= 0.95);
        assert!(c.secondary.iter().all(|s| s.category_id != B), "an ancestor is not a secondary match");

        let sales = classify(&tree(), &["I'd like to upgrade my contract, what's the price of the new offer?"]).unwrap();
        assert_eq!(sales.primary.unwrap().category_id, S);
        let none = classify(&tree(), &["Hello, is anybody there?"]).unwrap();
        assert!(none.primary.is_none() && none.overall_confidence == 0.0);
        assert!(classify(&[], &["anything"]).is_none(), "no categories: no classification");
    }

    fn primary(categories: &[CategoryInfo], turns: &[&str]) -> CategoryId {
        classify(categories, turns).and_then(|c| c.primary).map(|p| p.category_id).unwrap()
    }

    #[test]
    fn an_email_address_or_a_double_check_is_no_keyword() {
        const MOVE: CategoryId = CategoryId(uuid::Uuid::from_u128(5));
        let mut categories = tree();
        categories.push(cat(MOVE, None, "Address changes", "moving house, new address, przeprowadzka, nowy adres"));
        categories.push(cat(CategoryId::new(), Some(R), "Double charges", "charged twice, double debit"));
        let quote =
            ["Hi, I'd like a quote for the new offer.", "Sure. What's your email address? Let me double-check the price. The email address again?"];
        assert_eq!(primary(&categories, &quote), S);
        // The opening says little; the router is named once, the e-mail address twice.
        let polish =
            ["Dzień dobry.", "Dzień dobry, mam pytanie.", "Mój router miga.", "Poproszę adres mailowy. Czyli adres e-mail to jan kropka kowalski."];
        assert_eq!(primary(&categories, &polish), T);
        // Only the words next to it in its clause change its sense.
        assert_eq!(primary(&categories, &["Hello.", "Hello.", "I'm moving to a new address. Email me the form."]), MOVE);
        assert_eq!(primary(&categories, &["I'm moving house next week.", "What's the new address?"]), MOVE);
    }

    #[test]
    fn a_number_read_out_with_double_oh_is_no_double_charge() {
        const OUTAGE: CategoryId = CategoryId(uuid::Uuid::from_u128(6));
        const DOUBLE: CategoryId = CategoryId(uuid::Uuid::from_u128(7));
        let mut categories = tree();
        categories.push(cat(OUTAGE, Some(T), "Outages", "no signal, mast down, no service"));
        categories.push(cat(DOUBLE, Some(R), "Double charges", "charged twice, double debit"));
        let call = ["Can I take the mobile number?", "It's oh seven seven double oh, nine one four, double two.", "There's no signal."];
        assert_eq!(primary(&categories, &call), OUTAGE);
        // Without commas, as speech recognition often writes it.
        let unpunctuated = ["Can I take the mobile number", "It's oh seven seven double oh nine one four", "There's no signal"];
        assert_eq!(primary(&categories, &unpunctuated), OUTAGE);
        // Said of a payment, it still counts, a number after it or not.
        assert_eq!(primary(&categories, &["Hello.", "Hello.", "You've charged me double, the debit went out twice."]), DOUBLE);
        assert_eq!(primary(&categories, &["Hello.", "I've been charged double two months in a row.", "There's no signal."]), DOUBLE);
    }

    #[test]
    fn words_that_say_how_in_a_description_are_no_keywords() {
        const DOUBLE: CategoryId = CategoryId(uuid::Uuid::from_u128(7));
        const DATA: CategoryId = CategoryId(uuid::Uuid::from_u128(8));
        let categories = vec![
            cat(DOUBLE, None, "Double charges", "duplicate payment; the same amount was taken more than once"),
            cat(DATA, None, "Upgrades", "unlimited data, faster plan"),
        ];
        // "more", "than", "once", "same" and "taken" are in any call; the data plan is the subject.
        let call = ["Hi, I keep running out of data.", "Once more than I'd like, and the same again this month.", "Has any of it been taken off?"];
        assert_eq!(primary(&categories, &call), DATA);
        assert!(keywords(&categories[0]).keys().all(|k| !["more", "than", "once", "same", "taken"].contains(&k.as_str())));
        // By the stem: "others" goes with "other"; a subject word stays, though common.
        let sales = cat(DATA, None, "After-sales", "others, the make and model, sort code, additional needs");
        let kept = keywords(&sales);
        assert!(!kept.contains_key("other") && !kept.contains_key("others"), "{kept:?}");
        for subject in ["after", "sale", "make", "sort", "need"] {
            assert!(kept.contains_key(subject), "{subject}: {kept:?}");
        }
    }

    #[test]
    fn a_word_every_sibling_shares_weighs_less_than_one_of_their_own() {
        let p = CategoryId::new();
        let travel = CategoryId::new();
        let categories = vec![
            cat(p, None, "Policies", "insurance policies and their terms"),
            cat(CategoryId::new(), Some(p), "Policy changes", "adding a driver to a policy"),
            cat(CategoryId::new(), Some(p), "Policy cancellations", "cancelling a policy"),
            cat(travel, Some(p), "Travel assistance", "medical treatment abroad"),
        ];
        let turns =
            ["Hello, I'm calling about my policy.", "Of course, how can I help?", "My son broke his wrist abroad and needs medical treatment."];
        assert_eq!(primary(&categories, &turns), travel);
    }

    #[test]
    fn the_reason_said_at_the_opening_outweighs_words_said_later() {
        let turns = [
            "Good morning, how can I help?",
            "I'd like a refund for the returned item.",
            "Which invoice was it? And the payment, by card?",
            "Yes, the payment by card, the invoice from May.",
            "I see the invoice and the card payment.",
        ];
        let categories =
            vec![cat(B, None, "Billing", "invoice, payment, bill, card"), cat(CategoryId::new(), None, "Refunds", "refund, returned item")];
        assert_eq!(primary(&categories, &turns), categories[1].id);
    }

    #[test]
    fn a_model_names_categories_by_readable_unique_keys() {
        let mut categories = tree();
        categories.push(cat(CategoryId::new(), Some(S), "Sales / Sprzedaż", ""));
        categories.push(cat(CategoryId::new(), None, "Płatności zaległe — windykacja!", ""));
        categories.push(cat(CategoryId::new(), None, "…", ""));
        let keys = CategoryKeys::new(&categories);
        assert_eq!(keys.all(), ["platnosci", "zwroty", "wsparcie_techniczne", "sales", "sales_2", "platnosci_zalegle_windykacja", "category"]);
        assert_eq!((keys.id("zwroty"), keys.id("sales_2"), keys.id("nope")), (Some(R), Some(categories[4].id), None));
        assert_eq!(keys.key(T), "wsparcie_techniczne");
    }
}
