-- How far a call's transcript can be trusted, from the recogniser's confidence in its words:
-- the call detail shows it without reading the words. Null for calls transcribed before.
alter table calls add column transcript_quality JSON;
