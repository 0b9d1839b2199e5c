//! Silero VAD (v6, 16 kHz) run natively: the network is small enough that its four
//! convolutions, one LSTM cell and a 1×1 output layer are written out here over the weights in
//! the `silero-vad` package's safetensors file, with no ONNX runtime.
//!
//! The network scores each 32 ms chunk (512 samples, seen with the 64 samples before it) with the
//! probability that it holds speech. Everything before the LSTM depends on one chunk alone, so it
//! runs as matrix products over blocks of chunks; only the LSTM steps through the chunks in order,
//! carrying its state across the whole recording as Silero's own runtime does.
//!
//! Per chunk: reflect-pad 64 samples on the right (640), a learned STFT (258 filters of 256
//! samples, hop 128: 4 frames, magnitudes of 129 bins), conv 129→128 (k3, s1), 128→64 (k3, s2),
//! 64→64 (k3, s2), 64→128 (k3, s1), each with ReLU, then the LSTM cell (128), ReLU, a 1×1
//! convolution to one logit and a sigmoid.

use std::collections::HashMap;
use std::path::Path;

use callscope_audio::SampleSource;

use crate::SpeechError;

/// New samples per chunk at 16 kHz.
pub const CHUNK: usize = 512;
/// Samples of the previous chunk each chunk is scored with.
const CONTEXT: usize = 64;
/// Chunk with its context.
const INPUT: usize = CHUNK + CONTEXT;
/// Right padding (reflected) before the STFT.
const PAD: usize = 64;
const N_FFT: usize = 256;
const STFT_HOP: usize = 128;
const BINS: usize = N_FFT / 2 + 1;
/// STFT frames per chunk: (576 + 64 − 256) / 128 + 1.
const FRAMES: usize = (INPUT + PAD - N_FFT) / STFT_HOP + 1;
const HIDDEN: usize = 128;
/// Chunks whose encoder runs in one batch (bounds the scratch memory to a few MB).
const BLOCK: usize = 512;

/// A 1-D convolution's weights: `out × in × kernel`, and a bias per output channel.
struct Conv {
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    stride: usize,
}

const KERNEL: usize = 3;

impl Conv {
    fn output_len(&self, input_len: usize) -> usize {
        (input_len + 2 - KERNEL) / self.stride + 1
    }

    /// `input` is `[batch][time][channel]`; so is the result (with ReLU applied).
    fn forward_relu(&self, input: &[f32], batch: usize, input_len: usize, columns: &mut Vec<f32>) -> Vec<f32> {
        let out_len = self.output_len(input_len);
        let width = self.inputs * KERNEL;
        let rows = batch * out_len;
        // im2col: a row per (chunk, output time), columns ordered (input channel, tap) as the
        // weights are, zero where the padded input lies outside the signal.
        columns.clear();
        columns.resize(rows * width, 0.0);
        for b in 0..batch {
            for t in 0..out_len {
                let row = &mut columns[(b * out_len + t) * width..][..width];
                for k in 0..KERNEL {
                    let Some(source) = (t * self.stride + k).checked_sub(1).filter(|&s| s < input_len) else { continue };
                    let frame = &input[(b * input_len + source) * self.inputs..][..self.inputs];
                    for (c, &x) in frame.iter().enumerate() {
                        row[c * KERNEL + k] = x;
                    }
                }
            }
        }
        let mut out = affine(rows, width, columns, &self.weight, &self.bias);
        for x in &mut out {
            *x = x.max(0.0);
        }
        out
    }
}

/// `input[rows×k] · weight[n×k]ᵀ + bias[n]` on every row, row-major (`n` is the bias' length).
fn affine(rows: usize, k: usize, input: &[f32], weight: &[f32], bias: &[f32]) -> Vec<f32> {
    let mut out = Vec::with_capacity(rows * bias.len());
    for _ in 0..rows {
        out.extend_from_slice(bias);
    }
    gemm_nt(rows, k, bias.len(), input, weight, &mut out);
    out
}

/// `c[m×n] += a[m×k] · b[n×k]ᵀ`, all row-major.
fn gemm_nt(m: usize, k: usize, n: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    debug_assert!(a.len() >= m * k && b.len() >= n * k && c.len() >= m * n);
    // SAFETY: the slices hold at least the extents given (checked above in debug builds and by
    // construction at every call), and the strides describe those row-major layouts.
    unsafe {
        matrixmultiply::sgemm(m, k, n, 1.0, a.as_ptr(), k as isize, 1, b.as_ptr(), 1, k as isize, 1.0, c.as_mut_ptr(), n as isize, 1);
    }
}

/// The Silero VAD network, loaded once and shared (scoring keeps its state on the stack).
pub struct SileroVad {
    stft: Vec<f32>,
    convs: [Conv; 4],
    weight_ih: Vec<f32>,
    weight_hh: Vec<f32>,
    bias: Vec<f32>,
    out_weight: Vec<f32>,
    out_bias: f32,
}

impl std::fmt::Debug for SileroVad {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SileroVad")
    }
}

/// A tensor's shape and values.
type Tensor = (Vec<usize>, Vec<f32>);

/// The safetensors file's tensors, by name.
fn read_safetensors(path: &Path) -> Result<HashMap<String, Tensor>, SpeechError> {
    let broken = |why: &str| SpeechError::Model(format!("{}: {why}", path.display()));
    let bytes = std::fs::read(path).map_err(|e| SpeechError::Model(format!("{}: {e}", path.display())))?;
    let header_len = bytes.get(..8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes"))).ok_or_else(|| broken("too short"))?;
    let header_end =
        usize::try_from(header_len).ok().and_then(|n| n.checked_add(8)).filter(|&e| e <= bytes.len()).ok_or_else(|| broken("bad header length"))?;
    #[derive(serde::Deserialize)]
    struct Entry {
        dtype: String,
        shape: Vec<usize>,
        data_offsets: [usize; 2],
    }
    let header: HashMap<String, serde_json::Value> = serde_json::from_slice(&bytes[8..header_end]).map_err(|e| broken(&format!("header: {e}")))?;
    let data = &bytes[header_end..];
    let mut tensors = HashMap::new();
    for (name, value) in header {
        if name == "__metadata__" {
            continue;
        }
        let entry: Entry = serde_json::from_value(value).map_err(|e| broken(&format!("{name}: {e}")))?;
        if entry.dtype != "F32" {
            return Err(broken(&format!("{name} is {}, not F32", entry.dtype)));
        }
        let [from, to] = entry.data_offsets;
        let count: usize = entry.shape.iter().product();
        if from > to || to > data.len() || to - from != count * 4 {
            return Err(broken(&format!("{name}: data out of place")));
        }
        let values = data[from..to].chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes"))).collect();
        tensors.insert(name, (entry.shape, values));
    }
    Ok(tensors)
}

impl SileroVad {
    /// Loads `silero_vad_16k.safetensors` (the file itself, or the folder that holds it).
    ///
    /// # Errors
    /// A missing file, or one whose tensors are not Silero VAD's 16 kHz network.
    pub fn load(path: &Path) -> Result<Self, SpeechError> {
        let file = if path.is_dir() { path.join("silero_vad_16k.safetensors") } else { path.to_owned() };
        if !file.is_file() {
            return Err(SpeechError::Model(format!("{} is missing: the voice activity model (run `callscope models install`)", file.display())));
        }
        let mut tensors = read_safetensors(&file)?;
        let mut take = |name: &str, shape: &[usize]| -> Result<Vec<f32>, SpeechError> {
            match tensors.remove(name) {
                Some((s, values)) if s == shape => Ok(values),
                Some((s, _)) => Err(SpeechError::Model(format!("{}: {name} has shape {s:?}, expected {shape:?}", file.display()))),
                None => Err(SpeechError::Model(format!("{}: no tensor {name}: not Silero VAD's 16 kHz network", file.display()))),
            }
        };
        let stft = take("stft_conv.weight", &[2 * BINS, 1, N_FFT])?;
        let mut conv = |name: &str, inputs: usize, outputs: usize, stride: usize| -> Result<Conv, SpeechError> {
            Ok(Conv {
                weight: take(&format!("{name}.weight"), &[outputs, inputs, KERNEL])?,
                bias: take(&format!("{name}.bias"), &[outputs])?,
                inputs,
                stride,
            })
        };
        let convs = [conv("conv1", BINS, 128, 1)?, conv("conv2", 128, 64, 2)?, conv("conv3", 64, 64, 2)?, conv("conv4", 64, HIDDEN, 1)?];
        let weight_ih = take("lstm_cell.weight_ih", &[4 * HIDDEN, HIDDEN])?;
        let weight_hh = take("lstm_cell.weight_hh", &[4 * HIDDEN, HIDDEN])?;
        let bias_ih = take("lstm_cell.bias_ih", &[4 * HIDDEN])?;
        let bias_hh = take("lstm_cell.bias_hh", &[4 * HIDDEN])?;
        let out_weight = take("final_conv.weight", &[1, HIDDEN, 1])?;
        let out_bias = take("final_conv.bias", &[1])?[0];
        let bias = bias_ih.iter().zip(&bias_hh).map(|(a, b)| a + b).collect();
        Ok(Self { stft, convs, weight_ih, weight_hh, bias, out_weight, out_bias })
    }

    /// Speech probability of each 32 ms chunk of `samples` (16 kHz mono); a last partial chunk
    /// is scored padded with silence. The signal is read a block of chunks at a time.
    ///
    /// # Errors
    /// The signal's file cannot be read.
    pub fn probabilities<S: SampleSource + ?Sized>(&self, samples: &S) -> std::io::Result<Vec<f32>> {
        let chunks = samples.sample_count().div_ceil(CHUNK);
        let mut out = Vec::with_capacity(chunks);
        let (mut h, mut c) = ([0f32; HIDDEN], [0f32; HIDDEN]);
        let mut columns = Vec::new();
        let mut first = 0;
        while first < chunks {
            let batch = BLOCK.min(chunks - first);
            // What the batch's chunks look at: each its own samples and the context before them.
            let from = (first * CHUNK).saturating_sub(CONTEXT);
            let heard = samples.window(from..(first + batch) * CHUNK)?;
            let gates_in = self.encode(&heard, from, first, batch, &mut columns);
            for b in 0..batch {
                let gates = &gates_in[b * 4 * HIDDEN..][..4 * HIDDEN];
                out.push(self.step(gates, &mut h, &mut c));
            }
            first += batch;
        }
        Ok(out)
    }

    /// The LSTM's input projection (with both biases) for chunks `first..first + batch`, from
    /// `heard`: the signal's samples from `heard_from` on (the signal is silence past them).
    fn encode(&self, heard: &[f32], heard_from: usize, first: usize, batch: usize, columns: &mut Vec<f32>) -> Vec<f32> {
        // STFT frames of every chunk: rows (chunk, frame) of 256 samples.
        let mut frames = vec![0f32; batch * FRAMES * N_FFT];
        let mut padded = [0f32; INPUT + PAD];
        for b in 0..batch {
            let start = (first + b) * CHUNK;
            for (i, slot) in padded[..INPUT].iter_mut().enumerate() {
                *slot = (start + i).checked_sub(CONTEXT).and_then(|s| s.checked_sub(heard_from)).and_then(|s| heard.get(s)).copied().unwrap_or(0.0);
            }
            for j in 0..PAD {
                padded[INPUT + j] = padded[INPUT - 2 - j];
            }
            for f in 0..FRAMES {
                frames[(b * FRAMES + f) * N_FFT..][..N_FFT].copy_from_slice(&padded[f * STFT_HOP..][..N_FFT]);
            }
        }
        let rows = batch * FRAMES;
        let mut spectrum = vec![0f32; rows * 2 * BINS];
        gemm_nt(rows, N_FFT, 2 * BINS, &frames, &self.stft, &mut spectrum);
        let magnitudes: Vec<f32> = spectrum.chunks_exact(2 * BINS).flat_map(|row| (0..BINS).map(move |k| row[k].hypot(row[BINS + k]))).collect();
        let mut x = magnitudes;
        let mut len = FRAMES;
        for conv in &self.convs {
            x = conv.forward_relu(&x, batch, len, columns);
            len = conv.output_len(len);
        }
        debug_assert_eq!(len, 1);
        affine(batch, HIDDEN, &x, &self.weight_ih, &self.bias)
    }

    /// One LSTM step (gates in PyTorch's order: input, forget, cell, output) and the output
    /// layer: the chunk's speech probability.
    fn step(&self, input_gates: &[f32], h: &mut [f32; HIDDEN], c: &mut [f32; HIDDEN]) -> f32 {
        let mut gates = [0f32; 4 * HIDDEN];
        for (g, (row, &x)) in gates.iter_mut().zip(self.weight_hh.chunks_exact(HIDDEN).zip(input_gates)) {
            *g = x + dot(row, h);
        }
        let sigmoid = |x: f32| 1.0 / (1.0 + (-x).exp());
        for k in 0..HIDDEN {
            let i = sigmoid(gates[k]);
            let f = sigmoid(gates[HIDDEN + k]);
            let g = gates[2 * HIDDEN + k].tanh();
            let o = sigmoid(gates[3 * HIDDEN + k]);
            c[k] = f * c[k] + i * g;
            h[k] = o * c[k].tanh();
        }
        let logit: f32 = self.out_bias + self.out_weight.iter().zip(h.iter()).map(|(w, x)| w * x.max(0.0)).sum::<f32>();
        sigmoid(logit)
    }
}

/// A dot product in eight lanes, so that it vectorises.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        for l in 0..8 {
            lanes[l] += x[l] * y[l];
        }
    }
    lanes.iter().sum()
}
