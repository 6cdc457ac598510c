#!/usr/bin/env bash
# Regenerates tests/data/occupancy_table.csv from NVIDIA's cuda_occupancy.h.
# Needs g++ and `pip install nvidia-cuda-runtime-cu12==12.9.79` (header only).
set -euo pipefail
cd "$(dirname "$0")/.."
INC=$(python3 -c "import nvidia, os; print([os.path.join(p, 'cuda_runtime', 'include') for p in nvidia.__path__ if os.path.isfile(os.path.join(p, 'cuda_runtime', 'include', 'cuda_occupancy.h'))][0])")
g++ -O1 -std=c++17 -I"$INC" tools/occupancy_table.cpp -o /tmp/occupancy_table
/tmp/occupancy_table > tests/data/occupancy_table.csv
wc -l tests/data/occupancy_table.csv
