# Source this file (bash) to build and run the `cuda` feature against the PyTorch wheel
# installed by scripts/install-libtorch.sh, or against a system PyTorch when no venv exists.
_tengu_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_tengu_venv="${TENGU_TORCH_VENV:-$_tengu_root/.venv-torch}"
if [ -x "$_tengu_venv/bin/python" ]; then
    export PATH="$_tengu_venv/bin:$PATH"
fi
export LIBTORCH_USE_PYTORCH=1
_tengu_torch_lib="$(python3 -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')"
export LD_LIBRARY_PATH="$_tengu_torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# (The build scripts keep libtorch_cuda linked and set an rpath: see scripts/torch_link.rs.)
unset _tengu_root _tengu_venv _tengu_torch_lib
