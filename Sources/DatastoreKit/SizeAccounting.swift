// Size accounting of the Datastore API (the numbers the SDKs and server budget with).
//
//   datastore size = 1000 + Σ record size
//   record size    = 100 + Σ over fields (100 + value size)
//   value size     = string: UTF-8 byte count; bytes: byte count (see BytesAccounting);
//                    boolean, integer, double, date: 0;
//                    list: Σ over elements (20 + element value size)
//   delta size     = 100 + Σ change size
//   change size    = 100 + (I: Σ (100 + value size); U: Σ (100 + operand size); D: 0)
//                    operand size: the value of P, the atom of LP/LI, 0 for D/LC/LD/LM
// Ids, field names and the nonce cost nothing.

/// How the size of a Bytes value is counted.
///
/// The Python SDK counts the exact byte count `n`. The JavaScript SDK counts
/// `ceil(3 × len(dbase64) / 4)`, which is `n + 1` whenever `n mod 3 ≠ 0`. Which one the server
/// used is not known.
public enum BytesAccounting: Sendable, Hashable {
    /// `n` (Python SDK). Sizes reported by default.
    case exact
    /// `n`, plus 1 when `n mod 3 ≠ 0` (JavaScript SDK); never smaller than `.exact`. Limit checks
    /// use it by default, so what passes them passes under either rule.
    case conservative
}

/// Base sizes of the accounting formulas.
public enum DatastoreSize {
    /// A datastore's base size.
    public static let baseDatastore = 1000
    /// A record's base size.
    public static let baseRecord = 100
    /// A field's base size.
    public static let baseField = 100
    /// A list item's base size.
    public static let baseListItem = 20
    /// A delta's base size.
    public static let baseDelta = 100
    /// A change's base size.
    public static let baseChange = 100
}

/// A size under both byte rules: the exact sum, plus the number of Bytes values whose length
/// is not a multiple of 3 (each costs one more under `.conservative`).
struct SizeTally: Hashable, Sendable {
    var exact: Int = 0
    var oddBytes: Int = 0

    func total(_ accounting: BytesAccounting) -> Int {
        accounting == .exact ? exact : exact + oddBytes
    }

    static func + (a: SizeTally, b: SizeTally) -> SizeTally {
        SizeTally(exact: a.exact + b.exact, oddBytes: a.oddBytes + b.oddBytes)
    }

    static func - (a: SizeTally, b: SizeTally) -> SizeTally {
        SizeTally(exact: a.exact - b.exact, oddBytes: a.oddBytes - b.oddBytes)
    }

    static func += (a: inout SizeTally, b: SizeTally) { a = a + b }
    static func -= (a: inout SizeTally, b: SizeTally) { a = a - b }
}

extension DatastoreAtom {
    var sizeTally: SizeTally {
        switch self {
        case .string(let s): SizeTally(exact: s.utf8.count)
        case .bytes(let b): SizeTally(exact: b.count, oddBytes: b.count % 3 == 0 ? 0 : 1)
        case .bool, .int, .double, .date: SizeTally()
        }
    }

    /// The value size of the atom: UTF-8 bytes of a string, bytes of a Bytes value, else 0.
    public func size(_ accounting: BytesAccounting = .exact) -> Int {
        sizeTally.total(accounting)
    }
}

extension DatastoreValue {
    var sizeTally: SizeTally {
        switch self {
        case .atom(let atom):
            return atom.sizeTally
        case .list(let atoms):
            var tally = SizeTally(exact: DatastoreSize.baseListItem * atoms.count)
            for atom in atoms { tally += atom.sizeTally }
            return tally
        }
    }

    /// The value size (a list: Σ (20 + element size)); the field's own 100 is not included.
    public func size(_ accounting: BytesAccounting = .exact) -> Int {
        sizeTally.total(accounting)
    }
}
