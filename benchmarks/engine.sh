#!/usr/bin/env bash
# Engine speed: uniformly random games on one core for 2, 3 and 4 players, compared in the same
# run with RLCard's UNO game core when rlcard is installed (pip install rlcard==1.2.0); first
# with the engine's sources, then with the engine compiled by mypyc (scripts/build-engine),
# where this machine can compile it. benchmarks/engine_builds.py alternates the two builds.
#   benchmarks/engine.sh [SECONDS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/bootstrap
GOTOWN_PURE=1 .venv/bin/gotown bench --seconds "${1:-10}"
if bash scripts/build-engine; then
    PYTHONPATH=build/compiled-engine exec .venv/bin/gotown bench --seconds "${1:-10}"
fi
