import BriefcaseKit

/// Random briefcases for the snapshot export's round trip (SnapshotExportTests), and their values for the round-trip property (RoundTripPropertyTests): every data type,
/// the edge values each mapping treats apart (NaN, invalid UTF-8, unpaired surrogates, booleans
/// other than 0/1, currencies beyond 10^15, large unsigned integers, sub-millisecond dates,
/// decimals of every scale), record-id and JSON columns, keys, and deltas of every kind.
public enum RandomBriefcase {
    public static let types: [DataType] = DataType.allKnown.filter { $0.storage != nil }

    public static func make(_ random: inout SplitMix) -> BriefcaseDocument {
        var elements: [Element] = []
        for t in 0..<(1 + random.below(3)) {
            let name = ByteString(utf8: ["Orders", "客户", "a b", "Items", "x"][random.below(5)] + (t == 0 ? "" : "\(t)"))
            var fields: [FieldDescriptor] = [FieldDescriptor(name: "ID", type: .integer)]
            // Every list has the same three properties (a Bin2 schema has one count for all).
            var properties: [[SchemaProperty]] = [[SchemaProperty("Name", "ID"), SchemaProperty("InPrimaryKey", random.chance(50) ? "True" : "False"),
                                                   SchemaProperty("CustomAttributes", "")]]
            for c in 0..<(1 + random.below(8)) {
                let type = types[random.below(types.count)]
                let fieldName = random.chance(10) ? "ID" : "F\(c)"
                fields.append(FieldDescriptor(name: ByteString(utf8: fieldName), type: type))
                let isText = type.storage == .ansiString || type.storage == .wideString
                let attribute = isText && random.chance(20) ? (random.chance(50) ? "Datastore.RecordID" : "Datastore.JSON") : ""
                properties.append([SchemaProperty("Name", fieldName), SchemaProperty("InPrimaryKey", "False"),
                                   SchemaProperty("CustomAttributes", attribute)])
            }
            let schema = random.chance(80) ? Schema(fields: properties) : nil
            var rows: [Row] = []
            for r in 0..<random.below(30) {
                var row: Row = [random.chance(90) ? .integer(Int64(r % 25)) : nil]
                for field in fields.dropFirst() { row.append(random.chance(15) ? nil : value(field.type, &random)) }
                rows.append(row)
            }
            let table = Table(name: name, schema: schema, fields: fields, rows: rows)
            let logged = fields.map { LoggedField(name: $0.name, type: $0.type) }
            var changes: [DeltaChange] = []
            for k in 0..<random.below(8) {
                let kind = [ChangeType.insert, .update, .delete][random.below(3)]
                let key: Value = .integer(Int64(random.below(30)))
                var old: [Value?] = [kind == .insert ? nil : key]
                var new: [Value?] = [kind == .delete ? nil : (kind == .insert ? .integer(Int64(100 + k)) : nil)]
                for field in fields.dropFirst() {
                    old.append(kind != .insert && random.chance(30) ? value(field.type, &random) : nil)
                    new.append(kind != .delete && random.chance(60) ? value(field.type, &random) : nil)
                }
                changes.append(DeltaChange(type: kind, recordID: Int32(k), oldValues: old, newValues: new))
            }
            let hasDelta = !changes.isEmpty || random.chance(30)
            let delta = Delta(name: random.chance(80) ? name : ByteString(utf8: "Gone\(t)"), loggedFields: logged,
                              keyFields: random.chance(50) ? ["ID"] : [], reducedDeltaFlag: random.chance(50) ? 1 : 0, changes: changes)
            if hasDelta && random.chance(50) { elements.append(.delta(delta)) }
            if random.chance(95) { elements.append(.table(table)) }
            if hasDelta && !elements.contains(.delta(delta)) { elements.append(.delta(delta)) }
        }
        let container: ContainerFormat = random.chance(80) ? .dabriefcase : .bin2
        // (A bare stream has no properties.)
        return BriefcaseDocument(container: container, file: BriefcaseFile(
            properties: container == .dabriefcase ? [BriefcaseProperty(name: "Version", value: "1")] : [], stream: Bin2Stream(elements: elements)))
    }

    public static func value(_ type: DataType, _ random: inout SplitMix) -> Value {
        switch type.storage! {
        case .ansiString:
            switch random.below(6) {
            case 0: return .ansiString(ByteString([0xff, 0x41]))  // not UTF-8
            case 1: return .ansiString(ByteString(utf8: "[1,\"a\",{\"I\":\"3\"}]"))
            case 2: return .ansiString(ByteString(utf8: "quote \" back \\ tab \t nl \n \u{1} é 中"))
            case 3: return .ansiString(ByteString(utf8: String(repeating: "long text ", count: 1 + random.below(40))))
            case 4: return .ansiString(ByteString([0xd6, 0xd0]))  // 中 in GBK
            default: return .ansiString(ByteString(utf8: "v\(random.below(1000))"))
            }
        case .wideString:
            switch random.below(5) {
            case 0: return .wideString(ByteString([0x00, 0xd8, 0x41, 0x00]))  // unpaired surrogate
            case 1: return .wideString(ByteString([0x41]))  // odd length
            case 2: return .wide("emoji 😀 \"q\" \u{0} 中文")
            case 3: return .wide("[true,2.5]")
            default: return .wide("w\(random.below(1000))")
            }
        case .dateTime:
            switch random.below(4) {
            case 0: return .dateTime(OLEDateTime(.nan))
            case 1: return .dateTime(OLEDateTime(45_000.123_456_789))  // sub-millisecond
            case 2: return .dateTime(OLEDateTime(-700_000))
            default: return .dateTime(OLEDateTime(oleMilliseconds: Int64(random.below(4_000_000_000)) * 1000))
            }
        case .float64:
            let pick = [Double.nan, -Double.nan, .infinity, -.infinity, -0.0, 0.1, 1e300, .leastNonzeroMagnitude,
                        Double(bitPattern: random.next())]
            return .float(pick[random.below(pick.count)])
        case .float32:
            let pick = [Float.nan, .infinity, -0.0, 0.1, Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))]
            return .singleFloat(pick[random.below(pick.count)])
        case .currency:
            let pick: [Int64] = [0, 1, -1, 15_000, 999_999_999_999_999, 1_000_000_000_000_000, .max, .min,
                                 Int64(bitPattern: random.next()) >> Int64(random.below(64))]
            return .currency(Currency(scaled: pick[random.below(pick.count)]))
        case .int8: return .integer(Int64(Int8(truncatingIfNeeded: random.next())))
        case .int16: return .integer(Int64(Int16(truncatingIfNeeded: random.next())))
        case .int32: return .integer(Int64(Int32(truncatingIfNeeded: random.next())))
        case .int64: return .integer(random.chance(20) ? .min : Int64(bitPattern: random.next()))
        case .uint8: return .integer(Int64(UInt8(truncatingIfNeeded: random.next())))
        case .uint16: return .integer(Int64(UInt16(truncatingIfNeeded: random.next())))
        case .uint32: return .integer(Int64(UInt32(truncatingIfNeeded: random.next())))
        case .uint64: return .largeUInt(random.chance(50) ? random.next() : UInt64(random.below(1000)))
        case .boolean: return .boolean(UInt8(random.below(3)))
        case .blob: return .blob(ByteString((0..<random.below(10)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        case .guid:
            return random.chance(80) ? .guid(ByteString(utf8: "{12345678-1234-1234-1234-1234567890AB}".dropFirst().dropLast().description))
                                      : .guid(ByteString(Array(repeating: 0xff, count: 36)))
        case .decimal:
            let text = ["0", "1.50", "-0.001", "79228162514264337593543950335", "0.0000000000000000000000000001",
                        "123456789.123456789", "-0", "0.00", "100", "2.5000", "-999999999999999", "1000000000000000",
                        "0.\(random.below(100000))", "-\(random.below(100000)).\(random.below(1000))",
                        "\(random.below(100000))"][random.below(15)]
            return .decimal(Decimal96(text)!)
        }
    }
}

/// The seeded generator of `RandomBriefcase`: SplitMix64 from an offset seed, with the helpers it uses.
public typealias SplitMix = SplitMix64

extension SplitMix64 {
    public init(seed: UInt64) { self.init(state: seed &+ 0x1234_5678) }
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    public mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}
