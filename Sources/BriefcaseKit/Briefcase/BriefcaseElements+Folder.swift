import Foundation

extension BriefcaseElements {
    /// Writes the briefcase as a folder briefcase at `path` (created if needed; meant to be a new,
    /// empty folder, such as the temporary folder of an atomic conversion), table by table: each
    /// table's elements are decoded, encoded into its `DABRC600` file, and dropped, so memory holds
    /// one table. The files are those `Briefcase.make(from: document…).write()` writes for the
    /// decoded document (same grouping, file names, bytes and `Properties.plist`): decoded and
    /// encoded again, not copied raw, so what the decoder normalises (a stale schema-end
    /// position) is written as a fresh write would, and damage is found.
    ///
    /// Code page, damage and `skipDamaged` as in `convert(encoding:skipDamaged:…)`; file names
    /// are given for every table of the index, damaged ones included.
    public func writeFolder(to path: String, encoding: CodePage?, skipDamaged: Bool) throws -> ElementConversionReport {
        let groups = Briefcase.Entry.group(elements, kind: \.kind, name: \.name)
        var order: [Int] = []
        var groupOf: [Int] = Array(repeating: 0, count: elements.count)
        var position: [Int: Int] = [:]
        for (i, element) in elements.enumerated() { position[element.range.lowerBound] = i }
        for (g, group) in groups.enumerated() {
            let parts = group.deltaFirst ? [group.delta, group.dataset] : [group.dataset, group.delta]
            for case let stored? in parts {
                let i = position[stored.range.lowerBound]!
                order.append(i)
                groupOf[i] = g
            }
        }
        var fileNames: [String] = []
        var codePage = CodePage.utf8
        var pending: (group: Int, elements: [Element])?
        func flush() throws {
            guard let (group, parts) = pending else { return }
            pending = nil
            let bytes: [UInt8]
            do throws(BriefcaseError) {
                bytes = try BriefcaseFileCodec.encode(BriefcaseFile(stream: Bin2Stream(elements: parts)))
            } catch {
                throw error.inElement(codePage.decodeForDisplay(groups[group].name))
            }
            try FileIO.writeAtomically(bytes, to: path + "/" + fileNames[group])
        }
        var report = try convert(encoding: encoding, skipDamaged: skipDamaged, order: order, start: { chosen in
            codePage = chosen
            pending = nil
            fileNames = TableFileName.fileNames(for: groups.map { chosen.decodeForDisplay($0.name) })
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw BriefcaseError(.io, "cannot create the folder", file: path)
            }
        }, consume: { i, element in
            if let current = pending, current.group != groupOf[i] { try flush() }
            if pending == nil { pending = (groupOf[i], []) }
            pending!.elements.append(element)
        }, abandon: {
            pending = nil
            for name in fileNames { unlink(path + "/" + name) }
        })
        try flush()
        try FileIO.writeAtomically(try Briefcase.propertiesPlist(properties, codePage: report.codePage), to: path + "/" + Briefcase.propertiesFileName)
        report.codePage = codePage
        return report
    }
}
