#!/usr/bin/env bash
# Throughput benchmark: the shaper against a pass-through Kafka Streams app, on one local broker.
#
#   shaper-bench/run-benchmark.sh                      full run: 2,000,000 records, 10,000 keys, 4 partitions, 3 runs
#   shaper-bench/run-benchmark.sh --quick              smoke run: 200,000 records, one round of 20,000 warm-up records
#   shaper-bench/run-benchmark.sh --records=500000 --guarantees=exactly_once_v2,at_least_once
#   shaper-bench/run-benchmark.sh --help               all options (dev.shaper.bench.BenchmarkOptions)
#
# Each app type runs in a JVM of its own, started at its first measurement and kept warm for the whole run;
# the broker, the input loader and the output counter run in the benchmark's JVM (--app.jvm=shared puts the
# apps there too, as before).
#
# Environment:
#   BENCH_JAVA_OPTS  JVM options of the benchmark JVM (default: -Xms4g -Xmx4g -XX:+AlwaysPreTouch: a heap
#                    that grows during the run makes the apps pay the kernel for zeroing fresh pages, up to a
#                    quarter of a stream thread's time in a profile, and the app that allocates more pays more)
#   BENCH_APP_JAVA_OPTS  JVM options of the apps' JVMs (default: -Xms2g -Xmx2g -XX:+AlwaysPreTouch), e.g. to
#                    attach a profiler to them
#   BENCH_JFR=1      record a JFR profile of the benchmark's JVM (broker, loader, counter; the apps too only with
#                    --app.jvm=shared) to shaper-bench/target/benchmark.jfr; profile the apps' JVMs through
#                    BENCH_APP_JAVA_OPTS, with %p in the file name (see shaper-bench/README.md)
#   BENCH_BROKER     "embedded" (default: in-JVM KRaft broker) or "auto" (a Testcontainers broker if Docker runs)
#   MVN, MVN_ARGS    the Maven command and extra Maven arguments (e.g. MVN_ARGS=-o)
#
# The results table is printed and written to shaper-bench/target/benchmark-results.txt.
set -euo pipefail

module="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$module")"
cd "$root"

args=()
for a in "$@"; do
  case "$a" in
    --quick) args+=(--records=200000 --warmup.records=20000 --warmup.rounds=1) ;;
    --help|-h) sed -n '2,25p' "$0"; args+=(--help) ;;
    *) args+=("$a") ;;
  esac
done

# -am compiles the shaper and shaper-test-support in the same reactor, so the classpath names their target/classes
# (the project's own modules are neither read from ~/.m2 nor installed there); the bench-classpath profile writes it.
echo "building the shaper and the benchmark ..."
cp_file="$module/target/bench-classpath.txt"
rm -f "$cp_file"
${MVN:-mvn} -q ${MVN_ARGS:-} -pl shaper-bench -am -P bench-classpath process-classes
classpath="$(tr -d '\n' < "$cp_file")"

java_opts=(${BENCH_JAVA_OPTS:--Xms4g -Xmx4g -XX:+AlwaysPreTouch})
if [[ "${BENCH_JFR:-0}" == 1 ]]; then
  java_opts+=("-XX:StartFlightRecording=filename=$module/target/benchmark.jfr,settings=profile,dumponexit=true")
fi
java_opts+=("-Dlogback.configurationFile=$module/logback-bench.xml")
if [[ "${BENCH_BROKER:-embedded}" == embedded ]]; then
  java_opts+=(-Dshaper.test.broker=embedded)
fi

if [[ -n "${BENCH_APP_JAVA_OPTS:-}" ]]; then
  args=("--app.jvm.opts=$BENCH_APP_JAVA_OPTS" ${args[@]+"${args[@]}"})
fi

exec java "${java_opts[@]}" -cp "$classpath" dev.shaper.bench.ThroughputBenchmark \
  --results.file="$module/target/benchmark-results.txt" --state.dir="$module/target/bench-state" ${args[@]+"${args[@]}"}
