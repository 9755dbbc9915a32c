import BriefcaseKit

/// The `Encoder` of one row: what a value's `encode(to:)` says, as field name → Swift value (nil
/// = NULL), in the order it encodes them. An `Optional` that is nil is recorded as NULL (its
/// `encodeIfPresent` is taken over), so "NULL" and "no such property" stay apart: an update
/// leaves fields the type has no property for as they are.
struct RowEncoder: Encoder {
    final class Fields {
        var values: [(name: String, value: (any FieldValue)?)] = []
        func set(_ name: String, _ value: (any FieldValue)?) {
            if let i = values.firstIndex(where: { $0.name == name }) { values[i].value = value } else { values.append((name, value)) }
        }
    }

    let fields = Fields()
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The fields `value` encodes.
    static func encode<T: Encodable>(_ value: T) throws(RecordError) -> [(name: String, value: (any FieldValue)?)] {
        let encoder = RowEncoder()
        do {
            try value.encode(to: encoder)
        } catch let error as RecordError {
            throw error
        } catch {
            throw RecordError(.unsupportedValue, "\(T.self) cannot be encoded as a row: \(error)")
        }
        return encoder.fields.values
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RowEncodingContainer(fields: fields))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { Refusing(codingPath: []) }
    func singleValueContainer() -> any SingleValueEncodingContainer { Refusing(codingPath: []) }
}

struct RowEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let fields: RowEncoder.Fields
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { fields.set(key.stringValue, nil) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let value = value as? any FieldValue {
            fields.set(key.stringValue, value)
        } else {
            let single = FieldEncoder(key: key)
            try value.encode(to: single)
            guard single.box.isSet else {
                throw RecordError(.unsupportedValue, "\(T.self) encodes no single value", field: key.stringValue)
            }
            fields.set(key.stringValue, single.box.value)
        }
    }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encode(_ value: String, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { fields.set(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { fields.set(key.stringValue, value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RefusingKeyed(key: key))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { Refusing(codingPath: [key]) }
    mutating func superEncoder() -> any Encoder { FieldEncoder(key: RowKey("super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { FieldEncoder(key: key) }
}

/// The encoder of one property's value, for types that encode themselves as a single value
/// (`enum Status: String, Codable`).
struct FieldEncoder: Encoder, SingleValueEncodingContainer {
    final class Box {
        var value: (any FieldValue)?
        var isSet = false
    }

    let box = Box()
    let key: any CodingKey
    var codingPath: [any CodingKey] { [key] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(key: any CodingKey) { self.key = key }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { KeyedEncodingContainer(RefusingKeyed(key: key)) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { Refusing(codingPath: [key]) }
    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    mutating func encodeNil() throws { box.value = nil; box.isSet = true }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let value = value as? any FieldValue {
            box.value = value
            box.isSet = true
        } else {
            try value.encode(to: self)
        }
    }
}

struct RowKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Containers a row has no place for: every use throws `unsupportedValue`.
struct Refusing: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    var codingPath: [any CodingKey]
    var count: Int { 0 }
    private var error: RecordError {
        RecordError(.unsupportedValue, "a field holds one value, not an array or a nested value", field: codingPath.last?.stringValue)
    }
    mutating func encodeNil() throws { throw error }
    mutating func encode<T: Encodable>(_ value: T) throws { throw error }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RefusingKeyed(key: codingPath.last ?? RowKey("")))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { FieldEncoder(key: codingPath.last ?? RowKey("")) }
}

struct RefusingKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let key: any CodingKey
    var codingPath: [any CodingKey] { [key] }
    private var error: RecordError { RecordError(.unsupportedValue, "a field holds one value, not a nested keyed value", field: key.stringValue) }
    mutating func encodeNil(forKey key: Key) throws { throw error }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw error }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RefusingKeyed<NestedKey>(key: self.key))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { Refusing(codingPath: [self.key]) }
    mutating func superEncoder() -> any Encoder { FieldEncoder(key: key) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { FieldEncoder(key: key) }
}
