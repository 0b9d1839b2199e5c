-- Re-analysis: a job of kind REANALYZE re-runs the analysis of a stored call (transcript_id
-- names it from the start), with the template it was asked for or else the active one. A
-- category chosen by hand (PATCH …/category) is marked, and re-analysis leaves it alone.
alter table jobs add column kind text not null default 'TRANSCRIBE';
alter table jobs add column template_id UUID;
alter table calls add column category_manual boolean not null default false;
-- The summary's sentiment confidence, for the dashboard's average without reading JSON.
alter table calls add column sentiment_confidence FLOAT;
