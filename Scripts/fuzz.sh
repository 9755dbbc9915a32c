#!/usr/bin/env bash
# Builds and runs one libFuzzer target (Spec/robustness.md).
#
#   Scripts/fuzz.sh TARGET SECONDS [LIBFUZZER-OPTION...]   fuzz TARGET for SECONDS
#   Scripts/fuzz.sh --list                                 the targets, one per line
#   Scripts/fuzz.sh --probe                                exit 0 when this toolchain can build fuzzers
#   Scripts/fuzz.sh --build TARGET                         only build TARGET
#
# Targets (harnesses in Fuzz/TARGET.swift, sharing Fuzz/Support/):
#   briefcase  single-file briefcases: decode, round trips, validate, lazy Briefcase from a file
#   bin2       bare Bin2 streams
#   plist      a folder briefcase's Properties.plist (XML and binary)
#   json       the JSON document: parser, writer, JSONDocumentDecoder, round trips
#   snapshot   datastore snapshot documents (DatastoreKit); merged (SnapshotMerge) with a prefix of
#              their own deltas: no trap; with an unchanged side, the other side
#   gzip       gzip input (Gzip.decompress, GzipDecompressor)
#   gzipstream a gzip file inflated chunk by chunk into a temporary file (SpooledInput), as the CLI reads it
#   stdin      standard input as the CLI reads it (SpooledInput of "-": gzip by content, shape checks)
#   sqlite     a database file as convert reads it (SQLiteSource: the mapping's tables, edits as changes)
#   sqliteedit random SQL edits (DML, DDL, the mapping's own tables) of an exported fixture, read back:
#              a clean refusal, or a briefcase that encodes and validates
#   diff       two briefcases compared every way (BriefcaseComparison): no trap; each with itself: none
#   fold       a briefcase folded each way (BriefcaseFold): no trap, no delta left, folds again to itself;
#              its changes applied to it and to its fold (BriefcaseApply), merged with them
#              (ThreeWayMerge): no trap; merged with itself, no conflict
#
# The libraries are compiled with swiftc directly (one module each, -O, -sanitize=fuzzer,address),
# into .build-fuzz/ (git-ignored; FUZZ_BUILD_DIR overrides), and rebuilt only when their sources
# change. The corpus: .build-fuzz/corpus/TARGET (grows, kept between runs), seeded from
# Fuzz/corpus/TARGET/ (committed seeds), Fixtures/regressions/TARGET/ (inputs that once crashed
# it) and, for briefcase and bin2, Fixtures/
# (gzip: the fixtures gzipped). libFuzzer runs in one process with -timeout=1 -rss_limit_mb=2048;
# a crash, a hang, or a memory blow-up makes it exit non-zero, and so does this script; the
# input is saved in .build-fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(briefcase bin2 plist json snapshot gzip gzipstream stdin sqlite sqliteedit diff fold)
BUILD="${FUZZ_BUILD_DIR:-.build-fuzz}"
SWIFTC="${SWIFTC:-swiftc}"
FLAGS=(-sanitize=fuzzer,address -O -g -parse-as-library -swift-version 6 -package-name briefcase)  # (`package` declarations, as SwiftPM compiles them)

hash_stdin() {
  if command -v sha256sum > /dev/null; then sha256sum; else shasum -a 256; fi | cut -d' ' -f1
}

usage() {
  sed -n '3,8p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

deps_of() {
  case "$1" in
    # (Fuzz/Support checks round trips through the JSON document, so all need BriefcaseJSON.)
    briefcase|bin2|plist|json|gzip|gzipstream|stdin) echo "JSONCore BriefcaseKit BriefcaseJSON" ;;
    snapshot) echo "JSONCore BriefcaseKit BriefcaseJSON DatastoreKit BriefcaseMerge" ;;
    sqlite|sqliteedit) echo "JSONCore BriefcaseKit BriefcaseJSON BriefcaseSQLite" ;;
    diff) echo "JSONCore BriefcaseKit BriefcaseJSON BriefcaseDiff" ;;
    fold) echo "JSONCore BriefcaseKit BriefcaseJSON DatastoreKit BriefcaseMerge" ;;
    *) return 1 ;;
  esac
}

# Can this toolchain build and run a libFuzzer binary at all? (CI skips fuzzing when not.)
probe() {
  local dir="$BUILD/probe"
  mkdir -p "$dir"
  cat > "$dir/probe.swift" <<'EOF'
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt { 0 }
EOF
  if ! "$SWIFTC" -sanitize=fuzzer,address -parse-as-library "$dir/probe.swift" -o "$dir/probe" > "$dir/log" 2>&1; then
    echo "fuzz: this toolchain cannot build libFuzzer targets ($SWIFTC -sanitize=fuzzer,address failed):" >&2
    tail -n 5 "$dir/log" >&2
    return 1
  fi
  if ! "$dir/probe" -runs=1 > "$dir/log" 2>&1; then
    echo "fuzz: a libFuzzer binary built by this toolchain does not run:" >&2
    tail -n 5 "$dir/log" >&2
    return 1
  fi
}

# build_module NAME DEPENDENCIES...: Sources/NAME/**/*.swift -> $BUILD/modules/NAME.swiftmodule
# and $BUILD/obj/NAME.o, unless the sources, flags and dependencies are unchanged.
build_module() {
  local name="$1"; shift
  local sources
  mapfile -t sources < <(find "Sources/$name" -name '*.swift' | LC_ALL=C sort)
  [ ${#sources[@]} -gt 0 ] || { echo "fuzz: no sources in Sources/$name" >&2; return 1; }
  local stamp
  stamp=$( { echo "${FLAGS[*]}"; "$SWIFTC" --version 2>&1; cat "${sources[@]}";
             for dep in "$@"; do cat "$BUILD/obj/$dep.stamp"; done; } | hash_stdin)
  if [ -f "$BUILD/obj/$name.o" ] && [ "$(cat "$BUILD/obj/$name.stamp" 2>/dev/null)" = "$stamp" ]; then
    return 0
  fi
  echo "fuzz: compiling $name (${#sources[@]} files)" >&2
  rm -f "$BUILD/obj/$name.stamp"
  "$SWIFTC" "${FLAGS[@]}" -module-name "$name" -wmo -num-threads 0 \
    -emit-module -emit-module-path "$BUILD/modules/$name.swiftmodule" \
    -I "$BUILD/modules" -I Sources/CZlib -I Sources/CSystemShims/include -I Sources/CSQLite \
    -c "${sources[@]}" -o "$BUILD/obj/$name.o.tmp"
  mv "$BUILD/obj/$name.o.tmp" "$BUILD/obj/$name.o"
  echo "$stamp" > "$BUILD/obj/$name.stamp"
}

build_target() {
  local target="$1" deps
  deps=$(deps_of "$target") || { echo "fuzz: unknown target '$target' (${TARGETS[*]})" >&2; exit 2; }
  mkdir -p "$BUILD/modules" "$BUILD/obj" "$BUILD/bin"
  # One build at a time (several targets may be started together); released when done.
  exec 9> "$BUILD/build.lock"
  command -v flock > /dev/null && flock 9
  local built=() objects=() dep source object
  # The small C target the library calls (renameat2, the JSON item scan), compiled with the same sanitizers.
  for source in Sources/CSystemShims/*.c; do
    object="$BUILD/obj/CSystemShims-$(basename "$source" .c).o"
    objects+=("$object")
    if [ ! -f "$object" ] || [ "$source" -nt "$object" ] || [ Sources/CSystemShims/include -nt "$object" ]; then
      "${CLANG:-clang}" -O1 -g -fsanitize=fuzzer-no-link,address -I Sources/CSystemShims/include \
        -c "$source" -o "$object"
    fi
  done
  for dep in $deps; do
    build_module "$dep" "${built[@]}"
    built+=("$dep")
    objects+=("$BUILD/obj/$dep.o")
  done
  local harness=("Fuzz/$target.swift" Fuzz/Support/*.swift)
  local binary="$BUILD/bin/$target"
  local newest
  newest=$(ls -t "${harness[@]}" "${objects[@]}" | head -n 1)
  if [ ! -x "$binary" ] || [ "$newest" -nt "$binary" ]; then
    echo "fuzz: linking $target" >&2
    # (gold warns once per ASan assembly stub that it "cannot export local symbol": noise.)
    if ! "$SWIFTC" "${FLAGS[@]}" -module-name "Fuzz_$target" -I "$BUILD/modules" -I Sources/CZlib -I Sources/CSystemShims/include \
         -I Sources/CSQLite "${harness[@]}" "${objects[@]}" -lz -lm $([[ "$target" == sqlite* ]] && echo -lsqlite3) -o "$binary.tmp" > "$BUILD/bin/$target.log" 2>&1; then
      cat "$BUILD/bin/$target.log" >&2
      return 1
    fi
    grep -v "Cannot export local symbol" "$BUILD/bin/$target.log" >&2 || true
    mv "$binary.tmp" "$binary"
  fi
  exec 9>&-
}

# The seed folder for TARGET: what libFuzzer reads besides the growing corpus.
seeds_of() {
  local target="$1" dir="$BUILD/seeds/$1"
  rm -rf "$dir"
  mkdir -p "$dir"
  # Inputs that once crashed this target (Fixtures/regressions/README.md).
  if [ -d "Fixtures/regressions/$target" ]; then cp "Fixtures/regressions/$target"/* "$dir"/; rm -f "$dir/README.md"; fi
  case "$target" in
    briefcase|bin2|fold) cp Fixtures/*.daBriefcase Fixtures/*.bin2 "$dir"/ ;;
    diff)
      # Two fixtures end to end, cut where the first ends (its length, little-endian, first).
      local f g n
      for f in Fixtures/*.daBriefcase; do
        for g in Fixtures/all-types.daBriefcase Fixtures/nulls.daBriefcase; do
          n=$(wc -c < "$f")
          { printf "\\x$(printf %02x $((n & 255)))\\x$(printf %02x $(((n >> 8) & 255)))"; cat "$f" "$g"; } > "$dir/$(basename "$f" .daBriefcase)-$(basename "$g")"
        done
      done ;;
    stdin)
      # A selector byte first (0 any, 1 JSON, 2 DABRC, 3 DABIN200), then what standard input holds.
      local f
      for f in Fuzz/corpus/json/*; do { printf '\001'; cat "$f"; } > "$dir/$(basename "$f")"; done
      for f in Fuzz/corpus/snapshot/*; do { printf '\001'; cat "$f"; } > "$dir/snapshot-$(basename "$f")"; done
      for f in Fixtures/*.daBriefcase; do { printf '\002'; cat "$f"; } > "$dir/$(basename "$f")"; done
      for f in Fixtures/*.bin2; do { printf '\003'; cat "$f"; } > "$dir/$(basename "$f")"; done
      for f in Fuzz/corpus/gzip/*; do { printf '\000'; cat "$f"; } > "$dir/$(basename "$f")"; done ;;
    gzip|gzipstream)
      cp Fuzz/corpus/gzip/* "$dir"/
      if command -v gzip > /dev/null; then
        for f in Fixtures/*.daBriefcase Fixtures/*.bin2; do gzip -9 -n -c "$f" > "$dir/$(basename "$f").gz"; done
      fi ;;
  esac
  echo "$dir"
}

# The whole run is one function, read before it starts: editing this file while a run is in
# progress cannot change what that run does.
main() {
  case "${1:-}" in
    --list) printf '%s\n' "${TARGETS[@]}"; return 0 ;;
    --probe) probe; return $? ;;
    --build) [ $# -eq 2 ] || usage; build_target "$2"; return 0 ;;
    ""|-h|--help) usage ;;
  esac
  [ $# -ge 2 ] || usage
  local target="$1" seconds="$2"; shift 2
  [[ "$seconds" =~ ^[0-9]+$ ]] || usage

  build_target "$target"
  local corpus="$BUILD/corpus/$target" artifacts="$BUILD/artifacts/$target" tmp="$BUILD/tmp/$target" seeds
  mkdir -p "$corpus" "$artifacts" "Fuzz/corpus/$target"
  rm -rf "$tmp"; mkdir -p "$tmp"
  seeds=$(seeds_of "$target")

  echo "fuzz: $target for ${seconds}s (corpus $corpus, seeds Fuzz/corpus/$target $seeds)" >&2
  local status=0
  # (Swift's own crash backtracer would fight ASan's; libFuzzer prints the stack.)
  FUZZ_TMPDIR="$(cd "$tmp" && pwd)" SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}" ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
    LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(pwd)/Fuzz/lsan.supp:print_suppressions=0}" \
    "$BUILD/bin/$target" \
    -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2048 -workers=1 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 "$@" \
    "$corpus" "Fuzz/corpus/$target" "$seeds" || status=$?
  rm -rf "$tmp"
  if [ $status -ne 0 ]; then
    echo "fuzz: $target FAILED (exit $status); the input is in $artifacts/" >&2
  fi
  return $status
}

main "$@"; exit $?
