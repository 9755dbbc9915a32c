import BriefcaseKit

/// One row of a table: its values by field name, as Swift types.
///
/// ```swift
/// let name = try record.value("Name", as: String.self)   // nil when NULL
/// let customer = try record.decode(as: Customer.self)
/// ```
public struct Record: Sendable {
    let index: FieldIndex
    /// The values as stored, one per field (nil = NULL).
    public let values: Row
    /// The row's position in the rows it was read from (current or stored).
    public let position: Int
    /// The table's name, for errors.
    let table: String

    init(index: FieldIndex, values: Row, position: Int, table: String) {
        self.index = index
        self.values = values
        self.position = position
        self.table = table
    }

    /// The table's fields, in order.
    public var fields: [RecordField] { index.fields }

    /// The value of field `name` as a `T`, nil when it is NULL; throws `unknownField` when the
    /// table has no such field and `typeMismatch` when its type does not read as `T` exactly.
    public func value<T: FieldValue>(_ name: String, as type: T.Type = T.self) throws(RecordError) -> T? {
        let column = try located { () throws(RecordError) in try index.requireColumn(name) }
        guard let value = values[column] else { return nil }
        return try located { () throws(RecordError) in
            try FieldConversion.read(value, as: type, field: index.fields[column], codePage: index.codePage)
        }
    }

    /// Whether field `name` is NULL (throws `unknownField` when there is none).
    public func isNull(_ name: String) throws(RecordError) -> Bool {
        values[try located { () throws(RecordError) in try index.requireColumn(name) }] == nil
    }

    /// The stored value of field `name` (the codec's `Value`; nil = NULL), or nil when there is no such field.
    public subscript(name: String) -> Value? {
        index.column(name).flatMap { values[$0] }
    }

    /// The row decoded into `type` through a `Decoder` (Spec/records-api.md §5).
    public func decode<T: Decodable>(as type: T.Type) throws(RecordError) -> T {
        do {
            return try T(from: RowDecoder(record: self))
        } catch let error as RecordError {
            throw error.located(table: table, row: position)
        } catch {
            throw RecordError(decodingError: error).located(table: table, row: position)
        }
    }

    func located<R>(_ body: () throws(RecordError) -> R) throws(RecordError) -> R {
        do throws(RecordError) { return try body() } catch { throw error.located(table: table, row: position) }
    }
}
