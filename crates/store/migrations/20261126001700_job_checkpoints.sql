-- What an upload's attempt heard before its analysis (the transcript, its speakers and personal
-- data, what the audio was), kept on the job so that an attempt retried after the analysis
-- failed does not transcribe the call again. Cleared when the job completes or fails.
alter table jobs add column checkpoint JSON;
