#if canImport(Glibc)
import Glibc
#endif

extension BriefcaseElements {
    /// Writes the briefcase as a folder briefcase at `path` (created if needed; meant to be a new,
    /// empty folder, such as the temporary folder of an atomic conversion), table by table with
    /// the folder writer (`FolderWriter`): each table's elements are decoded, written into its
    /// `DABRC600` file, and dropped, so memory holds one table. Decoded and encoded again, not
    /// copied raw as the lazy `Briefcase` does, so what the decoder normalises (a stale schema-end
    /// position) is written as a fresh write would, and damage is found.
    ///
    /// Code page, damage and `skipDamaged` as in `convert(encoding:skipDamaged:…)`; file names
    /// are given for every table of the index, damaged ones included.
    public func writeFolder(to path: String, encoding: CodePage?, skipDamaged: Bool) throws -> ElementConversionReport {
        let groups = Briefcase.Entry.group(Array(elements.indices), kind: { elements[$0].kind }, name: { elements[$0].name })
        var order: [Int] = []
        var groupOf: [Int] = Array(repeating: 0, count: elements.count)
        for (g, group) in groups.enumerated() {
            for i in (group.deltaFirst ? [group.delta, group.dataset] : [group.dataset, group.delta]).compactMap({ $0 }) {
                order.append(i)
                groupOf[i] = g
            }
        }
        var folder: FolderWriter?
        var codePage = CodePage.utf8
        var pending: (group: Int, elements: [Element])?
        func flush() throws {
            guard let (group, parts) = pending, let folder else { return }
            pending = nil
            do throws(BriefcaseError) {
                try folder.writeTable(group) { writer throws(BriefcaseError) in
                    for element in parts { try writer.write(element) }
                }
            } catch {
                throw error.kind == .io ? error : error.inElement(codePage.decodeForDisplay(groups[group].name))
            }
        }
        var report = try convert(encoding: encoding, skipDamaged: skipDamaged, order: order, start: { chosen in
            codePage = chosen
            pending = nil
            folder = try FolderWriter(path: path, tableNames: groups.map { chosen.decodeForDisplay($0.name) })
        }, consume: { i, element in
            if let current = pending, current.group != groupOf[i] { try flush() }
            if pending == nil { pending = (groupOf[i], []) }
            pending!.elements.append(element)
        }, abandon: {
            pending = nil
            if let folder { for table in folder.fileNames.indices { unlink(folder.filePath(table)) } }
        })
        try flush()
        try folder?.writeProperties(try FolderWriter.propertiesPlist(properties, codePage: report.codePage))
        report.codePage = codePage
        return report
    }
}
