import Foundation
import Testing
import BriefcaseKit
import BriefcaseTestSupport

/// `convert`, `validate` and `info` with datastore snapshot documents (Spec/datastore-mapping.md).
struct SnapshotCLITests {
    static let validFixtures = [
        "all-types.daBriefcase", "nulls.daBriefcase", "empty-table.daBriefcase", "empty-delta.daBriefcase",
        "gbk.daBriefcase", "orders.bin2", "unsafe-names.daBriefcase",
    ]

    static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    @Test func fixturesAndSamplesRoundTripThroughSnapshots() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var inputs = Self.validFixtures.map { CLITests.fixtures.appendingPathComponent($0).path }
        if CLITests.samplesPresent {
            inputs += SamplePaths.sampleNames.map { SamplePaths.samples.appendingPathComponent($0).path }
        }
        for input in inputs {
            let name = URL(fileURLWithPath: input).lastPathComponent
            let ext = name.hasSuffix(".bin2") ? "bin2" : "daBriefcase"
            for gzip in [false, true] {
                let snapshot = dir.appendingPathComponent(name + ".snapshot.json" + (gzip ? ".gz" : "")).path
                let back = dir.appendingPathComponent(name + (gzip ? ".gz-back." : ".back.") + ext).path
                let there = try CLITests.run(["convert", input, snapshot])
                #expect(there.status == 0, "\(name): \(there.stderr)")
                let again = try CLITests.run(["convert", snapshot, back])
                #expect(again.status == 0, "\(name): \(again.stderr)")
                #expect(Self.contents(back) == Self.contents(input), "\(name) comes back byte for byte")
            }
            let snapshot = dir.appendingPathComponent(name + ".snapshot.json").path
            let text = String(decoding: Self.contents(snapshot) ?? [], as: UTF8.self)
            #expect(text.hasPrefix("{\"rev\":"), "\(name): a get_snapshot response first")
            #expect(text.contains("\"deltas\":["))
            #expect(text.contains("\"briefcase\":{\"format\":\"briefcase-datastore\""))
        }
    }

    @Test(.enabled(if: CLITests.samplesPresent, "../shared/briefcase-samples is absent"))
    func chineseColumnNamesBecomeValidIDs() throws {
        let result = try CLITests.run(["convert", CLITests.sample, "-", "--to", "snapshot"])
        #expect(result.status == 0)
        #expect(result.text.contains(#"["I","CourseInfo","c1100",{"=6K--56iL5ZCN56ew":"1、2班C#程序设计","=6K--56iL57yW5Y-3":"2013021202"}]"#))
        #expect(result.text.contains(#"{"tid":"BJTABLE","rowid":"r0","data":{"BJID":201403.0,"BJNAME":"2014级软件工程3班","XYID":1.0,"XYNAME":"软件学院"}}"#))
    }

    /// A table with one record of 150 300 bytes (a 150 000-byte blob): over the 100 KiB record limit.
    static func bigBlobBriefcase() throws -> [UInt8] {
        let blob = ByteString((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let table = Table(name: "Pictures", schema: nil, fields: [
            FieldDescriptor(name: "ID", type: .integer), FieldDescriptor(name: "Data", type: .blob),
        ], rows: [[.integer(1), .blob(ByteString([1, 2, 3]))], [.integer(2), .blob(blob)]])
        return try BriefcaseFileCodec.encode(BriefcaseFile(stream: Bin2Stream(elements: [.table(table)])))
    }

    @Test func aRecordOver100KiBIsRefusedUnlessLimitsAreIgnored() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("big.daBriefcase").path
        let bytes = try Self.bigBlobBriefcase()
        FileManager.default.createFile(atPath: input, contents: Data(bytes))
        let output = dir.appendingPathComponent("big.snapshot.json").path

        let refused = try CLITests.run(["convert", input, output])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("element 'Pictures'"), "\(refused.stderr)")
        #expect(refused.stderr.contains(#"the record "r1" of table "Pictures" has size 150300 bytes; at most 102400 are allowed"#))
        #expect(refused.stderr.contains("--ignore-limits"))
        #expect(!FileManager.default.fileExists(atPath: output), "nothing is written")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["big.daBriefcase"], "no temporary file left")

        let written = try CLITests.run(["convert", input, output, "--ignore-limits"])
        #expect(written.status == 0)
        #expect(written.stderr.contains("warning") && written.stderr.contains("150300 bytes"))
        #expect(FileManager.default.fileExists(atPath: output))

        // validate reports the broken limit; the way back still works.
        let validation = try CLITests.run(["validate", output, "--json"])
        #expect(validation.status == 1)
        #expect(validation.text.contains("\"check\": \"datastore-limits\""))
        let back = dir.appendingPathComponent("back.daBriefcase").path
        #expect(try CLITests.run(["convert", output, back]).status == 0)
        #expect(Self.contents(back) == bytes)
    }

    @Test func validateAndInfoReadSnapshots() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let snapshot = dir.appendingPathComponent("orders.snapshot.json").path
        #expect(try CLITests.run(["convert", CLITests.fixtures.appendingPathComponent("orders.bin2").path, snapshot]).status == 0)

        let valid = try CLITests.run(["validate", snapshot])
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.text.contains("valid snapshot"))
        let info = try CLITests.run(["info", snapshot, "--json"])
        #expect(info.status == 0)
        #expect(info.text.contains("\"format\": \"snapshot\""))
        #expect(info.text.contains("\"name\": \"Orders\""))
        #expect(info.text.contains("\"changes\": 3"))

        // Standard input with --from snapshot.
        let piped = try CLITests.run(["validate", "-", "--from", "snapshot"], stdin: Self.contents(snapshot))
        #expect(piped.status == 0)

        // Broken documents: bad ids and encodings, a broken delta sequence, deltas that do not apply.
        let broken: [(String, String)] = [
            (#"{"rev":1,"rows":[{"tid":"a b","rowid":"x","data":{}}]}"#, #"$.rows[0].tid: "a b" is not a valid table id"#),
            (#"{"rev":1,"rows":[{"tid":"t","rowid":"x","data":{"n":{"I":"01"}}}]}"#, "$.rows[0].data.n.I"),
            (#"{"rev":1,"rows":[],"deltas":[{"rev":2,"changes":[],"nonce":"n"}]}"#, "$.deltas[0].rev"),
            (#"{"rev":1,"rows":[],"deltas":[{"rev":1,"changes":[["D","t","x"]],"nonce":"n"}]}"#, "$.deltas[0].changes[0]"),
            (#"{"rev":1,"rows":["#, "offset"),
        ]
        for (index, (text, expected)) in broken.enumerated() {
            let path = dir.appendingPathComponent("broken\(index).snapshot.json").path
            FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
            let result = try CLITests.run(["validate", path])
            #expect(result.status == 1, "\(text)")
            #expect(result.stderr.contains(expected), "\(result.stderr)")
            let convert = try CLITests.run(["convert", path, dir.appendingPathComponent("x\(index).daBriefcase").path])
            #expect(convert.status == 1, "\(text): \(convert.stderr)")
        }
    }

    @Test func aPlainSnapshotBecomesAValidBriefcase() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plain = """
        {"rev":3,"rows":[
        {"tid":":info","rowid":"info","data":{"mtime":{"T":"1376000000000"},"title":"Todo"}},
        {"tid":"tasks","rowid":"t1","data":{"name":"Zoë","n":{"I":"5"},"tags":["a",{"I":"1"}]}}
        ],"deltas":[
        {"rev":3,"changes":[["U","tasks","t1",{"tags":["LI",2,"b"],"n":["D"]}],["I","tasks","t2",{"name":"Bob"}]],"nonce":"abc"}
        ]}
        """
        let input = dir.appendingPathComponent("plain.snapshot.json").path
        FileManager.default.createFile(atPath: input, contents: Data(plain.utf8))
        let briefcase = dir.appendingPathComponent("plain.daBriefcase").path
        let converted = try CLITests.run(["convert", input, briefcase])
        #expect(converted.status == 0, "\(converted.stderr)")
        let validation = try CLITests.run(["validate", briefcase, "--strict"])
        #expect(validation.status == 0, "\(validation.stderr)")
        let rows = try CLITests.run(["cat", briefcase, "--table", "tasks"])
        #expect(rows.text == """
        {"rowid": "t1", "name": "Zoë", "n": null, "tags": "[\\"a\\",{\\"I\\":\\"1\\"},\\"b\\"]"}
        {"rowid": "t2", "name": "Bob", "n": null, "tags": null}

        """)
        let back = dir.appendingPathComponent("back.snapshot.json").path
        #expect(try CLITests.run(["convert", briefcase, back]).status == 0)
        let text = String(decoding: Self.contents(back) ?? [], as: UTF8.self)
        #expect(text.hasPrefix("{\"rev\":3,\"rows\":[\n"))
        #expect(text.contains(#"{"tid":"tasks","rowid":"t1","data":{"name":"Zoë","n":{"I":"5"},"tags":["a",{"I":"1"}]}}"#))
        #expect(text.contains(#"{"rev":3,"changes":[["U","tasks","t1",{"name":["P","Zoë"],"n":["D"],"tags":["P",["a",{"I":"1"},"b"]]}],["I","tasks","t2",{"name":"Bob"}]],"nonce":"abc"}"#))
        #expect(try CLITests.run(["validate", back]).status == 0)
    }
}
