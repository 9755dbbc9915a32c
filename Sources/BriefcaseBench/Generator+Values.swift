#if canImport(Glibc)
import Glibc
#endif
import JSONCore
import BriefcaseKit
import Foundation

/// The generator's values: each column's value for a row, and its size as encoded.
extension Generator {
    // MARK: values

    func makeValue(_ column: Column, row: Int, random: inout SplitMix64) -> Value {
        let storage = column.type.storage!
        func text(_ length: ClosedRange<Int>, cjk: Bool) -> Value {
            let bytes = TextMaker.text(&random, length: random.logUniform(length), cjk: cjk, wide: storage == .wideString)
            return storage == .wideString ? .wideString(ByteString(bytes)) : .ansiString(ByteString(bytes))
        }
        func ascii(_ bytes: [UInt8]) -> Value {
            if storage == .wideString { return .wideString(ByteString(bytes.flatMap { [$0, 0] })) }
            return .ansiString(ByteString(bytes))
        }
        switch column.gen {
        case .sequence:
            return .integer(Int64(row + 1))
        case .reference(let max):
            return .integer(Int64(random.int(1...max)))
        case .words(let length):
            return text(length, cjk: false)
        case .mixed(let length):
            return text(length, cjk: random.next() % 3 == 0)
        case .cjk(let length):
            return text(length, cjk: true)
        case .code(let length):
            let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789".utf8)
            return ascii((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
        case .email:
            let name = TextMaker.words[Int(random.next() % UInt64(TextMaker.words.count))].utf8
            let domain = TextMaker.words[Int(random.next() % UInt64(TextMaker.words.count))].utf8
            return ascii(name + Array(".\(random.int(1...999))@".utf8) + domain + Array(".example.com".utf8))
        case .date:
            // 2000-01-01 … 2030-12-31, whole seconds most of the time, milliseconds otherwise.
            let day = Int64(random.int(36_526...47_848))
            var ms = Int64(random.int(0...86_399)) * 1000
            if random.next() % 4 == 0 { ms += Int64(random.int(0...999)) }
            return .dateTime(OLEDateTime(oleMilliseconds: day * 86_400_000 + ms))
        case .money:
            return .currency(Currency(scaled: Int64(random.int(-50_000_000...2_000_000_000)) * (random.next() % 2 == 0 ? 100 : 1)))
        case .decimal:
            let scale = UInt32(random.int(0...4))
            let negative: UInt32 = random.next() % 8 == 0 ? 0x8000_0000 : 0
            let mid: UInt32 = random.next() % 10 == 0 ? UInt32(random.int(0...1000)) : 0
            return .decimal(Decimal96(low: UInt32(truncatingIfNeeded: random.next()), mid: mid, high: 0, flags: scale << 16 | negative))
        case .float:
            return .float(Double(random.int(-1_000_000...100_000_000)) / 100)
        case .single:
            return .singleFloat(Float(random.int(0...1_000_000)) / 1000)
        case .bool:
            return .boolean(random.next() % 3 == 0 ? 0 : 1)
        case .int(let range):
            let width = UInt64(bitPattern: range.upperBound &- range.lowerBound) &+ 1
            let offset = width == 0 ? random.next() : random.next() % width
            return .integer(range.lowerBound &+ Int64(bitPattern: offset))
        case .uint64:
            return .largeUInt(random.next())
        case .guid:
            let hex = Array("0123456789ABCDEF".utf8)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(36)
            var bits = random.next(), more = random.next()
            for i in 0..<32 {
                if i == 8 || i == 12 || i == 16 || i == 20 { bytes.append(UInt8(ascii: "-")) }
                bytes.append(hex[Int(bits & 15)])
                bits >>= 4
                if i == 15 { bits = more; more = 0 }
            }
            return .guid(ByteString(bytes))
        case .xml:
            var xml = Array("<attributes><color>".utf8)
            xml += TextMaker.text(&random, length: random.int(3...12), cjk: false, wide: false)
            xml += Array("</color><size>\(random.int(1...60))</size><note>".utf8)
            xml += TextMaker.text(&random, length: random.logUniform(10...300), cjk: random.next() % 4 == 0, wide: false)
            xml += Array("</note></attributes>".utf8)
            let text = String(decoding: xml, as: UTF8.self)
            return .wide(text)
        case .blob(let size):
            let count = random.logUniform(size)
            var bytes = [UInt8](repeating: 0, count: count)
            bytes.withUnsafeMutableBytes { raw in
                var i = 0
                while i + 8 <= count {
                    raw.storeBytes(of: random.next(), toByteOffset: i, as: UInt64.self)
                    i += 8
                }
                while i < count { raw[i] = UInt8(truncatingIfNeeded: random.next()); i += 1 }
            }
            return .blob(ByteString(bytes))
        }
    }

    /// Bytes a value takes in Bin2 (for sizing tables against their budget).
    static func encodedSize(_ value: Value, _ type: DataType) -> Int {
        switch value {
        case .ansiString(let s), .wideString(let s), .blob(let s): return 4 + s.count
        case .guid: return 36
        case .decimal: return 16
        case .dateTime, .float, .currency, .largeUInt: return 8
        case .singleFloat: return 4
        case .boolean: return 1
        case .integer: return type.storage!.minimumSize
        }
    }
}
