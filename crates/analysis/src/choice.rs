//! How sure a model was of each closed choice in its JSON answer, read from the log-probabilities
//! of the answer's tokens (OpenAI's `logprobs` with `top_logprobs`).
//!
//! A schema's enumeration leaves the model a few options for a field; greedy decoding writes the
//! likeliest and hides how close the others came. The alternatives at each token show it: where
//! the options part (the first token that differs: "none" against "agent", or the second where
//! two options share their first, as "Konsultant" and "Klient" may), the option's probability is
//! that of its tokens there, times the probability of the part it shares with the written answer.
//! The options' probabilities are then normalised among themselves, so that what the grammar
//! would not have allowed (and the model's raw scores still hold) does not count.

use serde_json::Value;

/// A generated token: its text, its natural log-probability, and the likeliest tokens at its
/// place with theirs.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenChoice {
    /// The token's text.
    pub text: String,
    /// Its log-probability.
    pub logprob: f64,
    /// The alternatives at its place (the token itself usually among them).
    pub top: Vec<(String, f64)>,
}

/// A JSON answer with the tokens it was written in.
#[derive(Debug, Clone, PartialEq)]
pub struct WeighedAnswer {
    /// The answer.
    pub value: Value,
    /// The answer's text as generated.
    content: String,
    /// Its tokens, whose texts make up `content`, each with its byte span in it; empty when the
    /// endpoint gave no log-probabilities or they do not spell the answer.
    tokens: Vec<(TokenChoice, (usize, usize))>,
}

impl WeighedAnswer {
    /// An answer `value` written as `content` in `tokens`.
    pub fn new(value: Value, content: String, tokens: Vec<TokenChoice>) -> Self {
        let mut at = 0;
        let mut placed: Vec<(TokenChoice, (usize, usize))> = tokens
            .into_iter()
            .map(|token| {
                let span = (at, at + token.text.len());
                at = span.1;
                (token, span)
            })
            .collect();
        if !placed.iter().all(|(token, (start, end))| content.get(*start..*end) == Some(token.text.as_str())) || at != content.len() {
            placed.clear();
        }
        Self { value, content, tokens: placed }
    }

    /// Each of `options`' probability (summing to 1) as the string value of the first field named
    /// `key` in the answer; `None` when the endpoint gave no log-probabilities, the tokens do not
    /// spell the answer, or no field `key` with a string value is in it.
    pub fn choice(&self, key: &str, options: &[&str]) -> Option<Vec<f64>> {
        let value_start = value_start(&self.content, key)?;
        let first = self.tokens.iter().position(|&(_, (_, end))| end > value_start)?;
        let mut weights = Vec::with_capacity(options.len());
        for option in options {
            // The option as it would be written, with its closing quote.
            let spelled = format!("{option}\"");
            // The log-probability of the part of the written answer the option shares.
            let mut shared = 0f64;
            let mut weight = 0f64;
            for (token, (start, end)) in &self.tokens[first..] {
                let (start, end) = (*start, *end);
                // What the token holds before the value (the opening quote, say), and of it.
                let before = &self.content[start..start.max(value_start)];
                let done = start.saturating_sub(value_start);
                // Where the written answer runs on past the option ("billing_2" where the option
                // is "billing"), the option parts here instead, where its closing quote was an
                // alternative.
                if done >= option.len() && self.content.get(value_start + option.len()..).is_some_and(|after| after.starts_with('"')) {
                    // The written answer is this option, whatever follows it.
                    weight = shared.exp();
                    break;
                }
                let Some(rest) = spelled.get(done..) else { break };
                let own = &self.content[start.max(value_start)..end];
                if rest.starts_with(own) || own.starts_with(rest) {
                    if own.len() >= rest.len() {
                        // The token ends the option (and runs past it).
                        weight = (shared + token.logprob).exp();
                        break;
                    }
                    shared += token.logprob;
                    continue;
                }
                // The option parts from the written answer here: the alternatives that go its way.
                let parted: f64 = token
                    .top
                    .iter()
                    .filter_map(|(text, logprob)| {
                        let tail = text.strip_prefix(before)?;
                        (!tail.is_empty() && (rest.starts_with(tail) || tail.starts_with(rest))).then(|| (shared + logprob).exp())
                    })
                    .sum();
                weight = parted;
                break;
            }
            weights.push(weight);
        }
        let total: f64 = weights.iter().sum();
        // A log-probability out of range could overflow a weight: no reading rather than NaN.
        (total > 0.0 && total.is_finite()).then(|| weights.iter().map(|w| w / total).collect())
    }
}

/// Where the string value of the first field `key` starts in a JSON text: after `"key"`, a colon
/// and the opening quote (spaces allowed between).
fn value_start(content: &str, key: &str) -> Option<usize> {
    let quoted = format!("\"{key}\"");
    let mut from = 0;
    while let Some(found) = content[from..].find(&quoted) {
        let after = from + found + quoted.len();
        let rest = &content[after..];
        let trimmed = rest.trim_start();
        if let Some(value) = trimmed.strip_prefix(':') {
            let value = value.trim_start();
            if value.starts_with('"') {
                return Some(content.len() - value.len() + 1);
            }
        }
        from = after;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn token(text: &str, logprob: f64, top: &[(&str, f64)]) -> TokenChoice {
        TokenChoice { text: text.into(), logprob, top: top.iter().map(|(t, l)| ((*t).to_owned(), *l)).collect() }
    }

    fn answer(tokens: Vec<TokenChoice>) -> WeighedAnswer {
        let content: String = tokens.iter().map(|t| t.text.as_str()).collect();
        WeighedAnswer::new(serde_json::from_str(&content).unwrap(), content, tokens)
    }

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
    }

    #[test]
    fn the_options_are_read_where_they_part_from_the_answer() {
        // {"01":"none","02":"agent"}: "none" was written at 0.5, "agent" 0.3, "customer" 0.1
        // (and 0.1 went to tokens the grammar would not allow).
        let (none, agent, customer) = (0.5f64.ln(), 0.3f64.ln(), 0.1f64.ln());
        let weighed = answer(vec![
            token("{\"", -0.01, &[]),
            token("01", -0.01, &[]),
            token("\":\"", -0.01, &[]),
            token("none", none, &[("none", none), ("agent", agent), ("customer", customer), ("hello", 0.1f64.ln())]),
            token("\",\"", -0.01, &[]),
            token("02", -0.01, &[]),
            token("\":\"", -0.01, &[]),
            token("agent", 0.9f64.ln(), &[("agent", 0.9f64.ln()), ("none", 0.05f64.ln())]),
            token("\"}", -0.01, &[]),
        ]);
        assert_eq!(weighed.value, json!({"01": "none", "02": "agent"}));
        let options = ["agent", "customer", "none"];
        assert!(close(&weighed.choice("01", &options).unwrap(), &[0.3 / 0.9, 0.1 / 0.9, 0.5 / 0.9]));
        // An option missing from the alternatives had less than the least of them: none counted.
        assert!(close(&weighed.choice("02", &options).unwrap(), &[0.9 / 0.95, 0.0, 0.05 / 0.95]));
        assert_eq!(weighed.choice("03", &options), None, "no such field");
    }

    #[test]
    fn a_log_probability_out_of_range_gives_no_reading() {
        // A broken endpoint's log-probability of 800 overflows its weight: nothing to read,
        // rather than NaN shares that every threshold compares false against.
        let weighed = answer(vec![
            token("{\"", -0.01, &[]),
            token("01", -0.01, &[]),
            token("\":\"", -0.01, &[]),
            token("none", 800.0, &[("none", 800.0), ("agent", 0.3f64.ln())]),
            token("\"}", -0.01, &[]),
        ]);
        assert_eq!(weighed.choice("01", &["agent", "customer", "none"]), None);
    }

    #[test]
    fn options_that_share_a_first_token_part_at_a_later_one() {
        // "Klient" written as "K" + "lient"; "Konsultant" parts at the second token.
        let weighed = answer(vec![
            token("{\"a\":", -0.01, &[]),
            token("\"K", 0.9f64.ln(), &[("\"K", 0.9f64.ln()), ("\"n", 0.1f64.ln())]),
            token("lient", 0.6f64.ln(), &[("lient", 0.6f64.ln()), ("ons", 0.4f64.ln())]),
            token("\"}", -0.01, &[]),
        ]);
        let p = weighed.choice("a", &["Konsultant", "Klient", "none"]).unwrap();
        // Konsultant 0.9 × 0.4, Klient 0.9 × 0.6, none 0.1 (its quote shared with the others).
        assert!(close(&p, &[0.36, 0.54, 0.1]), "{p:?}");
    }

    #[test]
    fn a_token_that_runs_past_the_value_still_counts_for_its_option() {
        // "no" and its closing quote and comma in one token; "yes" as an alternative likewise.
        let weighed = answer(vec![
            token("{\"answer\":\"", -0.01, &[]),
            token("no\",", 0.7f64.ln(), &[("no\",", 0.7f64.ln()), ("yes\",", 0.2f64.ln()), ("n", 0.05f64.ln())]),
            token("\"x\":1}", -0.01, &[]),
        ]);
        let p = weighed.choice("answer", &["yes", "no"]).unwrap();
        assert!(close(&p, &[0.2 / 0.9, 0.7 / 0.9]), "{p:?}");
    }

    #[test]
    fn without_log_probabilities_or_when_they_do_not_spell_the_answer_there_is_no_reading() {
        let value = json!({"a": "yes"});
        let content = value.to_string();
        assert_eq!(WeighedAnswer::new(value.clone(), content.clone(), Vec::new()).choice("a", &["yes", "no"]), None);
        let wrong = vec![token("{\"a\":\"no\"}", -0.1, &[])];
        assert_eq!(WeighedAnswer::new(value, content, wrong).choice("a", &["yes", "no"]), None);
    }

    #[test]
    fn a_value_is_found_after_its_key_not_where_the_key_is_a_value() {
        let content = r#"{"category":"01", "01" : "none"}"#;
        assert_eq!(value_start(content, "01"), Some(content.find("none").unwrap()));
        assert_eq!(value_start(content, "category"), Some(13));
        assert_eq!(value_start(r#"{"a":1}"#, "a"), None, "not a string");
    }

    #[test]
    fn an_option_that_begins_a_longer_written_one_parts_where_its_quote_would_be() {
        // "billing_2" written as "billing" + "_" + "2"; "billing" would have closed its quote
        // where "_" was written (0.2 against 0.8).
        let weighed = answer(vec![
            token("{\"category\":\"", -0.01, &[]),
            token("billing", 0.9f64.ln(), &[("billing", 0.9f64.ln()), ("sales", 0.1f64.ln())]),
            token("_", 0.8f64.ln(), &[("_", 0.8f64.ln()), ("\"}", 0.2f64.ln())]),
            token("2", -0.0, &[]),
            token("\"}", -0.0, &[]),
        ]);
        let p = weighed.choice("category", &["billing", "billing_2", "sales"]).unwrap();
        assert!(close(&p, &[0.18, 0.72, 0.1]), "{p:?}");
    }
}
