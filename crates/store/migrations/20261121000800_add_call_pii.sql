-- What PII detection found: counts per type (the call's piiStatistics) and where each piece was
-- (type, turn, character offsets, confidence, time), never the values.
alter table calls add column pii_statistics JSON not null default '{"totalDetected":0,"types":{}}';
alter table calls add column pii_spans JSON not null default '[]';
