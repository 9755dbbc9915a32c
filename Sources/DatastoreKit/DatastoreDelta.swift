// A delta: `{"rev": r, "changes": [change, …], "nonce": "…"}`, applying to revision r and
// producing revision r + 1.

import JSONCore

/// A list of changes made atomically to a datastore at revision `rev`.
public struct DatastoreDelta: Hashable, Sendable {
    /// The revision the delta applies to (the result is `rev + 1`).
    public var rev: Int
    /// The changes, applied in order.
    public var changes: [DatastoreChange]
    /// The client's random tag for recognising its own delta. Any string is accepted.
    public var nonce: String

    /// A delta of `changes` to revision `rev`.
    public init(rev: Int, changes: [DatastoreChange], nonce: String = DatastoreDelta.makeNonce()) {
        self.rev = rev
        self.changes = changes
        self.nonce = nonce
    }

    /// A fresh nonce: 10 random URL-safe base64 characters (as the JavaScript SDK makes them).
    public static func makeNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return makeNonce(using: &generator)
    }

    /// A nonce of 10 URL-safe base64 characters drawn from `generator`.
    public static func makeNonce<G: RandomNumberGenerator>(using generator: inout G) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        return String((0..<10).map { _ in alphabet[Int.random(in: 0..<64, using: &generator)] })
    }

    /// Delta size: 100 + Σ change size (the Python SDK's formula; limit 2 MiB).
    public func size(_ accounting: BytesAccounting = .exact) -> Int {
        var tally = SizeTally(exact: DatastoreSize.baseDelta)
        for change in changes { tally += change.sizeTally }
        return tally.total(accounting)
    }

    /// Checks a hand-built delta (rev, every change); paths as in its wire form.
    public func validate(at path: @autoclosure () -> JSONPath = .root) throws(DatastoreError) {
        if rev < 0 {
            throw DatastoreError(.invalidStructure, "a revision is never negative (got \(rev))", at: path().appending(key: "rev"))
        }
        for (index, change) in changes.enumerated() {
            try change.validate(at: path().appending(key: "changes").appending(index: index))
        }
    }

    /// Decodes a delta object (exactly the keys `rev`, `changes`, `nonce`); errors relative to `json`.
    public init(wire json: JSONValue) throws(DatastoreError) {
        let object = try Wire.object(json, what: "a delta", at: .root)
        try Wire.requireKeys(object, ["rev", "changes", "nonce"], what: "a delta", at: .root)
        rev = try Wire.nonNegativeInt(object["rev"]!, what: "rev", at: .root.appending(key: "rev"))
        let changesPath = JSONPath.root.appending(key: "changes")
        let array = try Wire.array(object["changes"]!, what: "changes", at: changesPath)
        var changes: [DatastoreChange] = []
        changes.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            do {
                changes.append(try DatastoreChange(wire: element))
            } catch {
                throw error.prefixed(by: changesPath.appending(index: index))
            }
        }
        self.changes = changes
        nonce = try Wire.string(object["nonce"]!, what: "nonce", at: .root.appending(key: "nonce"))
    }

    /// The delta's wire JSON: `{"rev":…,"changes":[…],"nonce":…}`.
    public var wire: JSONValue {
        .object(["rev": .integer(rev), "changes": .array(changes.map(\.wire)), "nonce": .string(nonce)])
    }

    /// Writes the delta's wire JSON. Precondition: `rev >= 0`.
    public func write<S: ByteSink>(to writer: inout JSONWriter<S>) {
        precondition(rev >= 0, "negative revision")
        writer.writeRaw("{\"rev\":")
        writer.writeInt(Int64(rev))
        writer.writeRaw(",\"changes\":[")
        for (index, change) in changes.enumerated() {
            if index > 0 { writer.writeByte(UInt8(ascii: ",")) }
            change.write(to: &writer)
        }
        writer.writeRaw("],\"nonce\":")
        writer.writeString(nonce)
        writer.writeByte(UInt8(ascii: "}"))
    }
}
