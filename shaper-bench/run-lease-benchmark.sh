#!/usr/bin/env bash
# Lease coordination at scale: N simulated instances lease the capacity through the real lease script on a
# redis-server started for each N (see shaper-bench/README.md).
#
#   shaper-bench/run-lease-benchmark.sh                          N = 10, 100, 300, 1000: about 2.5 minutes
#   shaper-bench/run-lease-benchmark.sh --instances=10,100 --phase.ms=2000
#   shaper-bench/run-lease-benchmark.sh --help                   all options (dev.shaper.bench.lease.LeaseBenchOptions)
#
# Environment: BENCH_JAVA_OPTS (default -Xms512m -Xmx512m), MVN and MVN_ARGS as for run-benchmark.sh.
# The table is printed and written to shaper-bench/target/lease-bench-results.md.
set -euo pipefail

module="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$module")"
cd "$root"

echo "building the shaper and the benchmark ..."
cp_file="$module/target/bench-classpath.txt"
rm -f "$cp_file"
${MVN:-mvn} -q ${MVN_ARGS:-} -pl shaper-bench -am -P bench-classpath process-classes
classpath="$(tr -d '\n' < "$cp_file")"

# redis-server writes its log under the working directory's target/
cd "$module"
exec java ${BENCH_JAVA_OPTS:--Xms512m -Xmx512m} -Dlogback.configurationFile="$module/logback-bench.xml" \
  -cp "$classpath" dev.shaper.bench.lease.LeaseBenchmark --results.file="$module/target/lease-bench-results.md" "$@"
