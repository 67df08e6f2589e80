#!/usr/bin/env bash
# Renders the Javadoc of every published module, with the project overview, into target/reports/apidocs
# (open target/reports/apidocs/index.html). The same doclint rules as the javadoc jars apply.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

# shellcheck source=scripts/jdk.sh
source scripts/jdk.sh
JAVA_HOME=$(pick_jdk)
export JAVA_HOME

./mvnw -B -ntp -q package javadoc:aggregate -DskipTests -Djapicmp.skip=true -Dspotless.check.skip=true \
    -pl '!examples,!benchmarks' "$@"
echo "javadoc.sh: target/reports/apidocs/index.html"
