-- What speech recognition found: the transcript, its speaker turns, per-speaker statistics and
-- the recognised words with their timing (kept for redaction and re-analysis).
alter table calls add column full_text text not null default '';
alter table calls add column turns JSON not null default '[]';
alter table calls add column speakers JSON not null default '[]';
alter table calls add column words JSON not null default '[]';
alter table calls add column speech_model text;
