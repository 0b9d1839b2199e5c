//! Diagonal-covariance Gaussian mixtures over fixed-length feature vectors: trained by
//! expectation-maximisation from one Gaussian split in two until the wanted size, fitted to one
//! speaker's frames (weights by share, means by maximum a posteriori adaptation, Reynolds et al.
//! 2000), and summarised per segment as the shift of its means (a supervector).

/// A mixture of diagonal Gaussians over `D`-dimensional vectors.
#[derive(Debug, Clone)]
pub(crate) struct Mixture<const D: usize> {
    means: Vec<[f64; D]>,
    inverse_variances: Vec<[f64; D]>,
    /// log weight − ½ log det Σ of each component (the 2π term is the same for all and dropped).
    log_scales: Vec<f64>,
    weights: Vec<f64>,
}

/// Variances never fall below this share of the data's variance in the same dimension, so a
/// component that collapses onto a few frames cannot dominate the likelihoods.
const VARIANCE_FLOOR: f64 = 0.01;

impl<const D: usize> Mixture<D> {
    /// Number of components.
    pub(crate) fn components(&self) -> usize {
        self.means.len()
    }

    fn from_parts(weights: Vec<f64>, means: Vec<[f64; D]>, variances: &[[f64; D]]) -> Self {
        let inverse_variances = variances.iter().map(|v| v.map(|x| 1.0 / x)).collect();
        let log_scales = weights.iter().zip(variances).map(|(w, v)| w.max(1e-12).ln() - 0.5 * v.iter().map(|x| x.ln()).sum::<f64>()).collect();
        Self { means, inverse_variances, log_scales, weights }
    }

    /// Trains a mixture of `components` Gaussians (rounded down to a power of two) on `frames`:
    /// starting from one Gaussian, each round splits every component in two, nudging the halves'
    /// means apart by a fifth of a standard deviation, and refines them with `iterations` steps of
    /// expectation-maximisation. Deterministic. `None` when there are no frames.
    pub(crate) fn train(frames: &[&[f32; D]], components: usize, iterations: usize) -> Option<Self> {
        if frames.is_empty() {
            return None;
        }
        let n = frames.len() as f64;
        let mut mean = [0f64; D];
        let mut var = [0f64; D];
        for f in frames {
            for d in 0..D {
                mean[d] += f64::from(f[d]) / n;
            }
        }
        for f in frames {
            for d in 0..D {
                let x = f64::from(f[d]) - mean[d];
                var[d] += x * x / n;
            }
        }
        let floor = var.map(|v| (v * VARIANCE_FLOOR).max(1e-6));
        let var = std::array::from_fn(|d| var[d].max(floor[d]));
        let mut mixture = Self::from_parts(vec![1.0], vec![mean], &[var]);
        while mixture.components() * 2 <= components.max(1) {
            let mut weights = Vec::new();
            let mut means = Vec::new();
            let mut variances = Vec::new();
            for k in 0..mixture.components() {
                let sd: [f64; D] = mixture.inverse_variances[k].map(|iv| (1.0 / iv).sqrt());
                for sign in [-1.0, 1.0] {
                    weights.push(mixture.weights[k] / 2.0);
                    means.push(std::array::from_fn(|d| mixture.means[k][d] + sign * 0.2 * sd[d]));
                    variances.push(mixture.inverse_variances[k].map(|iv| 1.0 / iv));
                }
            }
            mixture = Self::from_parts(weights, means, &variances);
            for _ in 0..iterations {
                mixture = mixture.maximise(frames, &floor);
            }
        }
        Some(mixture)
    }

    /// One expectation-maximisation step.
    fn maximise(&self, frames: &[&[f32; D]], floor: &[f64; D]) -> Self {
        let k = self.components();
        let mut counts = vec![0f64; k];
        let mut sums = vec![[0f64; D]; k];
        let mut squares = vec![[0f64; D]; k];
        let mut posterior = vec![0f64; k];
        for f in frames {
            self.posteriors(f, &mut posterior);
            for c in 0..k {
                let g = posterior[c];
                if g < 1e-8 {
                    continue;
                }
                counts[c] += g;
                for d in 0..D {
                    let x = f64::from(f[d]);
                    sums[c][d] += g * x;
                    squares[c][d] += g * x * x;
                }
            }
        }
        let total: f64 = counts.iter().sum();
        let mut weights = Vec::with_capacity(k);
        let mut means = Vec::with_capacity(k);
        let mut variances = Vec::with_capacity(k);
        for c in 0..k {
            if counts[c] < 1.0 {
                // A component nobody chose keeps its place with a tiny weight.
                weights.push(1e-6);
                means.push(self.means[c]);
                variances.push(self.inverse_variances[c].map(|iv| 1.0 / iv));
                continue;
            }
            let mean: [f64; D] = std::array::from_fn(|d| sums[c][d] / counts[c]);
            weights.push(counts[c] / total);
            variances.push(std::array::from_fn(|d| (squares[c][d] / counts[c] - mean[d] * mean[d]).max(floor[d])));
            means.push(mean);
        }
        Self::from_parts(weights, means, &variances)
    }

    /// Each component's weighted log density at `x` (up to the shared constant).
    fn component_logs(&self, x: &[f32; D], out: &mut [f64]) {
        for (c, slot) in out.iter_mut().enumerate() {
            let (mean, iv) = (&self.means[c], &self.inverse_variances[c]);
            let mut q = 0.0;
            for d in 0..D {
                let e = f64::from(x[d]) - mean[d];
                q += e * e * iv[d];
            }
            *slot = self.log_scales[c] - 0.5 * q;
        }
    }

    /// Log-likelihood of `x` (up to the shared constant); leaves in `scratch` each component's
    /// density relative to the largest.
    pub(crate) fn log_likelihood(&self, x: &[f32; D], scratch: &mut [f64]) -> f64 {
        self.component_logs(x, scratch);
        let top = scratch.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut sum = 0.0;
        for v in scratch.iter_mut() {
            *v = (*v - top).exp();
            sum += *v;
        }
        top + sum.ln()
    }

    /// Writes the components' posteriors of `x` into `out`; returns its log-likelihood.
    pub(crate) fn posteriors(&self, x: &[f32; D], out: &mut [f64]) -> f64 {
        let log_likelihood = self.log_likelihood(x, out);
        let sum: f64 = out.iter().sum();
        for v in out.iter_mut() {
            *v /= sum;
        }
        log_likelihood
    }

    /// How `frames` move this mixture's means (maximum a posteriori, relevance factor
    /// `relevance`), each shift scaled by the component's standard deviation and the square root
    /// of its weight, so that Euclidean distances between two such vectors approximate the
    /// divergence between the two adapted mixtures.
    pub(crate) fn supervector(&self, frames: &[&[f32; D]], relevance: f64) -> Vec<f64> {
        let (counts, sums) = self.statistics(frames);
        let mut out = Vec::with_capacity(self.components() * D);
        for (c, (n, sum)) in counts.iter().zip(&sums).enumerate() {
            let alpha = n / (n + relevance);
            let scale = self.weights[c].sqrt();
            for ((s, mean), iv) in sum.iter().zip(&self.means[c]).zip(&self.inverse_variances[c]) {
                let shift = if *n > 0.0 { alpha * (s / n - mean) } else { 0.0 };
                out.push(shift * iv.sqrt() * scale);
            }
        }
        out
    }

    /// Zeroth- and first-order statistics of `frames`: each component's share of them (summed
    /// posteriors) and the posterior-weighted sum of the frames.
    fn statistics(&self, frames: &[&[f32; D]]) -> (Vec<f64>, Vec<[f64; D]>) {
        let k = self.components();
        let mut counts = vec![0f64; k];
        let mut sums = vec![[0f64; D]; k];
        let mut posterior = vec![0f64; k];
        for f in frames {
            self.posteriors(f, &mut posterior);
            for ((count, sum), g) in counts.iter_mut().zip(&mut sums).zip(&posterior) {
                *count += g;
                for (slot, x) in sum.iter_mut().zip(f.iter()) {
                    *slot += g * f64::from(*x);
                }
            }
        }
        (counts, sums)
    }

    /// This mixture fitted to one speaker's `frames`: the weights become the shares of the frames
    /// each component explains (so a component that only the other speakers' frames use fades),
    /// and the means move towards the frames' (maximum a posteriori with relevance factor
    /// `relevance`: a component seen in `n` frames moves `n / (n + relevance)` of the way);
    /// `rounds` such steps, the variances kept.
    pub(crate) fn adapt(&self, frames: &[&[f32; D]], relevance: f64, rounds: usize) -> Self {
        let k = self.components();
        let mut adapted = self.clone();
        if frames.is_empty() {
            return adapted;
        }
        let variances: Vec<[f64; D]> = self.inverse_variances.iter().map(|iv| iv.map(|x| 1.0 / x)).collect();
        for _ in 0..rounds.max(1) {
            let (counts, sums) = adapted.statistics(frames);
            let total: f64 = counts.iter().sum();
            let weights: Vec<f64> = counts.iter().map(|n| (n / total).max(1e-4)).collect();
            let means: Vec<[f64; D]> = (0..k)
                .map(|c| {
                    if counts[c] <= 0.0 {
                        return self.means[c];
                    }
                    let alpha = counts[c] / (counts[c] + relevance);
                    std::array::from_fn(|d| alpha * sums[c][d] / counts[c] + (1.0 - alpha) * self.means[c][d])
                })
                .collect();
            adapted = Self::from_parts(weights, means, &variances);
        }
        adapted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> f64 {
        *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (*seed >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Roughly normal draws (the sum of twelve uniforms).
    fn normal(seed: &mut u64) -> f32 {
        ((0..12).map(|_| lcg(seed)).sum::<f64>() - 6.0) as f32
    }

    #[test]
    fn two_clouds_are_found_as_two_components() {
        let mut seed = 7;
        let frames: Vec<[f32; 2]> = (0..2000)
            .map(|i| {
                let centre = if i % 4 == 0 { [5.0, -3.0] } else { [-2.0, 1.0] };
                [centre[0] + normal(&mut seed), centre[1] + 0.5 * normal(&mut seed)]
            })
            .collect();
        let refs: Vec<&[f32; 2]> = frames.iter().collect();
        let m = Mixture::train(&refs, 2, 20).expect("frames");
        let mut order: Vec<usize> = (0..2).collect();
        order.sort_by(|&a, &b| m.means[a][0].total_cmp(&m.means[b][0]));
        let (low, high) = (order[0], order[1]);
        assert!((m.means[low][0] + 2.0).abs() < 0.2 && (m.means[low][1] - 1.0).abs() < 0.2, "{:?}", m.means);
        assert!((m.means[high][0] - 5.0).abs() < 0.2 && (m.means[high][1] + 3.0).abs() < 0.2, "{:?}", m.means);
        assert!((m.weights[high] - 0.25).abs() < 0.03, "{:?}", m.weights);
        assert!((1.0 / m.inverse_variances[low][1] - 0.25).abs() < 0.05);
    }

    #[test]
    fn a_supervector_points_where_the_frames_moved_the_means() {
        let mut seed = 5;
        let frames: Vec<[f32; 2]> = (0..2000).map(|_| [normal(&mut seed), normal(&mut seed)]).collect();
        let refs: Vec<&[f32; 2]> = frames.iter().collect();
        let m = Mixture::train(&refs, 1, 5).expect("frames");
        // Frames shifted along the first dimension move only that mean.
        let shifted: Vec<[f32; 2]> = frames[..200].iter().map(|f| [f[0] + 2.0, f[1]]).collect();
        let v = m.supervector(&shifted.iter().collect::<Vec<_>>(), 16.0);
        assert_eq!(v.len(), 2);
        assert!(v[0] > 1.5 && v[1].abs() < 0.3, "{v:?}");
        // The mixture's own frames hardly move it.
        let own = m.supervector(&refs, 16.0);
        assert!(own.iter().all(|x| x.abs() < 1e-6), "{own:?}");
    }

    #[test]
    fn adaptation_moves_the_means_by_how_much_was_seen() {
        let mut seed = 3;
        let frames: Vec<[f32; 1]> = (0..1000).map(|_| [normal(&mut seed)]).collect();
        let refs: Vec<&[f32; 1]> = frames.iter().collect();
        let m = Mixture::train(&refs, 1, 5).expect("frames");
        let shifted = [[3.0f32]; 16];
        let few: Vec<&[f32; 1]> = shifted.iter().collect();
        let adapted = m.adapt(&few, 16.0, 1);
        // Sixteen frames against a relevance of sixteen: half way from about 0 to 3.
        assert!((adapted.means[0][0] - 1.5 - m.means[0][0] / 2.0).abs() < 1e-9);
        let mut scratch = [0f64; 1];
        assert!(adapted.log_likelihood(&[3.0], &mut scratch) > m.log_likelihood(&[3.0], &mut scratch));
    }
}
