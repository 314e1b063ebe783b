#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The verbs4j Authors
#
# Checks that README.md's Java examples run as written, the way a new user would run them: installs this tree's
# artifacts, creates a scratch Maven project whose pom holds README.md's <dependency> block (the one that imports
# verbs4j-bom) and whose sources are README.md's complete programs (the ```java blocks whose first line is
# "// Name.java"), compiles it, then runs VerbsServer + VerbsClient and DataParallel (2 ranks, torchrun-style
# variables) over shm and over tcp and checks their output and exit codes.
#
#   bash build/check-readme-examples.sh
#
# Not part of ./mvnw verify: it installs. The artifacts go to a private local repository in the temporary
# directory (third-party artifacts are read from ~/.m2 through Maven's maven.repo.local.tail), so artifacts other
# builds install into ~/.m2 meanwhile cannot take their place. Everything it starts or creates (processes, the
# temporary directory, the shm provider's files in /dev/shm) is removed at exit, also on failure.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
README="$ROOT/README.md"
WORK=$(mktemp -d -t verbs4j-readme.XXXXXX)
SHM_DIR=$(mktemp -d -p /dev/shm verbs4j-readme.XXXXXX 2>/dev/null || mktemp -d -t verbs4j-readme-shm.XXXXXX)
PROJECT="$WORK/project"
REPO=(-Dmaven.repo.local="$WORK/repository" -Dmaven.repo.local.tail="$HOME/.m2/repository")
RUN_TIMEOUT=${RUN_TIMEOUT:-180}

cleanup()
{
    # only this script's own background jobs (the examples still running after a failure)
    local running
    running=$(jobs -p)
    if [ -n "$running" ]; then
        kill $running 2>/dev/null || true
        wait $running 2>/dev/null || true
    fi
    rm -rf "$WORK" "$SHM_DIR"
}
trap cleanup EXIT

fail()
{
    echo "check-readme-examples: FAILED: $*" >&2
    for log in "$PROJECT"/*.log; do
        [ -f "$log" ] && { echo "--- $(basename "$log")" >&2; cat "$log" >&2; }
    done
    exit 1
}

step()
{
    echo "check-readme-examples: $*"
}

step "installing the artifacts (./mvnw install -DskipTests, into $WORK/repository)"
(cd "$ROOT" && ./mvnw -q -B -ntp install -DskipTests "${REPO[@]}")

step "creating the scratch project $PROJECT from README.md"
mkdir -p "$PROJECT/src/main/java"
# The first ```xml block that imports verbs4j-bom: README's dependency block, verbatim.
DEPENDENCIES=$(awk '/^```xml$/ { inside = 1; block = ""; next }
    inside && /^```$/ { inside = 0; if (block ~ /<artifactId>verbs4j-bom<\/artifactId>/) { printf "%s", block; exit } next }
    inside { block = block $0 "\n" }' "$README")
[ -n "$DEPENDENCIES" ] || fail "README.md has no \`\`\`xml block that imports verbs4j-bom"
cat > "$PROJECT/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>readme-examples</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
$DEPENDENCIES
</project>
EOF
# Every ```java block whose first line is "// Name.java" is a complete program: it becomes src/main/java/Name.java.
awk -v dir="$PROJECT/src/main/java" '/^```java$/ { inside = 1; first = 1; file = ""; next }
    inside && /^```$/ { inside = 0; if (file != "") close(file); next }
    inside && first { first = 0; if ($0 ~ /^\/\/ [A-Za-z_][A-Za-z0-9_]*\.java$/) { file = dir "/" substr($0, 4) } }
    inside && file != "" { print > file }' "$README"
for program in VerbsServer VerbsClient DataParallel; do
    [ -f "$PROJECT/src/main/java/$program.java" ] || fail "README.md has no \`\`\`java block starting with // $program.java"
done
step "programs: $(cd "$PROJECT/src/main/java" && echo *.java)"

step "compiling (mvn compile dependency:build-classpath)"
(cd "$PROJECT" && "$ROOT/mvnw" -q -B -ntp compile dependency:build-classpath -Dmdep.outputFile=cp.txt "${REPO[@]}") \
    > "$PROJECT/compile.log" 2>&1 || fail "the scratch project does not compile"
CLASSPATH_LINE="$PROJECT/target/classes:$(cat "$PROJECT/cp.txt")"
# As README's commands, plus the private directory for the shm provider's files (removed at exit).
JAVA=(timeout "$RUN_TIMEOUT" java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
    -Dverbs4j.shm.dir="$SHM_DIR" -cp "$CLASSPATH_LINE")

expect()
{
    local log=$1 pattern=$2
    grep -Eq -- "$pattern" "$log" || fail "$(basename "$log") lacks a line matching '$pattern'"
}

run_verbs()
{
    local transport=$1 server_log="$PROJECT/server-$1.log" client_log="$PROJECT/client-$1.log"
    step "VerbsServer $transport + VerbsClient $transport"
    (cd "$PROJECT" && exec "${JAVA[@]}" VerbsServer "$transport") > "$server_log" 2>&1 &
    local server=$!
    for _ in $(seq 1 $((RUN_TIMEOUT * 5))); do
        grep -q '^listening on ' "$server_log" && break
        kill -0 "$server" 2>/dev/null || break
        sleep 0.2
    done
    grep -q '^listening on ' "$server_log" || fail "VerbsServer $transport did not start listening"
    (cd "$PROJECT" && "${JAVA[@]}" VerbsClient "$transport") > "$client_log" 2>&1 \
        || fail "VerbsClient $transport exited with $?"
    wait "$server" || fail "VerbsServer $transport exited with $?"
    expect "$server_log" "^listening on $transport://"
    expect "$server_log" '^RDMA WRITE wrote: hello from RDMA WRITE$'
    expect "$server_log" '^SEND carried: +hello from SEND$'
    expect "$client_log" '^work request 1 \(RDMA_WRITE\): SUCCESS$'
    expect "$client_log" '^work request 2 \(SEND\): SUCCESS$'
}

run_collectives()
{
    local transport=$1 port=$((20000 + RANDOM % 10000)) ranks=()
    local option=()
    [ "$transport" = tcp ] && option=(-Dverbs4j.collectives.transport=tcp)
    step "DataParallel, 2 ranks over $transport (MASTER_PORT $port)"
    for rank in 0 1; do
        (cd "$PROJECT" && RANK=$rank WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
            exec "${JAVA[@]}" "${option[@]}" DataParallel) > "$PROJECT/rank$rank-$transport.log" 2>&1 &
        ranks+=($!)
    done
    for rank in 0 1; do
        wait "${ranks[$rank]}" || fail "DataParallel rank $rank over $transport exited with $?"
        expect "$PROJECT/rank$rank-$transport.log" \
            "^rank $rank of 2 \(to rank $((1 - rank)) over $transport\): y = [0-9.]+ x \+ [0-9.]+, same on every rank: true$"
    done
}

for transport in shm tcp; do
    run_verbs "$transport"
    run_collectives "$transport"
done

LEFT=$(find "$SHM_DIR" -type f | head -5)
[ -z "$LEFT" ] || fail "the examples left files in the shm directory: $LEFT"
step "OK: README.md's programs compile against the installed artifacts and run over shm and tcp"
