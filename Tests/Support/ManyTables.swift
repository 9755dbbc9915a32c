import BriefcaseKit

/// A briefcase of many elements, for what decoding on several threads must do exactly as one
/// thread does: the tables and deltas of `groups` random briefcases (`RandomBriefcase`: every
/// type, deltas, text that is not UTF-8), each group's names prefixed so that no name repeats,
/// each group followed by a plain text table `PlainK` (one column, the rows "c", "d", "e") that
/// a test can damage or make warn (`damaged(_:broken:warning:)`).
public struct ManyTables {
    public let document: BriefcaseDocument
    /// The position (in the stream) of each plain table, `PlainK` at `plain[K]`.
    public let plain: [Int]

    public init(groups: Int, seed: UInt64, container: ContainerFormat = .dabriefcase) {
        var random = SplitMix(seed: seed)
        var elements: [Element] = [], plain: [Int] = []
        for group in 0 ..< groups {
            for element in RandomBriefcase.make(&random).file.stream.elements {
                let prefix = ByteString(utf8: "G\(group)-")
                switch element {
                case .table(var table): table.name = ByteString(prefix.bytes + table.name.bytes); elements.append(.table(table))
                case .delta(var delta): delta.name = ByteString(prefix.bytes + delta.name.bytes); elements.append(.delta(delta))
                }
            }
            plain.append(elements.count)
            elements.append(.table(Table(name: ByteString(utf8: "Plain\(group)"), fields: [FieldDescriptor(name: "Text", type: .string, size: 50)],
                                         rows: ["c", "d", "e"].map { [.ansiString(ByteString(utf8: $0))] })))
        }
        let properties = container == .dabriefcase ? [BriefcaseProperty(name: "Owner", value: "many tables")] : []
        document = BriefcaseDocument(container: container, file: BriefcaseFile(properties: properties, stream: Bin2Stream(elements: elements)))
        self.plain = plain
    }

    /// Where the damage of `damaged(_:broken:warning:)` shows: the plain table's name and offset.
    public struct Mark: Equatable, Sendable {
        public var name: String
        public var offset: Int
    }

    /// The briefcase's bytes with the plain tables numbered in `broken` unreadable — the last
    /// value announces 2^31-1 bytes, the failure at `Mark.offset` — and those in `warning` read
    /// with a decoding warning (a schema end of 7 without a schema, at its offset), both in
    /// stream order.
    public func damaged(broken: Set<Int>, warning: Set<Int>) throws -> (bytes: [UInt8], failures: [Mark], warnings: [Mark]) {
        var bytes = try document.encode()
        let start = document.container == .bin2 ? 0 : try BriefcaseFileCodec.readHeader(bytes).dataOffset
        let entries = try ElementIndex.read(bytes, streamStart: start).entries
        var failures: [Mark] = [], warnings: [Mark] = []
        for (k, position) in plain.enumerated() {
            let range = entries[position].range, name = "Plain\(k)"
            if warning.contains(k) {
                // The schema flag (0), then the schema end position, 0 for a table without schema.
                guard bytes[range.lowerBound ..< range.lowerBound + 5] == [0, 0, 0, 0, 0] else { throw BriefcaseError(.invalidData, "\(name): no schema end") }
                bytes[range.lowerBound + 1] = 7
                warnings.append(Mark(name: name, offset: range.lowerBound + 1))
            }
            if broken.contains(k) {
                guard bytes[range.upperBound - 5 ..< range.upperBound] == [1, 0, 0, 0, UInt8(ascii: "e")] else {
                    throw BriefcaseError(.invalidData, "\(name): no last value")
                }
                bytes.replaceSubrange(range.upperBound - 5 ..< range.upperBound - 1, with: [0xFF, 0xFF, 0xFF, 0x7F])
                failures.append(Mark(name: name, offset: range.upperBound - 5))
            }
        }
        return (bytes, failures, warnings)
    }
}
