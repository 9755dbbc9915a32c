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

        /// Groups index entries (or elements) into tables: a dataset and the delta paired with
        /// it (`ElementPairing`: the k-th of a name with the k-th of that name) make one table;
        /// a dataset or delta without a partner, a table of its own.
        static func group<T>(_ items: [T], kind: (T) -> ElementKind, name: (T) -> ByteString) -> [(name: ByteString, dataset: T?, delta: T?, deltaFirst: Bool)] {
            var groups: [(name: ByteString, dataset: T?, delta: T?, deltaFirst: Bool)] = []
            var groupOf: [Int] = []  // item → its group
            var pairing = ElementPairing()
            for item in items {
                let isTable = kind(item) == .table
                if let mate = pairing.add(kind(item), named: name(item)) {
                    let group = groupOf[mate]
                    groupOf.append(group)
                    if isTable { groups[group].dataset = item } else { groups[group].delta = item }
                } else {
                    groupOf.append(groups.count)
                    groups.append((name(item), isTable ? item : nil, isTable ? nil : item, !isTable))
                }
            }
            return groups
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
