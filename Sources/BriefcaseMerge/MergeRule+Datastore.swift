import DatastoreKit
import JSONCore

/// The rules on datastore values (Spec/merge.md §5): what the Datastore's resolver did with a
/// field both sides put or deleted (`nil` stands for an absent field, `D`).
extension MergeRule {
    /// Whether LOCAL's value wins against REMOTE's — `sum` aside, which makes a third value
    /// (`datastoreSum`): `remote` never, `local` always, `max` unless LOCAL's is less (a tie
    /// goes to LOCAL), `min` when LOCAL's is less.
    func prefersLocal(_ local: DatastoreValue?, _ remote: DatastoreValue?) -> Bool {
        switch self {
        case .remote, .sum: false
        case .local: true
        case .max: !Self.isLess(local, remote)
        case .min: Self.isLess(local, remote)
        }
    }

    /// REMOTE's value plus LOCAL's change (`local − old`, an absent `old` counting as the integer
    /// 0), when all three are numbers: an integer when all three are, else a double; nil
    /// otherwise, or for an integer sum beyond 64 bits (then the field falls back to `remote`).
    static func datastoreSum(old: DatastoreValue?, local: DatastoreValue?, remote: DatastoreValue?) -> DatastoreValue? {
        switch (old ?? .int(0), local, remote) {
        case (.atom(.int(let o)), .atom(.int(let l))?, .atom(.int(let r))?):
            let (change, o1) = l.subtractingReportingOverflow(o)
            let (total, o2) = r.addingReportingOverflow(change)
            return o1 || o2 ? nil : .int(total)
        case (.atom(let o), .atom(let l)?, .atom(let r)?):
            guard let o = number(o), let l = number(l), let r = number(r) else { return nil }
            return .double(r + (l - o))
        default:
            return nil
        }
    }

    private static func number(_ atom: DatastoreAtom) -> Double? {
        switch atom {
        case .int(let x): Double(x)
        case .double(let x): x
        default: nil
        }
    }

    /// The Datastore's order of values (`../shared/reference/datastore-format.md` §7): absent <
    /// boolean < number < string < bytes < date < list; false < true; integers and doubles by
    /// value; strings by UTF-16 code units (JavaScript's `<`); bytes by their URL-safe base64
    /// text, as the resolver compared them; dates by time; lists element by element, a prefix
    /// first. Where JavaScript erred (negative 64-bit integers, compared by their text with a
    /// wrong sign test) the order is the numbers'.
    static func isLess(_ a: DatastoreValue?, _ b: DatastoreValue?) -> Bool {
        switch (a, b) {
        case (nil, nil): false
        case (nil, _?): true
        case (_?, nil): false
        case (.atom(let x)?, .atom(let y)?): isLess(x, y)
        case (.atom?, .list?): true
        case (.list?, .atom?): false
        case (.list(let x)?, .list(let y)?):
            x.lexicographicallyPrecedes(y) { isLess($0, $1) }
        }
    }

    static func isLess(_ a: DatastoreAtom, _ b: DatastoreAtom) -> Bool {
        let (rankA, rankB) = (rank(a), rank(b))
        guard rankA == rankB else { return rankA < rankB }
        switch (a, b) {
        case (.bool(let x), .bool(let y)): return !x && y
        case (.int(let x), .int(let y)): return x < y
        case (.int(let x), .double(let y)): return isLess(x, y)
        case (.double(let x), .int(let y)): return !x.isNaN && !isLess(y, x) && !isExactly(y, x)
        case (.double(let x), .double(let y)): return x < y
        case (.string(let x), .string(let y)): return x.utf16.lexicographicallyPrecedes(y.utf16)
        case (.bytes(let x), .bytes(let y)):
            return Array(URLSafeBase64.encode(x).utf8).lexicographicallyPrecedes(Array(URLSafeBase64.encode(y).utf8))
        case (.date(let x), .date(let y)): return x < y
        default: return false
        }
    }

    /// An integer below a double, exactly (a double beyond 2⁶³ or an integer beyond 2⁵³ does
    /// not round its way to a wrong answer).
    private static func isLess(_ x: Int64, _ y: Double) -> Bool {
        if y.isNaN { return false }
        if y >= 9_223_372_036_854_775_808.0 { return true }
        if y < -9_223_372_036_854_775_808.0 { return false }
        let whole = Int64(y.rounded(.down))
        return x < whole || (x == whole && y > Double(whole))
    }

    /// True when the double `y` is exactly the integer `x`.
    private static func isExactly(_ x: Int64, _ y: Double) -> Bool {
        y >= -9_223_372_036_854_775_808.0 && y < 9_223_372_036_854_775_808.0 && Int64(y) == x && y.rounded(.down) == y
    }

    private static func rank(_ atom: DatastoreAtom) -> Int {
        switch atom {
        case .bool: 1
        case .int, .double: 2
        case .string: 3
        case .bytes: 4
        case .date: 5
        }
    }
}
