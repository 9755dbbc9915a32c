/// A schema property as stored: an 8-bit name and a UTF-8 value that may be nil (length -1).
///
/// Values stay bytes so that a value that is not valid UTF-8 still round-trips.
public struct SchemaProperty: Hashable, Sendable {
    /// The property's name (8-bit), such as `Name` or `DataType`.
    public var name: ByteString
    /// The UTF-8 bytes of the value; nil when the stream stored length -1.
    public var value: ByteString?

    /// A property of `name` and `value` (nil: stored as absent).
    public init(name: ByteString, value: ByteString?) {
        self.name = name
        self.value = value
    }

    /// A property of UTF-8 `name` and `value`.
    public init(_ name: String, _ value: String?) {
        self.init(name: ByteString(utf8: name), value: value.map(ByteString.init(utf8:)))
    }
}

/// The schema block of a table: field and parameter property lists exactly as stored.
///
/// Bin2 stores one property count for all fields (and one for all parameters), so every list in
/// `fields` has `fieldPropertyCount` entries. No fixed property set is assumed: .NET writes 29
/// per field, other writers may write others, in any order.
public struct Schema: Hashable, Sendable {
    /// How many properties each field has (the stream stores the count once).
    public var fieldPropertyCount: Int
    /// Each field's properties, in field order.
    public var fields: [[SchemaProperty]]
    /// How many properties each parameter has.
    public var parameterPropertyCount: Int
    /// Each parameter's properties, in order.
    public var parameters: [[SchemaProperty]]

    /// A schema of these fields and parameters.
    public init(fieldPropertyCount: Int, fields: [[SchemaProperty]], parameterPropertyCount: Int = 0, parameters: [[SchemaProperty]] = []) {
        self.fieldPropertyCount = fieldPropertyCount
        self.fields = fields
        self.parameterPropertyCount = parameterPropertyCount
        self.parameters = parameters
    }

    /// A schema from property lists that all have the same length.
    public init(fields: [[SchemaProperty]], parameters: [[SchemaProperty]] = [], parameterPropertyCount: Int? = nil) {
        self.init(fieldPropertyCount: fields.first?.count ?? 0, fields: fields,
                  parameterPropertyCount: parameterPropertyCount ?? parameters.first?.count ?? 0, parameters: parameters)
    }
}

/// Looking up schema properties by name.
extension Array where Element == SchemaProperty {
    /// The value of the first property named `name` (ASCII case-insensitive), as UTF-8 text.
    public func value(named name: String) -> String? {
        let wanted = name.lowercased()
        for property in self where property.name.utf8String?.lowercased() == wanted {
            return property.value?.utf8String
        }
        return nil
    }
}
