#!/usr/bin/env bash
# An ablation arm's end on the held-out sets, paired against the base and the warm start measured
# once (results/coevolution-heldout/start-SUITE.json; docs/results/coevolution.md, Held out):
# the arm's newest checkpoint at temperature 0 on the probe, reasoning-gym, BFCL single-turn and
# HumanEval, its reports in results/coevolution-heldout/ARM-SUITE.json and the per-task paired
# tables in results/coevolution-heldout/ARM.md. About 27 minutes on 2 cores; nothing beside it.
#   bash benchmarks/heldout_arm.sh frozen-designer        # --tables: the tables only, from the reports
set -euo pipefail
arm=${1:?usage: heldout_arm.sh ARM [--tables]}
run=results/coevolution-ablate/$arm
out=results/coevolution-heldout
bin=${SPADEWORK_BIN:-.venv/bin}
[ -f "$run/checkpoints/latest" ] || { echo "no checkpoint in $run: run the arm first (spadework ablate)" >&2; exit 2; }
checkpoint=$run/checkpoints/$(cat "$run/checkpoints/latest")
measure() {  # SUITE-NAME, then the suite's arguments to spadework eval
  local name=$1; shift
  "$bin/spadework" eval --config configs/experiments/coevolution.toml --policy "$checkpoint" "$@" \
    --out "$out/$arm-$name.json"
}
if [ "${2:-}" = --tables ]; then
  measured="tables from the committed reports"
else
  measured="measured $(date -u +%H:%M) UTC onward"
  measure probe --suite probe --probe configs/experiments/cpu-learning-envs --seeds 8
  measure rg --suite reasoning-gym --seeds 8
  measure bfcl --set eval.bfcl_format=native --suite bfcl --task single_turn --limit 8
  measure humaneval --suite code --limit 40
fi
{
  echo "# bash benchmarks/heldout_arm.sh $arm: benchmarks/paired_reports.py on $out/{start,$arm}-SUITE.json"
  echo "# $(date -u +%F), commit $(git rev-parse --short HEAD); $checkpoint, $measured"
  for suite in probe rg bfcl humaneval; do
    for against in base tool-learning-1.5b/warm-start; do
      echo
      echo "## $suite: $arm/$(basename "$checkpoint") against $against"
      "$bin/python" benchmarks/paired_reports.py "$out/start-$suite.json" "$out/$arm-$suite.json" --a "$against"
    done
  done
} > "$out/$arm.md"
echo "wrote $out/$arm.md"
