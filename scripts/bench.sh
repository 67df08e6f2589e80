#!/usr/bin/env bash
# Runs a throughput benchmark of shove side by side with the raw client (the real broker, or in memory).
#
#   scripts/bench.sh memory [key=value ...]      # in-memory backend, no broker: e.g. scripts/bench.sh memory runs=3
#   scripts/bench.sh kafka [key=value ...]       # e.g. scripts/bench.sh kafka runs=3 records=300000
#   scripts/bench.sh rabbitmq [key=value ...]    # e.g. scripts/bench.sh rabbitmq runs=3 messages=50000
#   scripts/bench.sh nats [key=value ...]        # e.g. scripts/bench.sh nats runs=3 messages=100000
#   scripts/bench.sh sqs [key=value ...]         # SQS/SNS emulator: e.g. scripts/bench.sh sqs runs=3 messages=20000
#   scripts/bench.sh redis [key=value ...]       # e.g. scripts/bench.sh redis runs=3 messages=100000
#   scripts/bench.sh latency broker=B [...]      # publish -> handler latency, B one of memory kafka rabbitmq nats redis sqs
#   scripts/bench.sh scale [key=value ...]       # in memory: startup, idle CPU, heap and threads with 1, 100, 1000 registrations
#                                                # (uri=kafka://127.0.0.1:9092: the same on a broker, 1 and 100 registrations)
#
# Starts the broker if it is not running (scripts/brokers.sh), builds the benchmarks module and its dependencies
# (without tests), and runs the harness. Arguments after the broker name go to the harness (see its Javadoc).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

broker=${1:-}
case "$broker" in
    memory) main=dev.shove.benchmarks.MemoryBenchmark ;;
    kafka) main=dev.shove.benchmarks.KafkaBenchmark ;;
    rabbitmq) main=dev.shove.benchmarks.RabbitMqBenchmark ;;
    nats) main=dev.shove.benchmarks.NatsBenchmark ;;
    sqs) main=dev.shove.benchmarks.SqsBenchmark ;;
    redis) main=dev.shove.benchmarks.RedisBenchmark ;;
    scale) main=dev.shove.benchmarks.ScaleBenchmark ;;
    latency)
        main=dev.shove.benchmarks.LatencyBenchmark
        # the broker named by broker= is the one to start below
        target=
        for arg in "${@:2}"; do
            case "$arg" in
                broker=*) target=${arg#broker=} ;;
            esac
        done
        case "$target" in
            memory | kafka | rabbitmq | nats | redis | sqs) broker=$target ;;
            *)
                echo "usage: scripts/bench.sh latency broker=memory|kafka|rabbitmq|nats|redis|sqs [key=value ...]" >&2
                exit 2
                ;;
        esac
        ;;
    *)
        echo "usage: scripts/bench.sh memory|kafka|rabbitmq|nats|redis|sqs|scale [key=value ...]" >&2
        exit 2
        ;;
esac
shift

if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/java" ]; then
    JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
export JAVA_HOME

if [ "$broker" != memory ] && [ "$broker" != scale ]; then
    scripts/brokers.sh up "$broker"
fi
if [ "$broker" = scale ]; then
    for arg in "$@"; do
        case "$arg" in
            uri=*://*) scheme=${arg#uri=}; scripts/brokers.sh up "${scheme%%://*}" ;;
        esac
    done
fi
./mvnw -B -q -ntp -pl benchmarks -am package dependency:build-classpath \
    -DskipTests -DskipITs -Dspotless.check.skip=true -Dmdep.outputFile=target/classpath.txt
# SHOVE_BENCH_JAVA_OPTS adds JVM options, e.g. -XX:StartFlightRecording=filename=bench.jfr to profile.
# shellcheck disable=SC2086
exec "$JAVA_HOME/bin/java" -Xmx2g ${SHOVE_BENCH_JAVA_OPTS:-} -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" "$main" "$@"
