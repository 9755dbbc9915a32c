// Field operations: the values of a `U` change's map.
//
//   P   ["P", value]          put (atom or list)
//   D   ["D"]                 delete the field
//   LC  ["LC"]                create an empty list
//   LP  ["LP", at, atom]      replace element `at`
//   LI  ["LI", before, atom]  insert so the atom ends up at index `before`
//   LD  ["LD", at]            delete element `at`
//   LM  ["LM", from, to]      move element `from` so it ends up at index `to`
// Indices are non-negative JSON integers (digits only on input).

import JSONCore

/// One operation on one field of an existing record.
public enum FieldOperation: Hashable, Sendable {
    /// `P`: set the field to the value (creating it if absent).
    case put(DatastoreValue)
    /// `D`: remove the field (no effect if it is absent).
    case delete
    /// `LC`: create the field as an empty list; the field must not exist.
    case listCreate
    /// `LP`: replace the element at `at` (0 ≤ at < count).
    case listPut(at: Int, DatastoreAtom)
    /// `LI`: insert so the atom ends up at index `before` (0 ≤ before ≤ count). On an absent
    /// field with `before == 0` it creates a one-element list.
    case listInsert(before: Int, DatastoreAtom)
    /// `LD`: remove the element at `at` (0 ≤ at < count).
    case listDelete(at: Int)
    /// `LM`: remove the element at `from` and re-insert it so it ends up at `to` (both < count).
    case listMove(from: Int, to: Int)

    /// The wire tag: P, D, LC, LP, LI, LD or LM.
    public var tag: String {
        switch self {
        case .put: "P"
        case .delete: "D"
        case .listCreate: "LC"
        case .listPut: "LP"
        case .listInsert: "LI"
        case .listDelete: "LD"
        case .listMove: "LM"
        }
    }

    /// The list indices among the operands, in wire order: `LP`/`LD` at, `LI` before, `LM` from and to.
    var indices: [Int] {
        switch self {
        case .listPut(let at, _), .listDelete(let at): [at]
        case .listInsert(let before, _): [before]
        case .listMove(let from, let to): [from, to]
        case .put, .delete, .listCreate: []
        }
    }

    /// The value operand, last on the wire: the `P` value, or the `LP`/`LI` atom.
    var valueOperand: DatastoreValue? {
        switch self {
        case .put(let value): value
        case .listPut(_, let atom), .listInsert(_, let atom): .atom(atom)
        case .delete, .listCreate, .listDelete, .listMove: nil
        }
    }

    /// Operand size for delta accounting: the `P` value or the `LP`/`LI` atom; else 0.
    var operandTally: SizeTally {
        valueOperand?.sizeTally ?? SizeTally()
    }

    /// Decodes an operation array; errors carry a path relative to `json` (`$[1]` is the first operand).
    public init(wire json: JSONValue) throws(DatastoreError) {
        let array = try Wire.array(json, what: "a field operation", at: .root)
        guard let first = array.first else {
            throw DatastoreError(.invalidStructure, "a field operation is an array starting with its tag; this one is empty")
        }
        let tagPath = JSONPath.root.appending(index: 0)
        let tag = try Wire.string(first, what: "the field operation tag", at: tagPath)
        let arity: Int
        switch tag {
        case "P": arity = 2
        case "D", "LC": arity = 1
        case "LP", "LI", "LM": arity = 3
        case "LD": arity = 2
        default:
            throw DatastoreError(.invalidStructure,
                "unknown field operation \(JSONPath.quoted(tag)); expected P, D, LC, LP, LI, LD or LM", at: tagPath)
        }
        guard array.count == arity else {
            throw DatastoreError(.invalidStructure,
                "\(tag.hasPrefix("L") ? "an" : "a") \(tag) operation has \(arity - 1) operand\(arity == 2 ? "" : "s") (\(FieldOperation.layout(tag))), not \(array.count - 1)")
        }
        func index(_ position: Int, _ name: String) throws(DatastoreError) -> Int {
            try Wire.nonNegativeInt(array[position], what: "the \(tag) index '\(name)'", at: .root.appending(index: position))
        }
        func atom(_ position: Int) throws(DatastoreError) -> DatastoreAtom {
            do {
                return try DatastoreAtom.decode(array[position],
                    arrayMessage: "\(tag) takes a single value, not a list (only P puts a whole list)")
            } catch {
                throw error.prefixed(by: .index(position))
            }
        }
        switch tag {
        case "P":
            do {
                self = .put(try DatastoreValue(wire: array[1]))
            } catch {
                throw error.prefixed(by: .index(1))
            }
        case "D": self = .delete
        case "LC": self = .listCreate
        case "LP": self = .listPut(at: try index(1, "at"), try atom(2))
        case "LI": self = .listInsert(before: try index(1, "before"), try atom(2))
        case "LD": self = .listDelete(at: try index(1, "at"))
        default: self = .listMove(from: try index(1, "from"), to: try index(2, "to"))
        }
    }

    static func layout(_ tag: String) -> String {
        switch tag {
        case "P": "[\"P\", value]"
        case "D": "[\"D\"]"
        case "LC": "[\"LC\"]"
        case "LP": "[\"LP\", at, atom]"
        case "LI": "[\"LI\", before, atom]"
        case "LD": "[\"LD\", at]"
        default: "[\"LM\", from, to]"
        }
    }

    /// The operation's wire JSON: the tag, the indices, the value operand.
    public var wire: JSONValue {
        .array([.string(tag)] + indices.map { .integer($0) } + (valueOperand.map { [$0.wire] } ?? []))
    }

    /// Writes the operation's wire JSON. Precondition: indices are not negative.
    public func write<S: ByteSink>(to writer: inout JSONWriter<S>) {
        writer.writeRaw("[\"")
        writer.writeRaw(tag)
        writer.writeByte(UInt8(ascii: "\""))
        for index in indices {
            precondition(index >= 0, "negative list index")
            writer.writeByte(UInt8(ascii: ","))
            writer.writeInt(Int64(index))
        }
        if let operand = valueOperand {
            writer.writeByte(UInt8(ascii: ","))
            operand.write(to: &writer)
        }
        writer.writeByte(UInt8(ascii: "]"))
    }

    /// Throws for a negative index (only hand-built operations can have one).
    func validateIndices(at path: @autoclosure () -> JSONPath) throws(DatastoreError) {
        for (offset, value) in indices.enumerated() where value < 0 {
            throw DatastoreError(.invalidStructure, "a list index is never negative (got \(value))",
                at: path().appending(index: offset + 1))
        }
    }
}

/// One entry of a `U` change: a field name and the operation on it.
public struct FieldUpdate: Hashable, Sendable {
    /// The field operated on.
    public var field: String
    /// What is done to it.
    public var operation: FieldOperation

    /// The operation `operation` on `field`.
    public init(_ field: String, _ operation: FieldOperation) {
        self.field = field
        self.operation = operation
    }
}
