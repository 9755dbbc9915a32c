import BriefcaseKit

/// The `Decoder` of one row: a keyed container whose keys are the field names (exactly, else
/// case-insensitively), NULL as `nil` of an `Optional`, each value converted by
/// `FieldConversion`. A property that is a value of its own (a `RawRepresentable` enum, a wrapper)
/// decodes from a single-value container over its field. Nested containers map to no field.
struct RowDecoder: Decoder {
    let record: Record
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowContainer(record: record))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw RecordError(.unsupportedValue, "a row decodes as a keyed type (a struct or class with a property per field), not as an array")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw RecordError(.unsupportedValue, "a row decodes as a keyed type (a struct or class with a property per field), not as one value")
    }
}

struct RowContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let record: Record
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { record.fields.compactMap { Key(stringValue: $0.name) } }

    func contains(_ key: Key) -> Bool { record.index.column(key.stringValue) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        record.values[try record.index.requireColumn(key.stringValue)] == nil
    }

    /// The field's value as `T`: a field value converted, anything else decoded from it.
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let column = try record.index.requireColumn(key.stringValue)
        let field = record.index.fields[column]
        guard let value = record.values[column] else {
            throw RecordError(.null, "is NULL, which only an Optional property can take", field: field.name)
        }
        if let fieldType = type as? any FieldValue.Type {
            return try FieldConversion.read(value, as: fieldType, field: field, codePage: record.index.codePage) as! T
        }
        return try T(from: FieldDecoder(value: value, field: field, codePage: record.index.codePage, key: key))
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type as Bool.Type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type as String.Type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type as Double.Type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type as Float.Type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type as Int.Type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type as Int8.Type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type as Int16.Type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type as Int32.Type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type as Int64.Type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type as UInt.Type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type as UInt8.Type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type as UInt16.Type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type as UInt32.Type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type as UInt64.Type, key) }

    /// The concrete overloads all go through the generic one (one conversion rule).
    private func decode<T: Decodable & FieldValue>(_ type: T.Type, _ key: Key) throws -> T {
        try decode(type, forKey: key) as T
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw RecordError(.unsupportedValue, "a field holds one value, not a nested keyed container", field: key.stringValue)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw RecordError(.unsupportedValue, "a field holds one value, not an array", field: key.stringValue)
    }

    func superDecoder() throws -> any Decoder {
        throw RecordError(.unsupportedValue, "a row has no super decoder")
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw RecordError(.unsupportedValue, "a field has no super decoder", field: key.stringValue)
    }
}

/// The decoder of one non-NULL field value, for a property type that decodes itself from a
/// single value (`enum Status: String, Codable`).
struct FieldDecoder: Decoder, SingleValueDecodingContainer {
    let value: Value
    let field: RecordField
    let codePage: CodePage
    let key: any CodingKey
    var codingPath: [any CodingKey] { [key] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw RecordError(.unsupportedValue, "a field holds one value, not a keyed container", field: field.name)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw RecordError(.unsupportedValue, "a field holds one value, not an array", field: field.name)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let fieldType = type as? any FieldValue.Type {
            return try FieldConversion.read(value, as: fieldType, field: field, codePage: codePage) as! T
        }
        return try T(from: self)
    }
}

extension RecordError {
    /// A `DecodingError` thrown by a type's own `init(from:)`, with the field it names.
    init(decodingError error: any Error) {
        guard let error = error as? DecodingError else {
            self.init(.typeMismatch, "\(error)")
            return
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
            self.init(.typeMismatch, context.debugDescription, field: context.codingPath.last?.stringValue)
        @unknown default:
            self.init(.typeMismatch, "\(error)")
        }
    }
}
