#!/usr/bin/env bash
# The learner's GPU checks in one go (see benchmarks/gpu_check.py); figures land in ${OUT:-gpu-check}.
#   bash benchmarks/gpu_check.sh
set -u
OUT=${OUT:-gpu-check}
mkdir -p "$OUT"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONWARNINGS=ignore TOKENIZERS_PARALLELISM=false
FSDP="accelerate launch --config_file configs/accelerate/fsdp.yaml --num_processes 1"
step() { echo "== $1"; shift; local start=$SECONDS; timeout 240 "$@" 2>&1 | tail -n 60; echo "   ($((SECONDS - start)) s)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python -c "import torch, transformers, peft, accelerate; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'transformers', transformers.__version__, 'peft', peft.__version__, 'accelerate', accelerate.__version__)"
step "one process, bf16 on the GPU" python benchmarks/gpu_check.py single --out "$OUT"
step "the fixed update on the CPU (float32)" env CUDA_VISIBLE_DEVICES= python -m spadework.learn.distributed --single --out "$OUT/cpu_fp32.json"
step "the fixed update on the GPU (float32)" python -m spadework.learn.distributed --single --out "$OUT/cuda_fp32.json"
step "the fixed update under FSDP (bf16 mixed precision)" $FSDP -m spadework.learn.distributed --out "$OUT/fsdp_update.json"
step "FSDP: bf16 model, update, sharded checkpoint, restore" $FSDP benchmarks/gpu_check.py sharded --out "$OUT"
for f in "$OUT"/*_fp32.json "$OUT"/fsdp_update.json; do echo "$f: $(cat "$f" 2>/dev/null)"; done
