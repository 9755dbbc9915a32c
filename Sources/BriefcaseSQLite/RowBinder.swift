import BriefcaseJSON
import BriefcaseKit
import CSQLite
import JSONCore

/// Binds the values of rows to an insert statement, as `ValueImage.sql` shows them,
/// without making an `SQLValue` or a Swift string per value where SQLite stores the same thing:
/// integers and doubles straight; UTF-8 text, UTF-16 text made UTF-8, blobs, decimal and ISO date
/// text written into a buffer of the binder and bound without a copy (`SQLITE_STATIC`: SQLite copies them
/// once, into the row's record, when the statement runs). Other values (text in another code
/// page, text that does not decode) go through `sql(_:)`.
///
/// The bytes bound stay put until the statement has run: `finishRows()` (after the step) is the
/// only place the buffer is reused from the start, and a buffer outgrown before it is kept until
/// then.
final class RowBinder {
    let image: ValueImage
    /// Whether 8-bit text is UTF-8 (tested once, not by comparing code pages for every value).
    private let textIsUTF8: Bool
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var used = 0
    /// Buffers outgrown since the last `finishRows()`: their bytes are still bound.
    private var retired: [UnsafeMutablePointer<UInt8>] = []

    init(image: ValueImage) {
        self.image = image
        textIsUTF8 = image.codePage.isUTF8
        capacity = 64 * 1024
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        buffer.deallocate()
        for old in retired { old.deallocate() }
    }

    /// Room for `count` bytes at the end of the buffer.
    private func room(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        if used + count > capacity {
            retired.append(buffer)
            capacity = max(capacity * 2, count)
            buffer = .allocate(capacity: capacity)
            used = 0
        }
        return buffer + used
    }

    /// `bytes` copied into the buffer and bound (text in `encoding`, or a blob when nil).
    private func bindCopy(_ bytes: ByteString, encoding: Int32?, to statement: SQLiteStatement, at index: Int) throws(BriefcaseError) {
        let count = bytes.count
        let start = room(count)
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress, count > 0 { start.update(from: base, count: count) }
        }
        used += count
        // A pointer for empty text or an empty blob too (never nil, which would bind NULL).
        try statement.bindStatic(start, count: count, encoding: encoding, at: index)
    }

    /// Binds `value` to parameter `index` (from 1).
    func bind(_ value: Value?, to statement: SQLiteStatement, at index: Int) throws(BriefcaseError) {
        switch value {
        case nil: try statement.bind(.null, at: index)
        case .integer(let number)?: try statement.bindInteger(number, at: index)
        case .boolean(let byte)?: try statement.bindInteger(byte != 0 ? 1 : 0, at: index)
        case .largeUInt(let number)? where number <= UInt64(Int64.max): try statement.bindInteger(Int64(number), at: index)
        case .float(let number)? where !number.isNaN: try statement.bindReal(number, at: index)
        case .singleFloat(let number)? where !number.isNaN: try statement.bindReal(Double(number), at: index)
        case .blob(let bytes)?: try bindCopy(bytes, encoding: nil, to: statement, at: index)
        case .wideString(let text)?:
            // UTF-8 here rather than by SQLite (which converts UTF-16 text with a buffer of its
            // own for every value); text with an unpaired surrogate goes through `sql(_:)`.
            let start = room(text.count / 2 * 3)
            guard let count = text.withUnsafeBufferPointer({ WideText.utf8(fromUTF16LE: $0, to: start) }) else {
                return try statement.bind(image.sql(value), at: index)
            }
            used += count
            try statement.bindStatic(start, count: count, encoding: SQLITE_UTF8, at: index)
        case .ansiString(let text)? where textIsUTF8 && text.withUnsafeBufferPointer(UTF8Validation.isValid),
             .guid(let text)? where text.withUnsafeBufferPointer(UTF8Validation.isValid):
            try bindCopy(text, encoding: SQLITE_UTF8, to: statement, at: index)
        case .currency?, .decimal?:
            let start = room(DecimalText.longest)
            let count = DecimalText.write(value!, to: start) ?? 0
            used += count
            try statement.bindStatic(start, count: count, encoding: SQLITE_UTF8, at: index)
        case .dateTime(let date)?:
            let start = room(OLEDateTime.isoTextLength)
            if date.writeISOText(to: start) {
                used += OLEDateTime.isoTextLength
                try statement.bindStatic(start, count: OLEDateTime.isoTextLength, encoding: SQLITE_UTF8, at: index)
            } else {
                try statement.bind(image.sql(value), at: index)
            }
        default: try statement.bind(image.sql(value), at: index)
        }
    }

    /// Binds the bytes of a string, blob or GUID value as they lie in a row kept as bytes
    /// (`StoredRowBinding`), as `bind(_:to:at:)` binds the value they make: copied into the
    /// buffer (no `Value` made), text that is not UTF-8 through the value.
    func bind(_ storage: ValueStorage, _ bytes: UnsafeBufferPointer<UInt8>, to statement: SQLiteStatement, at index: Int) throws(BriefcaseError) {
        switch storage {
        case .blob: try bindCopy(bytes, encoding: nil, to: statement, at: index)
        case .ansiString where textIsUTF8 && UTF8Validation.isValid(bytes), .guid where UTF8Validation.isValid(bytes):
            try bindCopy(bytes, encoding: SQLITE_UTF8, to: statement, at: index)
        case .wideString:
            let start = room(bytes.count / 2 * 3)
            guard let count = WideText.utf8(fromUTF16LE: bytes, to: start) else {
                return try bind(Self.value(storage, bytes), to: statement, at: index)
            }
            used += count
            try statement.bindStatic(start, count: count, encoding: SQLITE_UTF8, at: index)
        default: try bind(Self.value(storage, bytes), to: statement, at: index)
        }
    }

    /// The value bytes stored as `storage` make (as the row reader makes it).
    private static func value(_ storage: ValueStorage, _ bytes: UnsafeBufferPointer<UInt8>) -> Value {
        let string = ByteString(Array(bytes))
        switch storage {
        case .ansiString: return .ansiString(string)
        case .wideString: return .wideString(string)
        case .guid: return .guid(string)
        default: return .blob(string)
        }
    }

    private func bindCopy(_ bytes: UnsafeBufferPointer<UInt8>, encoding: Int32?, to statement: SQLiteStatement, at index: Int) throws(BriefcaseError) {
        let count = bytes.count
        let start = room(count)
        if let base = bytes.baseAddress, count > 0 { start.update(from: base, count: count) }
        used += count
        try statement.bindStatic(start, count: count, encoding: encoding, at: index)
    }

    /// After the statement ran with the rows bound: the buffer is free again.
    func finishRows() {
        used = 0
        for old in retired { old.deallocate() }
        retired.removeAll(keepingCapacity: true)
    }
}
