//! A call's transcript as files people open elsewhere: plain text, SubRip and WebVTT subtitles
//! with the speaker's name in every cue; and CSV cells a spreadsheet program will not run.

use crate::{speaker_id, SpeakerStats, TimedWord, Turn};

/// The file formats a transcript is exported in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TranscriptFormat {
    /// One line per turn: `[mm:ss] Name: text`.
    Text,
    /// SubRip subtitles.
    Srt,
    /// WebVTT subtitles, the speaker as a voice span.
    Vtt,
}

impl TranscriptFormat {
    /// Every format, by the name the API takes.
    pub const ALL: [(&'static str, TranscriptFormat); 3] = [("txt", Self::Text), ("srt", Self::Srt), ("vtt", Self::Vtt)];

    /// The format a name (`txt`, `srt`, `vtt`, any case) stands for.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(n, _)| n.eq_ignore_ascii_case(name.trim())).map(|&(_, f)| f)
    }

    /// The file name extension.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Text => "txt",
            Self::Srt => "srt",
            Self::Vtt => "vtt",
        }
    }

    /// The media type served.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Text => "text/plain; charset=utf-8",
            Self::Srt => "application/x-subrip; charset=utf-8",
            Self::Vtt => "text/vtt; charset=utf-8",
        }
    }
}

/// One subtitle: who said what, when.
#[derive(Debug, Clone, PartialEq)]
pub struct Cue {
    pub start_ms: i64,
    pub end_ms: i64,
    pub speaker: String,
    pub text: String,
}

/// The longest cue: two subtitle lines of 42 characters, shown for at most 7 seconds.
const CUE_CHARS: usize = 84;
const CUE_MS: i64 = 7_000;

/// The call's cues from its timed words: a speaker's run of words, cut where a cue would grow
/// past two lines or seven seconds, at a sentence's end once it is half full. A call without
/// words (transcribed before words were kept) gets one cue per turn.
pub fn cues(turns: &[Turn], words: &[TimedWord], speakers: &[SpeakerStats]) -> Vec<Cue> {
    let name = |id: &str| name_of(speakers, id).to_string();
    if words.is_empty() {
        return turns.iter().map(|t| Cue { start_ms: t.start_ms, end_ms: t.end_ms, speaker: name(&t.speaker_id), text: t.text.clone() }).collect();
    }
    let mut ordered: Vec<&TimedWord> = words.iter().collect();
    ordered.sort_by_key(|w| (w.start_ms, w.end_ms));
    let mut out: Vec<Cue> = Vec::new();
    let mut open: Option<(usize, Cue)> = None;
    for word in ordered {
        if let Some((speaker, cue)) = &mut open {
            let full = cue.text.chars().count() + 1 + word.text.chars().count() > CUE_CHARS || word.end_ms - cue.start_ms > CUE_MS;
            let sentence_done = cue.text.ends_with(['.', '?', '!']) && cue.text.chars().count() >= CUE_CHARS / 2;
            if *speaker == word.speaker && !full && !sentence_done {
                cue.text.push(' ');
                cue.text.push_str(&word.text);
                cue.end_ms = cue.end_ms.max(word.end_ms);
                continue;
            }
        }
        if let Some((_, cue)) = open.take() {
            out.push(cue);
        }
        let cue = Cue { start_ms: word.start_ms, end_ms: word.end_ms, speaker: name(&speaker_id(word.speaker)), text: word.text.clone() };
        open = Some((word.speaker, cue));
    }
    out.extend(open.map(|(_, cue)| cue));
    out
}

/// A speaker's name, or their id when the call lists no name for it.
fn name_of<'a>(speakers: &'a [SpeakerStats], id: &'a str) -> &'a str {
    speakers.iter().find(|s| s.speaker_id == id).map_or(id, |s| s.name.as_str())
}

/// `h:mm:ss` with the given separator before milliseconds (`,` for SubRip, `.` for WebVTT).
fn timestamp(ms: i64, separator: char) -> String {
    let ms = ms.max(0);
    format!("{:02}:{:02}:{:02}{separator}{:03}", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
}

/// The transcript in `format`.
pub fn render(format: TranscriptFormat, turns: &[Turn], cues: &[Cue], speakers: &[SpeakerStats]) -> String {
    let mut out = String::new();
    match format {
        TranscriptFormat::Text => {
            for turn in turns {
                let at = turn.start_ms.max(0) / 1000;
                out.push_str(&format!(
                    "[{:02}:{:02}:{:02}] {}: {}\n",
                    at / 3600,
                    at / 60 % 60,
                    at % 60,
                    name_of(speakers, &turn.speaker_id),
                    turn.text
                ));
            }
        }
        TranscriptFormat::Srt => {
            for (n, cue) in cues.iter().enumerate() {
                let text = format!("{}: {}", cue.speaker, cue.text).replace("\n\n", "\n");
                out.push_str(&format!("{}\n{} --> {}\n{text}\n\n", n + 1, timestamp(cue.start_ms, ','), timestamp(cue.end_ms, ',')));
            }
        }
        TranscriptFormat::Vtt => {
            out.push_str("WEBVTT\n\n");
            for (n, cue) in cues.iter().enumerate() {
                // A cue's text may not hold "-->" or a blank line, and "<" and "&" start markup.
                let escape = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace("\n\n", "\n");
                out.push_str(&format!(
                    "{}\n{} --> {}\n<v {}>{}\n\n",
                    n + 1,
                    timestamp(cue.start_ms, '.'),
                    timestamp(cue.end_ms, '.'),
                    escape(&cue.speaker),
                    escape(&cue.text)
                ));
            }
        }
    }
    out
}

/// One CSV cell: quoted when it must be, and with a leading apostrophe when a spreadsheet
/// program would otherwise read it as a formula ("=HYPERLINK(…)", "+48…", "-1", "@SUM").
pub fn csv_cell(value: &str) -> String {
    let value = if value.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{value}") } else { value.to_string() };
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value
    }
}

/// One CSV row of cells, ended by CRLF (RFC 4180).
pub fn csv_row<S: AsRef<str>>(cells: &[S]) -> String {
    let mut row = cells.iter().map(|c| csv_cell(c.as_ref())).collect::<Vec<_>>().join(",");
    row.push_str("\r\n");
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, start_ms: i64, speaker: usize) -> TimedWord {
        TimedWord { text: text.into(), start_ms, end_ms: start_ms + 400, speaker, confidence: None }
    }

    fn speaker(id: &str, name: &str) -> SpeakerStats {
        SpeakerStats::named(id, name)
    }

    #[test]
    fn subtitles_name_the_speaker_and_keep_cues_short() {
        let speakers = [speaker("speaker_1", "Agent"), speaker("speaker_2", "Klient <VIP> & co")];
        let mut words = vec![word("Dzień", 0, 0), word("dobry.", 500, 0), word("Mam", 1_500, 1), word("problem.", 2_000, 1)];
        // A long run of one speaker: cut before 7 s.
        words.extend((0..30).map(|i| word("słowo", 3_000 + i * 450, 0)));
        let cues = cues(&[], &words, &speakers);
        assert_eq!((cues[0].speaker.as_str(), cues[0].text.as_str(), cues[0].start_ms, cues[0].end_ms), ("Agent", "Dzień dobry.", 0, 900));
        assert_eq!((cues[1].speaker.as_str(), cues[1].text.as_str()), ("Klient <VIP> & co", "Mam problem."));
        assert!(cues[2..].iter().all(|c| c.end_ms - c.start_ms <= 7_000 && c.text.chars().count() <= 84), "{cues:#?}");
        assert_eq!(cues[2..].iter().map(|c| c.text.split(' ').count()).sum::<usize>(), 30, "no word lost");

        let srt = render(TranscriptFormat::Srt, &[], &cues, &speakers);
        assert!(srt.starts_with("1\n00:00:00,000 --> 00:00:00,900\nAgent: Dzień dobry.\n\n2\n00:00:01,500 --> 00:00:02,400\n"), "{srt}");
        let vtt = render(TranscriptFormat::Vtt, &[], &cues, &speakers);
        assert!(vtt.starts_with("WEBVTT\n\n1\n00:00:00.000 --> 00:00:00.900\n<v Agent>Dzień dobry.\n\n"), "{vtt}");
        assert!(vtt.contains("<v Klient &lt;VIP&gt; &amp; co>Mam problem."), "markup in a name is escaped: {vtt}");
    }

    #[test]
    fn plain_text_is_one_line_per_turn_and_a_call_without_words_gets_a_cue_per_turn() {
        let speakers = [speaker("speaker_1", "Agent")];
        let turns = [Turn { speaker_id: "speaker_1".into(), text: "Hello.".into(), start_ms: 3_723_000, end_ms: 3_724_500 }];
        assert_eq!(render(TranscriptFormat::Text, &turns, &[], &speakers), "[01:02:03] Agent: Hello.\n");
        let cues = cues(&turns, &[], &speakers);
        assert_eq!(render(TranscriptFormat::Srt, &turns, &cues, &speakers), "1\n01:02:03,000 --> 01:02:04,500\nAgent: Hello.\n\n");
        assert_eq!(TranscriptFormat::parse(" SRT"), Some(TranscriptFormat::Srt));
        assert_eq!(TranscriptFormat::parse("docx"), None);
    }

    #[test]
    fn csv_cells_cannot_become_formulas() {
        assert_eq!(csv_cell("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
        assert_eq!(csv_cell("+48 600 123 456"), "'+48 600 123 456");
        assert_eq!(csv_cell("-1"), "'-1");
        assert_eq!(csv_cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_cell("plain, with comma"), "\"plain, with comma\"");
        assert_eq!(csv_row(&["a", "b\nc"]), "a,\"b\nc\"\r\n");
    }
}
