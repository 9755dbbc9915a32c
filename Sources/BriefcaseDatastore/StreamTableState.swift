// A table of a streamed snapshot export: what stays for the whole export (ids, roles) and what
// only its own mapping needs (rows, record ids), dropped once it is written.

import BriefcaseKit

/// One table (or a delta without a table) while streaming: its columns' roles and, while its
/// rows are being mapped, its rows and record ids.
final class StreamTableState {
    let tid: String
    let name: ByteString
    let display: String
    /// The table; whole only while it is being mapped (and its deltas replayed).
    var table: Table
    /// The table's head (no rows), what is kept afterwards: the decoded table's names are slices
    /// of its element's bytes, which keeping them would keep whole.
    let head: Table
    let roles: [ColumnRole]
    let keyColumns: [Int]
    var slotIDs: [String] = []
    var live = IDAllocator()

    init(tid: String, name: ByteString, display: String, table: Table, roles: [ColumnRole], keyColumns: [Int]) {
        self.tid = tid
        self.name = name
        self.display = display
        self.table = table
        head = table
        self.roles = roles
        self.keyColumns = keyColumns
    }

    var recordIDColumn: Int? { roles.firstIndex(of: .recordID) }

    /// Drops what only the mapping of the rows needed.
    func release() {
        table = head
        slotIDs = []
        live = IDAllocator()
    }
}
