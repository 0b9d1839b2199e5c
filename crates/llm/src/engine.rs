//! One llama.cpp model and one context on a thread of their own. Requests arrive over a bounded
//! channel; each is a templated prompt, an optional grammar and sampling settings, and is
//! answered with the text and token counts. A request whose caller has gone away (a client
//! timeout) is abandoned between tokens.

use std::num::NonZeroU32;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::Instant;

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;
use tokio::sync::oneshot;

/// How the engine runs.
#[derive(Debug, Clone)]
pub struct EngineSettings {
    /// Context length in tokens (prompt and answer together).
    pub context: u32,
    /// CPU threads for generation and prompt processing.
    pub threads: i32,
    /// Prompt tokens decoded per batch.
    pub batch: u32,
    /// Requests that may wait while one runs; more are refused as busy.
    pub queue: usize,
}

/// One chat message.
#[derive(Debug, Clone)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// Its text.
    pub content: String,
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct Generation {
    /// The conversation, to be put through the model's chat template.
    pub messages: Vec<Message>,
    /// A GBNF grammar the answer must match (root rule `root`).
    pub grammar: Option<String>,
    /// Most tokens to generate; `None` fills what the context leaves.
    pub max_tokens: Option<u32>,
    /// 0 samples greedily.
    pub temperature: f32,
    /// Seed for sampling at a temperature above 0.
    pub seed: u32,
    /// Strings that end the answer (not included in it).
    pub stop: Vec<String>,
    /// `Some(n)`: each generated token's log-probability, with the `n` likeliest tokens at its
    /// place (what a closed question's answer is read from).
    pub logprobs: Option<usize>,
}

/// Why generation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// The model ended its answer (or a stop string came).
    Stop,
    /// The token limit was reached.
    Length,
}

/// A generated answer.
#[derive(Debug, Clone)]
pub struct Completion {
    /// The answer's text.
    pub text: String,
    /// Why it ended.
    pub finish: Finish,
    /// Tokens in the prompt.
    pub prompt_tokens: usize,
    /// Tokens generated.
    pub completion_tokens: usize,
    /// Prompt tokens whose keys and values were kept from the request before (the shared
    /// instructions), not computed again.
    pub cached_tokens: usize,
    /// With `Generation::logprobs`: the answer's tokens, each with its log-probability.
    pub logprobs: Option<Vec<TokenLogprob>>,
}

/// A generated token and how likely the model found it.
///
/// The probabilities are the model's own, over its whole vocabulary, before a grammar or the
/// sampler narrowed them (as OpenAI reports them): a closed question's answer is read by
/// comparing its options' tokens at the place where they part.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenLogprob {
    /// The token's text (bytes: a token may hold part of a UTF-8 character).
    pub bytes: Vec<u8>,
    /// Its natural log-probability.
    pub logprob: f32,
    /// The likeliest tokens at that place, most likely first, with theirs.
    pub top: Vec<(Vec<u8>, f32)>,
}

/// Why a generation failed.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The prompt alone does not fit the context.
    #[error("the prompt is {prompt} tokens; this model's context holds {context}")]
    TooLong { prompt: usize, context: u32 },
    /// The grammar does not compile.
    #[error("invalid grammar: {0}")]
    Grammar(String),
    /// The model's chat template could not be applied.
    #[error("chat template: {0}")]
    Template(String),
    /// llama.cpp failed to decode.
    #[error("llama.cpp: {0}")]
    Decode(String),
    /// The engine thread is gone.
    #[error("the engine has stopped")]
    Stopped,
}

/// A queued request.
struct Job {
    generation: Generation,
    reply: oneshot::Sender<Result<Completion, GenerateError>>,
}

/// The handle requests go through.
#[derive(Clone)]
pub struct EngineHandle {
    jobs: SyncSender<Job>,
    /// The model's name as reported to clients.
    pub model: String,
    /// Context length in tokens.
    pub context: u32,
    busy: Arc<AtomicBool>,
}

/// The queue is full.
#[derive(Debug)]
pub struct Busy;

impl EngineHandle {
    /// Whether a request is being generated now.
    pub fn busy(&self) -> bool {
        self.busy.load(Ordering::Relaxed)
    }

    /// Queues `generation`; the receiver gets the result.
    ///
    /// # Errors
    /// [`Busy`] when the queue is full.
    pub fn submit(&self, generation: Generation) -> Result<oneshot::Receiver<Result<Completion, GenerateError>>, Busy> {
        let (reply, rx) = oneshot::channel();
        match self.jobs.try_send(Job { generation, reply }) {
            Ok(()) => Ok(rx),
            Err(TrySendError::Full(_)) => Err(Busy),
            Err(TrySendError::Disconnected(job)) => {
                let _ = job.reply.send(Err(GenerateError::Stopped));
                Ok(rx)
            }
        }
    }
}

/// Loads the model at `path` and starts the engine thread.
///
/// # Errors
/// A model that cannot be loaded, or a context that cannot be made.
pub fn start(path: &Path, name: String, settings: EngineSettings, verbose: bool) -> anyhow::Result<EngineHandle> {
    let mut backend = LlamaBackend::init()?;
    if !verbose {
        backend.void_logs();
    }
    let started = Instant::now();
    let model = LlamaModel::load_from_file(&backend, path, &LlamaModelParams::default())
        .map_err(|e| anyhow::anyhow!("cannot load {}: {e}", path.display()))?;
    tracing::info!(model = %path.display(), params = model.n_params(), load_s = started.elapsed().as_secs_f64(), "model loaded");
    // The sidecar serves one model for its whole life.
    let backend: &'static LlamaBackend = Box::leak(Box::new(backend));
    let model: &'static LlamaModel = Box::leak(Box::new(model));
    let context_len = settings.context.min(model.n_ctx_train().max(512));
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(context_len))
        .with_n_batch(settings.batch)
        .with_n_ubatch(settings.batch)
        .with_n_threads(settings.threads)
        .with_n_threads_batch(settings.threads);
    let ctx = model.new_context(backend, params).map_err(|e| anyhow::anyhow!("cannot make a context: {e}"))?;
    let template = model.chat_template(None).or_else(|_| LlamaChatTemplate::new("chatml")).map_err(|e| anyhow::anyhow!("chat template: {e}"))?;
    let (jobs, rx) = sync_channel(settings.queue);
    let batch = settings.batch as usize;
    let busy = Arc::new(AtomicBool::new(false));
    let flag = busy.clone();
    std::thread::Builder::new()
        .name("llama".into())
        .spawn(move || run(model, ctx, &template, batch, &rx, &flag))
        .map_err(|e| anyhow::anyhow!("cannot start the engine thread: {e}"))?;
    Ok(EngineHandle { jobs, model: name, context: context_len, busy })
}

fn run(model: &LlamaModel, mut ctx: LlamaContext<'_>, template: &LlamaChatTemplate, batch: usize, jobs: &Receiver<Job>, busy: &AtomicBool) {
    // The prompt whose keys and values the context holds (positions 0..len), for the next
    // request to reuse as far as it shares it.
    let mut cached: Vec<LlamaToken> = Vec::new();
    while let Ok(job) = jobs.recv() {
        if job.reply.is_closed() {
            continue;
        }
        busy.store(true, Ordering::Relaxed);
        let result = generate(model, &mut ctx, template, batch, &job.generation, &job.reply, &mut cached);
        busy.store(false, Ordering::Relaxed);
        if let Err(error) = &result {
            tracing::warn!(%error, "generation failed");
        }
        let _ = job.reply.send(result);
    }
}

/// Puts `messages` through the chat template, ending with the assistant's turn opened.
fn prompt(model: &LlamaModel, template: &LlamaChatTemplate, messages: &[Message]) -> Result<String, GenerateError> {
    let chat = messages
        .iter()
        .map(|m| LlamaChatMessage::new(m.role.clone(), m.content.clone()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| GenerateError::Template(e.to_string()))?;
    model.apply_chat_template(template, &chat, true).map_err(|e| GenerateError::Template(e.to_string()))
}

/// The next token: the sampler's choice when the grammar allows it (the usual case, checked on
/// that one token), else the sampler's choice among what the grammar allows. Running the grammar
/// over the whole vocabulary every step costs more than the model itself for a 150k-token vocabulary.
fn next_token(ctx: &LlamaContext<'_>, index: i32, pick: &mut LlamaSampler, grammar: Option<&mut LlamaSampler>) -> LlamaToken {
    let token = pick.sample(ctx, index);
    let Some(grammar) = grammar else { return token };
    let mut single = LlamaTokenDataArray::from_iter([LlamaTokenData::new(token, 0.0, 0.0)], false);
    grammar.apply(&mut single);
    let token = if single.data[0].logit().is_finite() {
        token
    } else {
        let mut all = ctx.token_data_array_ith(index);
        grammar.apply(&mut all);
        pick.apply(&mut all);
        // The grammar always leaves one token (end of generation once it is complete).
        all.selected_token().unwrap_or(token)
    };
    grammar.accept(token);
    token
}

/// The log-probability of `token` (whose text is `bytes`) among `logits` (the model's scores of
/// the whole vocabulary), and the `top` likeliest tokens' (ties to the lower id).
fn logprob_of(logits: &[f32], token: LlamaToken, bytes: Vec<u8>, top: usize, piece: impl Fn(LlamaToken) -> Vec<u8>) -> TokenLogprob {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let log_sum = max + logits.iter().map(|l| (l - max).exp()).sum::<f32>().ln();
    // The `top` highest scores, kept sorted as the vocabulary is read.
    let mut best: Vec<(usize, f32)> = Vec::with_capacity(top + 1);
    for (id, &logit) in logits.iter().enumerate() {
        if best.len() < top || best.last().is_some_and(|&(_, worst)| logit > worst) {
            let at = best.partition_point(|&(_, l)| l >= logit);
            best.insert(at, (id, logit));
            best.truncate(top);
        }
    }
    let score = |id: usize| logits.get(id).map_or(f32::NEG_INFINITY, |l| l - log_sum);
    let token_of = |id: usize| LlamaToken::new(i32::try_from(id).unwrap_or(i32::MAX));
    TokenLogprob {
        bytes,
        logprob: usize::try_from(token.0).map_or(f32::NEG_INFINITY, score),
        top: best.into_iter().map(|(id, _)| (piece(token_of(id)), score(id))).collect(),
    }
}

fn generate(
    model: &LlamaModel,
    ctx: &mut LlamaContext<'_>,
    template: &LlamaChatTemplate,
    batch_size: usize,
    job: &Generation,
    reply: &oneshot::Sender<Result<Completion, GenerateError>>,
    cached: &mut Vec<LlamaToken>,
) -> Result<Completion, GenerateError> {
    let started = Instant::now();
    let text = prompt(model, template, &job.messages)?;
    let vocab = model.vocab();
    let tokens = vocab.tokenize(text.as_bytes(), true, true);
    let n_ctx = ctx.n_ctx();
    if tokens.is_empty() || tokens.len() + 1 >= n_ctx as usize {
        return Err(GenerateError::TooLong { prompt: tokens.len(), context: n_ctx });
    }
    let room = n_ctx as usize - tokens.len();
    let limit = job.max_tokens.map_or(room, |m| (m as usize).min(room)).max(1);

    let mut grammar = match &job.grammar {
        Some(g) => Some(LlamaSampler::grammar(model, g, "root").map_err(|e| GenerateError::Grammar(e.to_string()))?),
        None => None,
    };
    let mut pick = if job.temperature > 0.0 {
        LlamaSampler::chain_simple([LlamaSampler::temp(job.temperature), LlamaSampler::dist(job.seed)])
    } else {
        LlamaSampler::greedy()
    };

    // Every analysis request starts with the same instructions (and a long call's parts with the
    // same categories): their keys and values are kept from the request before, and only the
    // rest of the prompt is computed. At least the last token is, for its logits. Whatever the
    // context held after the shared prefix (the last prompt's rest, its answer) is removed.
    let shared = cached.iter().zip(&tokens).take_while(|(a, b)| a == b).count().min(tokens.len() - 1);
    let reused = if shared > 0 && ctx.clear_kv_cache_seq(Some(0), u32::try_from(shared).ok(), None).unwrap_or(false) {
        shared
    } else {
        ctx.clear_kv_cache();
        0
    };
    // Until this prompt is in, the context holds no prompt a later request can trust.
    cached.clear();
    let mut batch = LlamaBatch::new(batch_size.max(1), 1);
    let last = tokens.len() - 1;
    for (chunk_index, chunk) in tokens[reused..].chunks(batch_size.max(1)).enumerate() {
        batch.clear();
        for (i, token) in chunk.iter().enumerate() {
            let pos = reused + chunk_index * batch_size + i;
            batch.add(*token, pos as i32, &[0], pos == last).map_err(|e| GenerateError::Decode(e.to_string()))?;
        }
        ctx.decode(&mut batch).map_err(|e| GenerateError::Decode(e.to_string()))?;
        if reply.is_closed() {
            return Err(GenerateError::Stopped);
        }
    }
    let prompt_s = started.elapsed().as_secs_f64();
    cached.clone_from(&tokens);

    let mut out = Vec::new();
    let mut logprobs: Option<Vec<TokenLogprob>> = job.logprobs.map(|_| Vec::new());
    let mut generated = 0;
    let mut pos = tokens.len();
    let mut finish = Finish::Length;
    let mut index = batch.n_tokens() - 1;
    while generated < limit {
        let token = next_token(ctx, index, &mut pick, grammar.as_mut());
        if vocab.is_eog(token) {
            finish = Finish::Stop;
            break;
        }
        let piece = vocab.token_to_piece(token, false, None);
        out.extend(&piece);
        if let (Some(list), Some(top)) = (logprobs.as_mut(), job.logprobs) {
            list.push(logprob_of(ctx.get_logits_ith(index), token, piece, top, |t| vocab.token_to_piece(t, false, None)));
        }
        generated += 1;
        if !job.stop.is_empty() {
            let so_far = String::from_utf8_lossy(&out);
            if let Some(at) = job.stop.iter().filter(|s| !s.is_empty()).filter_map(|s| so_far.find(s.as_str())).min() {
                out.truncate(at);
                // The tokens that began before the stop string stay.
                if let Some(list) = logprobs.as_mut() {
                    let mut start = 0;
                    list.retain(|t| {
                        let kept = start < at;
                        start += t.bytes.len();
                        kept
                    });
                }
                finish = Finish::Stop;
                break;
            }
        }
        if generated == limit || pos + 1 >= n_ctx as usize {
            break;
        }
        if reply.is_closed() {
            return Err(GenerateError::Stopped);
        }
        batch.clear();
        batch.add(token, pos as i32, &[0], true).map_err(|e| GenerateError::Decode(e.to_string()))?;
        pos += 1;
        ctx.decode(&mut batch).map_err(|e| GenerateError::Decode(e.to_string()))?;
        index = 0;
    }
    let total_s = started.elapsed().as_secs_f64();
    tracing::info!(
        prompt_tokens = tokens.len(),
        cached_tokens = reused,
        completion_tokens = generated,
        prompt_s,
        prompt_tok_s = (tokens.len() - reused) as f64 / prompt_s.max(1e-6),
        gen_tok_s = generated as f64 / (total_s - prompt_s).max(1e-6),
        total_s,
        "generated"
    );
    Ok(Completion {
        text: String::from_utf8_lossy(&out).into_owned(),
        finish,
        prompt_tokens: tokens.len(),
        completion_tokens: generated,
        cached_tokens: reused,
        logprobs,
    })
}
