import BriefcaseKit

/// How a field both sides changed is resolved (Spec/merge.md §2): the Datastore's rules.
public enum MergeRule: String, Sendable, CaseIterable {
    /// REMOTE's value (the default).
    case remote
    /// LOCAL's value.
    case local
    /// The greater value in the Datastore's order (`MergeRule.isLess`); a tie takes LOCAL's.
    case max
    /// The smaller value; a tie takes REMOTE's.
    case min
    /// For numbers: REMOTE's value plus LOCAL's change (LOCAL − BASE); otherwise as `remote`.
    case sum

    /// The value this rule keeps of `local` and `remote` (`base`: the value both changed;
    /// `field`: its type, which a sum must fit), and whether the rule had to fall back to
    /// `remote` (a sum of what is no number, or does not fit).
    func resolve(base: Value?, local: Value?, remote: Value?, field: FieldDescriptor) -> (value: Value?, fellBack: Bool) {
        switch self {
        case .remote: return (remote, false)
        case .local: return (local, false)
        case .max: return (Self.isLess(local, remote) ? remote : local, false)
        case .min: return (Self.isLess(local, remote) ? local : remote, false)
        case .sum:
            guard let sum = Self.sum(base: base, local: local, remote: remote), field.type.storage.map(sum.fits) ?? false else {
                return (remote, true)
            }
            return (sum, false)
        }
    }

    /// REMOTE + (LOCAL − BASE) for integers, currency and floats of one kind (an absent BASE is 0);
    /// nil for anything else, or an integer sum that overflows.
    static func sum(base: Value?, local: Value?, remote: Value?) -> Value? {
        switch (base ?? local.map(Self.zero) ?? nil, local, remote) {
        case (.integer(let b)?, .integer(let l)?, .integer(let r)?):
            let (change, o1) = l.subtractingReportingOverflow(b)
            let (total, o2) = r.addingReportingOverflow(change)
            return o1 || o2 ? nil : .integer(total)
        case (.currency(let b)?, .currency(let l)?, .currency(let r)?):
            let (change, o1) = l.scaled.subtractingReportingOverflow(b.scaled)
            let (total, o2) = r.scaled.addingReportingOverflow(change)
            return o1 || o2 ? nil : .currency(Currency(scaled: total))
        case (.float(let b)?, .float(let l)?, .float(let r)?): return .float(r + (l - b))
        case (.singleFloat(let b)?, .singleFloat(let l)?, .singleFloat(let r)?): return .singleFloat(r + (l - b))
        default: return nil
        }
    }

    /// The zero of `value`'s kind, for a sum over an absent BASE (an insert on both sides).
    static func zero(_ value: Value) -> Value? {
        switch value {
        case .integer: .integer(0)
        case .currency: .currency(Currency(scaled: 0))
        case .float: .float(0)
        case .singleFloat: .singleFloat(0)
        default: nil
        }
    }

    /// The Datastore's order of values (`../shared/reference/datastore-format.md` §7): NULL <
    /// boolean < number < text < bytes < date; numbers by value, text by its code units (8-bit
    /// text by its bytes), bytes (blobs, GUIDs) by their bytes, dates by time.
    static func isLess(_ a: Value?, _ b: Value?) -> Bool {
        let (rankA, rankB) = (rank(a), rank(b))
        guard rankA == rankB, let a, let b else { return rankA < rankB }
        switch (a, b) {
        case (.boolean(let x), .boolean(let y)): return (x != 0 ? 1 : 0) < (y != 0 ? 1 : 0)
        case (.integer(let x), .integer(let y)): return x < y
        case (.currency(let x), .currency(let y)): return x.scaled < y.scaled
        case (.dateTime(let x), .dateTime(let y)):
            // By time: OLE dates before 1899-12-30 count days back but hours forward.
            guard let mx = x.millisecondsSinceEpoch, let my = y.millisecondsSinceEpoch else { return x.value < y.value }
            return mx < my
        default:
            switch rankA {
            case 2: return (number(a) ?? 0) < (number(b) ?? 0)
            case 3: return codeUnits(a).lexicographicallyPrecedes(codeUnits(b))
            default: return bytes(a).lexicographicallyPrecedes(bytes(b))
            }
        }
    }

    private static func rank(_ value: Value?) -> Int {
        switch value {
        case nil: 0
        case .boolean?: 1
        case .integer?, .largeUInt?, .float?, .singleFloat?, .currency?, .decimal?: 2
        case .ansiString?, .wideString?: 3
        case .blob?, .guid?: 4
        case .dateTime?: 5
        }
    }

    private static func number(_ value: Value) -> Double? {
        switch value {
        case .integer(let x): Double(x)
        case .largeUInt(let x): Double(x)
        case .float(let x): x
        case .singleFloat(let x): Double(x)
        case .currency(let x): Double(x.scaled) / 10_000
        case .decimal(let x): Double(x.description)
        default: nil
        }
    }

    /// Text's UTF-16 code units, as JavaScript's `<` compares strings: a wide string's own
    /// (little-endian pairs), an 8-bit one's read as UTF-8.
    private static func codeUnits(_ value: Value) -> [UInt16] {
        switch value {
        case .wideString(let text):
            let bytes = Array(text.bytes)
            return stride(from: 0, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
        case .ansiString(let text): return Array(String(decoding: text.bytes, as: UTF8.self).utf16)
        default: return []
        }
    }

    private static func bytes(_ value: Value) -> [UInt8] {
        switch value {
        case .blob(let bytes), .guid(let bytes): Array(bytes.bytes)
        default: []
        }
    }
}
