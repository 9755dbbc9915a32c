extension Bin2Decoder {
    /// Decodes a delta element body. Its changes are kept as views into the bytes (`Changes`,
    /// like a table's rows): each is read through now, checked as when values are made of it,
    /// and where it starts is kept.
    /// With its `head` decoded before, from the first change (where `reader` then is).
    mutating func decodeDelta(_ reader: inout ByteReader, name: ByteString, head known: (delta: Delta, changeCount: Int)? = nil) throws(BriefcaseError) -> Delta {
        let head = if let known { known } else { try decodeDeltaHead(&reader, name: name) }
        var delta = head.delta
        let changeCount = head.changeCount
        let fields = delta.loggedFields, storages = fields.map(\.type.storage)
        guard reader.endIndex - reader.readerIndex <= Int(UInt32.max) else {
            var changes: [DeltaChange] = []
            try decodeChanges(&reader, count: changeCount) { (decoder: inout Bin2Decoder, reader: inout ByteReader, _) throws(BriefcaseError) in
                changes.append(try decoder.decodeChange(&reader, loggedFields: fields, storages: storages, element: name))
            }
            delta.changes = Changes(changes)
            return delta
        }
        let first = reader.readerIndex - reader.base
        var starts: [UInt32] = []
        starts.reserveCapacity(changeCount)
        // A change the checking reader read (set padding bits: a warning) is kept with its values;
        // its other list, read cleanly, is read from the element's bytes (`region`).
        var checked: [Int: DeltaChange] = [:]
        let region = StoredSpans(source: source, first: first, end: reader.endIndex - reader.base, starts: [], storages: storages)
        try decodeChanges(&reader, count: changeCount) { (decoder: inout Bin2Decoder, reader: inout ByteReader, index) throws(BriefcaseError) in
            starts.append(UInt32(truncatingIfNeeded: reader.readerIndex - reader.base - first))
            let change = try decoder.decodeChangeHead(&reader)
            var values = CheckedValues()
            var oldStart = reader.readerIndex - reader.base
            try decoder.readChangeValues(&reader, fields, storages: storages, mask: "old-value mask", element: name, into: &values)
            let old = values.take()
            var newStart = reader.readerIndex - reader.base
            try decoder.readChangeValues(&reader, fields, storages: storages, mask: "new-value mask", element: name, into: &values)
            let new = values.take()
            if old != nil || new != nil {
                checked[index] = DeltaChange(type: change.type, recordID: change.recordID, status: change.status, message: change.message,
                                             oldValues: old ?? region.values(at: &oldStart, setBitIsValue: true),
                                             newValues: new ?? region.values(at: &newStart, setBitIsValue: true))
            }
        }
        let spans = StoredSpans(source: source, first: first, end: reader.readerIndex - reader.base, starts: starts, storages: storages)
        if checked.isEmpty {
            delta.changes = Changes(stored: spans)
        } else {
            delta.changes = Changes((0 ..< spans.count).map { checked[$0] ?? spans.change($0) })
        }
        return delta
    }

    /// Reads `count` changes with `body` (given the change's index), errors prefixed with the
    /// change: what `decodeDelta` and `validate`'s checks (`CheckedReading`) go through.
    mutating func decodeChanges(_ reader: inout ByteReader, count: Int,
                                _ body: (inout Bin2Decoder, inout ByteReader, Int) throws(BriefcaseError) -> Void) throws(BriefcaseError) {
        for changeIndex in 0..<count {
            do throws(BriefcaseError) {
                try body(&self, &reader, changeIndex)
            } catch {
                var located = error
                located.message = "change \(changeIndex): " + error.message
                throw located
            }
        }
    }

    /// Decodes a delta up to its first change; `changeCount` is the number of changes that follow.
    /// `elementEnd` is where the element ends when `reader` holds only its start.
    mutating func decodeDeltaHead(_ reader: inout ByteReader, name: ByteString, elementEnd: Int? = nil) throws(BriefcaseError) -> (delta: Delta, changeCount: Int) {
        let firstCountOffset = reader.readerIndex
        let firstCount = try reader.readInt32("change count")
        guard firstCount >= 0 else {
            throw BriefcaseError(.invalidData, "change count is negative (\(firstCount))", offset: firstCountOffset)
        }
        if firstCount == 0 && (elementEnd ?? reader.endIndex) == reader.readerIndex {
            // Only the count: what the JS reader expects of an empty delta.
            return (Delta(name: name, loggedFields: [], reducedDeltaFlag: 0, layout: .countOnly), 0)
        }
        let loggedCount = try reader.readCount("logged field count", minimumSize: 5)
        var loggedFields: [LoggedField] = []
        loggedFields.reserveCapacity(loggedCount)
        for _ in 0..<loggedCount {
            let fieldName = try reader.readLengthPrefixed("logged field name")
            loggedFields.append(LoggedField(name: fieldName, type: DataType(try reader.readUInt8("logged field data type"))))
        }
        let keyCount = try reader.readCount("key field count", minimumSize: 4)
        var keyFields: [ByteString] = []
        keyFields.reserveCapacity(keyCount)
        for _ in 0..<keyCount {
            keyFields.append(try reader.readLengthPrefixed("key field name"))
        }
        let reduced = try reader.readUInt8("reduced-delta flag")
        let maskSize = (loggedCount + 7) / 8
        let countOffset = reader.readerIndex
        let changeCount = Int(try reader.readInt32("change count"))
        let changeBytes = (elementEnd ?? reader.endIndex) - reader.readerIndex
        guard changeCount >= 0, changeCount <= changeBytes / (16 + 2 * maskSize) else {
            throw BriefcaseError(.invalidData, "change count is \(changeCount) but only \(changeBytes) bytes remain for changes", offset: countOffset)
        }
        let layout: DeltaLayout = Int(firstCount) == changeCount ? .full : .mismatchedCounts(firstCount: firstCount)
        return (Delta(name: name, loggedFields: loggedFields, keyFields: keyFields, reducedDeltaFlag: reduced,
                      changes: [], layout: layout), changeCount)
    }

    mutating func decodeChange(_ reader: inout ByteReader, loggedFields: [LoggedField], storages: [ValueStorage?],
                               element: ByteString) throws(BriefcaseError) -> DeltaChange {
        let head = try decodeChangeHead(&reader)
        let old = try decodeChangeValues(&reader, loggedFields, storages: storages, mask: "old-value mask", element: element)
        let new = try decodeChangeValues(&reader, loggedFields, storages: storages, mask: "new-value mask", element: element)
        return DeltaChange(type: head.type, recordID: head.recordID, status: head.status, message: head.message, oldValues: old, newValues: new)
    }

    /// A change up to its values: type, record id, status, message.
    mutating func decodeChangeHead(_ reader: inout ByteReader) throws(BriefcaseError)
        -> (type: ChangeType, recordID: Int32, status: ChangeStatus, message: ByteString) {
        let type = ChangeType(rawValue: try reader.readInt32("change type"))
        let recordID = try reader.readInt32("record id")
        let status = ChangeStatus(rawValue: try reader.readInt32("change status"))
        let message = try reader.readLengthPrefixed("change message")
        return (type, recordID, status, message)
    }
}

/// Reads a change's values through, keeping nothing of those read cleanly; those the checking
/// reader read (which warned) are kept.
private struct CheckedValues: RowVisitor {
    private var checked: [Value?]?
    func beginRow(at position: Int, fieldCount: Int) {}
    func null(_ row: inout Void) {}
    func bytes(_ storage: ValueStorage, _ source: ByteSource, start: Int, count: Int, base: UnsafePointer<UInt8>, _ row: inout Void) {}
    func scalar(_ value: Value, _ row: inout Void) {}
    func decimal(low: UInt32, mid: UInt32, high: UInt32, flags: UInt32, _ row: inout Void) {}
    func endRow(_ row: consuming Void) {}
    mutating func checkedRow(_ values: [Value?], at position: Int) { checked = values }
    /// The values the checking reader read since the last call, if it did.
    mutating func take() -> [Value?]? {
        defer { checked = nil }
        return checked
    }
}

extension Changes {
    /// Changes kept as the bytes of `stored`.
    init(stored: StoredSpans) { self.init(stored: stored, decode: { $0.change($1) }) }
}

extension StoredSpans {
    /// Change `i`, decoded: its head, then its old and new values (it read cleanly when decoded).
    func change(_ i: Int) -> DeltaChange {
        var p = start(i)
        let head = changeHead(at: &p)
        let old = values(at: &p, setBitIsValue: true)
        let new = values(at: &p, setBitIsValue: true)
        return DeltaChange(type: head.type, recordID: head.recordID, status: head.status, message: head.message,
                           oldValues: old, newValues: new)
    }

    /// The head of the change at `position` (type, record id, status, message), which read
    /// cleanly when decoded; `position` moves to its values.
    func changeHead(at position: inout Int) -> (type: ChangeType, recordID: Int32, status: ChangeStatus, message: ByteString) {
        func int32() -> Int32 {
            defer { position += 4 }
            return source.withUnsafeBufferPointer { Int32(littleEndian: UnsafeRawBufferPointer($0).loadUnaligned(fromByteOffset: position, as: Int32.self)) }
        }
        let type = int32(), recordID = int32(), status = int32(), length = Int(int32())
        defer { position += length }
        return (ChangeType(rawValue: type), recordID, ChangeStatus(rawValue: status), source.byteString(position ..< position + length))
    }
}
