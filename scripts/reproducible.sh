#!/usr/bin/env bash
# Proves the build is reproducible: builds a module's jars (jar, sources jar, javadoc jar) twice from clean and
# fails unless both builds give the same bytes. Run by .ci/run; project.build.outputTimestamp makes it hold.
#
#   scripts/reproducible.sh            # core
#   scripts/reproducible.sh asyncapi   # another module
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
module="${1:-core}"

# shellcheck source=scripts/jdk.sh
source scripts/jdk.sh
JAVA_HOME=$(pick_jdk)
export JAVA_HOME

first=$(mktemp -d)
trap 'rm -rf "$first"' EXIT

build() {
    # the module's dependencies come from the reactor (-am) so that the check never reads stale installed jars
    ./mvnw -B -ntp -q clean package -pl "$module" -am -DskipTests -Dspotless.check.skip=true -Djapicmp.skip=true
}

build
cp "$module"/target/*.jar "$first"/
build

status=0
count=0
for jar in "$first"/*.jar; do
    name=$(basename "$jar")
    count=$((count + 1))
    if cmp -s "$jar" "$module/target/$name"; then
        echo "reproducible.sh: $name: identical ($(sha256sum "$jar" | cut -c1-16))"
    else
        echo "reproducible.sh: $name differs between two builds of one commit" >&2
        diff <(unzip -lv "$jar") <(unzip -lv "$module/target/$name") >&2 || true
        status=1
    fi
done
if [ "$count" -lt 3 ]; then
    echo "reproducible.sh: expected the jar, sources jar and javadoc jar of $module, found $count" >&2
    status=1
fi
exit $status
