/// A delta's nonce made from its content, where no client drew one (Spec/datastore-mapping.md
/// §2.2, Spec/merge.md §5): 10 URL-safe base64 characters from the FNV-1a hash of the delta's
/// revision and its changes' tags, table ids and record ids, so the same input always gives the
/// same document. Fed the UTF-8 of each change in turn (the snapshot export reads them back from
/// its spool as bytes).
package struct DeltaNonce {
    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325

    /// Starts with the revision's decimal text (`String(rev)`, without making the String).
    package init(rev: Int) {
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

    package mutating func add(tag: some Sequence<UInt8>, tableID: some Sequence<UInt8>, recordID: some Sequence<UInt8>) {
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

    package var text: String {
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

extension DatastoreDelta {
    /// The nonce `DeltaNonce` makes of a delta at `rev` holding `changes`.
    package static func derivedNonce(rev: Int, changes: [DatastoreChange]) -> String {
        var nonce = DeltaNonce(rev: rev)
        for change in changes {
            nonce.add(tag: change.tag.utf8, tableID: change.tableID.utf8, recordID: change.recordID.utf8)
        }
        return nonce.text
    }
}
