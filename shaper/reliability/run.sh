#!/usr/bin/env bash
# The heavy reliability runs (dev.shaper.reliability.*Run), through the `reliability` Maven profile: full sizes
# by default, or smaller ones.
#
#   shaper/reliability/run.sh                        every run at full size: 10 M distinct keys, 1 M queued records,
#                                                    a 30-minute soak with a kill every 5 minutes (about 45 minutes)
#   shaper/reliability/run.sh --smoke                every run at a size that takes a minute or two each
#   shaper/reliability/run.sh --runs=SoakRun --soak.minutes=12 --soak.kill.minutes=2.5
#   shaper/reliability/run.sh --runs=DistinctKeysRun,QueuedRecordsRun --keys=2000000
#
# Options (each also a -Dreliability.<name>=... system property of the runs; see each class's Javadoc):
#   --runs=A,B               which runs (class names; default: all of them)
#   --keys=N                 DistinctKeysRun: distinct keys (10000000)
#   --keys.records=N         DistinctKeysRun: records per key, sent in rounds over all keys (2)
#   --keys.partitions=N      DistinctKeysRun: input partitions (32)
#   --keys.child.opts="..."  DistinctKeysRun: the shaper's JVM options (-Xmx512m -XX:+ExitOnOutOfMemoryError)
#   --queued.keys=N          QueuedRecordsRun: keys (1000)
#   --queued.per.key=N       QueuedRecordsRun: records queued per key (1000)
#   --soak.minutes=M         SoakRun: duration (30)
#   --soak.kill.minutes=M    SoakRun: SIGKILL interval (5)
#   --soak.keys=N            SoakRun: keys (200)
#   --soak.rate=N            SoakRun: rate per key and second (10)
#   --sample.ms=N            how often the shaper's RSS, heap and gauges are sampled (5000)
#   --setting.<key>=<value>  a shaper setting on top of the run's (e.g. --setting.shaper.state.rocksdb.memory.bytes=0)
#   --<name>=<value>         any other reliability.<name> property
#
# Environment: MVN, MVN_ARGS (the Maven command and extra arguments, e.g. MVN_ARGS=-o), RELIABILITY_HEAP (the
# runs' JVM heap, default 6g; the shaper itself runs in a child JVM with its own options).
#
# The figures of each run are printed and appended to shaper/target/reliability/figures.txt (emptied at the
# start); each run's shaper log and state directory are under shaper/target/reliability/<run>/.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
module="$(dirname "$here")"
root="$(dirname "$module")"
cd "$root"

runs=""
props=()
for a in "$@"; do
  case "$a" in
    --help|-h) sed -n '2,30p' "$0"; exit 0 ;;
    --smoke) props+=(-Dreliability.keys=200000 -Dreliability.queued.keys=100 -Dreliability.queued.per.key=200
                     -Dreliability.soak.minutes=1.5 -Dreliability.soak.kill.minutes=0.5 -Dreliability.soak.keys=20
                     -Dreliability.sample.ms=2000) ;;
    --runs=*) runs="${a#--runs=}" ;;
    --*=*) name="${a%%=*}"; props+=("-Dreliability.${name#--}=${a#*=}") ;;
    *) echo "unknown argument: $a (see --help)" >&2; exit 2 ;;
  esac
done

figures="$module/target/reliability/figures.txt"
mkdir -p "$(dirname "$figures")"
: > "$figures"

# The shaper module and, with -am, the shaper-test-support it needs (read from the working tree, not from ~/.m2).
# The profile is the shaper's: shaper-test-support only builds and runs its quick unit tests.
mvn_cmd=(${MVN:-mvn} -B ${MVN_ARGS:-} -pl shaper -am verify -Preliability -Dshaper.test.broker=embedded
         -Dreliability.heap="${RELIABILITY_HEAP:-6g}" "-Dreliability.figures=$figures")
if [[ -n "$runs" ]]; then
  # The other modules built with -am (shaper-feedback) have integration tests of their own, none of them named here.
  mvn_cmd+=("-Dit.test=$runs" -Dfailsafe.failIfNoSpecifiedTests=false)
fi
echo "${mvn_cmd[*]} ${props[*]+${props[*]}}"
status=0
"${mvn_cmd[@]}" ${props[@]+"${props[@]}"} || status=$?

echo
echo "Figures ($figures):"
cat "$figures"
exit $status
