# Sourced by the scripts that run Java: pick_jdk prints a JDK >= 21 (JAVA_HOME when it is one, else the first found).
# shellcheck shell=bash

# java_major JAVA_HOME: the feature release of that JDK (17, 21, 25, ...).
java_major() {
    "$1/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}'
}

pick_jdk() {
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ "$(java_major "$JAVA_HOME")" -ge 21 ]; then
        echo "$JAVA_HOME"
        return
    fi
    local candidate
    for candidate in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
        if [ -x "$candidate/bin/java" ] && [ "$(java_major "$candidate")" -ge 21 ]; then
            echo "$candidate"
            return
        fi
    done
    echo "$(basename "$0"): no JDK 21 or newer found; install one or set JAVA_HOME" >&2
    exit 1
}
