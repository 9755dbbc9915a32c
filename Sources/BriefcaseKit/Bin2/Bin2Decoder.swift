/// Something a reader tolerates but that no known writer produces (a stale schema-end
/// position, set padding bits in a mask). `validate` reports these; decoding carries on.
public struct DecodingWarning: Sendable, Equatable, CustomStringConvertible {
    /// What is unusual.
    public var message: String
    /// Where, as a byte offset in the file; nil when it does not apply.
    public var offset: Int?
    /// The table or delta, as text.
    public var element: String?
    /// What is unusual, where `validate` reports it under a check of its own (Spec/validation.md):
    /// nil for the others (`decoding`).
    public var reason: BriefcaseError.Reason?

    /// `element 'NAME': offset N: message`, as errors are written (escaped for a terminal, as
    /// `BriefcaseError.description` is).
    public var description: String {
        BriefcaseError(.invalidData, message, offset: offset, element: element).description
    }

    /// The same line, not escaped (`BriefcaseError.unescapedDescription`).
    package var unescapedDescription: String {
        BriefcaseError.describe(message, file: nil, element: element, offset: offset)
    }
}

/// Decodes the elements of a Bin2 stream (`DABIN200`), tables and deltas, from a buffer that
/// holds them: the body decoder under the element reader (`BriefcaseElements`), which finds
/// them through the index.
///
/// Values are slices of the buffer (no copies; out of a mapped file, rows stay views into it and
/// other values are copied out: `ByteSource`). Every count and length is checked against the
/// bytes that remain in its element before anything is allocated, so damaged input fails with a
/// `BriefcaseError` naming the offset, never with a trap or a huge allocation.
public struct Bin2Decoder {
    /// The bytes the elements are decoded from: an array, or a mapped file.
    public let source: ByteSource
    /// The file offset of the source's byte 0 (non-zero when only part of a file was read).
    public let base: Int
    /// The bytes as an array: the source's, or a copy of a whole mapped file.
    @available(*, deprecated, message: "the bytes may be a mapped file's: read them through `source`")
    public var bytes: [UInt8] { source.arrayOrCopy }
    /// What the decoding tolerated so far.
    public internal(set) var warnings: [DecodingWarning] = []

    /// A decoder over `bytes`, which start at file offset `base`.
    public init(bytes: [UInt8], base: Int = 0) {
        self.init(source: ByteSource(bytes), base: base)
    }

    /// A decoder over `source`, whose byte 0 is at file offset `base`.
    public init(source: ByteSource, base: Int = 0) {
        self.source = source
        self.base = base
    }

    /// Decodes the element `entry` of an index whose positions are relative to `positionBase`
    /// (`ElementIndex.positionBase`): the source must hold its range. With its `head` read
    /// before (`ElementHeadRead`), the body is decoded from where the head ends, with the
    /// head's warnings: the head is not read again.
    package mutating func decodeElement(_ entry: ElementIndex.Entry, positionBase: Int, head: ElementHeadRead? = nil) throws(BriefcaseError) -> Element {
        try readElement(entry) { (decoder: inout Bin2Decoder, reader: inout ByteReader) throws(BriefcaseError) -> Element in
            if let head {
                reader.readerIndex = head.end
                decoder.warnings += head.warnings
            }
            switch (entry.kind, head?.head) {
            case (.table, .table(let known)?):
                return .table(try decoder.decodeTable(&reader, name: entry.name, positionBase: positionBase, head: known))
            case (.table, _): return .table(try decoder.decodeTable(&reader, name: entry.name, positionBase: positionBase))
            case (.delta, .delta(let delta, let changeCount)?):
                return .delta(try decoder.decodeDelta(&reader, name: entry.name, head: (delta, changeCount)))
            case (.delta, _): return .delta(try decoder.decodeDelta(&reader, name: entry.name))
            }
        }
    }

    /// Reads the element `entry` with `body` (the model, or `validate`'s checks), which must
    /// read exactly its bytes: errors name the element, and bytes left over are an error.
    mutating func readElement<Product>(_ entry: ElementIndex.Entry,
                                       _ body: (inout Bin2Decoder, inout ByteReader) throws(BriefcaseError) -> Product) throws(BriefcaseError) -> Product {
        let label = String(decoding: entry.name.bytes, as: UTF8.self)
        do throws(BriefcaseError) {
            var reader = ByteReader(source: source, base: base, readerIndex: entry.range.lowerBound, endIndex: entry.range.upperBound)
            let product = try body(&self, &reader)
            guard reader.readableBytes == 0 else {
                throw BriefcaseError(.invalidData,
                                     "\(entry.kind.label) ends here but \(reader.readableBytes) more bytes lie before the next element",
                                     offset: reader.readerIndex, reason: .bytesAfterElement)
            }
            return product
        } catch {
            throw error.inElement(label)
        }
    }

    mutating func warn(_ message: String, at offset: Int, _ element: ByteString, reason: BriefcaseError.Reason? = nil) {
        warnings.append(DecodingWarning(message: message, offset: offset, element: String(decoding: element.bytes, as: UTF8.self), reason: reason))
    }
}

extension Bin2Decoder {
    /// Reads a bitmask of `count` bits; warns when padding bits of the last byte are set.
    mutating func readMask(_ reader: inout ByteReader, count: Int, _ what: @autoclosure () -> String, element: ByteString) throws(BriefcaseError) -> ArraySlice<UInt8> {
        let size = (count + 7) / 8
        let start = reader.readerIndex
        let mask = try reader.readBytes(size, what())
        if count % 8 != 0, let last = mask.last, last >> (count % 8) != 0 {
            warn("\(what()) has padding bits set (\(String(last, radix: 16)))", at: start + size - 1, element, reason: .maskPadding)
        }
        return mask
    }

    /// A mask of one bit per field (`what` names it in errors), then the values it says are there,
    /// every read checked: a set bit is a NULL in a row, a value in a change (`setBitIsValue`).
    /// An error names the field, after `place` ("row 5, ").
    mutating func decodeValues<Field: ValueField>(_ reader: inout ByteReader, _ fields: [Field], setBitIsValue: Bool,
                                                  mask what: @autoclosure () -> String, element: ByteString,
                                                  place: () -> String = { "" }) throws(BriefcaseError) -> [Value?] {
        let mask = try readMask(&reader, count: fields.count, what(), element: element)
        var values: [Value?] = []
        values.reserveCapacity(fields.count)
        for (i, field) in fields.enumerated() {
            guard Self.bit(mask, i) == setBitIsValue else {
                values.append(nil)
                continue
            }
            do throws(BriefcaseError) {
                values.append(try Self.readValue(&reader, type: field.type))
            } catch {
                var located = error
                located.message = place() + "field '\(field.name)': " + error.message
                throw located
            }
        }
        return values
    }

    @inline(__always)
    static func bit(_ mask: ArraySlice<UInt8>, _ index: Int) -> Bool {
        mask[mask.startIndex + index >> 3] & (1 << UInt8(index & 7)) != 0
    }

    /// Decodes one value of `type`.
    static func readValue(_ reader: inout ByteReader, type: DataType) throws(BriefcaseError) -> Value {
        guard let storage = type.storage else {
            let what = type == .unknown ? "datUnknown (0) has no value encoding" : "data type code \(type.rawValue) is unknown (0–26 are defined)"
            throw BriefcaseError(.unsupported, "cannot read a value: \(what)", offset: reader.readerIndex)
        }
        switch storage {
        case .ansiString: return .ansiString(try reader.readLengthPrefixed("\(type.name) value"))
        case .wideString: return .wideString(try reader.readLengthPrefixed("\(type.name) value"))
        case .blob: return .blob(try reader.readLengthPrefixed("\(type.name) value"))
        case .dateTime: return .dateTime(OLEDateTime(Double(bitPattern: try reader.readInteger(as: UInt64.self, "datDateTime value"))))
        case .float64: return .float(Double(bitPattern: try reader.readInteger(as: UInt64.self, "datFloat value")))
        case .float32: return .singleFloat(Float(bitPattern: try reader.readInteger(as: UInt32.self, "datSingleFloat value")))
        case .currency: return .currency(Currency(scaled: try reader.readInteger(as: Int64.self, "datCurrency value")))
        case .int8: return .integer(Int64(try reader.readInteger(as: Int8.self, "\(type.name) value")))
        case .int16: return .integer(Int64(try reader.readInteger(as: Int16.self, "\(type.name) value")))
        case .int32: return .integer(Int64(try reader.readInteger(as: Int32.self, "\(type.name) value")))
        case .int64: return .integer(try reader.readInteger(as: Int64.self, "\(type.name) value"))
        case .uint8: return .integer(Int64(try reader.readInteger(as: UInt8.self, "\(type.name) value")))
        case .uint16: return .integer(Int64(try reader.readInteger(as: UInt16.self, "\(type.name) value")))
        case .uint32: return .integer(Int64(try reader.readInteger(as: UInt32.self, "\(type.name) value")))
        case .uint64: return .largeUInt(try reader.readInteger(as: UInt64.self, "datLargeUInt value"))
        case .boolean: return .boolean(try reader.readUInt8("datBoolean value"))
        case .guid: return .guid(try reader.readByteString(36, "datGuid value"))
        case .decimal:
            let low = try reader.readInteger(as: UInt32.self, "datDecimal value")
            let mid = try reader.readInteger(as: UInt32.self, "datDecimal value")
            let high = try reader.readInteger(as: UInt32.self, "datDecimal value")
            let flags = try reader.readInteger(as: UInt32.self, "datDecimal value")
            return .decimal(Decimal96(low: low, mid: mid, high: high, flags: flags))
        }
    }
}

/// A column of a row (`FieldDescriptor`) or a field logged in a delta (`LoggedField`): the type
/// its values are read as, the name errors give.
protocol ValueField {
    var name: ByteString { get }
    var type: DataType { get }
}

extension FieldDescriptor: ValueField {}
extension LoggedField: ValueField {}
