#!/usr/bin/env bash
# Builds the DocC documentation of every library product (swift-docc-plugin) and fails on any
# docc warning or on any public symbol without a summary (README, "Use the library").
#
#   Scripts/docs.sh                 the targets of every library product in Package.swift
#   Scripts/docs.sh TARGET...       only these
#
# The archives land in .build/plugins/Swift-DocC/outputs/TARGET.doccarchive (open one with
# `swift package --disable-sandbox preview-documentation --target TARGET`).
#
# "A summary" is a doc comment of the symbol's own: the symbol graph that docc reads must give
# every public symbol declared in Sources/ a non-empty doc comment from its own module. What the
# compiler declares by itself (an enum's `init(rawValue:)`, `!=` from Equatable) has no place in
# the sources and is not counted; docc's own coverage table (`--experimental-documentation-coverage`,
# documentation-coverage.json in each archive) counts it too, so it never reads 100 %.
# Needs python3 for that check.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -gt 0 ]; then
  targets=("$@")
else
  # A product added later is documented and checked without editing this script.
  mapfile -t targets < <(swift package describe --type json | python3 -c '
import json, sys
package = json.load(sys.stdin)
seen = []
for product in package["products"]:
    if "library" in product["type"]:
        seen += [t for t in product["targets"] if t not in seen]
print("\n".join(seen))')
  [ ${#targets[@]} -gt 0 ] || { echo "docs: no library product found in Package.swift" >&2; exit 1; }
fi

failed=0
for target in "${targets[@]}"; do
  log=$(mktemp)
  ok=1
  if ! swift package generate-documentation --target "$target" \
      --experimental-skip-synthesized-symbols --warnings-as-errors \
      --experimental-documentation-coverage --coverage-summary-level none >"$log" 2>&1; then
    cat "$log" >&2
    echo "docs: $target: docc failed" >&2
    failed=1
    rm -f "$log"
    continue
  fi
  if grep -q -E '(^|: )(warning|error):' "$log"; then
    grep -E -A8 '(^|: )(warning|error):' "$log" >&2
    echo "docs: $target: docc reported problems" >&2
    ok=0
  fi
  graphs=(.build/*/extracted-symbols/*/"$target"/*.symbols.json)
  if ! python3 - "$target" "$PWD" "${graphs[@]}" <<'EOF'
import json, sys
target, root, files = sys.argv[1], sys.argv[2], sys.argv[3:]
missing = []
for path in files:
    for symbol in json.load(open(path))["symbols"]:
        location = symbol.get("location")
        if not location or "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
            continue  # declared by the compiler, not in our sources
        if symbol["kind"]["identifier"] == "swift.extension":
            continue  # an extension block is no API of its own (docc counts none); its members are checked
        comment = symbol.get("docComment")
        own = comment and comment.get("module", target) == target
        text = [line["text"].strip() for line in comment["lines"] if line["text"].strip()] if own else []
        if text and not text[0].startswith("- "):  # a summary, not only `- Parameter` callouts
            continue
        file = location["uri"].removeprefix("file://").removeprefix(root + "/")
        missing.append(f"{file}:{location['position']['line'] + 1}: {'/'.join(symbol['pathComponents'])} has no summary")
for line in sorted(set(missing)):
    print(line, file=sys.stderr)
if not files:
    print(f"docs: {target}: no symbol graph found", file=sys.stderr)
sys.exit(1 if missing or not files else 0)
EOF
  then
    echo "docs: $target: public symbols without a summary (above)" >&2
    ok=0
  fi
  rm -f "$log"
  if [ $ok = 1 ]; then
    echo "docs: $target: ok (.build/plugins/Swift-DocC/outputs/$target.doccarchive)"
  else
    failed=1
  fi
done
exit $failed
