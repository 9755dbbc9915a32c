// A pending change as the streaming export keeps it until the end of the document
// (Spec/datastore-mapping.md §2.3): in a `ByteSpool`, not in memory. The `deltas` member and the
// `briefcase` member's change objects are written from these bytes once every change is known.

import BriefcaseKit
import DatastoreKit

/// One pending change in the spool: a fixed header (`headerSize` bytes), then the datastore record
/// id, the change's datastore form (empty when it was not applied) and its object in the
/// `briefcase` member, cut where `,"rev":R,"change":C` goes once it is placed in a delta.
struct SpooledChange {
    static let insert = UInt8(ascii: "I"), update = UInt8(ascii: "U"), delete = UInt8(ascii: "D")
    /// Seven 64-bit numbers: tag, briefcase record id, size, and the four lengths.
    static let headerSize = 7 * 8

    /// 0 when the change was not applied (it has no datastore change), else I, U or D.
    var tag: UInt8 = 0
    /// The briefcase change's record id (the `DatastoreSnapshot` property names changes by it).
    var recordID: Int32
    /// The change size (100 + …, `datastore-format.md` §5), Bytes counted the conservative way.
    var size = DatastoreSize.baseChange
    /// Where the parts are in the spool (when read back).
    var rowid: Range<Int> = 0..<0
    var change: Range<Int> = 0..<0
    var entryHead: Range<Int> = 0..<0
    var entryTail: Range<Int> = 0..<0

    init(recordID: Int32) {
        self.recordID = recordID
    }

    var isApplied: Bool { tag != 0 }

    /// Appends the change: `entry` is its member object, `split` where the placement goes.
    func append(rowid: String, change: UnsafeRawBufferPointer, entry: [UInt8], split: Int, to spool: ByteSpool) {
        var rowid = rowid
        rowid.withUTF8 { id in
            let header = (Int64(tag), Int64(recordID), Int64(size), Int64(id.count), Int64(change.count), Int64(split),
                          Int64(entry.count - split))
            withUnsafeBytes(of: header) { spool.append($0) }
            spool.append(UnsafeRawBufferPointer(id))
        }
        spool.append(change)
        spool.append(entry)
    }

    /// The change spooled at `offset`; the next one starts at `entryTail.upperBound`.
    static func read(at offset: Int, from spool: ByteSpool) throws(BriefcaseError) -> SpooledChange {
        let header = try spool.bytes(offset..<offset + headerSize)
        func number(_ index: Int) -> Int { Int(header.loadUnaligned(fromByteOffset: index * 8, as: Int64.self)) }
        guard let tag = UInt8(exactly: number(0)), let recordID = Int32(exactly: number(1)) else {
            throw BriefcaseError(.invalidModel, "internal: the spooled changes are damaged")
        }
        var read = SpooledChange(recordID: recordID)
        read.tag = tag
        read.size = number(2)
        var position = offset + headerSize
        func next(_ index: Int) throws(BriefcaseError) -> Range<Int> {
            let count = number(index)
            guard count >= 0 else { throw BriefcaseError(.invalidModel, "internal: the spooled changes are damaged") }
            defer { position += count }
            return position..<position + count
        }
        read.rowid = try next(3)
        read.change = try next(4)
        read.entryHead = try next(5)
        read.entryTail = try next(6)
        return read
    }
}

/// A pending change by its place in the briefcase: delta element and index in it.
struct PendingChangeKey: Hashable {
    var element: Int
    var index: Int
}
