/// The `DABRC600` single-file briefcase: its header (read here, written by
/// `BriefcaseStreamWriter`), and the whole-document conveniences over the element reader and the
/// stream writer:
///
/// ```
/// 0   8  "DABRC600"
/// 8   4  Int32 data offset (position of "DABIN200")
/// 12  4  Int32 property count
/// 16  …  count × (AnsiString name, AnsiString value)
/// …      Bin2 stream to the end of the file, positions absolute in the file
/// ```
public enum BriefcaseFileCodec {
    /// `DABRC600`: the first bytes of a single-file briefcase.
    public static let signature = "DABRC600"

    /// The header and properties; `dataOffset` is where the Bin2 stream starts.
    public struct Header: Sendable {
        /// The properties, in file order.
        public var properties: [BriefcaseProperty]
        /// Bytes between the properties and the data, kept for byte-exact writing.
        public var headerPadding: ByteString
        /// Where the Bin2 stream starts.
        public var dataOffset: Int
    }

    /// Reads the header and properties of a single-file briefcase in `bytes`.
    public static func readHeader(_ bytes: [UInt8]) throws(BriefcaseError) -> Header {
        try readHeader(bytes, fileSize: bytes.count)
    }

    /// Reads the header from `bytes`, the start of a file of `fileSize` bytes.
    public static func readHeader(_ bytes: [UInt8], fileSize: Int) throws(BriefcaseError) -> Header {
        var reader = ByteReader(bytes: bytes)
        let magicOffset = reader.readerIndex
        let magic = try reader.readBytes(8, "briefcase signature")
        guard magic.starts(with: Array("DABRC".utf8)) else {
            throw BriefcaseError(.invalidData, "not a single-file briefcase (no 'DABRC' signature)", offset: magicOffset)
        }
        guard magic.elementsEqual(Array(signature.utf8)) else {
            let version = String(decoding: magic.dropFirst(5), as: UTF8.self)
            throw BriefcaseError(.unsupported, "briefcase version '\(version)' is not supported (only DABRC600 is known)", offset: 5)
        }
        let dataOffsetRaw = Int(try reader.readInt32("data offset"))
        let count = try reader.readCount("property count", minimumSize: 8)
        var properties: [BriefcaseProperty] = []
        properties.reserveCapacity(count)
        for _ in 0..<count {
            let name = try reader.readLengthPrefixed("property name")
            let value = try reader.readLengthPrefixed("property '\(name)' value")
            properties.append(BriefcaseProperty(name: name, value: value))
        }
        let propertiesEnd = reader.readerIndex
        guard dataOffsetRaw >= propertiesEnd, dataOffsetRaw <= fileSize - 12 else {
            throw BriefcaseError(.invalidData,
                                 "data offset \(dataOffsetRaw) does not lie between the end of the properties (\(propertiesEnd)) and the end of the file (\(fileSize))",
                                 offset: 8, reason: .dataOffset)
        }
        guard let padding = reader.getBytes(at: propertiesEnd, count: dataOffsetRaw - propertiesEnd) else {
            throw BriefcaseError(.truncated, "the header ends before the data offset \(dataOffsetRaw)", offset: propertiesEnd)
        }
        return Header(properties: properties, headerPadding: ByteString(padding), dataOffset: dataOffsetRaw)
    }

    /// Decodes a whole single-file briefcase (every element of the element reader, collected).
    public static func decode(_ bytes: [UInt8], warnings: inout [DecodingWarning]) throws(BriefcaseError) -> BriefcaseFile {
        try BriefcaseElements(bytes: bytes, as: .dabriefcase).document(warnings: &warnings).file
    }

    /// Decodes a whole single-file briefcase: properties and every element.
    public static func decode(_ bytes: [UInt8]) throws(BriefcaseError) -> BriefcaseFile {
        var warnings: [DecodingWarning] = []
        return try decode(bytes, warnings: &warnings)
    }

    /// Encodes a whole single-file briefcase (the stream writer into memory).
    public static func encode(_ file: BriefcaseFile) throws(BriefcaseError) -> [UInt8] {
        try BriefcaseStreamWriter.bytes(of: file, as: .dabriefcase)
    }
}

extension BriefcaseDocument {
    /// Decodes `bytes` as `container`: every element of the element reader, collected.
    public static func decode(_ bytes: [UInt8], as container: ContainerFormat, warnings: inout [DecodingWarning]) throws(BriefcaseError) -> BriefcaseDocument {
        try BriefcaseElements(bytes: bytes, as: container).document(warnings: &warnings)
    }

    /// Encodes in `container` (default: the one it came in) with the stream writer into memory.
    /// Properties cannot travel in `.bin2`.
    public func encode(as container: ContainerFormat? = nil) throws(BriefcaseError) -> [UInt8] {
        try BriefcaseStreamWriter.bytes(of: file, as: container ?? self.container)
    }
}
