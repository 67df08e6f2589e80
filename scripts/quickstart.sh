#!/usr/bin/env bash
# Runs the quickstart (or another example) on the in-memory broker: no broker to start, nothing to install.
#
#   scripts/quickstart.sh                          # the quickstart: a retry, then the dead-letter queue
#   scripts/quickstart.sh SequencedOrders FAIL_ALL  # another example from examples/, with its arguments
#   scripts/quickstart.sh AutoscalingGroup
#   scripts/quickstart.sh AuditedHandler
#   scripts/quickstart.sh BatchInserts             # the subscriber features: batch handlers,
#   scripts/quickstart.sh Interceptors             #   interceptors,
#   scripts/quickstart.sh DecodeFailures           #   decode-failure policies and header contracts,
#   scripts/quickstart.sh Replies                  #   replies and continuations,
#   scripts/quickstart.sh Replay                   #   seeking and start positions,
#   scripts/quickstart.sh Broadcast                #   broadcast topics,
#   scripts/quickstart.sh RawGateway               #   raw byte[] payloads
#   scripts/quickstart.sh CloudEventsGateway       # CloudEvents in, structured, and out, binary
#   scripts/quickstart.sh VersionedOrders          #   schema versions and upcasters
#   scripts/quickstart.sh DeadLetterReplay         # browsing, replaying and purging dead letters
#   scripts/quickstart.sh HealthProbes             # health and readiness probes
#   scripts/quickstart.sh AsyncApiDocument json    # the AsyncAPI document of these examples' topics
#
# Compiles the examples module and what it depends on in one reactor build (nothing goes to ~/.m2 except the
# third-party dependencies Maven downloads), then runs the example in a JVM of its own, so its exit code is the
# script's: 0 when the example did what it describes.
#
# Environment: JAVA_HOME (used when it is >= 21; otherwise the newest JDK >= 21 under /usr/lib/jvm), MAVEN_ARGS
# (extra Maven arguments, e.g. -Dmaven.repo.local=...).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

# shellcheck source=scripts/jdk.sh
source scripts/jdk.sh

example=Quickstart
if [ $# -gt 0 ]; then
    example=$1
    shift
fi
if [ ! -f "examples/src/main/java/dev/shove/examples/$example.java" ]; then
    echo "quickstart.sh: no example '$example'; choose one of:" \
        "$(cd examples/src/main/java/dev/shove/examples && ls ./*.java | sed 's:^\./::; s:\.java$::' | grep -v package-info | tr '\n' ' ')" >&2
    exit 2
fi

JAVA_HOME=$(pick_jdk)
export JAVA_HOME
if [ "$(java_major "$JAVA_HOME")" -ge 24 ]; then
    # Maven's own Guice calls sun.misc.Unsafe, which JDK 24+ reports on every run; silence it for Maven only.
    export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
fi

echo "quickstart.sh: compiling the examples with JDK $(java_major "$JAVA_HOME") (the first run downloads dependencies)" >&2
classpath_file=examples/target/runtime-classpath.txt
./mvnw -B -q -ntp -pl examples -am compile \
    org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
    -Dmdep.outputFile=target/runtime-classpath.txt -DincludeScope=runtime

exec "$JAVA_HOME/bin/java" -cp "examples/target/classes:$(cat "$classpath_file")" "dev.shove.examples.$example" "$@"
