import BriefcaseJSON
import BriefcaseKit
import CSQLite
import JSONCore

/// A briefcase value as the current-rows tables show it (Spec/sqlite-mapping.md §3).
struct ValueImage {
    let codePage: CodePage
    /// NaN as the text `NaN` (version 3 of the mapping), not as NULL (SQLite stores a NaN REAL as
    /// NULL, which a user may also write: the two could not be told apart).
    var nanAsText = true

    func sql(_ value: Value?) -> SQLValue {
        guard let value else { return .null }
        switch value {
        case .ansiString(let s): return .text(codePage.decodeForDisplay(s))
        case .wideString(let s): return .text(WideText.decode(s) ?? WideText.decodeForDisplay(s))
        case .guid(let s): return .text(String(decoding: s.bytes, as: UTF8.self))
        case .blob(let s): return .blob(s.array)
        case .integer(let i): return .integer(i)
        case .largeUInt(let u): return u <= UInt64(Int64.max) ? .integer(Int64(u)) : .real(Double(u))
        case .boolean(let b): return .integer(b != 0 ? 1 : 0)
        case .currency(let c): return .text(c.description)
        case .decimal(let d): return .text(d.description)
        case .float(let f): return f.isNaN ? nan : .real(f)
        case .singleFloat(let f): return f.isNaN ? nan : .real(Double(f))
        case .dateTime(let d):
            if let text = d.isoText { return .text(text) }
            return d.value.isNaN ? nan : .real(d.value)
        }
    }

    /// How NaN shows: the text `NaN` (as `cat` prints it), or NULL in databases of versions 1 and 2.
    var nan: SQLValue { nanAsText ? .text("NaN") : .null }
}
