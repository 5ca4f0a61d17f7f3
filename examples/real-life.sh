#!/usr/bin/env bash
# The real-input life, from the shell, as an agent runs memo: import the
# first 1,000 lines of a public project's dated history, answer every
# compression order exactly as printed (a deterministic stand-in joins the
# prompt's lines), wake through every part, recall, forget a block and
# rebuild it to the same bytes.
#
#   examples/real-life.sh [HISTORY_FILE [LINES]]
#     (default: tests/data/click-history.txt, its first 1,000 lines; at
#     least 32 lines, so that a block of 16 can be forgotten and rebuilt)
#
# Needs `memo` on PATH. Uses a fresh store in a temporary directory.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
history=${1:-$here/../tests/data/click-history.txt}
lines=${2:-1000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export MEMORY_DIR=$work/mem

answer_all() {
  local out blk line n=0
  out=$(memo sleep)
  # A saved answer is followed by the next order, or by the last line.
  while [ "$(printf '%s\n' "$out" | tail -1)" != "Nothing left to compress." ]; do
    blk=$(printf '%s\n' "$out" | sed -n 's/^Run: memo sleep \([0-9-]*\) - .*/\1/p')
    line=$(printf '%s\n' "$out" | sed -n 's/^  #[0-9-]* [0-9.?-]* //p' | paste -sd'|' \
           | cut -c1-250 | iconv -c -f utf-8 -t utf-8)
    out=$(memo sleep "$blk" - <<SUMMARY
$line
SUMMARY
)
    n=$((n + 1))
  done
  echo "compressions answered: $n"
}

memo init
head -"$lines" "$history" > "$work/h.txt"
memo import "$work/h.txt"
answer_all
T=$(wc -l < "$work/h.txt")
ones=0; v=$T; while [ "$v" -gt 0 ]; do ones=$((ones + v % 2)); v=$((v / 2)); done
echo "summaries on disk: $(( $(cat "$MEMORY_DIR"/TREE/* | wc -c) / 288 )) (T - popcount(T) = $((T - ones)))"
k=1; parts=0
while :; do
  part=$(memo wake $k $T); parts=$((parts + 1))
  last=$(printf '%s\n' "$part" | tail -1)
  [ "$last" = "You are awake." ] && break
  k=$(printf '%s\n' "$last" | sed -n 's/.*Run: memo wake \([0-9]*\) .*/\1/p')
done
echo "wake parts followed: $parts, last line: $last"
memo recall 'windows' | tail -1
memo recall '^#7 '
memo recall '2014-05-27' | tail -1
size=256; [ "$T" -ge 512 ] || size=16
cp "$MEMORY_DIR/TREE/$size" "$work/level.before"
memo forget "$size-$((2 * size - 1))"
answer_all
cmp "$work/level.before" "$MEMORY_DIR/TREE/$size" && echo "TREE/$size rebuilt to the same bytes"
memo check | tail -1
