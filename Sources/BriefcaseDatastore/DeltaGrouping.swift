/// How the pending changes of a briefcase become datastore deltas (`SnapshotStreamer`): one delta
/// per applied change, or
/// the grouping that the `DatastoreSnapshot` property recorded when the snapshot was imported
/// (Spec/datastore-mapping.md).
enum DeltaGrouping {
    /// What the grouping needs to know of one pending change, in briefcase order.
    struct Change {
        var tableName: String?
        var recordID: Int32
        /// Whether the change became a datastore change (failed and no-op changes do not).
        var applied: Bool
        /// Its table: per table, changes keep their order.
        var table: ObjectIdentifier
    }

    /// The deltas as members (indices into `changes`) with the recorded nonce, if any; and
    /// whether recorded `hinted` groups were given but do not describe these changes (then: one
    /// delta per change).
    static func groups(_ changes: [Change], rev: Int, hinted: [SnapshotHints.DeltaGroup]?)
        -> (groups: [(nonce: String?, members: [Int])], hintsIgnored: Bool) {
        if let hinted {
            if let regrouped = regroup(changes, rev: rev, hinted: hinted) { return (regrouped, false) }
        }
        let single = changes.indices.compactMap { i in changes[i].applied ? (nil as String?, [i]) : nil }
        return (single, hinted != nil)
    }

    private static func regroup(_ changes: [Change], rev: Int, hinted: [SnapshotHints.DeltaGroup]) -> [(nonce: String?, members: [Int])]? {
        struct Ref: Hashable { var table: String; var recordID: Int32 }
        var candidates: [Ref: [Int]] = [:]   // the changes a reference can name, in order
        for index in changes.indices.reversed() {
            guard let table = changes[index].tableName else { continue }
            candidates[Ref(table: table, recordID: changes[index].recordID), default: []].append(index)
        }
        var used = Set<Int>()
        var result: [(nonce: String?, members: [Int])] = []
        var lastInTable: [ObjectIdentifier: Int] = [:]
        for (position, group) in hinted.enumerated() {
            guard group.rev == rev + position else { return nil }
            var members: [Int] = []
            for ref in group.changes {
                guard let index = candidates[Ref(table: ref.table, recordID: ref.recordID)]?.popLast(),
                      changes[index].applied else { return nil }
                let table = changes[index].table
                if let last = lastInTable[table], last > index { return nil }  // per table, change order is kept
                lastInTable[table] = index
                used.insert(index)
                members.append(index)
            }
            result.append((group.nonce, members))
        }
        return used.count == changes.count ? result : nil
    }
}

/// A delta's nonce when the briefcase does not record one: 10 URL-safe base64 characters from the
/// FNV-1a hash of the delta's revision and its changes' tags, table ids and record ids, so the
/// same briefcase always gives the same document. Fed the UTF-8 of each change in turn (the
/// export reads them back from its spool as bytes).
struct DeltaNonce {
    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325

    /// Starts with the revision's decimal text (`String(rev)`, without making the String).
    init(rev: Int) {
        if rev < 0 { mix(UInt8(ascii: "-")) }
        let magnitude = rev.magnitude
        var divisor: UInt = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            mix(UInt8(truncatingIfNeeded: magnitude / divisor % 10) &+ UInt8(ascii: "0"))
            divisor /= 10
        }
        endText()
    }

    mutating func add(tag: some Sequence<UInt8>, tableID: some Sequence<UInt8>, recordID: some Sequence<UInt8>) {
        mix(tag)
        mix(tableID)
        mix(recordID)
    }

    /// One text: its bytes, then an end mark.
    private mutating func mix(_ text: some Sequence<UInt8>) {
        for byte in text { mix(byte) }
        endText()
    }

    @inline(__always)
    private mutating func mix(_ byte: UInt8) {
        hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }

    private mutating func endText() {
        hash = (hash ^ 0xff) &* 0x0000_0100_0000_01b3
    }

    var text: String {
        var hash = hash
        var text: [UInt8] = []
        text.reserveCapacity(10)
        for _ in 0..<10 {
            text.append(Self.alphabet[Int(hash & 63)])
            hash = (hash >> 6) | (hash << 58)
            hash = hash &* 0x9e37_79b9_7f4a_7c15
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}
