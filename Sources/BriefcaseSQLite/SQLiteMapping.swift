import BriefcaseKit
import CZlib

/// The briefcase ↔ SQLite mapping of Spec/sqlite-mapping.md: the names of the tables that give
/// the file back, and each data type's declared SQL type.
public enum SQLiteMapping {
    /// The mapping's version, in `_briefcase` under `format`. Version 3: every table with fields
    /// has a current-rows table (a derived name where its own is taken, `SQLiteNames`), NaN shows
    /// as the text `NaN` (not NULL, which a user may write). Version 2: `_briefcase_stored_N`
    /// holds only the stored rows the pending changes update or delete (version 1 held every
    /// stored row).
    public static let format = "briefcase-sqlite 3"
    /// The versions read (Spec/sqlite-mapping.md §5 says how the older ones are read).
    public static let readableFormats: Set<String> = ["briefcase-sqlite 1", "briefcase-sqlite 2", format]

    /// What `_briefcase` holds: the head, one value per key.
    static let headTable = "_briefcase"
    /// Every element in stream order, with its exact bytes (a one-element Bin2 stream).
    static let elementsTable = "_briefcase_elements"
    static let propertiesTable = "_briefcase_properties"
    static let fieldsTable = "_briefcase_fields"
    static let schemaTable = "_briefcase_schema"
    static let changesTable = "_briefcase_changes"
    /// The stored rows a table's pending changes update or delete (only for a table whose pending
    /// delta has changes).
    static func storedRowsTable(position: Int) -> String { "_briefcase_stored_\(position)" }

    /// Names a briefcase table cannot take: they are the mapping's own (SQLite's `sqlite_` too).
    static func isReserved(_ name: String) -> Bool {
        let lower = name.asciiLowercased
        return lower.hasPrefix("_briefcase") || lower.hasPrefix("sqlite_")
    }

    /// The declared SQL type of a field: one SQLite tools understand, whose affinity keeps the
    /// value as written (Spec/sqlite-mapping.md §3).
    public static func declaredType(_ type: DataType) -> String {
        switch type.storage {
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64: return "INTEGER"
        case .float32, .float64: return "REAL"
        case .boolean: return "BOOLEAN"
        case .dateTime: return "DATETIME"
        case .blob: return "BLOB"
        case .ansiString, .wideString, .guid, .currency, .decimal: return "TEXT"
        case nil: return "BLOB"
        }
    }

    /// The CRC-32 (zlib's) of an element's bytes, kept beside them in `_briefcase_elements.checksum`
    /// (version 3): bytes edited with SQL are told from the bytes written, and refused
    /// (Spec/sqlite-mapping.md §5).
    static func checksum(_ bytes: [UInt8]) -> Int64 {
        var crc: UInt = crc32(0, nil, 0)
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                let count = min(buffer.count - start, 1 << 30)
                crc = crc32(crc, buffer.baseAddress! + start, uInt(count))
                start += count
            }
        }
        return Int64(crc)
    }
}
