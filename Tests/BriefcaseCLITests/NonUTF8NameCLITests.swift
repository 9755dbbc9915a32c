import Foundation
import Testing

/// File names that are not UTF-8 are opened as given and printed escaped (Spec/robustness.md
/// §9.4). Linux takes any bytes but `/` and NUL in a name; such names are made and checked with
/// the shell (`printf '\377'`), since Foundation's `Process` passes only UTF-8 arguments.
struct NonUTF8NameCLITests {
    static let fixture = CLITests.fixtures.appendingPathComponent("all-types.daBriefcase").path
    static let expectedJSON = CLITests.fixtures.appendingPathComponent("expected/all-types.json").path

    @Test func namesHoldingByteFFAreOpenedCreatedAndShownEscaped() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLITests.shell("""
            in=$(printf 'in\\377.daBriefcase'); out=$(printf 'out\\376.json'); folder=$(printf 'f\\375.briefcase')
            cp '\(Self.fixture)' "$in"
            "$BRIEFCASE" info "$in" > info.txt; echo "info $?"
            "$BRIEFCASE" convert "$in" "$out"; echo "convert $?"
            cmp "$out" '\(Self.expectedJSON)' && echo "same bytes"
            "$BRIEFCASE" validate "$out" "$in"; echo "validate $?"
            "$BRIEFCASE" validate "$in" --json | grep '"path"' >&2
            "$BRIEFCASE" convert "$out" "$folder"; echo "folder $?"
            "$BRIEFCASE" convert "$in" "$folder" --to folder --force; echo "replaced $?"
            "$BRIEFCASE" validate "$folder" >&2; echo "folder valid $?"
            "$BRIEFCASE" cat "$in" --table nothing; echo "cat $?"
            "$BRIEFCASE" info "$(printf 'gone\\377.json')"; echo "gone $?"
            LC_ALL=C ls -a | od -An -c | tr -s ' ' | tr -d '\\n'
            """, in: dir)
        #expect(result.text == """
            info 0
            convert 0
            same bytes
            out\\xFE.json: valid json, 0 errors, 0 warnings
            in\\xFF.daBriefcase: valid dabriefcase, 0 errors, 0 warnings
            validate 0
            folder 0
            replaced 0
            folder valid 0
            cat 2
            gone 2
             . \\n . . \\n f 375 . b r i e f c a s e \\n i n f o . t x t \\n i n 377 . d a B r i e f c a s e \\n o u t 376 . j s o n \\n
            """)
        #expect(result.stderr.contains("f\\xFD.briefcase: valid folder, 0 errors, 0 warnings\n"))
        // JSON cannot carry the byte: the path there is as CommandLine.arguments would have it.
        #expect(result.stderr.contains("{\"path\": \"in\u{FFFD}.daBriefcase\", \"format\": \"dabriefcase\", \"valid\": true"))
        #expect(result.stderr.contains("briefcase: in\\xFF.daBriefcase: no table named 'nothing' (tables: "))
        #expect(result.stderr.hasSuffix("briefcase: gone\\xFF.json: no such file\n"))
        let info = String(decoding: FileManager.default.contents(atPath: dir.appendingPathComponent("info.txt").path) ?? Data(), as: UTF8.self)
        #expect(info.hasPrefix("format: dabriefcase\n"))
    }

    /// The absurd case: an argument that is not UTF-8 next to one that already holds a character
    /// of the range standing for bytes (U+10FE80…U+10FEFF) cannot be told apart: refused at start.
    @Test func anArgumentHoldingAStandInNextToBytesIsRefused() throws {
        let result = try CLITests.shell("\"$BRIEFCASE\" validate \"$(printf 'a\\377.json')\" \"$(printf 'b\\364\\217\\272\\200.json')\"")
        #expect(result.status == 2)
        #expect(result.text.isEmpty)
        #expect(result.stderr == "briefcase: 'b\u{10FE80}.json' holds a character of U+10FE80…U+10FEFF, which stands for a byte that is not UTF-8 when another argument has one; rename the file\n")
        // Alone (every argument UTF-8), such a character is only a character: the file is looked for by that name.
        let alone = try CLITests.shell("\"$BRIEFCASE\" info \"$(printf 'b\\364\\217\\272\\200.json')\"")
        #expect(alone.status == 2)
        #expect(alone.stderr == "briefcase: b\u{10FE80}.json: no such file\n")
    }
}
