//! Prints the Silero VAD's speech probability of each 32 ms chunk of a 16 kHz mono WAV file, one
//! per line, and the time it took on stderr: for comparing this implementation with another
//! runtime of the same network.
//!
//! `cargo run --release -p callscope-speech --example vad_probs -- MODEL FILE.wav`

use callscope_speech::SileroVad;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(model), Some(wav)) = (args.next(), args.next()) else {
        eprintln!("usage: vad_probs MODEL FILE.wav");
        std::process::exit(2);
    };
    let vad = SileroVad::load(model.as_ref()).unwrap_or_else(|e| panic!("{e}"));
    let mut reader = hound::WavReader::open(&wav).unwrap_or_else(|e| panic!("{wav}: {e}"));
    assert_eq!((reader.spec().sample_rate, reader.spec().channels), (16_000, 1), "{wav}: 16 kHz mono expected");
    let samples: Vec<f32> = match reader.spec().sample_format {
        hound::SampleFormat::Float => reader.samples::<f32>().map(|s| s.expect("a sample")).collect(),
        hound::SampleFormat::Int => reader.samples::<i16>().map(|s| f32::from(s.expect("a sample")) / 32768.0).collect(),
    };
    let started = std::time::Instant::now();
    let probabilities = vad.probabilities(&samples).expect("samples in memory");
    eprintln!("{} chunks in {:.1} ms", probabilities.len(), started.elapsed().as_secs_f64() * 1000.0);
    for p in probabilities {
        println!("{p:.6}");
    }
}
