/// Reads and writes `DABRC600` single-file briefcases:
///
/// ```
/// 0   8  "DABRC600"
/// 8   4  Int32 data offset (position of "DABIN200")
/// 12  4  Int32 property count
/// 16  …  count × (AnsiString name, AnsiString value)
/// …      Bin2 stream to the end of the file, positions absolute in the file
/// ```
public enum BriefcaseFileCodec {
    public static let signature = "DABRC600"

    /// The header and properties; `dataOffset` is where the Bin2 stream starts.
    public struct Header: Sendable {
        public var properties: [BriefcaseProperty]
        public var headerPadding: ByteString
        public var dataOffset: Int
    }

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
                                 offset: 8)
        }
        guard let padding = reader.getBytes(at: propertiesEnd, count: dataOffsetRaw - propertiesEnd) else {
            throw BriefcaseError(.truncated, "the header ends before the data offset \(dataOffsetRaw)", offset: propertiesEnd)
        }
        return Header(properties: properties, headerPadding: ByteString(padding), dataOffset: dataOffsetRaw)
    }

    /// Decodes a whole single-file briefcase.
    public static func decode(_ bytes: [UInt8], warnings: inout [DecodingWarning]) throws(BriefcaseError) -> BriefcaseFile {
        let header = try readHeader(bytes)
        var decoder = Bin2Decoder(bytes: bytes)
        let stream = try decoder.decodeStream(streamStart: header.dataOffset)
        warnings += decoder.warnings
        if !header.headerPadding.isEmpty {
            warnings.append(DecodingWarning(message: "\(header.headerPadding.count) bytes between the properties and the data offset",
                                            offset: header.dataOffset - header.headerPadding.count))
        }
        return BriefcaseFile(properties: header.properties, stream: stream, headerPadding: header.headerPadding)
    }

    public static func decode(_ bytes: [UInt8]) throws(BriefcaseError) -> BriefcaseFile {
        var warnings: [DecodingWarning] = []
        return try decode(bytes, warnings: &warnings)
    }

    public static func encode(_ file: BriefcaseFile) throws(BriefcaseError) -> [UInt8] {
        let header = file.properties.reduce(16 + file.headerPadding.count) { $0 + 8 + $1.name.count + $1.value.count }
        var writer = ByteWriter(capacity: header + Bin2Encoder.estimatedSize(file.stream))
        writer.writeBytes(Array(signature.utf8))
        writer.writeInt32(0) // data offset, patched below
        writer.writeInt32(try ByteWriter.int32(file.properties.count, "property count"))
        for property in file.properties {
            try writer.writeLengthPrefixed(property.name)
            try writer.writeLengthPrefixed(property.value)
        }
        writer.writeBytes(file.headerPadding.bytes)
        writer.setInt32(try ByteWriter.int32(writer.count, "data offset"), at: 8)
        try Bin2Encoder.encode(file.stream, into: &writer)
        return writer.bytes
    }
}
