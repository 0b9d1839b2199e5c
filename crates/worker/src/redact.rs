//! Silencing personal data in the stored audio: the decoded call is written back as 16-bit PCM
//! WAV at 16 kHz with every PII span (padded a little, since word timing is approximate) set to
//! silence on every channel.

use callscope_audio::{DecodedAudio, SampleSource, Signal, TARGET_RATE};
use callscope_domain::PiiSpan;
use callscope_storage::{Storage, StorageResult};
use sha2::{Digest, Sha256};

/// Silence before and after each span, for word boundaries that alignment places a little off.
const PAD_MS: i64 = 200;
/// Frames per write.
const CHUNK_FRAMES: usize = 16_384;

/// The redacted copy as stored.
#[derive(Debug, Clone)]
pub(crate) struct Stored {
    pub key: String,
    pub size: u64,
    pub sha256: String,
}

/// The frames to silence, as a sorted list of half-open ranges.
pub(crate) fn silenced(spans: &[PiiSpan], frames: usize) -> Vec<(usize, usize)> {
    let at = |ms: i64| usize::try_from(ms.max(0) * i64::from(TARGET_RATE) / 1000).unwrap_or(usize::MAX).min(frames);
    let mut ranges: Vec<(usize, usize)> = spans.iter().map(|s| (at(s.start_ms - PAD_MS), at(s.end_ms + PAD_MS))).collect();
    ranges.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for (a, b) in ranges {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

fn wav_header(channels: u16, frames: usize) -> Vec<u8> {
    let data = u32::try_from(frames * usize::from(channels) * 2).unwrap_or(u32::MAX);
    let mut h = Vec::with_capacity(44);
    h.extend_from_slice(b"RIFF");
    h.extend_from_slice(&data.saturating_add(36).to_le_bytes());
    h.extend_from_slice(b"WAVEfmt ");
    h.extend_from_slice(&16u32.to_le_bytes());
    h.extend_from_slice(&1u16.to_le_bytes());
    h.extend_from_slice(&channels.to_le_bytes());
    h.extend_from_slice(&TARGET_RATE.to_le_bytes());
    h.extend_from_slice(&(TARGET_RATE * u32::from(channels) * 2).to_le_bytes());
    h.extend_from_slice(&(channels * 2).to_le_bytes());
    h.extend_from_slice(&16u16.to_le_bytes());
    h.extend_from_slice(b"data");
    h.extend_from_slice(&data.to_le_bytes());
    h
}

/// Writes the redacted copy next to the original, streaming, under a name of this attempt's own
/// (`{key}.{uuid}.redacted.wav`): an attempt that loses its lease deletes what it wrote, and
/// with a shared name that would be the copy the winning attempt stored.
pub(crate) async fn store_redacted(storage: &Storage, original: &str, audio: &DecodedAudio, spans: &[PiiSpan]) -> StorageResult<Stored> {
    let key = format!("{original}.{}.redacted.wav", uuid::Uuid::new_v4().simple());
    let channels = u16::try_from(audio.channels.len()).unwrap_or(u16::MAX);
    let frames = audio.channels.first().map_or(0, Signal::len);
    let quiet = silenced(spans, frames);
    let mut writer = storage.writer(&key).await?;
    let mut hasher = Sha256::new();
    let written = async {
        let header = wav_header(channels, frames);
        hasher.update(&header);
        writer.write(&header).await?;
        let mut buffer = Vec::with_capacity(CHUNK_FRAMES * usize::from(channels) * 2);
        let mut next = 0;
        for start in (0..frames).step_by(CHUNK_FRAMES) {
            let end = (start + CHUNK_FRAMES).min(frames);
            // A second of each channel at a time, from the signals' scratch files.
            let blocks = audio.channels.iter().map(|c| c.window(start..end)).collect::<std::io::Result<Vec<_>>>()?;
            buffer.clear();
            for frame in start..end {
                while next < quiet.len() && quiet[next].1 <= frame {
                    next += 1;
                }
                let muted = quiet.get(next).is_some_and(|&(a, b)| a <= frame && frame < b);
                for block in &blocks {
                    let sample = if muted { 0 } else { (block[frame - start].clamp(-1.0, 1.0) * 32767.0).round() as i16 };
                    buffer.extend_from_slice(&sample.to_le_bytes());
                }
            }
            hasher.update(&buffer);
            writer.write(&buffer).await?;
        }
        StorageResult::Ok(())
    }
    .await;
    if let Err(error) = written {
        writer.abort().await;
        return Err(error);
    }
    let size = writer.written();
    writer.finish().await?;
    Ok(Stored { key, size, sha256: hex::encode(hasher.finalize()) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start_ms: i64, end_ms: i64) -> PiiSpan {
        PiiSpan { kind: "PHONE_NUMBER".into(), turn: 0, start: 0, end: 1, confidence: 0.9, start_ms, end_ms }
    }

    #[test]
    fn spans_become_padded_merged_frame_ranges() {
        let ranges = silenced(&[span(1000, 2000), span(2100, 2500), span(9000, 12_000)], 160_000);
        assert_eq!(ranges, [(12_800, 43_200), (140_800, 160_000)], "padded by 200 ms, overlaps merged, clipped to the end");
        assert_eq!(wav_header(2, 10).len(), 44);
    }
}
