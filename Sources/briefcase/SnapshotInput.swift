import BriefcaseDatastore
import BriefcaseJSON
import BriefcaseKit

/// Reading a datastore snapshot document (`x.snapshot.json`, gzip too) as a briefcase: the
/// original one when this tool wrote the document, else one inferred from the datastore.
enum SnapshotInput {
    static func load(_ path: String) throws -> (document: BriefcaseDocument, codePage: CodePage) {
        let imported = try GzipInput.read(path, as: .snapshot).decoding { (bytes) throws(BriefcaseError) in try SnapshotImport(parsing: bytes) }
        for warning in imported.warnings { Console.warning("\(path): \(warning)") }
        return (imported.document, imported.codePage)
    }
}
