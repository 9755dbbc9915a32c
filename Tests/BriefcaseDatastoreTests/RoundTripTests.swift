import Foundation
import Testing
import BriefcaseTestSupport
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit
@testable import BriefcaseDatastore

/// briefcase → snapshot document → briefcase gives back the same bytes.
struct RoundTripTests {
    @Test(arguments: validFixtureNames)
    func fixtureRoundTripIsByteExact(name: String) throws {
        let loaded = try fixture(name)
        let (export, _, back) = try roundTrip(loaded)
        #expect(back.restored)
        #expect(back.warnings.isEmpty, "\(back.warnings)")
        #expect(back.document == loaded.document)
        #expect(try back.document.encode() == loaded.bytes)
        // The snapshot and its deltas are a valid datastore history.
        let document = try export.snapshotDocument()
        _ = try document.appliedSnapshot()
        #expect(export.summary.limitViolations.isEmpty)
    }

    @Test(.enabled(if: SamplePaths.samplesPresent, "../shared/briefcase-samples is absent"), arguments: SamplePaths.sampleNames)
    func realSampleRoundTripIsByteExact(name: String) throws {
        let bytes = try #require(SamplePaths.sample(name))
        let loaded = try load(bytes, name: name)
        #expect(loaded.codePage.name == "gbk")
        let (export, text, back) = try roundTrip(loaded)
        #expect(back.restored)
        #expect(back.warnings.isEmpty, "\(back.warnings)")
        #expect(try back.document.encode() == bytes)
        #expect(export.summary.warnings.isEmpty, "\(export.summary.warnings)")
        let document = try export.snapshotDocument()
        let applied = try document.appliedSnapshot()
        // CourseInfo has no stored rows and only pending inserts: they become I changes.
        let course = (document.deltas ?? []).flatMap(\.changes).filter { $0.tableID == "CourseInfo" }
        #expect(!course.isEmpty && course.allSatisfy { $0.tag == "I" })
        #expect(applied.recordCount == document.snapshot.recordCount + course.count)
        #expect(text.hasPrefix("{\"rev\":1,\"rows\":[\n"))
    }
}
