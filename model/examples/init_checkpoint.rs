//! Writes a freshly initialised checkpoint: `init_checkpoint <game> <preset> <path>`.

use burn::tensor::Device;
use tengu_model::checkpoint::{save, CheckpointMeta};
use tengu_model::desc::NetConfig;
use tengu_model::{Encoder, ENCODER_VERSION};
use tengu_rules::Variant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: init_checkpoint <dai-dai|maka-dai-dai> <preset> <path>");
        std::process::exit(2);
    }
    let variant = Variant::builtin(&args[1]).expect("known game");
    let enc = Encoder::new(&variant);
    let config = NetConfig::preset(&args[2], enc.planes(), enc.size()).expect("known preset");
    let net = config.init(&Device::default());
    let meta = CheckpointMeta {
        encoder_version: ENCODER_VERSION,
        game: variant.id().into(),
        config,
        step: 0,
        parent: None,
    };
    save(&net, &meta, std::path::Path::new(&args[3])).expect("checkpoint written");
}
