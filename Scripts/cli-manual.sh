#!/usr/bin/env bash
# Writes the help texts into the CLI manual (docs/cli.md): each `<!-- briefcase help COMMAND -->`
# (or `<!-- briefcase --help -->`) line is followed by a ```text block holding exactly what that
# command prints, 80 columns wide. Run it after changing a command's help; the test
# `CLIManualTests` (Tests/BriefcaseCLITests) fails while the manual and the tool differ.
#
#   Scripts/cli-manual.sh            builds the tool (debug) and rewrites the blocks
#   Scripts/cli-manual.sh --check    exits 1 when a block differs, rewriting nothing
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product briefcase >/dev/null
bin="$(swift build --show-bin-path)/briefcase"
COLUMNS=80 python3 - "$bin" docs/cli.md "${1:-}" <<'PY'
import re, subprocess, sys
binary, path, mode = sys.argv[1], sys.argv[2], sys.argv[3]
lines = open(path, encoding="utf-8").read().split("\n")
out, i, stale = [], 0, []
while i < len(lines):
    line = lines[i]
    out.append(line)
    marker = re.fullmatch(r"<!-- (briefcase [^>]*) -->", line.strip())
    i += 1
    if not marker:
        continue
    arguments = marker.group(1).split()[1:]
    text = subprocess.run([binary] + arguments, capture_output=True, text=True, check=True).stdout.rstrip("\n")
    block = ["```text"] + text.split("\n") + ["```"]
    if i < len(lines) and lines[i] == "```text":   # the block there now, replaced
        end = lines.index("```", i + 1)
        if lines[i:end + 1] != block:
            stale.append(marker.group(1))
        i = end + 1
    else:
        stale.append(marker.group(1))
    out += block
if mode == "--check":
    for name in stale:
        print(f"docs/cli.md: the block after <!-- {name} --> is not what the tool prints", file=sys.stderr)
    sys.exit(1 if stale else 0)
open(path, "w", encoding="utf-8").write("\n".join(out))
for name in stale:
    print(f"docs/cli.md: wrote {name}")
PY
