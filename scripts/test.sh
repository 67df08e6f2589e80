#!/usr/bin/env bash
# The project's one full test command: picks a JDK >= 21, starts the brokers the integration tests need,
# and runs the whole build (unit tests, the conformance kit on every backend, integration tests).
#
#   scripts/test.sh                 # everything
#   scripts/test.sh -pl core        # extra arguments go to Maven
#
# Environment: SHOVE_IT_REQUIRED (default true here: a missing broker fails the run), SHOVE_BROKERS
# (brokers to start; default: those the integration tests use), JAVA_HOME (used when it is >= 21),
# SHOVE_TEST_THREADS (modules built side by side, default 2: each backend's tests use a broker of their own kind, and
# every test that restarts or kills a broker starts its own instance, so two modules' tests never share one).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

# shellcheck source=scripts/jdk.sh
source scripts/jdk.sh

JAVA_HOME=$(pick_jdk)
export JAVA_HOME
export SHOVE_IT_REQUIRED="${SHOVE_IT_REQUIRED:-true}"
echo "test.sh: JDK $(java_major "$JAVA_HOME") at $JAVA_HOME; SHOVE_IT_REQUIRED=$SHOVE_IT_REQUIRED"

brokers="${SHOVE_BROKERS-rabbitmq kafka nats redis redis-cluster sqs}"
if [ -n "$brokers" ]; then
    # shellcheck disable=SC2086
    scripts/brokers.sh up $brokers
fi

exec ./mvnw -B -ntp -T "${SHOVE_TEST_THREADS:-2}" verify "$@"
