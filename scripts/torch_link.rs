// Shared by the build scripts of `tengu` and `tengu-model` (included with `include!`): with
// the `cuda` feature, keep libtorch_cuda linked (nothing references it by symbol, but CUDA
// only registers when it is loaded) and record the PyTorch library directory as rpath.

fn torch_link() {
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    println!("cargo:rerun-if-env-changed=LIBTORCH_USE_PYTORCH");
    if std::env::var_os("CARGO_FEATURE_CUDA").is_none() {
        return;
    }
    let lib = match std::env::var("LIBTORCH") {
        Ok(root) => std::path::PathBuf::from(root).join("lib"),
        Err(_) => {
            let out = std::process::Command::new("python3")
                .args(["-c", "import os, torch; print(os.path.join(os.path.dirname(torch.__file__), 'lib'))"])
                .output()
                .expect("python3 with torch installed (run scripts/install-libtorch.sh, then source scripts/libtorch-env.sh)");
            std::path::PathBuf::from(String::from_utf8_lossy(&out.stdout).trim().to_string())
        }
    };
    println!("cargo:rustc-link-search=native={}", lib.display());
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
    if lib.join("libtorch_cuda.so").exists() {
        println!("cargo:rustc-link-arg=-Wl,--no-as-needed,-ltorch_cuda,--as-needed");
    }
}
