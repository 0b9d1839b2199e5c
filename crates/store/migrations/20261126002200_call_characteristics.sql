-- A call's characteristics (talk and non-talk time, interruptions, talk speed, loudness), and
-- the figures of it that the calls list filters and sorts by and the dashboard averages. Null
-- for calls transcribed before they were measured.
alter table calls add column characteristics JSON;
alter table calls add column non_talk_ms BIGINT;
alter table calls add column longest_non_talk_ms BIGINT;
alter table calls add column music_ms BIGINT;
alter table calls add column interruption_count BIGINT;
alter table calls add column words_per_minute FLOAT;
