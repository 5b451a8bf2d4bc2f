#!/usr/bin/env bash
# CI step: make sure the CUDA sources compile (no GPU needed). Installs
# Debian's nvidia-cuda-toolkit (nvcc 11.8, non-free component) when nvcc is
# missing, then runs `make -C native check`.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v nvcc >/dev/null 2>&1; then
	src=/etc/apt/sources.list.d/debian.sources
	if [ -f "$src" ]; then
		sed -i 's/^Components: main$/Components: main contrib non-free/' "$src"
	fi
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nvidia-cuda-toolkit
fi
nvcc --version | tail -1
make -j"$(nproc)" check
# The field and curve arithmetic compiled for the host, against gnark-crypto vectors.
make hosttest
