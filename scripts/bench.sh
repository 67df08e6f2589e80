#!/usr/bin/env bash
# Runs a throughput benchmark of shove side by side with the raw client (the real broker, or in memory).
#
#   scripts/bench.sh all [key=value ...]         # every harness below, then one table (see "all" further down)
#   scripts/bench.sh memory [key=value ...]      # in-memory backend, no broker: e.g. scripts/bench.sh memory runs=3
#   scripts/bench.sh kafka [key=value ...]       # e.g. scripts/bench.sh kafka runs=3 records=300000 modes=abcdefgp
#                                                # (also builds benchmarks-parallel-consumer, the peer of mode p)
#   scripts/bench.sh rabbitmq [key=value ...]    # e.g. scripts/bench.sh rabbitmq runs=3 messages=50000
#   scripts/bench.sh nats [key=value ...]        # e.g. scripts/bench.sh nats runs=3 messages=100000
#   scripts/bench.sh sqs [key=value ...]         # SQS/SNS emulator: e.g. scripts/bench.sh sqs runs=3 messages=20000
#   scripts/bench.sh redis [key=value ...]       # e.g. scripts/bench.sh redis runs=3 messages=100000
#   scripts/bench.sh latency broker=B [...]      # publish -> handler latency, B one of memory kafka rabbitmq nats redis sqs
#   scripts/bench.sh scale [key=value ...]       # in memory: startup, idle CPU, heap and threads with 1, 100, 1000 registrations
#                                                # (uri=kafka://127.0.0.1:9092: the same on a broker, 1 and 100 registrations)
#   scripts/bench.sh summary                     # gathers the reports under target/bench/ into summary.md and .json
#
# Starts the broker if it is not running (scripts/brokers.sh), builds the benchmarks module and its dependencies
# (without tests), and runs the harness. Arguments after the broker name go to the harness (see its Javadoc). Every
# harness writes its report to target/bench/<harness>.json and .md (scale on a broker: scale-<scheme>).
#
# `all` clears target/bench/, starts every broker, builds once, runs every harness one after another with runs=3 and
# the sizes in ALL_* below (sized for about half an hour on 2 cores), each with its console output in
# target/bench/<harness>.log, then BenchSummary (target/bench/summary.md and .json: one table of every target, met or
# not). A harness that fails, times out (SHOVE_BENCH_STEP_TIMEOUT, default 20m) or writes no report leaves
# target/bench/<harness>.failed, is listed as failed in the summary, and makes `all` exit non-zero after the others
# ran. Arguments after `all` go to every harness after its own sizes, so they win: e.g. a quick check of the wiring,
#   scripts/bench.sh all runs=1 messages=5000 records=20000 seqRecords=2000 registrations=1,10 idle=2
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
reports=$here/target/bench

# The sizes `all` runs each harness with (runs=3 for each): chosen so the whole run takes about 30 minutes on the
# project's 2-core machines; each harness's report says them in its setup line.
ALL_MEMORY=(messages=500000)
ALL_KAFKA=()
ALL_RABBITMQ=(messages=30000)
ALL_NATS=(messages=50000)
ALL_REDIS=(messages=100000)
ALL_SQS=(messages=10000)
ALL_SCALE=(registrations=1,100,1000 idle=10 settle=20)
ALL_SCALE_KAFKA=(uri=kafka://127.0.0.1:9092 registrations=1,100 idle=10 settle=5)
ALL_LATENCY_BROKERS=(memory kafka rabbitmq nats redis sqs)
# The SQS emulator cannot take a saturation phase (the SNS fan-out floods it: a raw maximum of ~7 msg/s, 70 messages
# measured); it handles 200 msg/s end to end, so latency-sqs is offered 100 msg/s.
ALL_LATENCY_SQS=(rate=200)

broker=${1:-}
case "$broker" in
    all) main= ;;
    summary) main=dev.shove.benchmarks.BenchSummary ;;
    memory) main=dev.shove.benchmarks.MemoryBenchmark ;;
    kafka) main=dev.shove.benchmarks.KafkaBenchmark ;;
    rabbitmq) main=dev.shove.benchmarks.RabbitMqBenchmark ;;
    nats) main=dev.shove.benchmarks.NatsBenchmark ;;
    sqs) main=dev.shove.benchmarks.SqsBenchmark ;;
    redis) main=dev.shove.benchmarks.RedisBenchmark ;;
    scale) main=dev.shove.benchmarks.ScaleBenchmark ;;
    latency)
        main=dev.shove.benchmarks.LatencyBenchmark
        # the broker named by broker= is the one to start; the report is latency-<broker>
        target=
        for arg in "${@:2}"; do
            case "$arg" in
                broker=*) target=${arg#broker=} ;;
            esac
        done
        case "$target" in
            memory) ;;
            kafka | rabbitmq | nats | redis | sqs) scripts/brokers.sh up "$target" ;;
            *)
                echo "usage: scripts/bench.sh latency broker=memory|kafka|rabbitmq|nats|redis|sqs [key=value ...]" >&2
                exit 2
                ;;
        esac
        ;;
    *)
        echo "usage: scripts/bench.sh all|memory|kafka|rabbitmq|nats|redis|sqs|scale|summary [key=value ...]" >&2
        exit 2
        ;;
esac
shift

if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/java" ]; then
    JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
export JAVA_HOME

# Builds what every harness needs, once.
# Builds the benchmarks module (and what it needs, without tests); with "kafka", also Parallel Consumer's module: it
# needs kafka-clients 3.7, so it lives outside the root build, and KafkaBenchmark runs it as a child JVM from its
# classpath (mode p). Packaged only, never installed.
build() {
    ./mvnw -B -q -ntp -pl benchmarks -am package dependency:build-classpath \
        -DskipTests -DskipITs -Dspotless.check.skip=true -Dmdep.outputFile=target/classpath.txt
    if [ "${1:-}" = kafka ]; then
        ./mvnw -B -q -ntp -f benchmarks-parallel-consumer/pom.xml package dependency:build-classpath \
            -Dmdep.outputFile=target/classpath.txt
    fi
}

# The JVM a harness runs in. SHOVE_BENCH_JAVA_OPTS adds JVM options, e.g.
# -XX:StartFlightRecording=filename=bench.jfr to profile.
java_command() {
    # shellcheck disable=SC2206
    java=("$JAVA_HOME/bin/java" -Xmx2g ${SHOVE_BENCH_JAVA_OPTS:-} "-Dshove.bench.dir=$reports"
        -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)")
}

# step NAME MAIN [ARG ...]: runs one harness of `all`, which must write target/bench/NAME.json; on failure leaves
# target/bench/NAME.failed with the reason, for the summary.
failures=()
step() {
    local name=$1 main=$2
    shift 2
    local started=$SECONDS status reason=
    echo
    echo "=== $name: ${main##*.} $* ($(date -u +%H:%M:%S), $(uptime | sed 's/.*load/load/'))"
    echo "${main##*.} $*" >"$reports/$name.log"
    set +e
    timeout --kill-after=30s "${SHOVE_BENCH_STEP_TIMEOUT:-20m}" "${java[@]}" "$main" "$@" 2>&1 \
        | tee -a "$reports/$name.log"
    status=${PIPESTATUS[0]}
    set -e
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        reason="timed out after ${SHOVE_BENCH_STEP_TIMEOUT:-20m} (exit status $status)"
    elif [ "$status" -ne 0 ]; then
        reason="exit status $status"
    elif [ ! -f "$reports/$name.json" ]; then
        reason="exited 0 but wrote no report $name.json"
    fi
    if [ -n "$reason" ]; then
        # the first error the harness printed, if any, says more than its exit status
        local error
        error=$(grep -m1 -E 'Exception|Error' "$reports/$name.log" | cut -c1-200 || true)
        echo "$reason${error:+: $error} (log: target/bench/$name.log)" >"$reports/$name.failed"
        failures+=("$name")
        echo "=== $name FAILED: $reason (see target/bench/$name.log); going on with the others"
    else
        echo "=== $name done in $((SECONDS - started)) s"
    fi
}

if [ "$broker" = all ]; then
    echo "scripts/bench.sh all: $(date -u), $(uptime | sed 's/.*load/load/')"
    rm -rf "$reports"
    mkdir -p "$reports"
    scripts/brokers.sh up kafka rabbitmq nats redis sqs
    build kafka
    java_command
    b=dev.shove.benchmarks
    step memory $b.MemoryBenchmark runs=3 "${ALL_MEMORY[@]}" "$@"
    step kafka $b.KafkaBenchmark runs=3 "${ALL_KAFKA[@]}" "$@"
    step rabbitmq $b.RabbitMqBenchmark runs=3 "${ALL_RABBITMQ[@]}" "$@"
    step nats $b.NatsBenchmark runs=3 "${ALL_NATS[@]}" "$@"
    step redis $b.RedisBenchmark runs=3 "${ALL_REDIS[@]}" "$@"
    step sqs $b.SqsBenchmark runs=3 "${ALL_SQS[@]}" "$@"
    step scale $b.ScaleBenchmark runs=3 "${ALL_SCALE[@]}" "$@"
    step scale-kafka $b.ScaleBenchmark runs=3 "${ALL_SCALE_KAFKA[@]}" "$@"
    for latency in "${ALL_LATENCY_BROKERS[@]}"; do
        extra=()
        [ "$latency" = sqs ] && extra=("${ALL_LATENCY_SQS[@]}")
        step "latency-$latency" $b.LatencyBenchmark "broker=$latency" runs=3 "${extra[@]}" "$@"
    done
    echo
    "${java[@]}" $b.BenchSummary
    echo "scripts/bench.sh all: ended $(date -u), $(uptime | sed 's/.*load/load/'), ${SECONDS} s"
    if [ ${#failures[@]} -gt 0 ]; then
        echo "scripts/bench.sh all: ${#failures[@]} harness(es) failed: ${failures[*]} (logs in target/bench/)" >&2
        exit 1
    fi
    exit 0
fi

if [ "$broker" != memory ] && [ "$broker" != scale ] && [ "$broker" != summary ] && [ "$broker" != latency ]; then
    scripts/brokers.sh up "$broker"
fi
if [ "$broker" = scale ]; then
    for arg in "$@"; do
        case "$arg" in
            uri=*://*) scheme=${arg#uri=}; scripts/brokers.sh up "${scheme%%://*}" ;;
        esac
    done
fi
if [ "$broker" != summary ] || [ ! -f benchmarks/target/classpath.txt ]; then
    build "$broker"
fi
java_command
mkdir -p "$reports"
# a new report of this harness replaces what an earlier `all` said of it
name=$broker
[ "$broker" = latency ] && name=latency-$target
for arg in "$@"; do
    case "$arg" in
        uri=*://*) [ "$broker" = scale ] && scheme=${arg#uri=} && name=scale-${scheme%%://*} ;;
    esac
done
rm -f "$reports/$name.failed"
exec "${java[@]}" "$main" "$@"
