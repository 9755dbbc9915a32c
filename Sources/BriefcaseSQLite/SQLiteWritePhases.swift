/// Where the time of writing a database goes, phase by phase: the wall-clock time the thread
/// that writes spends in each (issue 29: SQLite's own share against ours). The bench sets one on
/// its `SQLiteSink` and writes what it gathered into Benchmarks.md; no other use sets one, and
/// without one nothing is timed. Timing reads the clock twice per statement of rows (64 rows).
package final class SQLiteWritePhases {
    /// The phases, each the writer's own or SQLite's.
    package enum Phase: Int, CaseIterable, Sendable {
        /// A pending delta replayed over the stored rows (`ReplayedTable`): ours.
        case replay
        /// The rows' values bound to INSERT statements (`RowBinder`): ours, with `sqlite3_bind_*`.
        case bind
        /// The INSERT statements run (`sqlite3_step`): SQLite's — records, B-trees, pages, writes.
        case insert
        /// Each element's exact bytes as a Bin2 stream of its own, and their CRC-32: ours and zlib's.
        case elementBytes
        /// Those bytes into `_briefcase_elements` (their row, the bytes bound where they lie): SQLite's.
        case elementWrite
        /// Fields, schema properties and changes (`_briefcase_fields`, `_briefcase_schema`,
        /// `_briefcase_changes`), tables made: ours and SQLite's.
        case views
        /// The transaction committed (the pages still in the cache written): SQLite's.
        case commit

        /// How Benchmarks.md names it.
        package var label: String {
            switch self {
            case .replay: return "replay pending deltas (ours)"
            case .bind: return "bind the rows' values (ours, with sqlite3_bind_*)"
            case .insert: return "insert the rows: sqlite3_step (SQLite)"
            case .elementBytes: return "elements' exact bytes and CRC-32 (ours, zlib)"
            case .elementWrite: return "elements' bytes into _briefcase_elements (SQLite)"
            case .views: return "fields, schema, changes, CREATE TABLE (ours and SQLite)"
            case .commit: return "COMMIT (SQLite)"
            }
        }
    }

    /// Nanoseconds spent in each phase, by `Phase.rawValue`.
    package private(set) var nanoseconds = [UInt64](repeating: 0, count: Phase.allCases.count)

    package init() {}

    /// Runs `body`, adding the time it takes to `phase`.
    package func time<T, E: Error>(_ phase: Phase, _ body: () throws(E) -> T) throws(E) -> T {
        let start = ContinuousClock.now
        defer {
            let elapsed = (ContinuousClock.now - start).components
            nanoseconds[phase.rawValue] += UInt64(elapsed.seconds) * 1_000_000_000 + UInt64(elapsed.attoseconds / 1_000_000_000)
        }
        return try body()
    }
}

/// Times `body` in `phase` when `phases` is set; else just runs it.
@inline(__always)
func timed<T, E: Error>(_ phases: SQLiteWritePhases?, _ phase: SQLiteWritePhases.Phase, _ body: () throws(E) -> T) throws(E) -> T {
    guard let phases else { return try body() }
    return try phases.time(phase, body)
}
