//! The index itself: one tantivy index on local disk for every project, with the text of each
//! call in the fields of its language (title, summary and transcript, each stemmed for that
//! language), the project and creation time for filtering and ordering, and the call's id.
//! What has been indexed up to is kept in the index's own commit payload, so a commit records
//! the documents and the watermark together.

use std::collections::HashMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use callscope_domain::{CallId, Language, ProjectId, Timestamp};
use callscope_store::SearchDocument;
use serde::{Deserialize, Serialize};
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{
    Bm25StatisticsProvider, BooleanQuery, BoostQuery, ConstScoreQuery, Occur, PhraseQuery, Query as TantivyQuery, RangeQuery, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, FAST, INDEXED, STORED, STRING};
use tantivy::tokenizer::{PreTokenizedString, Token};
use tantivy::{
    DocId, DocSet, Index, IndexReader, IndexWriter, ReloadPolicy, Searcher, SegmentReader, TantivyDocument, Term as IndexTerm, TERMINATED,
};

use crate::query::{Query, Term};
use crate::text::Analyzer;

/// Bumped whenever the schema or the analysis changes: an index of another format is rebuilt.
const FORMAT: u32 = 1;

/// How much the title counts against the summary and the transcript.
const TITLE_BOOST: f32 = 2.0;

/// Memory the writer may fill before it writes a segment.
const WRITER_MEMORY: usize = 64 * 1024 * 1024;

/// The languages indexed, in the order of [`Fields::text`].
const LANGUAGES: [Language; 2] = [Language::En, Language::Pl];

/// Why the index could not do something.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// Another process holds the index.
    #[error("the search index at {0} is in use by another process (each `serve` needs its own search_index_dir; stop the server before `callscope reindex`)")]
    InUse(PathBuf),
    /// tantivy failed.
    #[error("search index: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// The file system failed.
    #[error("search index: {0}")]
    Io(#[from] std::io::Error),
}

/// How far the index has followed the database, as its commit payload keeps it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Watermark {
    /// The index format; see [`FORMAT`].
    pub format: u32,
    /// The newest `updated_at` of the calls indexed.
    pub changed: Option<Timestamp>,
    /// The newest erasure applied.
    pub deleted: Option<Timestamp>,
}

/// What opening found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// The index was there and sound.
    Existing,
    /// A new, empty index was made; the string says why.
    Created(String),
}

/// One page of hits.
#[derive(Debug, Clone, PartialEq)]
pub struct Hits {
    /// Calls matching, over all pages.
    pub total: u64,
    /// This page's calls with their relevance, best first.
    pub hits: Vec<(CallId, f32)>,
}

struct Fields {
    id: Field,
    project: Field,
    created: Field,
    /// `[language][title, summary, transcript]`.
    text: [[Field; 3]; 2],
}

/// The call index.
pub struct CallIndex {
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    writer: Mutex<IndexWriter>,
    fields: Fields,
    analyzers: [Analyzer; 2],
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let id = builder.add_text_field("id", STRING | STORED);
    let project = builder.add_text_field("project", STRING);
    let created = builder.add_i64_field("created", INDEXED | FAST);
    let text_options = TextOptions::default()
        .set_indexing_options(TextFieldIndexing::default().set_tokenizer("raw").set_index_option(IndexRecordOption::WithFreqsAndPositions));
    let text = LANGUAGES.map(|language| {
        ["title", "summary", "transcript"].map(|part| builder.add_text_field(&format!("{part}_{}", language.as_str()), text_options.clone()))
    });
    (builder.build(), Fields { id, project, created, text })
}

fn language_slot(language: Language) -> usize {
    match language {
        Language::En => 0,
        Language::Pl => 1,
    }
}

impl CallIndex {
    /// Opens the index in `dir`, or makes a new one there when there is none, or when the one
    /// there is of another format, unreadable or fails its checksums (the caller then fills it
    /// from the database).
    ///
    /// # Errors
    /// [`IndexError::InUse`] when another process writes to it; file system errors.
    pub fn open(dir: &Path) -> Result<(Self, Opened), IndexError> {
        std::fs::create_dir_all(dir)?;
        let (expected, fields) = schema();
        let (index, opened) = match Self::check(dir, &expected) {
            Ok(index) => (index, Opened::Existing),
            Err(reason) => {
                std::fs::remove_dir_all(dir)?;
                std::fs::create_dir_all(dir)?;
                (Index::create_in_dir(dir, expected)?, Opened::Created(reason))
            }
        };
        let writer = index.writer_with_num_threads(1, WRITER_MEMORY).map_err(|e| match e {
            tantivy::TantivyError::LockFailure(..) => IndexError::InUse(dir.to_owned()),
            other => IndexError::Tantivy(other),
        })?;
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        let analyzers = LANGUAGES.map(Analyzer::new);
        Ok((Self { dir: dir.to_owned(), index, reader, writer: Mutex::new(writer), fields, analyzers }, opened))
    }

    /// The index in `dir` when it is usable as it is; otherwise why not.
    fn check(dir: &Path, expected: &Schema) -> Result<Index, String> {
        if !dir.join("meta.json").exists() {
            return Err("there was no index".into());
        }
        let index = Index::open_in_dir(dir).map_err(|e| format!("the index could not be opened ({e})"))?;
        if index.schema() != *expected {
            return Err("the index has another schema".into());
        }
        let metas = index.load_metas().map_err(|e| format!("the index could not be read ({e})"))?;
        let watermark: Watermark = metas.payload.as_deref().and_then(|p| serde_json::from_str(p).ok()).unwrap_or_default();
        if metas.payload.is_some() && watermark.format != FORMAT {
            return Err(format!("the index is of format {}, this build writes {FORMAT}", watermark.format));
        }
        let damaged = index.validate_checksum().map_err(|e| format!("the index is damaged ({e})"))?;
        if !damaged.is_empty() {
            let mut names: Vec<String> = damaged.iter().map(|p| p.display().to_string()).collect();
            names.sort();
            return Err(format!("the index is damaged: files {} fail their checksums", names.join(", ")));
        }
        Ok(index)
    }

    /// Where the index lives.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How far the last commit followed the database.
    ///
    /// # Errors
    /// When the index's metadata cannot be read.
    pub fn watermark(&self) -> Result<Watermark, IndexError> {
        let metas = self.index.load_metas()?;
        Ok(metas.payload.as_deref().and_then(|p| serde_json::from_str(p).ok()).unwrap_or(Watermark { format: FORMAT, ..Watermark::default() }))
    }

    /// Adds the calls, replacing what was indexed for them before. Seen after [`Self::commit`].
    ///
    /// # Errors
    /// When the writer fails.
    pub fn upsert(&self, documents: &[SearchDocument]) -> Result<(), IndexError> {
        let writer = self.writer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for document in documents {
            let id = document.id.0.to_string();
            let slot = language_slot(document.language);
            let analyzer = &self.analyzers[slot];
            let mut doc = TantivyDocument::new();
            doc.add_text(self.fields.id, &id);
            doc.add_text(self.fields.project, document.project_id.0.to_string());
            doc.add_i64(self.fields.created, document.created_at.timestamp_micros());
            for (field, text) in self.fields.text[slot].iter().zip([&document.title, &document.summary, &document.full_text]) {
                doc.add_pre_tokenized_text(*field, pre_tokenized(analyzer, text));
            }
            writer.delete_term(IndexTerm::from_field_text(self.fields.id, &id));
            writer.add_document(doc)?;
        }
        Ok(())
    }

    /// Removes every call and the watermark, committed.
    ///
    /// # Errors
    /// When writing fails.
    pub fn clear(&self) -> Result<(), IndexError> {
        let mut writer = self.writer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // Documents added since the last commit are not among those deleted: drop them first.
        writer.rollback()?;
        writer.delete_all_documents()?;
        drop(writer);
        self.commit(&Watermark::default())
    }

    /// Removes calls. Seen after [`Self::commit`].
    pub fn delete(&self, ids: &[CallId]) {
        let writer = self.writer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for id in ids {
            writer.delete_term(IndexTerm::from_field_text(self.fields.id, &id.0.to_string()));
        }
    }

    /// Makes the changes so far durable together with `watermark`, and visible to searches.
    ///
    /// # Errors
    /// When writing fails; the changes are then lost and the watermark stays where it was.
    pub fn commit(&self, watermark: &Watermark) -> Result<(), IndexError> {
        let mut writer = self.writer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut prepared = writer.prepare_commit()?;
        prepared.set_payload(&serde_json::to_string(&Watermark { format: FORMAT, ..watermark.clone() }).unwrap_or_default());
        prepared.commit()?;
        drop(writer);
        self.reader.reload()?;
        Ok(())
    }

    /// Calls indexed (as of the last commit).
    pub fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Whether no call is indexed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the index takes on disk.
    pub fn size_on_disk(&self) -> u64 {
        fn walk(dir: &Path) -> u64 {
            std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|entry| match entry.metadata() {
                    Ok(m) if m.is_dir() => walk(&entry.path()),
                    Ok(m) => m.len(),
                    Err(_) => 0,
                })
                .sum()
        }
        walk(&self.dir)
    }

    /// One page of the project's calls matching `query`, created within the inclusive bounds,
    /// by BM25 relevance, ties newest first. The relevance is computed from the project's own
    /// calls alone (how many hold each word, how long they are): one index serves every
    /// organization, and a score made with the whole index's counts would tell a caller how
    /// many of other organizations' calls hold a name or a number.
    ///
    /// # Errors
    /// When the index cannot be read.
    pub fn search(
        &self,
        project: ProjectId,
        query: &Query,
        from: Option<Timestamp>,
        to: Option<Timestamp>,
        offset: usize,
        limit: usize,
    ) -> Result<Hits, IndexError> {
        let mut clauses: Vec<(Occur, Box<dyn TantivyQuery>)> = Vec::new();
        let project_term = project_term_of(self.fields.project, project);
        clauses.push((Occur::Must, filter(TermQuery::new(project_term, IndexRecordOption::Basic))));
        if from.is_some() || to.is_some() {
            let bound = |t: Option<Timestamp>| match t {
                Some(t) => Bound::Included(IndexTerm::from_field_i64(self.fields.created, t.timestamp_micros())),
                None => Bound::Unbounded,
            };
            clauses.push((Occur::Must, filter(RangeQuery::new(bound(from), bound(to)))));
        }
        for group in &query.required {
            let alternatives: Vec<(Occur, Box<dyn TantivyQuery>)> = group.iter().map(|t| (Occur::Should, self.term_query(t))).collect();
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(alternatives))));
        }
        for term in &query.excluded {
            clauses.push((Occur::MustNot, self.term_query(term)));
        }
        let query = BooleanQuery::new(clauses);
        let created = self.index.schema().get_field_name(self.fields.created).to_owned();
        let top = TopDocs::with_limit(limit.max(1)).and_offset(offset).tweak_score(move |segment: &SegmentReader| {
            let column = segment.fast_fields().i64(&created).ok().map(|c| c.first_or_default_col(0));
            move |doc, score| (score, column.as_ref().map_or(0, |c| c.get_val(doc)))
        });
        let searcher = self.reader.searcher();
        let statistics = ProjectStatistics::new(&searcher, self.fields.project, &project_term_of(self.fields.project, project))?;
        // A page past every document of the project holds nothing; the collector would reserve
        // room for it (and scores need at least one document to average over).
        if offset >= statistics.documents {
            let total = searcher.search(&query, &Count)?;
            return Ok(Hits { total: total as u64, hits: Vec::new() });
        }
        let (total, top) = searcher.search_with_statistics_provider(&query, &(Count, top), &statistics)?;
        let mut hits = Vec::with_capacity(top.len());
        for ((score, _), address) in top {
            let doc: TantivyDocument = searcher.doc(address)?;
            let id = doc.get_first(self.fields.id).and_then(|v| v.as_str()).and_then(|s| s.parse().ok());
            if let Some(id) = id {
                hits.push((CallId(id), score));
            }
        }
        Ok(Hits { total: total as u64, hits })
    }

    /// A word or phrase in any field of either language: each language's stems, in the title
    /// (boosted), the summary and the transcript.
    fn term_query(&self, term: &Term) -> Box<dyn TantivyQuery> {
        let mut fields: Vec<(Occur, Box<dyn TantivyQuery>)> = Vec::new();
        for (slot, analyzer) in self.analyzers.iter().enumerate() {
            let stems: Vec<String> = analyzer.terms(term.text()).into_iter().map(|t| t.stem).collect();
            for (part, field) in self.fields.text[slot].iter().enumerate() {
                let query: Box<dyn TantivyQuery> = match stems.as_slice() {
                    [] => continue,
                    [one] => Box::new(TermQuery::new(IndexTerm::from_field_text(*field, one), IndexRecordOption::WithFreqs)),
                    many => Box::new(PhraseQuery::new(many.iter().map(|s| IndexTerm::from_field_text(*field, s)).collect())),
                };
                let query: Box<dyn TantivyQuery> = if part == 0 { Box::new(BoostQuery::new(query, TITLE_BOOST)) } else { query };
                fields.push((Occur::Should, query));
            }
        }
        Box::new(BooleanQuery::new(fields))
    }
}

fn project_term_of(field: Field, project: ProjectId) -> IndexTerm {
    IndexTerm::from_field_text(field, &project.0.to_string())
}

/// BM25's statistics over one project's documents only.
struct ProjectStatistics<'a> {
    searcher: &'a Searcher,
    project: IndexTerm,
    /// The project's live documents, per segment.
    docs: Vec<Vec<DocId>>,
    documents: usize,
    /// Tokens per field, summed once per search.
    tokens: Mutex<HashMap<Field, u64>>,
}

impl<'a> ProjectStatistics<'a> {
    fn new(searcher: &'a Searcher, project_field: Field, project: &IndexTerm) -> tantivy::Result<Self> {
        let mut docs = Vec::with_capacity(searcher.segment_readers().len());
        for segment in searcher.segment_readers() {
            let mut live = Vec::new();
            if let Some(mut postings) = segment.inverted_index(project_field)?.read_postings(project, IndexRecordOption::Basic)? {
                let alive = segment.alive_bitset();
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    if alive.is_none_or(|a| a.is_alive(doc)) {
                        live.push(doc);
                    }
                    doc = postings.advance();
                }
            }
            docs.push(live);
        }
        let documents = docs.iter().map(Vec::len).sum();
        Ok(Self { searcher, project: project.clone(), docs, documents, tokens: Mutex::new(HashMap::new()) })
    }
}

impl Bm25StatisticsProvider for ProjectStatistics<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        if let Some(known) = self.tokens.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(&field) {
            return Ok(*known);
        }
        let mut total = 0u64;
        for (segment, docs) in self.searcher.segment_readers().iter().zip(&self.docs) {
            let norms = segment.get_fieldnorms_reader(field)?;
            total += docs.iter().map(|&doc| u64::from(norms.fieldnorm(doc))).sum::<u64>();
        }
        self.tokens.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(field, total);
        Ok(total)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.documents as u64)
    }

    fn doc_freq(&self, term: &IndexTerm) -> tantivy::Result<u64> {
        let both = BooleanQuery::new(vec![
            (Occur::Must, Box::new(TermQuery::new(self.project.clone(), IndexRecordOption::Basic)) as Box<dyn TantivyQuery>),
            (Occur::Must, Box::new(TermQuery::new(term.clone(), IndexRecordOption::Basic))),
        ]);
        Ok(self.searcher.search(&both, &Count)? as u64)
    }
}

/// A filter: it selects without changing the score.
fn filter(query: impl TantivyQuery + 'static) -> Box<dyn TantivyQuery> {
    Box::new(ConstScoreQuery::new(Box::new(query), 0.0))
}

fn pre_tokenized(analyzer: &Analyzer, text: &str) -> PreTokenizedString {
    let tokens = analyzer
        .terms(text)
        .into_iter()
        .enumerate()
        .map(|(position, term)| Token { offset_from: term.start, offset_to: term.end, position, text: term.stem, position_length: 1 })
        .collect();
    // The field is not stored, so the text itself is not needed.
    PreTokenizedString { text: String::new(), tokens }
}
