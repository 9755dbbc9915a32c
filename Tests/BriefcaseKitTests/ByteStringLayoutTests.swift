import BriefcaseTestSupport
import Testing
@testable import BriefcaseKit

/// The two-word `ByteString` (owning array + 32-bit start and count) and the 24-byte `Value?` it
/// allows: sizes, slice indices, equality across representations, and decoded values sharing the
/// file buffer at the right offsets.
@Suite struct ByteStringLayoutTests {
    @Test func valueIsTwoWords() {
        #expect(MemoryLayout<ByteString>.size == 16)
        #expect(MemoryLayout<Value>.stride == 16)
        #expect(MemoryLayout<Value?>.stride == 16)
        #expect(MemoryLayout<Row.Element>.stride == 16)
        // The other payloads take 8 bytes; Decimal96 takes 16 without a spare bit, hence its box.
        #expect(MemoryLayout<Decimal96>.size == 16)
        #expect(MemoryLayout<Currency>.size == 8)
        #expect(MemoryLayout<OLEDateTime>.size == 8)
    }

    /// The boxed decimal case still compares, hashes and round-trips by value.
    @Test func boxedDecimalIsAValue() throws {
        let a = Value.decimal(Decimal96(low: 12345, mid: 0, high: 0, flags: 2 << 16))
        let b = Value.decimal(Decimal96(low: 12345, mid: 0, high: 0, flags: 2 << 16))
        let c = Value.decimal(Decimal96(low: 12345, mid: 0, high: 0, flags: 3 << 16))
        #expect(a == b && a != c && a.hashValue == b.hashValue)
        let decimal: Decimal96? = if case .decimal(let d) = a { d } else { nil }
        #expect(try #require(decimal).description == "123.45")
        #expect(a.fits(.decimal) && !a.fits(.blob))
    }

    @Test func bufferRangeKeepsIndicesAndSharesStorage() {
        let buffer: [UInt8] = Array(0..<200).map { UInt8($0) }
        let string = ByteString(buffer, range: 37 ..< 41)
        #expect(string.count == 4)
        #expect(string.bytes.startIndex == 37)
        #expect(string.bytes.endIndex == 41)
        #expect(Array(string.bytes) == [37, 38, 39, 40])
        #expect(string.array == [37, 38, 39, 40])
        string.withUnsafeBufferPointer { pointer in
            buffer.withUnsafeBufferPointer { whole in
                #expect(pointer.baseAddress == whole.baseAddress! + 37) // no copy
                #expect(pointer.count == 4)
            }
        }
        let empty = ByteString(buffer, range: 200 ..< 200)
        #expect(empty.isEmpty && empty.count == 0 && empty.bytes.isEmpty)
        #expect(empty == .empty)
    }

    @Test func equalityAndHashIgnoreWhereBytesLive() {
        let buffer: [UInt8] = Array("xxhelloyyhello".utf8)
        let a = ByteString(buffer, range: 2 ..< 7)
        let b = ByteString(buffer, range: 9 ..< 14)
        let c: ByteString = "hello"
        let d = ByteString(buffer[2 ..< 7]) // copied
        #expect(a == b && b == c && c == d)
        #expect(Set([a, b, c, d]).count == 1)
        #expect(a.hashValue == c.hashValue)
        #expect(a != ByteString(buffer, range: 2 ..< 6))
        #expect(a != ByteString(buffer, range: 1 ..< 6))
        #expect(d.bytes.startIndex == 0)
        #expect(a.utf8String == "hello" && a.isASCII)
        #expect(a.description == "hello")
    }

    @Test func settingBytesReplacesThem() {
        let buffer: [UInt8] = [1, 2, 3, 4, 5, 6]
        var string = ByteString(buffer, range: 1 ..< 4)
        string.bytes.append(9)
        #expect(Array(string.bytes) == [2, 3, 4, 9])
        string.bytes = buffer[4...]
        #expect(string.array == [5, 6])
        #expect(buffer == [1, 2, 3, 4, 5, 6]) // the shared buffer is untouched
        let wide = ByteString([0xFF, 0x00, 0x80])
        #expect(!wide.isASCII && wide.utf8String == nil && wide.description == "<3 bytes>")
    }

    /// Decoded strings, blobs and GUIDs are slices of the input at their file offsets, by both the
    /// fast row path and the checking one (a row with set mask padding bits goes the checking way).
    @Test func decodedValuesPointIntoTheBuffer() throws {
        var offsets: [Int] = []
        var paddedMask = 0
        let guid = "01234567-89AB-CDEF-0123-456789ABCDEF"
        let bytes = Bytes.build { b in
            b.ascii("DABIN200")
            b.i32(0) // index position, patched below
            b.u8(0); b.i32(0)                   // no schema, schema end 0
            b.i32(2)                            // rows
            b.i32(3)                            // fields
            b.field("S", 1); b.field("B", 10); b.field("G", 20) // datString, datBlob, datGuid
            for (row, padding) in [(0, UInt8(0)), (1, UInt8(0x80))] { // row 1: padding bit set
                if padding != 0 { paddedMask = b.bytes.count }
                b.u8(padding)
                b.i32(3); offsets.append(b.bytes.count); b.ascii("r\(row)s")
                b.i32(2); offsets.append(b.bytes.count); b.raw([0xB0, UInt8(row)])
                offsets.append(b.bytes.count); b.ascii(guid)
            }
            let index = Int32(b.bytes.count)
            b.i32(1); b.i32(0); b.str("T"); b.i32(12)
            withUnsafeBytes(of: index.littleEndian) { b.bytes.replaceSubrange(8 ..< 12, with: $0) }
        }
        let (stream, warnings) = try decodeBin2(bytes)
        #expect(warnings.count == 1) // the padding bit of row 1
        let table = try #require(stream.elements.first?.asTable)
        #expect(table.rows.count == 2)
        var found: [Int] = []
        for row in table.rows {
            for value in row {
                switch value {
                case .ansiString(let s)?, .blob(let s)?, .guid(let s)?: found.append(s.bytes.startIndex)
                default: Issue.record("unexpected \(String(describing: value))")
                }
            }
        }
        #expect(found == offsets)
        #expect(table.rows[1] == [.ansiString("r1s"), .blob(ByteString([0xB0, 1])), .guid(ByteString(utf8: guid))])
        var expected = bytes
        expected[paddedMask] = 0 // the encoder writes clean padding bits
        #expect(try Bin2Encoder.encode(stream) == expected)
    }
}
