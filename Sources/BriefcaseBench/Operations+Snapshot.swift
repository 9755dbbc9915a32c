import BriefcaseDatastore
import BriefcaseKit

/// The snapshot document of a briefcase, for the snapshot → dabriefcase measurement (written
/// by `make-snapshot` in a process of its own).
enum SnapshotBench {
    static func write(_ input: String, to snapshot: String, jobs: Int) throws {
        BriefcaseElements.keepFreedMemoryForReuse()
        let written = try SnapshotExport.stream(try BriefcaseElements.open(input, as: .dabriefcase), into: FileSink(path: snapshot),
                                                encoding: nil, jobs: jobs)
        written.sink.close()
    }
}
