import BriefcaseKit
import Foundation

// MARK: - Small helpers

/// UTF-8 bytes.
func u(_ text: String) -> ByteString { ByteString(utf8: text) }

/// 8-bit string value (UTF-8 bytes).
func ansi(_ text: String) -> Value { .ansiString(u(text)) }

func wide(_ text: String) -> Value { .wide(text) }

func int(_ value: Int64) -> Value { .integer(value) }

func blob(_ bytes: [UInt8]) -> Value { .blob(ByteString(bytes)) }

func guid(_ text: String) -> Value {
    precondition(text.utf8.count == 36)
    return .guid(u(text))
}

func decimal(_ text: String) -> Value {
    guard let value = Decimal96(text) else { fatalError("bad decimal literal \(text)") }
    return .decimal(value)
}

func date(_ value: Double) -> Value { .dateTime(OLEDateTime(value)) }

func money(_ scaled: Int64) -> Value { .currency(Currency(scaled: scaled)) }

/// GBK (code page 936) bytes, written by hand (checked with Python's `gbk` codec).
enum GBK {
    /// 课程名称
    static let courseName: [UInt8] = [0xbf, 0xce, 0xb3, 0xcc, 0xc3, 0xfb, 0xb3, 0xc6]
    /// 课程编号
    static let courseNo: [UInt8] = [0xbf, 0xce, 0xb3, 0xcc, 0xb1, 0xe0, 0xba, 0xc5]
    /// 数据库原理
    static let databasePrinciples: [UInt8] = [0xca, 0xfd, 0xbe, 0xdd, 0xbf, 0xe2, 0xd4, 0xad, 0xc0, 0xed]
}

/// A column: row-section descriptor plus the schema properties .NET would write for it.
struct Column {
    var name: ByteString
    var schemaName: String
    var type: DataType
    var size: Int32
    var primaryKey = false
    var logChanges = true
    /// `Description`; nil is stored as length -1.
    var description: String? = ""

    init(_ name: String, _ type: DataType, size: Int32 = 0, primaryKey: Bool = false, logChanges: Bool = true, description: String? = "") {
        self.name = u(name)
        self.schemaName = name
        self.type = type
        self.size = size
        self.primaryKey = primaryKey
        self.logChanges = logChanges
        self.description = description
    }

    /// A column whose 8-bit name is in another code page than its UTF-8 schema name.
    init(rawName: [UInt8], schemaName: String, _ type: DataType, size: Int32 = 0) {
        self.name = ByteString(rawName)
        self.schemaName = schemaName
        self.type = type
        self.size = size
    }

    var descriptor: FieldDescriptor { FieldDescriptor(name: name, type: type, size: size) }
    var logged: LoggedField { LoggedField(name: name, type: type) }

    /// Name, DataType, InPrimaryKey, LogChanges, Size, Description — a subset of the 29 .NET
    /// properties, in .NET's relative order, with .NET's value spellings.
    var schemaProperties: [SchemaProperty] {
        [
            SchemaProperty("Name", schemaName),
            SchemaProperty("DataType", type.name),
            SchemaProperty("InPrimaryKey", primaryKey ? "True" : "False"),
            SchemaProperty("LogChanges", logChanges ? "True" : "False"),
            SchemaProperty("Size", String(size)),
            SchemaProperty("Description", description),
        ]
    }
}

func table(_ name: String, _ columns: [Column], rows: [Row], withSchema: Bool = true,
           parameterPropertyCount: Int = 12, schemaEndWhenAbsent: SchemaEndMarker = .zero) -> Table {
    for row in rows { precondition(row.count == columns.count, "row width") }
    let schema = withSchema
        ? Schema(fieldPropertyCount: 6, fields: columns.map(\.schemaProperties), parameterPropertyCount: parameterPropertyCount, parameters: [])
        : nil
    return Table(name: u(name), schema: schema, fields: columns.map(\.descriptor), rows: rows, schemaEndWhenAbsent: schemaEndWhenAbsent)
}

func file(_ elements: [Element], properties: [BriefcaseProperty] = []) throws -> [UInt8] {
    try BriefcaseFileCodec.encode(BriefcaseFile(properties: properties, stream: Bin2Stream(elements: elements)))
}

func le32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }

func patch32(_ bytes: inout [UInt8], at offset: Int, expecting old: Int32, with value: Int32) {
    precondition(Array(bytes[offset ..< offset + 4]) == le32(old), "layout changed: Int32 at \(offset) is not \(old)")
    bytes.replaceSubrange(offset ..< offset + 4, with: le32(value))
}
