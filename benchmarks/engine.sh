#!/usr/bin/env bash
# Engine speed: uniformly random games on one core for 2, 3 and 4 players, compared in the same
# run with RLCard's UNO game core when rlcard is installed (pip install rlcard==1.2.0).
#   benchmarks/engine.sh [SECONDS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/bootstrap
exec .venv/bin/gotown bench --seconds "${1:-10}"
