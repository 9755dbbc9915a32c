import Foundation

extension Briefcase {
    /// Writes the briefcase back to `path`. Tables never loaded are copied as their raw bytes
    /// (positions rebased), without decoding. A single file is written to a temporary file in the
    /// same directory, flushed and renamed over the old one; a folder is updated file by file the
    /// same way, `Properties.plist` last, and files of removed tables are deleted.
    public func write() throws(BriefcaseError) {
        switch kind {
        case .file: try writeFile()
        case .folder: try writeFolder()
        }
    }

    /// Writes a copy to `path` as `kind`; from then on the briefcase is the one at `path`.
    public func write(to path: String, as kind: Kind) throws(BriefcaseError) {
        // Tables stay where they are on disk until written; only the destination changes.
        if kind == .folder, self.kind != .folder || path != self.path {
            // The folder becomes this briefcase: table files already there are replaced.
            let existing = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            tableFilesOnDisk = Set(existing.filter { $0.lowercased().hasSuffix("." + Self.fileExtension.lowercased()) && !$0.hasPrefix(".") })
        }
        self.path = path
        self.kind = kind
        try write()
    }

    private func writeFile() throws(BriefcaseError) {
        var writer = ByteWriter()
        writer.writeBytes(Array(BriefcaseFileCodec.signature.utf8))
        writer.writeInt32(0)
        writer.writeInt32(try ByteWriter.int32(properties.count, "property count"))
        for property in properties {
            try writer.writeLengthPrefixed(property.name)
            try writer.writeLengthPrefixed(property.value)
        }
        writer.writeBytes(headerPadding.bytes)
        writer.setInt32(try ByteWriter.int32(writer.count, "data offset"), at: 8)
        let placed = try writeStream(entries, into: &writer)
        try FileIO.writeAtomically(writer.bytes, to: path)
        try repoint(entries, placed: placed, fileName: nil, filePath: path)
    }

    private func writeFolder() throws(BriefcaseError) {
        let plist = try Self.propertiesPlist(properties, codePage: codePage) // refused before any table is written
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw BriefcaseError(.io, "cannot create the folder", file: path)
        }
        let fileNames = TableFileName.fileNames(for: entries.map { codePage.decodeForDisplay($0.name) })
        // How many tables each source file holds: a file is only left as it is when it holds
        // exactly the one table that keeps its name.
        var tablesPerFile: [ObjectIdentifier: Int] = [:]
        for entry in entries { if let file = entry.source?.file { tablesPerFile[ObjectIdentifier(file), default: 0] += 1 } }
        for (entry, fileName) in zip(entries, fileNames) {
            let filePath = path + "/" + fileName
            if entry.loaded == nil, let source = entry.source, source.folderFileName == fileName, source.file.path == filePath,
               tableFilesOnDisk.contains(fileName), tablesPerFile[ObjectIdentifier(source.file)] == 1 {
                continue // unchanged, already in place
            }
            var writer = ByteWriter()
            writer.writeBytes(Array(BriefcaseFileCodec.signature.utf8))
            writer.writeInt32(16)
            writer.writeInt32(0)
            let placed = try writeStream([entry], into: &writer)
            try FileIO.writeAtomically(writer.bytes, to: filePath)
            try repoint([entry], placed: placed, fileName: fileName, filePath: filePath)
        }
        // A file of a removed table goes, unless it *is* a file just written: on a case-insensitive
        // file system `orders.daBriefcase` and `Orders.daBriefcase` are one file.
        let written = Set(fileNames)
        for stale in tableFilesOnDisk where !written.contains(stale) {
            let stalePath = path + "/" + stale
            if let twin = fileNames.first(where: { $0.lowercased() == stale.lowercased() }),
               Self.sameFile(stalePath, path + "/" + twin) { continue }
            guard unlink(stalePath) == 0 || errno == ENOENT else { throw FileIO.ioError("cannot delete", stalePath) }
        }
        tableFilesOnDisk = Set(fileNames)
        try FileIO.writeAtomically(plist, to: path + "/" + Self.propertiesFileName)
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

    static func sameFile(_ a: String, _ b: String) -> Bool {
        var x = stat(), y = stat()
        guard stat(a, &x) == 0, stat(b, &y) == 0 else { return false }
        return x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }

    /// Where an entry's elements landed in a written stream.
    struct Placed {
        var dataset: ElementIndex.Entry?
        var delta: ElementIndex.Entry?
    }

    /// Appends a Bin2 stream of `entries` (each table's delta and dataset in their order; loaded
    /// tables encoded, others copied raw) and returns where each element went.
    private func writeStream(_ entries: [Entry], into writer: inout ByteWriter) throws(BriefcaseError) -> [Placed] {
        let start = writer.count
        writer.writeBytes(Array(ElementIndex.signature.utf8))
        writer.writeInt32(0)
        var index: [(kind: ElementKind, name: ByteString, position: Int)] = []
        var placed: [Placed] = []
        for entry in entries {
            var where_ = Placed()
            for kind in entry.deltaFirst ? [ElementKind.delta, .table] : [.table, .delta] {
                let position = writer.count
                let name: ByteString
                if let table = entry.loaded {
                    switch kind {
                    case .table:
                        guard let dataset = table.dataset else { continue }
                        name = dataset.name
                        try wrap(dataset.name) { () throws(BriefcaseError) in try Bin2Encoder.encodeTable(dataset, into: &writer) }
                    case .delta:
                        guard let delta = table.delta else { continue }
                        name = delta.name
                        try wrap(delta.name) { () throws(BriefcaseError) in try Bin2Encoder.encodeDelta(delta, into: &writer) }
                    }
                } else {
                    guard let source = entry.source, let located = kind == .table ? source.dataset : source.delta else { continue }
                    name = located.indexEntry.name
                    var raw = try source.file.read(located.range)
                    if kind == .table { try rebaseSchemaEnd(&raw, from: located.range.lowerBound, base: source.index.positionBase, to: position) }
                    writer.writeBytes(raw)
                }
                index.append((kind, name, position))
                let entryRecord = ElementIndex.Entry(kind: kind, name: name, range: position ..< writer.count, entryOffset: 0)
                if kind == .table { where_.dataset = entryRecord } else { where_.delta = entryRecord }
            }
            placed.append(where_)
        }
        writer.setInt32(try ByteWriter.int32(writer.count, "index position"), at: start + 8)
        writer.writeInt32(try ByteWriter.int32(index.count, "element count"))
        for item in index {
            writer.writeInt32(item.kind.rawValue)
            try writer.writeLengthPrefixed(item.name)
            writer.writeInt32(try ByteWriter.int32(item.position, "element position"))
        }
        return placed
    }

    private func wrap(_ name: ByteString, _ body: () throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        do throws(BriefcaseError) { try body() } catch { throw error.inElement(codePage.decodeForDisplay(name)) }
    }

    /// A dataset body holds one position: its schema end (byte 1…4). Moving the body moves it.
    private func rebaseSchemaEnd(_ body: inout [UInt8], from oldStart: Int, base: Int, to newStart: Int) throws(BriefcaseError) {
        guard body.count >= 5 else { return }
        let reader = ByteReader(bytes: body)
        let stored = Int(reader.getInteger(at: 1, as: Int32.self)!)
        guard body[0] != 0 || stored != 0 else { return } // no schema, schema end 0: stays 0
        let moved = base + stored - oldStart + newStart
        var patch = ByteWriter()
        patch.writeInt32(try ByteWriter.int32(moved, "schema end position"))
        body.replaceSubrange(1..<5, with: patch.bytes)
    }

    /// After a write, entries point at the new file so unloaded tables are read from there.
    private func repoint(_ entries: [Entry], placed: [Placed], fileName: String?, filePath: String) throws(BriefcaseError) {
        let file = try RandomAccessFile(path: filePath)
        let (_, index) = try Self.readHeaderAndIndex(file)
        for (entry, where_) in zip(entries, placed) {
            entry.source = Source(file: file, index: index,
                                  dataset: where_.dataset.flatMap { placed in index.entries.first { $0.range.lowerBound == placed.range.lowerBound } }.map { Source.Located(indexEntry: $0) },
                                  delta: where_.delta.flatMap { placed in index.entries.first { $0.range.lowerBound == placed.range.lowerBound } }.map { Source.Located(indexEntry: $0) },
                                  folderFileName: fileName)
        }
    }
}
