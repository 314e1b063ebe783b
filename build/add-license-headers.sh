#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The verbs4j Authors
#
# Adds the verbs4j licence header to every .java file of the tree that lacks it:
#
#     // SPDX-License-Identifier: Apache-2.0
#     // Copyright The verbs4j Authors
#     <blank line>
#
# Usage: build/add-license-headers.sh [--check] [ROOT]
#
#   (no option)  add the header where it is missing; files that have it are left byte for byte as they are, so
#                running it twice changes nothing (idempotent)
#   --check      change nothing; list the files without the header and exit 1 if there is any
#   ROOT         the tree to walk (default: the repository this script lives in)
#
# Every module is found by walking the tree, not from a list: new modules (and new source sets such as src/jmh or
# src/it) are covered without editing this script. Build output (target/), VCS and IDE directories are skipped.
# A file whose first line is already the SPDX line but lacks the copyright line gets only the copyright line.
# Checkstyle (RegexpHeader in config/checkstyle/checkstyle.xml) fails `mvn validate` on a file without the header.
set -euo pipefail

SPDX_LINE='// SPDX-License-Identifier: Apache-2.0'
COPYRIGHT_LINE='// Copyright The verbs4j Authors'
# Accepted as an existing copyright line: this one, or the same with a year or year range.
COPYRIGHT_REGEX='^// Copyright ([0-9]{4}(-[0-9]{4})? )?The verbs4j Authors$'

check=0
root=""
for arg in "$@"; do
    case "$arg" in
        --check) check=1 ;;
        -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "add-license-headers: unknown option $arg" >&2; exit 2 ;;
        *) root="$arg" ;;
    esac
done
if [ -z "$root" ]; then
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fi

missing=0
fixed=0
total=0
while IFS= read -r -d '' file; do
    total=$((total + 1))
    first="$(head -n 1 "$file" | tr -d '\r')"
    second="$(sed -n '2p' "$file" | tr -d '\r')"
    if [ "$first" = "$SPDX_LINE" ] && [[ "$second" =~ $COPYRIGHT_REGEX ]]; then
        continue
    fi
    missing=$((missing + 1))
    if [ "$check" -eq 1 ]; then
        echo "missing licence header: ${file#"$root"/}"
        continue
    fi
    tmp="$(mktemp "${file}.hdr.XXXXXX")"
    if [ "$first" = "$SPDX_LINE" ]; then
        # SPDX line present, copyright line missing: insert it after the first line (and a blank line before code).
        if [ -z "$second" ]; then
            { head -n 1 "$file"; printf '%s\n' "$COPYRIGHT_LINE"; tail -n +2 "$file"; } >"$tmp"
        else
            { head -n 1 "$file"; printf '%s\n\n' "$COPYRIGHT_LINE"; tail -n +2 "$file"; } >"$tmp"
        fi
    elif [ -z "$first" ]; then
        # The file already starts with a blank line: no second one.
        { printf '%s\n%s\n' "$SPDX_LINE" "$COPYRIGHT_LINE"; cat "$file"; } >"$tmp"
    else
        { printf '%s\n%s\n\n' "$SPDX_LINE" "$COPYRIGHT_LINE"; cat "$file"; } >"$tmp"
    fi
    chmod --reference="$file" "$tmp" 2>/dev/null || true
    mv "$tmp" "$file"
    fixed=$((fixed + 1))
    echo "added licence header: ${file#"$root"/}"
done < <(find "$root" \
    \( -name .git -o -name target -o -name node_modules -o -name .idea -o -name .vscode -o -name .mvn \) -prune -o \
    -type f -name '*.java' -print0 | sort -z)

if [ "$check" -eq 1 ]; then
    if [ "$missing" -gt 0 ]; then
        echo "add-license-headers: $missing of $total .java files lack the header; run build/add-license-headers.sh" >&2
        exit 1
    fi
    echo "add-license-headers: all $total .java files have the header"
else
    echo "add-license-headers: $fixed of $total .java files changed"
fi
