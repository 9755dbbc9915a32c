extension BriefcaseElements {
    /// Writes the briefcase as a folder briefcase at `path` (created if needed; meant to be a new,
    /// empty folder, such as the temporary folder of an atomic conversion): the elements read
    /// into a `FolderSink`, table by table, so memory holds one table. Decoded and encoded
    /// again, not copied raw as the lazy `Briefcase` does, so what the decoder normalises (a
    /// stale schema-end position) is written as a fresh write would, and damage is found.
    /// Code page, damage, `skipDamaged` and `jobs` as in `read(into:encoding:skipDamaged:jobs:)`.
    public func writeFolder(to path: String, encoding: CodePage?, skipDamaged: Bool, jobs: Int = 1) throws -> ElementConversionReport {
        var sink = FolderSink(path: path)
        return try read(into: &sink, encoding: encoding, skipDamaged: skipDamaged, jobs: jobs)
    }
}
