//! `tengu-fuzz TARGET`: runs the fuzz target `TARGET` of `tengu::fuzz::TARGETS` under AFL++
//! (persistent mode); outside AFL++ it runs the target once on standard input, which is how
//! a crash is reproduced: `fuzz/target/release/tengu-fuzz TARGET < crash-file`.
//! `tengu-fuzz --write-seeds DIR` writes the seeds the project's writers make
//! (`tengu::fuzz::made_seeds`) under `DIR/<target>/`.

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_default();
    if name == "--write-seeds" {
        let dir = std::path::PathBuf::from(args.next().expect("--write-seeds DIR"));
        for (target, file, bytes) in tengu::fuzz::made_seeds() {
            std::fs::create_dir_all(dir.join(target)).expect("the corpus folder");
            std::fs::write(dir.join(target).join(file), bytes).expect("writing a seed");
        }
        return;
    }
    let Some(target) = tengu::fuzz::target(&name) else {
        let names: Vec<&str> = tengu::fuzz::TARGETS.iter().map(|t| t.name).collect();
        eprintln!("usage: tengu-fuzz TARGET, one of: {}", names.join(", "));
        std::process::exit(2);
    };
    afl::fuzz!(|data: &[u8]| {
        (target.run)(data);
    });
}
