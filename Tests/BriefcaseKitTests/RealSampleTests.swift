import BriefcaseTestSupport
import Testing
@testable import BriefcaseKit

/// The two real files written by Data Abstract for .NET (read from ../shared, never copied).
@Suite(.enabled(if: TestPaths.samplesPresent, "../shared/briefcase-samples is absent"))
struct RealSampleTests {
    @Test(arguments: TestPaths.sampleNames)
    func decodeAndReencodeIsByteExact(name: String) throws {
        let bytes = try #require(TestPaths.sample(name))
        var warnings: [DecodingWarning] = []
        let file = try BriefcaseFileCodec.decode(bytes, warnings: &warnings)
        #expect(warnings.isEmpty)
        #expect(try BriefcaseFileCodec.encode(file) == bytes)
    }

    /// Facts from the reference notes (briefcase-format.md §7), checked independently of our writer.
    @Test func resourcesSampleLayout() throws {
        let bytes = try #require(TestPaths.sample("capraynor-Resources-Properties.daBriefcase"))
        #expect(bytes.count == 5628)
        let index = try ElementIndex.read(bytes, streamStart: 16)
        #expect(index.indexPosition == 5561)
        #expect(index.positionBase == 0)
        #expect(index.entries.map(\.kind) == [.delta, .table, .table])
        #expect(index.entries.map { $0.name.utf8String } == ["CourseInfo", "CourseInfo", "BJTABLE"])
        #expect(index.entries.map(\.range.lowerBound) == [28, 285, 1792])

        let file = try BriefcaseFileCodec.decode(bytes)
        #expect(file.properties.isEmpty)
        let delta = try #require(file.stream.elements[0].asDelta)
        let courseInfo = try #require(file.stream.elements[1].asTable)
        let bjtable = try #require(file.stream.elements[2].asTable)
        #expect(delta.changes.count == 3)
        #expect(delta.reducedDeltaFlag == 1)
        #expect(delta.keyFields.isEmpty)
        // GBK "课程名称" = bf ce b3 cc c3 fb b3 c6, datWideString (11).
        #expect(delta.loggedFields[0].name.array == [0xbf, 0xce, 0xb3, 0xcc, 0xc3, 0xfb, 0xb3, 0xc6])
        #expect(delta.loggedFields[0].type == .wideString)
        #expect(delta.changes.map(\.recordID) == [1100, 1101, 1102])
        #expect(delta.changes.allSatisfy { $0.type == .insert && $0.status == .pending })
        #expect(delta.changes[0].oldValues == [nil, nil])
        if case .wideString(let s) = delta.changes[0].newValues[1] {
            #expect(WideText.decode(s) == "2013021202")
        } else { Issue.record("expected a wide string") }

        #expect(courseInfo.rows.isEmpty)
        #expect(courseInfo.schema?.fieldPropertyCount == 29)
        #expect(courseInfo.schema?.fields.count == 2)
        #expect(courseInfo.schema?.fields[0].value(named: "Name") == "课程名称")
        #expect(courseInfo.schema?.fields[0].value(named: "DataType") == "datWideString")
        #expect(courseInfo.schema?.parameterPropertyCount == 12)

        #expect(bjtable.rows.count == 12)
        // "4 fields: 2 × datDecimal, 2 × datWideString" (briefcase-format.md §7).
        #expect(bjtable.fields.filter { $0.type == .decimal }.count == 2)
        #expect(bjtable.fields.filter { $0.type == .wideString }.count == 2)
    }

    /// `bb 12 03 00 …` = 201403 with scale 0 (bin2-format.md §4).
    @Test func decimalValuesReadExactly() throws {
        let bytes = try #require(TestPaths.sample("capraynor-Resources-Properties.daBriefcase"))
        let file = try BriefcaseFileCodec.decode(bytes)
        let table = try #require(file.stream.table(named: "bjtable"))
        let decimals = table.rows.compactMap { row -> String? in
            if case .decimal(let d) = row[0] { return d.description } else { return nil }
        }
        #expect(decimals.count == 12)
        #expect(decimals.allSatisfy { $0.allSatisfy(\.isNumber) })
        let all = table.rows.flatMap { $0 }.compactMap { value -> Decimal96? in
            if case .decimal(let d) = value { return d } else { return nil }
        }
        #expect(all.contains(Decimal96(low: 0x0003_12bb, mid: 0, high: 0, flags: 0)))
        #expect(Decimal96(low: 0x0003_12bb, mid: 0, high: 0, flags: 0).description == "201403")
    }
}
