#!/usr/bin/env bash
# The real-input life, from the shell, as an agent runs memo: import the
# first 1,000 lines of a public project's dated history, answer every
# compression order exactly as printed (a deterministic stand-in joins the
# prompt's lines), wake through every part, recall, forget a block and
# rebuild it to the same bytes.
#
#   examples/real-life.sh [HISTORY_FILE]    (default: tests/data/click-history.txt)
#
# Needs `memo` on PATH. Uses a fresh store in a temporary directory.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
history=${1:-$here/../tests/data/click-history.txt}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export MEMORY_DIR=$work/mem

answer_all() {
  local out blk line n=0
  out=$(memo sleep)
  while [ "$out" != "Nothing left to compress." ]; do
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
head -1000 "$history" > "$work/h.txt"
memo import "$work/h.txt"
answer_all
echo "summaries on disk: $(( $(cat "$MEMORY_DIR"/TREE/* | wc -c) / 288 )) (T - popcount(T) = 994)"
k=1; T=1000; parts=0
while :; do
  part=$(memo wake $k $T); parts=$((parts + 1))
  last=$(printf '%s\n' "$part" | tail -1)
  [ "$last" = "You are awake." ] && break
  k=$(printf '%s\n' "$last" | sed -n 's/^Run: memo wake \([0-9]*\) .*/\1/p')
done
echo "wake parts followed: $parts, last line: $last"
memo recall 'windows' | tail -1
memo recall '^#7 '
memo recall '2014-05-27' | tail -1
cp "$MEMORY_DIR/TREE/256" "$work/256.before"
memo forget 256-511
answer_all
cmp "$work/256.before" "$MEMORY_DIR/TREE/256" && echo "TREE/256 rebuilt to the same bytes"
memo check | tail -1
