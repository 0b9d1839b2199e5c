//! Template answers without a model: an answer is given only when the call states it plainly
//! near the question's words, typed and validated by `answerType`; anything else is
//! `answered: false` with `value: null` (decisions §6).

use callscope_domain::{AnswerConfidence, AnswerType, AnswerValue};

use crate::text::{fold, sentences, stems};

/// A template question.
#[derive(Debug, Clone)]
pub struct Question {
    pub label: String,
    pub prompt: String,
    pub answer_type: AnswerType,
    pub options: Vec<String>,
}

/// One result.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub label: String,
    /// `None` when the call does not answer it.
    pub value: Option<AnswerValue>,
    pub answer_type: AnswerType,
    pub confidence: AnswerConfidence,
    pub evidence: Vec<String>,
    pub answered: bool,
}

const YES: &[&str] = &["yes", "yeah", "yep", "correct", "sure", "tak", "zgadza", "oczywiscie", "owszem"];
const NO: &[&str] = &["no", "nope", "not", "never", "nie", "nigdy"];

/// The answer to a question the call does not answer.
pub(crate) fn unanswered(q: &Question) -> Answer {
    Answer {
        label: q.label.clone(),
        value: None,
        answer_type: q.answer_type,
        confidence: AnswerConfidence::Low,
        evidence: Vec::new(),
        answered: false,
    }
}

/// Answers `questions` from the call's turns.
pub fn answer(questions: &[Question], turns: &[&str]) -> Vec<Answer> {
    let all: Vec<&str> = turns.iter().flat_map(|t| sentences(t)).collect();
    questions
        .iter()
        .map(|q| {
            let keys: Vec<String> = stems(&format!("{} {}", q.label, q.prompt));
            // Sentences that share words with the question.
            let near: Vec<&str> = all.iter().copied().filter(|s| stems(s).iter().any(|x| keys.contains(x))).collect();
            let answered = |value: AnswerValue, evidence: &str, confidence| Answer {
                label: q.label.clone(),
                value: Some(value),
                answer_type: q.answer_type,
                confidence,
                evidence: vec![evidence.to_owned()],
                answered: true,
            };
            match q.answer_type {
                AnswerType::SingleChoice | AnswerType::MultiChoice => {
                    let mut chosen: Vec<(&String, &str)> = Vec::new();
                    for option in &q.options {
                        let option_stems = stems(option);
                        if option_stems.is_empty() {
                            continue;
                        }
                        if let Some(s) = all.iter().find(|s| {
                            let st = stems(s);
                            option_stems.iter().all(|o| st.contains(o))
                        }) {
                            chosen.push((option, s));
                        }
                    }
                    match (q.answer_type, chosen.as_slice()) {
                        (AnswerType::SingleChoice, [(option, s)]) => answered(AnswerValue::Text((*option).clone()), s, AnswerConfidence::Medium),
                        (AnswerType::MultiChoice, [first, ..]) => Answer {
                            evidence: chosen.iter().map(|c| c.1.to_owned()).collect(),
                            ..answered(AnswerValue::Options(chosen.iter().map(|c| c.0.clone()).collect()), first.1, AnswerConfidence::Medium)
                        },
                        _ => unanswered(q),
                    }
                }
                AnswerType::Number => near
                    .iter()
                    .find_map(|s| {
                        s.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
                            .find_map(|n| n.replace(',', ".").trim_matches('.').parse::<f64>().ok())
                            .and_then(serde_json::Number::from_f64)
                            .map(|n| answered(AnswerValue::Number(n), s, AnswerConfidence::Medium))
                    })
                    .unwrap_or_else(|| unanswered(q)),
                AnswerType::Boolean => near
                    .iter()
                    .find_map(|s| {
                        let words: Vec<String> = s.split(|c: char| !c.is_alphanumeric()).map(fold).collect();
                        let yes = words.iter().any(|w| YES.contains(&w.as_str()));
                        let no = words.iter().any(|w| NO.contains(&w.as_str()));
                        match (yes, no) {
                            (true, false) => Some(answered(AnswerValue::Boolean(true), s, AnswerConfidence::Low)),
                            (false, true) => Some(answered(AnswerValue::Boolean(false), s, AnswerConfidence::Low)),
                            _ => None,
                        }
                    })
                    .unwrap_or_else(|| unanswered(q)),
                // Free text and dates need understanding the rules do not have.
                _ => unanswered(q),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(label: &str, prompt: &str, answer_type: &str, options: &[&str]) -> Question {
        Question {
            label: label.into(),
            prompt: prompt.into(),
            answer_type: answer_type.parse().expect("an answer type"),
            options: options.iter().map(|o| o.to_string()).collect(),
        }
    }

    #[test]
    fn plain_statements_are_answered_typed_and_the_rest_left_unanswered() {
        let turns =
            ["Which plan do you have?", "I have the premium plan and I pay 59 zloty a month.", "Was the problem resolved? Yes, it was resolved."];
        let answers = answer(
            &[
                q("Plan", "Which plan does the customer have?", "SINGLE_CHOICE", &["basic", "premium"]),
                q("Monthly fee", "How much does the customer pay a month?", "NUMBER", &[]),
                q("Resolved", "Was the problem resolved?", "BOOLEAN", &[]),
                q("Reason", "Why did the customer call?", "TEXT", &[]),
                q("Channel", "Which channels were mentioned?", "MULTI_CHOICE", &["email", "sms"]),
            ],
            &turns,
        );
        assert_eq!(answers[0].value, Some(AnswerValue::Text("premium".into())));
        assert_eq!(serde_json::to_string(&answers[1].value).unwrap(), "59.0");
        assert_eq!(answers[2].value, Some(AnswerValue::Boolean(true)));
        assert!(answers[2].evidence[0].contains("Yes"));
        assert!(!answers[3].answered && answers[3].value.is_none());
        assert!(!answers[4].answered && answers[4].value.is_none(), "no channel mentioned");
        assert!(answers.iter().all(|a| a.answered != a.value.is_none()), "answered exactly when there is a value");
    }
}
