#!/usr/bin/env bash
# One whole measuring run on a lent many-core machine (Python and torch there, no Rust): the
# machine, the empty-loop cost of the pool, the thread tests, the bench table at 1-16
# threads, the rows that decide scaling timed alone, and exp/sin/copy by array offset.
# Each part has its own timeout and writes under $OUT, so a cut run still returns what it
# measured. Prepare here, from the repository root (about 25 minutes of builds on 2 cores):
#
#     bash ../shared/device/stage                           # the extension, in .device/site
#     cargo bench --bench dispatch --no-run --profile quick  # prints the binary's path
#     strip -o .device/dispatch target/quick/deps/dispatch-HASH && xz .device/dispatch
#
# (xz: the working tree that travels is limited to 64 MiB and the extension takes 36 MB),
# then run with carry [".device"]:  BUDGET=390 bash scripts/device_bench.sh
# (about 2 minutes on the 16-core Xeon of 2026-11-30; BUDGET caps the bench's seconds).
set -u
D=$PWD/.device
OUT=${OUT:-/tmp/device_bench}
mkdir -p "$OUT"
export PYTHONPATH=$D/site PYTHONUNBUFFERED=1 CRITERION_HOME=/tmp/criterion
BUDGET=${BUDGET:-390}
t0=$(date +%s)
elapsed() { echo $(($(date +%s) - t0)); }
left() {
    local l=$((BUDGET - $(elapsed)))
    [ "$l" -lt 5 ] && l=5
    echo "$l"
}
{
    date -u
    nproc
    lscpu | head -30
    cat /proc/loadavg
    python3 -c "import ferroiter, torch, numpy; ferroiter.show_config(); print('torch', torch.__version__, torch.__config__.parallel_info()); print('numpy', numpy.__version__)"
} > "$OUT/env.txt" 2>&1
if [ -f "$D/dispatch.xz" ]; then
    xz -dc "$D/dispatch.xz" > /tmp/dispatch && chmod +x /tmp/dispatch
    timeout 40 /tmp/dispatch --bench --noplot --warm-up-time 0.3 --measurement-time 1 > "$OUT/dispatch.txt" 2>&1
    echo "dispatch rc=$? $(elapsed)s"
    grep -E "^dispatch|time:" "$OUT/dispatch.txt" | paste - - | sed 's/  */ /g'
fi
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/test_threads.py tests/test_concurrency.py > "$OUT/pytest.txt" 2>&1
echo "pytest rc=$? $(elapsed)s"
tail -3 "$OUT/pytest.txt"
timeout 60 python3 scripts/bench_offsets.py > "$OUT/offsets.txt" 2>&1
echo "offsets rc=$? $(elapsed)s"
cat "$OUT/offsets.txt"
timeout "$(left)" python3 -m ferroiter bench --threads 1,2,4,8,16 --repeat 1 --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1
echo "bench rc=$? $(elapsed)s"
cat "$OUT/bench.txt"
timeout "$(left)" python3 scripts/bench_alone.py --threads 1,4,8,16 > "$OUT/alone.txt" 2>&1
echo "alone rc=$? $(elapsed)s"
cat "$OUT/alone.txt"
