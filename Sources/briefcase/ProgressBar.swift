import BriefcaseKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-line progress bar on standard error for long conversions: bytes, a bar when the total
/// is known, and the rate. Shown only for inputs over 8 MB, only when standard error is a
/// terminal, and never with `--quiet`, so logs and pipes stay clean.
final class ProgressBar: @unchecked Sendable {
    static let threshold = 8 * 1024 * 1024

    private let start = ProgressBar.now()
    private var lastDraw = 0.0
    private var label = ""
    private var drawn = false

    /// A bar for `path` when the conditions hold, else nil.
    static func make(for path: String, quiet: Bool) -> ProgressBar? {
        guard !quiet, isatty(2) == 1, path != "-" else { return nil }
        var info = stat()
        guard stat(systemPath(path), &info) == 0, Int(info.st_size) > threshold || (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return ProgressBar()
    }

    /// Shows read progress of input files while the bar lives.
    func attachToReads() {
        FileIO.readProgress = { [weak self] done, total in self?.update("reading", done: done, total: total) }
    }

    func update(_ label: String, done: Int, total: Int) {
        let now = Self.now()
        guard now - lastDraw >= 0.1 || label != self.label else { return }
        lastDraw = now
        self.label = label
        let mb = Double(done) / 1_048_576
        let rate = mb / max(now - start, 0.001)
        var line = "\r\u{1B}[K" + TerminalText.escaped(label) + " " + Self.format(mb) + " MB"
        if total > 0 {
            let fraction = min(1, Double(done) / Double(total))
            let filled = Int(fraction * 24)
            line += " / " + Self.format(Double(total) / 1_048_576) + " MB ["
                + String(repeating: "#", count: filled) + String(repeating: " ", count: 24 - filled) + "]"
        }
        line += "  " + Self.format(rate) + " MB/s"
        write(line)
        drawn = true
    }

    /// Clears the line.
    func finish() {
        FileIO.readProgress = nil
        if drawn { write("\r\u{1B}[K") }
    }

    private func write(_ text: String) { Console.write(text) }

    private static func format(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
