extension Briefcase {
    /// One table of the briefcase: where its elements are on disk, and the decoded table once loaded.
    final class Entry {
        var name: ByteString
        var loaded: BriefcaseTable?
        var source: Source?
        /// Whether the delta element comes before the dataset (what .NET writes).
        var deltaFirst: Bool

        init(name: ByteString, loaded: BriefcaseTable?, source: Source?, deltaFirst: Bool) {
            self.name = name
            self.loaded = loaded
            self.source = source
            self.deltaFirst = deltaFirst
        }

        /// Groups index entries (or elements) by name: a dataset and a delta of the same name
        /// (case-insensitive) make one table; a second dataset of a name makes another.
        static func group<T>(_ items: [T], kind: (T) -> ElementKind, name: (T) -> ByteString) -> [(name: ByteString, dataset: T?, delta: T?, deltaFirst: Bool)] {
            var groups: [(name: ByteString, dataset: T?, delta: T?, deltaFirst: Bool)] = []
            // The groups of each name still missing a dataset (or a delta), first created first:
            // the first group a new item joins, found without scanning every group (Spec/robustness.md).
            var waiting: [WaitingKey: WaitingGroups] = [:]
            for item in items {
                let itemName = name(item)
                let isTable = kind(item) == .table
                let key = nameKey(itemName)
                if let i = waiting[WaitingKey(name: key, missingTable: isTable)]?.popFirst() {
                    if isTable { groups[i].dataset = item } else { groups[i].delta = item }
                } else {
                    groups.append((itemName, isTable ? item : nil, isTable ? nil : item, !isTable))
                    waiting[WaitingKey(name: key, missingTable: !isTable), default: WaitingGroups()].append(groups.count - 1)
                }
            }
            return groups
        }

        private struct WaitingKey: Hashable {
            var name: [UInt8]
            var missingTable: Bool
        }

        /// Group indices in creation order, taken from the front.
        private struct WaitingGroups {
            var indices: [Int] = []
            var head = 0
            mutating func append(_ index: Int) { indices.append(index) }
            mutating func popFirst() -> Int? {
                guard head < indices.count else { return nil }
                head += 1
                return indices[head - 1]
            }
        }

        static func group(_ elements: [Element]) -> [(name: ByteString, dataset: Table?, delta: Delta?, deltaFirst: Bool)] {
            group(elements, kind: \.kind, name: \.name).map { group in
                var dataset: Table?, delta: Delta?
                if case .table(let t)? = group.dataset { dataset = t }
                if case .delta(let d)? = group.delta { delta = d }
                return (group.name, dataset, delta, group.deltaFirst)
            }
        }
    }

    /// Where a table's elements are: a file (the briefcase itself, or its table file in a
    /// folder) and the element reader of that file.
    struct Source {
        let file: RandomAccessFile
        let reader: BriefcaseElements
        /// The positions of the dataset and the delta in `reader.elements`.
        var dataset: Int?
        var delta: Int?
        /// Folder briefcases: the table file's name inside the folder.
        var folderFileName: String?

        /// The table's elements in `reader.elements`, in their order in the file.
        func parts(deltaFirst: Bool) -> [Int] {
            (deltaFirst ? [delta, dataset] : [dataset, delta]).compactMap { $0 }
        }
    }
}
