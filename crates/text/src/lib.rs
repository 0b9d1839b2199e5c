//! Transcript text made comparable, shared by personal data, deadlines, summaries and rules.
//!
//! - [`token`]: words with their byte offsets, folded (lowercase, no diacritics) for look-ups.
//! - [`number`]: numbers as people say them and ASR writes them ("twenty-one", "dwudziestego
//!   pierwszego", "eighty-six pounds forty", "five five five one two three", "86,40") read into
//!   values, and a normalised copy of a text with each number in digits.
//! - [`temporal`]: deadlines ("within five working days", "do piętnastego grudnia", "by 5 pm on
//!   Friday") found by typed rules, longest match first, and resolved against the call's time.
//!
//! The spoken text is never replaced: every value keeps the offsets of the words it was read
//! from, for display and for evidence.

pub mod number;
pub mod temporal;
pub mod token;

pub use number::{normalise, numbers, Number, NumberMention, OrdinalForm};
pub use temporal::{deadlines, Deadline, Expression};
pub use token::{edits_within, fold, tokens, Token};
