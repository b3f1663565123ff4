#!/usr/bin/env bash
# The GPU measurements of docs/sims.md and docs/training.md, as one run on a machine with an
# NVIDIA GPU and a Python that has torch, numba and numba-cuda (the project's own .venv
# pins a CPU torch). Writes each bench's JSON and stderr to OUT (default ./out/gpu).
#
#   bash bench/gpu_check.sh
#
# Missing pure-Python packages (gymnasium, jsonschema, ...) and numpy < 2.5 (numba-cuda
# 0.30 still names np.row_stack) may come as wheels in .whl/: they are installed into
# /tmp/site first. PyBullet has no wheel for every Python, so training is judged by numba
# evaluations here.
set -u
OUT=${OUT:-out/gpu}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 GLOO_SOCKET_IFNAME=lo
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 3
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
python3 -c "import numba, numpy, torch; from numba import cuda; print('numba', numba.__version__, 'numpy', numpy.__version__, 'torch', torch.__version__, 'cuda', cuda.is_available())" | tee "$OUT/versions.txt"
echo "== env-steps/s, GPU against CPU, parity, PTX"
timeout 150 python3 bench/cuda_sps.py --json --parity --parity-envs 4096 --ptx \
  >"$OUT/cuda_sps.json" 2>"$OUT/cuda_sps.err"
cat "$OUT/cuda_sps.json"
echo "== a million envs"
timeout 60 python3 bench/cuda_sps.py --json --num-envs 1048576 --steps 50 --cpu-steps 5 \
  >"$OUT/cuda_big.json" 2>"$OUT/cuda_big.err"
cat "$OUT/cuda_big.json"
echo "== training: ranks on the CPUs, and one GPU"
timeout 300 python3 bench/scale.py --json --ranks "${RANKS:-1,2,4,8}" --eval-backend numba \
  --cuda-steps 50 >"$OUT/scale.json" 2>"$OUT/scale.err"
cat "$OUT/scale.json"
