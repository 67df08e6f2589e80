#!/usr/bin/env bash
# Runs the fault suite with many messages and writes a row per backend to docs/reliability.md.
#
#   scripts/soak.sh                              # every backend, N=100000
#   scripts/soak.sh nats redis N=20000           # some backends, 20,000 messages each
#   scripts/soak.sh kafka N=20000 workMs=5 slowMs=100 seed=42
#
# Backends: kafka rabbitmq nats redis sqs. Each runs its *FaultIT (failsafe) with shove.faults.messages=N and
# shove.faults.workMs (mean handler time; default 5 ms here, 50 ms in CI) and shove.faults.slowMs (the slow 10% of
# calls; default 100 ms here, 1,500 ms in CI: at 1.5 s a tenth of 100,000 messages alone would keep the consumers
# busy for hours, and at 5 ms a kill finds a handler call running anyway) as system properties; the suite kills
# consumers every 2-5 s while work remains, restarts the broker once where the IT has a broker of its own, and
# appends its figures (date, backend, messages, kills, restarts, lost, duplicates, seconds) to the table in
# docs/reliability.md. A run that breaks the invariant fails and writes no row; its results stay in /tmp.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
# shellcheck source=scripts/jdk.sh
. scripts/jdk.sh
JAVA_HOME=$(pick_jdk)
export JAVA_HOME

messages=100000
work=5
slow=100
seed=
backends=()
for arg in "$@"; do
    case "$arg" in
        N=*) messages=${arg#N=} ;;
        workMs=*) work=${arg#workMs=} ;;
        slowMs=*) slow=${arg#slowMs=} ;;
        seed=*) seed=${arg#seed=} ;;
        kafka | rabbitmq | nats | redis | sqs) backends+=("$arg") ;;
        *)
            echo "usage: scripts/soak.sh [kafka|rabbitmq|nats|redis|sqs ...] [N=100000] [workMs=5] [slowMs=100] [seed=S]" >&2
            exit 2
            ;;
    esac
done
if [ ${#backends[@]} -eq 0 ]; then
    backends=(kafka rabbitmq nats redis sqs)
fi

rows="$here/target/soak-rows.md"
mkdir -p target
: >"$rows"
status=0
for backend in "${backends[@]}"; do
    case "$backend" in
        kafka) it=KafkaFaultIT ;;
        rabbitmq) it=RabbitMqFaultIT ;;
        nats) it=NatsFaultIT ;;
        redis) it=RedisFaultIT ;;
        sqs) it=SqsFaultIT ;;
    esac
    case "$backend" in
        nats | redis) ;; # the IT starts a server of its own
        # kafka and rabbitmq ITs start a broker of their own too, from what `up` installs (RabbitMQ, the Kafka jars);
        # `up` leaves a running shared broker alone
        *) scripts/brokers.sh up "$backend" ;;
    esac
    echo "soak: $backend, $messages messages"
    extra=()
    if [ -n "$seed" ]; then
        extra+=("-Dshove.faults.seed=$seed")
    fi
    if ! ./mvnw -B -ntp -q verify -pl "backend-$backend" -am -Djapicmp.skip -Dmaven.javadoc.skip \
        -Dspotless.check.skip=true -Dtest=none -Dit.test="$it" -Dsurefire.failIfNoSpecifiedTests=false \
        -Dfailsafe.failIfNoSpecifiedTests=false -Dshove.faults.messages="$messages" -Dshove.faults.workMs="$work" \
        -Dshove.faults.slowMs="$slow" \
        -Dshove.faults.rows="$rows" "${extra[@]}"; then
        echo "soak: $backend FAILED (see backend-$backend/target/failsafe-reports/)" >&2
        status=1
    fi
    grep -rh "fault suite $backend:" "backend-$backend/target/failsafe-reports/" 2>/dev/null \
        | sed 's/.*\(fault suite\)/\1/' | sort -u || true
done

# the rows go at the end of the figures table, before its end marker
if [ -s "$rows" ]; then
    python3 - "$rows" docs/reliability.md <<'PY'
import sys
rows = open(sys.argv[1]).read()
path = sys.argv[2]
text = open(path).read()
marker = "<!-- soak rows end -->"
if marker not in text:
    sys.exit(path + " has no '" + marker + "' line")
open(path, "w").write(text.replace(marker, rows + marker, 1))
PY
    echo "soak: rows added to docs/reliability.md"
fi
exit $status
