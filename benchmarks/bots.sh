#!/usr/bin/env bash
# Reproduces the strength table of benchmarks/bots.md (two cores; times in docs/research/).
# Usage: benchmarks/bots.sh [GAMES] [EXPERT_GAMES]
# Interrupted (`expert`'s 1,000-game rows take hours), the same command goes on where it
# stopped: a row whose file is incomplete is resumed (--resume), any other is played anew.
set -euo pipefail
cd "$(dirname "$0")/.."
GOTOWN=${GOTOWN:-.venv/bin/gotown}
# The engine and the search compiled by mypyc where this machine can (the same moves as the
# sources, so the same results; the think times are those of the compiled build).
if bash scripts/build-engine; then
  export PYTHONPATH="$PWD/build/compiled-engine${PYTHONPATH:+:$PYTHONPATH}"
fi
GAMES=${1:-1000}  # games per pairing
EXPERT_GAMES=${2:-1000}
out=benchmarks/bots-results
mkdir -p "$out"
incomplete() {
  [[ -f $1 ]] && .venv/bin/python -c \
    'import json, sys; sys.exit(json.load(open(sys.argv[1])).get("complete") is not False)' "$1"
}
run() {
  local name=$1; shift
  local resume=()
  if incomplete "$out/$name.json"; then resume=(--resume); fi
  echo "== gotown tournament $* ${resume[*]} ($(date -u +%H:%M:%S) UTC)"
  /usr/bin/time -f "%e s wall" "$GOTOWN" tournament "$@" --no-progress "${resume[@]}" \
    --json "$out/$name.json" --plot "$out/$name.png"
}
run easy-random   easy random   --games "$GAMES"
run medium-random medium random --games "$GAMES"
run medium-easy   medium easy   --games "$GAMES"
run hard-medium   hard medium   --games "$GAMES"
run hard-random   hard random   --games "$GAMES"
run hard-3medium  hard medium --players 4 --games "$GAMES"
run expert-medium expert medium --games "$EXPERT_GAMES"
run expert-hard   expert hard   --games "$EXPERT_GAMES"
# The bots on one scale, from the two-player files just written (benchmarks/scale.py).
.venv/bin/python benchmarks/scale.py --plot "$out/scale.png" \
  "$out"/{easy-random,medium-random,medium-easy,hard-medium,hard-random,expert-medium,expert-hard}.json
echo "== done ($(date -u +%H:%M:%S) UTC)"
