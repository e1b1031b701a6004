#!/usr/bin/env bash
# Print the size of each file given, or of the current folder's files.
set -euo pipefail

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=(*)
fi

for f in "${files[@]}"; do
  if [ -f "$f" ]; then
    printf '%8d %s\n' "$(wc -c < "$f")" "$f"
  fi
done
