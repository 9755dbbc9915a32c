extension Bin2Decoder {
    /// Decodes a delta element body.
    mutating func decodeDelta(_ reader: inout ByteReader, name: ByteString) throws(BriefcaseError) -> Delta {
        let head = try decodeDeltaHead(&reader, name: name)
        var delta = head.delta
        let changeCount = head.changeCount
        var changes: [DeltaChange] = []
        changes.reserveCapacity(changeCount)
        let storages = delta.loggedFields.map(\.type.storage)
        try decodeChanges(&reader, count: changeCount) { (decoder: inout Bin2Decoder, reader: inout ByteReader, _) throws(BriefcaseError) in
            changes.append(try decoder.decodeChange(&reader, loggedFields: delta.loggedFields, storages: storages, element: name))
        }
        delta.changes = changes
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
