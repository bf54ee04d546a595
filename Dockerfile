# syntax=docker/dockerfile:1
# The `tengu` binary in a container, for running one training run across many machines
# (deploy/README.md: Kubernetes manifests in deploy/k8s, Slurm scripts in deploy/slurm).
#
#   CPU image (backend burn, no libtorch, about 100 MB):
#     docker build -t ghcr.io/OWNER/tengu:cpu .
#   GPU image (backends tch-cuda / tch-cuda-bf16; libtorch and the CUDA libraries from the
#   PyTorch wheel, as scripts/install-libtorch.sh installs them: several GB):
#     docker build --build-arg FEATURES=cuda -t ghcr.io/OWNER/tengu:latest .
#
# The GPU image needs only the NVIDIA driver on the host (NVIDIA Container Toolkit, or the
# device plugin on Kubernetes): the CUDA runtime, cuDNN and cuBLAS come with the wheel.
# Configurations are at /opt/tengu/configs (a copy of configs/); the entry point is tengu:
#     docker run --rm --gpus all ghcr.io/OWNER/tengu:latest selfplay --run s3://BUCKET/runs/NAME --quiet

ARG RUST_IMAGE=rust:1.95-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# ---------------------------------------------------------------------------------------
FROM ${RUST_IMAGE} AS builder
# Cargo features of the build: empty (CPU) or cuda (scripts in this repository use the same
# names: see Cargo.toml [features]).
ARG FEATURES=""
# The PyTorch virtual environment of scripts/install-libtorch.sh and libtorch-env.sh. The
# runtime stage copies it to the same path: the binary's rpath (scripts/torch_link.rs) and
# the wheel's own $ORIGIN rpaths (to the nvidia-* wheels beside it) then resolve unchanged.
ENV TENGU_TORCH_VENV=/opt/torch-venv
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
WORKDIR /src

# libtorch first, in a layer of its own: it changes only when install-libtorch.sh does.
COPY scripts/install-libtorch.sh scripts/libtorch-env.sh scripts/
RUN --mount=type=cache,target=/root/.cache/pip \
    if [[ ",${FEATURES}," == *,cuda,* ]]; then \
        apt-get update \
        && apt-get install -y --no-install-recommends python3 python3-venv \
        && rm -rf /var/lib/apt/lists/* \
        && bash scripts/install-libtorch.sh \
        && ln -s "$("$TENGU_TORCH_VENV/bin/python" -c 'import os, torch; print(os.path.dirname(torch.__file__))')/lib" \
              "$TENGU_TORCH_VENV/torch-lib"; \
    else \
        mkdir -p "$TENGU_TORCH_VENV"; \
    fi

# The workspace (vendor/ included: Cargo.toml patches burn-dispatch from it).
COPY . .
# The registry and target/ are cache mounts, so the binary is copied out in the same step.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    if [[ ",${FEATURES}," == *,cuda,* ]]; then source scripts/libtorch-env.sh; fi \
    && cargo build --release --locked ${FEATURES:+--features "$FEATURES"} \
    && install -D -m 755 target/release/tengu /out/tengu

# ---------------------------------------------------------------------------------------
FROM ${RUNTIME_IMAGE}
# ca-certificates: HTTPS to object stores (s3://, gs://, az://).
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --uid 10001 --user-group --create-home --home-dir /home/tengu --shell /usr/sbin/nologin tengu
# Empty in CPU builds. torch-lib is a link to the wheel's lib/ (whatever the Python version).
COPY --from=builder /opt/torch-venv /opt/torch-venv
COPY --from=builder /out/tengu /usr/local/bin/tengu
COPY configs /opt/tengu/configs
ENV LD_LIBRARY_PATH=/opt/torch-venv/torch-lib
# Without `compute` the NVIDIA runtime mounts no libcuda into an image that is not based on
# nvidia/cuda (its default is `utility` alone).
ENV NVIDIA_DRIVER_CAPABILITIES=compute,utility
# Downloaded checkpoints are cached under $XDG_CACHE_HOME/tengu: mount node-local scratch
# here (k8s: an emptyDir) so that a restarted container need not fetch them again.
ENV XDG_CACHE_HOME=/home/tengu/.cache
# Numeric, so that Kubernetes' runAsNonRoot can verify it.
USER 10001:10001
WORKDIR /home/tengu
# Exec form: tengu is PID 1 and receives the SIGTERM of `docker stop` / pod termination
# itself (self-play writes its finished games, the trainer its last checkpoint).
ENTRYPOINT ["tengu"]
CMD ["--help"]
