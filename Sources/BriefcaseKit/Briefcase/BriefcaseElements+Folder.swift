extension BriefcaseElements {
    /// Writes the briefcase as a folder briefcase at `path`: the elements read into a
    /// `FolderSink`, table by table, so memory holds one table. The folder is made new; anything
    /// at `path` is an error (`BriefcaseError.outputExists`) unless `replacing`, which writes into
    /// an existing folder, replacing its files of the same names. On an error, the files written
    /// are removed (and the folder, when made here). Decoded and encoded again, not copied raw as
    /// the lazy `Briefcase` does, so what the decoder normalises (a stale schema-end position) is
    /// written as a fresh write would, and damage is found. Code page, damage, `skipDamaged` and
    /// `jobs` as in `read(into:encoding:skipDamaged:jobs:)`.
    public func writeFolder(to path: String, encoding: CodePage?, skipDamaged: Bool, jobs: Int = 1,
                            replacing: Bool = false) throws -> ElementConversionReport {
        var sink = FolderSink(path: path, replacing: replacing)
        do {
            return try read(into: &sink, encoding: encoding, skipDamaged: skipDamaged, jobs: jobs)
        } catch {
            sink.abandon()
            throw error
        }
    }
}
