import Foundation

extension Briefcase {
    /// Writes the briefcase back to `path`, replacing it: the one save that replaces by its
    /// nature. Tables not replaced (`addTable`, `setTable`) are
    /// copied as their raw bytes (positions rebased), whether they were read or not. A single file is written to a temporary file in the
    /// same directory, flushed and renamed over the old one; a folder is updated file by file the
    /// same way, `Properties.plist` last, and files of removed tables are deleted.
    public func write() throws(BriefcaseError) {
        try save(replacing: true)
    }

    /// Writes a copy to `path` as `kind`; from then on the briefcase is the one at `path`. The
    /// copy is made new: anything at `path` — there before, or put there while writing — is an
    /// error (`BriefcaseError` of kind `.io`, nothing changed), unless `replacing`: then a file is
    /// replaced in one rename, and an existing folder is written into (its table files of the same
    /// names replaced, those of other tables deleted). On an error the briefcase stays the one it was.
    public func write(to path: String, as kind: Kind, replacing: Bool = false) throws(BriefcaseError) {
        if !replacing && FileIO.exists(path) { throw BriefcaseError.outputExists(path) }
        let before = (self.path, self.kind, tableFilesOnDisk)
        // Tables stay where they are on disk until written; only the destination changes.
        if kind == .folder, self.kind != .folder || path != self.path {
            // The folder becomes this briefcase: table files already there are replaced.
            let existing = FileIO.directoryEntries(path) ?? []
            tableFilesOnDisk = Set(existing.filter { $0.lowercased().hasSuffix("." + Self.fileExtension.lowercased()) && !$0.hasPrefix(".") })
        }
        self.path = path
        self.kind = kind
        do throws(BriefcaseError) {
            try save(replacing: replacing)
        } catch {
            (self.path, self.kind, tableFilesOnDisk) = before
            throw error
        }
    }

    private func save(replacing: Bool) throws(BriefcaseError) {
        switch kind {
        case .file: try writeFile(replacing: replacing)
        case .folder: try writeFolder(replacing: replacing)
        }
    }

    private func writeFile(replacing: Bool) throws(BriefcaseError) {
        try BriefcaseStreamWriter.writeFile(path, replacing: replacing, properties: properties, headerPadding: headerPadding) { writer throws(BriefcaseError) in
            try writeTables(entries, into: &writer)
        }
        try repoint(entries, fileName: nil, filePath: path)
    }

    private func writeFolder(replacing: Bool) throws(BriefcaseError) {
        let plist = try FolderWriter.propertiesPlist(properties, codePage: codePage) // refused before any table is written
        let folder = try FolderWriter(path: path, tableNames: entries.map { codePage.decodeForDisplay($0.name) }, replacing: replacing)
        // How many tables each source file holds: a file is only left as it is when it holds
        // exactly the one table that keeps its name.
        var tablesPerFile: [ObjectIdentifier: Int] = [:]
        for entry in entries { if let file = entry.source?.file { tablesPerFile[ObjectIdentifier(file), default: 0] += 1 } }
        for (i, entry) in entries.enumerated() {
            let fileName = folder.fileNames[i]
            if let source = entry.source, source.folderFileName == fileName, source.file.path == folder.filePath(i),
               tableFilesOnDisk.contains(fileName), tablesPerFile[ObjectIdentifier(source.file)] == 1 {
                continue // unchanged, already in place
            }
            try folder.writeTable(i) { writer throws(BriefcaseError) in try writeTables([entry], into: &writer) }
            try repoint([entry], fileName: fileName, filePath: folder.filePath(i))
        }
        // A file of a removed table goes, unless it *is* a file just written: on a case-insensitive
        // file system `orders.daBriefcase` and `Orders.daBriefcase` are one file.
        let written = Set(folder.fileNames)
        for stale in tableFilesOnDisk where !written.contains(stale) {
            let stalePath = path + "/" + stale
            if let twin = folder.fileNames.first(where: { $0.lowercased() == stale.lowercased() }),
               Self.sameFile(stalePath, path + "/" + twin) { continue }
            guard unlink(systemPath(stalePath)) == 0 || errno == ENOENT else { throw FileIO.ioError("cannot delete", stalePath) }
        }
        tableFilesOnDisk = written
        try folder.writeProperties(plist)
    }

    static func sameFile(_ a: String, _ b: String) -> Bool {
        var x = stat(), y = stat()
        guard stat(systemPath(a), &x) == 0, stat(systemPath(b), &y) == 0 else { return false }
        return x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }

    /// The kinds of `entry`'s elements, in the order they are written.
    private func kinds(of entry: Entry) -> [ElementKind] {
        let order: [ElementKind] = entry.deltaFirst ? [.delta, .table] : [.table, .delta]
        if let source = entry.source { return order.filter { $0 == .table ? source.dataset != nil : source.delta != nil } }
        return order.filter { $0 == .table ? entry.loaded?.dataset != nil : entry.loaded?.delta != nil }
    }

    /// Writes the elements of `entries`: a table still where it was read (a value: reading it
    /// cannot change it) copied as its raw bytes (positions rebased by the writer), without
    /// decoding; a table added or replaced encoded.
    private func writeTables(_ entries: [Entry], into writer: inout BriefcaseStreamWriter<SharedAtomicOutput>) throws(BriefcaseError) {
        for entry in entries {
            for kind in kinds(of: entry) {
                if let source = entry.source {
                    let stored = source.reader.elements[kind == .table ? source.dataset! : source.delta!]
                    try writer.write(raw: try stored.rawBytes(), of: stored)
                } else if let table = entry.loaded {
                    let element: Element = kind == .table ? .table(table.dataset!) : .delta(table.delta!)
                    do throws(BriefcaseError) {
                        try writer.write(element)
                    } catch {
                        // Named as the briefcase's code page shows it (the writer reads names as UTF-8).
                        var named = error
                        if error.kind != .io { named.element = codePage.decodeForDisplay(element.name) }
                        throw named
                    }
                }
            }
        }
    }

    /// After a write, entries point at the new file (its elements in the order written), so
    /// unloaded tables are read from there.
    private func repoint(_ entries: [Entry], fileName: String?, filePath: String) throws(BriefcaseError) {
        let (file, reader) = try Self.openReader(filePath)
        var next = 0
        for entry in entries {
            var source = Source(file: file, reader: reader, folderFileName: fileName)
            for kind in kinds(of: entry) {
                if kind == .table { source.dataset = next } else { source.delta = next }
                next += 1
            }
            entry.source = source
        }
    }
}
