import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The writer of folder briefcases (Spec/folder-briefcase.md): one `DABRC600` file per table,
/// named by `TableFileName`, each written through the stream writer into a temporary file that
/// replaces the old one only once complete, and `Properties.plist`. The lazy `Briefcase` and the
/// element-by-element conversion (`BriefcaseElements.writeFolder`) both write folders with it.
struct FolderWriter {
    let path: String
    /// The file name of each table, in order.
    let fileNames: [String]
    /// True when the folder existed and is written into, its files of the same names replaced;
    /// false when this writer made it (its files are all new).
    let replacing: Bool

    /// Makes the folder (and its parents); `tableNames` (as the code page shows them) name the
    /// files. An existing folder is written into only when `replacing` (the temporaries a killed
    /// write left in it removed first); else anything at `path` is `BriefcaseError.outputExists`.
    init(path: String, tableNames: [String], replacing: Bool) throws(BriefcaseError) {
        var folder = path
        while folder.count > 1 && folder.hasSuffix("/") { folder.removeLast() }
        let parent = TemporaryPaths.place(of: folder).directory
        if !FileIO.exists(parent) { _ = FileIO.makeDirectories(parent) }
        var info = stat()
        let made = mkdir(systemPath(folder), 0o777) == 0, failure = errno
        if made {
            self.replacing = false
        } else if failure == EEXIST, replacing, stat(systemPath(folder), &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            self.replacing = true
            TemporaryPaths.removeStale(in: folder, of: nil)
        } else if failure == EEXIST {
            throw BriefcaseError.outputExists(path)
        } else {
            errno = failure
            throw FileIO.ioError("cannot create the folder", path)
        }
        self.path = path
        fileNames = TableFileName.fileNames(for: tableNames)
    }

    func filePath(_ table: Int) -> String { path + "/" + fileNames[table] }

    /// Writes table `table`'s file: a single file without properties whose elements `write`
    /// writes.
    func writeTable(_ table: Int, _ write: (inout BriefcaseStreamWriter<SharedAtomicOutput>) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        try BriefcaseStreamWriter.writeFile(filePath(table), replacing: replacing, removingStale: false, write)
    }

    /// Writes `Properties.plist` (`propertiesPlist(_:codePage:)`), last: a folder is complete
    /// once it is there.
    func writeProperties(_ plist: [UInt8]) throws(BriefcaseError) {
        try FileIO.writeAtomically(plist, to: path + "/" + Briefcase.propertiesFileName, replacing: replacing, removingStale: false)
    }

    /// The `Properties.plist` of a folder briefcase. A property name that is not text in the
    /// code page (a `<key>` is text; its bytes would come back as other bytes), or holds a
    /// character XML cannot carry (a control character but tab, LF and CR: no reader could read
    /// the file back), is refused (Spec/folder-briefcase.md §4).
    static func propertiesPlist(_ properties: [BriefcaseProperty], codePage: CodePage) throws(BriefcaseError) -> [UInt8] {
        var plist: [(key: String, value: PropertiesPlist.Value)] = []
        for property in properties {
            // Values that are not reversible text, or hold characters XML cannot carry, travel as <data>.
            guard let key = codePage.decodeReversibly(property.name) else {
                throw BriefcaseError(.invalidModel, "property name \(codePage.decodeForDisplay(property.name).debugDescription) "
                                     + "(bytes \(property.name.bytes.map { String(format: "%02X", $0) }.joined(separator: " "))) is not text in \(codePage.name): "
                                     + "Properties.plist keys are text, so it cannot be stored as given (convert to dabriefcase or json instead)")
            }
            if let bad = key.unicodeScalars.first(where: { !PropertiesPlist.isXMLText(String($0)) }) {
                throw BriefcaseError(.invalidModel, "property name \(key.debugDescription) holds U+\(String(format: "%04X", bad.value)), "
                                     + "which XML cannot carry: Properties.plist cannot store it (convert to dabriefcase or json instead)")
            }
            if let text = codePage.decodeReversibly(property.value), PropertiesPlist.isXMLText(text) {
                plist.append((key, .string(text)))
            } else {
                plist.append((key, .data(property.value.array)))
            }
        }
        return PropertiesPlist.encode(plist)
    }
}
