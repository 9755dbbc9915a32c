#!/usr/bin/env bash
# Runs two builds of `briefcase` over the same inputs and compares what each gives: the output's
# bytes (a folder file by file), standard output, standard error and the exit status. The proof a
# refactor needs ("nothing a user sees changes"). Exits 1 at the first difference, printing it.
#
# usage: Scripts/same-bytes.sh OLD_BRIEFCASE NEW_BRIEFCASE [BRIEFCASE_BENCH [SIZE,SIZE…]]
#
# Inputs: every fixture, the real samples (../shared/briefcase-samples, when there), the
# regression inputs (Fixtures/regressions), 400 mutants of the fixtures (seeded, the same each
# run), and — with BRIEFCASE_BENCH — the bench's generated data at each SIZE (default 10MB) in
# both profiles. Conversions: to json, snapshot, folder, sqlite and dabriefcase, and json and
# snapshot back (snapshot to a folder too), each with --jobs 1, 2 and 3.
set -u
old=$(realpath "$1") new=$(realpath "$2") bench=${3:+$(realpath "$3")} sizes=${4:-10MB}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/same-bytes.XXXXXX")
trap 'rm -rf "$work"' EXIT
checked=0
# Differences a change meant, as "INPUT-NAME TARGET: why" (they are printed, not failed).
intended=(
    "unsafe-names.daBriefcase sqlite: fbf3eb2, one pairing rule (Spec/bin2.md §8.10): the second table named orders takes edits, so its note is gone"
)

# run BIN ARGS…: the command's stdout, stderr and status into $work/run-{out,err,status}.
run() {
    local bin=$1; shift
    "$bin" "$@" >"$work/run-out" 2>"$work/run-err"
    echo $? >"$work/run-status"
}

# same OUTPUT ARGS…: runs both builds with ARGS (OUTPUT, when not -, is what they write) and
# compares everything they give.
same() {
    local output=$1; shift
    rm -rf "$output"
    run "$old" "$@"
    mkdir -p "$work/old"; rm -rf "$work/old/"*
    for part in out err status; do mv "$work/run-$part" "$work/old/$part"; done
    [ "$output" != - ] && [ -e "$output" ] && mv "$output" "$work/old/output"
    run "$new" "$@"
    for part in out err status; do
        if ! cmp -s "$work/run-$part" "$work/old/$part"; then
            echo "DIFFERENT $part: briefcase $*"; diff <(head -c 2000 "$work/old/$part") <(head -c 2000 "$work/run-$part") | head -20
            exit 1
        fi
    done
    if [ "$output" != - ]; then
        if [ -e "$output" ] || [ -e "$work/old/output" ]; then
            if ! diff -r "$work/old/output" "$output" >/dev/null 2>&1; then
                local why="" known
                for known in "${intended[@]}"; do
                    case "$known" in "$(basename "$2") ${output##*.}:"*) why=${known#*: } ;; esac
                done
                if [ -z "$why" ]; then echo "DIFFERENT output: briefcase $*"; exit 1; fi
                echo "different as intended: briefcase $*: $why"
            fi
        fi
    fi
    checked=$((checked + 1))
}

inputs=("$root"/Fixtures/*.daBriefcase "$root"/Fixtures/orders.bin2)
for sample in "$root"/../shared/briefcase-samples/*.daBriefcase; do [ -f "$sample" ] && inputs+=("$sample"); done
if [ -n "$bench" ]; then
    for size in ${sizes//,/ }; do
        for profile in default delta-heavy; do
            data="$work/bench-$size-$profile.daBriefcase"
            "$bench" generate --size "$size" --profile "$profile" --output "$data" >/dev/null || exit 1
            inputs+=("$data")
        done
    done
fi

for input in "${inputs[@]}"; do
    name=$(basename "$input")
    for jobs in 1 2 3; do
        for target in json snapshot.json briefcase sqlite daBriefcase; do
            same "$work/out.$target" convert "$input" "$work/out.$target" --jobs "$jobs"
        done
        # json and snapshot back to a briefcase (written by the new build, kept for this).
        if "$new" convert "$input" "$work/back.json" --jobs "$jobs" --force 2>/dev/null; then
            same "$work/back.daBriefcase" convert "$work/back.json" "$work/back.daBriefcase" --jobs "$jobs"
        fi
        if "$new" convert "$input" "$work/back.snapshot.json" --jobs "$jobs" --force --ignore-limits 2>/dev/null; then
            same "$work/back.daBriefcase" convert "$work/back.snapshot.json" "$work/back.daBriefcase" --jobs "$jobs"
            same "$work/back.briefcase" convert "$work/back.snapshot.json" "$work/back.briefcase" --jobs "$jobs"
        fi
    done
    same - validate "$input"
    same - info "$input"
    echo "same: $name"
done

for input in "$root"/Fixtures/regressions/*/*; do
    case "$input" in *.md) continue ;; esac
    same - validate "$input"
    same - info "$input"
    same "$work/out.json" convert "$input" "$work/out.json"
done
echo "same: regression inputs"

# mutants SEED COUNT MOST DIGITS OUTDIR FILE…: COUNT copies of the FILEs in turn, each with 1 to
# MOST bytes changed (to a digit half the time when DIGITS is "digits"), the same every run.
mutants() {
    python3 - "$@" <<'EOF'
import random, sys, os
seed, count, most, digits, out, files = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "digits", sys.argv[5], sys.argv[6:]
rng = random.Random(seed)
os.makedirs(out, exist_ok=True)
for n in range(count):
    path = files[n % len(files)]
    data = bytearray(open(path, "rb").read())
    for _ in range(rng.randint(1, most)):
        at = rng.randrange(len(data))
        data[at] = rng.choice(b"0123456789") if digits and rng.random() < 0.5 else rng.randrange(256)
    open(f"{out}/{n:03d}-{os.path.basename(path)}", "wb").write(data)
EOF
}

# 400 mutants: a few bytes of a fixture changed.
mutants 25 400 4 bytes "$work/mutants" "$root"/Fixtures/*.daBriefcase
for input in "$work"/mutants/*; do
    same - validate "$input"
    same "$work/out.json" convert "$input" "$work/out.json"
done
echo "same: 400 mutants"

# 200 mutants of snapshot documents (the new build's, of two fixtures), read back to a briefcase
# (what is refused, refused alike).
mkdir -p "$work/snapshots"
for fixture in orders.bin2 all-types.daBriefcase; do
    "$new" convert "$root/Fixtures/$fixture" "$work/snapshots/$fixture.snapshot.json" --force >/dev/null 2>&1 || exit 1
done
mutants 29 200 3 digits "$work/snapshot-mutants" "$work"/snapshots/*.snapshot.json
for input in "$work"/snapshot-mutants/*; do
    same "$work/out.daBriefcase" convert "$input" "$work/out.daBriefcase"
done
echo "same: 200 snapshot mutants"
echo "all the same: $checked runs compared"
